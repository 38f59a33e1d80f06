package auth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/skillstore/skillstore/access"
)

// hmacConfusion signs claims with HS256, using the PEM of k's public key
// as the HMAC secret: the classic algorithm-confusion forgery.
func hmacConfusion(t testing.TB, k signingKey, c map[string]any) string {
	der, err := x509.MarshalPKIXPublicKey(k.key.Public())
	if err != nil {
		t.Fatal(err)
	}
	secret := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	unsigned := rawToken(map[string]string{"alg": "HS256", "typ": "at+jwt", "kid": k.kid}, c, nil)
	unsigned = strings.TrimSuffix(unsigned, ".")
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(unsigned))
	return unsigned + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// tamper replaces the payload of tok with c, keeping its signature.
func tamper(tok string, c map[string]any) string {
	parts := strings.Split(tok, ".")
	other := strings.Split(rawToken(nil, c, nil), ".")
	return parts[0] + "." + other[1] + "." + parts[2]
}

// flipSig changes one bit of tok's signature.
func flipSig(tok string) string {
	parts := strings.Split(tok, ".")
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sig[len(sig)/2] ^= 1
	return parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// verifyCase is one token of TestVerify: the claims of a valid token,
// edited by edit, signed by key with typ; or, if raw is set, what raw
// builds from the valid claims. want is the error (nil: accepted).
type verifyCase struct {
	name string
	key  signingKey
	typ  string
	edit func(c map[string]any)
	raw  func(valid map[string]any) string
	want error
}

// set returns an edit that sets claim k to val (or deletes it, for nil).
func set(k string, val any) func(map[string]any) {
	return func(c map[string]any) {
		if val == nil {
			delete(c, k)
		} else {
			c[k] = val
		}
	}
}

// verifyCases are the tokens TestVerify runs, with now their issue time.
func verifyCases(t *testing.T, iss string, now time.Time) []verifyCase {
	at := "at+jwt"
	return []verifyCase{
		{"RS256", rsaKey, at, nil, nil, nil},
		{"ES256", ecKey, at, nil, nil, nil},
		{"ES384", ec384Key, at, nil, nil, nil},
		{"EdDSA", edKey, at, nil, nil, nil},
		{"PS256", psKey, at, nil, nil, nil},
		{"typ application/at+jwt", rsaKey, "application/at+jwt", nil, nil, nil},
		{"typ AT+JWT", rsaKey, "AT+JWT", nil, nil, nil},
		{"aud array", rsaKey, at, set("aud", []string{"https://other", testResource}), nil, nil},
		{"exp within leeway", rsaKey, at, set("exp", now.Add(-20*time.Second).Unix()), nil, nil},
		{"expired", rsaKey, at, set("exp", now.Add(-time.Minute).Unix()), nil, ErrExpired},
		{"not yet valid", rsaKey, at, set("nbf", now.Add(time.Minute).Unix()), nil, ErrNotYetValid},
		{"issued in the future", rsaKey, at, set("iat", now.Add(time.Hour).Unix()), nil, ErrNotYetValid},
		{"foreign issuer", rsaKey, at, set("iss", "https://evil.example"), nil, ErrIssuer},
		{"issuer with trailing slash", rsaKey, at, set("iss", iss+"/"), nil, ErrIssuer},
		{"foreign audience", rsaKey, at, set("aud", "https://other.example/mcp"), nil, ErrAudience},
		{"no audience", rsaKey, at, set("aud", nil), nil, ErrAudience},
		{"no exp", rsaKey, at, set("exp", nil), nil, ErrClaims},
		{"no sub", rsaKey, at, set("sub", nil), nil, ErrClaims},
		{"exp a string", rsaKey, at, set("exp", "tomorrow"), nil, ErrClaims},
		{"groups a string", rsaKey, at, set("groups", "finance"), nil, ErrClaims},
		{"5000 groups", rsaKey, at, set("groups", manyStrings(5000)), nil, ErrTokenTooLarge},
		{"typ JWT", rsaKey, "JWT", nil, nil, ErrType},
		{"no typ", rsaKey, "", nil, nil, ErrType},
		{"signed by a foreign key with a known kid", otherRSA, at, nil, nil, ErrSignature},
		{"RSA kid, ES256 alg", signingKey{rsaKey.kid, jose.ES256, ecKey.key}, at, nil, nil, ErrUnknownKey},
		{name: "alg none", raw: func(c map[string]any) string {
			return rawToken(map[string]string{"alg": "none", "typ": at}, c, nil)
		}, want: ErrAlgorithm},
		{name: "alg none, kid of a real key", raw: func(c map[string]any) string {
			return rawToken(map[string]string{"alg": "none", "typ": at, "kid": rsaKey.kid}, c, nil)
		}, want: ErrAlgorithm},
		{name: "HMAC with the RSA public key", raw: func(c map[string]any) string { return hmacConfusion(t, rsaKey, c) }, want: ErrAlgorithm},
		{name: "HMAC with the EC public key", raw: func(c map[string]any) string { return hmacConfusion(t, ecKey, c) }, want: ErrAlgorithm},
		{name: "tampered payload", raw: func(c map[string]any) string {
			forged := claims(iss, now)
			forged["groups"] = []string{"admin"}
			return tamper(mint(t, rsaKey, at, c), forged)
		}, want: ErrSignature},
		{name: "tampered signature", raw: func(c map[string]any) string { return flipSig(mint(t, ecKey, at, c)) }, want: ErrSignature},
		{name: "payload tampered to not JSON", raw: func(c map[string]any) string {
			p := strings.Split(mint(t, rsaKey, at, c), ".")
			return p[0] + "." + base64.RawURLEncoding.EncodeToString([]byte("not json")) + "." + p[2]
		}, want: ErrSignature},
		{name: "signed payload not JSON", raw: func(map[string]any) string { return signRaw(t, rsaKey, []byte("not json")) }, want: ErrMalformedToken},
		{name: "signed payload a JSON array", raw: func(map[string]any) string { return signRaw(t, rsaKey, []byte(`["alice"]`)) }, want: ErrMalformedToken},
		{name: "not a JWT", raw: func(map[string]any) string { return "opaque-token-value" }, want: ErrMalformedToken},
		{name: "four parts", raw: func(c map[string]any) string { return mint(t, rsaKey, at, c) + ".x" }, want: ErrMalformedToken},
		{name: "oversize", raw: func(map[string]any) string { return strings.Repeat("a", DefaultMaxTokenBytes+1) }, want: ErrTokenTooLarge},
	}
}

// TestVerify runs every kind of token through one Verifier.
func TestVerify(t *testing.T) {
	f := newIssuer(t, rsaKey, ecKey, edKey, psKey, ec384Key)
	now := time.Now()
	v := newVerifier(t, f, func(c *VerifierConfig) { c.Now = func() time.Time { return now } })
	for _, tc := range verifyCases(t, f.URL, now) {
		t.Run(tc.name, func(t *testing.T) {
			c := claims(f.URL, now)
			var tok string
			if tc.raw != nil {
				tok = tc.raw(c)
			} else {
				if tc.edit != nil {
					tc.edit(c)
				}
				tok = mint(t, tc.key, tc.typ, c)
			}
			p, err := v.Authenticate(context.Background(), tok)
			if !errors.Is(err, tc.want) || (err != nil) != (tc.want != nil) {
				t.Fatalf("got error %v; want %v", err, tc.want)
			}
			var want *access.Principal
			if tc.want == nil {
				want = &access.Principal{Subject: "alice", ClientID: "cli", Groups: []string{"finance", "ops"}, Scopes: []string{"skills:read", "skills:write"}}
			}
			if d := cmp.Diff(want, p, ignoreExpires); d != "" {
				t.Errorf("principal (-want +got):\n%s", d)
			}
		})
	}
}

// signRaw signs payload as it is, with typ at+jwt.
func signRaw(t testing.TB, k signingKey, payload []byte) string {
	t.Helper()
	jws, err := signer(t, k, "at+jwt").Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// manyStrings returns n distinct short strings.
func manyStrings(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("g%d", i)
	}
	return out
}

// TestClaimBounds checks the claims' bounds and shapes with a token size
// limit large enough to let thousands of claims and groups through.
func TestClaimBounds(t *testing.T) {
	f := newIssuer(t, rsaKey)
	now := time.Now()
	v := newVerifier(t, f, func(c *VerifierConfig) { c.MaxTokenBytes = 1 << 20; c.GroupsClaim = "roles" })
	cases := []struct {
		name string
		edit func(map[string]any)
		want error
		p    *access.Principal
	}{
		{"5000 extra claims", func(c map[string]any) {
			for i := range 5000 {
				c[fmt.Sprintf("x%d", i)] = i
			}
		}, nil, &access.Principal{Subject: "alice", ClientID: "cli", Scopes: []string{"a"}}},
		{"256 groups", func(c map[string]any) { c["roles"] = manyStrings(256) }, nil,
			&access.Principal{Subject: "alice", ClientID: "cli", Scopes: []string{"a"}, Groups: manyStrings(256)}},
		{"5000 groups", func(c map[string]any) { c["roles"] = manyStrings(5000) }, ErrClaims, nil},
		{"a 2000-byte group", func(c map[string]any) { c["roles"] = []string{strings.Repeat("g", 2000)} }, ErrClaims, nil},
		{"5000 scopes", func(c map[string]any) { c["scope"] = strings.Join(manyStrings(5000), " ") }, ErrClaims, nil},
		{"a 2000-byte sub", func(c map[string]any) { c["sub"] = strings.Repeat("s", 2000) }, ErrClaims, nil},
		{"duplicate and empty groups", func(c map[string]any) { c["roles"] = []string{"b", "", "a", "b"} }, nil,
			&access.Principal{Subject: "alice", ClientID: "cli", Scopes: []string{"a"}, Groups: []string{"b", "a"}}},
		{"scp array, azp", func(c map[string]any) {
			delete(c, "scope")
			delete(c, "client_id")
			c["scp"] = []string{"x", "y"}
			c["azp"] = "web"
		}, nil, &access.Principal{Subject: "alice", ClientID: "web", Scopes: []string{"x", "y"}}},
		{"scp string", func(c map[string]any) { delete(c, "scope"); c["scp"] = "x  y" }, nil,
			&access.Principal{Subject: "alice", ClientID: "cli", Scopes: []string{"x", "y"}}},
		{"scope an array", func(c map[string]any) { c["scope"] = []string{"x"} }, ErrClaims, nil},
		{"client_id a number", func(c map[string]any) { c["client_id"] = 7 }, ErrClaims, nil},
		{"the default groups claim is ignored", func(c map[string]any) { c["groups"] = []string{"ignored"} }, nil,
			&access.Principal{Subject: "alice", ClientID: "cli", Scopes: []string{"a"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := claims(f.URL, now)
			delete(c, "groups")
			c["scope"] = "a"
			tc.edit(c)
			p, err := v.Authenticate(context.Background(), mint(t, rsaKey, "at+jwt", c))
			if !errors.Is(err, tc.want) || (err != nil) != (tc.want != nil) {
				t.Fatalf("got error %v; want %v", err, tc.want)
			}
			if d := cmp.Diff(tc.p, p, ignoreExpires); d != "" {
				t.Errorf("principal (-want +got):\n%s", d)
			}
		})
	}
}

// TestTypes checks that Types can admit tokens without typ (or "JWT").
func TestTypes(t *testing.T) {
	f := newIssuer(t, rsaKey)
	v := newVerifier(t, f, func(c *VerifierConfig) { c.Types = []string{"at+jwt", "JWT", ""} })
	for _, typ := range []string{"", "JWT", "jwt", "at+jwt"} {
		if _, err := v.Authenticate(context.Background(), mint(t, rsaKey, typ, claims(f.URL, time.Now()))); err != nil {
			t.Errorf("typ %q: %v", typ, err)
		}
	}
	if _, err := v.Authenticate(context.Background(), mint(t, rsaKey, "id+jwt", claims(f.URL, time.Now()))); !errors.Is(err, ErrType) {
		t.Errorf("typ id+jwt: %v; want ErrType", err)
	}
}

// TestConfig checks that unusable or unsafe configurations are refused.
func TestConfig(t *testing.T) {
	cases := []struct {
		name string
		cfg  VerifierConfig
		ok   bool
	}{
		{"https", VerifierConfig{Issuer: "https://as.example", Resource: testResource}, true},
		{"http loopback", VerifierConfig{Issuer: "http://127.0.0.1:9", Resource: testResource}, true},
		{"http localhost", VerifierConfig{Issuer: "http://localhost:9/x", Resource: testResource}, true},
		{"http remote", VerifierConfig{Issuer: "http://as.example", Resource: testResource}, false},
		{"http remote allowed", VerifierConfig{Issuer: "http://as.example", Resource: testResource, AllowHTTP: true}, true},
		{"no issuer", VerifierConfig{Resource: testResource}, false},
		{"relative issuer", VerifierConfig{Issuer: "as.example", Resource: testResource}, false},
		{"issuer with query", VerifierConfig{Issuer: "https://as.example?x=1", Resource: testResource}, false},
		{"no resource", VerifierConfig{Issuer: "https://as.example"}, false},
		{"resource with fragment", VerifierConfig{Issuer: "https://as.example", Resource: testResource + "#x"}, false},
		{"HS256", VerifierConfig{Issuer: "https://as.example", Resource: testResource, Algorithms: []string{"HS256"}}, false},
		{"none", VerifierConfig{Issuer: "https://as.example", Resource: testResource, Algorithms: []string{"none"}}, false},
		{"ES256 only", VerifierConfig{Issuer: "https://as.example", Resource: testResource, Algorithms: []string{"ES256"}}, true},
		{"groups claim with a quote", VerifierConfig{Issuer: "https://as.example", Resource: testResource, GroupsClaim: `a"b`}, false},
		{"namespaced groups claim", VerifierConfig{Issuer: "https://as.example", Resource: testResource, GroupsClaim: "https://ex.com/groups"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.cfg.check(); (err == nil) != tc.ok {
				t.Errorf("check: %v; want ok %v", err, tc.ok)
			}
		})
	}
}

// TestAlgorithmsNarrowed checks that Algorithms narrows the allow-list.
func TestAlgorithmsNarrowed(t *testing.T) {
	f := newIssuer(t, rsaKey, ecKey)
	v := newVerifier(t, f, func(c *VerifierConfig) { c.Algorithms = []string{"ES256"} })
	if _, err := v.Authenticate(context.Background(), mint(t, ecKey, "at+jwt", claims(f.URL, time.Now()))); err != nil {
		t.Errorf("ES256: %v", err)
	}
	if _, err := v.Authenticate(context.Background(), mint(t, rsaKey, "at+jwt", claims(f.URL, time.Now()))); !errors.Is(err, ErrAlgorithm) {
		t.Errorf("RS256: %v; want ErrAlgorithm", err)
	}
}

// ignoreExpires leaves out of a comparison of principals when their
// token expires, which TestPrincipalExpires checks.
var ignoreExpires = cmpopts.IgnoreFields(access.Principal{}, "Expires")

// TestPrincipalExpires: a JWT's principal carries when the token stops
// being accepted (exp plus the leeway), cached or not, so that what
// outlives a request ends with it; a static token's never expires.
func TestPrincipalExpires(t *testing.T) {
	f := newIssuer(t, rsaKey)
	v := newVerifier(t, f, func(c *VerifierConfig) { c.Leeway = 5 * time.Second })
	c := claims(f.URL, time.Now())
	exp := time.Now().Add(10 * time.Minute).Truncate(time.Second)
	c["exp"] = exp.Unix()
	tok := mint(t, rsaKey, "at+jwt", c)
	for _, pass := range []string{"verified", "cached"} {
		p, err := v.Authenticate(context.Background(), tok)
		if err != nil {
			t.Fatal(err)
		}
		if want := exp.Add(5 * time.Second); !p.Expires.Equal(want) || p.Expired(want.Add(-time.Millisecond)) || !p.Expired(want) {
			t.Errorf("%s: Expires %v; want %v", pass, p.Expires, want)
		}
	}
	st, err := ParseStaticTokens([]byte("tokens:\n  - {sha256: " + HashToken("tok") + ", subject: ci}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := st.Authenticate(context.Background(), "tok"); err != nil || !p.Expires.IsZero() || p.Expired(time.Now().Add(100*365*24*time.Hour)) {
		t.Errorf("a static token's principal: %+v, %v; want no expiry", p, err)
	}
}
