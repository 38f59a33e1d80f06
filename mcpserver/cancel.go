package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
)

// Cancellation: a call in flight ends when its transport's context ends (a
// closed HTTP request, the end of a connection) and, in a session, when the
// client sends notifications/cancelled naming it.

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
