package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
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
		res, err := srv.listSkills(context.Background(), srv.tools.View(), cursor)
		if err != nil {
			t.Fatal(err)
		}
		page := res.(listSkillsResult)
		pages++
		for _, e := range page.Skills {
			var fm struct{ Name string }
			json.Unmarshal(e.Frontmatter, &fm)
			seen[fm.Name]++
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
	if _, err := srv.getSkill(context.Background(), srv.tools.View(), "skill://Not_Valid/SKILL.md"); err == nil {
		t.Error("skills/get published an invalid skill")
	}
}

// TestHostileFrontmatter: a SKILL.md whose frontmatter uses YAML aliases
// (a "billion laughs" in small), is oversized, or holds a value JSON cannot
// hold is refused or left out on its own; skills/list still answers, with
// the good skill, and no answer balloons.
func TestHostileFrontmatter(t *testing.T) {
	anchor := strings.Repeat("x", 40<<10)
	refs := strings.Repeat("  - *big\n", 1000)
	m := fstest.MapFS{
		"good/SKILL.md": {Data: []byte("---\nname: good\ndescription: Fine.\n---\nbody")},
		"bomb/SKILL.md": {Data: []byte("---\nname: bomb\ndescription: Aliases.\nbig: &big \"" + anchor + "\"\nmany:\n" + refs + "---\nbody")},
		"huge/SKILL.md": {Data: []byte("---\nname: huge\ndescription: Huge.\npad: \"" + strings.Repeat("y", 70<<10) + "\"\n---\nbody")},
		"nan/SKILL.md":  {Data: []byte("---\nname: nan\ndescription: Not a number.\nscore: .nan\n---\nbody")},
		"keys/SKILL.md": {Data: []byte("---\nname: keys\ndescription: Keys.\nextra:\n" + manyKeys(6000) + "---\nbody")},
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, _ := store.New([]store.Source{{Label: "project", FS: m}}, store.Options{Logger: quiet})
	srv, err := New(context.Background(), tools.New(s, tools.Options{}), Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	a := srv.handle(context.Background(), source{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{}}`))
	if len(a.body) > 64<<10 || !strings.Contains(string(a.body), `"skill://good/SKILL.md"`) {
		t.Fatalf("skills/list (%d bytes): %.300s", len(a.body), a.body)
	}
	for _, name := range []string{"bomb", "huge", "nan", "keys"} {
		if strings.Contains(string(a.body), "skill://"+name+"/") {
			t.Errorf("%s listed", name)
		}
	}
	for name, want := range map[string]string{"bomb": "alias", "huge": "the limit is 64KB", "keys": "more than 10000"} {
		_, err := s.Skill(context.Background(), name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", name, err, want)
		}
	}
	g := srv.handle(context.Background(), source{}, []byte(`{"jsonrpc":"2.0","id":2,"method":"skills/get","params":{"uri":"skill://nan/SKILL.md"}}`))
	if !strings.Contains(string(g.body), ".nan") || !strings.Contains(string(g.body), `"error"`) {
		t.Errorf("skills/get nan: %s", g.body)
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "  k%d: v\n", i)
	}
	return b.String()
}
