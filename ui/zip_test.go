package ui_test

import (
	"context"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skillstore/skillstore/internal/artifact"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
	"github.com/skillstore/skillstore/ui"
)

// countingFS is a tree whose files a test may replace, counting the
// opens of each file. It has only Open, so every read goes through it.
type countingFS struct {
	mu    sync.Mutex
	m     fstest.MapFS
	opens map[string]int
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opens[name]++
	return c.m.Open(name)
}

func (c *countingFS) set(name, data string, mod time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[name] = &fstest.MapFile{Data: []byte(data), ModTime: mod}
}

func (c *countingFS) opened(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opens[name]
}

func zipPages(t *testing.T, fsys fs.FS, archives *artifact.Cache) http.Handler {
	t.Helper()
	s, err := store.New([]store.Source{{Label: "project", FS: fsys}}, store.Options{Logger: slog.New(slog.DiscardHandler), RevalidateAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	v := tools.New(s, tools.Options{}).View()
	return ui.New(ui.Options{View: func(*http.Request) *store.View { return v }, Archives: archives})
}

// TestZipBuiltOncePerVersion: downloads of one version of a skill's zip
// read its files once, and get the same bytes and ETag (If-None-Match
// answered 304); a changed file is a new version, built again.
func TestZipBuiltOncePerVersion(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	fsys := &countingFS{opens: map[string]int{}, m: fstest.MapFS{
		"s/SKILL.md":   {Data: []byte("---\nname: s\ndescription: A skill to download.\n---\n# S\n"), ModTime: t0},
		"s/data.txt":   {Data: []byte("version one\n"), ModTime: t0},
		"s/assets/a.b": {Data: []byte("binary\x00"), ModTime: t0},
	}}
	h := zipPages(t, fsys, nil)
	first := get(t, h, "/skills/s/zip")
	if first.code != 200 || testutil.Unzip(t, []byte(first.body))["s/data.txt"] != "version one\n" || first.h.Get("ETag") == "" {
		t.Fatalf("first download: %d, ETag %q", first.code, first.h.Get("ETag"))
	}
	for range 3 {
		again := get(t, h, "/skills/s/zip")
		if again.code != 200 || again.body != first.body || again.h.Get("ETag") != first.h.Get("ETag") {
			t.Errorf("another download of the same version: %d, ETag %q; want the same bytes and ETag", again.code, again.h.Get("ETag"))
		}
	}
	if n := fsys.opened("s/data.txt"); n != 1 {
		t.Errorf("4 downloads of one version read data.txt %d times; want once", n)
	}
	if got := get(t, h, "/skills/s/zip", "If-None-Match", first.h.Get("ETag")); got.code != http.StatusNotModified {
		t.Errorf("If-None-Match the ETag: %d; want 304", got.code)
	}

	fsys.set("s/data.txt", "version two, longer\n", t0.Add(time.Hour))
	changed := get(t, h, "/skills/s/zip")
	if changed.code != 200 || testutil.Unzip(t, []byte(changed.body))["s/data.txt"] != "version two, longer\n" || changed.h.Get("ETag") == first.h.Get("ETag") {
		t.Errorf("after data.txt changed: %d, ETag %q; want the new version", changed.code, changed.h.Get("ETag"))
	}
	if n := fsys.opened("s/data.txt"); n != 2 {
		t.Errorf("data.txt read %d times in all; want once per version, 2", n)
	}
}

// TestZipBusy: with every build slot taken and no room to wait, a
// download is refused with 503 and Retry-After, and served once a slot
// is free.
func TestZipBusy(t *testing.T) {
	archives := artifact.New(artifact.Options{Builds: 1, Queued: -1})
	h := zipPages(t, fstest.MapFS{"s/SKILL.md": {Data: []byte("---\nname: s\ndescription: A skill to download.\n---\n# S\n")}}, archives)
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		a, err := archives.Get(context.Background(), artifact.Key{Name: "another"}, true, func(ctx context.Context, w io.Writer) (string, error) {
			close(started)
			<-release
			return "zip", nil
		})
		if err == nil {
			a.Release()
		}
	}()
	<-started
	got := get(t, h, "/skills/s/zip")
	if got.code != http.StatusServiceUnavailable || got.h.Get("Retry-After") == "" {
		t.Errorf("a download while the one build slot is taken: %d, Retry-After %q; want 503 and a Retry-After", got.code, got.h.Get("Retry-After"))
	}
	close(release)
	<-done
	if got := get(t, h, "/skills/s/zip"); got.code != 200 {
		t.Errorf("once the slot is free: %d", got.code)
	}
}
