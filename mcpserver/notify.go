package mcpserver

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/skillstore/skillstore/internal/jsonstr"
)

// Change notifications: which clients hear that a list changed or a
// resource was updated, and how the message reads.

// notice is one change a client may be notified of: a list that changed,
// or (uri set) a resource that was updated.
type notice struct {
	method mcp.MCPMethod
	uri    string
	// sees, if set, says whether a caller with a restricted view sees the
	// change (its own list changed; it may see the updated skill). Callers
	// that see everything are told of every change.
	sees func(*caller) bool
	// seesAll: sees decides for every recipient, callers that see
	// everything (and recipients of no caller, as nil) included.
	seesAll bool
	// restrictedOnly: only recipients under the access policy are told
	// (a policy reload, which changes nothing for the others).
	restrictedOnly bool
}

// hidden reports whether the recipient whose caller who returns must not
// hear of n: a session only hears of changes to what it may see, and
// nothing once its caller's token has expired.
func (n notice) hidden(who func() *caller) bool {
	if who == nil {
		return n.restrictedOnly || n.seesAll && n.sees != nil && !n.sees(nil)
	}
	cl := who()
	if cl.principalOf().Expired(time.Now()) {
		return true
	}
	return n.sees != nil && (cl.filtered() || n.seesAll) && !n.sees(cl)
}

// listener is an open 2026-07-28 subscriptions/listen stream.
type listener struct {
	out    sink
	id     json.RawMessage // the listen request's id, which tags every message on the stream
	filter mcp.SubscriptionFilter
	who    func() *caller // whom the stream serves (nil: everyone), as session.who
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
// stream's id. Recipients with a restricted view hear only of changes they
// see (notice.sees). publish calls n.sees from this goroutine only.
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
	var msg []byte
	for _, ss := range sessions {
		if n.hidden(ss.who) {
			continue
		}
		if msg == nil {
			msg = notification(n, nil)
		}
		ss.notify(n, msg)
	}
	for _, l := range listeners {
		if !n.hidden(l.who) {
			l.out.send(notification(n, l.id))
		}
	}
}

// notification encodes n as a JSON-RPC notification and a newline, tagged
// with a listen stream's id when id is set.
func notification(n notice, id json.RawMessage) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","method":`), jsonstr.Append(nil, string(n.method))...)
	switch {
	case n.uri != "" && id != nil:
		b = append(b, `,"params":{"_meta":{"`+mcp.MetaKeySubscriptionID+`":`...)
		b = append(b, id...)
		b = append(b, `},"uri":`...)
		b = jsonstr.Append(b, n.uri)
		b = append(b, '}')
	case n.uri != "":
		b = append(b, `,"params":{"uri":`...)
		b = jsonstr.Append(b, n.uri)
		b = append(b, '}')
	case id != nil:
		b = append(b, `,"params":{"_meta":{"`+mcp.MetaKeySubscriptionID+`":`...)
		b = append(b, id...)
		b = append(b, "}}"...)
	}
	return append(b, "}\n"...)
}
