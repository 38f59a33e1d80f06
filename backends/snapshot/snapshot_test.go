package snapshot_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/skillstore/skillstore/backends/backendtest"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/store"
)

// memObjects is a bucket in a map.
type memObjects map[string][]byte

func (m memObjects) ReadObject(_ context.Context, key string, limit int64) ([]byte, error) {
	if b, ok := m[key]; ok {
		if int64(len(b)) > limit {
			return nil, &fs.PathError{Op: "read", Path: key, Err: snapshot.ErrTooLarge}
		}
		return b, nil
	}
	return nil, &fs.PathError{Op: "read", Path: key, Err: fs.ErrNotExist}
}

func (m memObjects) ObjectTag(_ context.Context, key string) (string, error) {
	b, ok := m[key]
	if !ok {
		return "", fs.ErrNotExist
	}
	return snapshot.Sum(b), nil
}

// publishAt lays files out as a snapshot published at when (skills are
// the top-level folders; files at the root are left out), points the
// pointer at it, and returns its ID. Blobs and manifests published
// before stay.
func publishAt(t *testing.T, objs memObjects, files map[string][]byte, when time.Time) string {
	t.Helper()
	bySkill := map[string]*snapshot.Skill{}
	for name, data := range files {
		dir, rel, ok := strings.Cut(name, "/")
		if !ok {
			continue // a snapshot holds skills only
		}
		sk := bySkill[dir]
		if sk == nil {
			sk = &snapshot.Skill{Dir: dir, DocPath: store.DocName}
			bySkill[dir] = sk
		}
		sum := snapshot.Sum(data)
		objs[snapshot.BlobKey(sum)] = data
		f := snapshot.File{Path: rel, Size: int64(len(data)), SHA256: sum, ModTime: time.Unix(1, 0)}
		if text, _, ok := store.DecodeText(data); ok && text != string(data) {
			f.Served, f.ServedSize = snapshot.Sum([]byte(text)), int64(len(text))
		}
		sk.Files = append(sk.Files, f)
		if rel == store.DocName {
			sk.Frontmatter, _, _ = store.SplitDocument(string(data))
		}
	}
	m := snapshot.Manifest{Version: snapshot.Version, ID: when.UTC().Format("20060102T150405.000000000Z") + "-test", Published: when}
	for _, sk := range bySkill {
		sort.Slice(sk.Files, func(i, j int) bool { return sk.Files[i].Path < sk.Files[j].Path })
		m.Skills = append(m.Skills, *sk)
	}
	body, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	objs[snapshot.ManifestKey(m.ID)] = body
	pointer, err := json.Marshal(snapshot.Pointer{Version: snapshot.Version, Snapshot: m.ID, SHA256: snapshot.Sum(body), Published: when})
	if err != nil {
		t.Fatal(err)
	}
	objs[snapshot.PointerKey] = pointer
	return m.ID
}

// countedObjects are memObjects that count their requests, as a bucket
// does: each object read or tag is one GET.
type countedObjects struct {
	memObjects
	gets atomic.Uint64
}

func (c *countedObjects) ReadObject(ctx context.Context, key string, limit int64) ([]byte, error) {
	c.gets.Add(1)
	return c.memObjects.ReadObject(ctx, key, limit)
}

func (c *countedObjects) ObjectTag(ctx context.Context, key string) (string, error) {
	c.gets.Add(1)
	return c.memObjects.ObjectTag(ctx, key)
}

// RequestCounts are the GETs made so far (store.RequestCounter).
func (c *countedObjects) RequestCounts() (list, get uint64) { return 0, c.gets.Load() }

// published are the upgrades a published snapshot offers: the source
// pins, refreshes and counts; its snapshots list skills with their
// frontmatter, know their digests and heed contexts.
var published = backendtest.Upgrades{SnapshotFS: true, Refresher: true, RequestCounter: true, ContextFS: true, ContentFS: true, PublishedFS: true}

// TestConformance runs the backend suite against the reader, over
// objects in memory; Update publishes a new snapshot beside the old.
func TestConformance(t *testing.T) {
	backendtest.Run(t, backendtest.Harness{
		Make: func(t *testing.T, files map[string][]byte) backendtest.Backend {
			objs := &countedObjects{memObjects: memObjects{}}
			when := time.Unix(1, 0)
			publishAt(t, objs.memObjects, files, when)
			f, err := snapshot.Open(context.Background(), objs, snapshot.Options{Logger: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			return backendtest.Backend{FS: f, Update: func(next map[string][]byte) {
				when = when.Add(time.Second)
				publishAt(t, objs.memObjects, next, when)
			}}
		},
		SkillsOnly: true,
		Upgrades:   published,
	})
}

// TestConformanceBucket runs the backend suite against a published bucket
// as backends.Open serves it (blobfs.FS over gocloud's memblob).
func TestConformanceBucket(t *testing.T) {
	backendtest.Run(t, backendtest.Harness{
		Make: func(t *testing.T, files map[string][]byte) backendtest.Backend {
			b := memblob.OpenBucket(nil)
			objs := memObjects{}
			when := time.Unix(1, 0)
			upload := func(files map[string][]byte) {
				publishAt(t, objs, files, when)
				for key, data := range objs {
					if err := b.WriteAll(context.Background(), key, data, nil); err != nil {
						t.Fatal(err)
					}
				}
			}
			upload(files)
			src := blobfs.New(blobfs.NewBucketFS(b, blobfs.BucketOptions{Location: "test", Logger: quiet()}))
			t.Cleanup(func() { src.Close() })
			return backendtest.Backend{FS: src, Update: func(next map[string][]byte) {
				when = when.Add(time.Second)
				upload(next)
			}}
		},
		SkillsOnly: true,
		Upgrades:   published,
	})
}

// TestNotPublished: a folder without a pointer is not a snapshot.
func TestNotPublished(t *testing.T) {
	if _, err := snapshot.Open(context.Background(), memObjects{}, snapshot.Options{}); !errors.Is(err, snapshot.ErrNotPublished) {
		t.Errorf("err = %v", err)
	}
}
