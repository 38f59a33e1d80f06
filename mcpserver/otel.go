package mcpserver

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/tools"
)

// Traces and the operation-duration metric, as the OpenTelemetry
// semantic conventions for MCP describe them
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/).
//
// Every request a method runs for (Server.run) gets one SERVER span named
// "{mcp.method.name} {target}", the target being the tool's name for
// tools/call and the prompt's for prompts/get, else no target (a resource
// URI would make names unbounded). Its parent is the W3C trace context in
// params._meta (traceparent, tracestate) when that is valid, else the HTTP
// request's traceparent header; when both are valid and differ, the
// header's context is a link. An invalid traceparent is ignored, as the
// W3C propagator ignores it. Attributes: mcp.method.name,
// jsonrpc.request.id, mcp.protocol.version, gen_ai.tool.name and
// gen_ai.operation.name (tools/call of one of our tools), gen_ai.prompt.name
// (prompts/get), mcp.resource.uri (resources/read, subscribe, unsubscribe),
// network.transport and network.protocol.name (HTTP), and on failure
// error.type (the JSON-RPC error code, or tool_error for a tool result
// with isError) and rpc.response.status_code, with status Error.
//
// What is never recorded: mcp.session.id (an HTTP session id is a handle
// a client presents; a trace store is read by more people than the
// server), arguments, results, error messages (they repeat the caller's
// input and may grow long), tokens and headers. Values from the caller
// are clipped to 64 bytes (URIs to 256).
//
// The store adds child spans for cache misses and backend reads (see
// store's trace.go) when the request's span is recording.

// instrumentation names this package's tracer and meter.
const instrumentation = "github.com/skillstore/skillstore/mcpserver"

// traceMeta is the trace context in a request's _meta: the raw JSON
// values of its traceparent and tracestate members.
type traceMeta struct{ traceparent, tracestate []byte }

// readTraceMeta reads traceparent and tracestate from a request's _meta
// (exact keys; SEP-414 names them unprefixed).
func readTraceMeta(meta []byte) (m traceMeta) {
	eachMember(meta, func(k, v []byte) {
		switch string(k) {
		case "traceparent":
			m.traceparent = v
		case "tracestate":
			m.tracestate = v
		}
	})
	return m
}

// spanContext is the remote span context m names, or an invalid one.
func (m traceMeta) spanContext() trace.SpanContext {
	tp, ok := jsonStringBytes(m.traceparent)
	if !ok {
		return trace.SpanContext{}
	}
	state := ""
	if len(m.tracestate) > 0 {
		state, _ = rawString(m.tracestate)
	}
	return parseTraceparent(tp, state)
}

// jsonStringBytes returns the content of a raw JSON string without
// copying it when it has no escapes.
func jsonStringBytes(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1], true
	}
	s, ok := rawString(raw)
	return []byte(s), ok
}

// parseTraceparent is what the W3C Trace Context propagator
// (propagation.TraceContext) extracts from a traceparent value h and a
// tracestate value, without its allocations: the span context of a valid
// version 00 value (or of a later version's first four fields), else an
// invalid one. A test holds the two equal (FuzzTraceparent).
func parseTraceparent[T string | []byte](h T, tracestate string) trace.SpanContext {
	var ver, flags [1]byte
	var scc trace.SpanContextConfig
	h, ok := hexField(h, ver[:])
	if !ok || ver[0] == 0xff {
		return trace.SpanContext{}
	}
	if h, ok = hexField(h, scc.TraceID[:]); !ok {
		return trace.SpanContext{}
	}
	if h, ok = hexField(h, scc.SpanID[:]); !ok {
		return trace.SpanContext{}
	}
	if h, ok = hexField(h, flags[:]); !ok || ver[0] == 0 && (len(h) > 0 || flags[0] > 3) {
		return trace.SpanContext{} // version 00: no more fields, no reserved flags
	}
	scc.TraceFlags = trace.TraceFlags(flags[0]) & (trace.FlagsSampled | trace.FlagsRandom)
	if tracestate != "" {
		scc.TraceState, _ = trace.ParseTraceState(tracestate) // a bad tracestate leaves the traceparent valid
	}
	scc.Remote = true
	sc := trace.NewSpanContext(scc)
	if !sc.IsValid() {
		return trace.SpanContext{}
	}
	return sc
}

// hexField decodes the field of h before its first '-' (all of h when it
// has none), which must be len(dst)*2 lowercase hex digits, into dst, and
// returns what follows that '-'.
func hexField[T string | []byte](h T, dst []byte) (T, bool) {
	end := len(h)
	for i := 0; i < len(h); i++ {
		if h[i] == '-' {
			end = i
			break
		}
	}
	if end != 2*len(dst) {
		return h, false
	}
	for j := range dst {
		hi, ok1 := hexDigit(h[2*j])
		lo, ok2 := hexDigit(h[2*j+1])
		if !ok1 || !ok2 {
			return h, false
		}
		dst[j] = hi<<4 | lo
	}
	if end < len(h) {
		end++
	}
	return h[end:], true
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// toolSpanNames are the span names of tools/call of our tools, made once.
var toolSpanNames = func() map[string]string {
	m := map[string]string{}
	for _, n := range tools.Names() {
		m[n] = "tools/call " + n
	}
	return m
}()

// ourTool returns the name of the tool a tools/call names, when it is one
// of ours (the map's own string: no allocation), and its span name.
func ourTool(c *call) (tool, span string) {
	raw := c.p.Name
	if len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		for t, sp := range toolSpanNames {
			if t == string(raw[1:len(raw)-1]) {
				return t, sp
			}
		}
		return "", ""
	}
	if t, _ := c.str(raw, "name"); toolSpanNames[t] != "" {
		return t, toolSpanNames[t]
	}
	return "", ""
}

// serverKind is the span kind option, made once.
var serverKind = trace.WithSpanKind(trace.SpanKindServer)

// startSpan starts c's server span, under the trace context its _meta or
// its HTTP request carries, and returns the context the method runs in.
// An unsampled span costs the parse of the traceparent and the SDK's
// non-recording span: its attributes are set only when it records.
func (s *Server) startSpan(c *call) (context.Context, trace.Span) {
	ctx := c.ctx
	var header trace.SpanContext
	if c.src.header != nil {
		if v := c.src.header.Values("Traceparent"); len(v) == 1 { // several: none is valid
			state := ""
			if st := c.src.header.Values("Tracestate"); len(st) > 0 {
				state = strings.Join(st, ",")
			}
			header = parseTraceparent(v[0], state)
		}
	}
	parent := header
	var link trace.SpanStartOption
	if len(c.p.Meta) > 0 {
		if m := readTraceMeta(c.p.Meta); m.traceparent != nil {
			if sc := m.spanContext(); sc.IsValid() {
				parent = sc
				if header.IsValid() && !header.Equal(sc) {
					link = trace.WithLinks(trace.Link{SpanContext: header})
				}
			}
		}
	}
	if parent.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, parent)
	}
	name, target := c.method, ""
	switch c.method {
	case "tools/call":
		if tool, span := ourTool(c); tool != "" {
			name, target = span, tool
		}
	case "prompts/get":
		if p, _ := c.str(c.p.Name, "name"); p != "" {
			target = clipName(p)
			name = c.method + " " + target
		}
	}
	var span trace.Span
	if link != nil {
		ctx, span = s.tracer.Start(ctx, name, serverKind, link)
	} else {
		ctx, span = s.tracer.Start(ctx, name, serverKind)
	}
	if !span.IsRecording() {
		return ctx, span // unsampled: nothing more to record
	}
	attrs := make([]attribute.KeyValue, 0, 8)
	attrs = append(attrs, attribute.String("mcp.method.name", c.method))
	if id, ok := rawString(c.id); ok {
		attrs = append(attrs, attribute.String("jsonrpc.request.id", clipName(id)))
	} else {
		attrs = append(attrs, attribute.String("jsonrpc.request.id", string(c.id)))
	}
	version := c.version
	if !c.modern {
		version = c.src.version()
	}
	if version != "" {
		attrs = append(attrs, attribute.String("mcp.protocol.version", clipName(version)))
	}
	switch c.method {
	case "tools/call":
		if target != "" {
			attrs = append(attrs, attribute.String("gen_ai.tool.name", target), attribute.String("gen_ai.operation.name", "execute_tool"))
		}
	case "prompts/get":
		if target != "" {
			attrs = append(attrs, attribute.String("gen_ai.prompt.name", target))
		}
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		if uri, _ := c.str(c.p.URI, "uri"); uri != "" {
			attrs = append(attrs, attribute.String("mcp.resource.uri", logtext.Clip(uri, 256)))
		}
	}
	if c.src.header != nil {
		attrs = append(attrs, attribute.String("network.transport", "tcp"), attribute.String("network.protocol.name", "http"))
	}
	span.SetAttributes(attrs...)
	return ctx, span
}

// errorType is the error.type of an answer: its JSON-RPC error code, or
// tool_error for a tool result with isError; "" on success.
func errorType(c *call, a answer) string {
	switch {
	case a.code != 0:
		return codeText(a.code)
	case c.toolError:
		return "tool_error"
	}
	return ""
}

// codeText is a JSON-RPC error code as text, without allocating for the
// codes this server answers with.
func codeText(code int) string {
	switch code {
	case codeParseError:
		return "-32700"
	case codeInvalidRequest:
		return "-32600"
	case codeMethodNotFound:
		return "-32601"
	case codeInvalidParams:
		return "-32602"
	case codeInternal:
		return "-32603"
	}
	return strconv.Itoa(code)
}

// endSpan records how c ended on its span.
func endSpan(span trace.Span, errType string) {
	if errType != "" && span.IsRecording() {
		attrs := []attribute.KeyValue{attribute.String("error.type", errType)}
		if errType != "tool_error" {
			attrs = append(attrs, attribute.String("rpc.response.status_code", errType))
		}
		span.SetAttributes(attrs...)
		span.SetStatus(codes.Error, "")
	}
	span.End()
}

// operationMeter records mcp.server.operation.duration over OTLP, when
// Options.MeterProvider is set.
type operationMeter struct {
	hist metric.Float64Histogram
}

func newOperationMeter(mp metric.MeterProvider) *operationMeter {
	if mp == nil {
		return nil
	}
	h, err := mp.Meter(instrumentation).Float64Histogram("mcp.server.operation.duration",
		metric.WithUnit("s"),
		metric.WithDescription("MCP request duration as observed on the receiver from the time it was received until the result or ack is sent."),
		metric.WithExplicitBucketBoundaries(OperationBuckets...))
	if err != nil {
		return nil
	}
	return &operationMeter{hist: h}
}

// observeOperation records one request's duration, for /metrics and, when
// it is on, OTLP.
func (s *Server) observeOperation(c *call, errType string, start time.Time) {
	tool := ""
	if c.method == "tools/call" {
		tool, _ = ourTool(c)
	}
	d := time.Since(start)
	h := s.metrics.observeOperation(opKey{method: c.method, tool: tool, errType: errType}, d)
	if s.opMeter != nil {
		s.opMeter.hist.Record(context.Background(), d.Seconds(), metric.WithAttributeSet(h.attrs))
	}
}
