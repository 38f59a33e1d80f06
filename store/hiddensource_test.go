package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/store"
)

// withoutSource is a caller who may see nothing of the source labelled
// label, and everything else.
type withoutSource struct{ label string }

func (f withoutSource) All() bool                    { return false }
func (f withoutSource) AllowsSource(src string) bool { return src != f.label }
func (f withoutSource) Allows(src, _ string) bool    { return src != f.label }
func (f withoutSource) ViewKey() any                 { return f }

// randomSources returns n sources (labels s0, s1, …) of skills drawn from
// a small pool of names, so that copies shadow each other: some broken
// (no description), a group g (skills g:x, g:y) in some, a plain skill g
// in others (one namespace: whichever comes first hides the other), and
// descriptions of words from a small vocabulary, so searches rank by
// statistics that every copy changes.
func randomSources(r *rand.Rand, n int) []store.Source {
	vocab := []string{"deploy", "review", "ledger", "audit", "report", "build", "test", "cloud"}
	desc := func(name, label string) string {
		var w []string
		for range 1 + r.IntN(4) {
			w = append(w, vocab[r.IntN(len(vocab))])
		}
		return "The " + name + " skill of " + label + ", " + strings.Join(w, " ") + "."
	}
	put := func(fsys fstest.MapFS, dir, name, label string) {
		d := desc(name, label)
		if r.IntN(7) == 0 {
			d = "" // broken: left out with a problem
		}
		doc := "---\nname: " + name + "\ndescription: " + d + "\n---\n\n# " + name + "\n\n" + d + "\n"
		fsys[dir+"/SKILL.md"] = &fstest.MapFile{Data: []byte(doc)}
		fsys[dir+"/notes.md"] = &fstest.MapFile{Data: []byte(label + " " + name)}
		if r.IntN(2) == 0 {
			fsys[dir+"/extra-"+label+".md"] = &fstest.MapFile{Data: []byte(label)}
		}
	}
	var srcs []store.Source
	for i := range n {
		label := fmt.Sprintf("s%d", i)
		fsys := fstest.MapFS{}
		for _, name := range []string{"a", "b", "c", "d", "e"} {
			if r.IntN(2) == 0 {
				put(fsys, name, name, label)
			}
		}
		if r.IntN(3) == 0 {
			put(fsys, "g", "g", label)
		}
		if r.IntN(2) == 0 {
			fsys["plug/GROUP"] = &fstest.MapFile{Data: []byte("g")}
			for _, k := range []string{"x", "y"} {
				if r.IntN(3) != 0 {
					put(fsys, "plug/kit/"+k, k, label)
				}
			}
		}
		srcs = append(srcs, store.Source{Label: label, Location: "./" + label, FS: fsys, Grouper: markGroups{}})
	}
	return srcs
}

// reads is everything a caller can learn from v, for names, by every read
// of a View.
func reads(t *testing.T, v *store.View, names, queries []string) map[string]any {
	t.Helper()
	ctx := context.Background()
	out := map[string]any{}
	skill := func(sk *store.Skill) string {
		var sh []string
		for _, r := range v.Shadows(sk) {
			sh = append(sh, r.Label)
		}
		return fmt.Sprintf("%s from %s (%s) shadows %v: %q", sk.Name, sk.Source.Label, sk.Provenance.Source, sh, sk.Description)
	}
	list, err := v.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, sk := range list {
		listed = append(listed, skill(sk))
	}
	out["List"] = listed
	c, err := v.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var problems, shadowed, groups []string
	for _, p := range c.Problems {
		problems = append(problems, fmt.Sprintf("%s %s: %s", p.Source.Label, p.Skill, p.Message))
	}
	for _, sh := range c.Shadowed {
		shadowed = append(shadowed, fmt.Sprintf("%s in %s by %s in %s", sh.Name, sh.Hidden.Label, sh.By, sh.WinnerIn.Label))
	}
	for _, g := range c.ServedGroups() {
		groups = append(groups, fmt.Sprintf("%s in %s (%d)", g.Name, g.Source.Label, g.Skills))
	}
	out["Problems"], out["Shadowed"], out["Groups"], out["HasGroup g"] = problems, shadowed, groups, c.HasGroup("g")
	for _, q := range queries {
		found, err := v.Search(ctx, q, 4)
		if err != nil {
			t.Fatal(err)
		}
		var hits []string
		for _, sk := range found {
			hits = append(hits, sk.Name+" from "+sk.Source.Label)
		}
		out["Search "+q] = hits
	}
	for _, name := range names {
		sk, err := v.Skill(ctx, name)
		if err != nil {
			out["Skill "+name] = err.Error()
			_, derr := v.Document(ctx, name, nil)
			_, ferr := v.ReadFile(ctx, name, "notes.md", nil)
			_, lerr := v.Files(ctx, name, nil)
			out["Reads "+name] = fmt.Sprint(derr, ferr, lerr)
			continue
		}
		out["Skill "+name] = skill(sk)
		d, err := v.Document(ctx, name, nil)
		f, ferr := v.ReadFile(ctx, name, "notes.md", &store.ReadOptions{Skill: sk})
		files, lerr := v.Files(ctx, name, nil)
		var paths []string
		for _, fi := range files {
			dg, err := v.Digest(ctx, sk, fi)
			paths = append(paths, fmt.Sprint(fi.Path, " ", dg.SHA256, err))
		}
		out["Reads "+name] = fmt.Sprint(d.Text, err, f.Text, ferr, paths, lerr)
	}
	return out
}

// TestHiddenSourceCostsNothing: the view of a caller who may see nothing
// of a source X is, in every read, the unrestricted view of a store
// without X: X's copies neither serve, nor shadow, nor count in a search's
// statistics, nor take a name from a group.
func TestHiddenSourceCostsNothing(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e", "g", "g:x", "g:y", "x", "missing"}
	queries := []string{"deploy", "review ledger", "audit report", "build test cloud", "skill"}
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 38))
		srcs := randomSources(r, 2+r.IntN(3))
		full, err := store.New(srcs, store.Options{ReportsProblems: true})
		if err != nil {
			t.Fatal(err)
		}
		for x := range srcs {
			without, err := store.New(slices.Delete(slices.Clone(srcs), x, x+1), store.Options{ReportsProblems: true})
			if err != nil {
				t.Fatal(err)
			}
			want := reads(t, without.View(nil), names, queries)
			got := reads(t, full.View(withoutSource{srcs[x].Label}), names, queries)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("seed %d, %d sources, without %s: the view differs from a store without it (-want +got):\n%s", seed, len(srcs), srcs[x].Label, diff)
			}
		}
	}
}
