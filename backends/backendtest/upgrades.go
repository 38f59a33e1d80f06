package backendtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/store"
)

// Upgrades says which of the store's optional interfaces a backend
// implements. Run fails a backend that implements one its Harness does
// not claim, or claims one it does not implement, and checks the
// contract of each one claimed. The first four are the source's (what
// Harness.Make returns); the others are those of the filesystem the store
// reads files through: the source's snapshot for a store.SnapshotFS,
// else the source.
type Upgrades struct {
	// SnapshotFS (store.SnapshotFS): a snapshot keeps serving what it
	// held when it was taken after the backend changes, while a snapshot
	// taken after the change (and a Refresh) serves the new content.
	SnapshotFS bool
	// Refresher (store.Refresher): Refresh picks up a change, and keeps
	// what is served when nothing changed.
	Refresher bool
	// Watcher (store.Watcher): a change is reported on the channel, which
	// closes when the context ends.
	Watcher bool
	// RequestCounter (store.RequestCounter): reading a file counts at
	// least one GET, and no count ever goes down.
	RequestCounter bool

	// ContextFS (store.ContextFS): WithContext serves the same files, and
	// a read under a context that has ended fails with its error.
	ContextFS bool
	// ContentFS (store.ContentFS): every file's digests are known, and
	// match its bytes and, for text stored in another encoding, the
	// UTF-8 text served; a name that is not a file has none.
	ContentFS bool
	// RevisionFS (store.RevisionFS): the revision is never empty, stays
	// the same over a Refresh that finds nothing new, and differs once
	// the content changed.
	RevisionFS bool
	// PublishedFS (store.PublishedFS): each skill folder is listed with
	// its document's name, its own frontmatter and its size, and
	// headings that occur in it.
	PublishedFS bool
}

// checkClaims checks that src, and what the store reads its files through,
// implement exactly the upgrades u claims.
func checkClaims(t *testing.T, src fs.FS, u Upgrades) {
	view := src
	if sf, ok := src.(store.SnapshotFS); ok {
		view = snapshotOf(t, sf)
	}
	claims := []struct {
		name         string
		claimed, has bool
	}{
		{"store.SnapshotFS", u.SnapshotFS, implements[store.SnapshotFS](src)},
		{"store.Refresher", u.Refresher, implements[store.Refresher](src)},
		{"store.Watcher", u.Watcher, implements[store.Watcher](src)},
		{"store.RequestCounter", u.RequestCounter, implements[store.RequestCounter](src)},
		{"store.ContextFS", u.ContextFS, implements[store.ContextFS](view)},
		{"store.ContentFS", u.ContentFS, implements[store.ContentFS](view)},
		{"store.RevisionFS", u.RevisionFS, implements[store.RevisionFS](view)},
		{"store.PublishedFS", u.PublishedFS, implements[store.PublishedFS](view)},
	}
	for _, c := range claims {
		if c.claimed != c.has {
			t.Errorf("%s: the Harness claims %v, but the backend (source %T, files read through %T) implements it: %v", c.name, c.claimed, src, view, c.has)
		}
	}
}

// implements reports whether fsys implements I.
func implements[I any](fsys fs.FS) bool {
	_, ok := fsys.(I)
	return ok
}

// runUpgrades checks the contract of each upgrade h claims. view is what
// the store reads the fixture's files through, and files what it holds.
func runUpgrades(t *testing.T, h Harness, view fs.FS, files map[string][]byte) {
	u := h.Upgrades
	name := "Changes"
	if u.Refresher {
		name = "Refresher"
	}
	t.Run(name, func(t *testing.T) { checkChanges(t, h) })
	if u.SnapshotFS {
		t.Run("SnapshotFS", func(t *testing.T) { checkSnapshots(t, h) })
	}
	if u.RevisionFS {
		t.Run("RevisionFS", func(t *testing.T) { checkRevisions(t, h) })
	}
	if u.Watcher {
		t.Run("Watcher", func(t *testing.T) { checkWatch(t, h) })
	}
	if u.ContextFS {
		t.Run("ContextFS", func(t *testing.T) { checkContext(t, h) })
	}
	if u.RequestCounter {
		t.Run("RequestCounter", func(t *testing.T) { checkRequests(t, h) })
	}
	if u.ContentFS {
		t.Run("ContentFS", func(t *testing.T) { checkContent(t, view.(store.ContentFS), files) })
	}
	if u.PublishedFS {
		t.Run("PublishedFS", func(t *testing.T) { checkPublished(t, view.(store.PublishedFS), files) })
	}
}

func doc(name, desc string) []byte {
	return []byte("---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + strings.ToUpper(name[:1]) + name[1:] + "\n")
}

// changeFixture returns what a backend holds before and after the change
// the upgrade checks make: a document edited to a new size, a file
// edited in place to the same size and time, a skill removed and one
// added.
func changeFixture() (before, after map[string][]byte) {
	before = map[string][]byte{
		"alpha/SKILL.md":      doc("alpha", "First."),
		"alpha/docs/guide.md": []byte("# Guide, version 1\n"),
		"beta/SKILL.md":       doc("beta", "Second."),
	}
	after = map[string][]byte{
		"alpha/SKILL.md":      doc("alpha", "First, and edited."),
		"alpha/docs/guide.md": []byte("# Guide, version 2\n"),
		"gamma/SKILL.md":      doc("gamma", "Third."),
	}
	return before, after
}

// snapshotOf returns sf's current snapshot.
func snapshotOf(t *testing.T, sf store.SnapshotFS) fs.FS {
	t.Helper()
	view, err := sf.Snapshot(context.Background())
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	return view
}

// snapshot returns src's current snapshot, src being a store.SnapshotFS.
func snapshot(t *testing.T, src fs.FS) fs.FS {
	t.Helper()
	return snapshotOf(t, src.(store.SnapshotFS))
}

// current returns what the store reads src's files through now: its
// snapshot, or src.
func current(t *testing.T, src fs.FS, u Upgrades) fs.FS {
	t.Helper()
	if u.SnapshotFS {
		return snapshot(t, src)
	}
	return src
}

// refresh calls src's Refresh if it is a Refresher.
func refresh(t *testing.T, src fs.FS, u Upgrades) {
	t.Helper()
	if !u.Refresher {
		return
	}
	if err := src.(store.Refresher).Refresh(context.Background()); err != nil {
		t.Fatalf("Refresh: %v", err)
	}
}

// contents reads every file of fsys.
func contents(fsys fs.FS) (map[string]string, error) {
	out := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		out[p] = string(data)
		return err
	})
	return out, err
}

// checkHolds checks that fsys (described by what) holds exactly files.
func checkHolds(t *testing.T, what string, fsys fs.FS, files map[string][]byte) {
	t.Helper()
	got, err := contents(fsys)
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	want := map[string]string{}
	for name, data := range files {
		want[name] = string(data)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

// needUpdate skips t when b cannot change, naming what goes unchecked.
func needUpdate(t *testing.T, b Backend, unchecked string) {
	t.Helper()
	if b.Update == nil {
		t.Skipf("the backend cannot change (Backend.Update is nil): %s is not checked", unchecked)
	}
}

// checkChanges checks that a change is served: at once, or after a
// Refresh for a Refresher, which must keep what is served when nothing
// changed.
func checkChanges(t *testing.T, h Harness) {
	before, after := changeFixture()
	b := h.Make(t, before)
	checkHolds(t, "before the change", current(t, b.FS, h.Upgrades), before)
	if h.Upgrades.Refresher {
		refresh(t, b.FS, h.Upgrades)
		checkHolds(t, "after a Refresh that finds nothing new", current(t, b.FS, h.Upgrades), before)
	}
	needUpdate(t, b, "serving a change")
	b.Update(after)
	refresh(t, b.FS, h.Upgrades)
	checkHolds(t, "after the change (and a Refresh, for a Refresher)", current(t, b.FS, h.Upgrades), after)
}

// checkSnapshots checks that a snapshot stays what it was when the
// backend changes.
func checkSnapshots(t *testing.T, h Harness) {
	before, after := changeFixture()
	b := h.Make(t, before)
	old := snapshot(t, b.FS)
	checkHolds(t, "a snapshot", old, before)
	checkHolds(t, "a second snapshot, nothing having changed", snapshot(t, b.FS), before)
	needUpdate(t, b, "a snapshot staying the same across a change")
	b.Update(after)
	refresh(t, b.FS, h.Upgrades)
	checkHolds(t, "a snapshot taken after the change", snapshot(t, b.FS), after)
	checkHolds(t, "a snapshot taken before the change, read after it", old, before)
}

// revision returns the revision of fsys, a store.RevisionFS, failing t
// if it is empty.
func revision(t *testing.T, fsys fs.FS) string {
	t.Helper()
	r := fsys.(store.RevisionFS).Revision()
	if r == "" {
		t.Errorf("Revision() is empty (%T)", fsys)
	}
	return r
}

// checkRevisions checks that the revision changes with the content, and
// only then.
func checkRevisions(t *testing.T, h Harness) {
	before, after := changeFixture()
	b := h.Make(t, before)
	old := current(t, b.FS, h.Upgrades)
	first := revision(t, old)
	if h.Upgrades.Refresher {
		refresh(t, b.FS, h.Upgrades)
		if r := revision(t, current(t, b.FS, h.Upgrades)); r != first {
			t.Errorf("a Refresh that found nothing new changed the revision from %q to %q", first, r)
		}
	}
	needUpdate(t, b, "the revision changing with the content")
	b.Update(after)
	refresh(t, b.FS, h.Upgrades)
	if r := revision(t, current(t, b.FS, h.Upgrades)); r == first {
		t.Errorf("the content changed, and the revision stayed %q", r)
	}
	if r := revision(t, old); h.Upgrades.SnapshotFS && r != first {
		t.Errorf("a snapshot taken before the change now has revision %q; it had %q", r, first)
	}
}

// watchWait bounds how long a Watcher may take to report a change or to
// close its channel.
const watchWait = 10 * time.Second

// checkWatch checks that a change is reported and that the channel
// closes when the context ends.
func checkWatch(t *testing.T, h Harness) {
	before, after := changeFixture()
	b := h.Make(t, before)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes, err := b.FS.(store.Watcher).Watch(ctx)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	if b.Update != nil {
		b.Update(after)
		select {
		case <-changes:
		case <-time.After(watchWait):
			t.Errorf("no change reported within %v of the change", watchWait)
		}
	}
	cancel()
	deadline := time.After(watchWait)
	for {
		select {
		case _, open := <-changes:
			if !open {
				needUpdate(t, b, "reporting a change")
				return
			}
		case <-deadline:
			t.Fatalf("the channel is still open %v after its context ended", watchWait)
		}
	}
}

// checkContext checks, on a backend nothing was read from yet, that a
// read under an ended context fails with its error, and that a view
// under a live context serves every file.
func checkContext(t *testing.T, h Harness) {
	before, _ := changeFixture()
	b := h.Make(t, before)
	view := current(t, b.FS, h.Upgrades).(store.ContextFS)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if data, err := fs.ReadFile(view.WithContext(ctx), "alpha/docs/guide.md"); !errors.Is(err, context.Canceled) {
		t.Errorf("a read under a cancelled context = %q, %v; want an error wrapping context.Canceled", data, err)
	}
	checkHolds(t, "WithContext(a live context)", view.WithContext(context.Background()), before)
}

// checkRequests checks that reading a file is counted.
func checkRequests(t *testing.T, h Harness) {
	before, _ := changeFixture()
	b := h.Make(t, before)
	rc := b.FS.(store.RequestCounter)
	view := current(t, b.FS, h.Upgrades)
	list, get := rc.RequestCounts()
	if _, err := fs.ReadFile(view, "alpha/docs/guide.md"); err != nil {
		t.Fatal(err)
	}
	l, g := rc.RequestCounts()
	if g <= get || l < list {
		t.Errorf("reading a file took the counts from %d LIST, %d GET to %d LIST, %d GET; want one GET more at least, and no count lower", list, get, l, g)
	}
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// digests is what a store.ContentFS says of one file.
type digests struct {
	Raw, Served string
	ServedSize  int64
	OK          bool
}

// checkContent checks cf's digests of every file against its bytes.
func checkContent(t *testing.T, cf store.ContentFS, files map[string][]byte) {
	for name, data := range files {
		want := digests{Raw: sum(data), OK: true}
		if text, _, ok := store.DecodeText(data); ok && text != string(data) {
			want.Served, want.ServedSize = sum([]byte(text)), int64(len(text))
		}
		var got digests
		got.Raw, got.Served, got.ServedSize, got.OK = cf.ContentSHA256(name)
		if !got.OK {
			got.ServedSize = want.ServedSize // not a difference of its own when there are no digests
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ContentSHA256(%q) (-want +got):\n%s", name, diff)
		}
	}
	for _, name := range []string{"alpha", "alpha/nope.md", "nope", "."} {
		if _, _, _, ok := cf.ContentSHA256(name); ok {
			t.Errorf("ContentSHA256(%q) gives digests; it is not a file", name)
		}
	}
}

// published is what a store.PublishedFS says of one skill.
type published struct {
	Dir, DocPath, Frontmatter string
	DocSize                   int64
}

// checkPublished checks pf's listing against the skill folders of files.
func checkPublished(t *testing.T, pf store.PublishedFS, files map[string][]byte) {
	var want, got []published
	for name, data := range files {
		dir, rest, _ := strings.Cut(name, "/")
		if rest != store.DocName {
			continue
		}
		header, _, err := store.SplitDocument(string(data))
		if err != nil {
			t.Fatalf("the fixture's %s: %v", name, err)
		}
		want = append(want, published{dir, store.DocName, header, int64(len(data))})
	}
	for _, ps := range pf.Published() {
		p := published{Dir: ps.Dir, DocPath: ps.DocPath, Frontmatter: ps.Frontmatter, DocSize: -1}
		if ps.Doc != nil {
			p.DocSize = ps.Doc.Size()
		}
		got = append(got, p)
		for h := range strings.Lines(ps.Headings) {
			if h = strings.TrimSpace(h); !strings.Contains(string(files[ps.Dir+"/"+ps.DocPath]), h) {
				t.Errorf("skill %s: heading %q is not in its document", ps.Dir, h)
			}
		}
	}
	byDir := func(a, b published) int { return strings.Compare(a.Dir, b.Dir) }
	slices.SortFunc(want, byDir)
	slices.SortFunc(got, byDir)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Published() (-want +got):\n%s", diff)
	}
}
