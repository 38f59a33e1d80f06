package store

// WithoutSearchIndex makes s skip the search index, the baseline of the
// benchmarks that measure what indexing adds to discovery.
func WithoutSearchIndex(s *Store) { s.search = nil }

// WithoutHiddenScan makes s's discovery scan nothing for hidden text, the
// baseline of the benchmark that measures what scanning adds.
func WithoutHiddenScan(s *Store) { s.noScan = true }

// SetReadHookForTest makes hook run as each read of a skill's file
// starts, after the skill was resolved (see Store.readHook). Set it
// before s is used.
func SetReadHookForTest(s *Store, hook func(sk *Skill, p string)) { s.readHook = hook }
