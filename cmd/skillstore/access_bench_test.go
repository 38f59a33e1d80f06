package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/skillstore/skillstore/auth"
	"github.com/skillstore/skillstore/internal/mcpload"
)

// benchIssuer starts an OAuth issuer on loopback (RFC 8414 metadata and a
// JWKS of one EC key) and returns its URL and an access token it signed
// for resource, valid for an hour, for a caller in group "bench".
func benchIssuer(b *testing.B, resource string) (string, string) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	var url string
	is := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			json.NewEncoder(w).Encode(map[string]string{"issuer": url, "jwks_uri": url + "/jwks"})
		case "/jwks":
			json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &k.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
		default:
			http.NotFound(w, r)
		}
	}))
	b.Cleanup(is.Close)
	url = is.URL
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: k, KeyID: "k1"}}, (&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	tok, err := jwt.Signed(sig).Claims(map[string]any{"iss": url, "sub": "bench", "aud": resource, "client_id": "bench",
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "scope": "skills:read", "groups": []string{"bench"}}).Serialize()
	if err != nil {
		b.Fatal(err)
	}
	return url, tok
}

// BenchmarkHTTPAuth measures 4 KB get_skill calls over Streamable HTTP
// (stateful, 2025-11-25) at 1 and 16 in flight against serve --http
// without authentication, with a static token (--token-file), with a JWT
// from an OAuth issuer on loopback (--oauth-issuer: verified once, then
// from the verifier's cache), and with the JWT under an access policy
// (--access-policy: the caller's view is filtered). Each server is its
// own process on this machine, measured through the same client
// (internal/mcpload); compare calls per second (1e9 / ns/op) within one
// run. The target: an authenticated call at least 0.9× an
// unauthenticated one.
func BenchmarkHTTPAuth(b *testing.B) {
	dir := benchTree(b)
	const resource = "https://skills.example.com/mcp"
	issuer, jwtToken := benchIssuer(b, resource)
	conf := b.TempDir()
	tokens := filepath.Join(conf, "tokens.yaml")
	os.WriteFile(tokens, []byte("tokens:\n  - {sha256: "+auth.HashToken("bench-static-token")+", subject: bench, groups: [bench]}\n"), 0o600)
	policy := filepath.Join(conf, "policy.yaml")
	os.WriteFile(policy, []byte("default: deny\nrules:\n  - {groups: [bench], sources: [\"*\"], skills: [bench]}\n"), 0o600)
	base := []string{"serve", "--source", dir, "--log-level", "error"}
	modes := []struct {
		name, token string
		flags       []string
	}{
		{"none", "", nil},
		{"static", "bench-static-token", []string{"--token-file", tokens, "--resource", resource}},
		{"jwt", jwtToken, []string{"--oauth-issuer", issuer, "--resource", resource}},
		{"jwt+policy", jwtToken, []string{"--oauth-issuer", issuer, "--resource", resource, "--access-policy", policy}},
	}
	conns := make([]*mcpload.HTTPConn, len(modes))
	for i, m := range modes {
		url := startHTTP(b, binary, append(base, m.flags...)...)
		opts := mcpload.Options{}
		if m.token != "" {
			opts.Header = http.Header{"Authorization": {"Bearer " + m.token}}
		}
		c, err := mcpload.DialHTTP(url, opts)
		if err != nil {
			b.Fatalf("%s: %v", m.name, err)
		}
		defer c.Close()
		conns[i] = c
	}
	tc := loadCase{"doc4K", "tools/call", `{"name":"get_skill","arguments":{"skill_name":"bench"}}`, 4096}
	for _, inflight := range []int{1, 16} {
		for i, m := range modes { // each mode in turn, so drifts of the machine hit all alike
			b.Run(m.name+"/inflight="+map[int]string{1: "1", 16: "16"}[inflight], func(b *testing.B) {
				load(b, conns[i], tc, inflight)
			})
		}
	}
}
