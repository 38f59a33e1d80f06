package snapshot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"

	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/internal/sshsig/sshsigtest"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

// signedWorld is a folder published with signed snapshots and the keys
// around it.
type signedWorld struct {
	*treePublisher
	key, other sshsigtest.Key
	trust      *sshsig.AllowedSigners
}

func newSignedWorld(t *testing.T) *signedWorld {
	w := &signedWorld{treePublisher: newTreePublisher(t), key: sshsigtest.NewKey(t, "ed25519", 0), other: sshsigtest.NewKey(t, "ecdsa", 256)}
	var err error
	w.trust, err = sshsig.ParseAllowedSigners([]byte("publisher@example.com " + w.key.Line + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// open opens a reader with w's signer policy, logging to logger (nil: nowhere).
func (w *signedWorld) open(logger *slog.Logger) *snapshot.FS {
	w.t.Helper()
	if logger == nil {
		logger = silentLogger()
	}
	pub, err := snapshot.Open(context.Background(), blobfs.NewBucketFS(w.b, blobfs.BucketOptions{}),
		snapshot.Options{Location: "mem://skills", Logger: logger, Trust: func() *sshsig.AllowedSigners { return w.trust }})
	if err != nil {
		w.t.Fatal(err)
	}
	return pub
}

// openReloadable opens a reader whose trust list a test may swap (it
// starts as w's), logging to logger (nil: nowhere); it returns the
// reader, the bucket it reads (for request counts) and the list.
func (w *signedWorld) openReloadable(logger *slog.Logger) (*snapshot.FS, *blobfs.BucketFS, *atomic.Pointer[sshsig.AllowedSigners]) {
	w.t.Helper()
	if logger == nil {
		logger = silentLogger()
	}
	trust := new(atomic.Pointer[sshsig.AllowedSigners])
	trust.Store(w.trust)
	bfs := blobfs.NewBucketFS(w.b, blobfs.BucketOptions{})
	pub, err := snapshot.Open(context.Background(), bfs, snapshot.Options{Logger: logger, Trust: trust.Load})
	if err != nil {
		w.t.Fatal(err)
	}
	return pub, bfs, trust
}

// publishTwice publishes w's tree signed by its key, then again with
// skill a changed, and returns the two pointers.
func (w *signedWorld) publishTwice() (first, second snapshot.Pointer) {
	w.t.Helper()
	w.publish(snapshot.PublishOptions{Signer: w.key.Signer})
	first, _ = w.current()
	w.write("a/SKILL.md", "---\nname: a\ndescription: A, second.\n---\n")
	w.publish(snapshot.PublishOptions{Signer: w.key.Signer})
	second, _ = w.current()
	return first, second
}

// current returns the pointer and the exact bytes of the manifest it names.
func (w *signedWorld) current() (snapshot.Pointer, []byte) {
	w.t.Helper()
	var p snapshot.Pointer
	readJSON(w.t, w.b, snapshot.PointerKey, &p)
	mb, err := w.b.ReadAll(context.Background(), snapshot.ManifestKey(p.Snapshot))
	if err != nil {
		w.t.Fatal(err)
	}
	return p, mb
}

// rewriteManifest replaces the current manifest's bytes with edit's
// result and makes the pointer vouch for them (as someone with write
// access to the bucket would), leaving the signature alone.
func (w *signedWorld) rewriteManifest(edit func([]byte) []byte) {
	w.t.Helper()
	p, mb := w.current()
	mb = edit(mb)
	writeObject(w.t, w.b, snapshot.ManifestKey(p.Snapshot), mb)
	p.SHA256 = snapshot.Sum(mb)
	pb, _ := json.Marshal(p)
	writeObject(w.t, w.b, snapshot.PointerKey, pb)
}

// TestSignedSnapshots: what a replica with trusted signers serves, warm
// (it keeps its last good snapshot) and cold (it serves nothing), for each
// way a newly published snapshot can fail verification.
func TestSignedSnapshots(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		reason string // "" for a snapshot that must be served
		// next publishes the snapshot under test over a good signed one.
		next func(w *signedWorld)
	}{
		{"signed by the trusted key", "", func(w *signedWorld) {
			w.publish(snapshot.PublishOptions{Signer: w.key.Signer})
		}},
		{"signed by ssh-keygen -Y sign", "", func(w *signedWorld) {
			w.publish(snapshot.PublishOptions{})
			p, mb := w.current()
			writeObject(w.t, w.b, snapshot.SignatureKey(p.Snapshot), w.key.Sign(w.t, snapshot.SignatureNamespace, mb))
		}},
		{"unsigned", "unsigned", func(w *signedWorld) { w.publish(snapshot.PublishOptions{}) }},
		{"unknown signer", "unknown-signer", func(w *signedWorld) {
			w.publish(snapshot.PublishOptions{Signer: w.other.Signer})
		}},
		{"tampered manifest", "bad-signature", func(w *signedWorld) {
			w.publish(snapshot.PublishOptions{Signer: w.key.Signer})
			w.rewriteManifest(func(mb []byte) []byte {
				return bytes.Replace(mb, []byte("description: A"), []byte("description: Z"), 1)
			})
		}},
		{"signature of another manifest", "bad-signature", func(w *signedWorld) {
			w.publish(snapshot.PublishOptions{Signer: w.key.Signer})
			p, _ := w.current()
			writeObject(w.t, w.b, snapshot.SignatureKey(p.Snapshot), w.key.Sign(w.t, snapshot.SignatureNamespace, []byte(`{"other":"manifest"}`)))
		}},
		{"wrong namespace", "malformed", func(w *signedWorld) {
			w.publish(snapshot.PublishOptions{})
			p, mb := w.current()
			writeObject(w.t, w.b, snapshot.SignatureKey(p.Snapshot), w.key.Sign(w.t, "git", mb))
		}},
		{"empty signature", "malformed", func(w *signedWorld) {
			w.publish(snapshot.PublishOptions{})
			p, _ := w.current()
			writeObject(w.t, w.b, snapshot.SignatureKey(p.Snapshot), nil)
		}},
		{"huge signature", "malformed", func(w *signedWorld) {
			w.publish(snapshot.PublishOptions{})
			p, _ := w.current()
			writeObject(w.t, w.b, snapshot.SignatureKey(p.Snapshot), bytes.Repeat([]byte("A"), sshsig.MaxSignatureBytes+1))
		}},
		{"PGP signature", "malformed", func(w *signedWorld) {
			w.publish(snapshot.PublishOptions{})
			p, _ := w.current()
			writeObject(w.t, w.b, snapshot.SignatureKey(p.Snapshot), []byte("-----BEGIN PGP SIGNATURE-----\n\niQEzBAABCAAdFiEE\n-----END PGP SIGNATURE-----\n"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newSignedWorld(t)
			w.publish(snapshot.PublishOptions{Signer: w.key.Signer})
			first, _ := w.current()
			logger, log := testutil.TextLog()
			warm := w.open(logger)
			w.write("a/SKILL.md", "---\nname: a\ndescription: A, second.\n---\n")
			tc.next(w)
			next, _ := w.current()

			err := warm.Refresh(ctx)
			err2 := warm.Refresh(ctx) // the same pointer: refused again, logged once
			cold := w.open(nil)
			_, coldErr := cold.Snapshot(ctx)
			// A reader opened without a policy and given one after
			// (backends.RequireSigners) ends where a cold one does.
			late, openErr := snapshot.Open(ctx, blobfs.NewBucketFS(w.b, blobfs.BucketOptions{}), snapshot.Options{Logger: silentLogger()})
			if openErr != nil {
				t.Fatal(openErr)
			}
			if err := late.RequireSigners(ctx, func() *sshsig.AllowedSigners { return w.trust }); err != nil {
				t.Fatalf("RequireSigners: %v", err)
			}
			_, lateErr := late.Snapshot(ctx)
			if tc.reason == "" {
				if err != nil || coldErr != nil || lateErr != nil {
					t.Fatalf("refresh: %v; cold: %v; late: %v", err, coldErr, lateErr)
				}
				for _, pub := range []*snapshot.FS{warm, cold, late} {
					if pub.Current().ID != next.Snapshot {
						t.Errorf("serving %s, want %s", pub.Current().ID, next.Snapshot)
					}
					view, _ := pub.Snapshot(ctx)
					s, ok := view.(store.SignedFS).Signer()
					want := store.Signer{Kind: "ssh", Fingerprint: sshsig.Fingerprint(w.key.Pub), Principal: "publisher@example.com"}
					if diff := cmp.Diff(want, s); !ok || diff != "" {
						t.Errorf("signer (ok %v; -want +got):\n%s", ok, diff)
					}
				}
				return
			}
			for what, e := range map[string]error{"refresh": err, "second refresh": err2, "cold": coldErr, "late": lateErr} {
				var ve *store.VerifyError
				if !errors.As(e, &ve) || ve.Reason != tc.reason || !errors.Is(e, store.ErrUnverified) {
					t.Errorf("%s: %v, want a VerifyError for %q", what, e, tc.reason)
				}
			}
			if err == nil {
				t.Fatal("the refused snapshot was served")
			}
			if !strings.Contains(err.Error(), next.Snapshot) || !strings.Contains(err.Error(), "still serving snapshot "+first.Snapshot) {
				t.Errorf("refresh error %q does not name the refused snapshot and the one served", err)
			}
			// Warm: the last good snapshot stays, whole.
			if warm.Current().ID != first.Snapshot {
				t.Errorf("warm reader serves %s, want %s", warm.Current().ID, first.Snapshot)
			}
			if got, err := fs.ReadFile(warm, "a/SKILL.md"); err != nil || !strings.Contains(string(got), "description: A.") {
				t.Errorf("warm reader reads %q, %v", got, err)
			}
			if n := strings.Count(log.String(), "refused by the signer policy"); n != 1 || !strings.Contains(log.String(), "reason="+tc.reason) {
				t.Errorf("log has %d refusals, want 1 with reason %s:\n%s", n, tc.reason, log.String())
			}
			// Cold: nothing is served.
			if cold.Current() != nil {
				t.Errorf("cold reader serves %s", cold.Current().ID)
			}
			if _, err := fs.ReadFile(cold, "a/SKILL.md"); !errors.Is(err, store.ErrUnverified) {
				t.Errorf("cold reader reads a file: %v", err)
			}
			// A good snapshot then moves both on, and nothing was lost.
			w.publish(snapshot.PublishOptions{Signer: w.key.Signer})
			good, _ := w.current()
			for _, pub := range []*snapshot.FS{warm, cold} {
				if err := pub.Refresh(ctx); err != nil {
					t.Fatalf("refresh to a good snapshot: %v", err)
				}
				if pub.Current().ID != good.Snapshot {
					t.Errorf("serving %s after a good publish, want %s", pub.Current().ID, good.Snapshot)
				}
				if _, err := pub.Snapshot(ctx); err != nil {
					t.Errorf("snapshot after a good publish: %v", err)
				}
			}
		})
	}
}

// TestSignedSnapshotReplay: a replica never moves to a snapshot whose
// sequence is not above the one it serves (an older signed snapshot put
// back), whatever the publish times say; a newer sequence with an older
// clock is served.
func TestSignedSnapshotReplay(t *testing.T) {
	ctx := context.Background()
	w := newSignedWorld(t)
	w.publish(snapshot.PublishOptions{Signer: w.key.Signer})
	old, oldManifest := w.current()
	w.write("a/SKILL.md", "---\nname: a\ndescription: A, second.\n---\n")
	w.publish(snapshot.PublishOptions{Signer: w.key.Signer})
	second, _ := w.current()
	pub := w.open(nil)

	pb, _ := json.Marshal(old)
	writeObject(t, w.b, snapshot.PointerKey, pb) // the replay
	var ve *store.VerifyError
	if err := pub.Refresh(ctx); !errors.As(err, &ve) || ve.Reason != "replayed" {
		t.Fatalf("refresh to a replayed snapshot: %v", err)
	}
	if pub.Current().ID != second.Snapshot {
		t.Fatalf("serving %s after a replay, want %s", pub.Current().ID, second.Snapshot)
	}

	// A later sequence from a publisher whose clock is behind: the
	// manifest says it was published a year before, and it is served.
	m, err := snapshot.DecodeManifest(oldManifest)
	if err != nil {
		t.Fatal(err)
	}
	m.ID, m.Sequence, m.Published = "20251124T000000.000000000Z-0123456789ab", 3, m.Published.Add(-365*24*time.Hour)
	mb := encode(t, m)
	writeObject(t, w.b, snapshot.ManifestKey(m.ID), mb)
	writeObject(t, w.b, snapshot.SignatureKey(m.ID), w.key.Sign(t, snapshot.SignatureNamespace, mb))
	pb, _ = json.Marshal(snapshot.Pointer{Version: snapshot.Version, Snapshot: m.ID, SHA256: snapshot.Sum(mb), Published: m.Published, Sequence: 3})
	writeObject(t, w.b, snapshot.PointerKey, pb)
	if err := pub.Refresh(ctx); err != nil {
		t.Fatalf("refresh to a later sequence published by a slow clock: %v", err)
	}
	if pub.Current().ID != m.ID {
		t.Fatalf("serving %s, want %s", pub.Current().ID, m.ID)
	}
}

// TestSignedManifestInterop: what publish --sign writes verifies with
// `ssh-keygen -Y verify` over the manifest's exact bytes, in the
// snapshot namespace only; the next publish numbers itself from the
// pointer, and collecting a snapshot removes its signature.
func TestSignedManifestInterop(t *testing.T) {
	w := newSignedWorld(t)
	r := w.publish(snapshot.PublishOptions{Signer: w.key.Signer, Keep: 1})
	if !r.Signed || r.Sequence != 1 {
		t.Fatalf("report %+v: want signed, sequence 1", r)
	}
	p, mb := w.current()
	sig, err := w.b.ReadAll(context.Background(), snapshot.SignatureKey(p.Snapshot))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.key.Verify(t, "publisher@example.com", "skillstore-snapshot", mb, sig); err != nil {
		t.Fatalf("ssh-keygen -Y verify: %v", err)
	}
	if err := w.key.Verify(t, "publisher@example.com", "git", mb, sig); err == nil {
		t.Error("ssh-keygen accepted the manifest's signature as a git signature")
	}
	w.write("b/SKILL.md", "---\nname: b\ndescription: B, second.\n---\n")
	if r := w.publish(snapshot.PublishOptions{Signer: w.key.Signer, Keep: 1}); r.Sequence != 2 || r.Removed != 1 {
		t.Fatalf("second publish %+v: want sequence 2, one snapshot removed", r)
	}
	if ok, err := w.b.Exists(context.Background(), snapshot.SignatureKey(p.Snapshot)); err != nil || ok {
		t.Errorf("the collected snapshot's signature is still there (%v)", err)
	}
	if m, err := snapshot.DecodeManifest(mb); err != nil || m.Sequence != 1 {
		t.Errorf("manifest sequence %d (%v), want 1", m.Sequence, err)
	}
}

// TestPublishRefusesWeakKey: publish --sign with a key a replica would
// refuse fails before anything is written.
func TestPublishRefusesWeakKey(t *testing.T) {
	w := newSignedWorld(t)
	weak := sshsigtest.NewKey(t, "rsa", 1024)
	var skills []snapshot.SkillFiles
	skills = append(skills, snapshot.SkillFiles{Dir: "a", DocPath: "SKILL.md", Files: []string{"SKILL.md"}})
	_, err := snapshot.Publish(context.Background(), w.local, skills, blobfs.NewPublishBucket(w.b), snapshot.PublishOptions{Keep: 1, Signer: weak.Signer})
	if !errors.Is(err, sshsig.ErrKeyType) || !strings.Contains(err.Error(), "1024-bit RSA key is weak") {
		t.Fatalf("publish with a 1024-bit RSA key: %v", err)
	}
	if keys := listAll(t, w.b); len(keys) != 0 {
		t.Errorf("publish wrote %v", keys)
	}
}

func listAll(t *testing.T, b *blob.Bucket) []string {
	t.Helper()
	var keys []string
	it := b.List(nil)
	for {
		o, err := it.Next(context.Background())
		if err != nil {
			break
		}
		keys = append(keys, o.Key)
	}
	return keys
}

// TestSignedSnapshotTrustReload: a snapshot refused for its unknown signer
// is served once a reloaded trust list names the key, without a new
// publish; until then the refused pointer is not read again.
func TestSignedSnapshotTrustReload(t *testing.T) {
	ctx := context.Background()
	w := newSignedWorld(t)
	w.publish(snapshot.PublishOptions{Signer: w.other.Signer})
	pub, bfs, trust := w.openReloadable(nil)
	var ve *store.VerifyError
	for range 2 {
		if err := pub.Refresh(ctx); !errors.As(err, &ve) || ve.Reason != "unknown-signer" {
			t.Fatalf("refresh under the first list: %v", err)
		}
	}
	before := bfs.Requests()
	if err := pub.Refresh(ctx); err == nil || bfs.Requests().Get != before.Get {
		t.Errorf("the refused pointer was read again under the same list (%v; %+v → %+v)", err, before, bfs.Requests())
	}
	both, err := sshsig.ParseAllowedSigners([]byte("publisher@example.com " + w.key.Line + "\nci@example.com " + w.other.Line + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	trust.Store(both)
	if err := pub.Refresh(ctx); err != nil {
		t.Fatalf("refresh under a list naming the key: %v", err)
	}
	view, err := pub.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := view.(store.SignedFS).Signer(); !ok || s.Principal != "ci@example.com" {
		t.Errorf("signer %+v, %v; want ci@example.com", s, ok)
	}
}

// TestRequireSignersKeepsTag: a signer policy set after Open costs the
// signature's read, and the replica's idle refreshes stay one tag check
// each, the first included.
func TestRequireSignersKeepsTag(t *testing.T) {
	w := newSignedWorld(t)
	w.publish(snapshot.PublishOptions{Signer: w.key.Signer})
	ctx := context.Background()
	dir := t.TempDir() // a shared disk: its reads tell the pointer's tag
	iter := w.b.List(nil)
	for {
		o, err := iter.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := w.b.ReadAll(ctx, o.Key)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(o.Key))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	objs := &countObjects{inner: snapshot.NewFSObjects(os.DirFS(dir))}
	trust := func() *sshsig.AllowedSigners { return w.trust }
	for _, late := range []bool{false, true} {
		pub, err := snapshot.Open(ctx, objs, snapshot.Options{Logger: silentLogger()})
		if err != nil {
			t.Fatal(err)
		}
		var want costs // of RequireSigners, then of the first use
		if late {
			// Set once the snapshot is read: its signature is read then.
			if _, err := pub.Snapshot(ctx); err != nil {
				t.Fatal(err)
			}
			want = costs{Reads: 1}
		}
		objs.take()
		if err := pub.RequireSigners(ctx, trust); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, objs.take()); diff != "" {
			t.Errorf("late=%v: RequireSigners cost (-want +got):\n%s", late, diff)
		}
		if _, err := pub.Snapshot(ctx); err != nil {
			t.Fatal(err)
		}
		if want = (costs{Reads: 2}); late { // the manifest and its signature
			want = costs{}
		}
		if diff := cmp.Diff(want, objs.take()); diff != "" {
			t.Errorf("late=%v: first use cost (-want +got):\n%s", late, diff)
		}
		for i := range 2 {
			if err := pub.Refresh(ctx); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(costs{Checks: 1}, objs.take()); diff != "" {
				t.Errorf("late=%v: idle refresh %d cost (-want +got):\n%s", late, i+1, diff)
			}
		}
	}
}
