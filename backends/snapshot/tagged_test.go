package snapshot_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
)

// countObjects counts what a reader asks of its Objects: object reads and
// tag checks. It passes ReadObjectTag on to inner when inner tells tags,
// and reads untagged otherwise, as the reader does itself. afterCheck, if
// set, runs after each tag check: a publish between a Refresh's check
// and its read.
type countObjects struct {
	inner         snapshot.Objects
	reads, checks atomic.Int64
	afterCheck    func()
}

// costs is what a reader asked of its Objects.
type costs struct{ Reads, Checks int64 }

func (c *countObjects) take() costs {
	return costs{Reads: c.reads.Swap(0), Checks: c.checks.Swap(0)}
}

func (c *countObjects) ReadObject(ctx context.Context, key string, max int64) ([]byte, error) {
	c.reads.Add(1)
	return c.inner.ReadObject(ctx, key, max)
}

func (c *countObjects) ReadObjectTag(ctx context.Context, key string, max int64) ([]byte, string, error) {
	c.reads.Add(1)
	if t, ok := c.inner.(snapshot.TaggedObjects); ok {
		return t.ReadObjectTag(ctx, key, max)
	}
	data, err := c.inner.ReadObject(ctx, key, max)
	return data, "", err
}

func (c *countObjects) ObjectTag(ctx context.Context, key string) (string, error) {
	c.checks.Add(1)
	tag, err := c.inner.ObjectTag(ctx, key)
	if c.afterCheck != nil {
		c.afterCheck()
	}
	return tag, err
}

// skillVersion is skill alpha with description n: each n is a new snapshot.
func skillVersion(n int) map[string][]byte {
	return map[string][]byte{"alpha/SKILL.md": []byte(fmt.Sprintf("---\nname: alpha\ndescription: version %d\n---\nbody\n", n))}
}

// fileFolder is a folder on disk published as a file:/// bucket. Its
// publish sets each pointer's time a second past the last: a file:///
// bucket tags the pointer by its size and time, and the test is not about
// a clock tick shorter than a publish.
func fileFolder(t *testing.T) (dir string, publishVersion func(n int) string) {
	dir = t.TempDir()
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	at := time.Now()
	return dir, func(n int) string {
		id := publish(t, blobfs.NewPublishBucket(b), skillVersion(n))
		at = at.Add(time.Second)
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(snapshot.PointerKey)), at, at); err != nil {
			t.Fatal(err)
		}
		return id
	}
}

// localObjects is a folder on disk published with version 0, read as a
// folder, and its publish.
func localObjects(t *testing.T) (snapshot.Objects, func(int) string) {
	dir, publishVersion := fileFolder(t)
	publishVersion(0)
	l, err := backends.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return snapshot.NewFSObjects(l), publishVersion
}

// fileBucketObjects is a folder on disk published with version 0, read as
// a file:/// bucket, and its publish.
func fileBucketObjects(t *testing.T) (snapshot.Objects, func(int) string) {
	dir, publishVersion := fileFolder(t)
	publishVersion(0)
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		t.Fatal(err)
	}
	bfs := blobfs.NewBucketFS(b, blobfs.BucketOptions{Logger: quiet()})
	t.Cleanup(func() { bfs.Close() })
	return bfs, publishVersion
}

// TestRefreshCosts: a reader whose Objects tell the pointer's tag with its
// read (a local folder, a file:/// bucket) pays one tag check at every
// Refresh that finds nothing new, the first after Open included; one whose
// Objects do not (a mem:// bucket, an Objects without ReadObjectTag) reads
// the pointer once more at the first. A new snapshot costs a check and
// two reads, and is served; one published between a Refresh's check and
// its read is served, and the next Refresh reads the pointer once more
// (the tag recorded is the check's).
func TestRefreshCosts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tagged bool
		open   func(t *testing.T) (snapshot.Objects, func(n int) string)
	}{
		{"local folder", true, localObjects},
		{"file bucket", true, fileBucketObjects},
		{"mem bucket", false, func(t *testing.T) (snapshot.Objects, func(int) string) {
			b := memblob.OpenBucket(nil)
			publishVersion := func(n int) string { return publish(t, blobfs.NewPublishBucket(b), skillVersion(n)) }
			publishVersion(0)
			bfs := blobfs.NewBucketFS(b, blobfs.BucketOptions{Logger: quiet()})
			t.Cleanup(func() { bfs.Close() })
			return bfs, publishVersion
		}},
		{"untagged objects", false, func(t *testing.T) (snapshot.Objects, func(int) string) {
			m := newMapBucket()
			publishVersion := func(n int) string { return publish(t, m, skillVersion(n)) }
			publishVersion(0)
			return m, publishVersion
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			inner, publishVersion := tc.open(t)
			objs := &countObjects{inner: inner}
			f, err := snapshot.Open(ctx, objs, snapshot.Options{Logger: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			var relearn int64 // the pointer read again where the read told no tag
			if !tc.tagged {
				relearn = 1
			}
			step := func(what string, want costs, wantID string) {
				t.Helper()
				if what == "first use" {
					if _, err := f.Snapshot(ctx); err != nil { // reads the manifest
						t.Fatalf("%s: %v", what, err)
					}
				} else if err := f.Refresh(ctx); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if diff := cmp.Diff(want, objs.take()); diff != "" {
					t.Errorf("%s cost (-want +got):\n%s", what, diff)
				}
				if got := f.Current().ID; wantID != "" && got != wantID {
					t.Errorf("%s: serving %s, want %s", what, got, wantID)
				}
			}
			if diff := cmp.Diff(costs{Reads: 1}, objs.take()); diff != "" {
				t.Errorf("open cost: want the pointer's read alone (-want +got):\n%s", diff)
			}
			step("first use", costs{Reads: 1}, "") // the manifest
			step("the first refresh with nothing new", costs{Checks: 1, Reads: relearn}, "")
			step("a second refresh with nothing new", costs{Checks: 1}, "")
			step("a refresh after a publish", costs{Checks: 1, Reads: 2}, publishVersion(1))
			step("the next refresh", costs{Checks: 1}, "")
			publishVersion(2)
			var during string
			objs.afterCheck = func() { objs.afterCheck, during = nil, publishVersion(3) }
			step("a refresh with a publish between its check and its read", costs{Checks: 1, Reads: 2}, "")
			if f.Current().ID != during {
				t.Errorf("serving %s, want %s, published before the pointer was read", f.Current().ID, during)
			}
			step("the next refresh, which reads the pointer that came after the check", costs{Checks: 1, Reads: 1}, during)
			step("the refresh after it", costs{Checks: 1}, during)
		})
	}
}
