package store

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

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
}

// byteLRU is a least-recently-used cache bounded by the bytes its values
// hold, not by their count. golang-lru counts entries and does not call its
// eviction callback when a key is replaced, so this wrapper accounts for
// sizes on add, replace, remove and evict itself. It is safe for concurrent use.
type byteLRU[K comparable, V any] struct {
	mu     sync.Mutex
	lru    *simplelru.LRU[K, sized[V]]
	bytes  int64
	budget int64

	hits, misses, evictions atomic.Uint64
}

type sized[V any] struct {
	v    V
	size int64
}

func newByteLRU[K comparable, V any](budget int64) *byteLRU[K, V] {
	c := &byteLRU[K, V]{budget: budget}
	// The entry count is unbounded; the byte budget is enforced in Add.
	c.lru, _ = simplelru.NewLRU[K, sized[V]](math.MaxInt32, func(_ K, e sized[V]) {
		c.bytes -= e.size
	})
	return c
}

// Get returns the value for k and marks it recently used.
func (c *byteLRU[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	e, ok := c.lru.Get(k)
	c.mu.Unlock()
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return e.v, ok
}

// Add stores v under k, charging size bytes, and evicts the least recently
// used entries until the cache is within budget. A value larger than the
// whole budget is not stored (and any older value for k is dropped).
func (c *byteLRU[K, V]) Add(k K, v V, size int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.lru.Peek(k); ok {
		c.bytes -= old.size // replacing does not call the eviction callback
	}
	if size > c.budget {
		c.lru.Remove(k)
		return
	}
	c.lru.Add(k, sized[V]{v, size})
	c.bytes += size
	for c.bytes > c.budget {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			break
		}
		c.evictions.Add(1)
	}
}

// Remove drops k.
func (c *byteLRU[K, V]) Remove(k K) {
	c.mu.Lock()
	c.lru.Remove(k)
	c.mu.Unlock()
}

// Purge drops every entry.
func (c *byteLRU[K, V]) Purge() {
	c.mu.Lock()
	c.lru.Purge()
	c.bytes = 0
	c.mu.Unlock()
}

func (c *byteLRU[K, V]) stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{
		Hits: c.hits.Load(), Misses: c.misses.Load(), Evictions: c.evictions.Load(),
		Bytes: c.bytes, Entries: c.lru.Len(), BudgetBytes: c.budget,
	}
}
