package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// session is what lasts between one client's messages: a stdio connection,
// a stateful HTTP session or an in-process connection. It holds the calls
// in flight (for notifications/cancelled), what the client subscribed to,
// and where its notifications go. 2026-07-28 requests over HTTP, and
// stateless HTTP, have none. It is safe for concurrent use.
type session struct {
	srv *Server

	mu         sync.Mutex
	calls      map[string]context.CancelCauseFunc // calls in flight, by request id
	out        sink                               // where notifications go now; nil: nowhere yet
	legacy     bool                               // initialized through the handshake: gets list_changed
	subscribed map[string]bool                    // URIs of resources/subscribe
	ended      bool
	done       chan struct{} // closed when the session ends
}

func (s *Server) newSession(out sink) *session {
	return &session{srv: s, out: out, calls: map[string]context.CancelCauseFunc{}, subscribed: map[string]bool{}, done: make(chan struct{})}
}

// track registers a call in flight for notifications/cancelled; done
// unregisters it.
func (ss *session) track(ctx context.Context, id json.RawMessage) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	k := string(id)
	ss.mu.Lock()
	ss.calls[k] = cancel
	ss.mu.Unlock()
	return ctx, func() {
		ss.mu.Lock()
		delete(ss.calls, k)
		ss.mu.Unlock()
		cancel(nil)
	}
}

// errCancelledByClient is why a call ends when the client sent
// notifications/cancelled for it.
var errCancelledByClient = errors.New("cancelled by the client")

// cancel ends the call in flight with this id, if any.
func (ss *session) cancel(id json.RawMessage) {
	ss.mu.Lock()
	cancel := ss.calls[string(id)]
	if cancel == nil && len(id) > 0 && id[0] == '"' { // the same string, escaped otherwise
		for k, c := range ss.calls {
			if sameID(json.RawMessage(k), id) {
				cancel = c
			}
		}
	}
	ss.mu.Unlock()
	if cancel != nil {
		cancel(errCancelledByClient)
	}
}

// initialized records the initialize handshake: from now on the session
// receives legacy notifications.
func (ss *session) initialized() {
	ss.mu.Lock()
	ss.legacy = true
	ss.mu.Unlock()
	ss.srv.hub.add(ss)
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
	out, ok := ss.out, ss.legacy && !ss.ended && (n.uri == "" || ss.subscribed[n.uri])
	ss.mu.Unlock()
	if ok && out != nil {
		out.send(msg)
	}
}

// notice is one change a client may be notified of: a list that changed,
// or (uri set) a resource that was updated.
type notice struct {
	method mcp.MCPMethod
	uri    string
}

// listener is an open 2026-07-28 subscriptions/listen stream.
type listener struct {
	out    sink
	id     json.RawMessage // the listen request's id, which tags every message on the stream
	filter mcp.SubscriptionFilter
}

// wants reports whether the stream subscribed to n.
func (l *listener) wants(n notice) bool {
	switch n.method {
	case mcp.MethodNotificationToolsListChanged:
		return l.filter.ToolsListChanged
	case mcp.MethodNotificationPromptsListChanged:
		return l.filter.PromptsListChanged
	case mcp.MethodNotificationResourcesListChanged:
		return l.filter.ResourcesListChanged
	case mcp.MethodNotificationResourceUpdated:
		for _, uri := range l.filter.ResourceSubscriptions {
			if uri == n.uri {
				return true
			}
		}
	}
	return false
}

// hub delivers change notifications to the sessions and listen streams
// that may receive them. It is safe for concurrent use.
type hub struct {
	mu        sync.Mutex
	sessions  map[*session]struct{}
	listeners map[*listener]struct{}
}

func newHub() *hub {
	return &hub{sessions: map[*session]struct{}{}, listeners: map[*listener]struct{}{}}
}

func (h *hub) add(ss *session) {
	h.mu.Lock()
	h.sessions[ss] = struct{}{}
	h.mu.Unlock()
}

func (h *hub) remove(ss *session) {
	h.mu.Lock()
	delete(h.sessions, ss)
	h.mu.Unlock()
}

func (h *hub) listen(l *listener) func() {
	h.mu.Lock()
	h.listeners[l] = struct{}{}
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		delete(h.listeners, l)
		h.mu.Unlock()
	}
}

// publish notifies every session and stream that may receive n: legacy
// sessions of list changes and of updates to resources they subscribed to;
// listen streams of what they subscribed to, each message tagged with the
// stream's id.
func (h *hub) publish(n notice) {
	h.mu.Lock()
	sessions := make([]*session, 0, len(h.sessions))
	for ss := range h.sessions {
		sessions = append(sessions, ss)
	}
	var listeners []*listener
	for l := range h.listeners {
		if l.wants(n) {
			listeners = append(listeners, l)
		}
	}
	h.mu.Unlock()
	if len(sessions) > 0 {
		msg := notification(n, nil)
		for _, ss := range sessions {
			ss.notify(n, msg)
		}
	}
	for _, l := range listeners {
		l.out.send(notification(n, l.id))
	}
}

// notification encodes n as a JSON-RPC notification and a newline, tagged
// with a listen stream's id when id is set.
func notification(n notice, id json.RawMessage) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","method":`), appendString(nil, string(n.method))...)
	switch {
	case n.uri != "" && id != nil:
		b = append(b, `,"params":{"_meta":{"`+mcp.MetaKeySubscriptionID+`":`...)
		b = append(b, id...)
		b = append(b, `},"uri":`...)
		b = appendString(b, n.uri)
		b = append(b, '}')
	case n.uri != "":
		b = append(b, `,"params":{"uri":`...)
		b = appendString(b, n.uri)
		b = append(b, '}')
	case id != nil:
		b = append(b, `,"params":{"_meta":{"`+mcp.MetaKeySubscriptionID+`":`...)
		b = append(b, id...)
		b = append(b, "}}"...)
	}
	return append(b, "}\n"...)
}
