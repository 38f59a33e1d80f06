package store

// WithoutSearchIndex makes s skip the search index, the baseline of the
// benchmarks that measure what indexing adds to discovery.
func WithoutSearchIndex(s *Store) { s.search = nil }

// WithoutHiddenScan makes s's discovery scan nothing for hidden text, the
// baseline of the benchmark that measures what scanning adds.
func WithoutHiddenScan(s *Store) { s.noScan = true }
