package mcpserver

import (
	"context"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
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

var traceContext = propagation.TraceContext{}

// metaCarrier holds the trace context members of a request's _meta.
type metaCarrier struct{ traceparent, tracestate string }

func (m *metaCarrier) Get(key string) string {
	switch key {
	case "traceparent":
		return m.traceparent
	case "tracestate":
		return m.tracestate
	}
	return ""
}
func (m *metaCarrier) Set(string, string) {}
func (m *metaCarrier) Keys() []string     { return []string{"traceparent", "tracestate"} }

// readTraceMeta reads traceparent and tracestate from a request's _meta
// (exact keys, string values; SEP-414 names them unprefixed).
func readTraceMeta(meta []byte) (m metaCarrier) {
	eachMember(meta, func(k, v []byte) {
		switch string(k) {
		case "traceparent":
			m.traceparent, _ = rawString(v)
		case "tracestate":
			m.tracestate, _ = rawString(v)
		}
	})
	return m
}

// toolSpanNames are the span names of tools/call of our tools, made once.
var toolSpanNames = func() map[string]string {
	m := map[string]string{}
	for _, n := range tools.Names() {
		m[n] = "tools/call " + n
	}
	return m
}()

// startSpan starts c's server span, under the trace context its _meta or
// its HTTP request carries, and returns the context the method runs in.
func (s *Server) startSpan(c *call) (context.Context, trace.Span) {
	ctx := c.ctx
	var opts [3]trace.SpanStartOption
	o := opts[:0]
	o = append(o, trace.WithSpanKind(trace.SpanKindServer))
	meta := readTraceMeta(c.p.Meta)
	var header trace.SpanContext
	if c.src.header != nil && c.src.header.Get("Traceparent") != "" {
		header = trace.SpanContextFromContext(traceContext.Extract(context.Background(), propagation.HeaderCarrier(c.src.header)))
	}
	parent := header
	if meta.traceparent != "" {
		if sc := trace.SpanContextFromContext(traceContext.Extract(context.Background(), &meta)); sc.IsValid() {
			parent = sc
			if header.IsValid() && !header.Equal(sc) {
				o = append(o, trace.WithLinks(trace.Link{SpanContext: header}))
			}
		}
	}
	if parent.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, parent)
	}
	name, target := c.method, ""
	switch c.method {
	case "tools/call":
		if tool, _ := c.str(c.p.Name, "name"); toolSpanNames[tool] != "" {
			name, target = toolSpanNames[tool], tool
		}
	case "prompts/get":
		if p, _ := c.str(c.p.Name, "name"); p != "" {
			target = clipName(p)
			name = c.method + " " + target
		}
	}
	o = append(o, trace.WithAttributes(attribute.String("mcp.method.name", c.method)))
	ctx, span := s.tracer.Start(ctx, name, o...)
	if !span.IsRecording() {
		return ctx, span // unsampled: nothing more to record
	}
	attrs := make([]attribute.KeyValue, 0, 8)
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
		if t, _ := c.str(c.p.Name, "name"); toolSpanNames[t] != "" {
			tool = t
		}
	}
	d := time.Since(start)
	h := s.metrics.observeOperation(opKey{method: c.method, tool: tool, errType: errType}, d)
	if s.opMeter != nil {
		s.opMeter.hist.Record(context.Background(), d.Seconds(), metric.WithAttributeSet(h.attrs))
	}
}
