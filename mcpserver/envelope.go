package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/tools"
)

// The JSON-RPC envelope: splitting a message into its members once, and
// writing error answers.

// envelope is a JSON-RPC message's members, still raw.
type envelope struct {
	JSONRPC, ID, Method, Params, Result, Error json.RawMessage
}

// readEnvelope splits a valid JSON object into a message's members.
func readEnvelope(msg []byte) (env envelope) {
	readMembers(msg, envelopeKeys, &env.JSONRPC, &env.ID, &env.Method, &env.Params, &env.Result, &env.Error)
	return env
}

// params holds the members of a request's params the methods read, each
// still raw: a member is decoded only by the method that uses it, so a
// wrong type names the member.
type params struct {
	Name, Arguments, URI, Cursor, Meta, Level, Notifications json.RawMessage
}

// readParams splits a params object into the members the methods read.
func readParams(b []byte) (p params) {
	readMembers(b, paramsKeys, &p.Name, &p.Arguments, &p.URI, &p.Cursor, &p.Meta, &p.Level, &p.Notifications)
	return p
}

var (
	envelopeKeys = []string{"jsonrpc", "id", "method", "params", "result", "error"}
	paramsKeys   = []string{"name", "arguments", "uri", "cursor", "_meta", "level", "notifications"}
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

// request is a checked JSON-RPC request.
type request struct {
	id      json.RawMessage
	method  string
	params  json.RawMessage // a JSON object, or nil
	p       params          // params, its members still raw
	modern  bool            // the request uses protocol 2026-07-28 or later
	version string          // from _meta; "" for legacy requests
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

// sameID reports whether two raw request ids are the same id, however
// each was escaped.
func sameID(a, b json.RawMessage) bool {
	if len(a) > 0 && len(b) > 0 && a[0] == '"' && b[0] == '"' {
		x, okx := rawString(a)
		y, oky := rawString(b)
		return okx && oky && x == y
	}
	return bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b))
}

// JSON-RPC and MCP error codes.
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

// answer is the dispatcher's outcome for one message.
type answer struct {
	body   []byte // a JSON-RPC response and a newline; nil when none is due
	code   int    // the JSON-RPC error code of body, 0 for a result
	modern bool   // the request used protocol 2026-07-28 or later
}

// errorAnswer is a JSON-RPC error response for id (null when nil).
func errorAnswer(id json.RawMessage, modern bool, e *rpcError) answer {
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

func clipName(s string) string { return logtext.Clip(s, 64) }

// internalErrorText and toolPanicText are what a client reads when the
// server failed inside: no detail, since details may name host paths.
func internalErrorText(method string) string {
	return "Internal error while answering " + clipName(method) + "; the server logged the details. Try again, or report it to the operator."
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
