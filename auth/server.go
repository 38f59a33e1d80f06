package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/skillstore/skillstore/access"
)

// Authenticator turns a bearer token into the principal it stands for.
// *Verifier and *StaticTokens are Authenticators; Chain combines them.
// Errors must be the package's sentinels (or wrap them) and never hold
// the token or a part of it.
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (*access.Principal, error)
}

var (
	_ Authenticator = (*Verifier)(nil)
	_ Authenticator = (*StaticTokens)(nil)
	_ Authenticator = chain(nil)
)

// Chain returns an Authenticator that asks each of as in turn and returns
// the first principal found. When all refuse, it returns the first
// refusal other than ErrUnknownToken (the one that says most), else
// ErrUnknownToken. Put *StaticTokens before a *Verifier: its lookup costs
// a hash, where the Verifier parses the token.
func Chain(as ...Authenticator) Authenticator { return chain(as) }

type chain []Authenticator

func (c chain) Authenticate(ctx context.Context, token string) (*access.Principal, error) {
	var first error
	for _, a := range c {
		p, err := a.Authenticate(ctx, token)
		if err == nil {
			return p, nil
		}
		if first == nil || errors.Is(first, ErrUnknownToken) {
			first = err
		}
	}
	if first == nil {
		first = ErrUnknownToken
	}
	return nil, first
}

// WellKnownPath is where RFC 9728 puts Protected Resource Metadata; for a
// resource with a path, the path is appended to it ("path-inserted").
const WellKnownPath = "/.well-known/oauth-protected-resource"

// ResourceConfig configures a ResourceServer.
type ResourceConfig struct {
	// Resource is this server's canonical URI, as clients name it in
	// their token requests (RFC 8707) and as the metadata's "resource"
	// gives it: typically the MCP endpoint, https://host/mcp. Required.
	Resource string
	// AuthorizationServers are the issuers whose tokens are accepted,
	// listed in the metadata; empty with static tokens alone.
	AuthorizationServers []string
	// ScopesSupported are listed in the metadata as scopes_supported
	// (omitted when empty). The MCP specification asks to leave out
	// offline_access.
	ScopesSupported []string
	// Authenticator checks tokens. Required.
	Authenticator Authenticator
	// WriteBody, if set, writes the body of a refusal, after the
	// ResourceServer has set its WWW-Authenticate header; it must write
	// the status d.Status. Nil: a small JSON body, {"error": …,
	// "error_description": …}.
	WriteBody func(w http.ResponseWriter, r *http.Request, d *Denial)
}

// ResourceServer is the HTTP side of an OAuth 2.1 resource server: it
// authenticates requests, answers refusals with the challenges the MCP
// authorization specification asks for, and serves the Protected Resource
// Metadata. It is immutable and safe for concurrent use.
type ResourceServer struct {
	cfg         ResourceConfig
	metadataURL string
	paths       []string
	metadata    []byte
}

// NewResourceServer checks cfg and prepares the metadata document.
func NewResourceServer(cfg ResourceConfig) (*ResourceServer, error) {
	if err := checkResource(cfg.Resource); err != nil {
		return nil, err
	}
	if cfg.Authenticator == nil {
		return nil, errors.New("auth: a resource server needs an Authenticator")
	}
	for _, as := range cfg.AuthorizationServers {
		if u, err := url.Parse(as); err != nil || !u.IsAbs() || u.Host == "" {
			return nil, errors.New("auth: each authorization server must be an absolute URL")
		}
	}
	for _, s := range cfg.ScopesSupported {
		if !isScopeToken(s) {
			return nil, fmt.Errorf("auth: the scope %q has spaces, quotes, backslashes or control characters", s)
		}
	}
	u, _ := url.Parse(cfg.Resource)
	path := u.EscapedPath()
	if path == "/" {
		path = ""
	}
	rs := &ResourceServer{cfg: cfg}
	rs.metadataURL = u.Scheme + "://" + u.Host + WellKnownPath + path
	rs.paths = []string{WellKnownPath + path}
	if path != "" {
		rs.paths = append(rs.paths, WellKnownPath)
	}
	doc := struct {
		Resource               string   `json:"resource"`
		AuthorizationServers   []string `json:"authorization_servers,omitempty"`
		ScopesSupported        []string `json:"scopes_supported,omitempty"`
		BearerMethodsSupported []string `json:"bearer_methods_supported"`
	}{cfg.Resource, cfg.AuthorizationServers, cfg.ScopesSupported, []string{"header"}}
	rs.metadata, _ = json.Marshal(doc)
	return rs, nil
}

// Denial is why a request was refused, and how to answer it.
type Denial struct {
	// Status is 400 (malformed Authorization header), 401 (no token, or a
	// token refused) or 403 (a required scope is missing).
	Status int
	// Code is the RFC 6750 error code: "invalid_request",
	// "invalid_token", "insufficient_scope", or "" when the request
	// carried no Bearer credentials.
	Code string
	// Scopes are the scopes the request requires, named in the challenge.
	Scopes []string
	// Err is the reason: one of the package's sentinels, possibly wrapped.
	// It never holds the token.
	Err error
	// Principal is whom the token stands for, when it was verified and
	// refused for its scopes (403 insufficient_scope), so that the refusal
	// can be audited under its subject; nil for every other refusal.
	Principal *access.Principal
}

// Check authenticates r and checks that its token grants every one of
// scopes. It returns the principal, or why r is refused.
func (rs *ResourceServer) Check(r *http.Request, scopes ...string) (*access.Principal, *Denial) {
	token, err := BearerToken(r)
	switch {
	case errors.Is(err, ErrNoToken):
		return nil, &Denial{Status: http.StatusUnauthorized, Scopes: scopes, Err: err}
	case err != nil:
		return nil, &Denial{Status: http.StatusBadRequest, Code: "invalid_request", Scopes: scopes, Err: err}
	}
	p, err := rs.cfg.Authenticator.Authenticate(r.Context(), token)
	if err != nil {
		return nil, &Denial{Status: http.StatusUnauthorized, Code: "invalid_token", Scopes: scopes, Err: err}
	}
	for _, s := range scopes {
		if !p.HasScope(s) {
			return nil, &Denial{Status: http.StatusForbidden, Code: "insufficient_scope", Scopes: scopes, Err: ErrInsufficientScope, Principal: p}
		}
	}
	return p, nil
}

// Challenge returns the WWW-Authenticate value for d: the Bearer scheme
// with error (when d has a code), resource_metadata (always), scope (when
// the request requires scopes) and error_description (when d has a code).
func (rs *ResourceServer) Challenge(d *Denial) string {
	var b strings.Builder
	b.WriteString("Bearer ")
	if d.Code != "" {
		b.WriteString(`error="` + d.Code + `", `)
	}
	b.WriteString(`resource_metadata="` + rs.metadataURL + `"`)
	if len(d.Scopes) > 0 {
		b.WriteString(`, scope="` + quotable(strings.Join(d.Scopes, " ")) + `"`)
	}
	if d.Code != "" && d.Err != nil {
		b.WriteString(`, error_description="` + quotable(d.Err.Error()) + `"`)
	}
	return b.String()
}

// quotable replaces what may not appear in an RFC 6750 quoted value
// (quotes, backslashes, anything outside printable ASCII) with "?". A
// value with none of them is returned as it is, without a copy
// (strings.Map copies only once a character changes).
func quotable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '?'
		}
		return r
	}, s)
}

// Deny answers r with d: the WWW-Authenticate header, then the body
// ResourceConfig.WriteBody writes (by default, a small JSON object).
func (rs *ResourceServer) Deny(w http.ResponseWriter, r *http.Request, d *Denial) {
	w.Header().Set("WWW-Authenticate", rs.Challenge(d))
	if rs.cfg.WriteBody != nil {
		rs.cfg.WriteBody(w, r, d)
		return
	}
	code, desc := d.Code, http.StatusText(d.Status)
	if code == "" {
		code = "unauthorized"
	}
	if d.Err != nil {
		desc = d.Err.Error()
	}
	body, _ := json.Marshal(struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}{code, desc})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(d.Status)
	w.Write(append(body, '\n'))
}

// Require returns a handler that lets through to next only requests whose
// bearer token is accepted and grants every one of scopes, with the
// principal in the request's context (access.FromContext); others are answered
// by Deny. It panics if a scope is not an RFC 6749 scope token. Put it
// after CORS preflight handling: a preflight carries no credentials.
func (rs *ResourceServer) Require(next http.Handler, scopes ...string) http.Handler {
	for _, s := range scopes {
		if !isScopeToken(s) {
			panic(fmt.Sprintf("auth: Require: %q is not a scope token", s))
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, d := rs.Check(r, scopes...)
		if d != nil {
			rs.Deny(w, r, d)
			return
		}
		next.ServeHTTP(w, r.WithContext(access.NewContext(r.Context(), p)))
	})
}

// MetadataURL returns the absolute URL of the metadata document named in
// challenges: the path-inserted form for a resource with a path
// (https://host/.well-known/oauth-protected-resource/mcp), as RFC 9728,
// 3.1 builds it.
func (rs *ResourceServer) MetadataURL() string { return rs.metadataURL }

// MetadataPaths returns the paths ServeMetadata answers: the
// path-inserted form, then the root form when they differ. Behind a proxy
// that rewrites paths, route them accordingly.
func (rs *ResourceServer) MetadataPaths() []string { return append([]string(nil), rs.paths...) }

// ServeMetadata serves the Protected Resource Metadata (RFC 9728): the
// same JSON at each of MetadataPaths, to GET and HEAD, readable from any
// origin (it is public and carries no credentials); an OPTIONS preflight
// is answered. Other paths are 404, other methods 405.
func (rs *ResourceServer) ServeMetadata(w http.ResponseWriter, r *http.Request) {
	found := false
	for _, p := range rs.paths {
		found = found || r.URL.Path == p
	}
	if !found {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		h.Set("Content-Type", "application/json")
		w.Write(rs.metadata)
	case http.MethodOptions:
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "*")
		w.WriteHeader(http.StatusNoContent)
	default:
		h.Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}
