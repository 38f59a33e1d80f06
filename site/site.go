// Package site composes skillstore's HTTP site from its parts, each an
// http.Handler that knows nothing of the others: the MCP endpoint at /mcp
// (package mcpserver), the catalog's pages at / (package ui), the Agent
// Skills discovery publication under /.well-known/agent-skills/ (package
// discovery), the OAuth Protected Resource Metadata (package auth),
// /healthz, /readyz and /metrics. What they share is put in front of them
// here: the Host check on every path, the guard (Origin, bearer token,
// body size) on the paths that need it, the request counters and the
// panic recovery. The guard puts the principal it authenticated in the
// request's context (access.NewContext), where every part finds its
// caller.
package site

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"time"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/auth"
	"github.com/skillstore/skillstore/discovery"
	"github.com/skillstore/skillstore/internal/artifact"
	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/internal/netaddr"
	"github.com/skillstore/skillstore/internal/telemetry"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/ui"
)

// DefaultMaxBodyBytes is the default Options.MaxBodyBytes.
const DefaultMaxBodyBytes = 1 << 20

// Options tune the site. New passes the MCP endpoint's own on to it
// (mcpserver.HTTPOptions).
type Options struct {
	// Stateless serves every request on its own: any replica behind a load
	// balancer can answer any request. Clients of the initialize handshake
	// still get a session id, which every replica accepts (as it does a
	// request without one); nothing is checked or capped by it.
	Stateless bool
	// SessionIdleTTL drops stateful sessions idle this long (default 30 minutes).
	SessionIdleTTL time.Duration
	// AuthToken, if set, must be sent as "Authorization: Bearer TOKEN" on /mcp.
	// /healthz and /readyz stay open for load-balancer probes. Every holder
	// of the one token is the same caller: it sees every skill, or under
	// mcpserver.Options.Access what the anonymous caller sees. Auth
	// replaces it.
	AuthToken string
	// Auth, if set, makes the server an OAuth 2.1 resource server, as the
	// MCP authorization specification asks: every request to /mcp (and to
	// the .well-known publication unless OpenWellKnown) is authenticated
	// once, by its bearer token, before anything reads its body. A request
	// without a token gets 401, one with a malformed Authorization header
	// 400, a refused token 401 and a token without RequiredScopes 403, each
	// with the WWW-Authenticate challenge Auth makes (naming its Protected
	// Resource Metadata, which is served at Auth.MetadataPaths to anyone).
	// The principal is the caller: what it sees follows
	// mcpserver.Options.Access, and a legacy session is bound to the
	// principal that opened it.
	Auth *auth.ResourceServer
	// RequiredScopes are the scopes every token must grant (with Auth).
	RequiredScopes []string
	// AuthStatus, if set, reports the state of Auth's token verifier
	// (auth.Verifier.Status) on /readyz: not ready (503) while the
	// identity provider's keys are not loaded, since every token is then
	// refused; degraded (200) while they cannot be refreshed.
	AuthStatus func() auth.Status
	// AllowedOrigins lists the browser origins (scheme://host[:port]) allowed
	// besides loopback ones. A request with any other Origin is refused.
	AllowedOrigins []string
	// AllowedHosts lists the Host header values (a name or address, or
	// name:port) accepted besides loopback ones, for a server reached
	// through a reverse proxy or a sidecar that keeps the client's Host.
	// An entry without a port matches any port; names match in any case.
	// With none, a request that reached a loopback address must carry a
	// loopback Host (DNS rebinding protection) and any other may carry
	// any Host. With some, every request must carry a loopback or listed
	// Host. Either way /healthz and /readyz also answer a Host that is an
	// IP address (a kubelet probes with the pod's IP as Host; DNS
	// rebinding needs a name). Any other request gets 403.
	AllowedHosts []string
	// MaxBodyBytes bounds a request body (default 1 MiB).
	MaxBodyBytes int64
	// BodyTimeout bounds the time to read a request's body once its
	// headers are in (default mcpserver.DefaultBodyTimeout), so a client
	// cannot hold a connection by trickling a body.
	BodyTimeout time.Duration
	// OpenWellKnown serves the discovery index and artifacts under
	// discovery.WellKnownPath to anyone, with CORS open to every origin;
	// without it they follow /mcp's rules (the token, allowed origins).
	OpenWellKnown bool
	// MaxSessions, MaxSessionsPerPrincipal, MaxStreams and
	// MaxStreamsPerPrincipal cap the MCP endpoint's sessions and streams
	// (see mcpserver.HTTPOptions). The per-principal defaults are a tenth
	// of the caps with Auth; without it every caller is the one anonymous
	// principal (the holders of the shared AuthToken too), whose default
	// is the whole cap.
	MaxSessions             int
	MaxSessionsPerPrincipal int
	MaxStreams              int
	MaxStreamsPerPrincipal  int
	// UI serves the catalog's pages for people at / (package ui), behind
	// the same checks as /mcp; without it / answers 404.
	UI bool
	// Resource is the MCP endpoint's canonical URL as clients reach it
	// (the OAuth resource), which the connect page shows; else it shows
	// the URL a request came to.
	Resource string
	// ShowLocations shows HTTP callers where each source is on the
	// server's disk, as stdio does, on /mcp and the pages (see
	// mcpserver.HTTPOptions.ShowLocations). For operators whose callers
	// are their own.
	ShowLocations bool
	// Registry, if its Registry is set, serves the Skills API at
	// /v1/skills (RegistryOptions).
	Registry RegistryOptions
	// Spans, if set, reports the spans given to the OTLP exporter's queue
	// (telemetry.Telemetry.Stats), which /metrics shows: exported,
	// dropped because the queue was full, failed to export.
	Spans func() telemetry.Stats
}

// New returns the HTTP site of srv: Streamable HTTP MCP at /mcp, the
// Agent Skills discovery index and artifacts under discovery.WellKnownPath,
// /healthz (the process is up), /readyz (the skills can be listed) and
// /metrics (Prometheus text format: tool calls and latencies, HTTP
// requests, cache and backend counters), and with UI the catalog's pages
// at / and their assets under ui.AssetsPath. Only /mcp, the .well-known
// publication (not with OpenWellKnown) and the pages require the token.
//
// Security: on every path, Host headers that do not match a loopback
// listener, or are not listed in AllowedHosts when it is set, are refused
// (DNS rebinding protection); browser Origins must be loopback
// or listed, bodies are bounded, and a bearer token is checked in constant
// time when configured. Panics become 500 responses, never dropped connections.
func New(srv *mcpserver.Server, opts Options) http.Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	mcp := srv.HTTPHandler(mcpserver.HTTPOptions{
		Stateless: opts.Stateless, SessionIdleTTL: opts.SessionIdleTTL, Authenticated: opts.Auth != nil, BodyTimeout: opts.BodyTimeout,
		MaxSessions: opts.MaxSessions, MaxSessionsPerPrincipal: opts.MaxSessionsPerPrincipal,
		MaxStreams: opts.MaxStreams, MaxStreamsPerPrincipal: opts.MaxStreamsPerPrincipal, ShowLocations: opts.ShowLocations,
	})
	g := &guard{opts: opts, audit: srv.AuditRefusal}
	archives := artifact.New(artifact.Options{Logger: srv.Logger()}) // the pages' zips and the .well-known artifacts: one bound on every archive built
	wk := discovery.NewPublisher(discovery.PublishOptions{Store: srv.Store(), View: srv.ViewOf, Audit: srv.AuditRead,
		Logger: srv.Logger(), Timeout: srv.RequestTimeout(), Archives: archives})
	counts := newCounters()

	mux := http.NewServeMux()
	mux.Handle("/mcp", g.wrap(mcp, nil))
	if opts.Auth != nil {
		for _, p := range opts.Auth.MetadataPaths() {
			mux.HandleFunc(p, opts.Auth.ServeMetadata) // public: it tells clients where to get a token
		}
	}
	if opts.OpenWellKnown {
		open := wk.Handler(true)
		mux.HandleFunc(discovery.WellKnownPath, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			open.ServeHTTP(w, r)
		})
	} else {
		mux.Handle(discovery.WellKnownPath, g.wrap(wk.Handler(false), nil))
	}
	if opts.Registry.Registry != nil {
		api := skillsAPI(srv, opts, g)
		mux.Handle(apiPath, api)
		mux.Handle(apiPath+"/", api)
		mux.Handle("/v1/reviews/", api) // the handler's 404 unless the registry reviews
	}
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.Handle("/readyz", &readiness{store: srv.Store(), log: srv.Logger(), auth: opts.AuthStatus})
	mux.Handle("/metrics", &exposition{srv: srv, http: counts, mcp: mcp, spans: opts.Spans})
	if opts.UI {
		pages, assets := pages(srv, opts, g, archives)
		mux.Handle("/", pages)
		mux.Handle(ui.AssetsPath, assets)
	} else {
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "not found: the MCP endpoint is /mcp; health checks are /healthz and /readyz; metrics are at /metrics"})
		})
	}
	return recoverHTTP(srv.Logger(), counts.countHTTP(hostGuard(opts.AllowedHosts, mux), opts.UI))
}

// guard applies the Origin, credential and body-size checks in front of
// the paths that need them (/mcp, the pages, a .well-known publication
// that is not open), and puts the principal it authenticated in the
// request's context (access.NewContext).
type guard struct {
	opts  Options
	audit func(r *http.Request, who *access.Principal, reason string) // mcpserver.Server.AuditRefusal
}

// refusal answers a request refused for its credentials, once its
// WWW-Authenticate challenge is set (nil: as JSON).
type refusal func(w http.ResponseWriter, r *http.Request, status int, msg string)

// wrap returns next behind the guard; a request refused for its
// credentials is answered by refuse (the pages' sign-in page), or with
// nil as JSON.
func (g *guard) wrap(next http.Handler, refuse refusal) http.Handler {
	return g.wrapBody(next, refuse, g.opts.MaxBodyBytes)
}

// wrapBody is wrap with bodies bounded by maxBody bytes; 0 leaves them
// to next.
func (g *guard) wrapBody(next http.Handler, refuse refusal, maxBody int64) http.Handler {
	opts := g.opts
	want := sha256.Sum256([]byte(opts.AuthToken)) // compared as digests: equal lengths, so the time tells nothing of the token's length
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" {
			if !originAllowed(origin, opts.AllowedOrigins) {
				mcpserver.WriteError(w, http.StatusForbidden, -32600, "Forbidden: origin "+clipHeader(origin)+" is not allowed; start the server with --allow-origin to permit it")
				return
			}
			// A browser page from an allowed origin may call the endpoint:
			// answer its preflight (which carries no credentials) and let it
			// read the answers and the session header.
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate")
			if r.Method == http.MethodOptions {
				h.Set("Access-Control-Allow-Methods", "POST, GET, DELETE, OPTIONS")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID")
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		if opts.Auth != nil {
			p, d := opts.Auth.Check(r, opts.RequiredScopes...)
			if d != nil {
				g.audit(r, d.Principal, denialReason(d)) // a verified token's subject, refused for its scopes
				if refuse != nil {
					w.Header().Set("WWW-Authenticate", opts.Auth.Challenge(d))
					msg := "Give a bearer token this server accepts."
					if d.Err != nil {
						msg = "The token was refused: " + d.Err.Error() + "." // the auth package's fixed words: never the token
					}
					endReading(w)
					refuse(w, r, d.Status, msg)
					return
				}
				deny(w, r, opts.Auth, d)
				return
			}
			r = r.WithContext(access.NewContext(r.Context(), p))
		} else if opts.AuthToken != "" {
			got := bearerToken(r)
			if sum := sha256.Sum256(got); subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="skillstore"`)
				endReading(w)
				if refuse != nil {
					msg := "Give the server's bearer token."
					if len(got) > 0 {
						msg = "The token was refused: it is not the server's token."
					}
					refuse(w, r, http.StatusUnauthorized, msg)
					return
				}
				mcpserver.WriteError(w, http.StatusUnauthorized, -32001, "Unauthorized: send the server's token as 'Authorization: Bearer TOKEN'")
				return
			}
		}
		if maxBody > 0 {
			if r.ContentLength > maxBody {
				mcpserver.WriteError(w, http.StatusRequestEntityTooLarge, -32600, fmt.Sprintf("Request body too large: the limit is %d bytes", maxBody))
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		}
		next.ServeHTTP(w, r)
	})
}

// readiness answers the readiness probe: 503 when the skills cannot be
// listed or (with auth) no token can be verified, "degraded" when a
// source or the identity provider's keys cannot be refreshed (the last
// good ones are served), else "ready".
type readiness struct {
	store *store.Store
	log   *slog.Logger
	auth  func() auth.Status // Options.AuthStatus; nil: none
}

func (s *readiness) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	authStatus := s.auth
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	list, err := s.store.View(nil).List(ctx)
	if err != nil {
		// Probes need no token, so the body names no source; the log does.
		s.log.Warn("not ready: the skills cannot be listed", "err", logtext.Of(err))
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "error": "the skill sources cannot be listed; see the server log"})
		return
	}
	var reasons []string
	if authStatus != nil {
		st := authStatus()
		if !st.Ready {
			s.log.Warn("not ready: the identity provider's signing keys are not loaded", "err", st.Err)
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable",
				"error": "the identity provider's signing keys are not loaded, so no access token can be verified; see the server log"})
			return
		}
		if st.Err != nil {
			reasons = append(reasons, fmt.Sprintf("the identity provider's signing keys cannot be refreshed (verifying tokens with the %d keys fetched at %s); see the server log",
				st.Keys, st.Fetched.UTC().Format(time.RFC3339)))
		}
	}
	if failing := s.store.Failing(); len(failing) > 0 {
		// Still ready: the last good catalog and cached content are
		// served, so a load balancer need not drain every replica
		// during a store outage. The body names no source; the log does.
		since := failing[0].Since
		for _, f := range failing {
			if f.Since.Before(since) {
				since = f.Since
			}
		}
		unverified := 0
		for _, f := range failing {
			if errors.Is(f.Err, store.ErrUnverified) {
				unverified++
			}
		}
		if n := len(failing) - unverified; n > 0 {
			reasons = append(reasons, fmt.Sprintf("%d of %d skill sources cannot be refreshed (since %s); serving the last good catalog and cached files; see the server log",
				n, len(s.store.Sources()), since.UTC().Format(time.RFC3339)))
		}
		if unverified > 0 {
			reasons = append(reasons, fmt.Sprintf("%d of %d skill sources hold content that failed signature verification (newly published, or no longer trusted since the trusted signers were reloaded); serving their last verified version, or nothing from one that has none; see the server log",
				unverified, len(s.store.Sources())))
		}
	}
	if len(reasons) > 0 {
		writeJSON(w, http.StatusOK, map[string]any{"status": "degraded", "skills": len(list), "reason": strings.Join(reasons, "; ")})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "skills": len(list)})
}

// denialReason is why the audit log says d refused a request: the auth
// package's fixed words, never the token.
func denialReason(d *auth.Denial) string {
	if d.Err != nil {
		return d.Err.Error()
	}
	return http.StatusText(d.Status)
}

// deny refuses a request Auth did not authenticate: 400, 401 or 403
// with its WWW-Authenticate challenge and an RFC 6750 error body. The
// connection is closed after the answer, and its body is never read.
func deny(w http.ResponseWriter, r *http.Request, rs *auth.ResourceServer, d *auth.Denial) {
	endReading(w)
	rs.Deny(w, r, d)
}

// endReading closes the connection of a request refused before its body
// is read, once answered: net/http would read what is left of the body
// before closing, so reading ends now, and an unauthenticated trickle
// holds nothing.
func endReading(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	http.NewResponseController(w).SetReadDeadline(time.Now())
}

// bearerToken returns the token of an "Authorization: Bearer TOKEN"
// header; the scheme is case-insensitive (RFC 9110, 11.1).
func bearerToken(r *http.Request) []byte {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil
	}
	return []byte(strings.TrimSpace(token))
}

// hostGuard refuses, on every path, a request whose Host header is not
// accepted (hostAccepted): a rebound page must not read /metrics or
// /readyz either.
func hostGuard(allowed []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAccepted(r, allowed) {
			mcpserver.WriteError(w, http.StatusForbidden, -32600, "Forbidden: invalid Host header "+clipHeader(r.Host)+
				"; if a proxy or sidecar forwards this name, start the server with --allow-host NAME")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostAccepted reports whether r's Host header is accepted: a loopback
// Host always, and on the probes (/healthz, /readyz) an IP address, which
// DNS rebinding cannot produce; else with allowed empty any Host on a
// connection to an address that is not loopback, and with allowed set a
// listed Host only.
func hostAccepted(r *http.Request, allowed []string) bool {
	if netaddr.IsLoopback(r.Host) {
		return true
	}
	name, port := splitHost(r.Host)
	if (r.URL.Path == "/healthz" || r.URL.Path == "/readyz") && net.ParseIP(name) != nil {
		return true
	}
	if len(allowed) == 0 {
		local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		return !ok || local == nil || !netaddr.IsLoopback(local.String())
	}
	for _, a := range allowed {
		an, ap := splitHost(a)
		if strings.EqualFold(an, name) && (ap == "" || ap == port) {
			return true
		}
	}
	return false
}

// splitHost splits a Host header value (name, IPv4, [IPv6], each with an
// optional :port) into its name, without brackets or a trailing dot, and
// its port.
func splitHost(hostport string) (name, port string) {
	name, port, err := net.SplitHostPort(hostport)
	if err != nil {
		name, port = strings.Trim(hostport, "[]"), ""
	}
	return strings.TrimSuffix(name, "."), port
}

// originAllowed accepts loopback origins and the listed ones.
func originAllowed(origin string, allowed []string) bool {
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(strings.TrimSuffix(a, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && netaddr.IsLoopback(u.Host)
}

func clipHeader(s string) string { return fmt.Sprintf("%q", logtext.Clip(s, 100)) }

// recoverHTTP answers 500 when a handler panics, instead of dropping the connection.
func recoverHTTP(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.Error("panic in HTTP handler", "path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				mcpserver.WriteError(w, http.StatusInternalServerError, -32603, "Internal error; the server logged the details")
			}
		}()
		next.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
