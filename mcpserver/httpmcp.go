package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/access"
)

// Defaults for HTTPOptions.
const (
	DefaultSessionIdleTTL = 30 * time.Minute
	DefaultBodyTimeout    = 30 * time.Second
)

// HTTPOptions tune the MCP endpoint (HTTPHandler).
type HTTPOptions struct {
	// Stateless serves every request on its own: any replica behind a load
	// balancer can answer any request. Clients of the initialize handshake
	// still get a session id, which every replica accepts (as it does a
	// request without one); nothing is checked or capped by it.
	Stateless bool
	// SessionIdleTTL drops stateful sessions idle this long (default 30 minutes).
	SessionIdleTTL time.Duration
	// Authenticated says a guard in front of the endpoint authenticates
	// each caller and puts its principal in the request's context
	// (access.NewContext): callers are then told apart, for the
	// per-principal caps' defaults. Without it every caller is the one
	// anonymous principal. The principal found in the context is the
	// caller either way: what it sees follows Options.Access, and a
	// legacy session is bound to the principal that opened it.
	Authenticated bool
	// BodyTimeout bounds the time to read a request's body once its
	// headers are in (default DefaultBodyTimeout), so a client cannot hold
	// a connection by trickling a body.
	BodyTimeout time.Duration
	// MaxSessions caps live stateful sessions (default DefaultMaxSessions);
	// at it, initialize ends the least recently used idle session, and
	// gets 503 with Retry-After when every session is busy.
	MaxSessions int
	// MaxSessionsPerPrincipal caps the live sessions of one principal (one
	// subject, whatever its OAuth client), so that one caller cannot take
	// every place: at it, initialize ends that principal's least recently
	// used idle session, or gets 503 with Retry-After; other principals
	// are not affected. Default: a tenth of MaxSessions (at least 1) when
	// Authenticated; without it every caller is the one anonymous
	// principal (the holders of a shared token too), whose default is the
	// whole cap.
	MaxSessionsPerPrincipal int
	// MaxStreams caps open streams (default DefaultMaxStreams): legacy GET
	// streams and 2026-07-28 subscriptions/listen streams together. Past
	// it, a request that would open one gets 503 with Retry-After until a
	// stream closes. A legacy session holds one GET stream: a second while
	// the first is open gets 409.
	MaxStreams int
	// MaxStreamsPerPrincipal caps the open streams of one principal, as
	// MaxSessionsPerPrincipal does sessions (same default): past it, that
	// principal's new stream gets 503 with Retry-After.
	MaxStreamsPerPrincipal int
	// ShowLocations shows HTTP callers where each source is on the
	// server's disk, as stdio does. Without it, a source on the server's
	// disk (a folder, an archive) is named by its label wherever a
	// location is shown — the provenance _meta, the Skill tool's "Path:"
	// line — and a remote source by its URL (which never holds a
	// credential): see tools.RemoteLocation. For operators whose callers
	// are their own.
	ShowLocations bool
}

// Endpoint is the Streamable HTTP MCP endpoint (HTTPHandler). It is safe
// for concurrent use.
type Endpoint struct{ h *httpLayer }

// HTTPHandler returns the Streamable HTTP MCP endpoint: mount it at /mcp.
// It answers every path it is given, and is MCP alone: it checks no
// token, Origin or Host header and bounds no body, which package site
// puts in front of it with the pages, the .well-known publication,
// health checks and metrics. The caller of a request is the principal in
// its context (access.NewContext), or the anonymous one.
func (s *Server) HTTPHandler(opts HTTPOptions) *Endpoint {
	if opts.SessionIdleTTL <= 0 {
		opts.SessionIdleTTL = DefaultSessionIdleTTL
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxStreams <= 0 {
		opts.MaxStreams = DefaultMaxStreams
	}
	return &Endpoint{s.streamableHTTP(opts)}
}

func (e *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) { e.h.ServeHTTP(w, r) }

// WriteGauges writes, through gauge, the live sessions and open streams
// and their caps, for /metrics.
func (e *Endpoint) WriteGauges(gauge func(name, help string, v int64)) { e.h.gauges(gauge) }

// streamableHTTP is the /mcp endpoint, the Streamable HTTP transport of
// every protocol version: POST carries one message and gets its answer
// (JSON, or for subscriptions/listen an SSE stream); on the handshake
// versions GET opens a session's stream of notifications and DELETE ends
// the session. Sessions live in one registry, which every legacy request
// is checked against before anything answers; open streams are capped.
func (s *Server) streamableHTTP(opts HTTPOptions) *httpLayer {
	distinct := opts.Authenticated // else every caller is the one anonymous principal
	return &httpLayer{srv: s, drains: map[*http.Server]context.Context{}, stateful: !opts.Stateless, bodyTimeout: opts.BodyTimeout, remote: !opts.ShowLocations,
		sessions: newSessions(opts.MaxSessions, principalShare(opts.MaxSessionsPerPrincipal, opts.MaxSessions, distinct), opts.SessionIdleTTL, opts.Stateless),
		streams:  newStreams(opts.MaxStreams, principalShare(opts.MaxStreamsPerPrincipal, opts.MaxStreams, distinct))}
}

type httpLayer struct {
	srv         *Server
	stateful    bool // sessions are checked (else the registry is lenient)
	remote      bool // callers are shown no host path (source.remote)
	bodyTimeout time.Duration
	sessions    *sessions
	streams     *streams

	mu     sync.Mutex
	drains map[*http.Server]context.Context // ends when that server shuts down
}

// gauges writes the live sessions and open streams, and their caps.
func (h *httpLayer) gauges(gauge func(name, help string, v int64)) {
	if h.stateful {
		gauge("skillstore_http_sessions", "Live stateful MCP sessions.", int64(h.sessions.Len()))
		gauge("skillstore_http_sessions_max", "The cap on live sessions (--max-sessions).", int64(h.sessions.max))
		gauge("skillstore_http_sessions_per_principal_max", "The share of the session cap one principal may hold (--max-sessions-per-principal).", int64(h.sessions.perPrincipal))
	}
	gauge("skillstore_http_streams", "Open MCP streams: GET streams and subscriptions/listen streams.", int64(h.streams.Len()))
	gauge("skillstore_http_streams_max", "The cap on open streams (--max-streams).", int64(h.streams.max))
	gauge("skillstore_http_streams_per_principal_max", "The share of the stream cap one principal may hold (--max-streams-per-principal).", int64(h.streams.perPrincipal))
}

func (h *httpLayer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.endIdleSessions()
	modern := mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion))
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet, http.MethodDelete:
		if modern {
			// 2026-07-28 has neither: notifications come on subscriptions/listen.
			w.Header().Set("Allow", http.MethodPost)
			why := ": server-to-client messages use subscriptions/listen"
			if r.Method == http.MethodDelete {
				why = ": it has no sessions to end"
			}
			httpError(w, http.StatusMethodNotAllowed, r.Method+" is not supported in protocol version "+mcp.ProtocolVersion20260728+why)
			return
		}
		if v := r.Header.Get(mcp.HeaderProtocolVersion); v != "" && !mcp.IsValidProtocolVersion(v) {
			httpError(w, http.StatusBadRequest, "Unsupported protocol version: "+v)
			return
		}
		sess, done, ok := h.checkSession(w, r, h.srv.httpCaller(r).principalOf())
		if !ok {
			return
		}
		defer done()
		if r.Method == http.MethodGet {
			h.get(w, r, sess)
			return
		}
		h.endSession(r.Header.Get(mcp.HeaderSessionID), "")
		w.WriteHeader(http.StatusOK)
	case http.MethodHead:
		w.WriteHeader(http.StatusOK)
	default:
		w.Header().Set("Allow", "POST, GET, DELETE")
		httpError(w, http.StatusMethodNotAllowed, "Method not allowed: the MCP endpoint takes POST, GET and DELETE")
	}
}

// post reads one JSON-RPC message and answers it.
func (h *httpLayer) post(w http.ResponseWriter, r *http.Request) {
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		httpError(w, http.StatusBadRequest, "Invalid content type: must be 'application/json'")
		return
	}
	if isBatch(body) {
		h.batch(w, r, body)
		return
	}
	who := h.srv.httpCaller(r)
	x := h.srv.accept(r.Context(), source{header: r.Header, caller: who, addr: r.RemoteAddr, remote: h.remote}, body)
	modern := x.modern || mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion))
	x.answer.modern = x.answer.modern || modern
	if !modern && !x.initialize {
		if v := r.Header.Get(mcp.HeaderProtocolVersion); v != "" && !mcp.IsValidProtocolVersion(v) {
			x.release(nil)
			httpError(w, http.StatusBadRequest, "Unsupported protocol version: "+v)
			return
		}
		sess, done, ok := h.checkSession(w, r, who.principalOf()) // the session first, for every legacy message
		if !ok {
			x.release(nil)
			return
		}
		defer done()
		x.bind(sess)
	}
	switch {
	case x.response && modern:
		jsonRPCErrorID(w, http.StatusBadRequest, codeInvalidRequest, nil, "client-to-server responses are not supported in protocol version "+
			mcp.ProtocolVersion20260728+": server-initiated requests were replaced by multi round-trip requests")
	case x.req == nil && x.answer.body == nil:
		w.WriteHeader(http.StatusAccepted) // a notification or a response, however malformed, gets no answer
	case x.req == nil:
		h.write(w, x.answer)
	case x.initialize:
		h.initialize(w, x)
	case x.stream():
		h.listen(w, r, x)
	default:
		h.write(w, x.run(nil))
	}
}

// batch answers a POST carrying a JSON-RPC batch, in the session its
// header names (on the handshake versions).
func (h *httpLayer) batch(w http.ResponseWriter, r *http.Request, body []byte) {
	src := source{header: r.Header, caller: h.srv.httpCaller(r), addr: r.RemoteAddr, remote: h.remote}
	if !mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
		sess, done, ok := h.checkSession(w, r, src.caller.principalOf())
		if !ok {
			return
		}
		defer done()
		src.sess = sess
	}
	a := h.srv.batch(r.Context(), src, body)
	if a.body == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	h.write(w, a)
}

// readBody reads a POST's body within the body timeout, or answers 413 or
// 408 and closes the connection.
func (h *httpLayer) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(h.bodyTimeout)) // the connection's reads, for this body only
	body, err := io.ReadAll(r.Body)
	if err != nil {
		rc.SetReadDeadline(time.Now()) // read no more of it: the connection closes after the answer
		w.Header().Set("Connection", "close")
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			jsonRPCError(w, http.StatusRequestEntityTooLarge, codeInvalidRequest, fmt.Sprintf("Request body too large: the limit is %d bytes", tooLarge.Limit))
			return nil, false
		}
		jsonRPCError(w, http.StatusRequestTimeout, codeInvalidRequest, fmt.Sprintf("Request body not received in time: send the whole body within %v", h.bodyTimeout))
		return nil, false
	}
	rc.SetReadDeadline(time.Time{}) // a stream may follow: the connection's reads have no deadline again
	return body, true
}

// initialize admits a session for a legacy initialize request (on a
// stateful endpoint, evicting the least recently used idle session at the
// cap, or the caller's own at its share of it) and answers it with the
// session's id.
func (h *httpLayer) initialize(w http.ResponseWriter, x *exchange) {
	owner := x.src.caller.principalOf()
	evicted, evictedID, err := h.sessions.admit(principalKey(owner))
	if err != nil {
		x.release(nil)
		w.Header().Set("Retry-After", "60")
		msg := fmt.Sprintf("Too many sessions: this server holds its limit of %d live sessions, each with a request in flight or a stream open. Retry later, or ask the operator to raise --max-sessions", h.sessions.max)
		if errors.Is(err, errPrincipalSessions) {
			msg = fmt.Sprintf("Too many sessions: you hold your limit of %d live sessions on this server, each with a request in flight or a stream open. End sessions you no longer use (DELETE), retry later, or ask the operator to raise --max-sessions-per-principal", h.sessions.perPrincipal)
		}
		jsonRPCError(w, http.StatusServiceUnavailable, codeInternal, msg)
		return
	}
	if evicted != nil {
		h.srv.log.Info("ending the least recently used idle session to admit a new one", "session", evictedID, "max_sessions", h.sessions.max)
		evicted.end()
	}
	var sess *session
	if h.stateful {
		sess = h.srv.newSession(nil)
		sess.who = h.srv.httpSessionCaller(sess, owner)
	}
	id := h.sessions.open(sess, owner)
	defer h.sessions.release(id)
	x.bind(sess)
	a := x.run(nil)
	if a.code == 0 {
		w.Header().Set(mcp.HeaderSessionID, id)
	} else if sess != nil {
		h.endSession(id, "")
	}
	h.write(w, a)
}

// get serves a legacy GET: the session's stream of notifications, until the
// client goes away, the session ends, or the server shuts down. On a
// stateless endpoint the stream carries list changes alone.
func (h *httpLayer) get(w http.ResponseWriter, r *http.Request, sess *session) {
	who := h.srv.httpCaller(r).principalOf()
	release, ok := h.openStream(w, r.Header.Get(mcp.HeaderSessionID), who, nil)
	if !ok {
		return
	}
	defer release()
	if sess == nil { // stateless: a session of its own, for this stream
		sess = h.srv.newSession(nil)
		sess.who = h.srv.sessionCaller(who)
		sess.initialized()
		defer sess.end()
	}
	r, done := h.stream(r, who)
	defer done()
	out := newSSEStream()
	old := sess.setOut(out) // before the headers: a client may act on a change once it sees them
	defer sess.setOut(old)
	h.serveSSE(w, r, out, func() []byte {
		select {
		case <-r.Context().Done():
		case <-sess.done:
		}
		return nil
	})
}

// listen serves a 2026-07-28 subscriptions/listen request: an SSE stream of
// the notifications it opted in to, under the stream cap.
func (h *httpLayer) listen(w http.ResponseWriter, r *http.Request, x *exchange) {
	who := x.src.caller.principalOf()
	release, ok := h.openStream(w, "", who, x.id())
	if !ok {
		x.release(nil)
		return
	}
	defer release()
	r, done := h.stream(r, who)
	defer done()
	x.ctx = r.Context()
	out := newSSEStream()
	h.serveSSE(w, r, out, func() []byte { return x.run(out).body })
}

// stream returns r for a long-lived stream (a GET, or a 2026-07-28
// subscriptions/listen) of principal who: its context also ends when
// who's token expires (a stream outlives no token: the client opens
// another with a fresh one), and when the http.Server serving it starts
// to shut down. Shutdown waits for handlers to return, and a stream's
// handler returns only when its context ends, so without this an open
// stream holds a graceful shutdown for its whole grace period. Call done
// when the stream has ended.
func (h *httpLayer) stream(r *http.Request, who *access.Principal) (_ *http.Request, done func()) {
	if who != nil && !who.Expires.IsZero() {
		ctx, cancel := context.WithDeadline(r.Context(), who.Expires)
		r2, done := h.stream(r.WithContext(ctx), nil)
		return r2, func() { done(); cancel() }
	}
	hs, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if hs == nil {
		return r, func() {}
	}
	h.mu.Lock()
	drain, ok := h.drains[hs]
	if !ok {
		var cancel context.CancelFunc
		drain, cancel = context.WithCancel(context.Background())
		h.drains[hs] = drain
		hs.RegisterOnShutdown(func() {
			cancel()
			h.mu.Lock()
			delete(h.drains, hs)
			h.mu.Unlock()
		})
	}
	h.mu.Unlock()
	ctx, cancel := context.WithCancel(r.Context())
	stop := context.AfterFunc(drain, cancel)
	return r.WithContext(ctx), func() { stop(); cancel() }
}

// checkSession checks the Mcp-Session-Id of a legacy request from the
// principal who, answering 400 when a stateful endpoint gets none and 404
// when it names no live session of who's (unknown, expired, evicted or
// ended; on a stateless endpoint, ended here). A session opened by another
// principal gets the same 404 as one that never existed, as the
// specification's answer to a session the server does not know: a session
// id is no credential, and one seen by someone else neither works for them
// nor tells them it is live. The session is busy, never evicted, until
// done is called.
func (h *httpLayer) checkSession(w http.ResponseWriter, r *http.Request, who *access.Principal) (sess *session, done func(), ok bool) {
	sess, done, err := h.sessions.acquire(r.Header.Get(mcp.HeaderSessionID), who)
	if errors.Is(err, errForeignSession) {
		h.srv.AuditRefusal(r, who, "the session belongs to another principal")
	}
	if errors.Is(err, errNoSession) {
		httpError(w, http.StatusBadRequest, "Bad Request: Mcp-Session-Id header is required; send initialize first to start a session")
		return nil, nil, false
	}
	if err != nil {
		httpError(w, http.StatusNotFound, "Session not found: it has ended or never existed; send initialize to start a new session")
		return nil, nil, false
	}
	return sess, done, true
}

// streamRetryAfter is the Retry-After, in seconds, of a stream refused at
// the stream cap: streams close as their clients go away.
const streamRetryAfter = "10"

// openStream takes a place under the stream cap for a stream a request of
// principal who opens — the GET stream of session, if session is not
// empty — or answers 503 with Retry-After at the cap or at who's share of
// it, and 409 when the session already holds a GET stream (the official
// TypeScript and Python SDKs answer a second GET so too). id is the
// JSON-RPC id of the request, if it has one. Call release when the stream
// has ended.
func (h *httpLayer) openStream(w http.ResponseWriter, session string, who *access.Principal, id json.RawMessage) (release func(), ok bool) {
	release, err := h.streams.acquire(session, principalKey(who))
	if errors.Is(err, errStreamHeld) {
		jsonRPCErrorID(w, http.StatusConflict, codeInvalidRequest, id,
			"Conflict: this session already has a GET stream open, and a session holds one; close it before opening another")
		return nil, false
	}
	if err != nil {
		w.Header().Set("Retry-After", streamRetryAfter)
		msg := fmt.Sprintf("Too many open streams: this server holds its limit of %d open streams. Retry later, close streams you do not read, or ask the operator to raise --max-streams", h.streams.max)
		if errors.Is(err, errPrincipalStreams) {
			msg = fmt.Sprintf("Too many open streams: you hold your limit of %d open streams on this server. Close streams you do not read, retry later, or ask the operator to raise --max-streams-per-principal", h.streams.perPrincipal)
		}
		jsonRPCErrorID(w, http.StatusServiceUnavailable, codeInternal, id, msg)
		return nil, false
	}
	return release, true
}

// endSession ends a stateful session: it is forgotten, its calls in flight
// are cancelled and its GET stream closes. why, if set, is logged.
func (h *httpLayer) endSession(id, why string) {
	sess := h.sessions.end(id)
	if sess == nil {
		return
	}
	if why != "" {
		h.srv.log.Info(why, "session", id)
	}
	sess.end()
}

// endIdleSessions ends the sessions idle past their limit.
func (h *httpLayer) endIdleSessions() {
	for id, sess := range h.sessions.expired(time.Now()) {
		h.srv.log.Info("ending idle session", "session", id)
		sess.end()
	}
}

// write sends an answer. On 2026-07-28 an error answer carries the HTTP
// status the specification maps its code to.
func (h *httpLayer) write(w http.ResponseWriter, a answer) {
	status := http.StatusOK
	if a.code != 0 && a.modern {
		status = httpStatusFor(a.code)
	} else if a.code == codeParseError || a.code == codeInvalidRequest {
		status = http.StatusBadRequest
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(a.body)))
	w.WriteHeader(status)
	w.Write(a.body)
	putBuffer(a.body)
}

// httpError answers with a plain-text error.
func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	io.WriteString(w, msg+"\n")
}

// WriteError answers an HTTP request with a JSON-RPC error of code,
// with a null id, as the MCP endpoint answers a request it refuses
// before reading it: the HTTP site's guards refuse so on every path.
func WriteError(w http.ResponseWriter, status, code int, msg string) {
	jsonRPCErrorID(w, status, code, nil, msg)
}

func jsonRPCError(w http.ResponseWriter, status, code int, msg string) {
	jsonRPCErrorID(w, status, code, nil, msg)
}

// jsonRPCErrorID answers with a JSON-RPC error for the request whose id is
// id (null if nil), encoded as every error answer is (errorAnswer).
func jsonRPCErrorID(w http.ResponseWriter, status, code int, id json.RawMessage, msg string) {
	a := errorAnswer(id, false, &rpcError{Code: code, Message: msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(a.body)
	putBuffer(a.body)
}
