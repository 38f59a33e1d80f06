package mcpserver

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// TestSkillsListPages pages through 120 skills (one invalid) and checks
// every valid skill appears exactly once.
func TestSkillsListPages(t *testing.T) {
	m := fstest.MapFS{}
	for i := range 120 {
		name := fmt.Sprintf("skill-%03d", i)
		m[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: d\n---\n")}
	}
	m["Not_Valid/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: Not_Valid\ndescription: d\n---\n")}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, _ := store.New([]store.Source{{Label: "project", FS: m}}, store.Options{Logger: quiet})
	srv, err := New(context.Background(), tools.New(s, tools.Options{}), Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	cursor, pages := "", 0
	for {
		res, err := srv.listSkills(context.Background(), cursor)
		if err != nil {
			t.Fatal(err)
		}
		page := res.(listSkillsResult)
		pages++
		for _, e := range page.Skills {
			seen[e.Frontmatter["name"].(string)]++
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if len(seen) != 120 || pages != 3 || seen["Not_Valid"] != 0 {
		t.Errorf("%d skills over %d pages; invalid listed %d times", len(seen), pages, seen["Not_Valid"])
	}
	for name, n := range seen {
		if n != 1 {
			t.Errorf("%s listed %d times", name, n)
		}
	}
	if _, err := srv.getSkill(context.Background(), "skill://Not_Valid/SKILL.md"); err == nil {
		t.Error("skills/get published an invalid skill")
	}
}
