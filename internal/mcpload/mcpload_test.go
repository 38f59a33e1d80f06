package mcpload

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The test binary doubles as a stdio MCP server for StartWith and
// StartupWith: run with MCPLOAD_TEST_SERVER=stdio it serves testServer on
// its stdin and stdout.
func TestMain(m *testing.M) {
	if os.Getenv("MCPLOAD_TEST_SERVER") == "stdio" {
		stdio := server.NewStdioServer(testServer())
		stdio.SetErrorLogger(log.New(io.Discard, "", 0))
		if err := stdio.Listen(context.Background(), os.Stdin, os.Stdout); err != nil && !errors.Is(err, io.EOF) {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const bigSize = 1<<20 + 300_000 // crosses the 1 MiB read buffer

// testServer is a plain mcp-go server with tools that succeed, fail, check
// the protocol version the server saw or whether it was sent
// notifications/initialized, and route on an x-mcp-header parameter, and
// one resource.
func testServer() *server.MCPServer {
	s := server.NewMCPServer("mcpload-test", "1.2.3",
		server.WithToolCapabilities(false), server.WithResourceCapabilities(false, false))
	var initialized atomic.Bool
	s.AddNotificationHandler("notifications/initialized", func(context.Context, mcp.JSONRPCNotification) {
		initialized.Store(true)
	})
	s.AddTool(mcp.NewTool("handshake", mcp.WithBoolean("want")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if got := initialized.Load(); got != req.GetBool("want", false) {
				return mcp.NewToolResultError(fmt.Sprintf("notifications/initialized received: %v", got)), nil
			}
			return mcp.NewToolResultText("ok"), nil
		})
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})
	s.AddTool(mcp.NewTool("blob", mcp.WithNumber("n")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(strings.Repeat("y", req.GetInt("n", 0))), nil
		})
	// fail's isError comes after its text, past the first read buffer
	// when n is large.
	s.AddTool(mcp.NewTool("fail", mcp.WithNumber("n")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("failed on purpose " + strings.Repeat("z", req.GetInt("n", 0))), nil
		})
	s.AddTool(mcp.NewTool("era", mcp.WithString("want")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			want := req.GetString("want", "")
			got := server.RequestProtocolVersion(ctx)
			if isStateless(want) {
				info := server.RequestProtocolInfoFromContext(ctx)
				if !server.IsModernRequest(ctx) || got != want || info.ClientInfo == nil || info.ClientInfo.Name != "mcpload" || info.ClientCapabilities == nil {
					return mcp.NewToolResultError(fmt.Sprintf("server saw version %q, info %+v; want %s", got, info, want)), nil
				}
			} else if server.IsModernRequest(ctx) || (got != "" && got != want) {
				return mcp.NewToolResultError(fmt.Sprintf("server saw version %q; want %s without _meta", got, want)), nil
			}
			return mcp.NewToolResultText("ok"), nil
		})
	s.AddTool(mcp.NewToolWithRawSchema("routed", "", json.RawMessage(
		`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ran in " + req.GetString("region", "")), nil
		})
	s.AddResource(mcp.NewResource("test://doc", "doc", mcp.WithMIMEType("text/plain")),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: strings.Repeat("d", 10_000)}}, nil
		})
	return s
}

// headerCheck wraps an MCP handler and records what a client must never
// send: a session id, or a 2026-07-28 request without its standard headers.
type headerCheck struct {
	next    http.Handler
	mu      sync.Mutex
	bad     []string
	deletes int
}

func (h *headerCheck) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	if r.Method == http.MethodDelete {
		h.deletes++
	}
	if v := r.Header.Get(mcp.HeaderProtocolVersion); isStateless(v) {
		if r.Header.Get(mcp.HeaderSessionID) != "" {
			h.bad = append(h.bad, "session id on a "+v+" request")
		}
		if r.Header.Get(mcp.HeaderMethod) == "" {
			h.bad = append(h.bad, "no "+mcp.HeaderMethod)
		}
	}
	h.mu.Unlock()
	h.next.ServeHTTP(w, r)
}

func (h *headerCheck) problems() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bad
}

type transport struct {
	name string
	dial func(t *testing.T, opts Options) Caller
}

var transports = []transport{
	{"stdio-process", func(t *testing.T, opts Options) Caller {
		t.Setenv("MCPLOAD_TEST_SERVER", "stdio")
		c, err := StartWith(opts, os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		return c
	}},
	{"stdio-pipe", func(t *testing.T, opts Options) Caller {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		stdio := server.NewStdioServer(testServer())
		stdio.SetErrorLogger(log.New(io.Discard, "", 0))
		go func() {
			stdio.Listen(context.Background(), inR, outW)
			outW.Close()
		}()
		c, err := NewConn(inW, outR, opts)
		if err != nil {
			inW.Close()
			t.Fatal(err)
		}
		return c
	}},
	{"http-stateful", dialHTTP(nil)},
	{"http-stateless", dialHTTP([]server.StreamableHTTPOption{server.WithStateLess(true)})},
}

var lastCheck *headerCheck // of the latest dialHTTP

func dialHTTP(opts []server.StreamableHTTPOption) func(t *testing.T, o Options) Caller {
	return func(t *testing.T, o Options) Caller {
		check := &headerCheck{next: server.NewStreamableHTTPServer(testServer(), opts...)}
		lastCheck = check
		ts := httptest.NewServer(check)
		t.Cleanup(ts.Close)
		c, err := DialHTTP(ts.URL, o)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}

// TestProtocols runs every kind of request, and errors, against an mcp-go
// server over each transport at both protocol eras.
func TestProtocols(t *testing.T) {
	for _, proto := range []string{DefaultProtocol, Stateless} {
		other := Stateless
		if isStateless(proto) {
			other = DefaultProtocol
		}
		for _, tr := range transports {
			t.Run(proto+"/"+tr.name, func(t *testing.T) {
				lastCheck = nil
				c := tr.dial(t, Options{Protocol: proto})
				check := lastCheck
				info := c.Info()
				if info.Protocol != proto || info.Server.Name != "mcpload-test" || info.Server.Version != "1.2.3" {
					t.Errorf("info %+v; want protocol %s, server mcpload-test 1.2.3", info, proto)
				}
				wantSession := tr.name == "http-stateful" && !isStateless(proto)
				if (info.SessionID != "") != wantSession {
					t.Errorf("session id %q; want one: %v", info.SessionID, wantSession)
				}

				for _, tc := range []struct {
					method, params string
					min            int // response bytes at least
					fails          bool
				}{
					{"tools/call", `{"name":"echo","arguments":{"text":"hello"}}`, 50, false},
					{"tools/call", `{"name":"era","arguments":{"want":"` + proto + `"}}`, 20, false},
					{"tools/call", `{"name":"handshake","arguments":{"want":` + fmt.Sprint(!isStateless(proto)) + `}}`, 20, false},
					{"tools/call", ` {
						"name": "blob", "arguments": {"n": ` + fmt.Sprint(bigSize) + `} } `, bigSize, false},
					{"tools/call", `{"name":"routed","arguments":{"region":"eu-west"}}`, 20, false},
					{"resources/read", `{"uri":"test://doc"}`, 10_000, false},
					{"tools/list", ``, 200, false},
					{"resources/list", `{}`, 20, false},
					{"tools/call", `{"name":"era","arguments":{"want":"` + other + `"}}`, 0, true},
					{"tools/call", `{"name":"fail","arguments":{"n":0}}`, 0, true},
					{"tools/call", `{"name":"fail","arguments":{"n":` + fmt.Sprint(bigSize) + `}}`, bigSize, true},
					{"tools/call", `{"name":"no_such_tool","arguments":{}}`, 0, true},
					{"resources/read", `{"uri":"test://missing"}`, 0, true},
					{"no/such_method", `{}`, 0, true},
				} {
					r, err := c.Prepare(tc.method, json.RawMessage(tc.params))
					if err != nil {
						t.Fatalf("%s %s: %v", tc.method, tc.params, err)
					}
					for range 2 { // prepared once, sent twice
						size, err := c.Do(r)
						if (err != nil) != tc.fails || size < tc.min {
							t.Errorf("%s %.70s: %d bytes, error %v; want ≥ %d bytes, failure %v", tc.method, tc.params, size, err, tc.min, tc.fails)
						}
					}
				}

				caller := c.(interface {
					Call(json.RawMessage) (int, error)
				})
				if _, err := caller.Call(json.RawMessage(`{"name":"era","arguments":{"want":"` + proto + `"}}`)); err != nil {
					t.Errorf("Call: %v", err)
				}
				if _, err := caller.Call(json.RawMessage(`{"name":"fail","arguments":{}}`)); err == nil {
					t.Error("Call of a failing tool succeeded")
				}

				echo, err := c.Prepare("tools/call", json.RawMessage(`{"name":"era","arguments":{"want":"`+proto+`"}}`))
				if err != nil {
					t.Fatal(err)
				}
				s, err := Run(context.Background(), c, echo, 4, 150*time.Millisecond)
				if err != nil || s.Calls == 0 || s.P50 <= 0 {
					t.Errorf("Run: %+v, %v", s, err)
				}
				fail, err := c.Prepare("tools/call", json.RawMessage(`{"name":"fail","arguments":{}}`))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := Run(context.Background(), c, fail, 4, 150*time.Millisecond); err == nil {
					t.Error("Run of a failing tool succeeded")
				}

				if check != nil && isStateless(proto) {
					// The headers matter: without Mcp-Name or Mcp-Param-Region
					// the server refuses the call.
					for _, drop := range []string{mcp.HeaderName, "Mcp-Param-Region"} {
						r, err := c.Prepare("tools/call", json.RawMessage(`{"name":"routed","arguments":{"region":"eu-west"}}`))
						if err != nil {
							t.Fatal(err)
						}
						if r.header.Get(drop) == "" {
							t.Errorf("no %s header in %v", drop, r.header)
						}
						r.header = r.header.Clone()
						r.header.Del(drop)
						if _, err := c.Do(r); err == nil {
							t.Errorf("call without %s succeeded", drop)
						}
					}
				}
				c.Close()
				if check != nil {
					if p := check.problems(); len(p) > 0 {
						t.Errorf("requests the server should not have seen: %q", p)
					}
					if wantSession && check.deletes != 1 {
						t.Errorf("Close sent %d DELETEs; want 1", check.deletes)
					}
				}
			})
		}
	}
}

// TestStartup measures a real subprocess at both eras.
func TestStartup(t *testing.T) {
	t.Setenv("MCPLOAD_TEST_SERVER", "stdio")
	for _, proto := range []string{DefaultProtocol, Stateless} {
		d, err := StartupWith(Options{Protocol: proto}, os.Args[0])
		if err != nil || d <= 0 {
			t.Errorf("%s: %v, %v", proto, d, err)
		}
	}
	// Not an MCP server: it answers nothing and exits.
	if _, err := StartupWith(Options{}, "true"); err == nil {
		t.Error("a command that is no server passed")
	}
}

// TestUnsupportedVersion checks that server/discover's list is honoured.
func TestUnsupportedVersion(t *testing.T) {
	ts := httptest.NewServer(server.NewStreamableHTTPServer(testServer(),
		server.WithStreamableHTTPProtocolVersions(mcp.ProtocolVersion20251125)))
	defer ts.Close()
	if c, err := DialHTTP(ts.URL, Options{Protocol: Stateless}); err == nil {
		c.Close()
		t.Error("dialled a server that does not serve " + Stateless)
	}
	c, err := DialHTTP(ts.URL, Options{Protocol: mcp.ProtocolVersion20251125})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

func TestEncode(t *testing.T) {
	meta := string(requestMeta(Stateless))
	for _, tc := range []struct {
		version, params, want string
	}{
		{DefaultProtocol, ``, `,"method":"m"}`},
		{DefaultProtocol, `null`, `,"method":"m"}`},
		{DefaultProtocol, "{\n \"a\" : 1 }", `,"method":"m","params":{"a":1}}`},
		{Stateless, ``, `,"method":"m","params":{"_meta":` + meta + `}}`},
		{Stateless, `{}`, `,"method":"m","params":{"_meta":` + meta + `}}`},
		{Stateless, `{"a":"x\n"}`, `,"method":"m","params":{"_meta":` + meta + `,"a":"x\n"}}`},
		// Keys set in the params' own _meta are kept; the others are added.
		{Stateless, `{"a":1,"_meta":{"io.modelcontextprotocol/logLevel":"debug","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}`,
			`,"method":"m","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"1"},"io.modelcontextprotocol/logLevel":"debug","io.modelcontextprotocol/protocolVersion":"2026-07-28"},"a":1}}`},
	} {
		suffix, _, err := encode(tc.version, "m", json.RawMessage(tc.params))
		if err != nil || string(suffix) != tc.want {
			t.Errorf("%s %q:\n got %s %v\nwant %s", tc.version, tc.params, suffix, err, tc.want)
		}
	}
	if want := `{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`; meta != want {
		t.Errorf("meta %s; want %s", meta, want)
	}
	for _, bad := range []string{`[1]`, `{"_meta":3}`, `{`} {
		if _, _, err := encode(Stateless, "m", json.RawMessage(bad)); err == nil {
			t.Errorf("params %s accepted", bad)
		}
	}
}

// TestMessageScan checks id and error detection across buffer seams.
func TestMessageScan(t *testing.T) {
	body := strings.Repeat("x", 5000)
	tests := []struct {
		line    string
		id      int64
		isError bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + body + `"}]}}`, 7, false},
		{`{"result":{"content":[{"type":"text","text":"` + body + `"}],"isError":true},"jsonrpc":"2.0","id":12}`, 12, true},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad"}}`, 3, true},
		{`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"mentions \"isError\":true inside"}]}}`, 4, false},
	}
	for _, tt := range tests {
		for _, size := range []int{16, 23, 64, 4096} { // seams everywhere
			var m message
			if err := readMessage(bufio.NewReaderSize(strings.NewReader(tt.line+"\n"), size), &m); err != nil {
				t.Fatal(err)
			}
			id, ok := m.id()
			if !ok || id != tt.id || m.isError != tt.isError || m.size != len(tt.line)+1 {
				t.Errorf("buffer %d, %.60s…: id %d ok %v isError %v size %d", size, tt.line, id, ok, m.isError, m.size)
			}
		}
	}
}
