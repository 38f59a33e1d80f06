package store

import (
	"context"
	"io/fs"
)

// SnapshotFS is implemented by sources that serve immutable snapshots (a
// folder `skillstore publish` wrote; see package backends/snapshot). The
// store builds each catalog from one snapshot and reads every file of that
// catalog's skills from the same snapshot, so no answer mixes two;
// Refresh (Refresher) moves the source to a new one.
type SnapshotFS interface {
	fs.FS
	Snapshot(ctx context.Context) (fs.FS, error)
}

// snapshotGen returns the generation of view, a snapshot source i gave:
// the previous load's when view is the same snapshot, else a new one.
// Cached files are keyed by it, for snapshots that say nothing else of
// their version: a file of two snapshots of a .well-known origin may have
// one size and one time (an artifact's files all carry one), so a check
// of size and time cannot tell them apart, and a copy cached from the
// first would be served as the second's. Snapshots that name a revision
// (RevisionFS) or their content's digests (ContentFS) need none: 0.
func (s *Store) snapshotGen(i int, view fs.FS) uint64 {
	if _, ok := view.(RevisionFS); ok {
		return 0
	}
	if _, ok := view.(ContentFS); ok {
		return 0
	}
	if last := s.lastResult(i); last != nil && last.gen != 0 && sameFS(last.view, view) {
		return last.gen
	}
	return s.snapshots.Add(1)
}
