package mcpserver_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/site"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// Traces: the server span of each request and the store's child spans,
// recorded in memory through the SDK.

// tracer returns a tracer provider that records every span in memory
// (the SDK's default sampler: parent-based, always on).
func tracer(t *testing.T) (*sdktrace.TracerProvider, *tracetest.InMemoryExporter) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	return tp, exp
}

// serverSpan returns the one SERVER span among spans.
func serverSpan(t *testing.T, spans tracetest.SpanStubs) tracetest.SpanStub {
	t.Helper()
	var out []tracetest.SpanStub
	for _, s := range spans {
		if s.SpanKind == trace.SpanKindServer {
			out = append(out, s)
		}
	}
	if len(out) != 1 {
		t.Fatalf("%d server spans, want 1: %v", len(out), spanNames(spans))
	}
	return out[0]
}

func spanNames(spans tracetest.SpanStubs) []string {
	var n []string
	for _, s := range spans {
		n = append(n, s.Name)
	}
	return n
}

// attrs returns a span's attributes as strings.
func attrs(s tracetest.SpanStub) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

const (
	clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpan  = "00f067aa0ba902b7"
	headerTrace = "0af7651916cd43dd8448eb211c80319c"
	headerSpan  = "b7ad6b7169203331"
)

// TestSpanParent: the server span continues the trace in params._meta,
// else the HTTP traceparent header's; an invalid traceparent, wherever
// it is, is ignored, and the span starts a trace of its own.
func TestSpanParent(t *testing.T) {
	tp, exp := tracer(t)
	w := newWorld(t, worldOptions{noAuth: true, tracer: tp})
	c := dialRPC(t, w.url, "", "2025-11-25")
	valid := "00-" + clientTrace + "-" + clientSpan + "-01"
	header := "00-" + headerTrace + "-" + headerSpan + "-01"
	hostile := []string{
		"00-00000000000000000000000000000000-" + clientSpan + "-01", // zero trace id
		"00-" + clientTrace + "-0000000000000000-01",                // zero span id
		"ff-" + clientTrace + "-" + clientSpan + "-01",              // version ff
		"00-" + strings.ToUpper(clientTrace) + "-" + clientSpan + "-01",
		"00-" + clientTrace + "-" + clientSpan,
		"00-" + clientTrace + "-" + clientSpan + "-01\n00-" + headerTrace + "-" + headerSpan + "-01",
		strings.Repeat("00-", 5000),
		"<script>",
	}
	type want struct {
		trace, parent string // "" for a new trace
		link          string // the linked span, if any
	}
	tests := []struct {
		name         string
		meta, header string // traceparent values; meta is JSON
		want         want
	}{
		{"none", "", "", want{}},
		{"_meta", `"` + valid + `"`, "", want{clientTrace, clientSpan, ""}},
		{"header", "", header, want{headerTrace, headerSpan, ""}},
		{"_meta first, header linked", `"` + valid + `"`, header, want{clientTrace, clientSpan, headerSpan}},
		{"_meta not a string", `{"x":1}`, header, want{headerTrace, headerSpan, ""}},
	}
	for i, h := range hostile {
		q := strings.ReplaceAll(strings.ReplaceAll(h, `\`, `\\`), "\n", `\n`)
		tests = append(tests,
			struct {
				name         string
				meta, header string
				want         want
			}{fmt.Sprintf("hostile _meta %d", i), `"` + q + `"`, "", want{}},
			struct {
				name         string
				meta, header string
				want         want
			}{fmt.Sprintf("hostile _meta %d, header", i), `"` + q + `"`, header, want{headerTrace, headerSpan, ""}})
		if !strings.Contains(h, "\n") {
			tests = append(tests, struct {
				name         string
				meta, header string
				want         want
			}{fmt.Sprintf("hostile header %d", i), "", h, want{}})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp.Reset()
			params := `{"name":"get_skill","arguments":{"skill_name":"ledger"}}`
			if tt.meta != "" {
				params = `{"_meta":{"traceparent":` + tt.meta + `,"tracestate":"rojo=00f067aa0ba902b7"},"name":"get_skill","arguments":{"skill_name":"ledger"}}`
			}
			h := c.headers()
			if tt.header != "" {
				h = append(h, "Traceparent", tt.header)
			}
			got, _ := post(t, w.url, "", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":`+params+`}`, h...)
			if !strings.Contains(got.Body, `"result"`) {
				t.Fatalf("answer: %+v", got)
			}
			s := serverSpan(t, exp.GetSpans())
			var g want
			if s.Parent.IsValid() {
				g.trace, g.parent = s.Parent.TraceID().String(), s.Parent.SpanID().String()
				if g.trace != s.SpanContext.TraceID().String() {
					t.Errorf("span in trace %s, its parent in %s", s.SpanContext.TraceID(), g.trace)
				}
				if !s.Parent.IsRemote() {
					t.Errorf("parent not remote")
				}
			} else {
				for _, known := range []string{clientTrace, headerTrace} {
					if s.SpanContext.TraceID().String() == known {
						t.Errorf("a span without parent in trace %s, a caller's", known)
					}
				}
			}
			for _, l := range s.Links {
				g.link = l.SpanContext.SpanID().String()
			}
			if diff := cmp.Diff(tt.want, g, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			if g.parent == clientSpan && s.Parent.TraceState().String() != "rojo=00f067aa0ba902b7" {
				t.Errorf("tracestate %q", s.Parent.TraceState())
			}
		})
	}
}

// TestSpanAttributes: the server span's name and attributes per method,
// the store's child spans on a cache miss, and errors.
func TestSpanAttributes(t *testing.T) {
	tp, exp := tracer(t)
	w := newWorld(t, worldOptions{noAuth: true, tracer: tp})
	c := dialRPC(t, w.url, "", "2025-11-25")
	common := map[string]string{"mcp.method.name": "", "jsonrpc.request.id": "7", "mcp.protocol.version": "2025-11-25", "network.transport": "tcp", "network.protocol.name": "http"}
	with := func(method string, kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range common {
			m[k] = v
		}
		m["mcp.method.name"] = method
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	miss := []string{"skillstore.cache.miss", "skillstore.backend.read"}
	tests := []struct {
		name, method, params string
		span                 string
		attrs                map[string]string
		children             []string
	}{
		{"get_skill", "tools/call", `{"name":"get_skill","arguments":{"skill_name":"payroll"}}`, "tools/call get_skill",
			with("tools/call", "gen_ai.tool.name", "get_skill", "gen_ai.operation.name", "execute_tool"), miss},
		{"get_skill again, cached", "tools/call", `{"name":"get_skill","arguments":{"skill_name":"payroll"}}`, "tools/call get_skill",
			with("tools/call", "gen_ai.tool.name", "get_skill", "gen_ai.operation.name", "execute_tool"), nil},
		{"a tool error", "tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"ledger","file_path":"../../etc/passwd"}}`, "tools/call read_file_in_skill",
			with("tools/call", "gen_ai.tool.name", "read_file_in_skill", "gen_ai.operation.name", "execute_tool", "error.type", "tool_error"), nil},
		{"an unknown tool", "tools/call", `{"name":"rm -rf /","arguments":{}}`, "tools/call",
			with("tools/call", "error.type", "-32602", "rpc.response.status_code", "-32602"), nil},
		{"resources/read", "resources/read", `{"uri":"skill://ledger/references/fx.md"}`, "resources/read",
			with("resources/read", "mcp.resource.uri", "skill://ledger/references/fx.md"), miss},
		{"prompts/get", "prompts/get", `{"name":"ledger"}`, "prompts/get ledger",
			with("prompts/get", "gen_ai.prompt.name", "ledger"), miss},
		{"tools/list", "tools/list", `{}`, "tools/list", with("tools/list"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp.Reset()
			post(t, w.url, "", `{"jsonrpc":"2.0","id":7,"method":"`+tt.method+`","params":`+tt.params+`}`, c.headers()...)
			spans := exp.GetSpans()
			s := serverSpan(t, spans)
			if s.Name != tt.span {
				t.Errorf("span name %q, want %q", s.Name, tt.span)
			}
			if diff := cmp.Diff(tt.attrs, attrs(s)); diff != "" {
				t.Errorf("attributes (-want +got)\n%s", diff)
			}
			if _, failed := tt.attrs["error.type"]; failed != (s.Status.Code == codes.Error) {
				t.Errorf("status %v, error.type %q", s.Status, tt.attrs["error.type"])
			}
			var children []string
			for _, ch := range spans {
				if ch.SpanKind != trace.SpanKindServer {
					if ch.SpanContext.TraceID() != s.SpanContext.TraceID() {
						t.Errorf("%s in another trace", ch.Name)
					}
					children = append(children, ch.Name)
					if a := attrs(ch); a["skillstore.source"] != "finance" || a["skillstore.read.bytes"] == "" {
						t.Errorf("%s: attributes %v", ch.Name, a)
					}
				}
			}
			slices.Sort(children)
			want := slices.Sorted(slices.Values(tt.children))
			if diff := cmp.Diff(want, children); diff != "" {
				t.Errorf("child spans (-want +got)\n%s", diff)
			}
		})
	}
}

// TestSpansOfHiddenSkills: under a policy, the spans of a request about a
// skill the caller may not see are those of a request about a skill that
// does not exist (the name aside), and no span of any request holds a
// token, a hidden skill's text or its source.
func TestSpansOfHiddenSkills(t *testing.T) {
	tp, exp := tracer(t)
	w := newWorld(t, worldOptions{policy: fixture.TeamPolicy, tracer: tp})
	tm := teams["alice"]
	c := dialRPC(t, w.url, tm.token, "2025-11-25")
	var all tracetest.SpanStubs
	shape := func(spans tracetest.SpanStubs, name string) string {
		var b strings.Builder
		for _, s := range spans {
			a := attrs(s)
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range a {
					if !yield(k) {
						return
					}
				}
			})
			fmt.Fprintf(&b, "%s %v %s:", strings.ReplaceAll(s.Name, name, missing), s.SpanKind, s.Status.Code)
			for _, k := range keys {
				fmt.Fprintf(&b, " %s=%s", k, strings.ReplaceAll(a[k], name, missing))
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	for _, sf := range skillSurfaces {
		ask := func(name string) tracetest.SpanStubs {
			exp.Reset()
			c.call(sf.method, strings.ReplaceAll(sf.params, "NAME", name))
			spans := exp.GetSpans()
			all = append(all, spans...)
			return spans
		}
		want := shape(ask(missing), missing)
		for _, h := range tm.hidden {
			if got := shape(ask(h), h); got != want {
				t.Errorf("%s of hidden %s: spans differ from a missing skill's\n-missing\n%s+hidden\n%s", sf.name, h, want, got)
			}
		}
		for _, v := range tm.visible {
			ask(v)
		}
	}
	for _, s := range all {
		text := fmt.Sprint(s.Name, s.Attributes, s.Status, s.Events, s.Links)
		for _, secret := range append([]string{aliceToken, bobToken, "Bearer", `"eng"`, "Reconcile accounts", "exchange rates", "Run payroll"}, tm.foreign...) {
			if strings.Contains(text, secret) {
				t.Errorf("span %s holds %q: %s", s.Name, secret, text)
			}
		}
	}
}

// TestSpansHoldNoHostPath: a read that fails on local disk with an error
// naming the file's path (a symbolic link loop, a file too large) records
// a class of error, never the path.
func TestSpansHoldNoHostPath(t *testing.T) {
	dir := t.TempDir()
	skill := filepath.Join(dir, "notes")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: notes\ndescription: Notes.\n---\nsecret-body-text\n"), 0o644)
	os.WriteFile(filepath.Join(skill, "big.md"), make([]byte, 2<<20), 0o644)
	os.Symlink("loop", filepath.Join(skill, "loop"))
	tp, exp := tracer(t)
	s, err := store.New([]store.Source{{Label: "disk", Location: dir, FS: os.DirFS(dir)}}, store.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(context.Background(), tools.New(s, tools.Options{}), mcpserver.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	w := newWorldAt(t, srv, site.Options{})
	c := dialRPC(t, w, "", "2025-11-25")
	exp.Reset()
	for _, p := range []string{"loop", "big.md", "SKILL.md", "missing.md", dir + "/notes/SKILL.md"} {
		c.call("tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"notes","file_path":"`+p+`"}}`)
		c.call("resources/read", `{"uri":"skill://notes/`+strings.TrimPrefix(p, "/")+`"}`)
	}
	spans := exp.GetSpans()
	var types []string
	for _, sp := range spans {
		text := fmt.Sprint(sp.Name, sp.Attributes, sp.Status, sp.Events, sp.Links)
		if sp.SpanKind != trace.SpanKindServer { // the server span's resource URI repeats what the caller asked
			for _, bad := range []string{dir, "secret-body-text"} {
				if strings.Contains(text, bad) {
					t.Errorf("span %s holds %q: %s", sp.Name, bad, text)
				}
			}
		} else if strings.Contains(sp.Status.Description, dir) || strings.Contains(text, "secret-body-text") {
			t.Errorf("server span %s: %s", sp.Name, text)
		}
		if a := attrs(sp); sp.SpanKind != trace.SpanKindServer && a["error.type"] != "" {
			types = append(types, sp.Name+" "+a["error.type"])
		}
	}
	slices.Sort(types)
	types = slices.Compact(types)
	want := []string{"skillstore.backend.read not_found", "skillstore.backend.read too_large", "skillstore.backend.read unavailable", "skillstore.cache.miss not_found", "skillstore.cache.miss too_large", "skillstore.cache.miss unavailable"}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("error types of child spans (-want +got)\n%s", diff)
	}
}

// TestOperationDurationOverOTLP: mcp.server.operation.duration reaches a
// meter provider with the convention's name, unit and attributes.
func TestOperationDurationOverOTLP(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	s, err := store.New(teamSources(), store.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(context.Background(), tools.New(s, tools.Options{}), mcpserver.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), MeterProvider: mp})
	if err != nil {
		t.Fatal(err)
	}
	c := dialRPC(t, newWorldAt(t, srv, site.Options{}), "", "2025-11-25")
	c.call("tools/call", `{"name":"get_skill","arguments":{"skill_name":"ledger"}}`)
	c.call("tools/call", `{"name":"get_skill","arguments":{"skill_name":"nope"}}`)
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "mcp.server.operation.duration" || m.Unit != "s" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				var kv []string
				for _, a := range dp.Attributes.ToSlice() {
					kv = append(kv, string(a.Key)+"="+a.Value.Emit())
				}
				got[strings.Join(kv, ",")] += dp.Count
			}
		}
	}
	want := map[string]uint64{
		"mcp.method.name=initialize":                                                  1,
		"gen_ai.tool.name=get_skill,mcp.method.name=tools/call":                       1,
		"error.type=tool_error,gen_ai.tool.name=get_skill,mcp.method.name=tools/call": 1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("data points (-want +got)\n%s", diff)
	}
}
