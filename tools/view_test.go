package tools_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// viewStore serves two sources: "a", whose skills match "invoice" best,
// and "b", whose one skill matches it less well.
func viewStore(t *testing.T) *store.Store {
	t.Helper()
	doc := func(name, desc string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\n")}
	}
	a := fstest.MapFS{
		"invoice-pdf/SKILL.md":   doc("invoice-pdf", "Invoice invoices: read an invoice PDF."),
		"invoice-table/SKILL.md": doc("invoice-table", "Invoice tables from invoice scans."),
		"bad/SKILL.md":           {Data: []byte("---\nname: [\n---\n")},
	}
	b := fstest.MapFS{"ledger/SKILL.md": doc("ledger", "Ledger entries, with the odd invoice.")}
	s, err := store.New([]store.Source{{Label: "a", FS: a}, {Label: "b", FS: b}}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestViewHidesAsMissing: through a view that shows source b only,
// searches rank b's skills alone (hidden skills take no place under the
// limit), and every lookup of a's skills — served or left out with a
// problem — fails as a lookup of a skill that does not exist.
func TestViewHidesAsMissing(t *testing.T) {
	ctx := context.Background()
	s := viewStore(t)
	pol, err := access.Parse("p.yaml", []byte("default: deny\nrules:\n  - {groups: [b], sources: [b], skills: [\"*\"]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	all := tools.New(s, tools.Options{})
	bview := forFilter(all, pol.For(&access.Principal{Subject: "x", Groups: []string{"b"}}))
	if forFilter(all, pol.For(nil)) != all {
		t.Error("For an unrestricted filter made a copy")
	}
	one := 1
	for _, tt := range []struct {
		name string
		t    *tools.Tools
		want []string
	}{{"everyone", all, []string{"invoice-table"}}, {"b's view", bview, []string{"ledger"}}} { // a's skills rank first
		res, err := tt.t.SearchSkills(ctx, tools.SearchSkillsArgs{Query: "invoice", Limit: &one})
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(tt.want, res.Skills); diff != "" {
			t.Errorf("%s: search (-want +got)\n%s", tt.name, diff)
		}
	}
	list, _ := bview.ListSkills(ctx, tools.ListSkillsArgs{})
	if diff := gocmp.Diff([]string{"ledger"}, list.Skills); diff != "" {
		t.Errorf("list (-want +got)\n%s", diff)
	}
	for _, call := range []struct{ tool, args string }{
		{tools.GetSkill, `{"skill_name":"NAME"}`},
		{tools.SkillTool, `{"skill_name":"NAME"}`},
		{tools.ReadFileInSkill, `{"skill_name":"NAME","file_path":"SKILL.md"}`},
		{tools.ReadFileInSkill, `{"skill_name":"NAME","file_path":"../x"}`},
		{tools.ReadFileInSkill, `{"skill_name":"NAME","file_path":".git/config"}`},
	} {
		missing, _ := bview.Call(ctx, call.tool, strings.ReplaceAll(call.args, "NAME", "nope"))
		for _, hidden := range []string{"invoice-pdf", "bad"} {
			got, _ := bview.Call(ctx, call.tool, strings.ReplaceAll(call.args, "NAME", hidden))
			if diff := gocmp.Diff(missing, strings.ReplaceAll(got, hidden, "nope")); diff != "" {
				t.Errorf("%s of hidden %s (-missing +hidden)\n%s", call.tool, hidden, diff)
			}
		}
	}
	if _, err := all.View().Skill(ctx, "bad"); err == nil || errors.Is(err, store.ErrSkillNotFound) {
		t.Errorf("everyone's view of the bad skill: %v", err)
	}
}

// TestViewOwnProblem: when a hidden source lists a broken copy of a
// skill before the caller's own broken copy, the caller gets its own
// copy's problem (message and fixes), as it would if the hidden copy had
// never been written — not a missing skill, nor the hidden copy's problem.
func TestViewOwnProblem(t *testing.T) {
	ctx := context.Background()
	pol, err := access.Parse("p.yaml", []byte("default: deny\nrules:\n  - {groups: [b], sources: [b], skills: [\"*\"]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	who := &access.Principal{Subject: "x", Groups: []string{"b"}}
	view := func(hidden fstest.MapFS) *tools.Tools {
		b := fstest.MapFS{"flaw/SKILL.md": {Data: []byte("---\nname: flaw\n---\n# Flaw\n")}} // no description
		s, err := store.New([]store.Source{{Label: "a", FS: hidden}, {Label: "b", FS: b}}, store.Options{Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		return forFilter(tools.New(s, tools.Options{}), pol.For(who))
	}
	with := view(fstest.MapFS{"flaw/SKILL.md": {Data: []byte("---\nname: flaw\ndescription: [a\n---\n")}})
	without := view(fstest.MapFS{})
	for _, call := range []struct{ tool, args string }{
		{tools.GetSkill, `{"skill_name":"flaw"}`},
		{tools.SkillTool, `{"skill_name":"flaw"}`},
		{tools.ReadFileInSkill, `{"skill_name":"flaw","file_path":"SKILL.md"}`},
	} {
		want, _ := without.Call(ctx, call.tool, call.args)
		got, _ := with.Call(ctx, call.tool, call.args)
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Errorf("%s with a hidden broken copy listed first (-without it +with it)\n%s", call.tool, diff)
		}
		if !strings.Contains(got, "description") {
			t.Errorf("%s: %s; want the caller's copy's problem, its missing description", call.tool, got)
		}
	}
	c, err := with.View().Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := c.Problem("flaw"); !ok || p.Source.Label != "b" {
		t.Errorf("Problem(flaw) = %+v, %v; want b's", p, ok)
	}
	if _, ok := c.Problem("nope"); ok {
		t.Error("Problem(nope) found one")
	}
}

// TestViewRemembersPerCatalogAndPolicy: a restricted view's lists and
// searches, which Tools.For remembers per filter, follow a refresh that
// adds and removes its skills; and the views of two policies whose rules
// match alike (a reload that changes what a rule grants) are not mixed up.
func TestViewRemembersPerCatalogAndPolicy(t *testing.T) {
	ctx := context.Background()
	doc := func(name, desc string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\n")}
	}
	a := fstest.MapFS{"alpha-report/SKILL.md": doc("alpha-report", "Write the weekly report.")}
	b := fstest.MapFS{"beta-report/SKILL.md": doc("beta-report", "Review the weekly report.")}
	s, err := store.New([]store.Source{{Label: "a", FS: a}, {Label: "b", FS: b}}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := tools.New(s, tools.Options{})
	policy := func(src string) *access.Policy {
		t.Helper()
		pol, err := access.Parse("p.yaml", []byte("default: deny\nrules:\n  - {groups: [g], sources: ["+src+"], skills: [\"*\"]}\n"))
		if err != nil {
			t.Fatal(err)
		}
		return pol
	}
	who := &access.Principal{Subject: "x", Groups: []string{"g"}}
	polA, polB := policy("a"), policy("b")
	if polA.For(who).Key() != polB.For(who).Key() {
		t.Fatal("the two policies' views have different keys: the test needs equal ones")
	}
	check := func(stage string, pol *access.Policy, want []string) {
		t.Helper()
		view := forFilter(all, pol.For(who)) // anew, as per request
		list, err := view.ListSkills(ctx, tools.ListSkillsArgs{})
		if err != nil {
			t.Fatal(err)
		}
		found, err := view.SearchSkills(ctx, tools.SearchSkillsArgs{Query: "weekly report"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(want, list.Skills); diff != "" {
			t.Errorf("%s: list (-want +got)\n%s", stage, diff)
		}
		if diff := gocmp.Diff(want, found.Skills); diff != "" {
			t.Errorf("%s: search (-want +got)\n%s", stage, diff)
		}
	}
	check("policy a", polA, []string{"alpha-report"})
	check("policy b, the same key", polB, []string{"beta-report"})
	check("policy a again", polA, []string{"alpha-report"})

	a["alpha-weekly/SKILL.md"] = doc("alpha-weekly", "Plan the weekly report.")
	delete(a, "alpha-report/SKILL.md")
	delete(a, "alpha-report")
	if _, err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	check("after a refresh", polA, []string{"alpha-weekly"})
	check("policy b after a refresh", polB, []string{"beta-report"})
}

// forFilter returns tl over its store's view of f.
func forFilter(tl *tools.Tools, f access.Filter) *tools.Tools {
	return tl.With(tl.Store().View(f))
}
