package site_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/telemetry"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/site"
)

// TestMetrics checks /metrics after calls over HTTP and in process.
func TestMetrics(t *testing.T) {
	srv := testServer(t)
	spans := func() telemetry.Stats { return telemetry.Stats{Exported: 5, Dropped: 2, Failed: 1} }
	ts := httptest.NewServer(site.New(srv, site.Options{Stateless: true, Spans: spans}))
	defer ts.Close()
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"calc"}}}`
	bad := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"nope"}}}`
	testutil.SendMCP(t, http.MethodPost, ts.URL+"/mcp", call, map[string]string{"MCP-Protocol-Version": "2025-06-18"})
	testutil.SendMCP(t, http.MethodPost, ts.URL+"/mcp", call, map[string]string{"MCP-Protocol-Version": "2025-06-18"})
	testutil.SendMCP(t, http.MethodPost, ts.URL+"/mcp", bad, map[string]string{"MCP-Protocol-Version": "2025-06-18"})
	in := srv.Connect(nil) // in process
	if _, err := in.Call(context.Background(), []byte(call)); err != nil {
		t.Fatal(err)
	}
	in.Close()
	resp, b := testutil.Request(t, http.MethodGet, ts.URL+"/metrics")
	text := string(b)
	for _, want := range []string{
		`skillstore_tool_call_duration_seconds_count{tool="get_skill",outcome="ok"} 3`,
		`skillstore_tool_call_duration_seconds_count{tool="get_skill",outcome="error"} 1`,
		`skillstore_tool_call_duration_seconds_bucket{tool="get_skill",outcome="ok",le="+Inf"} 3`,
		`skillstore_http_requests_total{path="/mcp",code="200"} 3`,
		`skillstore_cache_hits_total `,
		`skillstore_backend_reads_total 1`,
		`skillstore_skills 2`,
		"# TYPE skillstore_cache_bytes gauge",
		"# TYPE go_goroutines gauge\ngo_goroutines ",
		"go_memstats_heap_alloc_bytes ",
		"process_resident_memory_bytes ",
		"# TYPE mcp_server_operation_duration_seconds histogram\n",
		`mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",gen_ai_tool_name="get_skill"} 3`,
		`mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",gen_ai_tool_name="get_skill",error_type="tool_error"} 1`,
		`mcp_server_operation_duration_seconds_bucket{mcp_method_name="tools/call",gen_ai_tool_name="get_skill",le="300"} 3`,
		`mcp_server_operation_duration_seconds_bucket{mcp_method_name="tools/call",gen_ai_tool_name="get_skill",le="+Inf"} 3`,
		"skillstore_trace_spans_exported_total 5\n",
		`skillstore_trace_spans_lost_total{reason="dropped"} 2`,
		`skillstore_trace_spans_lost_total{reason="failed"} 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q:\n%s", want, text)
		}
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("content type %q", ct)
	}
}

// BenchmarkMetricsScrape is one scrape of /metrics after calls of every
// tool and a few methods (so the histograms have series): the cost of the
// hand-written exposition, for BENCHMARKS.md's choice against
// prometheus/client_golang.
func BenchmarkMetricsScrape(b *testing.B) {
	srv := testServer(b)
	h := site.New(srv, site.Options{Stateless: true, Spans: func() telemetry.Stats { return telemetry.Stats{} }})
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"calc"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"nope"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_skills","arguments":{"query":"calc"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{}}`,
	} {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	b.SetBytes(int64(w.Body.Len()))
	b.ReportMetric(float64(strings.Count(w.Body.String(), "\n")), "lines")
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
	}
}
