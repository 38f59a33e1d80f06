package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel/trace"

	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/tools"
)

// The dispatcher.
//
// Every transport — stdio, Streamable HTTP (stateful and stateless) and the
// in-process connection — hands each incoming message to Server.accept, in
// arrival order, and runs what it returns:
//
//	x := s.accept(ctx, src, msg) // checks, applies notifications, registers the call
//	a := x.run(out)              // answers it (anywhere, any time later)
//
// accept checks the JSON-RPC envelope and the protocol metadata once, for
// every message; applies notifications (notifications/cancelled ends the
// call it names, in the same session); and finds the request's method in
// one table, methods. run calls the method and wraps its result in the
// shape of the request's protocol era. Transports only frame messages,
// manage their connections, sessions and streams, and write what the
// dispatcher gives them.

// source is what a transport knows of where a message came from.
type source struct {
	// sess is the session the message belongs to — a stdio connection, a
	// stateful HTTP session, an in-process connection — or nil when it
	// belongs to none (stateless HTTP, 2026-07-28 requests over HTTP),
	// where closing the request is what cancels it.
	sess *session
	// header holds the HTTP request's headers; nil off HTTP.
	header http.Header
	// caller is who sent the message and what it may see (access.go);
	// nil: everyone, unfiltered.
	caller *caller
	// addr is the client's network address (HTTP); empty off HTTP.
	addr string
	// remote: the caller is remote (HTTP, unless HTTPOptions.ShowLocations)
	// and is shown where a source is only as tools.RemoteLocation gives
	// it, never a host path.
	remote bool
}

// version is the protocol version of a legacy message from src, for the
// audit log: the Mcp-Protocol-Version header over HTTP, else the version
// its session negotiated; empty when neither says.
func (src source) version() string {
	if v := src.header.Get(mcp.HeaderProtocolVersion); v != "" {
		return v
	}
	if src.sess != nil {
		src.sess.mu.Lock()
		defer src.sess.mu.Unlock()
		return src.sess.version
	}
	return ""
}

// sink takes the server-to-client messages of one stream: a
// subscriptions/listen request's notifications before its answer, or a
// legacy session's notifications. send must not block for long: a sink
// that cannot keep up drops messages and reports false.
type sink interface {
	send(msg []byte) bool
}

// call is one request being answered: what every method gets.
type call struct {
	ctx context.Context // ends with the transport's, with notifications/cancelled, and at the request timeout
	*request
	src  source
	out  sink   // where a streaming method sends what comes before its answer
	meta []byte // members the method adds to the result's _meta, without braces
	// toolError: a tools/call answered with a result whose isError is set
	// (error.type tool_error, otel.go).
	toolError bool
}

// method is one entry of the method table. run appends the members of the
// result object (without braces) to b, or returns an error.
type method struct {
	run func(s *Server, c *call, b []byte) ([]byte, error)
	// cacheable results carry ttlMs and cacheScope on 2026-07-28.
	cacheable bool
	// extension methods (SEP-2640) carry resultType, and ttlMs and
	// cacheScope when cacheable, on every protocol version, as the
	// extension's results do; other methods only from 2026-07-28.
	extension bool
	// era limits the method to one protocol era.
	era era
	// stream methods run until the client goes away, sending messages to
	// the call's sink; they are not bounded by the request timeout.
	stream bool
}

// era is the protocol era a method belongs to.
type era int

const (
	bothEras   era = iota
	legacyOnly     // removed in 2026-07-28 (the initialize handshake and what depends on it)
	modernOnly     // introduced in 2026-07-28
)

// methods is the method table: every method this server answers, on every
// transport and protocol version.
var methods map[string]*method

func init() {
	methods = map[string]*method{
		"initialize":               {era: legacyOnly, run: (*Server).initializeMethod},
		"ping":                     {era: legacyOnly, run: (*Server).pingMethod},
		"logging/setLevel":         {era: legacyOnly, run: (*Server).setLevelMethod},
		"resources/subscribe":      {era: legacyOnly, run: (*Server).subscribeMethod},
		"resources/unsubscribe":    {era: legacyOnly, run: (*Server).unsubscribeMethod},
		"server/discover":          {era: modernOnly, cacheable: true, run: (*Server).discoverMethod},
		"subscriptions/listen":     {era: modernOnly, stream: true, run: (*Server).listenMethod},
		"tools/list":               {cacheable: true, run: (*Server).listToolsMethod},
		"tools/call":               {run: (*Server).callToolMethod},
		"resources/list":           {cacheable: true, run: (*Server).listResourcesMethod},
		"resources/templates/list": {cacheable: true, run: (*Server).listTemplatesMethod},
		"resources/read":           {cacheable: true, run: (*Server).readResourceMethod},
		"prompts/list":             {cacheable: true, run: (*Server).listPromptsMethod},
		"prompts/get":              {run: (*Server).getPromptMethod},
		"completion/complete":      {run: (*Server).completeMethod},
		"skills/list":              {cacheable: true, extension: true, run: (*Server).listSkillsMethod},
		"skills/get":               {cacheable: true, extension: true, run: (*Server).getSkillMethod},
		"resources/directory/read": {cacheable: true, extension: true, run: (*Server).readDirectoryMethod},
	}
}

// exchange is one accepted message: its answer already known (an error,
// or nothing for a notification), or a call to run.
type exchange struct {
	srv    *Server
	src    source
	req    *request // nil when answer is already known
	m      *method
	ctx    context.Context
	done   func() // unregisters the call from its session's calls in flight
	answer answer

	call       call  // the call run answers (kept here: one allocation per message)
	initialize bool  // a legacy initialize request: HTTP admits a session for it
	modern     bool  // a 2026-07-28 request
	response   bool  // a response to a request (this server sends none)
	bound      bool  // bind was called
	note       *note // a notification, applied once the message is bound to its session
}

// note is a notification from the client.
type note struct {
	method string
	params json.RawMessage
}

// stream reports whether running x opens a stream: its messages go to
// run's sink, and its answer comes when the client goes away.
func (x *exchange) stream() bool { return x.m != nil && x.m.stream }

// id is the id of the request x answers, or nil.
func (x *exchange) id() json.RawMessage {
	if x.req == nil {
		return nil
	}
	return x.req.id
}

// cancelledByClient reports whether the client cancelled x by
// notifications/cancelled (then no answer is due).
func (x *exchange) cancelledByClient() bool {
	return x.ctx != nil && errors.Is(context.Cause(x.ctx), errCancelledByClient)
}

// bind makes x a message of sess, once: a notification then acts on the
// session (notifications/cancelled ends the session's call it names), and
// a call can be cancelled through it. accept binds its message to the
// source's session; HTTP binds once it has checked the session a request
// names, and gives a legacy initialize the session it made for it.
func (x *exchange) bind(sess *session) {
	if x.bound || sess == nil {
		return
	}
	x.bound, x.src.sess = true, sess
	if x.note != nil {
		x.srv.notified(sess, x.note.method, x.note.params)
	}
	if x.req != nil {
		x.ctx, x.done = sess.track(x.ctx, x.req.id)
	}
}

// run answers x. out takes what a streaming method sends before its answer
// (nil for other methods). It must be called once for every exchange, or
// release instead.
func (x *exchange) run(out sink) answer {
	if x.req == nil {
		return x.answer
	}
	defer x.done()
	x.call = call{ctx: x.ctx, request: x.req, src: x.src, out: out}
	return x.srv.run(&x.call, x.m)
}

// release forgets a call that will not run, answering it with e (a
// transport refusing it: too busy, closed), or with nothing when e is nil
// (the transport answered otherwise).
func (x *exchange) release(e *rpcError) answer {
	if x.req == nil {
		return x.answer
	}
	x.done()
	if e == nil {
		return answer{}
	}
	return errorAnswer(x.req.id, x.req.modern, e)
}

// accept checks msg and decides what answers it, doing no I/O. Transports
// call it in arrival order, so that notifications/cancelled acts on the
// calls read before it; ctx ends the call (a closed HTTP request, the end
// of the connection).
func (s *Server) accept(ctx context.Context, src source, msg []byte) *exchange {
	sess := src.sess
	x := &exchange{srv: s, src: src}
	x.src.sess = nil // until bound
	defer x.bind(sess)
	r, e := s.parse(x, src.header, msg)
	switch {
	case e != nil:
		x.answer = errorAnswer(e.id, e.modern, e.rpcError)
		x.modern = e.modern
		return x
	case r == nil:
		return x // a notification or a response: nothing is due
	}
	x.modern, x.initialize = r.modern, r.method == string(mcp.MethodInitialize) && !r.modern
	m, err := lookup(r)
	if err != nil {
		x.answer = errorAnswer(r.id, r.modern, err)
		return x
	}
	x.req, x.m = r, m
	x.ctx, x.done = ctx, func() {}
	return x
}

// lookup finds r's method, or the error that says there is none for r's
// protocol era.
func lookup(r *request) (*method, *rpcError) {
	m := methods[r.method]
	switch {
	case m == nil:
		return nil, &rpcError{Code: codeMethodNotFound, Message: fmt.Sprintf("Method %s not found", clipName(r.method))}
	case m.era == legacyOnly && r.modern:
		return nil, &rpcError{Code: codeMethodNotFound, Message: fmt.Sprintf("%q was removed in protocol version %s", r.method, mcp.ProtocolVersion20260728)}
	case m.era == modernOnly && !r.modern:
		return nil, &rpcError{Code: codeMethodNotFound, Message: fmt.Sprintf("%q requires protocol version %s or later", r.method, mcp.ProtocolVersion20260728)}
	}
	return m, nil
}

// parseError is a message refused before any method sees it.
type parseError struct {
	*rpcError
	id     json.RawMessage
	modern bool
}

// parse checks a message's envelope and protocol metadata. It returns the
// request to answer; or nil and nil for a notification (which it notes in
// x) or a response (which nothing awaits); or the error to answer with.
func (s *Server) parse(x *exchange, header http.Header, msg []byte) (*request, *parseError) {
	fail := func(id json.RawMessage, e *rpcError) (*request, *parseError) {
		return nil, &parseError{rpcError: e, id: id}
	}
	if !json.Valid(msg) {
		return fail(nil, &rpcError{Code: codeParseError, Message: "Parse error: the message is not valid JSON"})
	}
	msg = bytes.TrimSpace(msg)
	if msg[0] == '[' { // transports answer a batch with Server.batch: this one is inside one
		return fail(nil, &rpcError{Code: codeInvalidRequest, Message: "Invalid Request: a batch cannot hold a batch"})
	}
	if msg[0] != '{' {
		return fail(nil, &rpcError{Code: codeInvalidRequest, Message: "Invalid Request: a message must be a JSON object"})
	}
	env := readEnvelope(msg)
	if string(env.JSONRPC) != `"2.0"` {
		return fail(validID(env.ID), &rpcError{Code: codeInvalidRequest, Message: `Invalid Request: "jsonrpc" must be "2.0"`})
	}
	hasID := len(env.ID) > 0
	if hasID && validID(env.ID) == nil {
		return fail(nil, &rpcError{Code: codeInvalidRequest, Message: "Invalid Request: an id must be a string or an integer"})
	}
	hasResult := len(env.Result) > 0 || len(env.Error) > 0
	if len(env.Method) == 0 {
		if hasID && hasResult {
			x.response = true // this server sends no requests, so nothing awaits it
			return nil, nil
		}
		return fail(validID(env.ID), &rpcError{Code: codeInvalidRequest, Message: `Invalid Request: a message needs a "method", or an "id" with a "result" or an "error"`})
	}
	method, ok := rawString(env.Method)
	if !ok || method == "" {
		return fail(validID(env.ID), &rpcError{Code: codeInvalidRequest, Message: `Invalid Request: "method" must be a non-empty string`})
	}
	if hasResult {
		return fail(validID(env.ID), &rpcError{Code: codeInvalidRequest, Message: `Invalid Request: a message cannot carry both "method" and "result" or "error"`})
	}
	params := bytes.TrimSpace(env.Params)
	if string(params) == "null" {
		params = nil
	}
	if len(params) > 0 && params[0] != '{' {
		if !hasID {
			return nil, nil // a notification gets no answer, not even an error
		}
		return fail(validID(env.ID), invalidParams("Invalid params: %s params must be an object, not %s", clipName(method), tools.JSONKind(params)))
	}
	if !hasID {
		x.note = &note{method: method, params: params}
		return nil, nil
	}
	r := &request{id: validID(env.ID), method: method, params: params, p: readParams(params)}
	if err := checkProtocol(r, header); err != nil {
		return nil, &parseError{rpcError: err, id: r.id, modern: r.modern}
	}
	return r, nil
}

// notified applies a notification from the client to its session.
func (s *Server) notified(sess *session, method string, params json.RawMessage) {
	switch mcp.MCPMethod(method) {
	case mcp.MethodNotificationCancelled:
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(params, &p) == nil && validID(p.RequestID) != nil {
			sess.cancel(p.RequestID)
		}
	}
}

// run answers c with m, within the request timeout unless m streams. A
// panic becomes an error answer — for a tool, an error result the model
// can read — and the server goes on serving.
func (s *Server) run(c *call, m *method) (a answer) {
	start := time.Now()
	var span trace.Span
	if s.tracer != nil {
		c.ctx, span = s.startSpan(c)
	}
	defer func() { // after the recover below
		errType := errorType(c, a)
		s.observeOperation(c, errType, start)
		if span != nil {
			endSpan(span, errType)
		}
	}()
	if !m.stream {
		var cancel context.CancelFunc
		c.ctx, cancel = s.bounded(c.ctx, c.method)
		defer cancel()
	}
	defer func() {
		if v := recover(); v != nil {
			s.logPanic(c.method, v)
			if c.method == "tools/call" {
				c.toolError = true
				name := toolName(c.request)
				a = s.result(c, m, func(b []byte) ([]byte, error) {
					return appendToolResult(b, tools.Result{IsError: true, Display: toolPanicText(name)}, nil), nil
				})
				return
			}
			a = errorAnswer(c.id, c.modern, &rpcError{Code: codeInternal, Message: internalErrorText(c.method)})
		}
	}()
	return s.result(c, m, func(b []byte) ([]byte, error) { return m.run(s, c, b) })
}

// result encodes the response to c: the members body appends, and what the
// request's protocol era adds to them.
func (s *Server) result(c *call, m *method, body func([]byte) ([]byte, error)) answer {
	b := getBuffer()
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, c.id...)
	b = append(b, `,"result":{`...)
	start := len(b)
	b, err := body(b)
	if err != nil {
		putBuffer(b)
		var re *rpcError
		if !errors.As(err, &re) {
			s.log.Error("answering "+c.method+" failed", "err", logtext.Of(err))
			re = &rpcError{Code: codeInternal, Message: internalErrorText(c.method)}
		}
		return errorAnswer(c.id, c.modern, re)
	}
	add := func(member ...[]byte) {
		if len(b) > start {
			b = append(b, ',')
		}
		for _, p := range member {
			b = append(b, p...)
		}
	}
	switch {
	case c.modern && len(c.meta) > 0:
		add([]byte(`"_meta":{`), c.meta, []byte(","), s.identity, []byte("}"))
	case c.modern:
		add([]byte(`"_meta":{`), s.identity, []byte("}"))
	case len(c.meta) > 0:
		add([]byte(`"_meta":{`), c.meta, []byte("}"))
	}
	if c.modern || m.extension {
		add([]byte(`"resultType":"complete"`))
		if m.cacheable {
			add(cacheHints(c))
		}
	}
	return answer{body: append(b, "}}\n"...), modern: c.modern}
}

// cacheHints are the caching hints (SEP-2549) of a cacheable result: how
// long a client may reuse it, and whether shared intermediaries may. This
// is the one place they are set. Every answer is "private" (reusable only
// by the caller who asked, as mcp-go sets by default), and 0 ms: a client
// revalidates, since skills change when their sources do. An answer made
// for a caller with a restricted view (c.src.caller.filtered()) must stay
// "private" whatever the others become: a list "MAY vary by the
// authorization presented on the request", and a shared cache must not
// hand one caller's view to another.
func cacheHints(c *call) []byte {
	return []byte(`"ttlMs":0,"cacheScope":"private"`)
}

// toolName is the name a tools/call request gives, for messages.
func toolName(r *request) string {
	name, _ := r.str(r.p.Name, "name")
	return clipName(name)
}
