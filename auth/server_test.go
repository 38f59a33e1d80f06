package auth

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/access"
)

// newTestServer returns a ResourceServer in front of f's issuer and a
// static token "static-finance" (groups finance, no scopes).
func newTestServer(t *testing.T, f *fakeIssuer) *ResourceServer {
	t.Helper()
	static, err := ParseStaticTokens([]byte("tokens:\n  - sha256: " + HashToken("static-finance") + "\n    subject: fin\n    groups: [finance]\n"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := NewResourceServer(ResourceConfig{
		Resource:             testResource,
		AuthorizationServers: []string{f.URL},
		ScopesSupported:      []string{"skills:read", "skills:write"},
		Authenticator:        Chain(static, newVerifier(t, f, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestRequire checks status, WWW-Authenticate and body of every kind of
// answer, and the principal handed to the next handler.
func TestRequire(t *testing.T) {
	f := newIssuer(t, rsaKey)
	rs := newTestServer(t, f)
	const md = `resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`
	good := mint(t, rsaKey, "at+jwt", claims(f.URL, time.Now()))
	readOnly := claims(f.URL, time.Now())
	readOnly["scope"] = "skills:read"
	expired := claims(f.URL, time.Now())
	expired["exp"] = time.Now().Add(-time.Hour).Unix()
	cases := []struct {
		name, auth string
		scopes     []string
		status     int
		challenge  string
		body       string
	}{
		{"no token", "", nil, 401, `Bearer ` + md,
			`{"error":"unauthorized","error_description":"a bearer token is required"}`},
		{"no token, scope required", "", []string{"skills:read"}, 401, `Bearer ` + md + `, scope="skills:read"`,
			`{"error":"unauthorized","error_description":"a bearer token is required"}`},
		{"Basic", "Basic dXNlcjpwYXNz", nil, 401, `Bearer ` + md,
			`{"error":"unauthorized","error_description":"a bearer token is required"}`},
		{"two tokens", "Bearer a b", nil, 400, `Bearer error="invalid_request", ` + md + `, error_description="malformed Authorization header: more than one token after Bearer"`,
			`{"error":"invalid_request","error_description":"malformed Authorization header: more than one token after Bearer"}`},
		{"expired", "Bearer " + mint(t, rsaKey, "at+jwt", expired), []string{"skills:read"}, 401,
			`Bearer error="invalid_token", ` + md + `, scope="skills:read", error_description="the token has expired"`,
			`{"error":"invalid_token","error_description":"the token has expired"}`},
		{"opaque unknown", "Bearer nope", nil, 401,
			`Bearer error="invalid_token", ` + md + `, error_description="the token is not a well-formed signed JWT"`,
			`{"error":"invalid_token","error_description":"the token is not a well-formed signed JWT"}`},
		{"insufficient scope", "Bearer " + mint(t, rsaKey, "at+jwt", readOnly), []string{"skills:read", "skills:write"}, 403,
			`Bearer error="insufficient_scope", ` + md + `, scope="skills:read skills:write", error_description="the token lacks a required scope"`,
			`{"error":"insufficient_scope","error_description":"the token lacks a required scope"}`},
		{"static token lacking a scope", "Bearer static-finance", []string{"skills:read"}, 403,
			`Bearer error="insufficient_scope", ` + md + `, scope="skills:read", error_description="the token lacks a required scope"`,
			`{"error":"insufficient_scope","error_description":"the token lacks a required scope"}`},
		{"JWT", "Bearer " + good, []string{"skills:read", "skills:write"}, 200, "", "alice [finance ops]"},
		{"lower-case scheme", "bearer " + good, nil, 200, "", "alice [finance ops]"},
		{"static token", "Bearer static-finance", nil, 200, "", "fin [finance]"},
	}
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := access.FromContext(r.Context())
		if !ok {
			t.Error("no principal in the context")
			return
		}
		io.WriteString(w, p.Subject)
		io.WriteString(w, " ")
		io.WriteString(w, fmtGroups(p))
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/mcp", nil)
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			w := httptest.NewRecorder()
			rs.Require(next, tc.scopes...).ServeHTTP(w, r)
			body := w.Body.String()
			if tc.status != 200 {
				body = body[:len(body)-1] // the newline
			}
			got := []any{w.Code, w.Header().Get("WWW-Authenticate"), body}
			if d := cmp.Diff([]any{tc.status, tc.challenge, tc.body}, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestDenialPrincipal: a token refused for its scopes was verified, so
// its denial names whom it stands for (the audit log's sub, client_id and
// groups); a refusal of an unverified token names no one.
func TestDenialPrincipal(t *testing.T) {
	f := newIssuer(t, rsaKey)
	rs := newTestServer(t, f)
	readOnly := claims(f.URL, time.Now())
	readOnly["scope"] = "skills:read"
	cases := []struct {
		name, auth string
		want       string // the denial's principal's subject and groups; "" for none
	}{
		{"no token", "", ""},
		{"unknown", "Bearer nope", ""},
		{"JWT lacking a scope", "Bearer " + mint(t, rsaKey, "at+jwt", readOnly), "alice [finance ops]"},
		{"static token lacking a scope", "Bearer static-finance", "fin [finance]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/mcp", nil)
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			_, d := rs.Check(r, "skills:read", "skills:write")
			if d == nil {
				t.Fatal("accepted")
			}
			got := ""
			if d.Principal != nil {
				got = d.Principal.Subject + " " + fmtGroups(d.Principal)
			}
			if got != tc.want {
				t.Errorf("denial's principal %q, want %q", got, tc.want)
			}
		})
	}
}

func fmtGroups(p *access.Principal) string {
	s := "["
	for i, g := range p.Groups {
		if i > 0 {
			s += " "
		}
		s += g
	}
	return s + "]"
}

// TestWriteBody checks that a custom body writer gets the denial.
func TestWriteBody(t *testing.T) {
	f := newIssuer(t, rsaKey)
	var got *Denial
	rs, err := NewResourceServer(ResourceConfig{
		Resource: "https://mcp.example.com", Authenticator: newVerifier(t, f, nil),
		WriteBody: func(w http.ResponseWriter, r *http.Request, d *Denial) {
			got = d
			w.WriteHeader(d.Status)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	rs.Require(http.NotFoundHandler()).ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	want := `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"`
	if w.Code != 401 || got == nil || got.Err != ErrNoToken || w.Header().Get("WWW-Authenticate") != want {
		t.Errorf("status %d, denial %+v, challenge %q", w.Code, got, w.Header().Get("WWW-Authenticate"))
	}
}

// TestMetadata checks the RFC 9728 document, byte for byte, at both
// paths, and what the handler does with other paths and methods.
func TestMetadata(t *testing.T) {
	rs, err := NewResourceServer(ResourceConfig{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://as.example.com/tenant1"},
		ScopesSupported:      []string{"skills:read"},
		Authenticator:        Chain(),
	})
	if err != nil {
		t.Fatal(err)
	}
	const doc = `{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://as.example.com/tenant1"],"scopes_supported":["skills:read"],"bearer_methods_supported":["header"]}`
	if d := cmp.Diff([]string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}, rs.MetadataPaths()); d != "" {
		t.Errorf("paths (-want +got):\n%s", d)
	}
	if got := rs.MetadataURL(); got != "https://mcp.example.com/.well-known/oauth-protected-resource/mcp" {
		t.Errorf("URL %s", got)
	}
	cases := []struct {
		method, path string
		status       int
		body         string
		header       http.Header
	}{
		{"GET", "/.well-known/oauth-protected-resource/mcp", 200, doc,
			http.Header{"Content-Type": {"application/json"}, "Access-Control-Allow-Origin": {"*"}}},
		{"GET", "/.well-known/oauth-protected-resource", 200, doc,
			http.Header{"Content-Type": {"application/json"}, "Access-Control-Allow-Origin": {"*"}}},
		{"OPTIONS", "/.well-known/oauth-protected-resource", 204, "",
			http.Header{"Access-Control-Allow-Origin": {"*"}, "Access-Control-Allow-Methods": {"GET, HEAD, OPTIONS"}, "Access-Control-Allow-Headers": {"*"}}},
		{"POST", "/.well-known/oauth-protected-resource", 405, "method not allowed\n", nil},
		{"GET", "/.well-known/oauth-protected-resource/other", 404, "404 page not found\n", nil},
	}
	for _, tc := range cases {
		w := httptest.NewRecorder()
		rs.ServeMetadata(w, httptest.NewRequest(tc.method, tc.path, nil))
		if w.Code != tc.status || w.Body.String() != tc.body {
			t.Errorf("%s %s: %d %q; want %d %q", tc.method, tc.path, w.Code, w.Body, tc.status, tc.body)
		}
		for k := range tc.header {
			if d := cmp.Diff(tc.header[k], w.Header()[k]); d != "" {
				t.Errorf("%s %s: %s (-want +got):\n%s", tc.method, tc.path, k, d)
			}
		}
	}

	// A resource without a path has one metadata location; no issuer or
	// scopes: the optional members are left out.
	root, err := NewResourceServer(ResourceConfig{Resource: "https://mcp.example.com:8443/", Authenticator: Chain()})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"/.well-known/oauth-protected-resource"}, root.MetadataPaths()); d != "" {
		t.Errorf("root paths (-want +got):\n%s", d)
	}
	w := httptest.NewRecorder()
	root.ServeMetadata(w, httptest.NewRequest("GET", "/.well-known/oauth-protected-resource", nil))
	if d := cmp.Diff(`{"resource":"https://mcp.example.com:8443/","bearer_methods_supported":["header"]}`, w.Body.String()); d != "" {
		t.Errorf("root document (-want +got):\n%s", d)
	}
	if got := root.MetadataURL(); got != "https://mcp.example.com:8443/.well-known/oauth-protected-resource" {
		t.Errorf("root URL %s", got)
	}
}

// TestResourceConfig checks that bad configurations are refused.
func TestResourceConfig(t *testing.T) {
	for _, cfg := range []ResourceConfig{
		{Resource: "mcp.example.com", Authenticator: Chain()},
		{Resource: "https://mcp.example.com/mcp?x=1", Authenticator: Chain()},
		{Resource: "https://mcp.example.com/mcp"},
		{Resource: "https://mcp.example.com/mcp", Authenticator: Chain(), AuthorizationServers: []string{"as.example"}},
		{Resource: "https://mcp.example.com/mcp", Authenticator: Chain(), ScopesSupported: []string{"a b"}},
	} {
		if _, err := NewResourceServer(cfg); err == nil {
			t.Errorf("accepted %+v", cfg)
		}
	}
}

// TestChain checks which refusal a chain reports.
func TestChain(t *testing.T) {
	f := newIssuer(t, rsaKey)
	static, _ := ParseStaticTokens([]byte("tokens:\n  - sha256: " + HashToken("s") + "\n    subject: s\n"))
	v := newVerifier(t, f, nil)
	expired := claims(f.URL, time.Now())
	expired["exp"] = time.Now().Add(-time.Hour).Unix()
	for _, c := range []struct {
		a     Authenticator
		token string
		want  error
	}{
		{Chain(), "x", ErrUnknownToken},
		{Chain(static), "x", ErrUnknownToken},
		{Chain(static, v), "x", ErrMalformedToken},
		{Chain(v, static), "x", ErrMalformedToken},
		{Chain(static, v), mint(t, rsaKey, "at+jwt", expired), ErrExpired},
		{Chain(v, static), "s", nil},
	} {
		_, err := c.a.Authenticate(context.Background(), c.token)
		if err != c.want {
			t.Errorf("%T %.10s: %v; want %v", c.a, c.token, err, c.want)
		}
	}
}
