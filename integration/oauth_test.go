package integration

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/auth"
	"github.com/skillstore/skillstore/internal/authtest"
	"github.com/skillstore/skillstore/internal/testutil"
)

// The tests of package auth against a real authorization server
// (oidc-provider, internal/authtest): every token here was issued by it,
// or built from one it issued.

const (
	oauthResource   = "https://skills.example/mcp"
	foreignResource = "https://other.example/mcp"
)

// startIssuer runs the authorization server for oauthResource and
// foreignResource.
func startIssuer(t *testing.T, opts authtest.Options) *authtest.Server {
	t.Helper()
	opts.Resources = []string{oauthResource, foreignResource}
	s := authtest.Start(t, opts)
	t.Logf("authorization server started in %v", s.StartTime.Round(time.Millisecond))
	return s
}

// clock is a Verifier's clock that a test moves forward: past the refetch
// rate limit, which config sets to an hour so that no real delay can lift
// it (tokens checked on it must live a day, dayLong), or past a token's exp.
type clock struct{ off atomic.Int64 }

const rateLimit = time.Hour

var dayLong = authtest.Options{TTL: 24 * time.Hour}

func (c *clock) now() time.Time { return time.Now().Add(time.Duration(c.off.Load())) }
func (c *clock) pastRateLimit() { c.off.Add(int64(rateLimit + time.Second)) }
func (c *clock) config(cfg *auth.VerifierConfig) {
	cfg.Now, cfg.MinRefetchInterval = c.now, rateLimit
}

// newVerifier starts a Verifier of issuer's tokens for oauthResource,
// closed when the test ends; edit, if given, changes the configuration.
func newVerifier(t *testing.T, issuer string, edit func(*auth.VerifierConfig)) *auth.Verifier {
	t.Helper()
	cfg := auth.VerifierConfig{Issuer: issuer, Resource: oauthResource}
	if edit != nil {
		edit(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	v, err := auth.NewVerifier(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

// resourceServer is the HTTP side over v.
func resourceServer(t *testing.T, issuer string, v *auth.Verifier) *auth.ResourceServer {
	t.Helper()
	rs, err := auth.NewResourceServer(auth.ResourceConfig{
		Resource: oauthResource, AuthorizationServers: []string{issuer},
		ScopesSupported: []string{authtest.ReadScope}, Authenticator: v,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// answer is how the HTTP side answers a request bearing a token.
type answer struct {
	Status int
	Code   string // the RFC 6750 error code, "" when accepted
}

// checkHTTP runs a request bearing token through rs.Check.
func checkHTTP(rs *auth.ResourceServer, token string, scopes ...string) answer {
	r := httptest.NewRequest(http.MethodPost, oauthResource, nil)
	r.Header.Set("Authorization", "Bearer "+token)
	if _, d := rs.Check(r, scopes...); d != nil {
		return answer{d.Status, d.Code}
	}
	return answer{http.StatusOK, ""}
}

// authenticate verifies token and checks that a refusal's text holds no
// part of it.
func authenticate(t *testing.T, v *auth.Verifier, token string) (*access.Principal, error) {
	t.Helper()
	p, err := v.Authenticate(context.Background(), token)
	if err != nil {
		for _, part := range strings.Split(token, ".") {
			if len(part) >= 8 && strings.Contains(err.Error(), part) {
				t.Errorf("the refusal %q quotes the token", err)
			}
		}
	}
	return p, err
}

// mustAccept verifies token and returns its principal.
func mustAccept(t *testing.T, v *auth.Verifier, token, what string) *access.Principal {
	t.Helper()
	p, err := authenticate(t, v, token)
	if err != nil {
		t.Fatalf("%s: refused: %v", what, err)
	}
	return p
}

// mustRefuse checks that v refuses token for the reason want.
func mustRefuse(t *testing.T, v *auth.Verifier, token string, want error, what string) {
	t.Helper()
	if p, err := authenticate(t, v, token); !errors.Is(err, want) {
		t.Errorf("%s: got %v, %v; want %v", what, p, err, want)
	}
}

// ignoreExpires leaves out of a comparison of principals when their
// token expires (auth's TestPrincipalExpires checks it).
var ignoreExpires = cmpopts.IgnoreFields(access.Principal{}, "Expires")

// TestOAuthPrincipals: each client's token becomes the principal its
// registration says, for every signing algorithm the Verifier allows; a
// second call is answered from the cache.
func TestOAuthPrincipals(t *testing.T) {
	srv := startIssuer(t, authtest.Options{})
	v := newVerifier(t, srv.Issuer, nil)
	st := v.Status()
	if !st.Ready || st.Keys != 1 || st.Err != nil {
		t.Fatalf("status after start: %+v", st)
	}
	if got := v.Stats().Fetches; got != 2 { // RFC 8414 metadata, then the JWKS
		t.Errorf("fetches at start: %d, want 2", got)
	}
	rs := resourceServer(t, srv.Issuer, v)
	for _, tc := range []struct {
		req    authtest.TokenRequest
		want   *access.Principal
		answer answer // to a request requiring skills:read
	}{
		{authtest.TokenRequest{Client: authtest.FinanceClient},
			&access.Principal{Subject: "finance-client", ClientID: "finance-client", Groups: []string{"finance"}},
			answer{http.StatusForbidden, "insufficient_scope"}},
		{authtest.TokenRequest{Client: authtest.EngClient},
			&access.Principal{Subject: "eng-client", ClientID: "eng-client", Groups: []string{"eng"}},
			answer{http.StatusForbidden, "insufficient_scope"}},
		{authtest.TokenRequest{Client: authtest.ScopedClient},
			&access.Principal{Subject: "scoped-client", ClientID: "scoped-client", Groups: []string{"eng"}, Scopes: []string{"skills:read"}},
			answer{http.StatusOK, ""}},
		{authtest.TokenRequest{Client: authtest.ScopedClient, Scopes: []string{}},
			&access.Principal{Subject: "scoped-client", ClientID: "scoped-client", Groups: []string{"eng"}},
			answer{http.StatusForbidden, "insufficient_scope"}},
	} {
		token := srv.TokenFor(t, tc.req)
		before := v.Stats()
		p := mustAccept(t, v, token, tc.req.Client)
		if d := cmp.Diff(tc.want, p, ignoreExpires); d != "" {
			t.Errorf("%s, scopes %v: principal (-want +got):\n%s", tc.req.Client, tc.req.Scopes, d)
		}
		again := mustAccept(t, v, token, tc.req.Client)
		after := v.Stats()
		if again != p || after.SignatureChecks != before.SignatureChecks+1 || after.CacheHits != before.CacheHits+1 {
			t.Errorf("%s: the second call was not answered from the cache: %+v then %+v", tc.req.Client, before, after)
		}
		if got := checkHTTP(rs, token, authtest.ReadScope); got != tc.answer {
			t.Errorf("%s, scopes %v: requiring %s answered %+v, want %+v", tc.req.Client, tc.req.Scopes, authtest.ReadScope, got, tc.answer)
		}
	}
	if got := v.Stats().Fetches; got != 2 {
		t.Errorf("fetches after verifying: %d, want 2 (the keys are fetched once)", got)
	}

	for _, alg := range []string{"PS256", "ES256", "ES384", "EdDSA"} {
		t.Run(alg, func(t *testing.T) {
			t.Parallel()
			srv := startIssuer(t, authtest.Options{Alg: alg})
			v := newVerifier(t, srv.Issuer, nil)
			want := &access.Principal{Subject: "finance-client", ClientID: "finance-client", Groups: []string{"finance"}}
			if d := cmp.Diff(want, mustAccept(t, v, srv.Token(t, authtest.FinanceClient), alg), ignoreExpires); d != "" {
				t.Errorf("principal (-want +got):\n%s", d)
			}
			restricted := newVerifier(t, srv.Issuer, func(c *auth.VerifierConfig) { c.Algorithms = []string{"RS256"} })
			mustRefuse(t, restricted, srv.Token(t, authtest.EngClient), auth.ErrAlgorithm, alg+" with only RS256 allowed")
		})
	}
}

// TestOAuthIssuerWithPath: an issuer with a path that serves its metadata
// under that path (oidc-provider mounted as Keycloak's realms are), not at
// the RFC 8414 path-inserted URL, is found by the Verifier's third
// discovery URL.
func TestOAuthIssuerWithPath(t *testing.T) {
	srv := startIssuer(t, authtest.Options{Path: "/realms/skills"})
	if !strings.HasSuffix(srv.Issuer, "/realms/skills") {
		t.Fatalf("issuer %s", srv.Issuer)
	}
	v := newVerifier(t, srv.Issuer, nil)
	if st := v.Status(); !st.Ready || st.Err != nil {
		t.Fatalf("status: %+v", st)
	}
	if got := v.Stats().Fetches; got != 4 { // two path-inserted 404s, the appended OpenID metadata, the JWKS
		t.Errorf("fetches at start: %d, want 4", got)
	}
	want := &access.Principal{Subject: "eng-client", ClientID: "eng-client", Groups: []string{"eng"}}
	if d := cmp.Diff(want, mustAccept(t, v, srv.Token(t, authtest.EngClient), "token of an issuer with a path"), ignoreExpires); d != "" {
		t.Errorf("principal (-want +got):\n%s", d)
	}
}

// TestOAuthKeyRotation: after the issuer rotates its key, tokens signed
// with the new key are accepted after one refetch of the JWKS (rate
// limited), and tokens signed with a key the issuer dropped are refused
// once the Verifier has refetched — on an unknown kid, or by its periodic
// refresh.
func TestOAuthKeyRotation(t *testing.T) {
	srv := startIssuer(t, dayLong)
	clk := new(clock)
	v := newVerifier(t, srv.Issuer, clk.config)
	fetches := func() uint64 { return v.Stats().Fetches }
	keyA := srv.Kids(t)[0]
	tokA := srv.Token(t, authtest.FinanceClient)
	heldA := []string{srv.Token(t, authtest.EngClient), srv.Token(t, authtest.ScopedClient)} // signed with A, not shown yet
	mustAccept(t, v, tokA, "token signed with the first key")

	kids := srv.Rotate(t) // publishes [B, A], signs with B
	tokB := srv.Token(t, authtest.FinanceClient)
	mustRefuse(t, v, tokB, auth.ErrUnknownKey, "new key within the refetch rate limit of the start-up fetch")
	if got := fetches(); got != 2 {
		t.Errorf("fetches: %d, want 2 (no refetch within the rate limit)", got)
	}
	clk.pastRateLimit()
	mustAccept(t, v, tokB, "token signed with the new key, after the rate limit") // the refusal was not cached
	if got := fetches(); got != 3 {
		t.Errorf("fetches: %d, want 3 (one refetch of the JWKS)", got)
	}
	mustAccept(t, v, srv.Token(t, authtest.EngClient), "another token signed with the new key")
	mustAccept(t, v, heldA[0], "unseen token signed with the old key, still published")
	if got, st := fetches(), v.Status(); got != 3 || st.Keys != 2 {
		t.Errorf("fetches %d, keys %d; want 3 and 2 (%v)", got, st.Keys, kids)
	}

	srv.Rotate(t) // publishes [C, B]: A is dropped
	tokC := srv.Token(t, authtest.FinanceClient)
	clk.pastRateLimit()
	mustAccept(t, v, tokC, "token signed with the third key")
	mustRefuse(t, v, heldA[1], auth.ErrUnknownKey, "unseen token signed with the dropped key "+keyA)
	mustAccept(t, v, tokA, "cached token signed with the dropped key (documented: a cached verification stands until exp)")
	if got := fetches(); got != 4 {
		t.Errorf("fetches: %d, want 4 (the unknown kid of the dropped key is rate limited)", got)
	}

	// The periodic refresh drops a retired key without any token asking.
	w := newVerifier(t, srv.Issuer, func(c *auth.VerifierConfig) {
		c.RefreshInterval, c.MinRefetchInterval = 200*time.Millisecond, 100*time.Millisecond
	})
	if st := w.Status(); st.Keys != 2 {
		t.Fatalf("keys: %d, want 2", st.Keys)
	}
	srv.Retire(t) // publishes [C]
	testutil.Within(10*time.Second, func() bool { return w.Status().Keys == 1 })
	if st := w.Status(); st.Keys != 1 || st.Err != nil {
		t.Fatalf("after the issuer retired a key and 10 s of refreshes: %+v", st)
	}
	mustRefuse(t, w, tokB, auth.ErrUnknownKey, "token signed with the retired key, unseen by this verifier")
}

// TestOAuthExpiry: a token is refused once its exp has passed (without
// leeway), even after it was accepted and cached; within the leeway it is
// still accepted. The verifiers' clock is moved past exp, not waited for.
func TestOAuthExpiry(t *testing.T) {
	brief := authtest.Client{ID: "brief-client", Groups: []string{"eng"}, TTL: 2 * time.Second}
	srv := startIssuer(t, authtest.Options{Clients: append(authtest.DefaultClients(), brief)})
	var c clock
	strict := newVerifier(t, srv.Issuer, func(cfg *auth.VerifierConfig) { cfg.Leeway, cfg.Now = -1, c.now })
	lenient := newVerifier(t, srv.Issuer, func(cfg *auth.VerifierConfig) { cfg.Now = c.now }) // DefaultLeeway, 30 s

	token := srv.Token(t, brief.ID)
	var claims struct{ Exp, Iat int64 }
	decodePart(t, token, 1, &claims)
	if claims.Exp-claims.Iat != 2 {
		t.Fatalf("the token lives %d s, want 2", claims.Exp-claims.Iat)
	}
	mustAccept(t, strict, token, "fresh token")
	c.off.Store(int64(time.Until(time.Unix(claims.Exp, 0)) + 50*time.Millisecond)) // past exp
	mustRefuse(t, strict, token, auth.ErrExpired, "expired token, accepted and cached before")
	mustAccept(t, lenient, token, "expired token within the leeway")
	rs := resourceServer(t, srv.Issuer, strict)
	if got, want := checkHTTP(rs, token), (answer{http.StatusUnauthorized, "invalid_token"}); got != want {
		t.Errorf("expired token over HTTP: %+v, want %+v", got, want)
	}
}

// decodePart decodes part i of a compact JWS into dst, unverified.
func decodePart(t *testing.T, token string, i int, dst any) {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[i])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, dst); err != nil {
		t.Fatal(err)
	}
}

// encodePart is the base64url of v's JSON.
func encodePart(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// hs256 signs header.payload with HMAC-SHA256 keyed by key.
func hs256(header, payload string, key []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(header + "." + payload))
	return header + "." + payload + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// publicKeyPEM returns the issuer's signing key as the PEM of its
// SubjectPublicKeyInfo, and as its JWK JSON: what an HMAC-confusion
// attacker uses as the HMAC secret.
func publicKeyPEM(t *testing.T, srv *authtest.Server) (pemKey, jwkJSON []byte) {
	t.Helper()
	resp, err := http.Get(srv.Metadata.JWKSURI)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil || len(set.Keys) == 0 {
		t.Fatalf("JWKS: %v", err)
	}
	der, err := x509.MarshalPKIXPublicKey(set.Keys[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	jwkJSON, err = set.Keys[0].MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), jwkJSON
}

// TestOAuthRefusedTokens: tokens of another audience or issuer, altered
// tokens, and tokens re-signed with "none" or with HMAC keyed by the
// issuer's public key are refused, each for its reason, and answered 401
// invalid_token over HTTP; no refusal quotes the token.
func TestOAuthRefusedTokens(t *testing.T) {
	srv := startIssuer(t, authtest.Options{})
	sameKeys := startIssuer(t, authtest.Options{KeysFrom: srv}) // another issuer, the same keys
	otherKeys := startIssuer(t, authtest.Options{})             // another issuer, its own keys
	v := newVerifier(t, srv.Issuer, nil)
	rs := resourceServer(t, srv.Issuer, v)

	real := srv.Token(t, authtest.EngClient)
	parts := strings.Split(real, ".")
	var header, claims map[string]any
	decodePart(t, real, 0, &header)
	decodePart(t, real, 1, &claims)
	with := func(m map[string]any, k string, val any) map[string]any {
		out := map[string]any{}
		for key, x := range m {
			out[key] = x
		}
		out[k] = val
		return out
	}
	pemKey, jwkJSON := publicKeyPEM(t, srv)
	hsHeader := encodePart(t, with(header, "alg", "HS256"))
	// A bit of the signature flipped, still well-formed base64url (flipping
	// a character could make a '.' or a backslash of '-' or '_').
	raw, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	raw[7] ^= 1
	sig := base64.RawURLEncoding.EncodeToString(raw)

	for _, tc := range []struct {
		name, token string
		want        error
	}{
		{"foreign audience", srv.TokenFor(t, authtest.TokenRequest{Client: authtest.EngClient, Resource: foreignResource}), auth.ErrAudience},
		{"foreign issuer, its own keys", otherKeys.Token(t, authtest.EngClient), auth.ErrUnknownKey},
		{"foreign issuer, the same keys", sameKeys.Token(t, authtest.EngClient), auth.ErrIssuer},
		{"payload altered (groups)", parts[0] + "." + encodePart(t, with(claims, "groups", []string{"finance"})) + "." + parts[2], auth.ErrSignature},
		{"payload altered (aud, exp)", parts[0] + "." + encodePart(t, with(with(claims, "exp", 4102444800), "aud", oauthResource)) + "." + parts[2], auth.ErrSignature},
		{"signature altered", parts[0] + "." + parts[1] + "." + sig, auth.ErrSignature},
		{"signature removed", parts[0] + "." + parts[1] + ".", auth.ErrSignature},
		{"typ altered to JWT", encodePart(t, with(header, "typ", "JWT")) + "." + parts[1] + "." + parts[2], auth.ErrType},
		{"alg none", encodePart(t, with(header, "alg", "none")) + "." + parts[1] + ".", auth.ErrAlgorithm},
		{"alg none, no kid", encodePart(t, map[string]any{"alg": "none", "typ": "at+jwt"}) + "." + parts[1] + ".", auth.ErrAlgorithm},
		{"HS256 keyed by the public key's PEM", hs256(hsHeader, parts[1], pemKey), auth.ErrAlgorithm},
		{"HS256 keyed by the public JWK", hs256(hsHeader, parts[1], jwkJSON), auth.ErrAlgorithm},
		{"opaque token (no resource indicator)", srv.TokenFor(t, authtest.TokenRequest{Client: authtest.EngClient, Resource: "-"}), auth.ErrMalformedToken},
	} {
		mustRefuse(t, v, tc.token, tc.want, tc.name)
		if got, want := checkHTTP(rs, tc.token), (answer{http.StatusUnauthorized, "invalid_token"}); got != want {
			t.Errorf("%s over HTTP: %+v, want %+v", tc.name, got, want)
		}
	}
	mustAccept(t, v, real, "the token the others were made from")
}

// TestOAuthIssuerDown: a Verifier whose issuer is down at start starts
// unready and refuses tokens with a 401, then becomes ready when the
// issuer comes back; one whose issuer goes down later keeps verifying with
// the keys it has, and refuses a token signed with a key it cannot fetch
// with a 401 (never a panic or a 5xx), reporting the failed fetch.
func TestOAuthIssuerDown(t *testing.T) {
	srv := startIssuer(t, dayLong)
	unauthorized := answer{http.StatusUnauthorized, "invalid_token"}

	t.Run("at start", func(t *testing.T) {
		token := srv.Token(t, authtest.FinanceClient)
		srv.Stop(t)
		v := newVerifier(t, srv.Issuer, func(c *auth.VerifierConfig) {
			c.MinRefetchInterval, c.FetchTimeout = time.Second, 2*time.Second
		})
		if st := v.Status(); st.Ready || st.Keys != 0 || st.Err == nil {
			t.Errorf("status with the issuer down: %+v, want not ready, no keys, an error", st)
		}
		mustRefuse(t, v, token, auth.ErrKeysUnavailable, "issuer down at start")
		if got := checkHTTP(resourceServer(t, srv.Issuer, v), token); got != unauthorized {
			t.Errorf("over HTTP: %+v, want %+v", got, unauthorized)
		}
		srv.Restart(t)
		testutil.Within(15*time.Second, v.Ready) // retried every MinRefetchInterval
		if st := v.Status(); !st.Ready || st.Keys != 1 || st.Err != nil {
			t.Fatalf("status after the issuer came back: %+v", st)
		}
		mustAccept(t, v, token, "the same token once the issuer is back") // the refusal was not cached
	})

	t.Run("mid-run", func(t *testing.T) {
		clk := new(clock)
		v := newVerifier(t, srv.Issuer, clk.config)
		rs := resourceServer(t, srv.Issuer, v)
		mustAccept(t, v, srv.Token(t, authtest.FinanceClient), "token with the issuer up")
		held := srv.Token(t, authtest.EngClient) // signed with the loaded key, unseen
		srv.Rotate(t)
		rotated := srv.Token(t, authtest.FinanceClient) // signed with a key v never fetched
		srv.Stop(t)

		mustAccept(t, v, held, "unseen token signed with a loaded key, issuer down")
		clk.pastRateLimit()
		before := v.Stats().Fetches
		mustRefuse(t, v, rotated, auth.ErrUnknownKey, "token signed with a key that cannot be fetched")
		if got := checkHTTP(rs, rotated); got != unauthorized {
			t.Errorf("over HTTP: %+v, want %+v", got, unauthorized)
		}
		if after := v.Stats().Fetches; after != before+1 {
			t.Errorf("fetches: %d then %d, want one refetch attempt", before, after)
		}
		st := v.Status()
		if !st.Ready || st.Keys != 1 || st.Err == nil {
			t.Errorf("status with the issuer down: %+v, want ready, 1 key, the fetch error", st)
		}
		if st.Err != nil && !strings.Contains(st.Err.Error(), srv.Issuer) {
			t.Errorf("the fetch error %q does not name the issuer", st.Err)
		}
		srv.Restart(t)
		clk.pastRateLimit()
		mustAccept(t, v, rotated, "the same token once the issuer is back")
	})
}

// TestOAuthTypeScriptClient: the official TypeScript SDK's client side,
// with its ClientCredentialsProvider, finds the authorization server from
// a 401's challenge and the Protected Resource Metadata package auth
// serves, reads oidc-provider's RFC 8414 metadata, gets a token for the
// resource, and is let through as its principal.
func TestOAuthTypeScriptClient(t *testing.T) {
	requireJS(t)
	mux := http.NewServeMux()
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	resource := hs.URL + "/mcp"
	srv := authtest.Start(t, authtest.Options{Resources: []string{resource}})
	v := newVerifier(t, srv.Issuer, func(c *auth.VerifierConfig) { c.Resource = resource })
	rs, err := auth.NewResourceServer(auth.ResourceConfig{
		Resource: resource, AuthorizationServers: []string{srv.Issuer},
		ScopesSupported: []string{authtest.ReadScope}, Authenticator: v,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rs.MetadataPaths() {
		mux.HandleFunc(p, rs.ServeMetadata)
	}
	mux.Handle("/mcp", rs.Require(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := access.FromContext(r.Context())
		json.NewEncoder(w).Encode(p)
	}), authtest.ReadScope))

	cmd := exec.Command(node22, "oauthclient.mjs", resource, authtest.ScopedClient, srv.Issuer, authtest.ReadScope)
	cmd.Dir = jsDir
	cmd.Env = append(os.Environ(), "OAUTH_CLIENT_SECRET="+srv.Secret(authtest.ScopedClient))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node oauthclient.mjs: %v\n%s", err, stderr.String())
	}
	type request struct{ Method, URL, Auth, Resource string }
	var got struct {
		FirstStatus         int
		ResourceMetadataURL string
		Result              string
		Requests            []request
		TokenType, Scope    string
		Status              int
		Body                access.Principal
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("oauthclient.mjs printed %q: %v", out, err)
	}
	want := got
	want.FirstStatus, want.ResourceMetadataURL, want.Result = http.StatusUnauthorized, rs.MetadataURL(), "AUTHORIZED"
	want.Requests = []request{
		{"GET", rs.MetadataURL(), "none", ""},
		{"GET", srv.Issuer + "/.well-known/oauth-authorization-server", "none", ""},
		{"POST", srv.Metadata.TokenEndpoint, "Basic", resource},
	}
	want.TokenType, want.Scope, want.Status = "Bearer", authtest.ReadScope, http.StatusOK
	want.Body = access.Principal{Subject: "scoped-client", ClientID: "scoped-client", Groups: []string{"eng"}, Scopes: []string{"skills:read"}}
	if d := cmp.Diff(want, got, ignoreExpires); d != "" {
		t.Errorf("the SDK's flow (-want +got):\n%s", d)
	}
}
