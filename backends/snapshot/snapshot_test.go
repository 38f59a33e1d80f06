package snapshot_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/skillstore/skillstore/backends/backendtest"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/store"
)

// mapBucket is a bucket in memory, both Publish's destination
// (snapshot.Bucket) and the reader's objects (snapshot.Objects), so the
// writer and the reader are tested together without object-storage code.
// It counts its GETs as a bucket does (each object read or tag is one)
// and is safe for concurrent use.
type mapBucket struct {
	mu   sync.Mutex
	objs map[string]mapObject
	gets atomic.Uint64
}

// mapObject is one object of a mapBucket.
type mapObject struct {
	data    []byte
	written time.Time
}

var (
	_ snapshot.Bucket  = (*mapBucket)(nil)
	_ snapshot.Objects = (*mapBucket)(nil)
)

func newMapBucket() *mapBucket { return &mapBucket{objs: map[string]mapObject{}} }

func (m *mapBucket) object(key string) (mapObject, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objs[key]
	return o, ok
}

func (m *mapBucket) Accessible(context.Context) (bool, error) { return true, nil }

func (m *mapBucket) ReadObject(_ context.Context, key string, limit int64) ([]byte, error) {
	m.gets.Add(1)
	o, ok := m.object(key)
	switch {
	case !ok:
		return nil, &fs.PathError{Op: "read", Path: key, Err: fs.ErrNotExist}
	case int64(len(o.data)) > limit:
		return nil, &fs.PathError{Op: "read", Path: key, Err: snapshot.ErrTooLarge}
	}
	return o.data, nil
}

func (m *mapBucket) ObjectTag(_ context.Context, key string) (string, error) {
	m.gets.Add(1)
	o, ok := m.object(key)
	if !ok {
		return "", &fs.PathError{Op: "stat", Path: key, Err: fs.ErrNotExist}
	}
	return snapshot.Sum(o.data), nil
}

// WriteObject stores the object, refusing content that does not match
// attrs.ContentMD5 as a store does.
func (m *mapBucket) WriteObject(_ context.Context, key string, r io.Reader, attrs snapshot.ObjectAttrs) error {
	return m.write(key, r, attrs, false)
}

// CreateObject is WriteObject refusing, as one step, a key that holds an
// object.
func (m *mapBucket) CreateObject(_ context.Context, key string, r io.Reader, attrs snapshot.ObjectAttrs) error {
	return m.write(key, r, attrs, true)
}

func (m *mapBucket) write(key string, r io.Reader, attrs snapshot.ObjectAttrs, create bool) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if sum := md5.Sum(data); attrs.ContentMD5 != nil && !bytes.Equal(sum[:], attrs.ContentMD5) {
		return fmt.Errorf("writing %s: the content does not match its MD5", key)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objs[key]; ok && create {
		return &fs.PathError{Op: "create", Path: key, Err: fs.ErrExist}
	}
	m.objs[key] = mapObject{data: data, written: time.Now()}
	return nil
}

func (m *mapBucket) WalkObjects(_ context.Context, prefix string, fn func(snapshot.ObjectInfo) error) error {
	m.mu.Lock()
	var infos []snapshot.ObjectInfo
	for key, o := range m.objs {
		if strings.HasPrefix(key, prefix) {
			infos = append(infos, snapshot.ObjectInfo{Key: key, Size: int64(len(o.data)), ModTime: o.written})
		}
	}
	m.mu.Unlock()
	for _, info := range infos {
		if err := fn(info); err != nil {
			return err
		}
	}
	return nil
}

func (m *mapBucket) DeleteObject(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.objs, key)
	return nil
}

// RequestCounts are the GETs made so far (store.RequestCounter).
func (m *mapBucket) RequestCounts() (list, get uint64) { return 0, m.gets.Load() }

// publish publishes files with Publish, the real writer, to dst and
// returns the new snapshot's ID. Skills are the top-level folders, each
// with a SKILL.md; files at the root are left out, and so are skills
// whose frontmatter does not parse, which the publish command never
// publishes (it validates them first) and the writer refuses. Nothing is collected
// that a test could still read: snapshots are kept by the five, and
// objects by DefaultGrace.
func publish(t *testing.T, dst snapshot.Bucket, files map[string][]byte) string {
	t.Helper()
	src := fstest.MapFS{}
	bySkill := map[string]*snapshot.SkillFiles{}
	var skills []*snapshot.SkillFiles
	for name, data := range files {
		dir, rel, ok := strings.Cut(name, "/")
		if !ok {
			continue // a snapshot holds skills only
		}
		src[name] = &fstest.MapFile{Data: data, Mode: 0o644, ModTime: time.Unix(1, 0)}
		sk := bySkill[dir]
		if sk == nil {
			sk = &snapshot.SkillFiles{Dir: dir, DocPath: store.DocName}
			bySkill[dir] = sk
			skills = append(skills, sk)
		}
		sk.Files = append(sk.Files, rel)
	}
	var list []snapshot.SkillFiles
	for _, sk := range skills {
		if _, _, err := store.ParseFrontmatter(string(files[sk.Dir+"/"+sk.DocPath])); err == nil {
			list = append(list, *sk)
		}
	}
	// Checksum: every file has the same time, so an edit that keeps a
	// file's size would otherwise go unseen.
	r, err := snapshot.Publish(context.Background(), src, list, dst, snapshot.PublishOptions{Keep: 5, Grace: snapshot.DefaultGrace, Checksum: true})
	if err != nil {
		t.Fatal(err)
	}
	return r.Snapshot
}

// published are the upgrades a published snapshot offers: the source
// pins, refreshes and counts; its snapshots list skills with their
// frontmatter, know their digests and heed contexts.
var published = backendtest.Upgrades{SnapshotFS: true, Refresher: true, RequestCounter: true, ContextFS: true, ContentFS: true, RevisionFS: true, PublishedFS: true}

// TestConformance runs the backend suite against the reader over what
// the writer publishes, in memory; Update publishes a new snapshot beside
// the old.
func TestConformance(t *testing.T) {
	backendtest.Run(t, backendtest.Harness{
		Make: func(t *testing.T, files map[string][]byte) backendtest.Backend {
			b := newMapBucket()
			publish(t, b, files)
			f, err := snapshot.Open(context.Background(), b, snapshot.Options{Logger: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			return backendtest.Backend{FS: f, Update: func(next map[string][]byte) { publish(t, b, next) }}
		},
		SkillsOnly: true,
		Upgrades:   published,
	})
}

// TestConformanceBucket runs the backend suite against a bucket the
// writer published to, as backends.Open serves it (blobfs.FS over
// gocloud's memblob, written through blobfs.PublishBucket).
func TestConformanceBucket(t *testing.T) {
	backendtest.Run(t, backendtest.Harness{
		Make: func(t *testing.T, files map[string][]byte) backendtest.Backend {
			b := memblob.OpenBucket(nil)
			publish(t, blobfs.NewPublishBucket(b), files)
			src := blobfs.New(blobfs.NewBucketFS(b, blobfs.BucketOptions{Location: "test", Logger: quiet()}))
			t.Cleanup(func() { src.Close() })
			return backendtest.Backend{FS: src, Update: func(next map[string][]byte) { publish(t, blobfs.NewPublishBucket(b), next) }}
		},
		SkillsOnly: true,
		Upgrades:   published,
	})
}

// TestNotPublished: a folder without a pointer is not a snapshot.
func TestNotPublished(t *testing.T) {
	if _, err := snapshot.Open(context.Background(), newMapBucket(), snapshot.Options{}); !errors.Is(err, snapshot.ErrNotPublished) {
		t.Errorf("err = %v", err)
	}
}
