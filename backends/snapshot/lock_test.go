package snapshot_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"

	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
)

// hookBucket is a snapshot.Bucket that calls before ahead of each of its
// requests, with the request's context, its operation ("read", "write",
// "create", "walk", "delete") and its key (a walk's prefix), so a test
// can hold a publish at a given step, or change the bucket under it.
type hookBucket struct {
	snapshot.Bucket
	before func(ctx context.Context, op, key string)
}

func (h hookBucket) ReadObject(ctx context.Context, key string, limit int64) ([]byte, error) {
	h.before(ctx, "read", key)
	return h.Bucket.ReadObject(ctx, key, limit)
}

func (h hookBucket) WriteObject(ctx context.Context, key string, r io.Reader, attrs snapshot.ObjectAttrs) error {
	h.before(ctx, "write", key)
	return h.Bucket.WriteObject(ctx, key, r, attrs)
}

func (h hookBucket) CreateObject(ctx context.Context, key string, r io.Reader, attrs snapshot.ObjectAttrs) error {
	h.before(ctx, "create", key)
	return h.Bucket.CreateObject(ctx, key, r, attrs)
}

func (h hookBucket) WalkObjects(ctx context.Context, prefix string, fn func(snapshot.ObjectInfo) error) error {
	h.before(ctx, "walk", prefix)
	return h.Bucket.WalkObjects(ctx, prefix, fn)
}

func (h hookBucket) DeleteObject(ctx context.Context, key string) error {
	h.before(ctx, "delete", key)
	return h.Bucket.DeleteObject(ctx, key)
}

// hooked is dst with before ahead of each request.
func hooked(dst snapshot.Bucket, before func(ctx context.Context, op, key string)) snapshot.Bucket {
	return hookBucket{dst, before}
}

// lockTree is a source tree of n skills whose content all says tag (so
// trees of other tags share no content), and its skills.
func lockTree(n int, tag string) (fstest.MapFS, []snapshot.SkillFiles) {
	tree := fstest.MapFS{}
	// Each tag's files have their own time: a publish takes a file of the
	// size and time the current snapshot gives as unchanged, unread.
	h := fnv.New32a()
	h.Write([]byte(tag))
	treeTime := treeTime.Add(time.Duration(h.Sum32()%100_000) * time.Second)
	var skills []snapshot.SkillFiles
	for i := range n {
		dir := fmt.Sprintf("s%d", i)
		tree[dir+"/SKILL.md"] = &fstest.MapFile{Data: fmt.Appendf(nil, "---\nname: %s\ndescription: Skill %d of %s.\n---\n", dir, i, tag), ModTime: treeTime}
		tree[dir+"/notes.md"] = &fstest.MapFile{Data: fmt.Appendf(nil, "notes of %s, %s", dir, tag), ModTime: treeTime}
		skills = append(skills, snapshot.SkillFiles{Dir: dir, DocPath: "SKILL.md", Files: []string{"SKILL.md", "notes.md"}})
	}
	return tree, skills
}

// served opens the snapshot b serves and reads every file it lists
// (the reader checks each against its digest), failing the test unless
// the snapshot is whole; it returns the snapshot's ID.
func served(t *testing.T, b *blob.Bucket) string {
	t.Helper()
	ctx := context.Background()
	pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{Logger: quiet()})
	if err != nil {
		t.Fatalf("the snapshot served: %v", err)
	}
	m := pub.Current()
	for _, sk := range m.Skills {
		for _, f := range sk.Files {
			if _, err := fs.ReadFile(pub, sk.Dir+"/"+f.Path); err != nil {
				t.Errorf("snapshot %s names %s/%s, which cannot be read: %v", m.ID, sk.Dir, f.Path, err)
			}
		}
	}
	return m.ID
}

// noLock fails the test if b holds a publish lock or a takeover marker.
func noLock(t *testing.T, b *blob.Bucket) {
	t.Helper()
	for _, key := range keys(t, b) {
		if key == snapshot.LockKey || strings.HasPrefix(key, snapshot.Dir+"/lock-takeover/") {
			t.Errorf("%s is left in the bucket", key)
		}
	}
}

// heldLock reads the lock b holds.
func heldLock(t *testing.T, b *blob.Bucket) snapshot.Lock {
	t.Helper()
	data, err := b.ReadAll(context.Background(), snapshot.LockKey)
	if err != nil {
		t.Fatalf("reading the lock: %v", err)
	}
	var l snapshot.Lock
	if err := json.Unmarshal(data, &l); err != nil {
		t.Fatal(err)
	}
	return l
}

// plantLock writes l as b's lock, as another publish would have.
func plantLock(t *testing.T, b *blob.Bucket, key string, l snapshot.Lock) {
	t.Helper()
	writeObject(t, b, key, lockJSON(l))
}

// lockJSON is l as a lock object.
func lockJSON(l snapshot.Lock) []byte {
	data, err := json.Marshal(l)
	if err != nil {
		panic(err) // a Lock always encodes
	}
	return data
}

// lockedBy is the message of the *LockedError of a live lock l.
func lockedBy(l snapshot.Lock) string {
	return fmt.Sprintf("another publish is writing to this folder: %s, its lock expiring at %s unless renewed; "+
		"wait for it to end and publish again; if it no longer runs (its process was killed), publish with --break-lock", l, l.Until.UTC().Format(time.RFC3339))
}

// outcome is what one of two racing publishes returned, and the
// requests it made that change the bucket.
type outcome struct {
	r      snapshot.Report
	err    error
	writes []string
}

// racer publishes a tree of its own (tag) to b through a hookBucket
// calling hold ahead of each request, and sends its outcome.
func racer(b *blob.Bucket, tag string, opts snapshot.PublishOptions, hold func(ctx context.Context, op, key string), results chan<- outcome) {
	src, skills := lockTree(3, tag)
	var mu sync.Mutex
	var writes []string
	dst := hooked(blobfs.NewPublishBucket(b), func(ctx context.Context, op, key string) {
		if op != "read" && op != "walk" {
			mu.Lock()
			writes = append(writes, op+" "+key)
			mu.Unlock()
		}
		hold(ctx, op, key)
	})
	r, err := snapshot.Publish(context.Background(), src, skills, dst, opts)
	mu.Lock()
	defer mu.Unlock()
	results <- outcome{r, err, writes}
}

// isBlobWrite says whether op on key uploads content.
func isBlobWrite(op, key string) bool {
	return op == "write" && strings.HasPrefix(key, snapshot.Dir+"/blobs/")
}

// TestPublishRace: of two publishes to one bucket at once, exactly one
// succeeds, whole; the other fails at once with a *LockedError naming
// the holder (this host, its ID, since when, until when) and how to
// break a stale lock, having written nothing but its attempt at the
// lock; the bucket serves the winner's snapshot, every file of it
// readable, and holds no lock afterwards. Whether the second starts
// while the first uploads, or both create the lock at the same instant.
func TestPublishRace(t *testing.T) {
	opts := snapshot.PublishOptions{Keep: 1} // collect all it can: no Grace
	check := func(t *testing.T, b *blob.Bucket, results <-chan outcome) {
		t.Helper()
		var won, locked []outcome
		for range 2 {
			o := <-results
			var le *snapshot.LockedError
			switch {
			case o.err == nil:
				won = append(won, o)
			case errors.As(o.err, &le):
				locked = append(locked, o)
				if diff := cmp.Diff(lockedBy(le.Held), o.err.Error()); diff != "" {
					t.Errorf("the loser's error (-want +got):\n%s", diff)
				}
				if !le.Held.OnThisHost() || le.Held.Until.Sub(le.Held.Since) != snapshot.DefaultLockTTL || len(le.Held.ID) != 16 {
					t.Errorf("the lock found: %+v; want one of this host lasting DefaultLockTTL", le.Held)
				}
			default:
				t.Errorf("a racing publish failed with %v; want a *LockedError", o.err)
			}
		}
		if len(won) != 1 || len(locked) != 1 {
			t.Fatalf("%d publishes succeeded and %d found the lock; want one each", len(won), len(locked))
		}
		if diff := cmp.Diff([]string{"create " + snapshot.LockKey}, locked[0].writes); diff != "" {
			t.Errorf("the loser's writes (-want +got):\n%s", diff)
		}
		if id := served(t, b); id != won[0].r.Snapshot {
			t.Errorf("the bucket serves %s; want the winner's %s", id, won[0].r.Snapshot)
		}
		noLock(t, b)
	}

	t.Run("the second starts while the first uploads", func(t *testing.T) {
		b := memBucket(t)
		holding, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		results := make(chan outcome, 2)
		go racer(b, "first", opts, func(ctx context.Context, op, key string) {
			if isBlobWrite(op, key) {
				once.Do(func() { close(holding) })
				await(t, release, "the test to let the holder go")
			}
		}, results)
		await(t, holding, "the holder to upload")
		racer(b, "second", opts, func(context.Context, string, string) {}, results)
		close(release)
		check(t, b, results)
	})

	t.Run("both create the lock at once", func(t *testing.T) {
		b := memBucket(t)
		arrived := newBarrier(t, 2)
		firstDone := make(chan struct{})
		results := make(chan outcome, 2)
		inner := make(chan outcome, 2)
		for _, tag := range []string{"one", "two"} {
			var created, listed bool
			go racer(b, tag, opts, func(ctx context.Context, op, key string) {
				switch {
				case op == "create" && key == snapshot.LockKey && !created:
					created = true
					arrived.arrive() // both create it at once
				case op == "walk" && !listed:
					listed = true
					await(t, firstDone, "the loser to return") // the winner goes on once it has
				}
			}, inner)
		}
		first := <-inner
		close(firstDone)
		results <- first
		results <- <-inner
		check(t, b, results)
	})
}

// await waits for ch to close, failing the test if it has not within
// 30 s (a publish that should have waited, or gone on, did not); safe
// from any goroutine.
func await(t *testing.T, ch <-chan struct{}, what string) {
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Errorf("waited 30 s for %s", what)
	}
}

// barrier lets n goroutines through together: each calls arrive, which
// returns once all n have (or, failing the test, after 30 s).
type barrier struct {
	mu   sync.Mutex
	n    int
	all  chan struct{}
	test *testing.T
}

func newBarrier(t *testing.T, n int) *barrier {
	return &barrier{n: n, all: make(chan struct{}), test: t}
}

func (b *barrier) arrive() {
	b.mu.Lock()
	if b.n--; b.n == 0 {
		close(b.all)
	}
	b.mu.Unlock()
	await(b.test, b.all, "both publishes to arrive together")
}

// TestPublishInterrupted: a publish whose context ends half way through
// its uploads fails saying it was interrupted and that the folder still
// serves its previous snapshot, which it does, whole; it leaves no lock;
// the next publish of the same tree succeeds uploading only the content
// the interrupted one did not.
func TestPublishInterrupted(t *testing.T) {
	b := memBucket(t)
	dst := blobfs.NewPublishBucket(b)
	src, skills := lockTree(3, "before")
	if _, err := snapshot.Publish(context.Background(), src, skills, dst, snapshot.PublishOptions{Keep: 5}); err != nil {
		t.Fatal(err)
	}
	before, err := b.ReadAll(context.Background(), snapshot.PointerKey)
	if err != nil {
		t.Fatal(err)
	}
	previous := served(t, b)
	blobsBefore := len(keys(t, b))

	src, skills = lockTree(3, "after") // six new contents
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var uploads atomic.Int32
	_, err = snapshot.Publish(ctx, src, skills, hooked(dst, func(_ context.Context, op, key string) {
		if isBlobWrite(op, key) && uploads.Add(1) == 4 { // three uploaded, the fourth under way
			cancel()
		}
	}), snapshot.PublishOptions{Keep: 5, Transfers: 1})
	const prefix, suffix = "the publish was interrupted (uploading ", ": context canceled); it stopped before moving the pointer: " +
		"the folder still serves the snapshot it served before, and the next publish uploads only the content still missing"
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("an interrupted publish: %v; want context.Canceled", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, prefix) || !strings.HasSuffix(msg, suffix) {
		t.Errorf("an interrupted publish's error:\n%s\nwant %q, the file, then %q", msg, prefix, suffix)
	}
	if after, _ := b.ReadAll(context.Background(), snapshot.PointerKey); string(after) != string(before) {
		t.Errorf("an interrupted publish moved the pointer:\n%s\nwas\n%s", after, before)
	}
	if id := served(t, b); id != previous {
		t.Errorf("the bucket serves %s; want the previous %s", id, previous)
	}
	noLock(t, b)

	stored := len(keys(t, b)) - blobsBefore // what the interrupted publish uploaded
	if stored < 1 || stored > 3 {
		t.Errorf("the interrupted publish left %d new blobs; want 1 to 3: it stopped at its fourth upload", stored)
	}
	r, err := snapshot.Publish(context.Background(), src, skills, dst, snapshot.PublishOptions{Keep: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r.Uploaded != 6-stored || r.Unchanged != stored {
		t.Errorf("the next publish uploaded %d files and found %d stored; want %d and %d", r.Uploaded, r.Unchanged, 6-stored, stored)
	}
	if id := served(t, b); id != r.Snapshot {
		t.Errorf("the bucket serves %s; want the new %s", id, r.Snapshot)
	}
	noLock(t, b)
}

// lockRecorder is a recorder that is also told of locks taken over.
type lockRecorder struct{ recorder }

func (r *lockRecorder) LockTakenOver(held snapshot.Lock, expired bool) {
	r.add("took over %q expired=%v", held.ID, expired)
}

// TestPublishLockFound: what a publish does with the lock another left:
// it takes over an expired one (a crashed publish's), telling the
// observer; it fails at once, changing nothing, on a live one, an
// unreadable one, or an expired one another publish is taking over, each
// with a message saying who holds it, since and until when, and that
// --break-lock breaks it; BreakLock takes each. The bucket holds no lock
// after a publish that succeeded.
func TestPublishLockFound(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	const id = "00000000000000aa"
	other := snapshot.Lock{Version: 1, ID: id, Host: "0123456789ab", Since: now.Add(-10 * time.Minute)}
	live, expired := other, other
	live.Until, expired.Until = now.Add(time.Hour), now.Add(-5*time.Minute)
	marker := snapshot.Dir + "/lock-takeover/" + id
	since := other.Since.Format(time.RFC3339)
	for _, tc := range []struct {
		name      string
		objects   map[string][]byte
		breakLock bool
		want      string // the error; "" for success
		events    []string
	}{
		{name: "expired", objects: map[string][]byte{snapshot.LockKey: lockJSON(expired)},
			events: []string{`took over "` + id + `" expired=true`}},
		{name: "live", objects: map[string][]byte{snapshot.LockKey: lockJSON(live)},
			want: "another publish is writing to this folder: publish " + id + " on another host (0123456789ab), since " + since + ", its lock expiring at " +
				live.Until.Format(time.RFC3339) + " unless renewed; wait for it to end and publish again; if it no longer runs (its process was killed), publish with --break-lock"},
		{name: "live, broken", objects: map[string][]byte{snapshot.LockKey: lockJSON(live)}, breakLock: true,
			events: []string{`took over "` + id + `" expired=false`}},
		{name: "unreadable", objects: map[string][]byte{snapshot.LockKey: []byte(`{"version":7}`)},
			want: "the folder holds a publish lock (.skillstore/lock.json) this version of skillstore cannot read: another publish may be under way; " +
				"wait for it to end and publish again; if none runs, publish with --break-lock"},
		{name: "unreadable, broken", objects: map[string][]byte{snapshot.LockKey: []byte("not JSON")}, breakLock: true,
			events: []string{`took over "" expired=false`}},
		{name: "expired, being taken over", objects: map[string][]byte{snapshot.LockKey: lockJSON(expired), marker: lockJSON(live)},
			want: "the folder's publish lock, held by publish " + id + " on another host (0123456789ab), since " + since + ", expired at " +
				expired.Until.Format(time.RFC3339) + " and another publish is taking it over: publish again once that one ends; if none runs, publish with --break-lock"},
		{name: "expired, its taker crashed, broken", objects: map[string][]byte{snapshot.LockKey: lockJSON(expired), marker: lockJSON(live)}, breakLock: true,
			events: []string{`took over "` + id + `" expired=true`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := memBucket(t)
			for key, data := range tc.objects {
				writeObject(t, b, key, data)
			}
			before := keys(t, b)
			src, skills := lockTree(2, "mine")
			var events lockRecorder
			r, err := snapshot.Publish(context.Background(), src, skills, blobfs.NewPublishBucket(b),
				snapshot.PublishOptions{Keep: 1, BreakLock: tc.breakLock, Observer: &events})
			if tc.want != "" {
				var le *snapshot.LockedError
				if !errors.As(err, &le) {
					t.Fatalf("Publish: %v; want a *LockedError", err)
				}
				if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(before, keys(t, b)); diff != "" {
					t.Errorf("a publish that found the lock changed the bucket (-before +after):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if id := served(t, b); id != r.Snapshot {
				t.Errorf("the bucket serves %s; want %s", id, r.Snapshot)
			}
			var got []string
			for _, e := range events.recorder {
				if strings.HasPrefix(e, "took over") {
					got = append(got, e)
				}
			}
			if diff := cmp.Diff(tc.events, got); diff != "" {
				t.Errorf("the observer was told (-want +got):\n%s", diff)
			}
			noLock(t, b)
		})
	}
}

// TestPublishTwoTakers: two publishes that find the same expired lock at
// once both try to take it over: exactly one succeeds, whole, and the
// other fails with a *LockedError.
func TestPublishTwoTakers(t *testing.T) {
	b := memBucket(t)
	now := time.Now().UTC()
	crashed := snapshot.Lock{Version: 1, ID: "00000000000000cc", Host: "0123456789ab", Since: now.Add(-time.Hour), Until: now.Add(-time.Minute)}
	plantLock(t, b, snapshot.LockKey, crashed)
	marker := snapshot.Dir + "/lock-takeover/" + crashed.ID
	arrived := newBarrier(t, 2)
	firstDone := make(chan struct{})
	inner := make(chan outcome, 2)
	for _, tag := range []string{"one", "two"} {
		var marked, listed bool
		go racer(b, tag, snapshot.PublishOptions{Keep: 1}, func(ctx context.Context, op, key string) {
			switch {
			case op == "create" && key == marker && !marked:
				marked = true
				arrived.arrive() // both take it over at once
			case op == "walk" && !listed:
				listed = true
				await(t, firstDone, "the loser to return") // the winner goes on once it has
			}
		}, inner)
	}
	first := <-inner
	close(firstDone)
	second := <-inner
	var won []outcome
	for _, o := range []outcome{first, second} {
		var le *snapshot.LockedError
		switch {
		case o.err == nil:
			won = append(won, o)
		case !errors.As(o.err, &le):
			t.Errorf("a taker failed with %v; want a *LockedError", o.err)
		}
	}
	if len(won) != 1 {
		t.Fatalf("%d takers succeeded (%v, %v); want one", len(won), first.err, second.err)
	}
	if id := served(t, b); id != won[0].r.Snapshot {
		t.Errorf("the bucket serves %s; want the winner's %s", id, won[0].r.Snapshot)
	}
	noLock(t, b)
}

// TestPublishLockLost: a publish that loses its lock while it works
// stops before it moves the pointer, or, when it loses it after, removes
// nothing, and says so; it never removes the lock it lost.
func TestPublishLockLost(t *testing.T) {
	const stopped = "; it stopped before moving the pointer: the folder still serves the snapshot it served before, and the next publish uploads only the content still missing"

	t.Run("broken by another publish", func(t *testing.T) {
		// The holder is held at its first upload while another breaks
		// its lock and publishes; then the holder goes on.
		b := memBucket(t)
		holding, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		results := make(chan outcome, 1)
		go racer(b, "holder", snapshot.PublishOptions{Keep: 1}, func(ctx context.Context, op, key string) {
			if isBlobWrite(op, key) {
				once.Do(func() { close(holding) })
				await(t, release, "the test to let the holder go")
			}
		}, results)
		await(t, holding, "the holder to upload")
		var events lockRecorder
		src, skills := lockTree(2, "breaker")
		r, err := snapshot.Publish(context.Background(), src, skills, blobfs.NewPublishBucket(b), snapshot.PublishOptions{Keep: 1, BreakLock: true, Observer: &events})
		if err != nil {
			t.Fatal(err)
		}
		close(release)
		o := <-results
		want := "this publish lost the folder's publish lock: it was removed (by publish --break-lock?)" + stopped
		if !errors.Is(o.err, snapshot.ErrLockLost) {
			t.Fatalf("the holder whose lock was broken: %v; want ErrLockLost", o.err)
		}
		if diff := cmp.Diff(want, o.err.Error()); diff != "" {
			t.Errorf("the holder's error (-want +got):\n%s", diff)
		}
		if id := served(t, b); id != r.Snapshot {
			t.Errorf("the bucket serves %s; want the breaker's %s", id, r.Snapshot)
		}
		noLock(t, b)
	})

	t.Run("renewal finds another holder", func(t *testing.T) {
		// The holder renews its lock while it is held at its first
		// upload; once it has, the lock is replaced by another
		// publish's, which its next renewal finds: that ends the
		// upload under way, and the publish, without its being let go.
		b := memBucket(t)
		now := time.Now().UTC().Truncate(time.Second)
		taker := snapshot.Lock{Version: 1, ID: "00000000000000dd", Host: "0123456789ab", Since: now, Until: now.Add(time.Hour)}
		var renewed, held atomic.Bool // the renewal and the transfers run at once
		results := make(chan outcome, 1)
		go racer(b, "holder", snapshot.PublishOptions{Keep: 1, LockTTL: 2 * time.Second}, func(ctx context.Context, op, key string) {
			switch {
			case op == "write" && key == snapshot.LockKey:
				renewed.Store(true)
			case op == "read" && key == snapshot.LockKey && renewed.CompareAndSwap(true, false):
				// The next renewal: it reads what is there now.
				if err := b.WriteAll(context.Background(), snapshot.LockKey, lockJSON(taker), nil); err != nil {
					t.Error(err)
				}
			case isBlobWrite(op, key) && held.CompareAndSwap(false, true): // at its first upload only
				await(t, ctx.Done(), "the renewal to find the other holder")
			}
		}, results)
		o := <-results
		want := "this publish lost the folder's publish lock: " + taker.String() + " holds it now (it broke it with --break-lock, or took it over after this publish's lock expired)" + stopped
		if !errors.Is(o.err, snapshot.ErrLockLost) {
			t.Fatalf("the holder whose lock was taken: %v; want ErrLockLost", o.err)
		}
		if diff := cmp.Diff(want, o.err.Error()); diff != "" {
			t.Errorf("the holder's error (-want +got):\n%s", diff)
		}
		if ok, _ := b.Exists(context.Background(), snapshot.PointerKey); ok {
			t.Error("the holder wrote the pointer")
		}
		if diff := cmp.Diff(taker, heldLock(t, b)); diff != "" {
			t.Errorf("the holder touched the other publish's lock (-want +got):\n%s", diff)
		}
	})

	t.Run("lost after the pointer moved", func(t *testing.T) {
		// The lock is taken from the publish between its pointer and
		// its collection: the snapshot is published, nothing removed.
		b := memBucket(t)
		dst := blobfs.NewPublishBucket(b)
		src, skills := lockTree(2, "old")
		old, err := snapshot.Publish(context.Background(), src, skills, dst, snapshot.PublishOptions{Keep: 1})
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC().Truncate(time.Second)
		taker := snapshot.Lock{Version: 1, ID: "00000000000000ee", Host: "0123456789ab", Since: now, Until: now.Add(time.Hour)}
		moved := false
		src, skills = lockTree(2, "new")
		r, err := snapshot.Publish(context.Background(), src, skills, hooked(dst, func(_ context.Context, op, key string) {
			switch {
			case op == "write" && key == snapshot.PointerKey:
				moved = true
			case moved && op == "walk":
				moved = false
				if err := b.WriteAll(context.Background(), snapshot.LockKey, lockJSON(taker), nil); err != nil {
					t.Error(err)
				}
			}
		}), snapshot.PublishOptions{Keep: 1})
		want := "snapshot " + r.Snapshot + " is published, but nothing was removed: this publish lost the folder's publish lock: " + taker.String() +
			" holds it now (it broke it with --break-lock, or took it over after this publish's lock expired)"
		if !errors.Is(err, snapshot.ErrLockLost) {
			t.Fatalf("a publish that lost its lock before collecting: %v; want ErrLockLost", err)
		}
		if diff := cmp.Diff(want, err.Error()); diff != "" {
			t.Errorf("error (-want +got):\n%s", diff)
		}
		if id := served(t, b); id != r.Snapshot {
			t.Errorf("the bucket serves %s; want %s", id, r.Snapshot)
		}
		if ok, _ := b.Exists(context.Background(), snapshot.ManifestKey(old.Snapshot)); !ok {
			t.Error("the publish removed the older snapshot without its lock")
		}
		if diff := cmp.Diff(taker, heldLock(t, b)); diff != "" {
			t.Errorf("the publish touched the other publish's lock (-want +got):\n%s", diff)
		}
	})
}

// TestCollectUnknownManifest: a kept snapshot whose manifest this
// version cannot read (a newer format's, here one published after this
// publish's) stops collection from removing any content, since that
// snapshot may use any of it; snapshots are still removed as Keep says.
func TestCollectUnknownManifest(t *testing.T) {
	b := memBucket(t)
	dst := blobfs.NewPublishBucket(b)
	src, skills := lockTree(2, "old")
	first, err := snapshot.Publish(context.Background(), src, skills, dst, snapshot.PublishOptions{Keep: 5})
	if err != nil {
		t.Fatal(err)
	}
	old := first.Snapshot
	oldBlobs := map[string]bool{}
	for _, key := range keys(t, b) {
		if strings.HasPrefix(key, snapshot.Dir+"/blobs/") {
			oldBlobs[key] = true
		}
	}
	newer := "29990101T000000.000000000Z-000000000000"
	writeObject(t, b, snapshot.ManifestKey(newer), []byte(`{"version":99,"id":"`+newer+`","parts":["catalog"]}`))
	src, skills = lockTree(2, "new")
	if _, err := snapshot.Publish(context.Background(), src, skills, dst, snapshot.PublishOptions{Keep: 1}); err != nil {
		t.Fatal(err)
	}
	for key := range oldBlobs {
		if ok, _ := b.Exists(context.Background(), key); !ok {
			t.Errorf("%s was removed while a snapshot of a newer format is kept", key)
		}
	}
	if ok, _ := b.Exists(context.Background(), snapshot.ManifestKey(old)); ok {
		t.Error("the snapshot beyond Keep was not removed")
	}
	// Without it, the same publish removes the old content.
	if err := b.Delete(context.Background(), snapshot.ManifestKey(newer)); err != nil {
		t.Fatal(err)
	}
	if _, err := snapshot.Publish(context.Background(), src, skills, dst, snapshot.PublishOptions{Keep: 1}); err != nil {
		t.Fatal(err)
	}
	for key := range oldBlobs {
		if ok, _ := b.Exists(context.Background(), key); ok {
			t.Errorf("%s, used by no kept snapshot, was not removed", key)
		}
	}
}
