package snapshot_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/store"
)

// TestOpenFolder: a local folder `skillstore publish` wrote is served
// from its snapshot, keeping the source's label, location and kind, and
// closing it closes the folder; any other source is left as it is; a
// folder whose pointer cannot be read fails, naming the folder, and is
// closed.
func TestOpenFolder(t *testing.T) {
	ctx := context.Background()
	dir, _ := writeFolder(t, map[string][]byte{"alpha/SKILL.md": []byte("---\nname: alpha\ndescription: a\n---\nbody\n")})
	src, err := backends.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	local := src.FS.(*backends.LocalFS)
	pub, err := snapshot.OpenFolder(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := pub.FS.(*snapshot.FS); !ok || pub.Label != "project" || pub.Location != dir || pub.Kind != "local" {
		t.Errorf("served %T, label %q, location %q, kind %q; want the snapshot, as project at %s, local", pub.FS, pub.Label, pub.Location, pub.Kind, dir)
	}
	s, err := store.New([]store.Source{pub}, store.Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := s.View(nil).Document(ctx, "alpha", nil); err != nil || !strings.HasSuffix(d.Text, "body\n") {
		t.Errorf("alpha: %q, %v", d.Text, err)
	}
	if err := pub.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := local.Stat("."); err == nil {
		t.Error("the folder is open after the source was closed")
	}

	plain := t.TempDir()
	for _, loc := range []string{plain, "builtin://"} {
		src, err := backends.Open(ctx, loc)
		if err != nil {
			t.Fatal(err)
		}
		got, err := snapshot.OpenFolder(ctx, src)
		if err != nil || got.FS != src.FS || got != src {
			t.Errorf("%s: %+v, %v; want the source as it was", loc, got, err)
		}
		src.Close()
	}

	broken := t.TempDir()
	if err := os.MkdirAll(filepath.Join(broken, filepath.Dir(snapshot.PointerKey)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, snapshot.PointerKey), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err = backends.Open(ctx, broken)
	if err != nil {
		t.Fatal(err)
	}
	local = src.FS.(*backends.LocalFS)
	if _, err := snapshot.OpenFolder(ctx, src); err == nil || !strings.HasPrefix(err.Error(), "skills folder "+broken+": its published snapshot cannot be read: ") {
		t.Errorf("broken pointer: %v", err)
	}
	if _, err := local.Stat("."); err == nil {
		t.Error("the folder is open after it failed")
	}
}
