package store

import (
	"context"
	"io/fs"
)

// ContextFS is implemented by backends whose reads can be cancelled:
// WithContext returns a view of the same files whose requests also end
// when ctx does. The store reads through such a view, so a backend read
// that no caller waits for any more is abandoned, not finished.
type ContextFS interface {
	fs.FS
	WithContext(ctx context.Context) fs.FS
}

// withContext returns fsys's view under ctx, or fsys itself.
func withContext(ctx context.Context, fsys fs.FS) fs.FS {
	if c, ok := fsys.(ContextFS); ok {
		return c.WithContext(ctx)
	}
	return fsys
}
