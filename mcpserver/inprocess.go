package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// InProcessClient returns an mcp-go client connected to s in process. Its
// messages go through the protocol layer, as those of stdio and HTTP
// clients do; the client still needs Start and Initialize.
func (s *Server) InProcessClient() *client.Client {
	return client.NewClient(s.inProcessTransport())
}

// inProcessTransport is mcp-go's in-process transport with the protocol
// layer in front: the layer answers its methods, and mcp-go's transport
// carries the rest (with its session, for notifications).
type inProcessTransport struct {
	*transport.InProcessTransport
	srv *Server
	o   origin
}

var inProcessConns atomic.Int64

func (s *Server) inProcessTransport() *inProcessTransport {
	return &inProcessTransport{
		InProcessTransport: transport.NewInProcessTransport(s.mcp),
		srv:                s,
		o:                  origin{scope: fmt.Sprintf("inprocess:%d", inProcessConns.Add(1))},
	}
}

func (t *inProcessTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	msg, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("marshal request: %w", err)
	}
	a := t.srv.handle(ctx, t.o, msg)
	if a.forward {
		return t.InProcessTransport.SendRequest(ctx, req)
	}
	defer putBuffer(a.body)
	var resp transport.JSONRPCResponse
	if err := json.Unmarshal(a.body, &resp); err != nil {
		return nil, fmt.Errorf("unmarshal response: %w", err)
	}
	return &resp, nil
}

func (t *inProcessTransport) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	msg, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("marshal notification: %w", err)
	}
	if a := t.srv.handle(ctx, t.o, msg); !a.forward {
		return nil
	}
	return t.InProcessTransport.SendNotification(ctx, n)
}

func (t *inProcessTransport) Close() error {
	t.srv.inflight.dropScope(t.o.scope)
	return t.InProcessTransport.Close()
}
