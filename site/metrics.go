package mcpserver

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

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/ui"
)

// latencyBuckets are the upper bounds, in seconds, of the tool-call
// latency histogram: from cached reads (microseconds) to slow backends.
var latencyBuckets = []float64{0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5}

// metrics counts tool calls and HTTP requests for /metrics. It is safe for
// concurrent use.
type metrics struct {
	mu    sync.Mutex
	calls map[callKey]*histogram
	http  map[httpKey]uint64
}

type callKey struct{ tool, outcome string }

type httpKey struct {
	path string
	code int
}

type histogram struct {
	counts []uint64 // per bucket, not cumulative
	count  uint64
	sum    float64
}

func newMetrics() *metrics {
	return &metrics{calls: map[callKey]*histogram{}, http: map[httpKey]uint64{}}
}

// observeCall records one tool call.
func (m *metrics) observeCall(tool string, isError bool, d time.Duration) {
	outcome := "ok"
	if isError {
		outcome = "error"
	}
	sec := d.Seconds()
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.calls[callKey{tool, outcome}]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(latencyBuckets))}
		m.calls[callKey{tool, outcome}] = h
	}
	i := sort.SearchFloat64s(latencyBuckets, sec)
	if i < len(h.counts) {
		h.counts[i]++
	}
	h.count++
	h.sum += sec
}

func (m *metrics) observeHTTP(path string, code int) {
	m.mu.Lock()
	m.http[httpKey{path, code}]++
	m.mu.Unlock()
}

// countHTTP wraps h to count responses by path and status code; with
// pages, the catalog's pages (the mux's "/" and ui.AssetsPath routes) are
// counted under one path, "pages".
func (m *metrics) countHTTP(h http.Handler, pages bool) http.Handler {
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

// writeMetrics writes the Prometheus text exposition format. The catalog
// gauges are left out when ctx ends before the catalog is available.
// more, if not nil, writes the gauges of a transport through gauge.
func (s *Server) writeMetrics(ctx context.Context, w io.Writer, more func(gauge func(name, help string, v int64))) {
	var b strings.Builder
	s.metrics.write(&b)
	counter := func(name, help string, v uint64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", name, help, name, name, v)
	}
	gauge := func(name, help string, v int64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n%s %d\n", name, help, name, name, v)
	}
	s.writeStoreMetrics(ctx, &b, counter, gauge)
	if s.audit != nil {
		st := s.audit.Stats()
		b.WriteString("# HELP skillstore_audit_events_lost_total Audit events lost: dropped (the queue was full) or failed (the file could not be written).\n# TYPE skillstore_audit_events_lost_total counter\n")
		fmt.Fprintf(&b, "skillstore_audit_events_lost_total{reason=\"dropped\"} %d\nskillstore_audit_events_lost_total{reason=\"failed\"} %d\n", st.Dropped, st.Failed)
		counter("skillstore_audit_events_total", "Audit events written.", st.Logged)
	}
	if more != nil {
		more(gauge)
	}
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

// write writes the tool call histograms and the HTTP request counters.
func (m *metrics) write(b *strings.Builder) {
	m.mu.Lock()
	defer m.mu.Unlock()
	calls := make([]callKey, 0, len(m.calls))
	for k := range m.calls {
		calls = append(calls, k)
	}
	sort.Slice(calls, func(i, j int) bool {
		return calls[i].tool < calls[j].tool || calls[i].tool == calls[j].tool && calls[i].outcome < calls[j].outcome
	})
	b.WriteString("# HELP skillstore_tool_call_duration_seconds Tool calls by tool and outcome, over every surface.\n")
	b.WriteString("# TYPE skillstore_tool_call_duration_seconds histogram\n")
	for _, k := range calls {
		h := m.calls[k]
		labels := `tool="` + k.tool + `",outcome="` + k.outcome + `"`
		var cum uint64
		for i, le := range latencyBuckets {
			cum += h.counts[i]
			fmt.Fprintf(b, "skillstore_tool_call_duration_seconds_bucket{%s,le=%q} %d\n", labels, strconv.FormatFloat(le, 'g', -1, 64), cum)
		}
		fmt.Fprintf(b, "skillstore_tool_call_duration_seconds_bucket{%s,le=\"+Inf\"} %d\n", labels, h.count)
		fmt.Fprintf(b, "skillstore_tool_call_duration_seconds_sum{%s} %g\n", labels, h.sum)
		fmt.Fprintf(b, "skillstore_tool_call_duration_seconds_count{%s} %d\n", labels, h.count)
	}
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
func (s *Server) writeStoreMetrics(ctx context.Context, b *strings.Builder, counter func(string, string, uint64), gauge func(string, string, int64)) {
	st := s.store.Stats()
	counter("skillstore_cache_hits_total", "Reads answered from the content cache.", st.Hits)
	counter("skillstore_cache_misses_total", "Reads that went to a backend.", st.Misses)
	counter("skillstore_cache_evictions_total", "Entries evicted to stay within the byte budget.", st.Evictions)
	gauge("skillstore_cache_bytes", "Bytes held by the content cache.", st.Bytes)
	gauge("skillstore_cache_budget_bytes", "The content cache's byte budget.", st.BudgetBytes)
	gauge("skillstore_cache_entries", "Entries held by the content cache.", int64(st.Entries))
	counter("skillstore_backend_reads_total", "File reads issued to backends, after sharing concurrent misses.", st.BackendReads)
	counter("skillstore_revalidations_total", "Version checks of cached files against their backend.", st.Revalidations)
	counter("skillstore_served_stale_total", "Cached files served while their source failed (--max-stale).", st.ServedStale)
	ss := s.store.SearchStats()
	gauge("skillstore_search_documents", "Skills in the search index, shadowed copies included.", int64(ss.Documents))
	counter("skillstore_search_updates_total", "Skills indexed or re-indexed since start.", ss.Updates)
	if reqs := s.store.BackendRequests(); len(reqs) > 0 {
		b.WriteString("# HELP skillstore_object_storage_requests_total Requests to object storage by source and kind.\n# TYPE skillstore_object_storage_requests_total counter\n")
		for _, r := range reqs {
			fmt.Fprintf(b, "skillstore_object_storage_requests_total{source=%q,kind=\"list\"} %d\n", r.Source.Label, r.List)
			fmt.Fprintf(b, "skillstore_object_storage_requests_total{source=%q,kind=\"get\"} %d\n", r.Source.Label, r.Get)
		}
	}
	writeUnverified(b, s.store.Failing())
	if c, err := s.store.Catalog(ctx); err == nil {
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
