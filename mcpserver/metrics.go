package mcpserver

import (
	"sort"
	"sync"
	"time"
)

// LatencyBuckets are the upper bounds, in seconds, of the tool-call
// latency histogram: from cached reads (microseconds) to slow backends.
// A call slower than the last bound is counted in ToolCalls.Count only.
var LatencyBuckets = []float64{0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5}

// ToolCalls is the latency histogram of one tool's calls with one
// outcome ("ok" or "error"), over every surface.
type ToolCalls struct {
	Tool, Outcome string
	Buckets       []uint64 // cumulative: Buckets[i] calls took at most LatencyBuckets[i]
	Count         uint64   // every call, the slowest included
	Sum           float64  // seconds, over every call
}

// metrics counts tool calls, over every surface, for ToolCalls. It is
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
		h = &histogram{counts: make([]uint64, len(LatencyBuckets))}
		m.calls[callKey{tool, outcome}] = h
	}
	i := sort.SearchFloat64s(LatencyBuckets, sec)
	if i < len(h.counts) {
		h.counts[i]++
	}
	h.count++
	h.sum += sec
}

// ToolCalls returns the tool calls' latency histograms so far, by tool
// and outcome, sorted by tool then outcome. The HTTP site (package site)
// serves them at /metrics with its own figures.
func (s *Server) ToolCalls() []ToolCalls {
	m := s.metrics
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]ToolCalls, 0, len(m.calls))
	for k, h := range m.calls {
		tc := ToolCalls{Tool: k.tool, Outcome: k.outcome, Buckets: make([]uint64, len(h.counts)), Count: h.count, Sum: h.sum}
		var cum uint64
		for i, n := range h.counts {
			cum += n
			tc.Buckets[i] = cum
		}
		out = append(out, tc)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Tool < out[j].Tool || out[i].Tool == out[j].Tool && out[i].Outcome < out[j].Outcome
	})
	return out
}
