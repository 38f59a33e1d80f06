package snapshot_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gocloud.dev/blob"

	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/hidden"
)

// richTree is n skills whose files exercise what a manifest records:
// frontmatter and headings, hidden text, a UTF-16 file (served
// decoded), a binary file, and content repeated across skills. Every
// file is modified at treeTime.
func richTree(n int) (fstest.MapFS, []snapshot.SkillFiles) {
	tree := fstest.MapFS{}
	var skills []snapshot.SkillFiles
	for i := range n {
		dir := fmt.Sprintf("s%03d", i)
		files := map[string][]byte{
			"SKILL.md":         fmt.Appendf(nil, "---\nname: %s\ndescription: Skill %d.\n---\n# %s\n\n## Steps\n<!-- note %d -->\n", dir, i, dir, i),
			"refs/shared.md":   []byte("the same in every skill\n"),
			"refs/own.md":      fmt.Appendf(nil, "own text of %s\u200B\n", dir),
			"notes.txt":        utf16Doc(fmt.Sprintf("notes of %s\n", dir), false),
			"assets/logo.png":  fmt.Appendf(nil, "\x89PNG\r\n\x1a\n\x00%d", i%3),
			"scripts/build.sh": fmt.Appendf(nil, "#!/bin/sh\necho %d\n", i),
		}
		sk := snapshot.SkillFiles{Dir: dir, DocPath: "SKILL.md"}
		for rel, data := range files {
			tree[dir+"/"+rel] = &fstest.MapFile{Data: data, Mode: 0o644, ModTime: treeTime}
			sk.Files = append(sk.Files, rel)
		}
		skills = append(skills, sk)
	}
	return tree, skills
}

// current reads the manifest the bucket's pointer names.
func current(t *testing.T, b *blob.Bucket) *snapshot.Manifest {
	t.Helper()
	pub, err := snapshot.Open(context.Background(), blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return pub.Current()
}

// TestPublishTransfers: the manifest, the report and what the observer
// hears, in order, are the same whatever the number of transfers.
func TestPublishTransfers(t *testing.T) {
	tree, skills := richTree(40)
	ctx := context.Background()
	type outcome struct {
		Skills []snapshot.Skill
		Report snapshot.Report
		Events recorder
	}
	run := func(transfers int) outcome {
		b := memBucket(t)
		var events recorder
		r, err := snapshot.Publish(ctx, tree, skills, blobfs.NewPublishBucket(b), snapshot.PublishOptions{Keep: 1, Transfers: transfers, Observer: &events})
		if err != nil {
			t.Fatal(err)
		}
		r.Snapshot = ""
		return outcome{current(t, b).Skills, r, events}
	}
	one := run(1)
	if got := one.Skills[7].Findings; len(got) != 2 || got[0].Kind != hidden.HTMLComment || got[1].Kind != hidden.ZeroWidth {
		t.Fatalf("the fixture lost its findings: %+v", got)
	}
	if one.Report.Unchanged != (len(skills)-1)+(len(skills)-3) || one.Report.Uploaded+one.Report.Unchanged != 6*len(skills) {
		t.Fatalf("the fixture lost its repeated content: %+v", one.Report)
	}
	for _, n := range []int{2, 16} {
		if diff := cmp.Diff(one, run(n)); diff != "" {
			t.Errorf("transfers 1 and %d (-1 +%d):\n%s", n, n, diff)
		}
	}
}

// faultBucket is a bucket that counts its blob writes, can fail or act
// at the nth, and notes writes begun after Publish returned.
type faultBucket struct {
	snapshot.Bucket
	failAt  int              // the blob write that fails (1 for the first); 0 for none
	onWrite func(n int)      // called as blob write n begins
	mu      sync.Mutex       //
	writes  int              // blob writes begun
	keys    []string         // the blobs written
	over    atomic.Bool      // Publish returned
	late    atomic.Int32     // writes begun after that
	seen    map[string]error // each write's result
}

var errInjected = errors.New("injected failure")

func (f *faultBucket) WriteObject(ctx context.Context, key string, r io.Reader, attrs snapshot.ObjectAttrs) error {
	if f.over.Load() {
		f.late.Add(1)
	}
	if !strings.HasPrefix(key, snapshot.Dir+"/blobs/") {
		return f.Bucket.WriteObject(ctx, key, r, attrs)
	}
	f.mu.Lock()
	f.writes++
	n := f.writes
	f.mu.Unlock()
	if n == f.failAt {
		return errInjected
	}
	if f.onWrite != nil {
		f.onWrite(n)
	}
	err := f.Bucket.WriteObject(ctx, key, r, attrs)
	if err == nil {
		f.mu.Lock()
		f.keys = append(f.keys, key)
		f.mu.Unlock()
	}
	return err
}

// TestPublishWriteFails: the first failed upload fails the publish with
// its error and stops the other transfers: the pointer does not move,
// and nothing is written once Publish has returned. With one transfer,
// no upload follows the failed one.
func TestPublishWriteFails(t *testing.T) {
	tree, skills := richTree(60)
	ctx := context.Background()
	for _, transfers := range []int{1, 4} {
		t.Run(fmt.Sprint("transfers=", transfers), func(t *testing.T) {
			b := memBucket(t)
			if _, err := snapshot.Publish(ctx, tree, skills[:1], blobfs.NewPublishBucket(b), snapshot.PublishOptions{Keep: 5}); err != nil {
				t.Fatal(err)
			}
			before, _ := b.ReadAll(ctx, snapshot.PointerKey)
			fb := &faultBucket{Bucket: blobfs.NewPublishBucket(b), failAt: 5}
			err := within(t, time.Minute, func() error {
				_, err := snapshot.Publish(ctx, tree, skills, fb, snapshot.PublishOptions{Keep: 5, Transfers: transfers})
				return err
			})
			fb.over.Store(true)
			if !errors.Is(err, errInjected) || !strings.HasPrefix(err.Error(), "uploading s0") {
				t.Fatalf("Publish: %v; want the injected failure of an upload", err)
			}
			if after, _ := b.ReadAll(ctx, snapshot.PointerKey); string(after) != string(before) {
				t.Errorf("the pointer moved:\n%s\n%s", before, after)
			}
			total := 0
			for _, sk := range skills {
				total += len(sk.Files)
			}
			switch {
			case transfers == 1 && fb.writes != 5:
				t.Errorf("%d uploads begun; want 5 (none after the failed one)", fb.writes)
			case fb.writes >= total/2:
				t.Errorf("%d uploads begun of %d: the failure did not stop the others", fb.writes, total)
			}
			if n := fb.late.Load(); n != 0 {
				t.Errorf("%d writes after Publish returned", n)
			}
		})
	}
}

// within returns fn's error, failing the test if fn does not return
// within d (a publish whose transfers wait on each other forever).
func within(t *testing.T, d time.Duration, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("no return within %v", d)
		return nil
	}
}

// TestPublishInterruptedTransfers: a publish whose context ends half way, its transfers under way, leaves
// the pointer where it was; the next one finishes the job, uploading no
// blob the interrupted one left.
func TestPublishInterruptedTransfers(t *testing.T) {
	tree, skills := richTree(30)
	b := memBucket(t)
	if _, err := snapshot.Publish(context.Background(), tree, skills[:3], blobfs.NewPublishBucket(b), snapshot.PublishOptions{Keep: 5}); err != nil {
		t.Fatal(err)
	}
	before, _ := b.ReadAll(context.Background(), snapshot.PointerKey)
	blobKeys := func() []string {
		var out []string
		for _, k := range keys(t, b) {
			if strings.HasPrefix(k, snapshot.Dir+"/blobs/") {
				out = append(out, k)
			}
		}
		return out
	}
	had := blobKeys()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fb := &faultBucket{Bucket: blobfs.NewPublishBucket(b), onWrite: func(n int) {
		if n == 20 {
			cancel()
		}
	}}
	err := within(t, time.Minute, func() error {
		_, err := snapshot.Publish(ctx, tree, skills, fb, snapshot.PublishOptions{Keep: 5, Transfers: 4})
		return err
	})
	fb.over.Store(true)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted Publish: %v; want context.Canceled", err)
	}
	if after, _ := b.ReadAll(context.Background(), snapshot.PointerKey); string(after) != string(before) {
		t.Errorf("the pointer moved:\n%s\n%s", before, after)
	}
	left := blobKeys()
	if len(left) <= len(had) {
		t.Fatalf("the interrupted publish left %d blobs, as many as before; the test proves nothing", len(left))
	}
	next := &faultBucket{Bucket: blobfs.NewPublishBucket(b)}
	r, err := snapshot.Publish(context.Background(), tree, skills, next, snapshot.PublishOptions{Keep: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range next.keys {
		if slices.Contains(left, k) {
			t.Errorf("%s was uploaded again", k)
		}
	}
	if all := blobKeys(); len(next.keys) != len(all)-len(left) || r.Uploaded != len(next.keys) {
		t.Errorf("the next publish uploaded %d blobs (report: %d); want the %d missing", len(next.keys), r.Uploaded, len(all)-len(left))
	}
	pub, err := snapshot.Open(context.Background(), blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range tree {
		if got, err := fs.ReadFile(pub, name); err != nil || string(got) != string(f.Data) {
			t.Errorf("%s read back as %q, %v", name, got, err)
		}
	}
}

// openCounter is a tree that notes every file opened; Stat opens none.
type openCounter struct {
	fstest.MapFS
	mu     sync.Mutex
	opened []string
}

func (c *openCounter) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opened = append(c.opened, name)
	c.mu.Unlock()
	return c.MapFS.Open(name)
}

func (c *openCounter) Stat(name string) (fs.FileInfo, error) { return c.MapFS.Stat(name) }

// take returns the names opened since the last call, sorted.
func (c *openCounter) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.opened
	c.opened = nil
	slices.Sort(out)
	return out
}

// TestPublishReuse: a republish opens only the files whose size or time
// changed since the previous snapshot, or whose blob the bucket lost,
// and its manifest is the one reading every file would give (frontmatter,
// headings, findings and served digests included); with Checksum, or
// when the previous snapshot cannot be trusted, it reads every file, and
// does not fail.
func TestPublishReuse(t *testing.T) {
	ctx := context.Background()
	const doc, own = "s001/SKILL.md", "s002/refs/own.md"
	for _, tc := range []struct {
		name   string
		change func(tree fstest.MapFS, b *blob.Bucket)
		opts   snapshot.PublishOptions
		opened []string // nil: every file
	}{
		{name: "unchanged", opened: []string{}},
		{name: "a document grown", change: func(tree fstest.MapFS, _ *blob.Bucket) {
			tree[doc].Data = append(slices.Clone(tree[doc].Data), "## More\n<!-- more -->\n"...)
		}, opened: []string{doc}},
		{name: "a file touched", change: func(tree fstest.MapFS, _ *blob.Bucket) {
			tree[own].ModTime = treeTime.Add(time.Second)
		}, opened: []string{own}},
		{name: "a file rewritten, same size, other time", change: func(tree fstest.MapFS, _ *blob.Bucket) {
			tree[own].Data = []byte(strings.Replace(string(tree[own].Data), "own", "OWN", 1))
			tree[own].ModTime = treeTime.Add(-time.Hour)
		}, opened: []string{own}},
		{name: "a blob lost", change: func(tree fstest.MapFS, b *blob.Bucket) {
			b.Delete(ctx, snapshot.BlobKey(snapshot.Sum(tree[own].Data)))
		}, opened: []string{own}},
		{name: "over a lower MaxFileSize", opts: snapshot.PublishOptions{MaxFileSize: 29}, opened: []string{}}, // notes.txt's 30 bytes: no served digest now
		{name: "checksum", opts: snapshot.PublishOptions{Checksum: true}},
		{name: "manifest tampered", change: func(_ fstest.MapFS, b *blob.Bucket) {
			key := snapshot.ManifestKey(current(t, b).ID)
			data, _ := b.ReadAll(ctx, key)
			tampered := strings.ReplaceAll(string(data), "Skill 1.", "Skill X.") // decodes, but not to what was published
			if tampered == string(data) {
				t.Fatal("the manifest does not hold the text the test changes")
			}
			writeObject(t, b, key, []byte(tampered))
		}},
		{name: "manifest truncated", change: func(_ fstest.MapFS, b *blob.Bucket) {
			key := snapshot.ManifestKey(current(t, b).ID)
			data, _ := b.ReadAll(ctx, key)
			writeObject(t, b, key, data[:len(data)/2])
		}},
		{name: "manifest gone", change: func(_ fstest.MapFS, b *blob.Bucket) {
			b.Delete(ctx, snapshot.ManifestKey(current(t, b).ID))
		}},
		{name: "pointer broken", change: func(_ fstest.MapFS, b *blob.Bucket) {
			writeObject(t, b, snapshot.PointerKey, []byte("{"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, skills := richTree(5)
			src := &openCounter{MapFS: tree}
			b := memBucket(t)
			if _, err := snapshot.Publish(ctx, src, skills, blobfs.NewPublishBucket(b), snapshot.PublishOptions{Keep: 5}); err != nil {
				t.Fatal(err)
			}
			all := src.take()
			if tc.change != nil {
				tc.change(tree, b)
			}
			opts := tc.opts
			opts.Keep = 5
			r, err := snapshot.Publish(ctx, src, skills, blobfs.NewPublishBucket(b), opts)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.opened
			if want == nil {
				want = all
			}
			if diff := cmp.Diff(want, src.take(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("files opened (-want +got):\n%s", diff)
			}
			if r.Reused != len(all)-len(want) || r.Files != len(all) {
				t.Errorf("report: %d of %d files reused; want %d", r.Reused, r.Files, len(all)-len(want))
			}
			full := memBucket(t) // what reading every file gives
			opts.Checksum = true
			if _, err := snapshot.Publish(ctx, tree, skills, blobfs.NewPublishBucket(full), opts); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(current(t, full).Skills, current(t, b).Skills); diff != "" {
				t.Errorf("manifest (-read every file +republished):\n%s", diff)
			}
		})
	}
}

// readCounter is a bucket that counts its reads by key.
type readCounter struct {
	snapshot.Bucket
	mu    sync.Mutex
	reads map[string]int
}

func (c *readCounter) ReadObject(ctx context.Context, key string, limit int64) ([]byte, error) {
	c.mu.Lock()
	c.reads[key]++
	c.mu.Unlock()
	return c.Bucket.ReadObject(ctx, key, limit)
}

// TestPublishCollectPrevious: the previous snapshot's manifest is read
// once, as the publish begins, and its content stays while it is kept,
// whatever the grace, and goes with it.
func TestPublishCollectPrevious(t *testing.T) {
	ctx := context.Background()
	tree := fstest.MapFS{"a/SKILL.md": {Data: []byte("---\nname: a\ndescription: A.\n---\n"), ModTime: treeTime}}
	skills := []snapshot.SkillFiles{{Dir: "a", DocPath: "SKILL.md", Files: []string{"SKILL.md", "x.md"}}}
	b := memBucket(t)
	var ids []string
	for i, x := range []string{"one", "two", "six"} {
		tree["a/x.md"] = &fstest.MapFile{Data: []byte(x), ModTime: treeTime.Add(time.Duration(i) * time.Second)}
		rc := &readCounter{Bucket: blobfs.NewPublishBucket(b), reads: map[string]int{}}
		r, err := snapshot.Publish(ctx, tree, skills, rc, snapshot.PublishOptions{Keep: 2})
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && rc.reads[snapshot.ManifestKey(ids[i-1])] != 1 {
			t.Errorf("publish %d read the previous manifest %d times; want 1", i+1, rc.reads[snapshot.ManifestKey(ids[i-1])])
		}
		ids = append(ids, r.Snapshot)
		for j, y := range []string{"one", "two", "six"} {
			want := j == i || j == i-1 // this snapshot's, and the previous one's, kept
			if ok, _ := b.Exists(ctx, snapshot.BlobKey(snapshot.Sum([]byte(y)))); ok != want {
				t.Errorf("after publish %d, the blob of %q exists: %v; want %v", i+1, y, ok, want)
			}
		}
	}
}

// listFails is a bucket whose listings of blobs fail.
type listFails struct{ snapshot.Bucket }

func (l listFails) WalkObjects(ctx context.Context, prefix string, fn func(snapshot.ObjectInfo) error) error {
	if strings.HasPrefix(prefix, snapshot.Dir+"/blobs/") {
		return errInjected
	}
	return l.Bucket.WalkObjects(ctx, prefix, fn)
}

// TestPublishListFails: a listing of the bucket's blobs that fails fails
// the publish before a file is opened, with or without a previous
// snapshot (whose size chooses how the listing goes).
func TestPublishListFails(t *testing.T) {
	ctx := context.Background()
	for _, before := range []int{0, 3} {
		t.Run(fmt.Sprint("skills before=", before), func(t *testing.T) {
			tree, skills := richTree(3)
			b := memBucket(t)
			if before > 0 {
				if _, err := snapshot.Publish(ctx, tree, skills[:before], blobfs.NewPublishBucket(b), snapshot.PublishOptions{Keep: 1}); err != nil {
					t.Fatal(err)
				}
			}
			src := &openCounter{MapFS: tree}
			_, err := snapshot.Publish(ctx, src, skills, listFails{blobfs.NewPublishBucket(b)}, snapshot.PublishOptions{Keep: 1})
			if !errors.Is(err, errInjected) || !strings.HasPrefix(err.Error(), "listing the bucket: ") {
				t.Errorf("Publish: %v; want the listing's failure", err)
			}
			if opened := src.take(); len(opened) != 0 {
				t.Errorf("files opened: %v", opened)
			}
		})
	}
}
