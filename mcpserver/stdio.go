package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/skillstore/skillstore/internal/jsonl"
	"github.com/skillstore/skillstore/tools"
)

// ServeStdio serves MCP over in and out (normally stdin and stdout) until
// ctx ends or in is closed. Logs must go elsewhere: out carries the protocol.
//
// Each message goes through the protocol layer (see layer.go): it answers
// the hot methods on every protocol version, and passes everything else
// to mcp-go's stdio server unchanged, through a pipe. Both write whole
// messages to out, one at a time.
//
// When ctx ends, ServeStdio returns after answers in flight are written;
// the goroutine reading in stays blocked until in is closed.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	stdio := server.NewStdioServer(s.mcp)
	stdio.SetErrorLogger(slogAdapter(s.log))
	listenErr := make(chan error, 1)
	go func() { listenErr <- stdio.Listen(ctx, pr, w) }()

	c := &stdioConn{srv: s, w: w, sem: make(chan struct{}, 64), o: origin{scope: fmt.Sprintf("stdio:%d", stdioConns.Add(1))}}
	go c.readLoop(ctx, bufio.NewReaderSize(in, 64<<10), pw)
	err := <-listenErr
	c.wg.Wait()
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		return nil
	}
	return err
}

// stdioConns numbers stdio connections, to scope their calls' ids.
var stdioConns atomic.Int64

// inlineBudget is how long an answer may run on the reading goroutine
// before reading moves to a new one.
const inlineBudget = time.Millisecond

// stdioConn is one stdio connection's reading side.
type stdioConn struct {
	srv *Server
	w   io.Writer
	o   origin
	sem chan struct{} // bounds the layer's calls running at once
	wg  sync.WaitGroup
}

// readLoop reads messages, answering the layer's and passing the rest to
// mcp-go through pw. When nothing else is in flight it answers on this
// goroutine, which saves a hand-off (most of a cached call's latency); if
// that answer takes longer than inlineBudget (a slow backend read), a
// timer starts a new readLoop on the same reader and this one ends after
// its answer, so reading never waits on a slow call.
func (c *stdioConn) readLoop(ctx context.Context, r *bufio.Reader, pw *io.PipeWriter) {
	for {
		line, err := jsonl.Read(r, nil)
		if len(bytes.TrimSpace(line)) > 0 {
			job, forward := c.job(ctx, line)
			switch {
			case forward:
				if _, werr := pw.Write(line); werr != nil {
					return // mcp-go has stopped reading: the session is over
				}
			case job == nil:
			case len(c.sem) == 0 && err == nil:
				c.sem <- struct{}{}
				handoff := time.AfterFunc(inlineBudget, func() { c.readLoop(ctx, r, pw) })
				job()
				<-c.sem
				if !handoff.Stop() {
					return // another readLoop owns the reader now
				}
			default:
				go func() {
					c.sem <- struct{}{}
					job()
					<-c.sem
				}()
			}
		}
		if err != nil {
			c.wg.Wait() // let answers in flight reach out before mcp-go stops
			c.srv.inflight.dropScope(c.o.scope)
			pw.Close()
			return
		}
	}
}

// job prepares line in arrival order and returns the work that answers it,
// or forward when mcp-go answers it. A malformed message is answered at once.
func (c *stdioConn) job(ctx context.Context, line []byte) (job func(), forward bool) {
	st := c.srv.prepare(c.o, line)
	if st.call == nil {
		if st.answer.forward {
			return nil, true
		}
		if st.answer.body != nil {
			c.w.Write(st.answer.body)
			putBuffer(st.answer.body)
		}
		return nil, false
	}
	callCtx, done := c.srv.track(ctx, c.o, st.call) // before the next message is read
	c.wg.Add(1)
	return func() {
		defer c.wg.Done()
		defer done()
		a := c.srv.run(callCtx, st.call, st.method)
		if callCtx.Err() != nil && ctx.Err() == nil {
			putBuffer(a.body) // cancelled by notifications/cancelled: no answer is due
			return
		}
		c.w.Write(a.body)
		putBuffer(a.body)
	}, false
}

// lockedWriter writes whole messages one at a time; mcp-go and the
// layer share it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func isOurTool(name string) bool {
	for _, n := range tools.Names {
		if n == name {
			return true
		}
	}
	return false
}

var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

func getBuffer() []byte { return (*buffers.Get().(*[]byte))[:0] }

func putBuffer(b []byte) {
	if cap(b) <= 4<<20 { // do not pin huge buffers
		buffers.Put(&b)
	}
}
