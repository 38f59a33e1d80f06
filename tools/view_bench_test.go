package tools_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/internal/skillgen"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// BenchmarkFilteredCatalog measures list_skills and search_skills over
// skillgen's catalog of 100,000 skills in ten sources of 10,000, for a
// caller the access policy lets see one source (10% of the skills) and for
// an unrestricted caller, through the tool layer (tools.Tools.Run, as MCP
// runs a tool). Bodies are cut to 300 bytes, so the catalog fits a small
// machine; names and descriptions are skillgen's. Compare the callers'
// ns/op within one run: the target is at most 1.2× for the
// filtered caller ("tenth"); "tenth_cold" is its first call through a new
// view, which pays for what later calls find remembered.
func BenchmarkFilteredCatalog(b *testing.B) {
	const n, teams = 100_000, 10
	skills := skillgen.Catalog(n)
	queries := skillgen.Queries(skills)
	fss := make([]fstest.MapFS, teams)
	for i := range fss {
		fss[i] = fstest.MapFS{}
	}
	for i, sk := range skills {
		sk.Body = sk.Body[:min(len(sk.Body), 300)]
		fss[i%teams][sk.Name+"/SKILL.md"] = &fstest.MapFile{Data: skillgen.SkillMD(sk)}
	}
	var srcs []store.Source
	for i, fsys := range fss {
		srcs = append(srcs, store.Source{Label: fmt.Sprintf("team%d", i), FS: fsys})
	}
	// No source timeout: on a loaded machine a source might be left out of
	// the catalog, and the callers compared on a partial one.
	s, err := store.New(srcs, store.Options{SourceTimeout: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	const policy = "default: deny\nrules:\n  - {groups: [t3], sources: [team3], skills: [\"*\"]}\n"
	pol, err := access.Parse("policy.yaml", []byte(policy))
	if err != nil {
		b.Fatal(err)
	}
	who := &access.Principal{Subject: "x", Groups: []string{"t3"}}
	all := tools.New(s, tools.Options{})
	// Each call gets its caller's tools as the MCP server does per request.
	// "tenth_cold" is a caller whose view is new at every call (the first
	// request after a policy reload, or past the views' cache): a policy
	// is parsed anew for it.
	callers := []struct {
		name string
		t    func() *tools.Tools
	}{
		{"unfiltered", func() *tools.Tools { return all }},
		{"tenth", func() *tools.Tools { return forFilter(all, pol.For(who)) }},
		{"tenth_cold", func() *tools.Tools {
			p, err := access.Parse("policy.yaml", []byte(policy))
			if err != nil {
				b.Fatal(err)
			}
			return forFilter(all, p.For(who))
		}},
	}
	ctx := context.Background()
	for i, c := range callers { // the catalog, the search index and the views' memory, built once
		res, err := c.t().Run(ctx, tools.SearchSkills, []byte(`{"query":"terraform review"}`))
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %s", c.name, err, res.Display)
		}
		list, err := c.t().ListSkills(ctx, tools.ListSkillsArgs{})
		if want := []int{n, n / teams, n / teams}[i]; err != nil || len(list.Skills) != want {
			b.Fatalf("%s lists %d skills, want %d (%v)", c.name, len(list.Skills), want, err)
		}
	}
	for _, c := range callers {
		b.Run("list_skills/"+c.name, func(b *testing.B) {
			for b.Loop() {
				if res, _ := c.t().Run(ctx, tools.ListSkills, []byte(`{}`)); res.IsError {
					b.Fatal(res.Display)
				}
			}
		})
	}
	args := make([][]byte, len(queries))
	for i, q := range queries {
		args[i] = fmt.Appendf(nil, `{"query":%q}`, q.Text)
	}
	for _, c := range callers {
		b.Run("search_skills/"+c.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				if res, _ := c.t().Run(ctx, tools.SearchSkills, args[i%len(args)]); res.IsError {
					b.Fatal(res.Display)
				}
				i++
			}
		})
	}
}
