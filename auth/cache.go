package auth

import (
	"crypto/sha256"
	"time"
	"unsafe"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/internal/lru"
)

// cacheEntry is the outcome of one verification: a principal, or the
// reason the token was refused, valid until the given Unix nanosecond.
type cacheEntry struct {
	p     *access.Principal
	err   error
	until int64
}

// tokenCache remembers verification outcomes by the SHA-256 of the token,
// never the token itself. Accepted and refused tokens live in two LRUs,
// each bounded by entry count, so a flood of distinct invalid tokens
// evicts only other invalid tokens. An expired entry is a miss and is
// dropped when met; others age out of the LRU.
type tokenCache struct {
	ok, bad *lru.Cache[[32]byte, cacheEntry]
}

// newTokenCache returns a cache of at most okSize accepted and badSize
// refused tokens; a size below 1 disables that half.
func newTokenCache(okSize, badSize int) *tokenCache {
	c := &tokenCache{}
	if okSize > 0 {
		c.ok = lru.New[[32]byte, cacheEntry](int64(okSize))
	}
	if badSize > 0 {
		c.bad = lru.New[[32]byte, cacheEntry](int64(badSize))
	}
	return c
}

// get returns the outcome cached for sum, if it has not expired at now.
func (c *tokenCache) get(sum [32]byte, now time.Time) (cacheEntry, bool) {
	for _, l := range [...]*lru.Cache[[32]byte, cacheEntry]{c.ok, c.bad} {
		if l == nil {
			continue
		}
		if e, ok := l.Get(sum); ok {
			if now.UnixNano() < e.until {
				return e, true
			}
			l.Remove(sum)
		}
	}
	return cacheEntry{}, false
}

// addOK caches an accepted token until the given time.
func (c *tokenCache) addOK(sum [32]byte, p *access.Principal, until time.Time) {
	if c.ok != nil {
		c.ok.Add(sum, cacheEntry{p: p, until: until.UnixNano()}, 1)
	}
}

// addBad caches a refused token until the given time.
func (c *tokenCache) addBad(sum [32]byte, err error, until time.Time) {
	if c.bad != nil {
		c.bad.Add(sum, cacheEntry{err: err, until: until.UnixNano()}, 1)
	}
}

// len returns the number of accepted and refused tokens held.
func (c *tokenCache) len() (ok, bad int) {
	if c.ok != nil {
		ok = c.ok.Stats().Entries
	}
	if c.bad != nil {
		bad = c.bad.Stats().Entries
	}
	return ok, bad
}

// tokenHash returns the SHA-256 of token, the key it is known by. sha256
// neither keeps nor changes its input, so the string's bytes are hashed
// in place rather than copied (up to MaxTokenBytes per request).
func tokenHash(token string) [32]byte {
	return sha256.Sum256(unsafe.Slice(unsafe.StringData(token), len(token)))
}
