package audit

import (
	"io"
	"log/slog"
	"testing"
	"time"
)

func benchEvent() Event {
	return Event{RequestID: "42", TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", Subject: "alice@example.com",
		ClientID: "reporting-agent", Groups: []string{"finance", "staff"}, Method: "tools/call", Tool: "read_file_in_skill",
		Source: "finance", Skill: "quarterly-report", File: "scripts/build.py", Decision: Allow,
		Reason: "rule policy.yaml:4", ClientAddr: "10.1.2.3:51234", ProtocolVersion: "2026-07-28"}
}

// BenchmarkLog measures Log, the part a request pays: the writer drains to
// io.Discard in the background. dropped/op says how many events the
// writer could not keep up with.
func BenchmarkLog(b *testing.B) {
	benchLog(b, func(l *Logger) {
		e := benchEvent()
		for b.Loop() {
			l.Log(e)
		}
	})
}

// BenchmarkLogParallel is BenchmarkLog from GOMAXPROCS goroutines.
func BenchmarkLogParallel(b *testing.B) {
	benchLog(b, func(l *Logger) {
		b.RunParallel(func(pb *testing.PB) {
			e := benchEvent()
			for pb.Next() {
				l.Log(e)
			}
		})
	})
}

// benchLog runs log against a Logger writing to io.Discard, then closes
// it and reports the events dropped per op.
func benchLog(b *testing.B, log func(*Logger)) {
	l := New(io.Discard, Options{Logger: slog.New(slog.DiscardHandler)})
	b.ReportAllocs()
	log(l)
	b.StopTimer()
	l.Close()
	b.ReportMetric(float64(l.Stats().Dropped)/float64(b.N), "dropped/op")
}

// BenchmarkEncode measures the writer's work per event: bounding and
// encoding one line.
func BenchmarkEncode(b *testing.B) {
	e := benchEvent()
	e.Time = time.Now()
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		ec := e
		buf = appendEvent(buf[:0], &ec, ec.bound())
	}
	b.SetBytes(int64(len(buf)))
}
