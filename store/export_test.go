package store

import "context"

// WithoutSearchIndex makes s skip the search index, the baseline of the
// benchmarks that measure what indexing adds to discovery.
func WithoutSearchIndex(s *Store) { s.search = nil }

// WaitIndexed waits for s's background indexing.
func WaitIndexed(s *Store) { s.indexed(context.Background()) }
