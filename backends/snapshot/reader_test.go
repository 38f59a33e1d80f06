package snapshot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gocloud.dev/blob/fileblob"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/testutil"
)

// Sparse sizes of the oversized objects (os.Truncate: no disk is used).
const (
	hugePointer  = 16 << 30
	hugeManifest = 2 << 30
	hugeBlob     = 16 << 30
)

// writeFolder publishes files with Publish into a folder on disk (a
// file:/// bucket) and returns the folder and the snapshot's ID.
func writeFolder(t *testing.T, files map[string][]byte) (dir, id string) {
	t.Helper()
	dir = t.TempDir()
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	return dir, publish(t, blobfs.NewPublishBucket(b), files)
}

// countFS counts the bytes read from each file of an fs.FS.
type countFS struct {
	fsys fs.FS
	mu   sync.Mutex
	read map[string]int64
}

func (c *countFS) Open(name string) (fs.File, error) {
	f, err := c.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	return &countFile{File: f, c: c, name: name}, nil
}

func (c *countFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(c.fsys, name) }

func (c *countFS) bytesRead(name string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.read[name]
}

type countFile struct {
	fs.File
	c    *countFS
	name string
}

func (f *countFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.c.mu.Lock()
	f.c.read[f.name] += int64(n)
	f.c.mu.Unlock()
	return n, err
}

// readers are the two ways a published folder on disk is read: as a
// local folder (backends.OpenLocal) and as a file:/// bucket (blobfs over
// gocloud's fileblob). Each returns the count of bytes read from each
// file, when it can tell.
var readers = []struct {
	name string
	open func(t *testing.T, dir string) (snapshot.Objects, func(string) int64)
}{
	{"local", func(t *testing.T, dir string) (snapshot.Objects, func(string) int64) {
		l, err := backends.OpenLocal(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		c := &countFS{fsys: l, read: map[string]int64{}}
		return snapshot.NewFSObjects(c), c.bytesRead
	}},
	{"bucket", func(t *testing.T, dir string) (snapshot.Objects, func(string) int64) {
		b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
		if err != nil {
			t.Fatal(err)
		}
		bfs := blobfs.NewBucketFS(b, blobfs.BucketOptions{Logger: quiet()})
		t.Cleanup(func() { bfs.Close() })
		return bfs, nil
	}},
}

// smallAlloc bounds what refusing an oversized object may allocate.
const smallAlloc = 16 << 20

// wantSmallCost checks that refusing the oversized object what (size
// bytes, stored under key) allocated at most smallAlloc and, where the
// reader counts them (bytesRead not nil), read at most 1 MiB of it.
func wantSmallCost(t *testing.T, what string, size, allocated uint64, bytesRead func(string) int64, key string) {
	t.Helper()
	if allocated > smallAlloc {
		t.Errorf("refusing a %d-byte %s allocated %d bytes", size, what, allocated)
	}
	if bytesRead != nil {
		if got := bytesRead(key); got > 1<<20 {
			t.Errorf("%d bytes of the oversized %s were read", got, what)
		}
	}
}

// TestOversizedPointer: a sparse 16 GiB pointer is refused by its size,
// unread, at Open (which serves the newest whole manifest instead) and at
// each Refresh (which keeps the current snapshot), both on a local folder
// and through a bucket.
func TestOversizedPointer(t *testing.T) {
	for _, r := range readers {
		t.Run(r.name, func(t *testing.T) {
			ctx := context.Background()
			dir, id := writeFolder(t, map[string][]byte{"alpha/SKILL.md": []byte("---\nname: alpha\ndescription: a\n---\nbody\n")})
			objs, bytesRead := r.open(t, dir)
			f, err := snapshot.Open(ctx, objs, snapshot.Options{Logger: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Refresh(ctx); err != nil { // one check: Open learnt the pointer's tag
				t.Fatal(err)
			}
			if err := os.Truncate(filepath.Join(dir, filepath.FromSlash(snapshot.PointerKey)), hugePointer); err != nil {
				t.Fatal(err)
			}
			var errs [2]error
			var reopened *snapshot.FS
			var openErr error
			n := testutil.Allocated(func() {
				errs[0] = f.Refresh(ctx)
				errs[1] = f.Refresh(ctx)
				reopened, openErr = snapshot.Open(ctx, objs, snapshot.Options{Logger: quiet()})
			})
			want := fmt.Sprintf("the published snapshot is broken: the pointer %s: the object is over its size limit: it is %d bytes; the limit is 65536; still serving snapshot %s",
				snapshot.PointerKey, hugePointer, id)
			for i, err := range errs {
				if !errors.Is(err, snapshot.ErrBroken) || err.Error() != want {
					t.Errorf("refresh %d: err = %v, want the pointer refused as over the limit", i+1, err)
				}
			}
			if f.Current().ID != id {
				t.Errorf("serving %s after a refused pointer, want %s", f.Current().ID, id)
			}
			if openErr != nil || reopened.Current().ID != id {
				t.Errorf("open with a broken pointer: %v; want the newest whole snapshot %s served", openErr, id)
			}
			t.Logf("refused in %d bytes allocated: %v", n, errs[0])
			wantSmallCost(t, "pointer", hugePointer, n, bytesRead, snapshot.PointerKey)
		})
	}
}

// TestOversizedManifest: a sparse 2 GiB manifest is refused by its size,
// unread, with an error that says so.
func TestOversizedManifest(t *testing.T) {
	for _, r := range readers {
		t.Run(r.name, func(t *testing.T) {
			ctx := context.Background()
			dir, id := writeFolder(t, map[string][]byte{"alpha/SKILL.md": []byte("---\nname: alpha\ndescription: a\n---\nbody\n")})
			key := snapshot.ManifestKey(id)
			if err := os.Truncate(filepath.Join(dir, filepath.FromSlash(key)), hugeManifest); err != nil {
				t.Fatal(err)
			}
			objs, bytesRead := r.open(t, dir)
			var err error
			n := testutil.Allocated(func() {
				var f *snapshot.FS
				if f, err = snapshot.Open(ctx, objs, snapshot.Options{Logger: quiet()}); err == nil {
					_, err = f.Snapshot(ctx) // the manifest is read at the first use
				}
			})
			want := fmt.Sprintf("the published snapshot is broken: the manifest of snapshot %s: the object is over its size limit: it is %d bytes; the limit is %d",
				id, hugeManifest, 256<<20)
			if !errors.Is(err, snapshot.ErrBroken) || err.Error() != want {
				t.Errorf("err = %v, want the manifest refused as over the limit", err)
			}
			t.Logf("refused in %d bytes allocated: %v", n, err)
			wantSmallCost(t, "manifest", hugeManifest, n, bytesRead, key)
		})
	}
}

// TestOversizedBlob: a file whose blob is a sparse 16 GiB file, where the
// manifest gives a few bytes, is refused without reading it all.
func TestOversizedBlob(t *testing.T) {
	for _, r := range readers {
		t.Run(r.name, func(t *testing.T) {
			ctx := context.Background()
			doc := []byte("---\nname: alpha\ndescription: a\n---\nbody\n")
			dir, _ := writeFolder(t, map[string][]byte{"alpha/SKILL.md": doc})
			key := snapshot.BlobKey(snapshot.Sum(doc))
			if err := os.Truncate(filepath.Join(dir, filepath.FromSlash(key)), hugeBlob); err != nil {
				t.Fatal(err)
			}
			objs, bytesRead := r.open(t, dir)
			f, err := snapshot.Open(ctx, objs, snapshot.Options{Logger: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			n := testutil.Allocated(func() { _, err = fs.ReadFile(f, "alpha/SKILL.md") })
			if !errors.Is(err, snapshot.ErrDigestMismatch) {
				t.Errorf("err = %v, want %v", err, snapshot.ErrDigestMismatch)
			}
			t.Logf("refused in %d bytes allocated: %v", n, err)
			wantSmallCost(t, "blob", hugeBlob, n, bytesRead, key)
		})
	}
}

// TestPointerBackInTime: a pointer moved to a snapshot published before
// the one served is followed (snapshots are not signed) but logged at
// WARN, naming the snapshot it replaced, without the folder's path; a
// pointer moved forward is logged at INFO.
func TestPointerBackInTime(t *testing.T) {
	ctx := context.Background()
	pointer := func(dir string) []byte {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(snapshot.PointerKey)))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	dir, older := writeFolder(t, map[string][]byte{"alpha/SKILL.md": []byte("---\nname: alpha\ndescription: old\n---\n")})
	olderPointer := pointer(dir)
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	newer := publish(t, blobfs.NewPublishBucket(b), map[string][]byte{"alpha/SKILL.md": []byte("---\nname: alpha\ndescription: new\n---\n")})
	b.Close()
	newerPointer := pointer(dir)
	l, err := backends.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var logs bytes.Buffer
	f, err := snapshot.Open(ctx, snapshot.NewFSObjects(l), snapshot.Options{Location: dir, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Refresh(ctx); err != nil { // one check: Open learnt the pointer's tag
		t.Fatal(err)
	}
	pointerFile := filepath.Join(dir, filepath.FromSlash(snapshot.PointerKey))
	move := func(to []byte, want string) map[string]any {
		t.Helper()
		logs.Reset()
		if err := os.WriteFile(pointerFile, to, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := f.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if f.Current().ID != want {
			t.Fatalf("serving %s, want %s", f.Current().ID, want)
		}
		var rec map[string]any
		if err := json.Unmarshal(logs.Bytes(), &rec); err != nil {
			t.Fatalf("log %q: %v", logs.String(), err)
		}
		return rec
	}
	back := move(olderPointer, older)
	if back["level"] != "WARN" || back["snapshot"] != older || back["replaced"] != newer || back["msg"] != "the published pointer went back in time: serving a snapshot published before the one it replaced; if nobody rolled it back on purpose, publish again" {
		t.Errorf("a pointer moved back in time logged %s", logs.String())
	}
	if strings.Contains(logs.String(), dir) {
		t.Errorf("the log line names the folder's path: %s", logs.String())
	}
	if fwd := move(newerPointer, newer); fwd["level"] != "INFO" || fwd["snapshot"] != newer || fwd["previous"] != older {
		t.Errorf("a pointer moved forward logged %s", logs.String())
	}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
