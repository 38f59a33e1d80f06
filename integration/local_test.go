package integration

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	if f, err := s.View(nil).ReadFile(ctx, "calculator", "alias.py", &store.ReadOptions{Text: true}); err != nil || f.Text != fixture.BasicPy || f.Path != "alias.py" {
		t.Errorf("inner link: %+v %v", f, err)
	}
	for _, p := range []string{"etc", "sibling.md", "up"} {
		_, err := s.View(nil).ReadFile(ctx, "calculator", p, &store.ReadOptions{Text: true})
		if !errors.Is(err, store.ErrPathEscapes) {
			t.Errorf("%s: err = %v; want traversal", p, err)
			continue
		}
		if msg := contract(err); msg != "Path traversal detected: cannot access files outside skill folder" || strings.Contains(msg, dir) {
			t.Errorf("%s: message %q", p, msg)
		}
	}
	// A linked skill folder is served under its own name.
	if d, err := s.View(nil).Document(ctx, "linked", nil); err != nil || d.Text != fixture.CalculatorDoc || d.Skill.Name != "linked" {
		t.Errorf("linked skill: %q %v", d.Text, err)
	}
}
