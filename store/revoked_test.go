package store_test

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/store"
)

// revocable is a source (store.SnapshotFS, store.Refresher) that serves
// a snapshot until it fails with err.
type revocable struct {
	snap fstest.MapFS
	err  atomic.Pointer[error]
}

func (r *revocable) failure() error {
	if e := r.err.Load(); e != nil {
		return *e
	}
	return nil
}

func (r *revocable) Open(name string) (fs.File, error) {
	if err := r.failure(); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return r.snap.Open(name)
}

func (r *revocable) Snapshot(context.Context) (fs.FS, error) {
	if err := r.failure(); err != nil {
		return nil, err
	}
	return r.snap, nil
}

func (r *revocable) Refresh(context.Context) error { return r.failure() }

// TestRevokedSourceUnserved: when the only source fails because what it
// served is no longer trusted (a store.VerifyError: its signer was
// removed from the trusted signers), the catalog of before is not kept,
// as it is through an outage: its skills are no longer served.
func TestRevokedSourceUnserved(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		err    error
		served bool // the skill is still served after the failure
	}{
		{"an outage", errors.New("connection refused"), true},
		{"revoked", &store.VerifyError{Reason: "unknown-signer", Err: errors.New("the signing key is not among the trusted signers")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &revocable{snap: fstest.MapFS{"a/SKILL.md": {Data: []byte("---\nname: a\ndescription: A.\n---\n")}}}
			s, err := store.New([]store.Source{{Label: "org", Location: "mem://", FS: src}}, store.Options{Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.View(nil).Document(ctx, "a", nil); err != nil {
				t.Fatal(err)
			}
			src.err.Store(&tc.err)
			s.Refresh(ctx)
			_, err = s.View(nil).Document(ctx, "a", nil)
			if served := err == nil; served != tc.served {
				t.Errorf("served %v (%v), want %v", served, err, tc.served)
			}
		})
	}
}
