package store_test

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/skillgen"
	"github.com/skillstore/skillstore/internal/storetest"
	"github.com/skillstore/skillstore/store"
)

// TestSearchInIsSearchOfSubset: on skillgen's catalog and queries, a
// search within a Subset returns what a store holding only the subset's
// skills returns (its ranking, then, owes nothing to the other skills'
// text), less the skills whose name the whole store serves from a source
// the subset does not hold: a subset that holds a shadowed copy but not
// the copy served finds neither. It still does after a refresh that
// changes, adds and removes skills (enough of them for the index to
// renumber its documents), with the same Subsets.
func TestSearchInIsSearchOfSubset(t *testing.T) {
	skills := skillgen.Catalog(900)
	queries := skillgen.Queries(skills)
	fss := []fstest.MapFS{{}, {}, {}} // project, personal, org (storetest.New's labels)
	labels := []string{"project", "personal", "org"}
	put := func(fsys fstest.MapFS, sk skillgen.Skill) {
		fsys[sk.Name+"/SKILL.md"] = &fstest.MapFile{Data: skillgen.SkillMD(sk)}
	}
	for i, sk := range skills {
		put(fss[i%3], sk)
		if i%3 == 0 && i%7 == 0 { // a shadowed copy, of the same text
			put(fss[1], sk)
		}
	}
	s := storetest.New(t, store.Options{}, fss[0], fss[1], fss[2])
	ctx := context.Background()
	subsets := []struct {
		name string
		keep func(source, name string) bool
	}{
		{"everything", func(string, string) bool { return true }},
		{"nothing", func(string, string) bool { return false }},
		{"personal (shadowed copies too)", func(src, _ string) bool { return src == "personal" }},
		{"org and project's *-re*", func(src, name string) bool {
			ok, _ := path.Match("*-re*", name)
			return src == "org" || src == "project" && ok
		}},
	}
	views := make([]*store.View, len(subsets))
	for i, ss := range subsets {
		views[i] = s.View(keepFilter{ss.name, ss.keep})
	}
	// only is a store of the same sources holding only keep's skills.
	only := func(keep func(source, name string) bool) *store.Store {
		var part []fs.FS
		for i, fsys := range fss {
			p := fstest.MapFS{}
			for name, f := range fsys {
				if dir, _, _ := strings.Cut(name, "/"); keep(labels[i], dir) {
					p[name] = f
				}
			}
			part = append(part, p)
		}
		return storetest.New(t, store.Options{}, part...)
	}
	names := func(list []*store.Skill) []string {
		out := []string{}
		for _, sk := range list {
			out = append(out, sk.Source.Label+":"+sk.Name)
		}
		return out
	}
	check := func(stage string) {
		t.Helper()
		differ := 0 // searches whose answer is not the whole ranking filtered
		for i, ss := range subsets {
			alone := only(ss.keep)
			for _, q := range queries {
				whole, err := s.View(nil).Search(ctx, q.Text, 1<<20)
				if err != nil {
					t.Fatal(err)
				}
				filtered := []string{}
				for _, sk := range whole {
					if ss.keep(sk.Source.Label, sk.Name) {
						filtered = append(filtered, sk.Source.Label+":"+sk.Name)
					}
				}
				ranked, err := alone.View(nil).Search(ctx, q.Text, 1<<20)
				if err != nil {
					t.Fatal(err)
				}
				in := []string{}
				for _, sk := range ranked {
					if served, err := s.View(nil).Skill(ctx, sk.Name); err == nil && served.Source.Label == sk.Source.Label {
						in = append(in, sk.Source.Label+":"+sk.Name)
					}
				}
				for _, limit := range []int{1, 10, 50} {
					got, err := views[i].Search(ctx, q.Text, limit)
					if err != nil {
						t.Fatal(err)
					}
					want := in[:min(limit, len(in))]
					if diff := cmp.Diff(want, names(got)); diff != "" {
						t.Errorf("%s: %s, %q limit %d (-store of the subset +subset)\n%s", stage, ss.name, q.Text, limit, diff)
					}
					if !slices.Equal(want, filtered[:min(limit, len(filtered))]) {
						differ++
					}
				}
			}
		}
		if differ == 0 {
			t.Errorf("%s: every search within a subset is the whole ranking filtered: the test cannot tell the statistics apart", stage)
		}
	}
	check("first catalog")

	sweeps := s.Stats().Search.Sweeps
	for i, sk := range skills {
		switch {
		case i%3 == 0 && i%5 == 0: // project: a new text, re-indexed under a new number
			sk.Description += " Also covers quarterly invoices."
			put(fss[0], sk)
		case i%3 == 2 && i%10 != 5: // org: most removed
			delete(fss[2], sk.Name+"/SKILL.md")
			delete(fss[2], sk.Name)
		}
	}
	for i := range 30 {
		put(fss[1], skillgen.Skill{Name: fmt.Sprintf("late-review-%d", i), Description: "Review quarterly invoices for a release.", Body: "# Steps\n\nReview them."})
	}
	if _, err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	check("after a refresh")
	if s.Stats().Search.Sweeps == sweeps {
		t.Error("the refresh left the index's numbering alone: renumbering is not tested")
	}
}

// keepFilter is a store.Filter that keeps what keep accepts. It never
// says it allows everything, so even "everything" searches through a
// view's subset of the index.
type keepFilter struct {
	id   string
	keep func(source, name string) bool
}

func (f keepFilter) All() bool                       { return false }
func (f keepFilter) Allows(source, name string) bool { return f.keep(source, name) }
func (f keepFilter) AllowsSource(string) bool        { return true }
func (f keepFilter) ViewKey() any                    { return f.id }
