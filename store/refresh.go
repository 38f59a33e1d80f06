package store

import (
	"context"
	"time"
)

// Refresher is implemented by backends that keep a snapshot of their listing
// and can reload it on demand.
type Refresher interface {
	Refresh(ctx context.Context) error
}

// noteListing records the outcome of listing source i for a catalog. For
// sources that refresh themselves (Refresher) a success says nothing: they
// list from their last good snapshot, and Refresh reports their health.
// A source that cannot be listed serves nothing until it answers.
func (s *Store) noteListing(i int, err error) {
	if _, ok := s.sources[i].FS.(Refresher); ok && err == nil {
		s.answered[i].Store(time.Now().UnixNano())
		return
	}
	if s.noteSource(i, err) {
		s.logFailing(i, "listing", err, false)
	}
}
