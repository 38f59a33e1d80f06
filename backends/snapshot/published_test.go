package snapshot_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

// These tests publish with Publish and serve the result through the
// package's reader and a store: what a replica of a published bucket sees.

func silentLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// treePublisher publishes a folder of skills to an in-memory bucket.
type treePublisher struct {
	t     *testing.T
	dir   string
	local *backends.LocalFS
	b     *blob.Bucket
}

// newTreePublisher writes skills a (with refs/x.md) and b (with a UTF-16
// notes.txt, served as "hi").
func newTreePublisher(t *testing.T) *treePublisher {
	dir, local := pubTree(t, map[string][]byte{
		"a/SKILL.md":  []byte("---\nname: a\ndescription: A.\n---\n"),
		"a/refs/x.md": []byte("x"),
		"b/SKILL.md":  []byte("---\nname: b\ndescription: B.\n---\n"),
		"b/notes.txt": []byte("\xff\xfeh\x00i\x00"),
	})
	return &treePublisher{t: t, dir: dir, local: local, b: memBucket(t)}
}

// publish publishes every file of the folder as it is now (Keep 5 unless
// opts says otherwise); a failure ends the test.
func (p *treePublisher) publish(opts snapshot.PublishOptions) snapshot.Report {
	p.t.Helper()
	r, err := p.tryPublish(opts)
	if err != nil {
		p.t.Fatal(err)
	}
	return r
}

// tryPublish is publish, returning its error.
func (p *treePublisher) tryPublish(opts snapshot.PublishOptions) (snapshot.Report, error) {
	p.t.Helper()
	if opts.Keep == 0 {
		opts.Keep = 5
	}
	var skills []snapshot.SkillFiles
	for _, sk := range []string{"a", "b"} {
		files := []string{}
		err := fs.WalkDir(p.local, sk, func(name string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, strings.TrimPrefix(name, sk+"/"))
			}
			return err
		})
		if err != nil {
			p.t.Fatal(err)
		}
		skills = append(skills, snapshot.SkillFiles{Dir: sk, DocPath: "SKILL.md", Files: files})
	}
	return snapshot.Publish(context.Background(), p.local, skills, blobfs.NewPublishBucket(p.b), opts)
}

// write replaces a file of the folder.
func (p *treePublisher) write(name, content string) {
	p.t.Helper()
	if err := os.WriteFile(filepath.Join(p.dir, filepath.FromSlash(name)), []byte(content), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// TestServePublished: a cold server over a published bucket builds its
// catalog from two requests, answers the skills extension's digests from
// the manifest, checks a refresh with one request, and switches to a new
// snapshot atomically.
func TestServePublished(t *testing.T) {
	p := newTreePublisher(t)
	ctx := context.Background()
	p.publish(snapshot.PublishOptions{})
	bfs := blobfs.NewBucketFS(p.b, blobfs.BucketOptions{})
	pub, err := snapshot.Open(ctx, bfs, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := store.New([]store.Source{{Label: "org", FS: pub}}, store.Options{})
	list, err := s.View(nil).List(ctx)
	if err != nil || len(list) != 2 || list[0].Description != "A." {
		t.Fatalf("list: %v %v", list, err)
	}
	if diff := cmp.Diff(blobfs.Requests{Get: 2}, bfs.Requests()); diff != "" {
		t.Errorf("cold catalog cost; want 2 GETs (pointer, manifest) (-want +got):\n%s", diff)
	}
	files, err := s.View(nil).Files(ctx, "b", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.FileInfo{
		{Path: "SKILL.md", Size: 32, ModTime: treeTime, SHA256: snapshot.Sum([]byte("---\nname: b\ndescription: B.\n---\n"))},
		{Path: "notes.txt", Size: 6, ModTime: treeTime, SHA256: snapshot.Sum([]byte("\xff\xfeh\x00i\x00"))}, // the bytes as stored, not the text served
	}
	if diff := cmp.Diff(want, files); diff != "" {
		t.Errorf("files from the manifest (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(blobfs.Requests{Get: 2}, bfs.Requests()); diff != "" {
		t.Errorf("listing a skill's files cost requests (-want +got):\n%s", diff)
	}
	if f, err := s.View(nil).ReadFile(ctx, "a", "refs/x.md", &store.ReadOptions{Text: true}); err != nil || f.Text != "x" {
		t.Errorf("read: %q %v", f.Text, err)
	}
	before := bfs.Requests()
	served, err := s.View(nil).Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := s.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if c, err := s.View(nil).Catalog(ctx); c != served || err != nil {
		t.Errorf("a refresh with nothing new rebuilt the catalog (%v): an idle replica of 100,000 skills would rebuild them all at every refresh", err)
	}
	if diff := cmp.Diff(blobfs.Requests{Get: before.Get + 1, Head: before.Head + 2}, bfs.Requests()); diff != "" {
		t.Errorf("two refreshes with nothing new; want 2 HEADs and the pointer once (-want +got):\n%s", diff)
	}
	// A new snapshot: the next refresh serves it, all of it.
	p.write("a/SKILL.md", "---\nname: a\ndescription: A, again.\n---\n")
	p.publish(snapshot.PublishOptions{})
	changes, err := s.Refresh(ctx)
	if err != nil || strings.Join(changes.Updated, ",") != "a" {
		t.Errorf("refresh after a publish: %+v %v", changes, err)
	}
	doc, err := s.View(nil).Document(ctx, "a", nil)
	if err != nil || doc.Skill.Description != "A, again." || doc.Text != "---\nname: a\ndescription: A, again.\n---\n" {
		t.Errorf("new snapshot: %+v %v", doc, err)
	}
}

// readJSON reads the JSON object at key into v.
func readJSON(t *testing.T, b *blob.Bucket, key string, v any) []byte {
	t.Helper()
	data, err := b.ReadAll(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
	return data
}

// readManifest reads and decodes the manifest of snapshot id.
func readManifest(t *testing.T, b *blob.Bucket, id string) *snapshot.Manifest {
	t.Helper()
	data, err := b.ReadAll(context.Background(), snapshot.ManifestKey(id))
	if err != nil {
		t.Fatal(err)
	}
	m, err := snapshot.DecodeManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// encode encodes m, failing the test if it cannot.
func encode(t *testing.T, m *snapshot.Manifest) []byte {
	t.Helper()
	data, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// writeObject writes data at key.
func writeObject(t *testing.T, b *blob.Bucket, key string, data []byte) {
	t.Helper()
	if err := b.WriteAll(context.Background(), key, data, nil); err != nil {
		t.Fatal(err)
	}
}

// TestPublishedTampering: content that does not match the manifest is
// refused, and so is a document whose frontmatter is not the one the
// manifest gives.
func TestPublishedTampering(t *testing.T) {
	pb := newTreePublisher(t)
	ctx := context.Background()
	pb.publish(snapshot.PublishOptions{})
	b := pb.b
	// Alter a blob in place.
	writeObject(t, b, snapshot.BlobKey(snapshot.Sum([]byte("x"))), []byte("z"))
	// Rewrite the manifest (and its pointer, consistently) to claim other
	// frontmatter for b.
	var p snapshot.Pointer
	readJSON(t, b, snapshot.PointerKey, &p)
	m := readManifest(t, b, p.Snapshot)
	m.Skills[1].Frontmatter = "name: b\ndescription: Forged.\n"
	data := encode(t, m)
	writeObject(t, b, snapshot.ManifestKey(p.Snapshot), data)
	p.SHA256 = snapshot.Sum(data)
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	writeObject(t, b, snapshot.PointerKey, data)

	pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := store.New([]store.Source{{Label: "org", FS: pub}}, store.Options{})
	if _, err := s.View(nil).ReadFile(ctx, "a", "refs/x.md", &store.ReadOptions{Text: true}); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("altered content: %v", err)
	}
	if _, err := s.View(nil).Document(ctx, "b", nil); !errors.Is(err, store.ErrSkillInvalid) || !strings.Contains(err.Error(), "publish the skills again") {
		t.Errorf("forged frontmatter: %v", err)
	}
	if doc, err := s.View(nil).Document(ctx, "a", nil); err != nil || doc.Skill.Description != "A." {
		t.Errorf("an intact skill: %v", err)
	}
}

// TestPublishedBroken: a pointer or manifest that is truncated, of another
// version or names a missing manifest never gives a wrong answer: a cold
// reader serves the newest whole snapshot, and a running one keeps the one
// it serves, reporting the broken one once.
func TestPublishedBroken(t *testing.T) {
	pb := newTreePublisher(t)
	ctx := context.Background()
	pb.publish(snapshot.PublishOptions{})
	pb.write("a/SKILL.md", "---\nname: a\ndescription: A, second.\n---\n")
	pb.publish(snapshot.PublishOptions{})
	b := pb.b
	var p snapshot.Pointer
	good := readJSON(t, b, snapshot.PointerKey, &p)
	newest, err := b.ReadAll(ctx, snapshot.ManifestKey(p.Snapshot))
	if err != nil {
		t.Fatal(err)
	}
	describe := func() (string, error) {
		pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{Logger: silentLogger()})
		if err != nil {
			return "", err
		}
		s, _ := store.New([]store.Source{{FS: pub}}, store.Options{})
		sk, err := s.View(nil).Skill(ctx, "a")
		if err != nil {
			return "", err
		}
		return sk.Description, nil
	}
	for _, tc := range []struct {
		name           string
		pointer, manif []byte
		want           string
	}{
		{"truncated pointer", good[:len(good)/2], newest, "A, second."},
		{"pointer of another version", []byte(`{"version":99,"snapshot":"x"}`), newest, "A, second."},
		{"pointer naming a missing manifest", []byte(`{"version":1,"snapshot":"29991231T000000.000000000Z-missing","sha256":"00"}`), newest, "A, second."},
		{"truncated newest manifest", good, newest[:len(newest)/2], "A."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeObject(t, b, snapshot.PointerKey, tc.pointer)
			writeObject(t, b, snapshot.ManifestKey(p.Snapshot), tc.manif)
			if got, err := describe(); err != nil || got != tc.want {
				t.Errorf("served %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	// A running reader keeps its snapshot when a broken one is published.
	writeObject(t, b, snapshot.PointerKey, good)
	writeObject(t, b, snapshot.ManifestKey(p.Snapshot), newest)
	pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{Logger: silentLogger()})
	if err != nil {
		t.Fatal(err)
	}
	writeObject(t, b, snapshot.PointerKey, []byte(`{"version":1,"snap`))
	for range 2 { // reported (the source is degraded) while it stays broken
		if err := pub.Refresh(ctx); !errors.Is(err, snapshot.ErrBroken) || pub.Current().ID != p.Snapshot {
			t.Errorf("refresh over a broken pointer: %v, serving %s", err, pub.Current().ID)
		}
	}
	writeObject(t, b, snapshot.PointerKey, good)
	if err := pub.Refresh(ctx); err != nil || pub.Current().ID != p.Snapshot {
		t.Errorf("refresh once mended: %v", err)
	}
}

// TestPublishedBrokenLogged: the lines a reader logs when it finds the
// published snapshot broken, cold (it serves the newest whole one) and
// running (it keeps the one it serves), carry the error by its message.
func TestPublishedBrokenLogged(t *testing.T) {
	pb := newTreePublisher(t)
	ctx := context.Background()
	pb.publish(snapshot.PublishOptions{})
	pb.write("a/SKILL.md", "---\nname: a\ndescription: A, second.\n---\n")
	pb.publish(snapshot.PublishOptions{})
	var p snapshot.Pointer
	good := readJSON(t, pb.b, snapshot.PointerKey, &p)
	const broken = `err="the published snapshot is broken: the pointer .skillstore/current.json is truncated or of another version"`
	log, logs := testutil.TextLogByMessage()
	open := func() *snapshot.FS {
		t.Helper()
		pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(pb.b, blobfs.BucketOptions{}), snapshot.Options{Location: "mem://skills", Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		return pub
	}

	writeObject(t, pb.b, snapshot.PointerKey, good[:len(good)/2])
	open()
	want := `level=WARN msg="the published snapshot is broken; serving the newest whole one instead; publish again" location=mem://skills ` + broken + " snapshot=" + p.Snapshot + "\n"
	if diff := cmp.Diff(want, logs.String()); diff != "" {
		t.Errorf("a cold reader's log (-want +got):\n%s", diff)
	}

	logs.Reset()
	writeObject(t, pb.b, snapshot.PointerKey, good)
	pub := open()
	writeObject(t, pb.b, snapshot.PointerKey, good[:len(good)/2])
	if err := pub.Refresh(ctx); !errors.Is(err, snapshot.ErrBroken) {
		t.Fatalf("refresh over a broken pointer: %v", err)
	}
	want = `level=WARN msg="the newly published snapshot is broken; still serving the previous one; publish again" location=mem://skills ` + broken + " serving=" + p.Snapshot + "\n"
	if diff := cmp.Diff(want, logs.String()); diff != "" {
		t.Errorf("a running reader's log (-want +got):\n%s", diff)
	}
}

// TestPublishedLater: a server that started over a bucket before it was
// ever published serves its snapshot after the next refresh; and a file
// over the serving limit is refused without being downloaded.
func TestPublishedLater(t *testing.T) {
	p := newTreePublisher(t)
	p.write("a/big.txt", strings.Repeat("x", 100))
	ctx := context.Background()
	b := p.b
	writeObject(t, b, "old/SKILL.md", []byte("---\nname: old\ndescription: Listed.\n---\n"))
	bfs := blobfs.NewBucketFS(b, blobfs.BucketOptions{Logger: silentLogger()})
	s, _ := store.New([]store.Source{{FS: blobfs.New(bfs)}}, store.Options{MaxFileSize: 64, Logger: silentLogger()})
	if list, err := s.View(nil).List(ctx); err != nil || len(list) != 1 || list[0].Name != "old" {
		t.Fatalf("before publishing: %v %v", list, err)
	}
	p.publish(snapshot.PublishOptions{})
	if _, err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	list, err := s.View(nil).List(ctx)
	if err != nil || len(list) != 2 || list[0].Name != "a" {
		t.Fatalf("after publishing: %v %v", list, err)
	}
	before := bfs.Requests()
	if _, err := s.View(nil).ReadFile(ctx, "a", "big.txt", &store.ReadOptions{Text: true}); !errors.Is(err, store.ErrTooLarge) {
		t.Errorf("a file over the limit: %v", err)
	}
	if after := bfs.Requests(); after.Get != before.Get {
		t.Errorf("refusing a file over the limit downloaded it: %+v, then %+v", before, after)
	}
}

// TestPublishedSearch: skills of a published snapshot are searchable by
// their name, description and headings, from the manifest: no document is
// read to index them, so their text is not ranked.
func TestPublishedSearch(t *testing.T) {
	_, local := pubTree(t, map[string][]byte{
		"weather/SKILL.md":  []byte("---\nname: weather\ndescription: Forecasts by location.\n---\n# Radar\n\nUse the radar API.\n"),
		"calendar/SKILL.md": []byte("---\nname: calendar\ndescription: Book meetings.\n---\n# Invites\n"),
	})
	ctx := context.Background()
	b := memBucket(t)
	skills := []snapshot.SkillFiles{{Dir: "weather", DocPath: "SKILL.md", Files: []string{"SKILL.md"}}, {Dir: "calendar", DocPath: "SKILL.md", Files: []string{"SKILL.md"}}}
	if _, err := snapshot.Publish(ctx, local, skills, blobfs.NewPublishBucket(b), snapshot.PublishOptions{Keep: 5}); err != nil {
		t.Fatal(err)
	}
	pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := store.New([]store.Source{{Label: "org", FS: pub}}, store.Options{})
	for q, want := range map[string]string{"weather forecast": "weather", "booking a meeting": "calendar", "radar": "weather", "invites": "calendar", "API": ""} {
		got, err := s.View(nil).Search(ctx, q, 5)
		var names []string
		for _, sk := range got {
			names = append(names, sk.Name)
		}
		if err != nil || strings.Join(names, ",") != want {
			t.Errorf("%q: %v %v; want %q", q, names, err, want)
		}
	}
}

// asFormat1 rewrites the current snapshot of b as a publish before format
// 2 wrote it (a JSON manifest at snapshots/ID.json, a version 1 pointer),
// and returns its manifest.
func asFormat1(t *testing.T, b *blob.Bucket) *snapshot.Manifest {
	t.Helper()
	ctx := context.Background()
	var p snapshot.Pointer
	readJSON(t, b, snapshot.PointerKey, &p)
	m := readManifest(t, b, p.Snapshot)
	m.Version = 1
	data := encode(t, m)
	if err := b.Delete(ctx, snapshot.ManifestKey(p.Snapshot)); err != nil {
		t.Fatal(err)
	}
	writeObject(t, b, snapshot.Dir+"/snapshots/"+p.Snapshot+".json", data)
	p.Version, p.SHA256 = 1, snapshot.Sum(data)
	pb, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	writeObject(t, b, snapshot.PointerKey, pb)
	return m
}

// TestReadsFormat1: a folder published before format 2 is served as it
// was (the same listing, files and digests), a pointer of a later format
// is refused saying to upgrade, and the next publish moves the folder to
// format 2 and collects the old manifest.
func TestReadsFormat1(t *testing.T) {
	pb := newTreePublisher(t)
	ctx := context.Background()
	pb.publish(snapshot.PublishOptions{})
	m := asFormat1(t, pb.b)
	pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(pb.b, blobfs.BucketOptions{}), snapshot.Options{Logger: silentLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, pub.Current()); diff != "" {
		t.Errorf("format 1 manifest as served (-want +got):\n%s", diff)
	}
	view, err := pub.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(view, "a/SKILL.md", "a/refs/x.md", "b/SKILL.md", "b/notes.txt"); err != nil {
		t.Error(err)
	}
	s, _ := store.New([]store.Source{{Label: "org", FS: pub}}, store.Options{Logger: silentLogger()})
	files, err := s.View(nil).Files(ctx, "b", nil)
	if err != nil || len(files) != 2 || files[1].SHA256 != snapshot.Sum([]byte("\xff\xfeh\x00i\x00")) {
		t.Errorf("files of b from a format 1 snapshot: %+v %v", files, err)
	}

	// A pointer of a format this reader does not know.
	var p snapshot.Pointer
	good := readJSON(t, pb.b, snapshot.PointerKey, &p)
	p.Version = snapshot.Version + 1
	later, _ := json.Marshal(p)
	writeObject(t, pb.b, snapshot.PointerKey, later)
	if err := pub.Refresh(ctx); !errors.Is(err, snapshot.ErrBroken) || !strings.Contains(err.Error(), "upgrade") {
		t.Errorf("refresh to a later format: %v; want it refused, saying to upgrade", err)
	}
	writeObject(t, pb.b, snapshot.PointerKey, good)

	// The next publish writes format 2 and collects the format 1 manifest.
	pb.write("a/SKILL.md", "---\nname: a\ndescription: A, again.\n---\n")
	r := pb.publish(snapshot.PublishOptions{Keep: 1})
	if r.Removed != 1 {
		t.Errorf("publish after format 1: %+v; want the old snapshot removed", r)
	}
	if ok, err := pb.b.Exists(ctx, snapshot.Dir+"/snapshots/"+m.ID+".json"); ok || err != nil {
		t.Errorf("the format 1 manifest is still there (%v)", err)
	}
	if err := pub.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got := pub.Current(); got.Version != snapshot.Version || got.ID != r.Snapshot {
		t.Errorf("serving %s of format %d; want %s of format %d", got.ID, got.Version, r.Snapshot, snapshot.Version)
	}
}

// TestViewFS checks a format 2 view as an fs.FS, nested folders included.
func TestViewFS(t *testing.T) {
	_, local := pubTree(t, map[string][]byte{
		"a/SKILL.md":          []byte("---\nname: a\ndescription: A.\n---\n"),
		"a/refs/deep/x.md":    []byte("x"),
		"a/refs/deep.md":      []byte("y"), // sorts between refs/deep/… and its folder
		"a/refs/deep-and.txt": []byte("z"),
		"a/z.md":              []byte("z"),
		"b/SKILL.md":          []byte("---\nname: b\ndescription: B.\n---\n"),
	})
	b := memBucket(t)
	ctx := context.Background()
	skills := []snapshot.SkillFiles{
		{Dir: "a", DocPath: "SKILL.md", Files: []string{"SKILL.md", "refs/deep/x.md", "refs/deep.md", "refs/deep-and.txt", "z.md"}},
		{Dir: "b", DocPath: "SKILL.md", Files: []string{"SKILL.md"}},
	}
	if _, err := snapshot.Publish(ctx, local, skills, blobfs.NewPublishBucket(b), snapshot.PublishOptions{Keep: 1}); err != nil {
		t.Fatal(err)
	}
	pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{Logger: silentLogger()})
	if err != nil {
		t.Fatal(err)
	}
	view, err := pub.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(view, "a/SKILL.md", "a/refs/deep/x.md", "a/refs/deep.md", "a/refs/deep-and.txt", "a/z.md", "b/SKILL.md"); err != nil {
		t.Error(err)
	}
	for _, name := range []string{"a/ref", "a/refs/dee", "c", "a/SKILL.md/x", "a/refs/deep/x.md/y"} {
		if _, err := fs.Stat(view, name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("stat %s: %v; want it not to exist", name, err)
		}
	}
}
