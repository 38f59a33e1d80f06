package mcpserver

import (
	"sort"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
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
	ops   map[opKey]*opHistogram
}

type callKey struct{ tool, outcome string }

type histogram struct {
	counts []uint64 // per bucket, not cumulative
	count  uint64
	sum    float64
}

func newMetrics() *metrics {
	return &metrics{calls: map[callKey]*histogram{}, ops: map[opKey]*opHistogram{}}
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

// OperationBuckets are the upper bounds, in seconds, of the
// mcp.server.operation.duration histogram: the semantic conventions'
// advised bounds (0.01 s to 300 s), with four finer ones below them,
// since a cached answer takes microseconds.
var OperationBuckets = []float64{0.0001, 0.0005, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Operations is the mcp.server.operation.duration histogram of one
// method, tool and error type: every request a method ran for, on every
// transport.
type Operations struct {
	Method  string   // mcp.method.name
	Tool    string   // gen_ai.tool.name: one of our tools for tools/call, else ""
	Error   string   // error.type: a JSON-RPC error code, "tool_error", or "" on success
	Buckets []uint64 // cumulative: Buckets[i] requests took at most OperationBuckets[i]
	Count   uint64
	Sum     float64 // seconds
}

// opKey is a series of the operation histogram: every member comes from a
// bounded set (the method table, our tools, the error codes we answer).
type opKey struct{ method, tool, errType string }

// opHistogram is one series, with its attributes for OTLP.
type opHistogram struct {
	histogram
	attrs attribute.Set
}

// observeOperation records one request and returns its series.
func (m *metrics) observeOperation(k opKey, d time.Duration) *opHistogram {
	sec := d.Seconds()
	i := sort.SearchFloat64s(OperationBuckets, sec)
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.ops[k]
	if h == nil {
		kv := []attribute.KeyValue{attribute.String("mcp.method.name", k.method)}
		if k.tool != "" {
			kv = append(kv, attribute.String("gen_ai.tool.name", k.tool))
		}
		if k.errType != "" {
			kv = append(kv, attribute.String("error.type", k.errType))
		}
		h = &opHistogram{histogram: histogram{counts: make([]uint64, len(OperationBuckets))}, attrs: attribute.NewSet(kv...)}
		m.ops[k] = h
	}
	if i < len(h.counts) {
		h.counts[i]++
	}
	h.count++
	h.sum += sec
	return h
}

// Operations returns the mcp.server.operation.duration histograms so far,
// sorted by method, tool and error type. The HTTP site serves them at
// /metrics.
func (s *Server) Operations() []Operations {
	m := s.metrics
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Operations, 0, len(m.ops))
	for k, h := range m.ops {
		o := Operations{Method: k.method, Tool: k.tool, Error: k.errType, Buckets: make([]uint64, len(h.counts)), Count: h.count, Sum: h.sum}
		var cum uint64
		for i, n := range h.counts {
			cum += n
			o.Buckets[i] = cum
		}
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Method != b.Method {
			return a.Method < b.Method
		}
		if a.Tool != b.Tool {
			return a.Tool < b.Tool
		}
		return a.Error < b.Error
	})
	return out
}
