package store_test

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

// TestLocalSandbox reads through the local backend: symbolic links inside a
// skill work; links that leave the skill folder, or the root, fail with the
// traversal error, and no message names a host path.
func TestLocalSandbox(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "passwd"), []byte("root:x:0:0"), 0o644)
	dir := testutil.TempTree(t, fixture.Skills())
	for name, target := range map[string]string{
		"calculator/alias.py":   "examples/basic.py",
		"calculator/etc":        filepath.Join(outside, "passwd"),
		"calculator/sibling.md": "../weather/secret.md",
		"calculator/up":         "../../" + filepath.Base(outside) + "/passwd",
		"linked":                "calculator",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	l, err := backends.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s, err := store.New([]store.Source{{Label: "project", Location: "./skills", FS: l}}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if f, err := s.ReadText(ctx, "calculator", "alias.py"); err != nil || f.Text != fixture.BasicPy || f.Path != "alias.py" {
		t.Errorf("inner link: %+v %v", f, err)
	}
	for _, p := range []string{"etc", "sibling.md", "up"} {
		_, err := s.ReadText(ctx, "calculator", p)
		if !errors.Is(err, store.ErrPathEscapes) {
			t.Errorf("%s: err = %v; want traversal", p, err)
			continue
		}
		if msg := contract(err); msg != "Path traversal detected: cannot access files outside skill folder" || strings.Contains(msg, dir) {
			t.Errorf("%s: message %q", p, msg)
		}
	}
	// A linked skill folder is served under its own name.
	if d, err := s.Document(ctx, "linked"); err != nil || d.Text != fixture.CalculatorDoc || d.Skill.Name != "linked" {
		t.Errorf("linked skill: %q %v", d.Text, err)
	}
}

// TestExamplesAreValid checks that every built-in example is served and
// meets the specification, and that their supporting files read.
func TestExamplesAreValid(t *testing.T) {
	s, err := store.New([]store.Source{{Label: "builtin", Location: "builtin://", FS: backends.Examples()}}, store.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := s.Catalog(ctx)
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
		files, err := s.Files(ctx, sk.Name)
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
			if got, err := s.ReadFile(ctx, sk.Name, f.Path); err != nil || got.Content() != string(want) {
				t.Errorf("%s/%s: %d bytes, %v; want the file's %d", sk.Name, f.Path, len(got.Content()), err, len(want))
			}
		}
		if diff := cmp.Diff(tree[sk.Name], paths); diff != "" {
			t.Errorf("%s files (-tree +listed):\n%s", sk.Name, diff)
		}
	}
}
