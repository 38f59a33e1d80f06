// Package lru is a least-recently-used cache bounded by bytes, over
// golang-lru/v2, which counts entries rather than bytes.
package lru

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// Cache is a least-recently-used cache bounded by the bytes its values
// hold, not by their count. golang-lru counts entries and does not call its
// eviction callback when a key is replaced, so this wrapper accounts for
// sizes on add, replace, remove and evict itself. It is safe for concurrent use.
type Cache[K comparable, V any] struct {
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

// New returns a cache holding at most budget bytes.
func New[K comparable, V any](budget int64) *Cache[K, V] {
	c := &Cache[K, V]{budget: budget}
	// The entry count is unbounded; the byte budget is enforced in Add.
	c.lru, _ = simplelru.NewLRU[K, sized[V]](math.MaxInt32, func(_ K, e sized[V]) {
		c.bytes -= e.size
	})
	return c
}

// Get returns the value for k and marks it recently used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
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
func (c *Cache[K, V]) Add(k K, v V, size int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if size > c.budget {
		c.lru.Remove(k) // the eviction callback subtracts any old size
		return
	}
	if old, ok := c.lru.Peek(k); ok {
		c.bytes -= old.size // replacing does not call the eviction callback
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
func (c *Cache[K, V]) Remove(k K) {
	c.mu.Lock()
	c.lru.Remove(k)
	c.mu.Unlock()
}

// Purge drops every entry.
func (c *Cache[K, V]) Purge() {
	c.mu.Lock()
	c.lru.Purge()
	c.bytes = 0
	c.mu.Unlock()
}

// Stats are a cache's counters.
type Stats struct {
	Hits, Misses, Evictions uint64
	Bytes, Budget           int64
	Entries                 int
}

// Stats returns the counters.
func (c *Cache[K, V]) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Hits: c.hits.Load(), Misses: c.misses.Load(), Evictions: c.evictions.Load(),
		Bytes: c.bytes, Budget: c.budget, Entries: c.lru.Len()}
}
