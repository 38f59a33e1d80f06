package blobfs_test

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/azureblob"
	"github.com/skillstore/skillstore/backends/backendtest"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/gcsblob"
	"github.com/skillstore/skillstore/backends/s3blob"
	"github.com/skillstore/skillstore/store"
)

// bucketHarness stores the files in a bucket and serves it through
// BucketFS; Update writes and deletes objects.
func bucketHarness(open func(t *testing.T) *blob.Bucket) backendtest.Harness {
	return backendtest.Harness{
		Make: func(t *testing.T, files map[string][]byte) backendtest.Backend {
			b := open(t)
			writeObjects(t, b, nil, files)
			bfs := blobfs.NewBucketFS(b, blobfs.BucketOptions{Location: "test"})
			t.Cleanup(func() { bfs.Close() })
			return backendtest.Backend{FS: bfs, Update: func(next map[string][]byte) {
				writeObjects(t, b, files, next)
				files = next
			}}
		},
		Upgrades: backendtest.Upgrades{Refresher: true, ContextFS: true, RequestCounter: true},
	}
}

// writeObjects changes bucket b from holding files to holding next.
func writeObjects(t *testing.T, b *blob.Bucket, files, next map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	for k := range files {
		if _, kept := next[k]; !kept {
			if err := b.Delete(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
	}
	for k, v := range next {
		if err := b.WriteAll(ctx, k, v, nil); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMemblob(t *testing.T) {
	backendtest.Run(t, bucketHarness(func(*testing.T) *blob.Bucket { return memblob.OpenBucket(nil) }))
}

func TestFileblob(t *testing.T) {
	backendtest.Run(t, bucketHarness(func(t *testing.T) *blob.Bucket {
		b, err := fileblob.OpenBucket(t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}))
}

// unpublished are the upgrades of a Source over a bucket that was never
// published: the source claims snapshots, refreshes and counts requests,
// and its "snapshot" is the BucketFS, whose reads heed contexts.
var unpublished = backendtest.Upgrades{SnapshotFS: true, Refresher: true, RequestCounter: true, ContextFS: true}

// TestSource runs the suite against a Source over a bucket that was never
// published, as backends.Open serves mem://. Its Backend has no Update: a
// bucket that was never published has no snapshots (Source.Snapshot is
// the live bucket, so a snapshot taken before a change serves the
// change), and the suite's SnapshotFS check would fail it. The contracts
// that need a change are checked on BucketFS (TestMemblob), and on
// published buckets in package snapshot (TestConformanceBucket).
func TestSource(t *testing.T) {
	backendtest.Run(t, backendtest.Harness{
		Make: func(t *testing.T, files map[string][]byte) backendtest.Backend {
			b := memblob.OpenBucket(nil)
			writeObjects(t, b, nil, files)
			src := blobfs.New(blobfs.NewBucketFS(b, blobfs.BucketOptions{Location: "test", Logger: slog.New(slog.DiscardHandler)}))
			t.Cleanup(func() { src.Close() })
			return backendtest.Backend{FS: src}
		},
		Upgrades: unpublished,
	})
}

// TestBucketRequests checks the cost model: a catalog listing is one LIST
// per 1,000 keys and a read is one GET; stats and listings cost nothing more.
func TestBucketRequests(t *testing.T) {
	b := memblob.OpenBucket(nil)
	ctx := context.Background()
	const skills = 1200
	for i := range skills {
		name := fmt.Sprintf("skill-%04d", i)
		if err := b.WriteAll(ctx, name+"/SKILL.md", []byte("doc"), nil); err != nil {
			t.Fatal(err)
		}
	}
	bfs := blobfs.NewBucketFS(b, blobfs.BucketOptions{})
	defer bfs.Close()
	ents, err := fs.ReadDir(bfs, ".")
	if err != nil || len(ents) != skills {
		t.Fatalf("ReadDir: %d entries, %v", len(ents), err)
	}
	for _, e := range ents[:50] {
		if _, err := fs.ReadDir(bfs, e.Name()); err != nil {
			t.Fatal(err)
		}
		if _, err := fs.Stat(bfs, e.Name()+"/SKILL.md"); err != nil {
			t.Fatal(err)
		}
	}
	if r := bfs.Requests(); r.List != 2 || r.Get != 0 {
		t.Errorf("after listing 1,200 keys: %+v; want 2 LIST pages and no GET", r)
	}
	if _, err := fs.ReadFile(bfs, ents[0].Name()+"/SKILL.md"); err != nil {
		t.Fatal(err)
	}
	if r := bfs.Requests(); r.List != 2 || r.Get != 1 {
		t.Errorf("after one read: %+v; want one GET", r)
	}
	// A key written after the listing is still readable.
	if err := b.WriteAll(ctx, "late/SKILL.md", []byte("late"), nil); err != nil {
		t.Fatal(err)
	}
	if got, err := fs.ReadFile(bfs, "late/SKILL.md"); err != nil || string(got) != "late" {
		t.Errorf("late key: %q %v", got, err)
	}
	if err := bfs.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Stat(bfs, "late"); err != nil {
		t.Errorf("after Refresh: %v", err)
	}
	if r := bfs.Requests(); r.List != 4 {
		t.Errorf("a refresh of 1,201 keys: %d LIST pages in all; want 2 more", r.List)
	}
}

// TestBucketInvalidKeys checks that keys which are not clean paths are never served.
func TestBucketInvalidKeys(t *testing.T) {
	b := memblob.OpenBucket(nil)
	ctx := context.Background()
	for _, k := range []string{"a/SKILL.md", "a//double.md", "a/./dot.md", "a/../up.md", "folder-marker/"} {
		b.WriteAll(ctx, k, []byte("x"), nil)
	}
	bfs := blobfs.NewBucketFS(b, blobfs.BucketOptions{})
	ents, err := fs.ReadDir(bfs, "a")
	if err != nil || len(ents) != 1 || ents[0].Name() != "SKILL.md" {
		t.Errorf("ReadDir(a) = %v, %v", ents, err)
	}
	if fi, err := fs.Stat(bfs, "folder-marker"); err != nil || !fi.IsDir() {
		t.Errorf("folder marker: %v %v", fi, err)
	}
}

// TestOpenErrorsCarryNoCredential opens URLs that fail and checks that no
// secret from the URL reaches the error text. gocloud names the first
// parameter it does not know in its map's order, so a URL with two gives
// one of two messages.
func TestOpenErrorsCarryNoCredential(t *testing.T) {
	ctx := context.Background()
	for src, want := range map[string][]string{
		"s3://AKIAEXAMPLE:topsecret@bucket?region=us-east-1&bogus_param=1": {`open s3://REDACTED@bucket?region=us-east-1&bogus_param=1: ` +
			`open bucket s3://REDACTED@bucket?bogus_param=1&region=us-east-1: unknown query parameter "bogus_param"`},
		"s3://bucket?region=us-east-1&secret_access_key=topsecret&nonsense=1": {
			`open s3://bucket?nonsense=1&region=us-east-1&secret_access_key=REDACTED: ` +
				`open bucket s3://bucket?nonsense=1&region=us-east-1&secret_access_key=REDACTED: unknown query parameter "nonsense"`,
			`open s3://bucket?nonsense=1&region=us-east-1&secret_access_key=REDACTED: ` +
				`open bucket s3://bucket?nonsense=1&region=us-east-1&secret_access_key=REDACTED: unknown query parameter "secret_access_key"`},
		"azblob://container?sig=topsecret&unknown=1": {
			`open azblob://container?sig=REDACTED&unknown=1: unknown query parameter "sig"`,
			`open azblob://container?sig=REDACTED&unknown=1: unknown query parameter "unknown"`},
		"mem://?token=topsecret&what=1": {
			`open mem:?token=REDACTED&what=1: open bucket mem:?token=REDACTED&what=1: invalid query parameter "token"`,
			`open mem:?token=REDACTED&what=1: open bucket mem:?token=REDACTED&what=1: invalid query parameter "what"`},
		"s3://bucket?region=us-east-1&endpoint=http://AKIAEXAMPLE:topsecret@127.0.0.1:1&bogus_param=1": {`open s3://bucket?bogus_param=1&endpoint=http%3A%2F%2FREDACTED%40127.0.0.1%3A1&region=us-east-1: ` +
			`open bucket s3://bucket?bogus_param=1&endpoint=http%3A%2F%2FREDACTED%3AREDACTED%40127.0.0.1%3A1&region=us-east-1: unknown query parameter "bogus_param"`},
	} {
		_, err := backends.Open(ctx, src)
		if err == nil {
			t.Errorf("Open(%q) succeeded", src)
			continue
		}
		if strings.Contains(err.Error(), "topsecret") || strings.Contains(err.Error(), "AKIAEXAMPLE") {
			t.Errorf("Open(%q) error leaks a credential: %v", src, err)
		}
		if !slices.Contains(want, err.Error()) {
			t.Errorf("Open(%q):\n got %q\nwant one of %q", src, err, want)
		}
	}
}

// TestOpenMem: importing blobfs registers mem://, an empty in-memory bucket.
func TestOpenMem(t *testing.T) {
	src, err := backends.Open(context.Background(), "mem://")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := fs.ReadDir(src.FS, "."); err != nil || src.Kind != "mem" || src.Label != "org" {
		t.Errorf("mem://: %+v %v", src, err)
	}
}

// TestDriversRegister: importing a driver package adds its scheme to
// backends.Open.
func TestDriversRegister(t *testing.T) {
	for _, scheme := range []string{s3blob.Scheme, gcsblob.Scheme, azureblob.Scheme, "mem"} {
		if !slices.Contains(backends.Schemes(), scheme) {
			t.Errorf("schemes %v lack %s", backends.Schemes(), scheme)
		}
	}
}

// TestRevalidationCostsNoGet: checking a cached file's version against a
// bucket costs no request: the listing answers it. It runs on synctest's
// fake clock.
func TestRevalidationCostsNoGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		b := memblob.OpenBucket(nil)
		for key, data := range map[string]string{"pdf/SKILL.md": "---\nname: pdf\ndescription: PDF.\n---\n# PDF\n", "pdf/forms.md": "forms"} {
			if err := b.WriteAll(ctx, key, []byte(data), nil); err != nil {
				t.Fatal(err)
			}
		}
		bfs := blobfs.NewBucketFS(b, blobfs.BucketOptions{})
		defer bfs.Close()
		s, err := store.New([]store.Source{{FS: bfs}}, store.Options{RevalidateAfter: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.View(nil).ReadFile(ctx, "pdf", "forms.md", &store.ReadOptions{Text: true}); err != nil {
			t.Fatal(err)
		}
		before := bfs.Requests()
		for range 3 {
			time.Sleep(3 * time.Millisecond) // fake time: past RevalidateAfter
			if f, err := s.View(nil).ReadFile(ctx, "pdf", "forms.md", &store.ReadOptions{Text: true}); err != nil || f.Text != "forms" {
				t.Fatal(f.Text, err)
			}
		}
		if after := bfs.Requests(); after != before {
			t.Errorf("revalidating a cached file cost requests: %+v, then %+v", before, after)
		}
		if st := s.Stats(); st.Revalidations < 3 {
			t.Errorf("revalidations %d; want 3", st.Revalidations)
		}
	})
}
