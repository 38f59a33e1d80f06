package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

// publishFixture is a skills folder with hidden files and a folder that is
// not a skill.
func publishFixture(t *testing.T) (string, *backends.LocalFS) {
	dir := testutil.TempTree(t, map[string][]byte{
		"a/SKILL.md":         []byte("---\nname: a\ndescription: A.\n---\n"),
		"a/refs/x.md":        []byte("x"),
		"a/.DS_Store":        []byte("junk"),
		"b/SKILL.md":         []byte("---\nname: b\ndescription: B.\n---\n"),
		"b/notes.txt":        []byte("\xff\xfeh\x00i\x00"), // UTF-16: served as "hi"
		"b/.git/config":      []byte("junk"),
		"not-a-skill/readme": []byte("ignored"),
	})
	local, err := backends.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	return dir, local
}

// publisher publishes the publishFixture folder to an in-memory bucket.
type publisher struct {
	t     *testing.T
	dir   string
	local *backends.LocalFS
	b     *blob.Bucket
}

func newPublisher(t *testing.T) *publisher {
	dir, local := publishFixture(t)
	b := memblob.OpenBucket(nil)
	t.Cleanup(func() { b.Close() })
	return &publisher{t: t, dir: dir, local: local, b: b}
}

// publish publishes the folder as it is now, quietly (--keep 5 unless
// opts says otherwise); a failure ends the test.
func (p *publisher) publish(opts publishOptions) publishReport {
	p.t.Helper()
	if opts.keep == 0 {
		opts.keep = 5
	}
	ctx := context.Background()
	skills, err := publishable(ctx, p.local, false, io.Discard)
	if err != nil {
		p.t.Fatal(err)
	}
	r, err := publish(ctx, p.local, skills, p.b, opts, newProgress(io.Discard, io.Discard, true))
	if err != nil {
		p.t.Fatal(err)
	}
	return r
}

func TestPublish(t *testing.T) {
	dir, local := publishFixture(t)
	ctx := context.Background()
	skills, err := publishable(ctx, local, false, io.Discard)
	if err != nil || len(skills) != 2 || strings.Join(skills[0].files, ",") != "SKILL.md,refs/x.md" || strings.Join(skills[1].files, ",") != "SKILL.md,notes.txt" {
		t.Fatalf("skills = %+v, %v", skills, err)
	}
	b := memblob.OpenBucket(nil)
	defer b.Close()
	b.WriteAll(ctx, "old/SKILL.md", []byte("stale"), nil) // the older per-path layout
	run := func(opts publishOptions) publishReport {
		t.Helper()
		if opts.keep == 0 {
			opts.keep = 5
		}
		var out bytes.Buffer
		r, err := publish(ctx, local, skills, b, opts, newProgress(&out, io.Discard, false))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := run(publishOptions{dryRun: true}); r.uploaded != 4 || r.files != 4 {
		t.Errorf("dry run: %+v", r)
	}
	if ok, _ := b.Exists(ctx, snapshot.PointerKey); ok {
		t.Error("a dry run published")
	}
	first := run(publishOptions{})
	if first.uploaded != 4 || first.unchanged != 0 || first.skills != 2 || first.kept != 1 {
		t.Errorf("first publish: %+v", first)
	}
	if r := run(publishOptions{}); r.uploaded != 0 || r.unchanged != 4 || r.kept != 2 {
		t.Errorf("republishing unchanged files: %+v", r)
	}
	os.WriteFile(filepath.Join(dir, "a", "refs", "x.md"), []byte("y"), 0o644) // same size, new content
	if r := run(publishOptions{delete: true}); r.uploaded != 1 || r.unchanged != 3 || r.outsider != 1 {
		t.Errorf("after an edit, with --delete: %+v", r)
	}
	if ok, _ := b.Exists(ctx, "old/SKILL.md"); ok {
		t.Error("--delete left an object of the older layout")
	}
	// With --keep 1 only the new snapshot stays, and the content only older
	// ones used ("x") is removed.
	if r := run(publishOptions{keep: 1}); r.kept != 1 || r.collected != 3 {
		t.Errorf("--keep 1: %+v", r)
	}
	if ok, _ := b.Exists(ctx, snapshot.BlobKey(snapshot.Sum([]byte("x")))); ok {
		t.Error("content no kept snapshot uses was left")
	}
	if ok, _ := b.Exists(ctx, snapshot.BlobKey(snapshot.Sum([]byte("y")))); !ok {
		t.Error("the current content was removed")
	}
}

// TestServePublished: a cold server over a published bucket builds its
// catalog from two requests, answers the skills extension's digests from
// the manifest, checks a refresh with one request, and switches to a new
// snapshot atomically.
func TestServePublished(t *testing.T) {
	p := newPublisher(t)
	ctx := context.Background()
	p.publish(publishOptions{})
	bfs := blobfs.NewBucketFS(p.b, blobfs.BucketOptions{})
	pub, err := snapshot.Open(ctx, bfs, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := store.New([]store.Source{{Label: "org", FS: pub}}, store.Options{})
	list, err := s.List(ctx)
	if err != nil || len(list) != 2 || list[0].Description != "A." {
		t.Fatalf("list: %v %v", list, err)
	}
	if r := bfs.Requests(); r.List != 0 || r.Get != 2 || r.Head != 0 {
		t.Errorf("cold catalog cost %+v; want 2 GETs (pointer, manifest)", r)
	}
	files, err := s.Files(ctx, "b")
	if err != nil || len(files) != 2 || files[1].ServedSHA256 != snapshot.Sum([]byte("hi")) || files[1].ServedSize != 2 {
		t.Errorf("files from the manifest: %+v %v", files, err)
	}
	if r := bfs.Requests(); r.Get != 2 {
		t.Errorf("listing a skill's files cost %+v", r)
	}
	if f, err := s.ReadText(ctx, "a", "refs/x.md"); err != nil || f.Text != "x" {
		t.Errorf("read: %q %v", f.Text, err)
	}
	before := bfs.Requests()
	for range 2 {
		if _, err := s.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if r := bfs.Requests(); r.Head-before.Head != 2 || r.Get-before.Get != 1 || r.List != 0 {
		t.Errorf("two refreshes with nothing new cost %+v, then %+v; want 2 HEADs and the pointer once", before, r)
	}
	// A new snapshot: the next refresh serves it, all of it.
	os.WriteFile(filepath.Join(p.dir, "a", "SKILL.md"), []byte("---\nname: a\ndescription: A, again.\n---\n"), 0o644)
	p.publish(publishOptions{})
	changes, err := s.Refresh(ctx)
	if err != nil || strings.Join(changes.Updated, ",") != "a" {
		t.Errorf("refresh after a publish: %+v %v", changes, err)
	}
	doc, err := s.Document(ctx, "a")
	if err != nil || doc.Skill.Description != "A, again." || !strings.Contains(doc.Text, "A, again.") {
		t.Errorf("new snapshot: %+v %v", doc, err)
	}
}

// TestPublishedTampering: content that does not match the manifest is
// refused, and so is a document whose frontmatter is not the one the
// manifest gives.
func TestPublishedTampering(t *testing.T) {
	pb := newPublisher(t)
	ctx := context.Background()
	pb.publish(publishOptions{})
	b := pb.b
	// Alter a blob in place.
	b.WriteAll(ctx, snapshot.BlobKey(snapshot.Sum([]byte("x"))), []byte("z"), nil)
	// Rewrite the manifest (and its pointer, consistently) to claim other
	// frontmatter for b.
	var p snapshot.Pointer
	data, _ := b.ReadAll(ctx, snapshot.PointerKey)
	json.Unmarshal(data, &p)
	data, _ = b.ReadAll(ctx, snapshot.ManifestKey(p.Snapshot))
	var m snapshot.Manifest
	json.Unmarshal(data, &m)
	m.Skills[1].Frontmatter = "name: b\ndescription: Forged.\n"
	data, _ = json.Marshal(m)
	b.WriteAll(ctx, snapshot.ManifestKey(p.Snapshot), data, nil)
	p.SHA256 = snapshot.Sum(data)
	data, _ = json.Marshal(p)
	b.WriteAll(ctx, snapshot.PointerKey, data, &blob.WriterOptions{})

	pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := store.New([]store.Source{{Label: "org", FS: pub}}, store.Options{})
	if _, err := s.ReadText(ctx, "a", "refs/x.md"); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("altered content: %v", err)
	}
	if _, err := s.Document(ctx, "b"); !errors.Is(err, store.ErrSkillInvalid) || !strings.Contains(err.Error(), "publish the skills again") {
		t.Errorf("forged frontmatter: %v", err)
	}
	if doc, err := s.Document(ctx, "a"); err != nil || doc.Skill.Description != "A." {
		t.Errorf("an intact skill: %v", err)
	}
}

func TestPublishRefusesInvalidSkills(t *testing.T) {
	dir := testutil.TempTree(t, map[string][]byte{"Bad_Name/SKILL.md": []byte("---\nname: Bad_Name\ndescription: d\n---\n")})
	local, _ := backends.OpenLocal(dir)
	defer local.Close()
	var stderr bytes.Buffer
	if _, err := publishable(context.Background(), local, false, &stderr); err == nil || !strings.Contains(stderr.String(), "FAIL  Bad_Name") {
		t.Errorf("err %v, report %s", err, stderr.String())
	}
	if skills, err := publishable(context.Background(), local, true, io.Discard); err != nil || len(skills) != 1 {
		t.Errorf("--force: %v %v", skills, err)
	}
}

// TestPublishedBroken: a pointer or manifest that is truncated, of another
// version or names a missing manifest never gives a wrong answer: a cold
// reader serves the newest whole snapshot, and a running one keeps the one
// it serves, reporting the broken one once.
func TestPublishedBroken(t *testing.T) {
	pb := newPublisher(t)
	ctx := context.Background()
	pb.publish(publishOptions{})
	os.WriteFile(filepath.Join(pb.dir, "a", "SKILL.md"), []byte("---\nname: a\ndescription: A, second.\n---\n"), 0o644)
	pb.publish(publishOptions{})
	b := pb.b
	good, _ := b.ReadAll(ctx, snapshot.PointerKey)
	var p snapshot.Pointer
	json.Unmarshal(good, &p)
	newest, _ := b.ReadAll(ctx, snapshot.ManifestKey(p.Snapshot))

	describe := func() (string, error) {
		pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{Logger: quietLogger()})
		if err != nil {
			return "", err
		}
		s, _ := store.New([]store.Source{{FS: pub}}, store.Options{})
		sk, err := s.Skill(ctx, "a")
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
			b.WriteAll(ctx, snapshot.PointerKey, tc.pointer, nil)
			b.WriteAll(ctx, snapshot.ManifestKey(p.Snapshot), tc.manif, nil)
			if got, err := describe(); err != nil || got != tc.want {
				t.Errorf("served %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	// A running reader keeps its snapshot when a broken one is published.
	b.WriteAll(ctx, snapshot.PointerKey, good, nil)
	b.WriteAll(ctx, snapshot.ManifestKey(p.Snapshot), newest, nil)
	pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	b.WriteAll(ctx, snapshot.PointerKey, []byte(`{"version":1,"snap`), nil)
	for range 2 { // reported (the source is degraded) while it stays broken
		if err := pub.Refresh(ctx); !errors.Is(err, snapshot.ErrBroken) || pub.Current().ID != p.Snapshot {
			t.Errorf("refresh over a broken pointer: %v, serving %s", err, pub.Current().ID)
		}
	}
	b.WriteAll(ctx, snapshot.PointerKey, good, nil)
	if err := pub.Refresh(ctx); err != nil || pub.Current().ID != p.Snapshot {
		t.Errorf("refresh once mended: %v", err)
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestPublishedLater: a server that started over a bucket before it was
// ever published serves its snapshot after the next refresh; and a file
// over the serving limit is refused without being downloaded.
func TestPublishedLater(t *testing.T) {
	p := newPublisher(t)
	os.WriteFile(filepath.Join(p.dir, "a", "big.txt"), bytes.Repeat([]byte("x"), 100), 0o644)
	ctx := context.Background()
	b := p.b
	b.WriteAll(ctx, "old/SKILL.md", []byte("---\nname: old\ndescription: Listed.\n---\n"), nil)
	bfs := blobfs.NewBucketFS(b, blobfs.BucketOptions{Logger: quietLogger()})
	s, _ := store.New([]store.Source{{FS: blobfs.New(bfs)}}, store.Options{MaxFileSize: 64, Logger: quietLogger()})
	if list, err := s.List(ctx); err != nil || len(list) != 1 || list[0].Name != "old" {
		t.Fatalf("before publishing: %v %v", list, err)
	}
	p.publish(publishOptions{})
	if _, err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	list, err := s.List(ctx)
	if err != nil || len(list) != 2 || list[0].Name != "a" {
		t.Fatalf("after publishing: %v %v", list, err)
	}
	before := bfs.Requests()
	if _, err := s.ReadText(ctx, "a", "big.txt"); !errors.Is(err, store.ErrTooLarge) {
		t.Errorf("a file over the limit: %v", err)
	}
	if after := bfs.Requests(); after.Get != before.Get {
		t.Errorf("refusing a file over the limit downloaded it: %+v, then %+v", before, after)
	}
}

// TestCollectGrace: snapshots and content younger than --grace are never
// collected, whatever --keep says: replicas may still be pinned to them.
func TestCollectGrace(t *testing.T) {
	p := newPublisher(t)
	p.publish(publishOptions{keep: 1, grace: time.Hour})
	os.WriteFile(filepath.Join(p.dir, "a", "refs", "x.md"), []byte("y"), 0o644)
	if r := p.publish(publishOptions{keep: 1, grace: time.Hour}); r.collected != 0 || r.kept != 2 {
		t.Errorf("a second publish within the grace: %+v", r)
	}
	if ok, _ := p.b.Exists(context.Background(), snapshot.BlobKey(snapshot.Sum([]byte("x")))); !ok {
		t.Error("content of a snapshot within the grace was collected")
	}
}

// TestPublishedSearch: skills of a published snapshot are searchable by
// their name, description and headings, from the manifest: no document is
// read to index them, so their text is not ranked.
func TestPublishedSearch(t *testing.T) {
	dir := testutil.TempTree(t, map[string][]byte{
		"weather/SKILL.md":  []byte("---\nname: weather\ndescription: Forecasts by location.\n---\n# Radar\n\nUse the radar API.\n"),
		"calendar/SKILL.md": []byte("---\nname: calendar\ndescription: Book meetings.\n---\n# Invites\n"),
	})
	local, err := backends.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	skills, err := publishable(ctx, local, false, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := publish(ctx, local, skills, b, publishOptions{keep: 5}, newProgress(io.Discard, io.Discard, true)); err != nil {
		t.Fatal(err)
	}
	pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := store.New([]store.Source{{Label: "org", FS: pub}}, store.Options{})
	for q, want := range map[string]string{"weather forecast": "weather", "booking a meeting": "calendar", "radar": "weather", "invites": "calendar", "API": ""} {
		got, err := s.Search(ctx, q, 5)
		var names []string
		for _, sk := range got {
			names = append(names, sk.Name)
		}
		if err != nil || strings.Join(names, ",") != want {
			t.Errorf("%q: %v %v; want %q", q, names, err, want)
		}
	}
}

func TestHeadings(t *testing.T) {
	long := "---\nname: x\ndescription: d\n---\n"
	for i := range 200 {
		long += fmt.Sprintf("## Section number %d\n\ntext\n", i)
	}
	for doc, want := range map[string]string{
		"---\nname: x\ndescription: d\n# not a heading: YAML\n---\n# Title\n\n```sh\n# a comment\n```\n## Steps\n": "Title\nSteps\n",
		"no frontmatter\n# Title\n": "",
		"---\nname: x\ndescription: d\n---\n# " + strings.Repeat("w", 2000) + "\n": "",
	} {
		if got := headings(doc); got != want {
			t.Errorf("headings(%.40q) = %q; want %q", doc, got, want)
		}
	}
	if got := headings(long); len(got) > snapshot.MaxHeadingsBytes || !strings.HasSuffix(got, "\n") || !strings.HasPrefix(got, "Section number 0\n") {
		t.Errorf("long: %d bytes, %.40q…", len(got), got)
	}
}

// TestPublishLargeDocument: a SKILL.md over the spool's 4 MiB (kept in a
// temporary file between its read and its upload) is published within a
// raised --max-file-size, its frontmatter and headings taken from its
// bytes, and served back byte for byte from the published folder.
func TestPublishLargeDocument(t *testing.T) {
	var doc strings.Builder
	doc.WriteString("---\nname: big\ndescription: A large document.\n---\n# Big\n\n")
	for i := 0; doc.Len() < 5<<20; i++ {
		fmt.Fprintf(&doc, "Line %d of a long skill document.\n", i)
	}
	doc.WriteString("## The end\n")
	dir := writeFixture(t, map[string][]byte{"big/SKILL.md": []byte(doc.String())})
	out := t.TempDir()
	if _, stderr, code := run(t, nil, "--max-file-size", fmt.Sprint(16<<20), "publish", "--quiet", dir, "file://"+out); code != 0 {
		t.Fatalf("publish: exit %d: %s", code, stderr)
	}
	ctx := context.Background()
	src, err := backends.Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	pub, ok := src.FS.(*snapshot.FS)
	if !ok {
		t.Fatalf("the published folder is served as %T, not a snapshot", src.FS)
	}
	if sk := pub.Current().Skills; len(sk) != 1 || !strings.Contains(sk[0].Frontmatter, "name: big") || sk[0].Headings != "Big\nThe end\n" {
		t.Errorf("manifest: %+v", sk)
	}
	s, err := store.New([]store.Source{src}, store.Options{MaxFileSize: 16 << 20, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.ReadFile(ctx, "big", "SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	if f.Content() != doc.String() {
		t.Errorf("served %d bytes, not the %d published", len(f.Content()), doc.Len())
	}
}
