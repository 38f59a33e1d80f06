package auth

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// BenchmarkVerify measures Authenticate with the cache off (cold: parse,
// signature check, claims) and with the token cached (warm).
func BenchmarkVerify(b *testing.B) {
	f := newIssuer(b, rsaKey, ecKey, edKey)
	for _, k := range []signingKey{rsaKey, ecKey, edKey} {
		tok := mint(b, k, "at+jwt", claims(f.URL, time.Now()))
		for _, mode := range []string{"cold", "warm"} {
			b.Run(string(k.alg)+"/"+mode, func(b *testing.B) {
				v := newVerifier(b, f, func(c *VerifierConfig) {
					if mode == "cold" {
						c.CacheSize = -1
					}
				})
				ctx := context.Background()
				if _, err := v.Authenticate(ctx, tok); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := v.Authenticate(ctx, tok); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkCacheMemory fills the cache of a Verifier of the default size
// with 150,000 distinct tokens' principals, built by the Verifier's own
// newPrincipal from fresh strings as decoding makes them (a subject of 22
// bytes, one of 10 clients, one of 10 group lists of two, two scopes), and
// reports the heap held per cached token, checking that the count stayed
// at the bound. Signing and verifying 150,000 tokens would take minutes
// on the test machine and adds nothing that stays in the cache.
func BenchmarkCacheMemory(b *testing.B) {
	const n = 150_000
	fresh := func(s string) string { return string([]byte(s)) }
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		v := &Verifier{cache: newTokenCache(DefaultCacheSize, DefaultNegativeCacheSize)}
		c := v.cache
		until := time.Now().Add(time.Hour)
		for i := range n {
			var buf [8]byte
			binary.LittleEndian.PutUint64(buf[:], uint64(i))
			p := v.newPrincipal(fmt.Sprintf("user-%06d@example.com", i),
				fresh(fmt.Sprintf("mcp-client-%d", i%10)),
				[]string{fresh(fmt.Sprintf("team-%d", i%10)), fresh("all-staff")},
				[]string{fresh("skills:read"), fresh("skills:write")}, until)
			c.addOK(sha256.Sum256(buf[:]), p, until)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		ok, _ := c.len()
		if ok != DefaultCacheSize {
			b.Fatalf("%d entries after %d distinct tokens; want %d", ok, n, DefaultCacheSize)
		}
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(ok), "B/token")
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MiB")
		runtime.KeepAlive(c)
	}
}

// BenchmarkInvalidFlood sends 100,000 distinct invalid tokens through a
// Verifier and reports the heap it holds afterwards and the refusals
// cached (bounded by NegativeCacheSize).
func BenchmarkInvalidFlood(b *testing.B) {
	f := newIssuer(b, edKey)
	const n = 100_000
	for b.Loop() {
		v := newVerifier(b, f, nil)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range n {
			v.Authenticate(context.Background(), fmt.Sprintf("eyJhbGciOiJFUzI1NiJ9.invalid.%d", i))
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		st := v.Stats()
		if st.CachedRefusals != DefaultNegativeCacheSize {
			b.Fatalf("%d cached refusals; want %d", st.CachedRefusals, DefaultNegativeCacheSize)
		}
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), "MiB")
		b.ReportMetric(float64(st.CachedRefusals), "refusals")
		runtime.KeepAlive(v)
	}
}
