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
