// Package mcpgoclient offers an in-process connection to a skillstore MCP
// server (mcpserver.Conn) as a mark3labs/mcp-go client, for Go programs and
// tests that already speak to MCP servers through mcp-go.
//
// It is a package of its own so that mcpserver, and the skillstore binary,
// do not link mcp-go's client and server packages.
package mcpgoclient

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/mcpserver"
)

// New returns an mcp-go client connected to srv in process. Its messages go
// through the server's dispatcher, as those of stdio and HTTP clients do;
// the client still needs Start and Initialize.
func New(srv *mcpserver.Server) *client.Client {
	t := &inProcess{}
	t.conn = srv.Connect(t.deliver)
	return client.NewClient(t)
}

// inProcess is an mcp-go transport over an mcpserver.Conn.
type inProcess struct {
	conn *mcpserver.Conn

	mu      sync.RWMutex
	handler func(mcp.JSONRPCNotification)
}

func (t *inProcess) Start(context.Context) error { return nil }

func (t *inProcess) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	msg, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("marshal request: %w", err)
	}
	body, err := t.conn.Call(ctx, msg)
	if err != nil {
		return nil, err
	}
	if body == nil {
		return nil, context.Cause(ctx)
	}
	var resp transport.JSONRPCResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("unmarshal response: %w", err)
	}
	return &resp, nil
}

func (t *inProcess) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	msg, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("marshal notification: %w", err)
	}
	_, err = t.conn.Call(ctx, msg)
	return err
}

func (t *inProcess) SetNotificationHandler(handler func(mcp.JSONRPCNotification)) {
	t.mu.Lock()
	t.handler = handler
	t.mu.Unlock()
}

// deliver hands a server-to-client message to the client's handler.
func (t *inProcess) deliver(msg []byte) {
	t.mu.RLock()
	handler := t.handler
	t.mu.RUnlock()
	var n mcp.JSONRPCNotification
	if handler != nil && json.Unmarshal(msg, &n) == nil {
		handler(n)
	}
}

func (t *inProcess) Close() error { return t.conn.Close() }

func (t *inProcess) GetSessionId() string { return "" }
