package auth

import "time"

// Status is the state of a Verifier's keys, for a readiness probe.
type Status struct {
	// Ready reports whether signing keys are loaded. A Verifier that is
	// not ready refuses every token with ErrKeysUnavailable.
	Ready bool
	// Keys is the number of signing keys loaded.
	Keys int
	// Fetched is when the loaded keys were fetched; zero when none are.
	Fetched time.Time
	// Err is why the last fetch failed, nil if it succeeded or none has
	// ended yet. With Ready true, the loaded keys are still in use. It
	// names the issuer's URLs, never a token.
	Err error
}

// Status returns the state of the issuer's keys.
func (v *Verifier) Status() Status {
	var st Status
	if snap := v.keys.cur.Load(); snap != nil {
		st.Ready, st.Keys, st.Fetched = true, len(snap.all), snap.fetched
	}
	v.keys.mu.Lock()
	st.Err = v.keys.lastErr
	v.keys.mu.Unlock()
	return st
}

// Ready reports whether signing keys are loaded (Status().Ready).
func (v *Verifier) Ready() bool {
	return v.keys.cur.Load() != nil
}

// Stats are a Verifier's counters since it started.
type Stats struct {
	// CacheHits and CacheMisses count tokens answered from the cache (an
	// acceptance or a refusal) and tokens verified.
	CacheHits, CacheMisses uint64
	// SignatureChecks counts signature verifications.
	SignatureChecks uint64
	// Fetches counts HTTP requests to the issuer (metadata and key sets).
	Fetches uint64
	// CachedTokens and CachedRefusals are the entries in the cache now.
	CachedTokens, CachedRefusals int
}

// Stats returns the counters.
func (v *Verifier) Stats() Stats {
	ok, bad := v.cache.len()
	return Stats{
		CacheHits: v.hits.Load(), CacheMisses: v.misses.Load(),
		SignatureChecks: v.checks.Load(), Fetches: v.keys.fetches.Load(),
		CachedTokens: ok, CachedRefusals: bad,
	}
}
