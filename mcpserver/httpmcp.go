package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// streamableHTTP is the /mcp endpoint: every request passes the protocol
// layer, which checks the session (stateful mode) and the message, answers
// the hot methods, and hands everything else to mcp-go's Streamable HTTP
// server, which keeps sessions, streams and notifications. Sessions live in
// one registry that mcp-go uses as its SessionIdManager, so an unknown or
// terminated session gets 404 from every method alike. The layer also caps
// the open streams, before mcp-go opens one.
func (s *Server) streamableHTTP(opts HTTPOptions) *httpLayer {
	h := &httpLayer{srv: s, drains: map[*http.Server]context.Context{}, stateful: !opts.Stateless, bodyTimeout: opts.BodyTimeout,
		sessions: newSessions(opts.MaxSessions, opts.SessionIdleTTL, opts.Stateless), streams: newStreams(opts.MaxStreams)}
	h.next = server.NewStreamableHTTPServer(s.mcp,
		server.WithStreamableHTTPLogger(s.log),
		server.WithDisableLocalhostProtection(true), // the guard checks Host for every path
		server.WithSessionIdManager(h.sessions),
	)
	return h
}

type httpLayer struct {
	srv         *Server
	next        http.Handler // mcp-go's Streamable HTTP server
	stateful    bool         // sessions are checked (else the registry is lenient)
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
	}
	gauge("skillstore_http_streams", "Open MCP streams: GET streams and subscriptions/listen streams.", int64(h.streams.Len()))
	gauge("skillstore_http_streams_max", "The cap on open streams (--max-streams).", int64(h.streams.max))
}

func (h *httpLayer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.endIdleSessions()
	modern := mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion))
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet, http.MethodDelete:
		if !modern {
			done, ok := h.checkSession(w, r)
			if !ok {
				return
			}
			defer done()
		}
		if r.Method == http.MethodGet {
			if !modern { // 2026-07-28 has no GET stream: mcp-go refuses it
				release, ok := h.openStream(w, r.Header.Get(mcp.HeaderSessionID), nil)
				if !ok {
					return
				}
				defer release()
			}
			var done func()
			r, done = h.stream(r)
			defer done()
		}
		h.next.ServeHTTP(w, r)
		if r.Method == http.MethodDelete && h.stateful {
			h.srv.inflight.dropScope("http:" + r.Header.Get(mcp.HeaderSessionID))
		}
	default:
		h.next.ServeHTTP(w, r)
	}
}

// post reads one JSON-RPC message, answers it if it is the layer's, and
// forwards it to mcp-go otherwise.
func (h *httpLayer) post(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(h.bodyTimeout)) // the connection's reads, for this body only
	body, err := io.ReadAll(r.Body)
	if err != nil {
		rc.SetReadDeadline(time.Now()) // read no more of it: the connection closes after the answer
		w.Header().Set("Connection", "close")
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			jsonRPCError(w, http.StatusRequestEntityTooLarge, codeInvalidRequest, fmt.Sprintf("Request body too large: the limit is %d bytes", tooLarge.Limit))
			return
		}
		jsonRPCError(w, http.StatusRequestTimeout, codeInvalidRequest, fmt.Sprintf("Request body not received in time: send the whole body within %v", h.bodyTimeout))
		return
	}
	rc.SetReadDeadline(time.Time{}) // a stream may follow: the connection's reads have no deadline again
	r.Body = io.NopCloser(bytes.NewReader(body))
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		h.next.ServeHTTP(w, r) // mcp-go refuses it with 400
		return
	}
	o := origin{header: r.Header}
	st := h.srv.prepare(o, body)
	modern := st.modern || mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion))
	if !modern && !st.initialize {
		done, ok := h.checkSession(w, r) // the session first, as for every request mcp-go answers
		if !ok {
			return
		}
		defer done()
	}
	if sid := r.Header.Get(mcp.HeaderSessionID); h.stateful && !modern && sid != "" {
		o.scope = "http:" + sid // a live session: its calls can be cancelled by id
	}
	h.srv.cancelCall(o, st)
	if st.call == nil && !st.answer.forward {
		if st.answer.body == nil {
			w.WriteHeader(http.StatusAccepted) // a notification, however malformed, gets no answer
			return
		}
		st.answer.modern = modern
		h.write(w, st.answer) // a malformed message
		return
	}
	if st.call == nil {
		if st.initialize && !modern {
			evicted, ok := h.sessions.admit()
			if !ok {
				w.Header().Set("Retry-After", "60")
				jsonRPCError(w, http.StatusServiceUnavailable, codeInternal, fmt.Sprintf(
					"Too many sessions: this server holds its limit of %d live sessions, each with a request in flight or a stream open. Retry later, or ask the operator to raise --max-sessions", h.sessions.max))
				return
			}
			if evicted != "" {
				h.srv.log.Info("ending the least recently used idle session to admit a new one", "session", evicted, "max_sessions", h.sessions.max)
				h.endSession(evicted, true)
			}
			defer func() { h.sessions.release(w.Header().Get(mcp.HeaderSessionID)) }()
			if !h.stateful {
				h.forgetSession(w, r) // a stateless replica keeps nothing for it
				return
			}
		}
		if id, ok := listenRequest(st, body); ok {
			release, ok := h.openStream(w, "", id)
			if !ok {
				return
			}
			defer release()
			var done func()
			r, done = h.stream(r)
			defer done()
		}
		h.next.ServeHTTP(w, r)
		if r.Method == http.MethodDelete {
			h.srv.inflight.dropScope(o.scope)
		}
		return
	}
	if v := r.Header.Get(mcp.HeaderProtocolVersion); !st.call.modern && v != "" && !mcp.IsValidProtocolVersion(v) {
		httpError(w, http.StatusBadRequest, "Unsupported protocol version: "+v)
		return
	}
	h.write(w, h.srv.runCall(r.Context(), o, st))
}

// stream returns r for a long-lived stream (a GET, or a 2026-07-28
// subscriptions/listen): its context also ends when the http.Server serving
// it starts to shut down. Shutdown waits for handlers to return, and a
// stream's handler returns only when its context ends, so without this an
// open stream holds a graceful shutdown for its whole grace period. Call
// done when the stream has ended.
func (h *httpLayer) stream(r *http.Request) (_ *http.Request, done func()) {
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

// checkSession checks the Mcp-Session-Id of a legacy request, answering
// 400 when a stateful endpoint gets none and 404 when it names no live
// session (unknown, expired, evicted or ended; on a stateless endpoint,
// ended here). The session is busy, never evicted, until done is called.
func (h *httpLayer) checkSession(w http.ResponseWriter, r *http.Request) (done func(), ok bool) {
	done, err := h.sessions.acquire(r.Header.Get(mcp.HeaderSessionID))
	if errors.Is(err, errNoSession) {
		httpError(w, http.StatusBadRequest, "Bad Request: Mcp-Session-Id header is required; send initialize first to start a session")
		return nil, false
	}
	if err != nil {
		httpError(w, http.StatusNotFound, "Session not found: it has ended or never existed; send initialize to start a new session")
		return nil, false
	}
	return done, true
}

// streamRetryAfter is the Retry-After, in seconds, of a stream refused at
// the stream cap: streams close as their clients go away.
const streamRetryAfter = "10"

// openStream takes a place under the stream cap for a stream a request
// opens — the GET stream of session, if session is not empty — or answers
// 503 with Retry-After at the cap and 409 when the session already holds a
// GET stream (the official TypeScript and Python SDKs answer a second GET
// so too). id is the JSON-RPC id of the request, if it has one. Call
// release when the stream has ended.
func (h *httpLayer) openStream(w http.ResponseWriter, session string, id json.RawMessage) (release func(), ok bool) {
	release, err := h.streams.acquire(session)
	if errors.Is(err, errStreamHeld) {
		jsonRPCErrorID(w, http.StatusConflict, codeInvalidRequest, id,
			"Conflict: this session already has a GET stream open, and a session holds one; close it before opening another")
		return nil, false
	}
	if err != nil {
		w.Header().Set("Retry-After", streamRetryAfter)
		jsonRPCErrorID(w, http.StatusServiceUnavailable, codeInternal, id, fmt.Sprintf(
			"Too many open streams: this server holds its limit of %d open streams. Retry later, close streams you do not read, or ask the operator to raise --max-streams", h.streams.max))
		return nil, false
	}
	return release, true
}

// forgetSession serves a stateless initialize: mcp-go answers it, handing
// the client a session id, and the session mcp-go then registered is ended
// at once (quietly: the id stays valid), so a stateless replica holds no
// state for its clients between requests.
func (h *httpLayer) forgetSession(w http.ResponseWriter, r *http.Request) {
	h.next.ServeHTTP(w, r)
	if id := w.Header().Get(mcp.HeaderSessionID); id != "" {
		h.endSession(id, false)
	}
}

// endSession ends a session's state in mcp-go through its own DELETE
// handling, which closes its streams and forgets it; refuse says whether
// the id is refused afterwards.
func (h *httpLayer) endSession(id string, refuse bool) {
	if !refuse {
		h.sessions.quiet(id)
	}
	req := httptest.NewRequestWithContext(context.Background(), http.MethodDelete, "/mcp", nil)
	req.Header.Set(mcp.HeaderSessionID, id)
	h.next.ServeHTTP(httptest.NewRecorder(), req) // mcp-go calls Terminate
	h.srv.inflight.dropScope("http:" + id)
}

// endIdleSessions ends the sessions idle past their limit through mcp-go's
// own DELETE handling, which closes their streams and forgets their state.
func (h *httpLayer) endIdleSessions() {
	for _, id := range h.sessions.expired(time.Now()) {
		h.srv.log.Info("ending idle session", "session", id)
		h.endSession(id, true)
	}
}

// write sends one of the layer's answers. On 2026-07-28 an error answer
// carries the HTTP status the specification maps its code to, as mcp-go does.
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

// checkModernHTTP applies what 2026-07-28 requires of a POST over HTTP, as
// mcp-go does: no Last-Event-ID, and an Mcp-Protocol-Version header equal
// to the version in _meta, which must be there. It returns a message and
// code, or "".
func checkModernHTTP(h http.Header, version string) (string, int) {
	switch got := h.Get(mcp.HeaderProtocolVersion); {
	case h.Get(mcp.HeaderLastEventID) != "":
		return "Last-Event-ID is not supported in protocol version " + mcp.ProtocolVersion20260728 +
			": streams are not resumable, re-issue the request with a new ID", mcp.HEADER_MISMATCH
	case got == "":
		return mcp.HeaderProtocolVersion + " header is required for requests carrying " + mcp.MetaKeyProtocolVersion, mcp.HEADER_MISMATCH
	case version == "":
		return "missing or invalid _meta field " + mcp.MetaKeyProtocolVersion, codeInvalidParams
	case got != version:
		return mcp.HeaderProtocolVersion + " header " + got + " does not match request " + mcp.MetaKeyProtocolVersion + " " + version, mcp.HEADER_MISMATCH
	}
	return "", 0
}

// httpStatusFor is the HTTP status 2026-07-28 gives a JSON-RPC error code.
func httpStatusFor(code int) int {
	switch code {
	case codeMethodNotFound:
		return http.StatusNotFound
	case mcp.HEADER_MISMATCH, mcp.MISSING_REQUIRED_CLIENT_CAPABILITY, mcp.UNSUPPORTED_PROTOCOL_VERSION,
		codeInvalidRequest, codeInvalidParams, codeParseError:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// httpError answers with a plain-text error, as mcp-go's transport does.
func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	io.WriteString(w, msg+"\n")
}
