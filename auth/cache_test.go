package auth

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
	"unsafe"

	"github.com/skillstore/skillstore/access"
)

// countChecks counts the Verifier's signature checks through its test hook.
func countChecks(v *Verifier) *int {
	n := new(int)
	v.onCheck = func() { *n++ }
	return n
}

// TestCacheHit: the second verification of a token does no signature
// check, until the token expires (plus the leeway).
func TestCacheHit(t *testing.T) {
	f := newIssuer(t, edKey)
	clk := newClock(time.Now())
	v := newVerifier(t, f, func(c *VerifierConfig) { c.Now = clk.now })
	checks := countChecks(v)
	tok := mint(t, edKey, "at+jwt", claims(f.URL, clk.now()))
	ctx := context.Background()
	p1, err := v.Authenticate(ctx, tok)
	if err != nil || *checks != 1 {
		t.Fatalf("first: %v, %d checks", err, *checks)
	}
	p2, err := v.Authenticate(ctx, tok)
	if err != nil || *checks != 1 || p2 != p1 {
		t.Fatalf("second: %v, %d checks, same principal %v", err, *checks, p1 == p2)
	}
	clk.add(time.Hour + DefaultLeeway - time.Second) // exp + leeway - 1s
	if _, err := v.Authenticate(ctx, tok); err != nil || *checks != 1 {
		t.Fatalf("just before exp+leeway: %v, %d checks", err, *checks)
	}
	clk.add(2 * time.Second)
	if _, err := v.Authenticate(ctx, tok); !errors.Is(err, ErrExpired) || *checks != 2 {
		t.Fatalf("after exp+leeway: %v, %d checks; want ErrExpired after a second check", err, *checks)
	}
	st := v.Stats()
	if st.CacheHits != 2 || st.CacheMisses != 2 || st.SignatureChecks != 2 {
		t.Errorf("stats %+v", st)
	}
}

// TestNegativeCache: a refused token is remembered for NegativeCacheTTL,
// and only then checked again.
func TestNegativeCache(t *testing.T) {
	f := newIssuer(t, edKey)
	clk := newClock(time.Now())
	v := newVerifier(t, f, func(c *VerifierConfig) { c.Now = clk.now })
	checks := countChecks(v)
	bad := flipSig(mint(t, edKey, "at+jwt", claims(f.URL, clk.now())))
	for i := range 3 {
		if _, err := v.Authenticate(context.Background(), bad); !errors.Is(err, ErrSignature) {
			t.Fatalf("try %d: %v", i, err)
		}
	}
	if *checks != 1 {
		t.Fatalf("%d signature checks for 3 tries; want 1", *checks)
	}
	clk.add(DefaultNegativeCacheTTL)
	if _, err := v.Authenticate(context.Background(), bad); !errors.Is(err, ErrSignature) || *checks != 2 {
		t.Fatalf("after the TTL: %v, %d checks; want a second check", err, *checks)
	}
}

// TestNegativeCacheOff: a negative TTL turns refusal caching off.
func TestNegativeCacheOff(t *testing.T) {
	f := newIssuer(t, edKey)
	v := newVerifier(t, f, func(c *VerifierConfig) { c.NegativeCacheTTL = -1 })
	checks := countChecks(v)
	bad := flipSig(mint(t, edKey, "at+jwt", claims(f.URL, time.Now())))
	v.Authenticate(context.Background(), bad)
	v.Authenticate(context.Background(), bad)
	if *checks != 2 || v.Stats().CachedRefusals != 0 {
		t.Errorf("%d checks, %d cached refusals; want 2, 0", *checks, v.Stats().CachedRefusals)
	}
}

// TestCacheBounds: both halves of the cache stay within their counts, and
// a flood of distinct invalid tokens does not evict accepted ones.
func TestCacheBounds(t *testing.T) {
	f := newIssuer(t, edKey)
	now := time.Now()
	v := newVerifier(t, f, func(c *VerifierConfig) { c.CacheSize = 100; c.NegativeCacheSize = 50 })
	checks := countChecks(v)
	ctx := context.Background()
	var good []string
	for i := range 300 {
		c := claims(f.URL, now)
		c["jti"] = fmt.Sprint(i)
		good = append(good, mint(t, edKey, "at+jwt", c))
		if _, err := v.Authenticate(ctx, good[i]); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5000 {
		v.Authenticate(ctx, fmt.Sprintf("invalid-%d", i))
	}
	st := v.Stats()
	if st.CachedTokens != 100 || st.CachedRefusals != 50 {
		t.Fatalf("cached %d tokens and %d refusals; want 100 and 50", st.CachedTokens, st.CachedRefusals)
	}
	// The 100 most recent accepted tokens are still answered without a check.
	before := *checks
	for _, tok := range good[200:] {
		if _, err := v.Authenticate(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	if *checks != before {
		t.Errorf("%d signature checks for cached tokens after the flood; want 0", *checks-before)
	}
}

// TestInterning: principals of different tokens share equal client ids
// and group and scope lists, within the interner's bounds, and a shared
// list cannot be grown in place by an append.
func TestInterning(t *testing.T) {
	f := newIssuer(t, edKey)
	v := newVerifier(t, f, nil)
	now := time.Now()
	var ps []*access.Principal
	for i := range 2 {
		c := claims(f.URL, now)
		c["sub"] = fmt.Sprint("user", i)
		p, err := v.Authenticate(context.Background(), mint(t, edKey, "at+jwt", c))
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	a, b := ps[0], ps[1]
	if &a.Groups[0] != &b.Groups[0] || &a.Scopes[0] != &b.Scopes[0] || unsafe.StringData(a.ClientID) != unsafe.StringData(b.ClientID) {
		t.Error("equal groups, scopes and client ids are not shared")
	}
	if cap(a.Groups) != len(a.Groups) {
		t.Errorf("a shared list has room to grow: len %d cap %d", len(a.Groups), cap(a.Groups))
	}
	var in interner
	// 400 values joined are over maxInternedBytes.
	if x, y := in.list(manyStrings(400)), in.list(manyStrings(400)); &x[0] == &y[0] {
		t.Error("a list over the byte bound was interned")
	}
	for i := range maxInterned + 10 {
		in.str(fmt.Sprint(i))
	}
	if len(in.strs) != maxInterned {
		t.Errorf("%d interned strings; want the bound %d", len(in.strs), maxInterned)
	}
}
