package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// JSON-RPC batches: 2024-11-05 and 2025-03-26 let a client send several
// messages in one JSON array (2025-06-18 removed them). The server accepts
// them on every version: each message is accepted in order and answered in
// turn, and the answers go back in one array.

// maxBatch bounds the messages of one batch.
const maxBatch = 100

// isBatch reports whether msg is a JSON array.
func isBatch(msg []byte) bool {
	msg = bytes.TrimSpace(msg)
	return len(msg) > 0 && msg[0] == '['
}

// batch answers a batch: an array of the answers due (nil when none is:
// every message was a notification or a response). A message that opens a
// stream or starts a session (subscriptions/listen, initialize) cannot be
// part of one.
func (s *Server) batch(ctx context.Context, src source, msg []byte) answer {
	var msgs []json.RawMessage
	if err := json.Unmarshal(msg, &msgs); err != nil {
		return errorAnswer(nil, false, &rpcError{Code: codeParseError, Message: "Parse error: the message is not valid JSON"})
	}
	switch {
	case len(msgs) == 0:
		return errorAnswer(nil, false, &rpcError{Code: codeInvalidRequest, Message: "Invalid Request: an empty batch"})
	case len(msgs) > maxBatch:
		return errorAnswer(nil, false, &rpcError{Code: codeInvalidRequest, Message: fmt.Sprintf("Invalid Request: a batch holds at most %d messages, not %d", maxBatch, len(msgs))})
	}
	xs := make([]*exchange, len(msgs))
	for i, m := range msgs {
		xs[i] = s.accept(ctx, src, m) // all in arrival order before any runs
	}
	out := append(getBuffer(), '[')
	for _, x := range xs {
		var a answer
		switch {
		case x.initialize || x.stream():
			a = x.release(&rpcError{Code: codeInvalidRequest, Message: "Invalid Request: " + x.req.method + " cannot be part of a batch; send it on its own"})
		default:
			a = x.run(nil)
		}
		if a.body == nil || x.cancelledByClient() {
			putBuffer(a.body)
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, bytes.TrimRight(a.body, "\n")...)
		putBuffer(a.body)
	}
	if len(out) == 1 {
		putBuffer(out)
		return answer{}
	}
	return answer{body: append(out, "]\n"...)}
}
