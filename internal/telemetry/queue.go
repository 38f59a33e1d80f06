package telemetry

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// queue is a span processor that hands sampled spans to an exporter in
// batches, from one goroutine, through a bounded channel. OnEnd never
// blocks: a span that finds the channel full is dropped and counted. The
// SDK's BatchSpanProcessor behaves the same but does not tell how many it
// dropped, which /metrics must show.
type queue struct {
	exp      sdktrace.SpanExporter
	spans    chan sdktrace.ReadOnlySpan
	batch    int
	delay    time.Duration
	flush    chan chan struct{}
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once

	exported, dropped, failed atomic.Uint64
}

var _ sdktrace.SpanProcessor = (*queue)(nil)

func newQueue(exp sdktrace.SpanExporter, size, batch int, delay time.Duration) *queue {
	if batch > size {
		batch = size
	}
	q := &queue{exp: exp, spans: make(chan sdktrace.ReadOnlySpan, size), batch: batch, delay: delay,
		flush: make(chan chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	go q.loop()
	return q
}

func (q *queue) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues s if it is sampled and there is room; it never blocks.
func (q *queue) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	select {
	case <-q.stop: // after Shutdown
		q.dropped.Add(1)
		return
	default:
	}
	select {
	case q.spans <- s:
	default:
		q.dropped.Add(1)
	}
}

// loop exports a batch when it is full, when delay has passed since the
// last export, on ForceFlush, and at Shutdown.
func (q *queue) loop() {
	defer close(q.done)
	buf := make([]sdktrace.ReadOnlySpan, 0, q.batch)
	tick := time.NewTicker(q.delay)
	defer tick.Stop()
	export := func() {
		if len(buf) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // the exporter's own timeout (OTEL_EXPORTER_OTLP_TIMEOUT) is shorter
		if err := q.exp.ExportSpans(ctx, buf); err != nil {
			q.failed.Add(uint64(len(buf)))
		} else {
			q.exported.Add(uint64(len(buf)))
		}
		cancel()
		clear(buf)
		buf = buf[:0]
	}
	drain := func() {
		for {
			select {
			case s := <-q.spans:
				if buf = append(buf, s); len(buf) == q.batch {
					export()
				}
			default:
				export()
				return
			}
		}
	}
	for {
		select {
		case s := <-q.spans:
			if buf = append(buf, s); len(buf) == q.batch {
				export()
			}
		case <-tick.C:
			export()
		case ack := <-q.flush:
			drain()
			close(ack)
		case <-q.stop:
			drain()
			return
		}
	}
}

// ForceFlush exports what is queued, waiting for it within ctx.
func (q *queue) ForceFlush(ctx context.Context) error {
	ack := make(chan struct{})
	select {
	case q.flush <- ack:
	case <-q.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown exports what is queued and stops, waiting within ctx.
func (q *queue) Shutdown(ctx context.Context) error {
	q.stopOnce.Do(func() { close(q.stop) })
	select {
	case <-q.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return q.exp.Shutdown(ctx)
}

func (q *queue) stats() Stats {
	return Stats{Exported: q.exported.Load(), Dropped: q.dropped.Load(), Failed: q.failed.Load()}
}
