package store

// CacheStats are the cache and backend counters of a Store.
type CacheStats struct {
	Hits          uint64 // reads answered from the cache
	Misses        uint64 // reads that went to the backend
	Evictions     uint64 // entries dropped to stay within the byte budget
	Bytes         int64  // bytes held now
	Entries       int    // entries held now
	BudgetBytes   int64  // the byte budget
	BackendReads  uint64 // file reads issued to backends (after request sharing)
	Revalidations uint64 // version checks of cached entries against the backend
	ServedStale   uint64 // cached copies served while their source failed (MaxStale)
}
