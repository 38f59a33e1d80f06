package snapshot_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/gcerrors"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/hidden"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

// treeTime is the modification time of every file pubTree writes.
var treeTime = time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)

// pubTree writes files under a new folder, every one modified at
// treeTime, and opens it as backends.LocalFS does for publish.
func pubTree(t *testing.T, files map[string][]byte) (string, *backends.LocalFS) {
	t.Helper()
	dir := testutil.TempTree(t, files)
	for name := range files {
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(name)), treeTime, treeTime); err != nil {
			t.Fatal(err)
		}
	}
	local, err := backends.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	return dir, local
}

func memBucket(t *testing.T) *blob.Bucket {
	b := memblob.OpenBucket(nil)
	t.Cleanup(func() { b.Close() })
	return b
}

// recorder is an Observer that writes down what it is told, one line an
// event.
type recorder []string

func (r *recorder) add(format string, args ...any) { *r = append(*r, fmt.Sprintf(format, args...)) }

func (r *recorder) Start(t snapshot.Totals) {
	r.add("start %d files (%d bytes), %d reused (%d bytes)", t.Files, t.Bytes, t.Reused, t.ReusedBytes)
}
func (r *recorder) File(name string, size int64, how snapshot.FileOutcome) {
	r.add("file %s %d %v", name, size, how)
}
func (r *recorder) OverLimit(name string, size int64) { r.add("over %s %d", name, size) }
func (r *recorder) FilesDone()                        { r.add("done") }
func (r *recorder) RemovingSnapshot(id string)        { r.add("remove %s", id) }
func (r *recorder) DeletingObject(key string)         { r.add("delete %s", key) }

// keys lists the bucket's keys, sorted.
func keys(t *testing.T, b *blob.Bucket) []string {
	t.Helper()
	var out []string
	iter := b.List(nil)
	for {
		o, err := iter.Next(context.Background())
		if errors.Is(err, io.EOF) {
			sort.Strings(out)
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o.Key)
	}
}

// fileOf is the manifest entry publish must write for data.
func fileOf(path string, data []byte) snapshot.File {
	return snapshot.File{Path: path, Size: int64(len(data)), ModTime: treeTime, SHA256: snapshot.Sum(data)}
}

var idPattern = regexp.MustCompile(`^\d{8}T\d{6}\.\d{9}Z-[0-9a-f]{12}$`)

// TestPublishRoundTrip publishes a tree and reads it back with the
// package's reader: the manifest names every file with the digests of its
// bytes, a document's frontmatter and headings, the text a server serves
// when it differs from the bytes; every blob and the pointer are as
// readers (and object stores) expect them; the observer hears of every
// file in order.
func TestPublishRoundTrip(t *testing.T) {
	docA := []byte("---\nname: a\ndescription: A.\n---\n# Title\n\n```sh\n# not a heading\n```\n## Steps\n")
	docB := []byte("---\r\nname: b\r\ndescription: B.\r\n---\r\nNo headings.\r\n")
	utf16 := []byte("\xff\xfeh\x00i\x00") // served as "hi"
	png := []byte("\x89PNG\r\n\x1a\n\x00\x01\x02")
	files := map[string][]byte{
		"a/SKILL.md": docA, "a/refs/x.md": []byte("x"), "a/refs/copy.md": []byte("x"),
		"b/SKILL.md": docB, "b/notes.txt": utf16, "b/logo.png": png, "b/empty.txt": {},
	}
	_, local := pubTree(t, files)
	b := memBucket(t)
	ctx := context.Background()
	var events recorder
	skills := []snapshot.SkillFiles{ // in no order: the manifest's order is the folders'
		{Dir: "b", DocPath: "SKILL.md", Files: []string{"notes.txt", "SKILL.md", "logo.png", "empty.txt"}},
		{Dir: "a", DocPath: "SKILL.md", Files: []string{"refs/x.md", "SKILL.md", "refs/copy.md"}},
	}
	r, err := snapshot.Publish(ctx, local, skills, blobfs.NewPublishBucket(b), snapshot.PublishOptions{Keep: 5, Observer: &events})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := *pub.Current()
	notes := fileOf("notes.txt", utf16)
	notes.Served, notes.ServedSize = snapshot.Sum([]byte("hi")), 2
	want := snapshot.Manifest{Version: snapshot.Version, ID: got.ID, Published: got.Published, Sequence: 1, Scanner: hidden.Version, Skills: []snapshot.Skill{
		{Dir: "a", DocPath: "SKILL.md", Frontmatter: "name: a\ndescription: A.\n", Headings: "Title\nSteps\n",
			Files: []snapshot.File{fileOf("SKILL.md", docA), fileOf("refs/copy.md", []byte("x")), fileOf("refs/x.md", []byte("x"))}},
		{Dir: "b", DocPath: "SKILL.md", Frontmatter: "name: b\r\ndescription: B.\r\n",
			Files: []snapshot.File{fileOf("SKILL.md", docB), fileOf("empty.txt", nil), fileOf("logo.png", png), notes}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("manifest (-want +got):\n%s", diff)
	}
	checkID(t, got)
	wantReport := snapshot.Report{Snapshot: got.ID, Skills: 2, Files: 7, Uploaded: 6, UploadedBytes: int64(len(docA) + 1 + len(docB) + len(utf16) + len(png)), Unchanged: 1, Kept: 1, Sequence: 1}
	if diff := cmp.Diff(wantReport, r); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	for name, data := range files {
		if back, err := fs.ReadFile(pub, name); err != nil || !bytes.Equal(back, data) {
			t.Errorf("%s read back as %q, %v; want %q", name, back, err, data)
		}
	}
	wantEvents := recorder{fmt.Sprintf("start 7 files (%d bytes), 0 reused (0 bytes)", len(docA)+2+len(docB)+len(utf16)+len(png)),
		"file a/refs/x.md 1 uploaded", fmt.Sprintf("file a/SKILL.md %d uploaded", len(docA)), "file a/refs/copy.md 1 stored",
		fmt.Sprintf("file b/notes.txt %d uploaded", len(utf16)), fmt.Sprintf("file b/SKILL.md %d uploaded", len(docB)),
		fmt.Sprintf("file b/logo.png %d uploaded", len(png)), "file b/empty.txt 0 uploaded",
		"done"}
	if diff := cmp.Diff(wantEvents, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	checkObjects(t, b, got, files)
}

// checkID checks that m's ID is its publication time then the start of
// the SHA-256 of its JSON without the ID.
func checkID(t *testing.T, m snapshot.Manifest) {
	t.Helper()
	noID := m
	noID.ID = ""
	body, err := noID.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if want := m.Published.Format("20060102T150405.000000000Z") + "-" + snapshot.Sum(body)[:12]; m.ID != want || !idPattern.MatchString(m.ID) {
		t.Errorf("snapshot ID %q; want %q", m.ID, want)
	}
}

// checkObjects checks the bucket holds the pointer, m's manifest and one
// blob per distinct content of files, nothing else, each with the
// attributes publish gives it.
func checkObjects(t *testing.T, b *blob.Bucket, m snapshot.Manifest, files map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	manifest, _ := b.ReadAll(ctx, snapshot.ManifestKey(m.ID))
	pointer, _ := b.ReadAll(ctx, snapshot.PointerKey)
	var p snapshot.Pointer
	if err := json.Unmarshal(pointer, &p); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(snapshot.Pointer{Version: snapshot.Version, Snapshot: m.ID, SHA256: snapshot.Sum(manifest), Published: m.Published, Sequence: m.Sequence}, p); diff != "" {
		t.Errorf("pointer (-want +got):\n%s", diff)
	}
	type attrs struct{ ContentType, CacheControl, MD5 string }
	want := map[string]attrs{
		snapshot.PointerKey:        {"application/json", "no-cache", fmt.Sprintf("%x", md5.Sum(pointer))},
		snapshot.ManifestKey(m.ID): {"application/octet-stream", "", fmt.Sprintf("%x", md5.Sum(manifest))},
	}
	for _, data := range files {
		want[snapshot.BlobKey(snapshot.Sum(data))] = attrs{"application/octet-stream", "", fmt.Sprintf("%x", md5.Sum(data))}
	}
	got := map[string]attrs{}
	for _, key := range keys(t, b) {
		a, err := b.Attributes(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		got[key] = attrs{a.ContentType, a.CacheControl, hex.EncodeToString(a.MD5)}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
}

// TestPublishIncremental: a publish uploads only content the bucket lacks
// (or holds truncated), reusing the entries of files unchanged since the
// previous snapshot, and a dry run changes nothing. It runs on synctest's
// fake clock.
func TestPublishIncremental(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		files := map[string][]byte{"a/SKILL.md": []byte("---\nname: a\ndescription: A.\n---\n"), "a/x.md": []byte("x"), "a/y.md": []byte("yy")}
		dir, local := pubTree(t, files)
		b := memBucket(t)
		ctx := context.Background()
		skills := []snapshot.SkillFiles{{Dir: "a", DocPath: "SKILL.md", Files: []string{"SKILL.md", "x.md", "y.md"}}}
		run := func(opts snapshot.PublishOptions) snapshot.Report {
			t.Helper()
			opts.Keep = 5
			r, err := snapshot.Publish(ctx, local, skills, blobfs.NewPublishBucket(b), opts)
			if err != nil {
				t.Fatal(err)
			}
			r.Snapshot = ""
			return r
		}
		first := run(snapshot.PublishOptions{})
		blobTimes := func() map[string]time.Time {
			out := map[string]time.Time{}
			for _, k := range keys(t, b) {
				if strings.HasPrefix(k, snapshot.Dir+"/blobs/") {
					a, _ := b.Attributes(ctx, k)
					out[k] = a.ModTime
				}
			}
			return out
		}
		before := blobTimes()
		time.Sleep(time.Millisecond) // fake time: a rewritten blob would have a later time
		again := run(snapshot.PublishOptions{})
		if diff := cmp.Diff(snapshot.Report{Skills: 1, Files: 3, Reused: 3, Kept: 2, Sequence: 2}, again); diff != "" {
			t.Errorf("republishing unchanged files (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(before, blobTimes()); diff != "" {
			t.Errorf("republishing unchanged files rewrote blobs (-before +after):\n%s", diff)
		}
		if first.Uploaded != 3 {
			t.Errorf("first publish uploaded %d files; want 3", first.Uploaded)
		}
		// One edited file, one truncated blob: two uploads, and a dry run
		// counts them and changes nothing.
		os.WriteFile(filepath.Join(dir, "a", "x.md"), []byte("z"), 0o644)
		b.WriteAll(ctx, snapshot.BlobKey(snapshot.Sum([]byte("yy"))), []byte("y"), nil)
		keysBefore := keys(t, b)
		want := snapshot.Report{Skills: 1, Files: 3, Uploaded: 2, UploadedBytes: 3, Reused: 1, Sequence: 3}
		if diff := cmp.Diff(want, run(snapshot.PublishOptions{DryRun: true})); diff != "" {
			t.Errorf("dry run (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(keysBefore, keys(t, b)); diff != "" {
			t.Errorf("a dry run changed the bucket (-before +after):\n%s", diff)
		}
		want.Kept = 3
		if diff := cmp.Diff(want, run(snapshot.PublishOptions{})); diff != "" {
			t.Errorf("after an edit (-want +got):\n%s", diff)
		}
		pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for name, data := range map[string]string{"a/x.md": "z", "a/y.md": "yy"} {
			if got, err := fs.ReadFile(pub, name); err != nil || string(got) != data {
				t.Errorf("%s: %q, %v; want %q", name, got, err, data)
			}
		}
	})
}

// TestPublishCollect: snapshots beyond Keep, content only they use, and
// with DeleteOutside objects outside the snapshot store are removed,
// the observer told of each; nothing younger than Grace is.
func TestPublishCollect(t *testing.T) {
	dir, local := pubTree(t, map[string][]byte{"a/SKILL.md": []byte("---\nname: a\ndescription: A.\n---\n"), "a/x.md": []byte("x")})
	b := memBucket(t)
	ctx := context.Background()
	writeObject(t, b, "old/SKILL.md", []byte("stale")) // the older per-path layout
	skills := []snapshot.SkillFiles{{Dir: "a", DocPath: "SKILL.md", Files: []string{"SKILL.md", "x.md"}}}
	var ids []string
	run := func(opts snapshot.PublishOptions) snapshot.Report {
		t.Helper()
		r, err := snapshot.Publish(ctx, local, skills, blobfs.NewPublishBucket(b), opts)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.Snapshot)
		return r
	}
	blobX := snapshot.BlobKey(snapshot.Sum([]byte("x")))
	run(snapshot.PublishOptions{Keep: 5})
	os.WriteFile(filepath.Join(dir, "a", "x.md"), []byte("y"), 0o644)
	// Content no snapshot uses, as another publish may have just uploaded.
	orphan := snapshot.BlobKey(snapshot.Sum([]byte("orphan")))
	writeObject(t, b, orphan, []byte("orphan"))
	// Within the grace, Keep 1 removes nothing.
	if r := run(snapshot.PublishOptions{Keep: 1, Grace: time.Hour}); r.Kept != 2 || r.Removed != 0 {
		t.Errorf("within the grace: %+v", r)
	}
	for _, key := range []string{blobX, orphan} {
		if ok, err := b.Exists(ctx, key); !ok || err != nil {
			t.Errorf("%s was collected within the grace (%v)", key, err)
		}
	}
	// A manifest that is not JSON is of no use: it is removed, not kept.
	const bad = "20000101T000000.000000000Z-000000000000"
	writeObject(t, b, snapshot.ManifestKey(bad), []byte("{"))
	var events recorder
	r, err := snapshot.Publish(ctx, local, skills, blobfs.NewPublishBucket(b), snapshot.PublishOptions{Keep: 2, DeleteOutside: true, Observer: &events})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recorder{"remove " + ids[0], "remove " + bad, "delete old/SKILL.md"}, events[len(events)-3:]); diff != "" {
		t.Errorf("events of collection (-want +got):\n%s", diff)
	}
	newest := r.Snapshot
	r.Snapshot = ""
	if diff := cmp.Diff(snapshot.Report{Skills: 1, Files: 2, Reused: 2, Kept: 2, Removed: 2, Deleted: 1, Sequence: 3}, r); diff != "" {
		t.Errorf("Keep 2, DeleteOutside (-want +got):\n%s", diff)
	}
	wantKeys := []string{snapshot.PointerKey, snapshot.BlobKey(snapshot.Sum([]byte("---\nname: a\ndescription: A.\n---\n"))), snapshot.BlobKey(snapshot.Sum([]byte("y"))), snapshot.ManifestKey(ids[1]), snapshot.ManifestKey(newest)}
	sort.Strings(wantKeys)
	if diff := cmp.Diff(wantKeys, keys(t, b)); diff != "" {
		t.Errorf("bucket after collection (-want +got):\n%s", diff)
	}
}

// swapFS serves one file's reads from other bytes than its Stat
// describes: a file that changed between the two.
type swapFS struct {
	fstest.MapFS
	name string
	now  []byte
}

func (s swapFS) Open(name string) (fs.File, error) {
	f, err := s.MapFS.Open(name)
	if err != nil || name != s.name {
		return f, err
	}
	return &swapFile{f, bytes.NewReader(s.now)}, nil
}

type swapFile struct {
	fs.File
	r io.Reader
}

func (f *swapFile) Read(p []byte) (int, error) { return f.r.Read(p) }

// TestPublishFileChanging: a file that changes as it is published is
// described by the bytes read, so its digests stay true (one that grew
// past what is kept in memory goes on to a temporary file); a document
// that lost its frontmatter fails the publish.
func TestPublishFileChanging(t *testing.T) {
	doc := []byte("---\nname: a\ndescription: A.\n---\n")
	tree := fstest.MapFS{"a/SKILL.md": {Data: doc, ModTime: treeTime}, "a/log.txt": {Data: []byte("short"), ModTime: treeTime}}
	skills := []snapshot.SkillFiles{{Dir: "a", DocPath: "SKILL.md", Files: []string{"SKILL.md", "log.txt"}}}
	ctx := context.Background()
	grown := bytes.Repeat([]byte("longer "), 700_000) // past the 4 MiB kept in memory
	b := memBucket(t)
	if _, err := snapshot.Publish(ctx, swapFS{tree, "a/log.txt", grown}, skills, blobfs.NewPublishBucket(b), snapshot.PublishOptions{Keep: 1}); err != nil {
		t.Fatal(err)
	}
	pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fileOf("log.txt", grown), pub.Current().Skills[0].Files[1]); diff != "" {
		t.Errorf("a grown file's entry (-want +got):\n%s", diff)
	}
	if got, err := fs.ReadFile(pub, "a/log.txt"); err != nil || !bytes.Equal(got, grown) {
		t.Errorf("a grown file read back: %d bytes, %v", len(got), err)
	}

	b = memBucket(t)
	_, err = snapshot.Publish(ctx, swapFS{tree, "a/SKILL.md", []byte("# no frontmatter now\n")}, skills, blobfs.NewPublishBucket(b), snapshot.PublishOptions{Keep: 1})
	const want = "a/SKILL.md cannot be published: SKILL.md must start with a YAML frontmatter block between '---' lines"
	if err == nil {
		t.Fatal("a document that lost its frontmatter was published")
	}
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("a document that lost its frontmatter (-want +got):\n%s", diff)
	}
	if ok, _ := b.Exists(ctx, snapshot.PointerKey); ok {
		t.Error("a failed publish wrote the pointer")
	}
}

// failFS fails every read of one file, as a disk error would.
type failFS struct {
	fstest.MapFS
	name string
}

func (s failFS) Open(name string) (fs.File, error) {
	f, err := s.MapFS.Open(name)
	if err != nil || name != s.name {
		return f, err
	}
	return &swapFile{f, iotestErr{}}, nil
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, syscall.EIO }

// TestPublishHostile: what Publish refuses, with the exact error, and
// without publishing anything: special files (a FIFO is refused before
// it is opened, so Publish does not hang), unreadable files, links
// leaving the tree, skills a reader would refuse, and documents whose
// frontmatter does not parse.
func TestPublishHostile(t *testing.T) {
	doc := []byte("---\nname: a\ndescription: A.\n---\n")
	dir, local := pubTree(t, map[string][]byte{"a/SKILL.md": doc, "a/x.md": []byte("x"), "a/secret.md": []byte("s"), "a/sub/y.md": []byte("y")})
	outside := testutil.TempTree(t, map[string][]byte{"secret": []byte("outside")})
	if err := syscall.Mkfifo(filepath.Join(dir, "a", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "a", "escape"))
	os.Symlink("pipe", filepath.Join(dir, "a", "to-pipe"))
	os.Chmod(filepath.Join(dir, "a", "secret.md"), 0)
	mapTree := fstest.MapFS{"a/SKILL.md": {Data: doc}, "a/x.md": {Data: []byte("x")}}
	skill := func(dir string, files ...string) []snapshot.SkillFiles {
		return []snapshot.SkillFiles{{Dir: dir, DocPath: "SKILL.md", Files: append([]string{"SKILL.md"}, files...)}}
	}
	const badFolder = "the skills cannot be published: manifest names a bad or repeated skill folder"
	for _, tc := range []struct {
		name   string
		src    fs.FS
		skills []snapshot.SkillFiles
		want   string
	}{
		{"FIFO", local, skill("a", "pipe"), "reading a/pipe: not a regular file: file does not exist"},
		{"FIFO through os.DirFS", os.DirFS(dir), skill("a", "pipe"), "reading a/pipe: not a regular file: file does not exist"},
		{"link to a FIFO", os.DirFS(dir), skill("a", "to-pipe"), "reading a/to-pipe: not a regular file: file does not exist"},
		{"folder", local, skill("a", "sub"), "reading a/sub: not a regular file: file does not exist"},
		{"the skill's own folder", local, skill("a", "."), "the skills cannot be published: manifest names a bad or repeated file path, or a bad digest, in skill a"},
		{"link leaving the tree", local, skill("a", "escape"), "reading a/escape: " + store.ErrPathEscapes.Error()},
		{"missing file", local, skill("a", "gone.md"), "reading a/gone.md: no such file or directory"},
		{"read error", failFS{mapTree, "a/x.md"}, skill("a", "x.md"), "reading a/x.md: input/output error"},
		{"path leaving the skill", local, skill("a", "../a/x.md"), "the skills cannot be published: manifest names a bad or repeated file path, or a bad digest, in skill a"},
		{"repeated file", local, skill("a", "x.md", "x.md"), "the skills cannot be published: manifest names a bad or repeated file path, or a bad digest, in skill a"},
		{"nested skill folder", local, skill("a/b"), badFolder},
		{"hidden skill folder", local, skill(".a"), badFolder},
		{"repeated skill", local, append(skill("a"), skill("a")...), badFolder},
		{"document not among the files", local, []snapshot.SkillFiles{{Dir: "a", DocPath: "SKILL.md", Files: []string{"x.md"}}},
			"the skills cannot be published: skill a: its document SKILL.md is not one of its files"},
		{"document without frontmatter", docTree("# A\n"), skill("a"),
			"a/SKILL.md cannot be published: SKILL.md must start with a YAML frontmatter block between '---' lines"},
		{"frontmatter never closed", docTree("---\nname: a\n# A\n"), skill("a"),
			"a/SKILL.md cannot be published: the YAML frontmatter block has no closing '---' line"},
		{"frontmatter that does not parse", docTree("---\nname: [\n---\n"), skill("a"),
			"a/SKILL.md cannot be published: the YAML frontmatter does not parse: line 1: did not find expected node content"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := memBucket(t)
			err := publishWithin(t, 10*time.Second, tc.src, tc.skills, b)
			if err == nil {
				t.Fatal("published")
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if ok, _ := b.Exists(context.Background(), snapshot.PointerKey); ok {
				t.Error("a failed publish wrote the pointer")
			}
		})
	}
	if os.Geteuid() != 0 { // root reads whatever the mode
		if err := publishWithin(t, 10*time.Second, local, skill("a", "secret.md"), memBucket(t)); err == nil || err.Error() != "reading a/secret.md: permission denied" {
			t.Errorf("an unreadable file: %v", err)
		}
	}
}

// docTree is a tree of one skill, a, whose SKILL.md is doc.
func docTree(doc string) fstest.MapFS {
	return fstest.MapFS{"a/SKILL.md": {Data: []byte(doc)}}
}

// publishWithin publishes, failing the test if Publish does not return
// within d (it would hang on opening a FIFO).
func publishWithin(t *testing.T, d time.Duration, src fs.FS, skills []snapshot.SkillFiles, b *blob.Bucket) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := snapshot.Publish(context.Background(), src, skills, blobfs.NewPublishBucket(b), snapshot.PublishOptions{Keep: 1})
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("Publish did not return within %v", d)
		return nil
	}
}

// missingBucket is the driver of a bucket that does not exist: all it
// does is list, with NotFound (any other call panics).
type missingBucket struct{ driver.Bucket }

func (missingBucket) ListPaged(context.Context, *driver.ListOptions) (*driver.ListPage, error) {
	return nil, errors.New("NoSuchBucket")
}
func (missingBucket) ErrorCode(error) gcerrors.ErrorCode { return gcerrors.NotFound }
func (missingBucket) Close() error                       { return nil }

// TestPublishDestination: Publish refuses a Keep under 1, a bucket that
// does not exist and one whose accessibility check fails, before reading
// a file.
func TestPublishDestination(t *testing.T) {
	ctx := context.Background()
	src := fstest.MapFS{"a/SKILL.md": {Data: []byte("---\nname: a\ndescription: A.\n---\n")}}
	skills := []snapshot.SkillFiles{{Dir: "a", DocPath: "SKILL.md", Files: []string{"SKILL.md"}}}
	if _, err := snapshot.Publish(ctx, src, skills, blobfs.NewPublishBucket(memBucket(t)), snapshot.PublishOptions{}); err == nil || err.Error() != "PublishOptions.Keep must be at least 1: the new snapshot is kept" {
		t.Errorf("Keep 0: %v", err)
	}
	gone := blob.NewBucket(missingBucket{})
	defer gone.Close()
	if _, err := snapshot.Publish(ctx, src, skills, blobfs.NewPublishBucket(gone), snapshot.PublishOptions{Keep: 1}); !errors.Is(err, snapshot.ErrNoBucket) {
		t.Errorf("a missing bucket: %v", err)
	}
	closed := memblob.OpenBucket(nil)
	closed.Close()
	_, err := snapshot.Publish(ctx, src, skills, blobfs.NewPublishBucket(closed), snapshot.PublishOptions{Keep: 1})
	var ue *snapshot.UnreachableError
	if !errors.As(err, &ue) {
		t.Fatalf("a closed bucket: %v; want an *UnreachableError", err)
	}
	// The driver's own words (the command replaces them with blobfs.Reason's).
	const want = "the bucket or container cannot be written: blob: Bucket has been closed (code=FailedPrecondition)"
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("a closed bucket (-want +got):\n%s", diff)
	}
}

// TestPublishLargeFiles: a file over the spool's 4 MiB (kept in a
// temporary file between its read and its upload) is published byte for
// byte; a document's frontmatter and headings come from its bytes even
// over MaxFileSize, which the observer hears of, and a text file within
// it gets the digest of its served text.
func TestPublishLargeFiles(t *testing.T) {
	var doc strings.Builder
	doc.WriteString("---\nname: big\ndescription: A large document.\n---\n# Big\n\n")
	for i := 0; doc.Len() < 5<<20; i++ {
		fmt.Fprintf(&doc, "Line %d of a long skill document.\n", i)
	}
	doc.WriteString("## The end\n")
	latin1 := bytes.Repeat([]byte("caf\xe9\n"), 1<<20) // 5 MiB, served as UTF-8
	_, local := pubTree(t, map[string][]byte{"big/SKILL.md": []byte(doc.String()), "big/latin1.txt": latin1})
	skills := []snapshot.SkillFiles{{Dir: "big", DocPath: "SKILL.md", Files: []string{"SKILL.md", "latin1.txt"}}}
	ctx := context.Background()
	for _, limit := range []int64{16 << 20, 1 << 20} {
		t.Run(fmt.Sprint("limit=", limit), func(t *testing.T) {
			b := memBucket(t)
			var events recorder
			if _, err := snapshot.Publish(ctx, local, skills, blobfs.NewPublishBucket(b), snapshot.PublishOptions{Keep: 1, MaxFileSize: limit, Observer: &events}); err != nil {
				t.Fatal(err)
			}
			pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			latinFile := fileOf("latin1.txt", latin1)
			wantEvents := recorder{fmt.Sprintf("start 2 files (%d bytes), 0 reused (0 bytes)", doc.Len()+len(latin1)),
				fmt.Sprintf("file big/SKILL.md %d uploaded", doc.Len()), fmt.Sprintf("file big/latin1.txt %d uploaded", len(latin1)), "done"}
			if limit < 5<<20 {
				wantEvents = recorder{wantEvents[0], fmt.Sprintf("over big/SKILL.md %d", doc.Len()), wantEvents[1], fmt.Sprintf("over big/latin1.txt %d", len(latin1)), wantEvents[2], wantEvents[3]}
			} else {
				served := bytes.ReplaceAll(latin1, []byte("\xe9"), []byte("é"))
				latinFile.Served, latinFile.ServedSize = snapshot.Sum(served), int64(len(served))
			}
			want := []snapshot.Skill{{Dir: "big", DocPath: "SKILL.md", Frontmatter: "name: big\ndescription: A large document.\n", Headings: "Big\nThe end\n",
				Files: []snapshot.File{fileOf("SKILL.md", []byte(doc.String())), latinFile}}}
			if diff := cmp.Diff(want, pub.Current().Skills); diff != "" {
				t.Errorf("manifest (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantEvents, events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			for name, data := range map[string][]byte{"SKILL.md": []byte(doc.String()), "latin1.txt": latin1} {
				if got, err := b.ReadAll(ctx, snapshot.BlobKey(snapshot.Sum(data))); err != nil || !bytes.Equal(got, data) {
					t.Errorf("%s: blob of %d bytes, %v; want %d", name, len(got), err, len(data))
				}
			}
		})
	}
}

// TestPublishHeadings: a document's headings, as the manifest gives them:
// none in code fences or in the frontmatter, cut at a line to
// MaxHeadingsBytes.
func TestPublishHeadings(t *testing.T) {
	const fm = "---\nname: x\ndescription: d\n---\n"
	var long, wantLong strings.Builder
	long.WriteString(fm)
	for i := range 200 {
		fmt.Fprintf(&long, "## Section number %d\n\ntext\n", i)
		if line := fmt.Sprintf("Section number %d\n", i); wantLong.Len()+len(line) <= snapshot.MaxHeadingsBytes {
			wantLong.WriteString(line)
		}
	}
	for _, tc := range []struct{ name, doc, want string }{
		{"fences and frontmatter", "---\nname: x\ndescription: d\n# not a heading: YAML\n---\n# Title\n\n```sh\n# a comment\n```\n~~~\n# neither\n~~~\n## Steps\n####### seven\n#no space\n", "Title\nSteps\n"},
		{"none", fm + "Just text.\n", ""},
		{"one over the limit", fm + "# " + strings.Repeat("w", 2000) + "\n", ""},
		{"cut at a line", long.String(), wantLong.String()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fstest.MapFS{"x/SKILL.md": {Data: []byte(tc.doc)}}
			b := memBucket(t)
			if _, err := snapshot.Publish(context.Background(), src, []snapshot.SkillFiles{{Dir: "x", DocPath: "SKILL.md", Files: []string{"SKILL.md"}}}, blobfs.NewPublishBucket(b), snapshot.PublishOptions{Keep: 1}); err != nil {
				t.Fatal(err)
			}
			pub, err := snapshot.Open(context.Background(), blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, pub.Current().Skills[0].Headings); diff != "" {
				t.Errorf("headings (-want +got):\n%s", diff)
			}
		})
	}
}

// utf16Doc is doc in UTF-16 with a byte order mark, big-endian or not.
func utf16Doc(doc string, bigEndian bool) []byte {
	out := []byte{0xFF, 0xFE}
	if bigEndian {
		out = []byte{0xFE, 0xFF}
	}
	for _, c := range utf16.Encode([]rune(doc)) {
		if bigEndian {
			out = append(out, byte(c>>8), byte(c))
		} else {
			out = append(out, byte(c), byte(c>>8))
		}
	}
	return out
}

// TestPublishDocumentEncodings: a document is read as a server reads it,
// in UTF-8 (with or without a byte order mark) or UTF-16 with one: its
// frontmatter and headings in the manifest are its text's, and a store
// serving the snapshot serves the document. One in another encoding,
// which no server serves, is refused with what is wrong.
func TestPublishDocumentEncodings(t *testing.T) {
	const doc = "---\nname: a\ndescription: Café.\n---\n# Über\n"
	for _, tc := range []struct {
		name string
		data []byte
		want string // Publish's error; "" for none
	}{
		{"UTF-8", []byte(doc), ""},
		{"UTF-8 with a byte order mark", append([]byte("\xef\xbb\xbf"), doc...), ""},
		{"UTF-16LE", utf16Doc(doc, false), ""},
		{"UTF-16BE", utf16Doc(doc, true), ""},
		{"Windows-1252", []byte(strings.NewReplacer("é", "\xe9", "Ü", "\xdc").Replace(doc)), "a/SKILL.md cannot be published: it is not UTF-8 or UTF-16 text"},
		{"binary", append([]byte(doc), 0, 1, 2), "a/SKILL.md cannot be published: it is not UTF-8 or UTF-16 text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			b := memBucket(t)
			skills := []snapshot.SkillFiles{{Dir: "a", DocPath: "SKILL.md", Files: []string{"SKILL.md"}}}
			_, err := snapshot.Publish(ctx, fstest.MapFS{"a/SKILL.md": {Data: tc.data}}, skills, blobfs.NewPublishBucket(b), snapshot.PublishOptions{Keep: 1})
			if tc.want != "" {
				if err == nil {
					t.Fatal("published")
				}
				if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			sk := pub.Current().Skills[0]
			if diff := cmp.Diff([]string{"name: a\ndescription: Café.\n", "Über\n"}, []string{sk.Frontmatter, sk.Headings}); diff != "" {
				t.Errorf("frontmatter and headings (-want +got):\n%s", diff)
			}
			s, err := store.New([]store.Source{{Label: "published", Location: "mem", FS: pub}}, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			d, err := s.View(nil).Document(ctx, "a", nil)
			if err != nil {
				t.Fatalf("the published document is not served: %v", err)
			}
			if diff := cmp.Diff(doc, d.Text); diff != "" {
				t.Errorf("served document (-want +got):\n%s", diff)
			}
		})
	}
}
