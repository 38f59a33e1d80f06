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

	"github.com/google/go-cmp/cmp"

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
		res, err := srv.listSkills(context.Background(), srv.tools.View(), false, cursor)
		if err != nil {
			t.Fatal(err)
		}
		page := res.(listSkillsResult)
		pages++
		for _, e := range page.Skills {
			var fm struct{ Name string }
			if err := json.Unmarshal(e.Frontmatter, &fm); err != nil {
				t.Fatalf("frontmatter %s: %v", e.Frontmatter, err)
			}
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
	if _, err := srv.getSkill(context.Background(), srv.tools.View(), false, "skill://Not_Valid/SKILL.md"); err == nil {
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
	s, err := store.New([]store.Source{{Label: "project", FS: m}}, store.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(context.Background(), tools.New(s, tools.Options{}), Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	a := srv.handle(context.Background(), source{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{}}`))
	var list struct {
		Result struct {
			Skills []struct {
				URI string `json:"uri"`
			} `json:"skills"`
		} `json:"result"`
	}
	if err := json.Unmarshal(a.body, &list); err != nil || len(a.body) > 64<<10 {
		t.Fatalf("skills/list (%d bytes): %.300s: %v", len(a.body), a.body, err)
	}
	var uris []string
	for _, e := range list.Result.Skills {
		uris = append(uris, e.URI)
	}
	if diff := cmp.Diff([]string{"skill://good/SKILL.md"}, uris); diff != "" {
		t.Errorf("skills/list (-want +got):\n%s", diff)
	}
	for name, want := range map[string]string{
		"bomb": `skillstore: skill "bomb": skill is invalid: the YAML frontmatter uses an alias (*big), which skillstore does not expand: write the value out`,
		"huge": `skillstore: skill "huge": skill is invalid: the YAML frontmatter is 71718B; the limit is 64KB: move long content into the Markdown body`,
		"keys": `skillstore: skill "keys": skill is invalid: the YAML frontmatter has more than 10000 keys and values: keep it to the fields skills use`,
	} {
		_, err := s.View(nil).Skill(context.Background(), name)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v; want %q", name, err, want)
		}
	}
	g := srv.handle(context.Background(), source{}, []byte(`{"jsonrpc":"2.0","id":2,"method":"skills/get","params":{"uri":"skill://nan/SKILL.md"}}`))
	if got := string(g.body); got != `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Skill 'nan' does not meet the Agent Skills specification `+
		`(score: holds .nan or .inf, which JSON cannot carry, so hosts that read the frontmatter are not served this skill), so it is not published through the skills extension"}}`+"\n" {
		t.Errorf("skills/get nan: %q", g.body)
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "  k%d: v\n", i)
	}
	return b.String()
}
