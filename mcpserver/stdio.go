package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillstore/skillstore/internal/jsonl"
)

// ServeStdio serves MCP over in and out (normally stdin and stdout) until
// ctx ends or in is closed. Logs must go elsewhere: out carries the protocol.
//
// The connection is one session: its calls can be cancelled by
// notifications/cancelled, it receives list_changed notifications once
// initialized, and 2026-07-28 subscriptions/listen streams are delivered
// on it, each message tagged with the listen request's id. Every message is
// written whole, one at a time.
//
// When ctx ends or in is closed, ServeStdio ends the connection's
// subscriptions/listen streams and returns after the other answers in
// flight are written; after ctx ends, the goroutine reading in stays
// blocked until in is closed.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	w := &lockedWriter{w: out}
	c := &stdioConn{srv: s, w: w, sem: make(chan struct{}, maxRunning), streams: map[*exchange]context.CancelFunc{}}
	c.sess = s.newSession(w)
	c.sess.who = s.stdioCaller
	eof := make(chan struct{})
	go c.readLoop(ctx, bufio.NewReaderSize(in, 64<<10), eof)
	select {
	case <-ctx.Done():
	case <-eof:
	}
	c.mu.Lock()
	c.closed = true // no call starts after this
	for _, cancel := range c.streams {
		cancel()
	}
	c.mu.Unlock()
	c.wg.Wait()
	c.sess.end()
	return nil
}

// inlineBudget is how long an answer may run on the reading goroutine
// before reading moves to a new one.
const inlineBudget = time.Millisecond

// MaxStdioMessageBytes bounds one message read on stdio (as
// site.Options.MaxBodyBytes bounds one on HTTP, by default 1 MiB): a longer
// line is read to its end without being kept, and answered with an error.
const MaxStdioMessageBytes = 4 << 20

// At most maxRunning of a connection's calls run at once, and at most
// maxWaiting more wait for a turn; past that a call is refused at once, so
// a client that floods the server gets errors rather than unbounded memory,
// and the connection keeps reading (ping and cancellations still arrive).
// A subscriptions/listen stream takes no place: it waits for notifications.
const (
	maxRunning = 64
	maxWaiting = 1024
)

// stdioConn is one stdio connection.
type stdioConn struct {
	srv     *Server
	w       *lockedWriter
	sess    *session
	sem     chan struct{} // bounds the calls running at once
	waiting atomic.Int32  // calls waiting for a place in sem
	wg      sync.WaitGroup

	mu      sync.Mutex
	closed  bool                             // the connection ended: no call starts
	streams map[*exchange]context.CancelFunc // open subscriptions/listen streams
}

// readLoop reads messages and answers them. When nothing else is in flight
// it answers on this goroutine, which saves a hand-off (most of a cached
// call's latency); if that answer takes longer than inlineBudget (a slow
// backend read), a timer starts a new readLoop on the same reader and this
// one ends after its answer, so reading never waits on a slow call.
func (c *stdioConn) readLoop(ctx context.Context, r *bufio.Reader, eof chan<- struct{}) {
	for {
		line, tooLong, err := jsonl.ReadLimit(r, nil, MaxStdioMessageBytes)
		if tooLong {
			c.write(errorAnswer(nil, false, &rpcError{Code: codeInvalidRequest, Message: fmt.Sprintf(
				"Request too large: a message on stdio is limited to %d bytes; the message was discarded", MaxStdioMessageBytes)}))
			line = nil
		}
		if len(bytes.TrimSpace(line)) > 0 {
			switch job, inline := c.job(ctx, line); {
			case job == nil:
			case inline && len(c.sem) == 0 && err == nil:
				c.sem <- struct{}{}
				handoff := time.AfterFunc(inlineBudget, func() { c.readLoop(ctx, r, eof) })
				job()
				<-c.sem
				if !handoff.Stop() {
					return // another readLoop owns the reader now
				}
			case inline:
				c.waiting.Add(1)
				go func() {
					c.sem <- struct{}{}
					c.waiting.Add(-1)
					job()
					<-c.sem
				}()
			default:
				go job()
			}
		}
		if err != nil {
			close(eof)
			return
		}
	}
}

// job accepts line in arrival order and returns the work that answers it
// (nil when it was answered at once, or needs no answer); inline is false
// for a stream, which runs on its own goroutine and takes no place among
// the calls running.
func (c *stdioConn) job(ctx context.Context, line []byte) (job func(), inline bool) {
	if isBatch(line) {
		return c.batchJob(ctx, line)
	}
	x := c.srv.accept(ctx, source{sess: c.sess, caller: c.srv.stdioCaller()}, line)
	if x.req == nil {
		c.write(x.answer)
		return nil, false
	}
	if !x.stream() && c.waiting.Load() >= maxWaiting {
		c.write(x.release(&rpcError{Code: codeInternal, Message: fmt.Sprintf(
			"Server busy: %d calls of this connection are running and %d waiting; wait for answers before sending more", maxRunning, maxWaiting)}))
		return nil, false
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		x.release(&rpcError{Code: codeInternal, Message: "the connection is closing"})
		return nil, false
	}
	c.wg.Add(1)
	var out sink
	if x.stream() {
		var cancel context.CancelFunc
		x.ctx, cancel = context.WithCancel(x.ctx)
		c.streams[x] = cancel
		out = c.w
	}
	c.mu.Unlock()
	return func() {
		defer c.wg.Done()
		a := x.run(out)
		if x.stream() {
			c.mu.Lock()
			delete(c.streams, x)
			c.mu.Unlock()
		}
		if x.cancelledByClient() {
			putBuffer(a.body) // cancelled by notifications/cancelled: no answer is due
			return
		}
		c.write(a)
	}, !x.stream()
}

// batchJob is the work that answers a batch, which takes one place among
// the calls running.
func (c *stdioConn) batchJob(ctx context.Context, line []byte) (job func(), inline bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, false
	}
	c.wg.Add(1)
	return func() {
		defer c.wg.Done()
		c.write(c.srv.batch(ctx, source{sess: c.sess, caller: c.srv.stdioCaller()}, line))
	}, true
}

// write sends an answer, if one is due, and recycles its buffer.
func (c *stdioConn) write(a answer) {
	if a.body != nil {
		c.w.Write(a.body)
		putBuffer(a.body)
	}
}

// lockedWriter writes whole messages one at a time. It is the sink of a
// stdio connection's notifications and streams.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) send(msg []byte) bool {
	_, err := l.Write(msg)
	return err == nil
}
