package store_test

import (
	"context"
	"fmt"
	"log"
	"testing/fstest"

	"github.com/skillstore/skillstore/store"
)

// Build a store over two sources: the first wins when both hold a skill
// of the same name, and the other copy is reported as shadowed. Any fs.FS
// that confines reads to itself is a source (backends.Open makes them from
// paths and URLs).
func ExampleNew() {
	team := fstest.MapFS{
		"pdf/SKILL.md":            {Data: []byte("---\nname: pdf\ndescription: Fill PDF forms, the team's way.\n---\n# PDF\n")},
		"pdf/references/forms.md": {Data: []byte("Use pypdf.\n")},
	}
	shared := fstest.MapFS{
		"pdf/SKILL.md":   {Data: []byte("---\nname: pdf\ndescription: Fill PDF forms.\n---\n")},
		"jira/SKILL.md":  {Data: []byte("---\nname: jira\ndescription: File Jira tickets.\n---\n")},
		"notes/todo.txt": {Data: []byte("not a skill")},
	}
	s, err := store.New([]store.Source{
		{Label: "team", Location: "./skills", FS: team},
		{Label: "org", Location: "s3://corp-skills", FS: shared},
	}, store.Options{CacheBytes: 16 << 20})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	c, err := s.View(nil).Catalog(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, sk := range c.Skills {
		fmt.Printf("%s (%s): %s\n", sk.Name, sk.Source.Label, sk.Description)
	}
	for _, sh := range c.Shadowed {
		fmt.Printf("shadowed: %s in %s\n", sh.Name, sh.Hidden.Label)
	}
	f, err := s.View(nil).ReadFile(ctx, "pdf", "references/forms.md", &store.ReadOptions{Text: true})
	fmt.Printf("%q %v\n", f.Text, err)
	// Output:
	// jira (org): File Jira tickets.
	// pdf (team): Fill PDF forms, the team's way.
	// shadowed: pdf in org
	// "Use pypdf.\n" <nil>
}
