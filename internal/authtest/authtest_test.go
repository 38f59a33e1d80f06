package authtest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"
)

const (
	resource = "https://skills.example/mcp"
	other    = "https://other.example/mcp"
)

// decode returns a compact JWS's header and claims, unverified: what the
// server put in them (package auth's tests verify them).
func decode(t *testing.T, token string) (header, claims map[string]any) {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a compact JWS: %d parts", len(parts))
	}
	for i, dst := range []*map[string]any{&header, &claims} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, dst); err != nil {
			t.Fatal(err)
		}
	}
	return header, claims
}

// published returns the key ids of the server's JWKS, in its order.
func published(t *testing.T, s *Server) []string {
	t.Helper()
	resp, err := http.Get(s.Metadata.JWKSURI)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var set struct {
		Keys []struct {
			Kid string `json:"kid"`
			D   string `json:"d"`
		} `json:"keys"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		t.Fatal(err)
	}
	var kids []string
	for _, k := range set.Keys {
		if k.D != "" {
			t.Fatal("the JWKS publishes a private key")
		}
		kids = append(kids, k.Kid)
	}
	return kids
}

func TestServer(t *testing.T) {
	clients := append(DefaultClients(), Client{ID: "post-client", Groups: []string{"ops", "eng"}, TTL: 1500 * time.Millisecond, AuthMethod: "client_secret_post"})
	s := Start(t, Options{Clients: clients, Resources: []string{resource, other}, TTL: time.Minute})
	t.Logf("started in %v", s.StartTime)

	md := s.Metadata
	if md.Issuer != s.Issuer || md.TokenEndpoint != s.Issuer+"/token" || md.JWKSURI != s.Issuer+"/jwks" ||
		!slices.Contains(md.GrantTypesSupported, "client_credentials") ||
		!slices.Contains(md.TokenEndpointAuthMethods, "client_secret_basic") || !slices.Contains(md.TokenEndpointAuthMethods, "client_secret_post") ||
		!slices.Contains(md.ScopesSupported, ReadScope) {
		t.Errorf("metadata: %+v", md)
	}

	kid := s.Kids(t)[0]
	for _, tc := range []struct {
		req        TokenRequest
		wantHeader map[string]any
		wantClaims map[string]any
		ttl        float64
	}{
		{TokenRequest{Client: FinanceClient}, map[string]any{"alg": "RS256", "typ": "at+jwt", "kid": kid},
			map[string]any{"sub": FinanceClient, "client_id": FinanceClient, "groups": []any{"finance"}, "aud": resource, "iss": s.Issuer}, 60},
		{TokenRequest{Client: EngClient, Resource: other}, map[string]any{"alg": "RS256", "typ": "at+jwt", "kid": kid},
			map[string]any{"sub": EngClient, "client_id": EngClient, "groups": []any{"eng"}, "aud": other, "iss": s.Issuer}, 60},
		{TokenRequest{Client: ScopedClient}, map[string]any{"alg": "RS256", "typ": "at+jwt", "kid": kid},
			map[string]any{"sub": ScopedClient, "client_id": ScopedClient, "groups": []any{"eng"}, "scope": ReadScope, "aud": resource, "iss": s.Issuer}, 60},
		{TokenRequest{Client: "post-client"}, map[string]any{"alg": "RS256", "typ": "at+jwt", "kid": kid},
			map[string]any{"sub": "post-client", "client_id": "post-client", "groups": []any{"ops", "eng"}, "aud": resource, "iss": s.Issuer}, 2},
	} {
		header, claims := decode(t, s.TokenFor(t, tc.req))
		if d := cmp.Diff(tc.wantHeader, header); d != "" {
			t.Errorf("%s: header (-want +got):\n%s", tc.req.Client, d)
		}
		if got := claims["exp"].(float64) - claims["iat"].(float64); got != tc.ttl {
			t.Errorf("%s: lifetime %v s, want %v", tc.req.Client, got, tc.ttl)
		}
		for _, c := range []string{"exp", "iat", "jti"} {
			if claims[c] == nil {
				t.Errorf("%s: no %s claim", tc.req.Client, c)
			}
			delete(claims, c)
		}
		if d := cmp.Diff(tc.wantClaims, claims); d != "" {
			t.Errorf("%s: claims (-want +got):\n%s", tc.req.Client, d)
		}
	}

	refusals := []struct {
		req  TokenRequest
		want string
	}{
		{TokenRequest{Client: FinanceClient, Resource: "https://unknown.example/mcp"}, "invalid_target"},
		{TokenRequest{Client: FinanceClient, Scopes: []string{ReadScope}}, "invalid_scope"},
	}
	for _, r := range refusals {
		resp, err := s.Request(r.req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != http.StatusBadRequest || resp.Error != r.want || resp.AccessToken != "" {
			t.Errorf("%+v: HTTP %d, error %q, want 400 %q", r.req, resp.Status, resp.Error, r.want)
		}
	}
	if opaque := s.TokenFor(t, TokenRequest{Client: FinanceClient, Resource: "-"}); strings.Count(opaque, ".") == 2 {
		t.Error("a token without a resource indicator is a JWT; want oidc-provider's opaque token")
	}

	testSign(t, s, kid)
	testRotation(t, s, kid)
	testRestart(t, s)
}

// testSign: a token Sign makes carries the claims given, the signer's kid
// and typ at+jwt, and verifies with the published key; JWKSFetches counts
// the GETs of the JWKS.
func testSign(t *testing.T, s *Server, kid string) {
	before := s.JWKSFetches(t)
	resp, err := http.Get(s.Metadata.JWKSURI)
	if err != nil {
		t.Fatal(err)
	}
	var set jose.JSONWebKeySet
	err = json.NewDecoder(resp.Body).Decode(&set)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got := s.JWKSFetches(t); got != before+1 {
		t.Errorf("JWKSFetches: %d after one GET, was %d", got, before)
	}
	claims := map[string]any{"sub": "signed", "exp": float64(1), "groups": []any{"finance"}}
	token := s.Sign(t, claims)
	header, got := decode(t, token)
	if d := cmp.Diff(map[string]any{"alg": "RS256", "typ": "at+jwt", "kid": kid}, header); d != "" {
		t.Errorf("Sign: header (-want +got):\n%s", d)
	}
	if d := cmp.Diff(claims, got); d != "" {
		t.Errorf("Sign: claims (-want +got):\n%s", d)
	}
	jws, err := jose.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatal(err)
	}
	if keys := set.Key(kid); len(keys) != 1 {
		t.Fatalf("the JWKS has %d keys %s", len(keys), kid)
	} else if _, err := jws.Verify(keys[0]); err != nil {
		t.Errorf("Sign's token does not verify with the published key: %v", err)
	}
}

func testRotation(t *testing.T, s *Server, first string) {
	rotated := s.Rotate(t)
	if len(rotated) != 2 || rotated[1] != first || rotated[0] == first {
		t.Fatalf("after Rotate: %v, want [new %s]", rotated, first)
	}
	if d := cmp.Diff(rotated, published(t, s)); d != "" {
		t.Errorf("JWKS after Rotate (-kids +published):\n%s", d)
	}
	if h, _ := decode(t, s.Token(t, EngClient)); h["kid"] != rotated[0] {
		t.Errorf("after Rotate, signed by %v, want %s", h["kid"], rotated[0])
	}
	again := s.Rotate(t)
	if len(again) != 2 || again[1] != rotated[0] || slices.Contains(again, first) {
		t.Fatalf("after a second Rotate: %v, want [new %s]", again, rotated[0])
	}
	if d := cmp.Diff(again[:1], s.Retire(t)); d != "" {
		t.Errorf("Retire (-want +got):\n%s", d)
	}
	if d := cmp.Diff(again[:1], published(t, s)); d != "" {
		t.Errorf("JWKS after Retire (-want +got):\n%s", d)
	}
}

func testRestart(t *testing.T, s *Server) {
	issuer, kids := s.Issuer, s.Kids(t)
	s.Stop(t)
	if _, err := s.Request(TokenRequest{Client: FinanceClient}); err == nil {
		t.Fatal("a stopped server answered a token request")
	}
	s.Restart(t)
	if s.Issuer != issuer {
		t.Errorf("restarted as %s, was %s", s.Issuer, issuer)
	}
	if d := cmp.Diff(kids, published(t, s)); d != "" {
		t.Errorf("keys after Restart (-before +after):\n%s", d)
	}
	if h, _ := decode(t, s.Token(t, FinanceClient)); h["kid"] != kids[0] {
		t.Errorf("after Restart, signed by %v, want %s", h["kid"], kids[0])
	}
}

func TestKeysFromAlgAndPath(t *testing.T) {
	a := Start(t, Options{Resources: []string{resource}, Alg: "ES256"})
	b := Start(t, Options{Resources: []string{resource}, KeysFrom: a, Path: "/tenant"})
	if a.Issuer == b.Issuer || !strings.HasSuffix(b.Issuer, "/tenant") || b.Metadata.TokenEndpoint != b.Issuer+"/token" {
		t.Fatalf("issuers %s and %s, token endpoint %s", a.Issuer, b.Issuer, b.Metadata.TokenEndpoint)
	}
	if d := cmp.Diff(a.Kids(t), b.Kids(t)); d != "" {
		t.Errorf("KeysFrom: kids (-a +b):\n%s", d)
	}
	for _, s := range []*Server{a, b} {
		h, c := decode(t, s.Token(t, FinanceClient))
		if h["alg"] != "ES256" || h["kid"] != a.Kids(t)[0] || c["iss"] != s.Issuer {
			t.Errorf("%s: header %v, iss %v", s.Issuer, h, c["iss"])
		}
	}
}
