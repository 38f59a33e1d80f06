package snapshot_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

// TestTrustReloadRevokes: when the signer list is reloaded without the
// key that signed the snapshot served (the key removed, or the list
// emptied), the snapshot stops being served at the next Refresh, though
// the pointer has not moved: the FS serves nothing, Refresh says why
// (logged at ERROR, once), and no older snapshot is served in its place;
// the key listed again, or a snapshot signed by a key still listed, is
// served again.
func TestTrustReloadRevokes(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		list   func(w *signedWorld) string // the reloaded file
		reason string
	}{
		{"the key removed", func(w *signedWorld) string { return "ci@example.com " + w.other.Line + "\n" }, "unknown-signer"},
		{"the list emptied", func(*signedWorld) string { return "" }, "unknown-signer"},
		{"the only key commented out", func(w *signedWorld) string { return "# publisher@example.com " + w.key.Line + "\n" }, "unknown-signer"},
		{"the key limited to another namespace", func(w *signedWorld) string {
			return "publisher@example.com namespaces=\"git\" " + w.key.Line + "\n"
		}, "unknown-signer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newSignedWorld(t)
			first, second := w.publishTwice()
			logger, log := testutil.TextLog()
			pub, _, trust := w.openReloadable(logger)
			if _, err := pub.Snapshot(ctx); err != nil {
				t.Fatal(err)
			}
			reloaded, err := sshsig.ParseAllowedSigners([]byte(tc.list(w)))
			if err != nil {
				t.Fatal(err)
			}
			trust.Store(reloaded)
			for i, want := range []string{"no longer trust", "serving nothing"} {
				var ve *store.VerifyError
				if err := pub.Refresh(ctx); !errors.As(err, &ve) || ve.Reason != tc.reason || !strings.Contains(err.Error(), want) {
					t.Fatalf("refresh %d after the reload: %v; want a VerifyError for %q saying %q", i+1, err, tc.reason, want)
				}
			}
			if pub.Current() != nil {
				t.Fatalf("still serving %s", pub.Current().ID)
			}
			if _, err := fs.ReadFile(pub, "a/SKILL.md"); !errors.Is(err, store.ErrUnverified) {
				t.Errorf("reading a file of the revoked snapshot: %v", err)
			}
			if n := strings.Count(log.String(), "level=ERROR msg=\"the snapshot served is no longer trusted"); n != 1 {
				t.Errorf("the revocation was logged %d times at ERROR, want once:\n%s", n, log.String())
			}

			// Under a list trusting the other key: an older snapshot
			// re-signed by it is not served in place of the revoked one.
			both, _ := sshsig.ParseAllowedSigners([]byte("ci@example.com " + w.other.Line + "\n"))
			trust.Store(both)
			old, _ := w.b.ReadAll(ctx, snapshot.ManifestKey(first.Snapshot))
			writeObject(t, w.b, snapshot.SignatureKey(first.Snapshot), w.other.Sign(t, snapshot.SignatureNamespace, old))
			pb, _ := json.Marshal(first)
			writeObject(t, w.b, snapshot.PointerKey, pb)
			var ve *store.VerifyError
			if err := pub.Refresh(ctx); !errors.As(err, &ve) || ve.Reason != "replayed" || pub.Current() != nil {
				t.Fatalf("refresh to an older snapshot after a revocation: %v; serving %v", err, pub.Current())
			}

			// The key listed again: the snapshot it signed is served again.
			pb, _ = json.Marshal(second)
			writeObject(t, w.b, snapshot.PointerKey, pb)
			trust.Store(w.trust)
			if err := pub.Refresh(ctx); err != nil {
				t.Fatalf("refresh with the key listed again: %v", err)
			}
			if m := pub.Current(); m == nil || m.ID != second.Snapshot {
				t.Fatalf("serving %v, want %s", m, second.Snapshot)
			}
		})
	}
}

// TestTrustReloadKeeps: a reloaded list that still trusts the served
// snapshot's key keeps it served (its signer as the new list names it),
// at the cost of one request, its signature.
func TestTrustReloadKeeps(t *testing.T) {
	ctx := context.Background()
	w := newSignedWorld(t)
	w.publish(snapshot.PublishOptions{Signer: w.key.Signer})
	pub, bfs, trust := w.openReloadable(nil)
	if err := pub.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	renamed, _ := sshsig.ParseAllowedSigners([]byte("release@example.com " + w.key.Line + "\nci@example.com " + w.other.Line + "\n"))
	trust.Store(renamed)
	before := bfs.Requests()
	if err := pub.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got := bfs.Requests().Get - before.Get; got != 1 {
		t.Errorf("the reload cost %d reads, want 1 (the signature)", got)
	}
	view, err := pub.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := view.(store.SignedFS).Signer(); !ok || s.Principal != "release@example.com" {
		t.Errorf("signer %+v, %v; want release@example.com", s, ok)
	}
	before = bfs.Requests()
	if err := pub.Refresh(ctx); err != nil || bfs.Requests().Get != before.Get {
		t.Errorf("an idle refresh after the reload read again (%v)", err)
	}
}
