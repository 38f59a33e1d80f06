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
	f, err := s.View(nil).ReadFile(ctx, "pdf", "references/forms.md", nil)
	fmt.Printf("%q %v\n", f.Text, err)
	// Output:
	// jira (org): File Jira tickets.
	// pdf (team): Fill PDF forms, the team's way.
	// shadowed: pdf in org
	// "Use pypdf.\n" <nil>
}

// teamOnly is a caller's filter: it sees the skills of the source
// labelled "team" and nothing else. access.Filter is the server's.
type teamOnly struct{}

func (teamOnly) All() bool                       { return false }
func (teamOnly) Allows(source, name string) bool { return source == "team" }
func (teamOnly) AllowsSource(source string) bool { return source == "team" }
func (teamOnly) ViewKey() any                    { return "team" }

// Every read goes through a view. A skill the caller may not see answers
// as a missing one does; a read pinned to a skill the caller holds
// (ReadOptions.Skill) comes from the snapshot that skill was read from.
func ExampleStore_View() {
	s, err := store.New([]store.Source{
		{Label: "team", Location: "./skills", FS: fstest.MapFS{
			"pdf/SKILL.md": {Data: []byte("---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n")},
			"pdf/forms.md": {Data: []byte("Use pypdf.\n")},
		}},
		{Label: "org", Location: "s3://corp-skills", FS: fstest.MapFS{
			"jira/SKILL.md": {Data: []byte("---\nname: jira\ndescription: File Jira tickets.\n---\n")},
		}},
	}, store.Options{})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	v := s.View(teamOnly{})
	list, _ := v.List(ctx)
	for _, sk := range list {
		fmt.Println("listed:", sk.Name)
	}
	_, err = v.Skill(ctx, "jira")
	fmt.Println(err)
	_, err = s.View(nil).Skill(ctx, "nope")
	fmt.Println(err)
	sk, _ := v.Skill(ctx, "pdf")
	f, err := v.ReadFile(ctx, "pdf", "forms.md", &store.ReadOptions{Skill: sk, Text: true})
	fmt.Printf("%q %v\n", f.Text, err)
	// Output:
	// listed: pdf
	// skillstore: skill "jira": skill not found
	// skillstore: skill "nope": skill not found
	// "Use pypdf.\n" <nil>
}
