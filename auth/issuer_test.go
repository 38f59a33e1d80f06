package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// testResource is the resource URI every test token is issued for.
const testResource = "https://mcp.example.com/mcp"

// signingKey is a private key with its kid and algorithm.
type signingKey struct {
	kid string
	alg jose.SignatureAlgorithm
	key crypto.Signer
}

// public returns the key's public JWK, as a JWKS lists it.
func (k signingKey) public() jose.JSONWebKey {
	return jose.JSONWebKey{Key: k.key.Public(), KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"}
}

var (
	keysOnce               sync.Once
	rsaKey, rsaKey2, ecKey signingKey
	edKey, ec384Key, psKey signingKey
	otherRSA               signingKey // never published: a foreign signer
)

// TestMain generates the test keys once (RSA generation is slow), before
// any test names them.
func TestMain(m *testing.M) {
	testKeys()
	os.Exit(m.Run())
}

// testKeys generates the test keys.
func testKeys() {
	keysOnce.Do(func() {
		r := func() *rsa.PrivateKey {
			k, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				panic(err)
			}
			return k
		}
		ec := func(c elliptic.Curve) *ecdsa.PrivateKey {
			k, err := ecdsa.GenerateKey(c, rand.Reader)
			if err != nil {
				panic(err)
			}
			return k
		}
		_, ed, _ := ed25519.GenerateKey(rand.Reader)
		rsaKey = signingKey{"rsa-1", jose.RS256, r()}
		rsaKey2 = signingKey{"rsa-2", jose.RS256, r()}
		psKey = signingKey{"ps-1", jose.PS256, r()}
		otherRSA = signingKey{"rsa-1", jose.RS256, r()}
		ecKey = signingKey{"ec-1", jose.ES256, ec(elliptic.P256())}
		ec384Key = signingKey{"ec-384", jose.ES384, ec(elliptic.P384())}
		edKey = signingKey{"ed-1", jose.EdDSA, ed}
	})
}

// fakeIssuer is an authorization server for tests: RFC 8414 metadata and
// a JWKS whose keys and behaviour the test changes while it runs.
type fakeIssuer struct {
	*httptest.Server
	mu       sync.Mutex
	keys     []jose.JSONWebKey
	jwksMode string        // "", "garbage", "stall", "huge", "down", "500"
	mdIssuer string        // the issuer its metadata names; "" = its URL
	oidcOnly bool          // serve only /.well-known/openid-configuration
	stall    chan struct{} // closed at cleanup, ends stalls
	jwksHits atomic.Int64
	mdPaths  []string // metadata paths asked for, in order
}

// newIssuer starts a fake issuer publishing keys.
func newIssuer(t testing.TB, keys ...signingKey) *fakeIssuer {
	t.Helper()
	f := &fakeIssuer{stall: make(chan struct{})}
	f.setKeys(keys...)
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		close(f.stall)
		f.Server.Close()
	})
	return f
}

// setKeys replaces the published keys (a rotation).
func (f *fakeIssuer) setKeys(keys ...signingKey) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys = nil
	for _, k := range keys {
		f.keys = append(f.keys, k.public())
	}
}

// metadataPaths returns the metadata paths asked for so far.
func (f *fakeIssuer) metadataPaths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.mdPaths...)
}

// set runs edit with f locked, to change its fields while it serves.
func (f *fakeIssuer) set(edit func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	edit()
}

// mode sets how the JWKS endpoint answers.
func (f *fakeIssuer) mode(m string) {
	f.mu.Lock()
	f.jwksMode = m
	f.mu.Unlock()
}

func (f *fakeIssuer) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	mode, keys, mdIssuer, oidcOnly := f.jwksMode, f.keys, f.mdIssuer, f.oidcOnly
	f.mu.Unlock()
	if mdIssuer == "" {
		mdIssuer = f.URL
	}
	switch {
	case strings.Contains(r.URL.Path, "/.well-known/oauth-authorization-server"), strings.Contains(r.URL.Path, "/.well-known/openid-configuration"):
		f.mu.Lock()
		f.mdPaths = append(f.mdPaths, r.URL.Path)
		f.mu.Unlock()
		if mode == "down" || oidcOnly && strings.Contains(r.URL.Path, "oauth") {
			http.Error(w, "no", http.StatusServiceUnavailable)
			return
		}
		json.NewEncoder(w).Encode(map[string]string{"issuer": mdIssuer, "jwks_uri": f.URL + "/jwks"})
	case r.URL.Path == "/jwks":
		f.jwksHits.Add(1)
		f.serveJWKS(w, r, mode, keys)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeIssuer) serveJWKS(w http.ResponseWriter, r *http.Request, mode string, keys []jose.JSONWebKey) {
	switch mode {
	case "down", "500":
		http.Error(w, "no", http.StatusServiceUnavailable)
	case "garbage":
		w.Write([]byte(`<html>this is not a key set</html>`))
	case "stall":
		w.Write([]byte(`{"keys": [`))
		w.(http.Flusher).Flush()
		select {
		case <-f.stall:
		case <-r.Context().Done():
		}
	case "huge":
		w.Write([]byte(`{"keys": [], "pad": "`))
		w.Write([]byte(strings.Repeat("x", 2<<20)))
		w.Write([]byte(`"}`))
	default:
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: keys})
	}
}

// claims are a valid token's claims for iss at now; tests edit them.
func claims(iss string, now time.Time) map[string]any {
	return map[string]any{
		"iss": iss, "sub": "alice", "aud": testResource, "client_id": "cli",
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "nbf": now.Unix(),
		"scope": "skills:read skills:write", "groups": []string{"finance", "ops"},
		"jti": "j1",
	}
}

// signer signs with k (its kid in the header), with the typ header typ
// ("" for none).
func signer(t testing.TB, k signingKey, typ string) jose.Signer {
	t.Helper()
	opts := &jose.SignerOptions{}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: jose.JSONWebKey{Key: k.key, KeyID: k.kid}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mint signs c with k, with the typ header typ ("" for none).
func mint(t testing.TB, k signingKey, typ string, c map[string]any) string {
	t.Helper()
	tok, err := jwt.Signed(signer(t, k, typ)).Claims(c).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// rawToken assembles a compact JWS from a header, claims and signature.
func rawToken(header, claims any, sig []byte) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(header) + "." + enc(claims) + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// clock is a settable time for Verifier.Now.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock { c := &clock{}; c.set(t); return c }
func (c *clock) set(t time.Time)  { c.ns.Store(t.UnixNano()) }
func (c *clock) now() time.Time   { return time.Unix(0, c.ns.Load()) }
func (c *clock) add(d time.Duration) {
	c.ns.Add(int64(d))
}

// newVerifier starts a Verifier for f's issuer, closed at cleanup.
func newVerifier(t testing.TB, f *fakeIssuer, edit func(*VerifierConfig)) *Verifier {
	t.Helper()
	cfg := VerifierConfig{Issuer: f.URL, Resource: testResource, FetchTimeout: 2 * time.Second}
	if edit != nil {
		edit(&cfg)
	}
	v, err := NewVerifier(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}
