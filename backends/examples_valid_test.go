package backends_test

import (
	"context"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/store"
)

// TestExamplesAreValid checks that every built-in example is served and
// meets the specification, and that their supporting files read.
func TestExamplesAreValid(t *testing.T) {
	s, err := store.New([]store.Source{{Label: "builtin", Location: "builtin://", FS: backends.Examples()}}, store.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := s.View(nil).Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Problems) != 0 {
		t.Errorf("problems %+v", c.Problems)
	}
	// Every folder of the tree is served, and lists exactly its files.
	tree := map[string][]string{}
	err = fs.WalkDir(backends.Examples(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			skill, rest, _ := strings.Cut(p, "/")
			tree[skill] = append(tree[skill], rest)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sk := range c.Skills {
		names = append(names, sk.Name)
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(tree)), names); diff != "" {
		t.Errorf("skills (-tree +served):\n%s", diff)
	}
	for _, sk := range c.Skills {
		// An example shows supporting files beside its SKILL.md.
		if len(tree[sk.Name]) < 3 {
			t.Errorf("%s: only %v", sk.Name, tree[sk.Name])
		}
		files, err := s.View(nil).Files(ctx, sk.Name, nil)
		if err != nil {
			t.Fatalf("%s: %v", sk.Name, err)
		}
		var paths []string
		for _, f := range files {
			paths = append(paths, f.Path)
			want, err := fs.ReadFile(backends.Examples(), sk.Name+"/"+f.Path)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := s.View(nil).ReadFile(ctx, sk.Name, f.Path, nil); err != nil || got.Content() != string(want) {
				t.Errorf("%s/%s: %d bytes, %v; want the file's %d", sk.Name, f.Path, len(got.Content()), err, len(want))
			}
		}
		if diff := cmp.Diff(tree[sk.Name], paths); diff != "" {
			t.Errorf("%s files (-tree +listed):\n%s", sk.Name, diff)
		}
	}
}
