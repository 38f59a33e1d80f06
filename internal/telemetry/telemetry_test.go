package telemetry

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// blockedExporter blocks every export until release is closed, then
// counts the spans (or fails them with err).
type blockedExporter struct {
	release chan struct{}
	err     error
	mu      sync.Mutex
	spans   int
}

func (e *blockedExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	<-e.release
	if e.err != nil {
		return e.err
	}
	e.mu.Lock()
	e.spans += len(spans)
	e.mu.Unlock()
	return nil
}

func (e *blockedExporter) Shutdown(context.Context) error { return nil }

// TestQueueNeverBlocks: with a collector that does not answer, ending
// spans never waits; what does not fit in the queue is dropped and
// counted, and what fits is exported once the collector answers (or
// counted as failed when it refuses).
func TestQueueNeverBlocks(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		exp := &blockedExporter{release: make(chan struct{})}
		if refuse {
			exp.err = errors.New("collector refused")
		}
		const size, batch, n = 64, 16, 1000
		q := newQueue(exp, size, batch, time.Hour)
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(q))
		tr := tp.Tracer("t")
		for range n { // returns although nothing is exported: OnEnd never waits
			_, s := tr.Start(context.Background(), "x")
			s.End()
		}
		st := q.stats()
		if st.Dropped < n-size-batch || st.Exported != 0 {
			t.Errorf("refuse=%v, while the collector hangs: %+v, want at least %d dropped, none exported", refuse, st, n-size-batch)
		}
		close(exp.release)
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		st = q.stats()
		if st.Exported+st.Dropped+st.Failed != n {
			t.Errorf("refuse=%v: %+v, want %d in all", refuse, st, n)
		}
		if refuse != (st.Failed > 0) || refuse != (st.Exported == 0) || uint64(exp.spans) != st.Exported {
			t.Errorf("refuse=%v: %+v, exporter got %d", refuse, st, exp.spans)
		}
		_, s := tr.Start(context.Background(), "after")
		s.End() // after Shutdown: not queued, not exported
	}
}

// TestSetup: which OTEL_* variables turn traces and metrics on, and which
// are refused with a message naming the variable.
func TestSetup(t *testing.T) {
	vars := []string{"OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
		"OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"}
	type on struct{ Traces, Metrics bool }
	tests := []struct {
		name string
		env  map[string]string
		want on
		err  string // a word the error holds; "" for none
	}{
		{"nothing set", nil, on{}, ""},
		{"an endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, on{true, true}, ""},
		{"a traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces"}, on{true, false}, ""},
		{"a metrics endpoint", map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://127.0.0.1:1/v1/metrics"}, on{false, true}, ""},
		{"exporter otlp", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, on{true, false}, ""},
		{"metrics none", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_METRICS_EXPORTER": "none"}, on{true, false}, ""},
		{"traces none", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_TRACES_EXPORTER": "none"}, on{false, true}, ""},
		{"SDK disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_SDK_DISABLED": "true"}, on{}, ""},
		{"zipkin", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, on{}, "OTEL_TRACES_EXPORTER"},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, on{}, "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{"http/protobuf", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, on{true, true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range vars {
				t.Setenv(v, tt.env[v])
			}
			tel, err := Setup(context.Background(), Options{ServiceVersion: "test"})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want one naming %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := on{tel.TracerProvider() != nil, tel.MeterProvider() != nil}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			if (tel == nil) != (got == on{}) {
				t.Errorf("Setup returned %v with %+v", tel, got)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			tel.Shutdown(ctx) // nothing is listening: the last export fails, within ctx
		})
	}
}
