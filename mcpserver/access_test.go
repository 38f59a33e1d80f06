package mcpserver_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/trace"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/audit"
	"github.com/skillstore/skillstore/auth"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/site"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
	"github.com/skillstore/skillstore/usage"
)

// The access tests' world: two teams' sources, two callers with disjoint
// groups, static tokens and a small OAuth issuer.

// testResource is this server's resource URI in the access tests.
const testResource = "https://skills.example.com/mcp"

// The static tokens of the access tests. Each is a secret no answer, log
// line or audit line may hold.
const (
	aliceToken   = "alice-tok-5f0c2e9d41" // subject alice, group finance
	bobToken     = "bob-tok-a8e1b77c03"   // subject bob, group eng
	noScopeToken = "noscope-tok-9d2f6a10" // subject carol, group finance, no scope
)

// staticTokens is the tokens file of the access tests.
func staticTokens(t testing.TB) *auth.StaticTokens {
	t.Helper()
	st, err := auth.ParseStaticTokens([]byte(`tokens:
  - sha256: ` + auth.HashToken(aliceToken) + `
    subject: alice
    groups: [finance]
    scopes: [skills:read]
  - sha256: ` + auth.HashToken(bobToken) + `
    subject: bob
    groups: [eng]
    scopes: [skills:read]
  - sha256: ` + auth.HashToken(noScopeToken) + `
    subject: carol
    groups: [finance]
`))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// teamSources are the finance team's source (ledger, payroll, a skill that
// does not parse) and the engineering team's (deploy, review, and a ledger
// of its own that finance's shadows).
func teamSources() []store.Source {
	finance := fstest.MapFS{
		"ledger/SKILL.md":           {Data: []byte("---\nname: ledger\ndescription: Close the monthly ledger.\n---\n# Ledger\nReconcile accounts.\n")},
		"ledger/references/fx.md":   {Data: []byte("exchange rates")},
		"payroll/SKILL.md":          {Data: []byte("---\nname: payroll\ndescription: Run payroll for the month.\n---\n# Payroll\n")},
		"broken-books/SKILL.md":     {Data: []byte("---\nname: [\n---\n")},
		"ledger/references/deep.md": {Data: []byte("deep")},
	}
	eng := fstest.MapFS{
		"deploy/SKILL.md":        {Data: []byte("---\nname: deploy\ndescription: Deploy a service to production.\n---\n# Deploy\n")},
		"deploy/scripts/run.sh":  {Data: []byte("#!/bin/sh\necho deploy\n")},
		"review/SKILL.md":        {Data: []byte("---\nname: review\ndescription: Review a pull request.\n---\n# Review\n")},
		"ledger/SKILL.md":        {Data: []byte("---\nname: ledger\ndescription: Engineering's ledger of changes.\n---\n# Change ledger\n")},
		"ledger/references/x.md": {Data: []byte("x")},
	}
	return []store.Source{
		{Label: "finance", Location: "./finance", FS: finance},
		{Label: "eng", Location: "./eng", FS: eng},
	}
}

// fixedPolicy is a PolicySource whose policy a test swaps.
type fixedPolicy struct {
	mu sync.Mutex
	p  *access.Policy
}

func (f *fixedPolicy) Policy() *access.Policy {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.p
}

func (f *fixedPolicy) set(p *access.Policy) {
	f.mu.Lock()
	f.p = p
	f.mu.Unlock()
}

func mustPolicy(t testing.TB, yaml string) *access.Policy {
	t.Helper()
	p, err := access.Parse("policy.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// accessWorld is a server over teamSources behind HTTP, with its log.
type accessWorld struct {
	srv    *mcpserver.Server
	ts     *httptest.Server
	url    string // the MCP endpoint
	logs   *testutil.SyncBuffer
	policy *fixedPolicy
}

// worldOptions tune newWorld.
type worldOptions struct {
	policy string                 // the access policy's YAML; "" for none
	access mcpserver.PolicySource // the access policy, if not policy
	audit  *audit.Logger          // the audit log, if any
	usage  *usage.Counter         // the usage counts, if any
	http   site.Options
	noAuth bool                 // serve without authentication
	tracer trace.TracerProvider // spans, if any
}

// newWorld starts a server over teamSources with the static tokens (as
// an OAuth resource server for testResource requiring skills:read) and
// opts' policy.
func newWorld(t testing.TB, opts worldOptions) *accessWorld {
	t.Helper()
	w := &accessWorld{logs: &testutil.SyncBuffer{}}
	log := slog.New(slog.NewTextHandler(w.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, err := store.New(teamSources(), store.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	mopts := mcpserver.Options{Logger: log, Audit: opts.audit, Usage: opts.usage, TracerProvider: opts.tracer}
	if opts.policy != "" {
		w.policy = &fixedPolicy{p: mustPolicy(t, opts.policy)}
		mopts.Access = w.policy
	}
	if opts.access != nil {
		mopts.Access = opts.access
	}
	w.srv, err = mcpserver.New(context.Background(), tools.New(s, tools.Options{}), mopts)
	if err != nil {
		t.Fatal(err)
	}
	hopts := opts.http
	if !opts.noAuth && hopts.Auth == nil {
		hopts.Auth = resourceServer(t, staticTokens(t))
		hopts.RequiredScopes = []string{"skills:read"}
	}
	w.ts = httptest.NewServer(site.New(w.srv, hopts))
	t.Cleanup(w.ts.Close)
	w.url = w.ts.URL + "/mcp"
	return w
}

// newWorldAt serves srv over HTTP, without authentication, and returns
// its MCP endpoint's URL.
func newWorldAt(t testing.TB, srv *mcpserver.Server, hopts site.Options) string {
	ts := httptest.NewServer(site.New(srv, hopts))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// resourceServer is the resource server for testResource over a.
func resourceServer(t testing.TB, a auth.Authenticator, issuers ...string) *auth.ResourceServer {
	t.Helper()
	rs, err := auth.NewResourceServer(auth.ResourceConfig{Resource: testResource, AuthorizationServers: issuers,
		ScopesSupported: []string{"skills:read"}, Authenticator: a})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// reply is what a test compares of an HTTP answer.
type reply struct {
	Status    int
	Challenge string `json:",omitempty"` // WWW-Authenticate
	Body      string
}

// post sends body to url with the token (none if ""), the headers h
// (name, value pairs), and returns the answer.
func post(t testing.TB, url, token, body string, h ...string) (reply, http.Header) {
	t.Helper()
	method := http.MethodPost
	if body == "" {
		method = http.MethodGet
	}
	if strings.HasPrefix(body, "DELETE") {
		method, body = http.MethodDelete, ""
	}
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(h); i += 2 {
		req.Header.Set(h[i], h[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err) // not Fatal: post is called from the goroutines of load tests
		return reply{Status: -1}, http.Header{}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{Status: resp.StatusCode, Challenge: resp.Header.Get("WWW-Authenticate"), Body: string(b)}, resp.Header
}

// noSecrets fails t if any token of the tests appears in text.
func noSecrets(t testing.TB, what, text string, tokens ...string) {
	t.Helper()
	for _, tok := range append([]string{aliceToken, bobToken, noScopeToken}, tokens...) {
		if strings.Contains(text, tok) {
			t.Errorf("%s holds a token: %.300s", what, text)
		}
	}
}

// initialize opens a legacy session; it needs none.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// metadataURL is what every challenge names.
const metadataURL = "https://skills.example.com/.well-known/oauth-protected-resource/mcp"

// TestAuthChallenges: /mcp authenticates every request once, before its
// body is read, and refuses with the status, challenge and body of the MCP
// authorization specification (RFC 6750, RFC 9728).
func TestAuthChallenges(t *testing.T) {
	w := newWorld(t, worldOptions{})
	desc := func(code, d string) string {
		return `{"error":"` + code + `","error_description":"` + d + `"}` + "\n"
	}
	tests := []struct {
		name, auth string
		want       reply
	}{
		{"no token", "", reply{401, `Bearer resource_metadata="` + metadataURL + `", scope="skills:read"`, desc("unauthorized", "a bearer token is required")}},
		{"other scheme", "Basic YWxpY2U6cHc=", reply{401, `Bearer resource_metadata="` + metadataURL + `", scope="skills:read"`, desc("unauthorized", "a bearer token is required")}},
		{"two tokens", "Bearer a b", reply{400, `Bearer error="invalid_request", resource_metadata="` + metadataURL + `", scope="skills:read", error_description="malformed Authorization header: more than one token after Bearer"`, desc("invalid_request", "malformed Authorization header: more than one token after Bearer")}},
		{"unknown token", "Bearer " + aliceToken + "x", reply{401, `Bearer error="invalid_token", resource_metadata="` + metadataURL + `", scope="skills:read", error_description="the token is not known"`, desc("invalid_token", "the token is not known")}},
		{"oversize token", "Bearer " + strings.Repeat("a", 9000), reply{401, `Bearer error="invalid_token", resource_metadata="` + metadataURL + `", scope="skills:read", error_description="the token is too large (over 8192 bytes)"`, desc("invalid_token", "the token is too large (over 8192 bytes)")}},
		{"no scope", "Bearer " + noScopeToken, reply{403, `Bearer error="insufficient_scope", resource_metadata="` + metadataURL + `", scope="skills:read", error_description="the token lacks a required scope"`, desc("insufficient_scope", "the token lacks a required scope")}},
		{"accepted", "Bearer " + aliceToken, reply{200, "", "initialized"}},
		{"scheme in lower case", "bearer " + bobToken, reply{200, "", "initialized"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := []string{"Authorization", tt.auth}
			if tt.auth == "" {
				h = nil
			}
			got, _ := post(t, w.url, "", initialize, h...)
			if tt.want.Status == 200 && strings.Contains(got.Body, `"protocolVersion":"2025-11-25"`) {
				got.Body = "initialized"
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			noSecrets(t, "answer", got.Body+got.Challenge)
		})
	}
	noSecrets(t, "log", w.logs.String())
}

// testIssuer is a small OAuth authorization server: RFC 8414 metadata and
// a JWKS of one EC key, which signs the access tokens it mints.
type testIssuer struct {
	*httptest.Server
	key  *ecdsa.PrivateKey
	mu   sync.Mutex
	down bool
}

func newIssuer(t testing.TB) *testIssuer {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is := &testIssuer{key: k}
	is.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		is.mu.Lock()
		down := is.down
		is.mu.Unlock()
		switch {
		case down:
			http.Error(w, "down", http.StatusServiceUnavailable)
		case r.URL.Path == "/.well-known/oauth-authorization-server":
			json.NewEncoder(w).Encode(map[string]string{"issuer": is.URL, "jwks_uri": is.URL + "/jwks"})
		case r.URL.Path == "/jwks":
			json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &k.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(is.Close)
	return is
}

// setDown makes the issuer answer 503 to everything, or serve again.
func (is *testIssuer) setDown(down bool) {
	is.mu.Lock()
	is.down = down
	is.mu.Unlock()
}

// mint returns an access token (typ at+jwt) for subject with groups,
// valid for testResource and an hour, with claims edited by edit.
func (is *testIssuer) mint(t testing.TB, subject string, groups []string, edit func(map[string]any)) string {
	t.Helper()
	now := time.Now()
	c := map[string]any{"iss": is.URL, "sub": subject, "aud": testResource, "client_id": "agent-" + subject,
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "scope": "skills:read", "groups": groups}
	if edit != nil {
		edit(c)
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: is.key, KeyID: "k1"}},
		(&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(sig).Claims(c).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// verifier is a Verifier for is, closed at cleanup.
func (is *testIssuer) verifier(t testing.TB) *auth.Verifier {
	t.Helper()
	v, err := auth.NewVerifier(context.Background(), auth.VerifierConfig{Issuer: is.URL, Resource: testResource, FetchTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

// TestJWTCallers: tokens of an OAuth issuer are accepted beside the
// static ones (Chain), and refused ones get 401 with the reason.
func TestJWTCallers(t *testing.T) {
	is := newIssuer(t)
	v := is.verifier(t)
	w := newWorld(t, worldOptions{http: site.Options{
		Auth: resourceServer(t, auth.Chain(staticTokens(t), v), is.URL), RequiredScopes: []string{"skills:read"}, AuthStatus: v.Status}})
	good := is.mint(t, "dave", []string{"eng"}, nil)
	expired := is.mint(t, "dave", []string{"eng"}, func(c map[string]any) { c["exp"] = time.Now().Add(-time.Hour).Unix() })
	foreign := is.mint(t, "dave", []string{"eng"}, func(c map[string]any) { c["aud"] = "https://other.example/mcp" })
	challenge := func(why string) string {
		return `Bearer error="invalid_token", resource_metadata="` + metadataURL + `", scope="skills:read", error_description="` + why + `"`
	}
	tests := []struct {
		name, token string
		status      int
		challenge   string
	}{
		{"jwt", good, 200, ""},
		{"static", aliceToken, 200, ""},
		{"expired", expired, 401, challenge("the token has expired")},
		{"foreign audience", foreign, 401, challenge("the token was not issued for this resource")},
		{"tampered", good[:len(good)-4] + "AAAA", 401, challenge("the token's signature is invalid")},
	}
	for _, tt := range tests {
		got, _ := post(t, w.url, tt.token, initialize)
		if got.Status != tt.status || got.Challenge != tt.challenge {
			t.Errorf("%s: %d %q; want %d %q", tt.name, got.Status, got.Challenge, tt.status, tt.challenge)
		}
		noSecrets(t, tt.name+" answer", got.Body+got.Challenge, good, expired, foreign)
	}
	ready, _ := post(t, w.ts.URL+"/readyz", "", "")
	if want := (reply{Status: 200, Body: `{"skills":4,"status":"ready"}` + "\n"}); ready != want {
		t.Errorf("/readyz = %+v; want %+v", ready, want)
	}
	noSecrets(t, "log", w.logs.String(), good, expired, foreign)
}

// TestProtectedResourceMetadata: the metadata is public, at both the
// path-inserted and the root well-known path (RFC 9728, 3.1), and names
// the issuer and the scopes.
func TestProtectedResourceMetadata(t *testing.T) {
	w := newWorld(t, worldOptions{http: site.Options{
		Auth: resourceServer(t, staticTokens(t), "https://login.example.com"), RequiredScopes: []string{"skills:read"}}})
	want := reply{Status: 200, Body: `{"resource":"https://skills.example.com/mcp","authorization_servers":["https://login.example.com"],"scopes_supported":["skills:read"],"bearer_methods_supported":["header"]}`}
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		got, h := post(t, w.ts.URL+path, "", "")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got)\n%s", path, diff)
		}
		if h.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: not readable from browsers: %v", path, h)
		}
	}
}

// TestSessionBoundToPrincipal: a legacy session answers only the
// principal that opened it; another principal's token on it gets the 404
// of a session that does not exist, for every method, and the session
// lives on.
func TestSessionBoundToPrincipal(t *testing.T) {
	w := newWorld(t, worldOptions{})
	resp, h := post(t, w.url, aliceToken, initialize)
	id := h.Get("Mcp-Session-Id")
	if resp.Status != 200 || id == "" {
		t.Fatalf("initialize: %+v", resp)
	}
	session := []string{"Mcp-Session-Id", id, "Mcp-Protocol-Version", "2025-11-25"}
	unknown := []string{"Mcp-Session-Id", "mcp-session-0000", "Mcp-Protocol-Version", "2025-11-25"}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	for _, body := range []string{list, `[` + list + `]`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "", "DELETE"} {
		got, _ := post(t, w.url, bobToken, body, session...)
		want, _ := post(t, w.url, bobToken, body, unknown...)
		if want.Status != http.StatusNotFound {
			t.Fatalf("%q on an unknown session: %+v", body, want)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q with another principal's token (-unknown session +got)\n%s", body, diff)
		}
	}
	if got, _ := post(t, w.url, aliceToken, list, session...); got.Status != 200 || !strings.Contains(got.Body, `"tools":[`) {
		t.Errorf("the owner's request after another's: %+v", got)
	}
	// The same subject with another token (a refreshed one) is the owner.
	st, err := auth.ParseStaticTokens([]byte("tokens:\n  - {sha256: " + auth.HashToken(aliceToken) + ", subject: alice, scopes: [skills:read]}\n  - {sha256: " + auth.HashToken(bobToken) + ", subject: alice, groups: [finance], scopes: [skills:read]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	w2 := newWorld(t, worldOptions{http: site.Options{Auth: resourceServer(t, st)}})
	_, h = post(t, w2.url, aliceToken, initialize)
	if got, _ := post(t, w2.url, bobToken, list, "Mcp-Session-Id", h.Get("Mcp-Session-Id"), "Mcp-Protocol-Version", "2025-11-25"); got.Status != 200 {
		t.Errorf("the same subject with a second token: %+v", got)
	}
}

// TestReadyzAuthStatus: /readyz says whether tokens can be verified.
func TestReadyzAuthStatus(t *testing.T) {
	fetched := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		status auth.Status
		want   reply
	}{
		{"ready", auth.Status{Ready: true, Keys: 2, Fetched: fetched}, reply{Status: 200, Body: `{"skills":4,"status":"ready"}` + "\n"}},
		{"keys not loaded", auth.Status{Err: io.ErrUnexpectedEOF}, reply{Status: 503,
			Body: `{"error":"the identity provider's signing keys are not loaded, so no access token can be verified; see the server log","status":"unavailable"}` + "\n"}},
		{"refresh failing", auth.Status{Ready: true, Keys: 2, Fetched: fetched, Err: io.ErrUnexpectedEOF}, reply{Status: 200,
			Body: `{"reason":"the identity provider's signing keys cannot be refreshed (verifying tokens with the 2 keys fetched at 2026-01-02T03:04:05Z); see the server log","skills":4,"status":"degraded"}` + "\n"}},
	}
	for _, tt := range tests {
		w := newWorld(t, worldOptions{http: site.Options{AuthStatus: func() auth.Status { return tt.status }}})
		got, _ := post(t, w.ts.URL+"/readyz", "", "")
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got)\n%s", tt.name, diff)
		}
	}
	// A real verifier whose issuer is down at start: not ready, and every
	// token refused with 401 (not 500); once the issuer answers, ready.
	is := newIssuer(t)
	is.setDown(true)
	v, err := auth.NewVerifier(context.Background(), auth.VerifierConfig{Issuer: is.URL, Resource: testResource, FetchTimeout: time.Second, MinRefetchInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	w := newWorld(t, worldOptions{http: site.Options{Auth: resourceServer(t, v, is.URL), AuthStatus: v.Status}})
	if got, _ := post(t, w.ts.URL+"/readyz", "", ""); got.Status != 503 {
		t.Errorf("issuer down: /readyz %+v", got)
	}
	tok := is.mint(t, "dave", nil, nil)
	if got, _ := post(t, w.url, tok, initialize); got.Status != 401 || !strings.Contains(got.Challenge, "not available") {
		t.Errorf("issuer down: a token gets %+v", got)
	}
	is.setDown(false)
	testutil.Within(10*time.Second, v.Ready)
	if got, _ := post(t, w.ts.URL+"/readyz", "", ""); got.Status != 200 {
		t.Errorf("issuer up: /readyz %+v", got)
	}
	noSecrets(t, "log", w.logs.String(), tok)
}
