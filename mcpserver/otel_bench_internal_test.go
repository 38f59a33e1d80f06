package mcpserver

import (
	"context"
	"io"
	"log/slog"
	"runtime"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// The cost of tracing on the hot path: a cached get_skill through the
// dispatcher (no transport), 16 calls in flight (b.SetParallelism over
// GOMAXPROCS), with tracing off, on but unsampled, and on and sampled
// (spans made, given to a batch processor, exported to nowhere). Compare
// the three within one run: the machine is shared.

// benchGetSkill16 runs the cached get_skill on srv, 16 in flight; the
// message's _meta carries a sampled traceparent when traced.
func benchGetSkill16(b *testing.B, srv *Server, traced bool) {
	params := `{"name":"get_skill","arguments":{"skill_name":"calc"}}`
	if traced {
		params = `{"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},"name":"get_skill","arguments":{"skill_name":"calc"}}`
	}
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}`)
	a := srv.handle(context.Background(), source{}, msg) // warm the cache
	putBuffer(a.body)
	b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0)))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			a := srv.handle(context.Background(), source{}, msg)
			if a.code != 0 {
				b.Error("error answer")
			}
			putBuffer(a.body)
		}
	})
}

// BenchmarkGetSkill16 is the hot path without tracing, as a server
// without Options.TracerProvider runs it.
func BenchmarkGetSkill16(b *testing.B) {
	benchGetSkill16(b, testServer(b), false)
}

// BenchmarkTracing16 is the hot path with tracing off, unsampled and
// sampled, each with a traceparent in _meta (the unsampled sampler
// ignores it: NeverSample, as OTEL_TRACES_SAMPLER=always_off).
func BenchmarkTracing16(b *testing.B) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := store.New([]store.Source{{Label: "project", Location: "./skills", FS: fixture.EscapesMapFS()}}, store.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	t := tools.New(s, tools.Options{})
	for _, c := range []struct {
		name string
		tp   func() trace.TracerProvider
	}{
		{"off", func() trace.TracerProvider { return nil }},
		{"unsampled", func() trace.TracerProvider {
			return sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
		}},
		{"sampled", func() trace.TracerProvider {
			return sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()),
				sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			tp := c.tp()
			srv, err := New(context.Background(), t, Options{Logger: quiet, TracerProvider: tp})
			if err != nil {
				b.Fatal(err)
			}
			benchGetSkill16(b, srv, true)
			if p, ok := tp.(*sdktrace.TracerProvider); ok {
				p.Shutdown(context.Background())
			}
		})
	}
}
