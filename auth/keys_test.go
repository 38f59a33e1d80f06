package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/testutil"
)

// TestRotation: a token signed with a new key is accepted after exactly
// one refetch, and the old key, no longer published, is dropped.
func TestRotation(t *testing.T) {
	f := newIssuer(t, rsaKey)
	clk := newClock(time.Now())
	v := newVerifier(t, f, func(c *VerifierConfig) { c.Now = clk.now })
	ctx := context.Background()
	if _, err := v.Authenticate(ctx, mint(t, rsaKey, "at+jwt", claims(f.URL, clk.now()))); err != nil {
		t.Fatalf("before rotation: %v", err)
	}
	if n := f.jwksHits.Load(); n != 1 {
		t.Fatalf("%d key set fetches at start; want 1", n)
	}
	f.setKeys(rsaKey2)
	clk.add(DefaultMinRefetchInterval)
	if _, err := v.Authenticate(ctx, mint(t, rsaKey2, "at+jwt", claims(f.URL, clk.now()))); err != nil {
		t.Fatalf("new key: %v", err)
	}
	if n := f.jwksHits.Load(); n != 2 {
		t.Fatalf("%d key set fetches after rotation; want 2", n)
	}
	if _, err := v.Authenticate(ctx, mint(t, rsaKey2, "at+jwt", claims(f.URL, clk.now().Add(time.Second)))); err != nil {
		t.Fatalf("new key, second token: %v", err)
	}
	if n := f.jwksHits.Load(); n != 2 {
		t.Fatalf("%d key set fetches for a second token with the new key; want still 2", n)
	}
	clk.add(DefaultMinRefetchInterval)
	_, err := v.Authenticate(ctx, mint(t, rsaKey, "at+jwt", claims(f.URL, clk.now())))
	if !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("old key after rotation: %v; want ErrUnknownKey", err)
	}
	if st := v.Status(); !st.Ready || st.Keys != 1 || st.Err != nil {
		t.Errorf("status %+v; want ready with 1 key", st)
	}
}

// TestRefetchRateLimit: unknown key ids refetch the key set at most once
// per MinRefetchInterval, however many arrive at once.
func TestRefetchRateLimit(t *testing.T) {
	f := newIssuer(t, rsaKey)
	clk := newClock(time.Now())
	v := newVerifier(t, f, func(c *VerifierConfig) { c.Now = clk.now; c.MinRefetchInterval = time.Hour })
	storm := func() {
		var wg sync.WaitGroup
		for i := range 50 {
			wg.Go(func() {
				k := signingKey{fmt.Sprintf("unknown-%d", i), rsaKey2.alg, rsaKey2.key}
				_, err := v.Authenticate(context.Background(), mint(t, k, "at+jwt", claims(f.URL, clk.now())))
				if !errors.Is(err, ErrUnknownKey) {
					t.Errorf("unknown kid: %v; want ErrUnknownKey", err)
				}
			})
		}
		wg.Wait()
	}
	storm() // within an hour of the start-up fetch: no refetch
	if n := f.jwksHits.Load(); n != 1 {
		t.Fatalf("%d key set fetches; want 1 (start-up only)", n)
	}
	clk.add(time.Hour)
	storm() // one refetch for all 50
	if n := f.jwksHits.Load(); n != 2 {
		t.Fatalf("%d key set fetches; want 2", n)
	}
	// Unknown-key refusals are not cached: the same token passes once its
	// key is published and a refetch is allowed.
	tok := mint(t, rsaKey2, "at+jwt", claims(f.URL, clk.now()))
	if _, err := v.Authenticate(context.Background(), tok); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("before publishing: %v", err)
	}
	f.setKeys(rsaKey, rsaKey2)
	clk.add(time.Hour)
	if _, err := v.Authenticate(context.Background(), tok); err != nil {
		t.Fatalf("after publishing: %v", err)
	}
}

// TestIssuerDownAtStart: the verifier starts without keys, refuses tokens
// with ErrKeysUnavailable (a 401, never a 500), and loads the keys once
// the issuer answers, on a token (its clock moved past the refetch
// interval) or on its own (on the real clock).
func TestIssuerDownAtStart(t *testing.T) {
	for _, trigger := range []string{"token", "background"} {
		t.Run(trigger, func(t *testing.T) {
			f := newIssuer(t, rsaKey)
			f.mode("down")
			clk := newClock(time.Now())
			v := newVerifier(t, f, func(c *VerifierConfig) {
				c.MinRefetchInterval = 20 * time.Millisecond
				if trigger == "token" {
					c.Now = clk.now
				}
			})
			st := v.Status()
			if st.Ready || st.Keys != 0 || st.Err == nil || !strings.Contains(st.Err.Error(), "HTTP status 503") {
				t.Fatalf("status while down: %+v", st)
			}
			tok := mint(t, rsaKey, "at+jwt", claims(f.URL, time.Now()))
			if _, err := v.Authenticate(context.Background(), tok); !errors.Is(err, ErrKeysUnavailable) {
				t.Fatalf("while down: %v; want ErrKeysUnavailable", err)
			}
			f.mode("")
			if trigger == "token" {
				clk.add(30 * time.Millisecond) // past MinRefetchInterval
				if _, err := v.Authenticate(context.Background(), tok); err != nil {
					t.Fatalf("after the issuer came up: %v", err)
				}
			}
			testutil.Within(5*time.Second, v.Ready)
			if st := v.Status(); !st.Ready || st.Keys != 1 || st.Err != nil {
				t.Fatalf("status after the issuer came up: %+v", st)
			}
		})
	}
}

// TestIssuerUnreachable: nothing listens at the issuer's address.
func TestIssuerUnreachable(t *testing.T) {
	f := newIssuer(t, rsaKey)
	f.Close()
	v := newVerifier(t, f, nil)
	if st := v.Status(); st.Ready || st.Err == nil {
		t.Fatalf("status: %+v", st)
	}
	_, err := v.Authenticate(context.Background(), mint(t, rsaKey, "at+jwt", claims(f.URL, time.Now())))
	if !errors.Is(err, ErrKeysUnavailable) {
		t.Fatalf("got %v; want ErrKeysUnavailable", err)
	}
}

// TestBadKeySetKeepsKeys: a key set endpoint that answers garbage, stalls,
// answers too much or fails is reported clearly, takes bounded time, and
// the keys already loaded keep working.
func TestBadKeySetKeepsKeys(t *testing.T) {
	cases := []struct {
		mode, want string
		timeout    time.Duration
	}{
		{"garbage", "not a JSON Web Key Set", 5 * time.Second},
		{"stall", "no answer within the fetch timeout", 300 * time.Millisecond},
		{"huge", "larger than 1048576 bytes", 5 * time.Second},
		{"500", "HTTP status 503", 5 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			f := newIssuer(t, rsaKey)
			clk := newClock(time.Now())
			v := newVerifier(t, f, func(c *VerifierConfig) { c.Now = clk.now; c.FetchTimeout = tc.timeout })
			f.mode(tc.mode)
			clk.add(time.Minute)
			start := time.Now()
			_, err := v.Authenticate(context.Background(), mint(t, rsaKey2, "at+jwt", claims(f.URL, clk.now())))
			if !errors.Is(err, ErrUnknownKey) {
				t.Fatalf("unknown kid: %v; want ErrUnknownKey", err)
			}
			if d := time.Since(start); d > tc.timeout+3*time.Second {
				t.Errorf("took %v", d)
			}
			st := v.Status()
			if !st.Ready || st.Keys != 1 || st.Err == nil || !strings.Contains(st.Err.Error(), tc.want) {
				t.Fatalf("status %+v; want ready, 1 key, error with %q", st, tc.want)
			}
			if _, err := v.Authenticate(context.Background(), mint(t, rsaKey, "at+jwt", claims(f.URL, clk.now()))); err != nil {
				t.Fatalf("a loaded key after a failed refetch: %v", err)
			}
		})
	}
}

// TestBadKeySetAtStart: the verifier starts, not ready, with the reason.
func TestBadKeySetAtStart(t *testing.T) {
	for _, mode := range []string{"garbage", "huge"} {
		f := newIssuer(t, rsaKey)
		f.mode(mode)
		v := newVerifier(t, f, nil)
		if st := v.Status(); st.Ready || st.Err == nil {
			t.Errorf("%s: status %+v", mode, st)
		}
	}
}

// TestWaitBoundedByContext: a request waiting for a stalled refetch gives
// up when its context ends, and the fetch goes on for the others.
func TestWaitBoundedByContext(t *testing.T) {
	f := newIssuer(t, rsaKey)
	clk := newClock(time.Now())
	v := newVerifier(t, f, func(c *VerifierConfig) { c.Now = clk.now; c.FetchTimeout = 5 * time.Second })
	f.mode("stall")
	clk.add(time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := v.Authenticate(ctx, mint(t, rsaKey2, "at+jwt", claims(f.URL, clk.now())))
	if !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("got %v; want ErrUnknownKey", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("waited %v for a stalled fetch despite a 100ms context", d)
	}
}

// TestDiscovery checks the metadata locations and the issuer check.
func TestDiscovery(t *testing.T) {
	t.Run("path issuer, RFC 8414 inserted first", func(t *testing.T) {
		f := newIssuer(t, rsaKey)
		f.set(func() { f.mdIssuer = f.URL + "/tenant1" })
		v := newVerifier(t, f, func(c *VerifierConfig) { c.Issuer = f.URL + "/tenant1" })
		if !v.Ready() {
			t.Fatalf("status %+v", v.Status())
		}
		if d := cmp.Diff([]string{"/.well-known/oauth-authorization-server/tenant1"}, f.metadataPaths()); d != "" {
			t.Errorf("metadata paths (-want +got):\n%s", d)
		}
	})
	t.Run("OpenID fallback, in the MCP order", func(t *testing.T) {
		f := newIssuer(t, rsaKey)
		f.set(func() { f.oidcOnly = true })
		f.set(func() { f.mdIssuer = f.URL + "/tenant1" })
		v := newVerifier(t, f, func(c *VerifierConfig) { c.Issuer = f.URL + "/tenant1" })
		if !v.Ready() {
			t.Fatalf("status %+v", v.Status())
		}
		want := []string{"/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1"}
		if d := cmp.Diff(want, f.metadataPaths()); d != "" {
			t.Errorf("metadata paths (-want +got):\n%s", d)
		}
	})
	t.Run("root issuer", func(t *testing.T) {
		f := newIssuer(t, rsaKey)
		f.set(func() { f.oidcOnly = true })
		v := newVerifier(t, f, nil)
		want := []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"}
		if d := cmp.Diff(want, f.metadataPaths()); d != "" || !v.Ready() {
			t.Errorf("ready %v; metadata paths (-want +got):\n%s", v.Ready(), d)
		}
	})
	t.Run("metadata naming another issuer", func(t *testing.T) {
		f := newIssuer(t, rsaKey)
		f.set(func() { f.mdIssuer = "https://honest.example" })
		v := newVerifier(t, f, nil)
		st := v.Status()
		if st.Ready || st.Err == nil || !strings.Contains(st.Err.Error(), "not the configured one") {
			t.Fatalf("status %+v", st)
		}
		if n := f.jwksHits.Load(); n != 0 {
			t.Errorf("fetched the key set of a mismatched issuer %d times", n)
		}
	})
}

// TestPeriodicRefresh: loaded keys are refetched every RefreshInterval,
// so a key the issuer stopped publishing is dropped without any token
// asking for an unknown kid.
func TestPeriodicRefresh(t *testing.T) {
	f := newIssuer(t, rsaKey)
	v := newVerifier(t, f, func(c *VerifierConfig) {
		c.MinRefetchInterval = 10 * time.Millisecond
		c.RefreshInterval = 50 * time.Millisecond
	})
	f.setKeys(rsaKey2)
	testutil.Within(5*time.Second, func() bool { return v.keys.cur.Load().byKID[rsaKey.kid] == nil })
	snap := v.keys.cur.Load()
	if snap.byKID[rsaKey.kid] != nil || len(snap.byKID[rsaKey2.kid]) != 1 {
		t.Fatalf("keys after refreshes: %v", snap.byKID)
	}
}
