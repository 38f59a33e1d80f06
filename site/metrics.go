package site

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	rtmetrics "runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skillstore/skillstore/internal/telemetry"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/ui"
)

// counters counts HTTP requests by path and status code, for /metrics.
// It is safe for concurrent use.
type counters struct {
	mu   sync.Mutex
	http map[httpKey]uint64
}

type httpKey struct {
	path string
	code int
}

func newCounters() *counters {
	return &counters{http: map[httpKey]uint64{}}
}

func (m *counters) observeHTTP(path string, code int) {
	m.mu.Lock()
	m.http[httpKey{path, code}]++
	m.mu.Unlock()
}

// countHTTP wraps h to count responses by path and status code; with
// pages, the catalog's pages (the mux's "/" and ui.AssetsPath routes) are
// counted under one path, "pages".
func (m *counters) countHTTP(h http.Handler, pages bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		h.ServeHTTP(rec, r)
		path := r.URL.Path
		switch {
		case path == "/mcp", path == "/healthz", path == "/readyz", path == "/metrics":
		case pages && (r.Pattern == "/" || r.Pattern == ui.AssetsPath): // the mux's route, set as it chose it
			path = "pages" // the catalog's pages: one label, whatever the skill
		default:
			path = "other"
		}
		m.observeHTTP(path, rec.code)
	})
}

type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.code = code
	s.ResponseWriter.WriteHeader(code)
}

// Flush keeps streaming responses (SSE) working through the recorder.
func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// residentBytes is the process's resident set size, where /proc tells it.
func residentBytes() (int64, bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}

// exposition serves /metrics: the MCP server's tool calls, the site's
// HTTP requests, the store's figures, the audit log's, the MCP
// endpoint's sessions and streams, and the Go runtime's.
type exposition struct {
	srv   *mcpserver.Server
	http  *counters
	mcp   *mcpserver.Endpoint
	spans func() telemetry.Stats // nil: traces are off
}

func (e *exposition) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second) // a hung source leaves out the catalog gauges
	defer cancel()
	e.write(ctx, w)
}

// write writes the Prometheus text exposition format. The catalog gauges
// are left out when ctx ends before the catalog is available.
func (e *exposition) write(ctx context.Context, w io.Writer) {
	var b strings.Builder
	writeToolCalls(&b, e.srv.ToolCalls())
	writeOperations(&b, e.srv.Operations())
	e.http.write(&b)
	counter := func(name, help string, v uint64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", name, help, name, name, v)
	}
	gauge := func(name, help string, v int64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n%s %d\n", name, help, name, name, v)
	}
	writeStoreMetrics(ctx, e.srv.Store(), &b, counter, gauge)
	if a := e.srv.Audit(); a != nil {
		st := a.Stats()
		b.WriteString("# HELP skillstore_audit_events_lost_total Audit events lost: dropped (the queue was full) or failed (the file could not be written).\n# TYPE skillstore_audit_events_lost_total counter\n")
		fmt.Fprintf(&b, "skillstore_audit_events_lost_total{reason=\"dropped\"} %d\nskillstore_audit_events_lost_total{reason=\"failed\"} %d\n", st.Dropped, st.Failed)
		counter("skillstore_audit_events_total", "Audit events written.", st.Logged)
	}
	if u := e.srv.Usage(); u != nil { // totals only: a label per skill would be unbounded and show every name
		t := u.Totals()
		counter("skillstore_skill_loads_total", "Skill loads counted (get_skill, Skill, skills/get, prompts/get, SKILL.md reads), since the usage file began.", t.Loads)
		counter("skillstore_usage_untracked_loads_total", "Skill loads counted in the total only: the skill was past the bound on skills tracked.", t.Untracked)
		gauge("skillstore_usage_skills", "Skills whose usage is tracked.", int64(t.Skills))
		counter("skillstore_usage_save_failures_total", "Writes of the usage file that failed in this process (the counts stay in memory).", t.SaveFailures)
	}
	if e.spans != nil {
		st := e.spans()
		counter("skillstore_trace_spans_exported_total", "Spans sent to the OTLP collector.", st.Exported)
		b.WriteString("# HELP skillstore_trace_spans_lost_total Spans lost: dropped (the export queue was full) or failed (the collector refused them or could not be reached).\n# TYPE skillstore_trace_spans_lost_total counter\n")
		fmt.Fprintf(&b, "skillstore_trace_spans_lost_total{reason=\"dropped\"} %d\nskillstore_trace_spans_lost_total{reason=\"failed\"} %d\n", st.Dropped, st.Failed)
	}
	e.mcp.WriteGauges(gauge)
	gauge("go_goroutines", "Goroutines that currently exist.", int64(runtime.NumGoroutine()))
	var mem [1]rtmetrics.Sample
	mem[0].Name = "/memory/classes/heap/objects:bytes"
	rtmetrics.Read(mem[:])
	if mem[0].Value.Kind() == rtmetrics.KindUint64 {
		gauge("go_memstats_heap_alloc_bytes", "Bytes of allocated heap objects.", int64(mem[0].Value.Uint64()))
	}
	if rss, ok := residentBytes(); ok {
		gauge("process_resident_memory_bytes", "Resident memory size in bytes.", rss)
	}
	io.WriteString(w, b.String())
}

// writeToolCalls writes the tool calls' latency histogram, by tool and
// outcome, over every surface.
func writeToolCalls(b *strings.Builder, calls []mcpserver.ToolCalls) {
	b.WriteString("# HELP skillstore_tool_call_duration_seconds Tool calls by tool and outcome, over every surface.\n")
	b.WriteString("# TYPE skillstore_tool_call_duration_seconds histogram\n")
	for _, c := range calls {
		labels := `tool="` + c.Tool + `",outcome="` + c.Outcome + `"`
		for i, le := range mcpserver.LatencyBuckets {
			fmt.Fprintf(b, "skillstore_tool_call_duration_seconds_bucket{%s,le=%q} %d\n", labels, strconv.FormatFloat(le, 'g', -1, 64), c.Buckets[i])
		}
		fmt.Fprintf(b, "skillstore_tool_call_duration_seconds_bucket{%s,le=\"+Inf\"} %d\n", labels, c.Count)
		fmt.Fprintf(b, "skillstore_tool_call_duration_seconds_sum{%s} %g\n", labels, c.Sum)
		fmt.Fprintf(b, "skillstore_tool_call_duration_seconds_count{%s} %d\n", labels, c.Count)
	}
}

// writeOperations writes mcp.server.operation.duration, the OpenTelemetry
// MCP semantic conventions' histogram, in Prometheus' naming: every
// request a method ran for, by method, tool and error type.
func writeOperations(b *strings.Builder, ops []mcpserver.Operations) {
	b.WriteString("# HELP mcp_server_operation_duration_seconds MCP request duration as observed on the receiver from the time it was received until the result or ack is sent.\n")
	b.WriteString("# TYPE mcp_server_operation_duration_seconds histogram\n")
	for _, o := range ops {
		labels := `mcp_method_name="` + o.Method + `"`
		if o.Tool != "" {
			labels += `,gen_ai_tool_name="` + o.Tool + `"`
		}
		if o.Error != "" {
			labels += `,error_type="` + o.Error + `"`
		}
		for i, le := range mcpserver.OperationBuckets {
			fmt.Fprintf(b, "mcp_server_operation_duration_seconds_bucket{%s,le=%q} %d\n", labels, strconv.FormatFloat(le, 'g', -1, 64), o.Buckets[i])
		}
		fmt.Fprintf(b, "mcp_server_operation_duration_seconds_bucket{%s,le=\"+Inf\"} %d\n", labels, o.Count)
		fmt.Fprintf(b, "mcp_server_operation_duration_seconds_sum{%s} %g\n", labels, o.Sum)
		fmt.Fprintf(b, "mcp_server_operation_duration_seconds_count{%s} %d\n", labels, o.Count)
	}
}

// write writes the HTTP request counters.
func (m *counters) write(b *strings.Builder) {
	m.mu.Lock()
	defer m.mu.Unlock()
	hk := make([]httpKey, 0, len(m.http))
	for k := range m.http {
		hk = append(hk, k)
	}
	sort.Slice(hk, func(i, j int) bool {
		return hk[i].path < hk[j].path || hk[i].path == hk[j].path && hk[i].code < hk[j].code
	})
	b.WriteString("# HELP skillstore_http_requests_total HTTP requests by path and status code.\n# TYPE skillstore_http_requests_total counter\n")
	for _, k := range hk {
		fmt.Fprintf(b, "skillstore_http_requests_total{path=%q,code=\"%d\"} %d\n", k.path, k.code, m.http[k])
	}
}

// writeStoreMetrics writes the cache, backend, search and catalog figures.
func writeStoreMetrics(ctx context.Context, st *store.Store, b *strings.Builder, counter func(string, string, uint64), gauge func(string, string, int64)) {
	cs := st.Stats()
	counter("skillstore_cache_hits_total", "Reads answered from the content cache.", cs.Hits)
	counter("skillstore_cache_misses_total", "Reads that went to a backend.", cs.Misses)
	counter("skillstore_cache_evictions_total", "Entries evicted to stay within the byte budget.", cs.Evictions)
	gauge("skillstore_cache_bytes", "Bytes held by the content cache.", cs.Bytes)
	gauge("skillstore_cache_budget_bytes", "The content cache's byte budget.", cs.BudgetBytes)
	gauge("skillstore_cache_entries", "Entries held by the content cache.", int64(cs.Entries))
	counter("skillstore_backend_reads_total", "File reads issued to backends, after sharing concurrent misses.", cs.BackendReads)
	counter("skillstore_revalidations_total", "Version checks of cached files against their backend.", cs.Revalidations)
	counter("skillstore_served_stale_total", "Cached files served while their source failed (--max-stale).", cs.ServedStale)
	ss := st.Stats().Search
	gauge("skillstore_search_documents", "Skills in the search index, shadowed copies included.", int64(ss.Documents))
	counter("skillstore_search_updates_total", "Skills indexed or re-indexed since start.", ss.Updates)
	if reqs := st.Stats().Requests; len(reqs) > 0 {
		b.WriteString("# HELP skillstore_object_storage_requests_total Requests to object storage by source and kind.\n# TYPE skillstore_object_storage_requests_total counter\n")
		for _, r := range reqs {
			fmt.Fprintf(b, "skillstore_object_storage_requests_total{source=%q,kind=\"list\"} %d\n", r.Source.Label, r.List)
			fmt.Fprintf(b, "skillstore_object_storage_requests_total{source=%q,kind=\"get\"} %d\n", r.Source.Label, r.Get)
		}
	}
	writeUnverified(b, st.Failing())
	if c, err := st.View(nil).Catalog(ctx); err == nil {
		gauge("skillstore_skills", "Skills served.", int64(len(c.Skills)))
		gauge("skillstore_skill_problems", "Skill folders and sources that could not be served.", int64(len(c.Problems)))
	}
}

// writeUnverified writes, for each source whose newest content its signer
// policy refused, a gauge set to 1 with the reason (store.VerifyError):
// the series disappears once the source serves verified content again.
func writeUnverified(b *strings.Builder, failing []store.SourceHealth) {
	b.WriteString("# HELP skillstore_source_unverified Sources whose newest content failed signature verification, by reason (1 while it lasts).\n# TYPE skillstore_source_unverified gauge\n")
	for _, f := range failing {
		var ve *store.VerifyError
		if errors.As(f.Err, &ve) {
			fmt.Fprintf(b, "skillstore_source_unverified{source=%q,reason=%q} 1\n", f.Source.Label, ve.Reason)
		}
	}
}
