package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/store"
)

// TestPluginSkillsOverMCP: a plugin's skill is listed, read, got and
// browsed at skill://PLUGIN/SKILL/… on every method; a caller who may not
// see it gets, for each request, the bytes a server without the plugin
// sends.
func TestPluginSkillsOverMCP(t *testing.T) {
	const policy = "default: deny\nrules:\n  - {groups: [all], sources: [team], skills: [\"*\"]}\n  - {groups: [some], sources: [team], skills: [\"p3\", \"p2:*\"]}\n"
	serve := func(withP1 bool) *Server {
		st, err := store.New([]store.Source{{Label: "team", FS: fixture.PluginsMapFS(withP1), Grouper: backends.Plugins}}, store.Options{Logger: quiet()})
		if err != nil {
			t.Fatal(err)
		}
		return policedServer(t, st, policy)
	}
	srv, without := serve(true), serve(false)
	ask := func(srv *Server, group, method, params string) string {
		src := source{caller: srv.callerFor(&access.Principal{Subject: "x", Groups: []string{group}})}
		a := srv.handle(context.Background(), src, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
		return string(a.body)
	}
	for _, c := range []struct {
		method, params string
		has            []string // in the answer to a caller who sees everything
	}{
		{"resources/list", `{}`, []string{`"uri":"skill://p1/review/SKILL.md","name":"p1:review"`, `"uri":"skill://p2/review/SKILL.md"`, `"uri":"skill://p3/SKILL.md"`}},
		{"resources/read", `{"uri":"skill://p1/review/SKILL.md"}`, []string{"as p1 does them"}},
		{"resources/read", `{"uri":"skill://p1/review/docs/notes.md"}`, []string{"p1's notes"}},
		{"resources/read", `{"uri":"skill://p3/SKILL.md"}`, []string{"A plain skill called p3."}},
		{"resources/read", `{"uri":"skill://p3/review/SKILL.md"}`, []string{"p3's own file"}},
		{"skills/list", `{}`, []string{`"uri":"skill://p1/review/SKILL.md"`, `"uri":"skill://p1/review/docs/notes.md"`, `"uri":"skill://p2/review/SKILL.md"`}},
		{"skills/get", `{"uri":"skill://p1/review/SKILL.md"}`, []string{`"name":"review"`, `"uri":"skill://p1/review/docs/notes.md"`}},
		{"resources/directory/read", `{"uri":"skill://p1/review"}`, []string{`"uri":"skill://p1/review/docs"`, `"uri":"skill://p1/review/SKILL.md"`}},
		{"resources/directory/read", `{"uri":"skill://p1/review/docs"}`, []string{`"uri":"skill://p1/review/docs/notes.md"`}},
		{"tools/call", `{"name":"get_skill","arguments":{"uri":"skill://p1/review/SKILL.md"}}`, []string{"as p1 does them", `"skill_name":"p1:review"`}},
		{"prompts/get", `{"name":"p1:review"}`, []string{"as p1 does them"}},
	} {
		all := ask(srv, "all", c.method, c.params)
		for _, want := range c.has {
			if !strings.Contains(all, want) {
				t.Errorf("%s %s: no %s in %.600s", c.method, c.params, want, all)
			}
		}
		if diff := cmp.Diff(ask(without, "some", c.method, c.params), ask(srv, "some", c.method, c.params)); diff != "" {
			t.Errorf("%s %s: hidden and absent differ (-absent +hidden):\n%s", c.method, c.params, diff)
		}
	}
}
