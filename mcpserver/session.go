package mcpserver

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/skillstore/skillstore/access"
)

// session is what lasts between one client's messages: a stdio connection,
// a stateful HTTP session or an in-process connection. It holds the calls
// in flight (for notifications/cancelled), what the client subscribed to,
// and where its notifications go. 2026-07-28 requests over HTTP, and
// stateless HTTP, have none. It is safe for concurrent use.
type session struct {
	srv *Server
	// who returns whom the session serves, under the policy in force
	// (for its notifications); nil: everyone. Set before it is shared.
	who func() *caller
	// principal is, for an HTTP session, the principal of its latest
	// request (every one passed authentication), whom its notifications
	// serve (Server.httpSessionCaller): a refreshed token's groups apply
	// at once, and notifications stop when that token expires.
	principal atomic.Pointer[access.Principal]

	mu         sync.Mutex
	calls      map[string]context.CancelCauseFunc // calls in flight, by request id
	out        sink                               // where notifications go now; nil: nowhere yet
	subscribed map[string]bool                    // URIs of resources/subscribe
	version    string                             // the protocol version its initialize negotiated
	ended      bool
	done       chan struct{} // closed when the session ends
}

func (s *Server) newSession(out sink) *session {
	return &session{srv: s, out: out, calls: map[string]context.CancelCauseFunc{}, subscribed: map[string]bool{}, done: make(chan struct{})}
}

// initialized records the initialize handshake: from now on the session
// is in the hub, and receives legacy notifications.
func (ss *session) initialized() {
	ss.mu.Lock()
	ended := ss.ended
	ss.mu.Unlock()
	if !ended {
		ss.srv.hub.add(ss)
	}
}

// setOut makes out where the session's notifications go (nil: nowhere),
// returning what it replaced.
func (ss *session) setOut(out sink) sink {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	old := ss.out
	ss.out = out
	return old
}

// subscribe and unsubscribe record resources/subscribe.
func (ss *session) subscribe(uri string, on bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if on {
		ss.subscribed[uri] = true
	} else {
		delete(ss.subscribed, uri)
	}
}

// end cancels the session's calls in flight and stops its notifications.
func (ss *session) end() {
	ss.srv.hub.remove(ss)
	ss.mu.Lock()
	if !ss.ended {
		close(ss.done)
	}
	ss.ended = true
	ss.out = nil
	calls := ss.calls
	ss.calls = map[string]context.CancelCauseFunc{}
	ss.mu.Unlock()
	for _, cancel := range calls {
		cancel(nil)
	}
}

// notify sends a legacy notification to the session, if it may receive it.
func (ss *session) notify(n notice, msg []byte) {
	ss.mu.Lock()
	out, ok := ss.out, !ss.ended && (n.uri == "" || ss.subscribed[n.uri])
	ss.mu.Unlock()
	if ok && out != nil {
		out.send(msg)
	}
}
