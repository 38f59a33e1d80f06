package mcpserver

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// FuzzTraceparent holds parseTraceparent equal to the W3C propagator's
// extraction, on valid, hostile and random values.
func FuzzTraceparent(f *testing.F) {
	for _, s := range []string{
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09",
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01extra",
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
		"00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01",
		"0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"", "-", "00", strings.Repeat("00-", 40),
	} {
		f.Add(s, "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
	}
	f.Add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "bad state ,,, =")
	f.Fuzz(func(t *testing.T, tp, state string) {
		want := trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(),
			propagation.HeaderCarrier(http.Header{"Traceparent": {tp}, "Tracestate": {state}})))
		for _, got := range []trace.SpanContext{parseTraceparent(tp, state), parseTraceparent([]byte(tp), state)} {
			if !got.Equal(want) || got.IsRemote() != want.IsRemote() {
				t.Fatalf("traceparent %q tracestate %q: got %v, the propagator %v", tp, state, got, want)
			}
		}
	})
}

// TestTraceparentCost: extracting a valid traceparent from _meta does not
// allocate (the hot path of a traced request).
func TestTraceparentCost(t *testing.T) {
	meta := []byte(`{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","x":1}`)
	var sc trace.SpanContext
	if n := testing.AllocsPerRun(100, func() { sc = readTraceMeta(meta).spanContext() }); n != 0 {
		t.Errorf("%v allocations", n)
	}
	if !sc.IsValid() {
		t.Errorf("invalid: %v", sc)
	}
}
