package mcpserver

import (
	"context"
	"errors"
	"sync"
)

// Conn is an in-process connection to a Server: one session, as a stdio
// connection is, without the framing. Its messages go through the same
// dispatcher as those of every other transport. It is safe for concurrent
// use. Package mcpgoclient offers it as an mcp-go client.
type Conn struct {
	srv  *Server
	sess *session

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// connSink hands a connection's server-to-client messages to its handler.
type connSink func(msg []byte)

func (f connSink) send(msg []byte) bool {
	f(msg)
	return true
}

// Connect opens an in-process connection. notify, if not nil, receives each
// server-to-client message (change notifications, a subscriptions/listen
// stream's messages) as one JSON-RPC message; it must not block for long
// and must not keep msg after it returns.
func (s *Server) Connect(notify func(msg []byte)) *Conn {
	var out sink
	if notify != nil {
		out = connSink(notify)
	}
	return &Conn{srv: s, sess: s.newSession(out)}
}

// ErrClosed is returned by a Conn's Call after Close.
var ErrClosed = errors.New("mcpserver: the in-process connection is closed")

// Call sends one JSON-RPC message and returns the server's answer: a
// response, or nil for a notification, a response or a request cancelled
// by notifications/cancelled. ctx ends the call (the answer then says it
// was cancelled). A subscriptions/listen request returns when ctx ends,
// its stream's messages going to the connection's notify function.
func (c *Conn) Call(ctx context.Context, msg []byte) ([]byte, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.wg.Add(1)
	c.mu.Unlock()
	defer c.wg.Done()
	if isBatch(msg) {
		return c.copy(c.srv.batch(ctx, source{sess: c.sess}, msg)), nil
	}
	x := c.srv.accept(ctx, source{sess: c.sess}, msg)
	var out sink
	if x.stream() {
		c.sess.mu.Lock()
		out = c.sess.out
		c.sess.mu.Unlock()
	}
	a := x.run(out)
	if x.cancelledByClient() {
		putBuffer(a.body)
		return nil, nil
	}
	return c.copy(a), nil
}

// copy returns a's body in a buffer of its own (nil if none), recycling a's.
func (c *Conn) copy(a answer) []byte {
	if a.body == nil {
		return nil
	}
	body := append([]byte(nil), a.body...)
	putBuffer(a.body)
	return body
}

// Close ends the connection: its calls in flight are cancelled, and Close
// returns once they have returned.
func (c *Conn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.sess.end()
	c.wg.Wait()
	return nil
}
