package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/skillstore/skillstore/internal/jsonl"
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
	c := &stdioConn{srv: s, w: w, sem: make(chan struct{}, maxRunning), o: origin{scope: fmt.Sprintf("stdio:%d", stdioConns.Add(1))}}
	listenErr := make(chan error, 1)
	go func() { listenErr <- stdio.Listen(ctx, pr, &stdioOut{c}) }()

	go c.readLoop(ctx, bufio.NewReaderSize(in, 64<<10), pw)
	err := <-listenErr
	c.mu.Lock()
	c.closed = true // no call starts after this
	c.mu.Unlock()
	pr.CloseWithError(io.ErrClosedPipe) // a reader still forwarding stops
	c.wg.Wait()
	c.srv.inflight.dropScope(c.o.scope)
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

// MaxStdioMessageBytes bounds one message read on stdio (as
// HTTPOptions.MaxBodyBytes bounds one on HTTP, by default 1 MiB): a longer
// line is read to its end without being kept, and answered with an error.
const MaxStdioMessageBytes = 4 << 20

// At most maxRunning of a connection's calls run at once, and at most
// maxWaiting more wait for a turn; past that a call is refused at once, so
// a client that floods the server gets errors rather than unbounded memory,
// and the connection keeps reading (ping and cancellations still arrive).
const (
	maxRunning = 64
	maxWaiting = 1024
)

// stdioConn is one stdio connection's reading side.
type stdioConn struct {
	srv     *Server
	w       io.Writer
	o       origin
	sem     chan struct{} // bounds the layer's calls running at once
	waiting atomic.Int32  // calls waiting for a place in sem
	wg      sync.WaitGroup

	mu     sync.Mutex
	closed bool            // the connection ended: no call starts
	modern bool            // the client speaks 2026-07-28 (no initialize)
	listen json.RawMessage // the id of the open subscriptions/listen request
}

// readLoop reads messages, answering the layer's and passing the rest to
// mcp-go through pw. When nothing else is in flight it answers on this
// goroutine, which saves a hand-off (most of a cached call's latency); if
// that answer takes longer than inlineBudget (a slow backend read), a
// timer starts a new readLoop on the same reader and this one ends after
// its answer, so reading never waits on a slow call.
func (c *stdioConn) readLoop(ctx context.Context, r *bufio.Reader, pw *io.PipeWriter) {
	for {
		line, tooLong, err := jsonl.ReadLimit(r, nil, MaxStdioMessageBytes)
		if tooLong {
			a := c.srv.errorAnswer(nil, false, &rpcError{Code: codeInvalidRequest, Message: fmt.Sprintf(
				"Request too large: a message on stdio is limited to %d bytes; the message was discarded", MaxStdioMessageBytes)})
			c.w.Write(a.body)
			putBuffer(a.body)
			line = nil
		}
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
				c.waiting.Add(1)
				go func() {
					c.sem <- struct{}{}
					c.waiting.Add(-1)
					job()
					<-c.sem
				}()
			}
		}
		if err != nil {
			c.wg.Wait() // let answers in flight reach out before mcp-go stops
			pw.Close()
			return
		}
	}
}

// job prepares line in arrival order and returns the work that answers it,
// or forward when mcp-go answers it. A malformed message is answered at once.
func (c *stdioConn) job(ctx context.Context, line []byte) (job func(), forward bool) {
	st := c.srv.prepare(c.o, line)
	c.srv.cancelCall(c.o, st)
	c.note(st, line)
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
	if c.waiting.Load() >= maxWaiting {
		a := c.srv.errorAnswer(st.call.id, st.call.modern, &rpcError{Code: codeInternal, Message: fmt.Sprintf(
			"Server busy: %d calls of this connection are running and %d waiting; wait for answers before sending more", maxRunning, maxWaiting)})
		c.w.Write(a.body)
		putBuffer(a.body)
		return nil, false
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, false
	}
	c.wg.Add(1)
	c.mu.Unlock()
	callCtx, done := c.srv.track(ctx, c.o, st.call) // before the next message is read
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

// note records what the connection's notifications depend on: whether the
// client uses 2026-07-28, and which subscriptions/listen request is open.
func (c *stdioConn) note(st step, line []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case st.initialize:
		c.modern = false
	case st.modern:
		c.modern = true
		if id, ok := listenRequest(st, line); ok {
			c.listen = id // mcp-go opens the stream
		}
	}
}

// stdioOut is where mcp-go writes on a stdio connection (one message per
// Write). On 2026-07-28 a server notifies a client only on its
// subscriptions/listen stream, each notification naming the stream; mcp-go
// broadcasts to its stdio session untagged, so this tags list-changed and
// updated notifications with the open listen request's id, drops them
// while a 2026-07-28 client has none open (no stream could carry them),
// and forgets the stream when mcp-go answers the listen request.
type stdioOut struct{ c *stdioConn }

func (o *stdioOut) Write(p []byte) (int, error) {
	c := o.c
	c.mu.Lock()
	modern, listen := c.modern, c.listen
	c.mu.Unlock()
	if !modern {
		return c.w.Write(p)
	}
	env := readEnvelope(bytes.TrimSpace(p))
	method, _ := rawString(env.Method)
	if method == "" {
		if listen != nil && sameID(validID(env.ID), listen) {
			c.mu.Lock()
			c.listen = nil // the stream ended
			c.mu.Unlock()
		}
		return c.w.Write(p)
	}
	if !streamNotification(method) {
		return c.w.Write(p)
	}
	var m map[string]any
	if json.Unmarshal(p, &m) != nil {
		return c.w.Write(p)
	}
	if listen == nil {
		return len(p), nil // no stream to carry it
	}
	params, _ := m["params"].(map[string]any)
	if params == nil {
		params = map[string]any{}
	}
	meta, _ := params["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta[mcp.MetaKeySubscriptionID] = listen
	params["_meta"] = meta
	m["params"] = params
	out, err := json.Marshal(m)
	if err != nil {
		return c.w.Write(p)
	}
	if _, err := c.w.Write(append(out, '\n')); err != nil {
		return 0, err
	}
	return len(p), nil
}

// sameID reports whether two raw request ids are the same id, however
// each was escaped.
func sameID(a, b json.RawMessage) bool {
	if len(a) > 0 && len(b) > 0 && a[0] == '"' && b[0] == '"' {
		x, okx := rawString(a)
		y, oky := rawString(b)
		return okx && oky && x == y
	}
	return bytes.Equal(a, b)
}

// streamNotification reports the notifications a 2026-07-28 client gets
// only on a subscriptions/listen stream.
func streamNotification(method string) bool {
	switch mcp.MCPMethod(method) {
	case mcp.MethodNotificationToolsListChanged, mcp.MethodNotificationResourcesListChanged,
		mcp.MethodNotificationPromptsListChanged, mcp.MethodNotificationResourceUpdated:
		return true
	}
	return false
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
