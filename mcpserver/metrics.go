package mcpserver

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// latencyBuckets are the upper bounds, in seconds, of the tool-call
// latency histogram: from cached reads (microseconds) to slow backends.
var latencyBuckets = []float64{0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5}

// metrics counts tool calls, over every surface, for WriteMetrics. It is
// safe for concurrent use.
type metrics struct {
	mu    sync.Mutex
	calls map[callKey]*histogram
}

type callKey struct{ tool, outcome string }

type histogram struct {
	counts []uint64 // per bucket, not cumulative
	count  uint64
	sum    float64
}

func newMetrics() *metrics {
	return &metrics{calls: map[callKey]*histogram{}}
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

// WriteMetrics writes the tool calls' latency histogram, by tool and
// outcome, over every surface, in the Prometheus text exposition format.
// The HTTP site (package site) serves it at /metrics with its own figures.
func (s *Server) WriteMetrics(w io.Writer) {
	var b strings.Builder
	s.metrics.write(&b)
	io.WriteString(w, b.String())
}

// write writes the tool call histograms.
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
}
