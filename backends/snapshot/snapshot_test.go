package snapshot_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skillstore/skillstore/backends/backendtest"
	"github.com/skillstore/skillstore/backends/snapshot"
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

// publish lays files out as a snapshot (skills are the top-level folders).
func publish(t *testing.T, objs memObjects, files map[string][]byte) {
	t.Helper()
	publishAt(t, objs, files, time.Unix(1, 0))
}

// publishAt lays files out as a snapshot published at when, points the
// pointer at it, and returns its ID.
func publishAt(t *testing.T, objs memObjects, files map[string][]byte, when time.Time) string {
	t.Helper()
	bySkill := map[string][]snapshot.File{}
	for name, data := range files {
		dir, rel, ok := strings.Cut(name, "/")
		if !ok {
			continue // a snapshot holds skills only
		}
		sum := snapshot.Sum(data)
		objs[snapshot.BlobKey(sum)] = data
		bySkill[dir] = append(bySkill[dir], snapshot.File{Path: rel, Size: int64(len(data)), SHA256: sum, ModTime: time.Unix(1, 0)})
	}
	m := snapshot.Manifest{Version: snapshot.Version, ID: when.UTC().Format("20060102T150405.000000000Z") + "-test", Published: when}
	for dir, fs := range bySkill {
		sort.Slice(fs, func(i, j int) bool { return fs[i].Path < fs[j].Path })
		m.Skills = append(m.Skills, snapshot.Skill{Dir: dir, DocPath: "SKILL.md", Files: fs})
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

// TestView: a snapshot is a well-behaved fs.FS (testing/fstest) holding
// the backend conformance suite's skills, byte for byte.
func TestView(t *testing.T) {
	objs := memObjects{}
	files := backendtest.Fixture()
	publish(t, objs, files)
	f, err := snapshot.Open(context.Background(), objs, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	view, err := f.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range files {
		if strings.Contains(name, "/") {
			names = append(names, name)
		}
	}
	if err := fstest.TestFS(view, names...); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		got, err := fs.ReadFile(view, name)
		if err != nil || string(got) != string(files[name]) {
			t.Errorf("%s: %d bytes, %v", name, len(got), err)
		}
	}
	if _, err := fs.Stat(view, "top-level.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a root file: %v", err)
	}
	if _, err := fs.ReadFile(view, "alpha/../beta/SKILL.md"); err == nil {
		t.Error("an unclean path was served")
	}
}

// TestNotPublished: a folder without a pointer is not a snapshot.
func TestNotPublished(t *testing.T) {
	if _, err := snapshot.Open(context.Background(), memObjects{}, snapshot.Options{}); !errors.Is(err, snapshot.ErrNotPublished) {
		t.Errorf("err = %v", err)
	}
}
