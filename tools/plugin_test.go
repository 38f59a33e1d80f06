package tools_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// pluginStore serves fixture.PluginsMapFS(withP1) as one source.
func pluginStore(t *testing.T, withP1 bool) *store.Store {
	t.Helper()
	s, err := store.New([]store.Source{{Label: "team", FS: fixture.PluginsMapFS(withP1), Grouper: backends.Plugins}}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPluginURIs: a plugin's skill, PLUGIN:SKILL, is listed and addressed
// at skill://PLUGIN/SKILL/…; a URI whose first two segments name a skill
// the caller sees reads that skill, else the first segment's skill; a
// caller who may not see the plugin's skill gets, for every URI, the
// answer given where the plugin does not exist; a plugin named as a
// skill is refused, so the skill's files keep their URIs.
func TestPluginURIs(t *testing.T) {
	ctx := context.Background()
	all := tools.New(pluginStore(t, true), tools.Options{})
	list, err := all.ListSkills(ctx, tools.ListSkillsArgs{})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, d := range list.Details {
		uris = append(uris, d.Name+" "+d.URI)
	}
	want := []string{"p1:review skill://p1/review/SKILL.md", "p2:review skill://p2/review/SKILL.md", "p3 skill://p3/SKILL.md"}
	if diff := gocmp.Diff(want, uris); diff != "" {
		t.Errorf("list_skills (-want +got):\n%s", diff)
	}
	if got := tools.FileURI("p1:review", "a b/c.md"); got != "skill://p1/review/a%20b/c.md" {
		t.Errorf("FileURI %s", got)
	}
	res, err := all.GetSkill(ctx, tools.GetSkillArgs{URI: "skill://p1/review/SKILL.md"})
	if err != nil || res.SkillName != "p1:review" || !strings.Contains(res.Documentation, "as p1 does them") || res.URI != "skill://p1/review/SKILL.md" {
		t.Errorf("get_skill by URI: %+v %v", res, err)
	}
	if res, err := all.GetSkill(ctx, tools.GetSkillArgs{SkillName: "p2:review"}); err != nil || !strings.Contains(res.Documentation, "as p2 does them") {
		t.Errorf("get_skill by name: %+v %v", res, err)
	}
	for uri, want := range map[string][2]string{
		"skill://p1/review/docs/notes.md": {"p1:review", "docs/notes.md"},
		"skill://p1/review":               {"p1:review", ""},
		"skill://p1/SKILL.md":             {"p1", "SKILL.md"},
		"skill://p3/review/SKILL.md":      {"p3", "review/SKILL.md"},
		"skill://p1:review/docs/notes.md": {"p1:review", "docs/notes.md"},
		"skill://p9/review/SKILL.md":      {"p9", "review/SKILL.md"},
	} {
		name, p, err := tools.ResolveURI(ctx, all.View(), uri)
		if err != nil || name != want[0] || p != want[1] {
			t.Errorf("SplitURI(%s) = %q %q %v, want %q", uri, name, p, err, want)
		}
	}
	if r, err := all.Call(ctx, tools.SkillTool, `{"skill_name": "p1:review"}`); err != nil || !strings.HasPrefix(r, "Skill: p1:review (Type: team)\nPath: plugin-one/skills/review") {
		t.Errorf("Skill: %s %v", r, err)
	}

	// A caller who sees p1 and p2's skills, not p1's plugin, and a server
	// where that plugin does not exist, answer alike.
	pol, err := access.Parse("p.yaml", []byte("default: deny\nrules:\n  - {groups: [x], sources: [team], skills: [\"p3\", \"p2:*\"]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	hidden := forFilter(all, pol.For(&access.Principal{Subject: "x", Groups: []string{"x"}}))
	absent := tools.New(pluginStore(t, false), tools.Options{})
	for _, call := range []struct{ tool, args string }{
		{tools.GetSkill, `{"uri": "skill://p1/review/SKILL.md"}`},
		{tools.GetSkill, `{"skill_name": "p1:review"}`},
		{tools.ReadFileInSkill, `{"skill_name": "p1:review", "file_path": "docs/notes.md"}`},
		{tools.ReadFileInSkill, `{"skill_name": "p3", "file_path": "review/SKILL.md"}`},
		{tools.ListSkills, `{}`},
	} {
		h, herr := hidden.Call(ctx, call.tool, call.args)
		a, aerr := absent.Call(ctx, call.tool, call.args)
		if diff := gocmp.Diff(a, h); diff != "" || (herr == nil) != (aerr == nil) {
			t.Errorf("%s %s: hidden and absent differ (-absent +hidden):\n%s", call.tool, call.args, diff)
		}
	}
	groups := func(v *store.View) (out []string) {
		c, err := v.Catalog(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range c.Groups {
			out = append(out, g.Name+"@"+g.Dir)
		}
		return out
	}
	if diff := gocmp.Diff([]string{"p2@p2", "p1@plugin-one"}, groups(all.View())); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(groups(absent.View()), groups(hidden.View())); diff != "" {
		t.Errorf("groups: hidden and absent differ (-absent +hidden):\n%s", diff)
	}
	for _, uri := range []string{"skill://p1/review/SKILL.md", "skill://p1/review/docs/notes.md", "skill://p1/review"} {
		hn, hp, herr := tools.ResolveURI(ctx, hidden.View(), uri)
		an, ap, aerr := tools.ResolveURI(ctx, absent.View(), uri)
		if hn != an || hp != ap || (herr == nil) != (aerr == nil) {
			t.Errorf("SplitURI(%s): hidden %q %q %v, absent %q %q %v", uri, hn, hp, herr, an, ap, aerr)
		}
	}

	// A skill named p1 and a plugin p1, in two sources: the first source's
	// is served, the other hidden as a shadowed copy (in each order), so
	// skill://p1/review/SKILL.md names one thing.
	manifest := []byte(`{"$schema": "` + backends.PluginSchema + `", "name": "p1"}`)
	plugins := fstest.MapFS{"one/plugin.json": {Data: manifest}, "one/skills/review/SKILL.md": {Data: []byte("---\nname: review\ndescription: R.\n---\n")}}
	skills := fstest.MapFS{"p1/SKILL.md": {Data: []byte("---\nname: p1\ndescription: P.\n---\n")}, "p1/review/SKILL.md": {Data: []byte("p1's file\n")}}
	for _, c := range []struct {
		first         string
		name, p, lost string
	}{{"plugins", "p1:review", "SKILL.md", "p1"}, {"skills", "p1", "review/SKILL.md", "p1:review"}} {
		srcs := []store.Source{{Label: "plugins", FS: plugins, Grouper: backends.Plugins}, {Label: "skills", FS: skills}}
		if c.first == "skills" {
			srcs[0], srcs[1] = srcs[1], srcs[0]
		}
		s, err := store.New(srcs, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		v := tools.New(s, tools.Options{}).View()
		if name, p, err := tools.ResolveURI(ctx, v, "skill://p1/review/SKILL.md"); name != c.name || p != c.p || err != nil {
			t.Errorf("%s first: %q %q %v", c.first, name, p, err)
		}
		if _, err := v.Skill(ctx, c.lost); !errors.Is(err, store.ErrSkillNotFound) {
			t.Errorf("%s first: %s is %v", c.first, c.lost, err)
		}
		cat, _ := s.View(nil).Catalog(ctx)
		if len(cat.Shadowed) != 1 || cat.Shadowed[0].Name != c.lost || cat.Shadowed[0].WinnerIn.Label != c.first || cat.Shadowed[0].By != c.name {
			t.Errorf("%s first: shadowed %+v", c.first, cat.Shadowed)
		}
	}
}
