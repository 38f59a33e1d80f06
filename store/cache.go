package store

import "github.com/skillstore/skillstore/search"

// Stats are a Store's counters: its file cache, its backends, its search
// index.
type Stats struct {
	Hits          uint64 // reads answered from the cache
	Misses        uint64 // reads that went to the backend
	Evictions     uint64 // entries dropped to stay within the byte budget
	Bytes         int64  // bytes held now
	Entries       int    // entries held now
	BudgetBytes   int64  // the byte budget
	BackendReads  uint64 // file reads issued to backends (after request sharing)
	Revalidations uint64 // version checks of cached entries against the backend
	ServedStale   uint64 // cached copies served while their source failed (MaxStale)

	// Search describes the search index: how many skills it holds (the
	// shadowed copies too) and how many updates it took.
	Search search.Stats
	// Requests are the request counts of the sources that keep them
	// (RequestCounter): object storage's LIST pages and GETs.
	Requests []SourceRequests
}
