package mcpserver

import (
	"bytes"
	"net/http"
	"sync/atomic"
	"time"
)

// Server-sent events: how a stream's messages reach an HTTP client.

// sseBuffer is how many messages a stream holds for a client that reads
// slowly; past it, messages are dropped (and counted) rather than holding
// up whoever notifies.
const sseBuffer = 64

// sseWriteTimeout bounds one write to a stream: a client that stops
// reading loses its stream after it. A variable for the tests.
var sseWriteTimeout = 10 * time.Second

// sseStream is the sink of one SSE response: messages queue in a bounded
// buffer that the response's handler drains.
type sseStream struct {
	ch      chan []byte
	dropped atomic.Int64
}

func (s *sseStream) send(msg []byte) bool {
	select {
	case s.ch <- msg:
		return true
	default:
		s.dropped.Add(1)
		return false
	}
}

// newSSEStream makes the sink of an SSE response, which may take messages
// before the response is written: they are sent once it is.
func newSSEStream() *sseStream { return &sseStream{ch: make(chan []byte, sseBuffer)} }

// serveSSE answers with an event stream of out's messages: run runs on its
// own goroutine, and what it returns (a final message, or nil) ends the
// stream. The handler writes each message as an event, and returns when
// run has returned or the client has gone away (r's context); a write that
// does not complete in sseWriteTimeout ends the stream too.
func (h *httpLayer) serveSSE(w http.ResponseWriter, r *http.Request, out *sseStream, run func() []byte) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Connection", "keep-alive")
	w.Header().Set("X-Accel-Buffering", "no") // a proxy must pass each event on at once
	w.WriteHeader(http.StatusOK)
	if rc.Flush() != nil {
		return
	}
	final := make(chan []byte, 1)
	go func() { final <- run() }()
	event := func(msg []byte) bool {
		rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
		_, err := w.Write(append(append([]byte("event: message\ndata: "), bytes.TrimRight(msg, "\n")...), "\n\n"...))
		return err == nil && rc.Flush() == nil
	}
	defer func() {
		if n := out.dropped.Load(); n > 0 {
			h.srv.log.Warn("a client read its stream too slowly; messages were dropped", "dropped", n)
		}
	}()
	for {
		select {
		case msg := <-out.ch:
			if !event(msg) {
				return
			}
		case msg := <-final:
			for len(out.ch) > 0 {
				if !event(<-out.ch) {
					return
				}
			}
			if msg != nil {
				event(msg)
				putBuffer(msg)
			}
			return
		case <-r.Context().Done():
			return
		}
	}
}
