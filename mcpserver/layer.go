package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"sync"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/tools"
)

// The protocol layer.
//
// Every transport — stdio, Streamable HTTP (stateful and stateless) and the
// in-process transport — hands each incoming message to Server.handle. The
// layer checks the JSON-RPC envelope and the per-request protocol metadata
// of 2026-07-28 once, for every message, and then either answers the
// message itself or forwards it to mcp-go unchanged:
//
//   - The hot methods — tools/call for skillstore's tools, resources/read of
//     skill:// URIs, skills/list, skills/get and resources/directory/read —
//     have their only implementation here. Their results are encoded in one
//     pass, in the shape mcp-go gives for the request's protocol version
//     (2026-07-28 adds resultType, the server's identity in _meta, and
//     ttlMs/cacheScope on reads), whatever the transport.
//   - Everything else — initialize, server/discover, ping, the list
//     methods, prompts, logging, subscriptions — is mcp-go's: it keeps
//     sessions, notifications and subscriptions.
//
// notifications/cancelled reaches both: the layer cancels its own call with
// that id, and mcp-go sees the notification too.

// origin says where a message came from.
type origin struct {
	// scope keys the calls in flight for notifications/cancelled: one per
	// stdio connection, stateful HTTP session or in-process client. Empty
	// means the transport has no lasting connection (stateless HTTP, and
	// 2026-07-28 requests over HTTP), where closing the request cancels it.
	scope string
	// header holds the HTTP request's headers; nil off HTTP.
	header http.Header
}

// answer is the layer's outcome for one message.
type answer struct {
	body    []byte // a JSON-RPC response and a newline; nil when none is due
	code    int    // the JSON-RPC error code of body, 0 for a result
	modern  bool   // the request used protocol 2026-07-28 or later
	forward bool   // not the layer's: hand the message to mcp-go unchanged
}

// envelope is a JSON-RPC message's members, still raw.
type envelope struct {
	JSONRPC, ID, Method, Params, Result, Error json.RawMessage
}

// readEnvelope splits a valid JSON object into a message's members.
func readEnvelope(msg []byte) (env envelope) {
	readMembers(msg, envelopeKeys, &env.JSONRPC, &env.ID, &env.Method, &env.Params, &env.Result, &env.Error)
	return env
}

// readParams splits a params object into the members the layer reads.
func readParams(b []byte) (p params) {
	readMembers(b, paramsKeys, &p.Name, &p.Arguments, &p.URI, &p.Cursor, &p.Task, &p.Meta)
	return p
}

var (
	envelopeKeys = []string{"jsonrpc", "id", "method", "params", "result", "error"}
	paramsKeys   = []string{"name", "arguments", "uri", "cursor", "task", "_meta"}
	metaKeys     = []string{mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientCapabilities}
)

// readMembers stores the raw value of the member of the JSON object b
// named keys[i] in *dst[i], matching keys as encoding/json does (the last
// of duplicates wins).
func readMembers(b []byte, keys []string, dst ...*json.RawMessage) {
	eachMember(b, func(k, v []byte) {
		for i, key := range keys {
			if keyIs(k, key) {
				*dst[i] = v
				return
			}
		}
	})
}

// request is a checked JSON-RPC request the layer answers.
type request struct {
	id      json.RawMessage
	method  string
	params  json.RawMessage // a JSON object, or nil
	p       params          // params, its members still raw
	modern  bool
	version string // from _meta; "" for legacy requests
}

// params holds the members of a request's params the layer reads, each
// still raw: a member is decoded only by the method that uses it, so a
// wrong type names the member.
type params struct {
	Name, Arguments, URI, Cursor, Task, Meta json.RawMessage
}

// meta holds the members of params._meta that 2026-07-28 defines.
type meta struct {
	ProtocolVersion, ClientCapabilities json.RawMessage
}

// str returns a string member of r's params ("" when absent or null), or
// invalid params naming it.
func (r *request) str(raw json.RawMessage, member string) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	s, ok := rawString(raw)
	if !ok {
		return "", invalidParams("Invalid params for %s: '%s' must be a string, not %s", r.method, member, tools.JSONKind(raw))
	}
	return s, nil
}

// rawString decodes a raw JSON string, reporting false for anything else.
func rawString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// hotMethod is one method the layer answers. run appends the members of
// the result object (without braces) to b, or returns an error.
type hotMethod struct {
	// cacheable results carry ttlMs and cacheScope on 2026-07-28, as
	// mcp-go gives them for the reads and lists it answers.
	cacheable bool
	// extension methods (SEP-2640) carry resultType, and ttlMs and
	// cacheScope when cacheable, on every protocol version, as the
	// extension's results do; other methods only from 2026-07-28.
	extension bool
	run       func(s *Server, ctx context.Context, r *request, b []byte) ([]byte, error)
}

// hotMethods are the methods the layer answers. tools/call and
// resources/read are answered only for skillstore's tools and skill://
// URIs (see ours); mcp-go answers the rest as it would anyway.
var hotMethods = map[string]hotMethod{
	"tools/call":               {run: (*Server).callToolMethod},
	"resources/read":           {cacheable: true, run: (*Server).readResourceMethod},
	"skills/list":              {cacheable: true, extension: true, run: (*Server).listSkillsMethod},
	"skills/get":               {cacheable: true, extension: true, run: (*Server).getSkillMethod},
	"resources/directory/read": {cacheable: true, extension: true, run: (*Server).readDirectoryMethod},
}

// JSON-RPC and MCP error codes the layer answers with.
const (
	codeParseError     = mcp.PARSE_ERROR
	codeInvalidRequest = mcp.INVALID_REQUEST
	codeMethodNotFound = mcp.METHOD_NOT_FOUND
	codeInvalidParams  = mcp.INVALID_PARAMS
	codeInternal       = mcp.INTERNAL_ERROR
)

// rpcError is a JSON-RPC error answer.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return e.Message }

func invalidParams(format string, a ...any) *rpcError {
	return &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf(format, a...)}
}

// step is what the layer makes of one message before any work is done.
type step struct {
	answer     answer    // the outcome when call is nil: forward, nothing, or an error
	call       *request  // a request the layer answers, with method
	method     hotMethod //
	modern     bool      // the message is a 2026-07-28 request
	initialize bool      // an initialize request (mcp-go's)
	cancelled  []byte    // the params of a notifications/cancelled, for cancelCall
}

// handle answers msg, or says to forward it to mcp-go. ctx ends the call (a
// closed HTTP request, the end of the connection); notifications/cancelled
// ends it too when o.scope is set.
func (s *Server) handle(ctx context.Context, o origin, msg []byte) answer {
	st := s.prepare(o, msg)
	s.cancelCall(o, st)
	if st.call == nil {
		return st.answer
	}
	return s.runCall(ctx, o, st)
}

// prepare checks a message and decides who answers it, doing no I/O:
// transports call it in arrival order (so notifications/cancelled acts on
// the calls read before it), then run the call wherever suits them.
func (s *Server) prepare(o origin, msg []byte) step {
	if !json.Valid(msg) {
		return s.failed(nil, &rpcError{Code: codeParseError, Message: "Parse error: the message is not valid JSON"})
	}
	msg = bytes.TrimSpace(msg)
	switch msg[0] {
	case '[':
		return step{answer: answer{forward: true}} // a batch: mcp-go says what it makes of it
	case '{':
	default:
		return s.failed(nil, &rpcError{Code: codeInvalidRequest, Message: "Invalid Request: a message must be a JSON object"})
	}
	env := readEnvelope(msg)
	if string(env.JSONRPC) != `"2.0"` {
		return s.failed(validID(env.ID), &rpcError{Code: codeInvalidRequest, Message: `Invalid Request: "jsonrpc" must be "2.0"`})
	}
	hasID := len(env.ID) > 0
	if hasID && validID(env.ID) == nil {
		return s.failed(nil, &rpcError{Code: codeInvalidRequest, Message: "Invalid Request: an id must be a string or an integer"})
	}
	hasResult := len(env.Result) > 0 || len(env.Error) > 0
	if len(env.Method) == 0 {
		if hasID && hasResult {
			return step{answer: answer{forward: true}} // a response to a request mcp-go sent
		}
		return s.failed(validID(env.ID), &rpcError{Code: codeInvalidRequest, Message: `Invalid Request: a message needs a "method", or an "id" with a "result" or an "error"`})
	}
	method, ok := rawString(env.Method)
	if !ok || method == "" {
		return s.failed(validID(env.ID), &rpcError{Code: codeInvalidRequest, Message: `Invalid Request: "method" must be a non-empty string`})
	}
	if hasResult {
		return s.failed(validID(env.ID), &rpcError{Code: codeInvalidRequest, Message: `Invalid Request: a message cannot carry both "method" and "result" or "error"`})
	}
	params := bytes.TrimSpace(env.Params)
	if string(params) == "null" {
		params = nil
	}
	if len(params) > 0 && params[0] != '{' {
		if !hasID {
			return step{} // a notification gets no answer, not even an error
		}
		return s.failed(validID(env.ID), invalidParams("Invalid params: %s params must be an object, not %s", clipName(method), tools.JSONKind(params)))
	}
	if !hasID {
		st := step{answer: answer{forward: true}}
		if method == string(mcp.MethodNotificationCancelled) {
			st.cancelled = params
		}
		return st
	}
	r := &request{id: validID(env.ID), method: method, params: params, p: readParams(params)}
	if err := s.checkProtocol(r, o.header); err != nil {
		st := s.failed(r.id, err)
		st.modern, st.answer.modern = r.modern, r.modern
		return st
	}
	st := step{modern: r.modern, initialize: method == string(mcp.MethodInitialize)}
	hot, ok := hotMethods[method]
	if !ok || !s.ours(r) {
		st.answer.forward = true
		return st
	}
	st.call, st.method = r, hot
	return st
}

// cancelCall applies a notifications/cancelled that prepare read to the
// layer's calls in o's scope. Transports call it once the message may act
// (on stateful HTTP, after its session was checked).
func (s *Server) cancelCall(o origin, st step) {
	if st.cancelled != nil && o.scope != "" {
		s.inflight.cancel(o.scope, st.cancelled)
	}
}

// failed is a step that ends in an error answer.
func (s *Server) failed(id json.RawMessage, e *rpcError) step {
	return step{answer: s.errorAnswer(id, false, e)}
}

// listenRequest reports whether msg, which the layer forwards, is a
// 2026-07-28 subscriptions/listen request, which opens a stream, and
// returns its id.
func listenRequest(st step, msg []byte) (json.RawMessage, bool) {
	if !st.modern || !st.answer.forward || !bytes.Contains(msg, []byte(`"subscriptions/listen"`)) {
		return nil, false
	}
	env := readEnvelope(bytes.TrimSpace(msg))
	return validID(env.ID), string(env.Method) == `"subscriptions/listen"`
}

// runCall answers a call prepare gave, under a context that
// notifications/cancelled can end when o.scope is set.
func (s *Server) runCall(ctx context.Context, o origin, st step) answer {
	ctx, done := s.track(ctx, o, st.call)
	defer done()
	return s.run(ctx, st.call, st.method)
}

// track registers a call for notifications/cancelled; done unregisters it.
func (s *Server) track(ctx context.Context, o origin, r *request) (context.Context, func()) {
	if o.scope == "" {
		return ctx, func() {}
	}
	return s.inflight.add(ctx, o.scope, r.id)
}

// run answers r with m, within the request timeout. A panic becomes an
// error answer — for a tool, an error result the model can read — and the
// server goes on serving.
func (s *Server) run(ctx context.Context, r *request, m hotMethod) (a answer) {
	ctx, cancel := s.bounded(ctx, r.method)
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			s.logPanic(r.method, v)
			if r.method == "tools/call" {
				name := toolName(r)
				a = s.result(r, m, func(b []byte) ([]byte, error) {
					return appendToolResult(b, tools.Result{IsError: true, Display: toolPanicText(name)}, nil), nil
				})
				return
			}
			a = s.errorAnswer(r.id, r.modern, &rpcError{Code: codeInternal, Message: internalErrorText(r.method)})
		}
	}()
	return s.result(r, m, func(b []byte) ([]byte, error) { return m.run(s, ctx, r, b) })
}

// result encodes the response to r: the members body appends, and what
// the request's protocol version adds to them.
func (s *Server) result(r *request, m hotMethod, body func([]byte) ([]byte, error)) answer {
	b := getBuffer()
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, r.id...)
	b = append(b, `,"result":{`...)
	start := len(b)
	b, err := body(b)
	if err != nil {
		putBuffer(b)
		var re *rpcError
		if !errors.As(err, &re) {
			s.log.Error("answering "+r.method+" failed", "err", err)
			re = &rpcError{Code: codeInternal, Message: internalErrorText(r.method)}
		}
		return s.errorAnswer(r.id, r.modern, re)
	}
	add := func(member []byte) {
		if len(b) > start {
			b = append(b, ',')
		}
		b = append(b, member...)
	}
	if r.modern {
		add(s.shape.meta)
	}
	if r.modern || m.extension {
		add(s.shape.resultType)
		if m.cacheable {
			add(s.shape.cache)
		}
	}
	return answer{body: append(b, "}}\n"...), modern: r.modern}
}

// toolName is the name a tools/call request gives, for messages.
func toolName(r *request) string {
	name, _ := r.str(r.p.Name, "name")
	return clipName(name)
}

// ours reports whether r is for skillstore's own tools, as opposed to a
// tool name mcp-go would refuse (it then does). A call with task
// augmentation is the layer's too: skillstore's tools declare no task
// support, so mcp-go would run it as a plain call, as the layer does.
// Every resources/read is the layer's: a URI this server does not serve
// gets SEP-2164's not-found error, with the URI in data.
func (s *Server) ours(r *request) bool {
	if r.method != "tools/call" {
		return true
	}
	name, err := r.str(r.p.Name, "name")
	if err != nil {
		return true // the layer says which member has the wrong type
	}
	return isOurTool(name)
}

// checkProtocol reads the protocol metadata a 2026-07-28 request carries in
// params._meta and checks it as mcp-go does: over HTTP first what the
// transport requires (an Mcp-Protocol-Version header equal to the version
// in _meta, no Last-Event-ID), then a known version, client capabilities
// present, and the Mcp-Method and Mcp-Name headers matching the body. A
// request that names no modern version, in _meta or header, is legacy.
func (s *Server) checkProtocol(r *request, header http.Header) *rpcError {
	m, err := readMeta(r.p.Meta)
	if err != nil {
		return err
	}
	version, _ := rawString(m.ProtocolVersion) // not a string: mcp-go reads no version either
	if header != nil && (mcp.IsModernProtocol(version) || mcp.IsModernProtocol(header.Get(mcp.HeaderProtocolVersion))) {
		r.modern, r.version = true, version
		if msg, code := checkModernHTTP(header, version); msg != "" {
			return &rpcError{Code: code, Message: msg}
		}
	}
	if !mcp.IsModernProtocol(version) {
		return nil
	}
	r.modern, r.version = true, version
	if !validCapabilities(m.ClientCapabilities) {
		return invalidParams("missing or invalid _meta field %s", mcp.MetaKeyClientCapabilities)
	}
	if !mcp.IsValidProtocolVersion(version) {
		e := mcp.UnsupportedProtocolVersionError{Version: version, Supported: mcp.ValidProtocolVersions}.JSONRPCError().Error
		return &rpcError{Code: e.Code, Message: e.Message, Data: e.Data}
	}
	if len(header) > 0 && header.Get(mcp.HeaderProtocolVersion) != "" {
		if err := mcp.ValidateStandardHeaders(header.Get, version, mcp.MCPMethod(r.method), r.params); err != nil {
			return &rpcError{Code: mcp.HEADER_MISMATCH, Message: err.Error()}
		}
	}
	return nil
}

// readMeta decodes params._meta, which must be an object when present.
func readMeta(raw json.RawMessage) (meta, *rpcError) {
	var m meta
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return m, nil
	}
	if raw[0] != '{' {
		return m, invalidParams("Invalid params: _meta must be an object, not %s", tools.JSONKind(raw))
	}
	readMembers(raw, metaKeys, &m.ProtocolVersion, &m.ClientCapabilities)
	return m, nil
}

// validCapabilities reports whether raw holds client capabilities as
// mcp-go reads them: present, not null, and decodable as such.
func validCapabilities(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return false
	}
	if string(raw) == "{}" {
		return true
	}
	var caps mcp.ClientCapabilities
	return json.Unmarshal(raw, &caps) == nil
}

// errorAnswer is a JSON-RPC error response for id (null when nil).
func (s *Server) errorAnswer(id json.RawMessage, modern bool, e *rpcError) answer {
	if id == nil {
		id = json.RawMessage("null")
	}
	b := append(getBuffer(), `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	j, err := json.Marshal(e)
	if err != nil {
		j = []byte(`{"code":-32603,"message":"internal error"}`)
	}
	b = append(b, `,"error":`...)
	b = append(b, j...)
	return answer{body: append(b, "}\n"...), code: e.Code, modern: modern}
}

// validID returns id if it is a valid request id — a string or an integer
// (MCP forbids null) — and nil otherwise.
func validID(id json.RawMessage) json.RawMessage {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return nil
	}
	switch c := id[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(id, &s) == nil {
			return id
		}
	case c == '-' || c >= '0' && c <= '9':
		if !bytes.ContainsAny(id, ".eE") {
			return id
		}
	}
	return nil
}

func clipName(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// internalErrorText and toolPanicText are what a client reads when the
// server failed inside: no detail, since details may name host paths.
func internalErrorText(method string) string {
	return "Internal error while answering " + method + "; the server logged the details. Try again, or report it to the operator."
}

func toolPanicText(tool string) string {
	return "Internal error in tool '" + clipName(tool) + "'; the server logged the details. Try again, or report it to the operator."
}

// logPanic records a recovered panic with its stack.
func (s *Server) logPanic(what string, v any) {
	stack := debug.Stack()
	if carried, ok := v.(interface{ Stack() []byte }); ok {
		stack = carried.Stack() // where the panic happened, on another goroutine
	}
	s.log.Error("panic while answering "+what, "panic", fmt.Sprint(v), "stack", string(stack))
}

// inflight holds the cancel functions of the layer's calls in flight, by
// scope and request id, for notifications/cancelled.
type inflight struct {
	mu    sync.Mutex
	calls map[inflightKey]context.CancelFunc
}

type inflightKey struct{ scope, id string }

func (f *inflight) add(ctx context.Context, scope string, id json.RawMessage) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	k := inflightKey{scope, string(id)}
	f.mu.Lock()
	if f.calls == nil {
		f.calls = make(map[inflightKey]context.CancelFunc)
	}
	f.calls[k] = cancel
	f.mu.Unlock()
	return ctx, func() {
		f.mu.Lock()
		delete(f.calls, k)
		f.mu.Unlock()
		cancel()
	}
}

// cancel ends the call named by a notifications/cancelled params object
// ({"requestId": ID, "reason": "..."}), if it is the layer's and in flight.
func (f *inflight) cancel(scope string, params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || validID(p.RequestID) == nil {
		return
	}
	f.mu.Lock()
	cancel := f.calls[inflightKey{scope, string(bytes.TrimSpace(p.RequestID))}]
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// dropScope cancels every call of a scope that ends (a closed connection, a
// terminated session).
func (f *inflight) dropScope(scope string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, cancel := range f.calls {
		if k.scope == scope {
			cancel()
		}
	}
}
