package mcpload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// HTTPConn sends requests to a Streamable HTTP endpoint, one POST each
// over kept-alive connections, and reads each answer with the same
// in-place scan as Conn. Do is safe for concurrent use.
type HTTPConn struct {
	url    string
	client *http.Client
	proto  string      // as requested: it decides how requests are encoded
	user   http.Header // Options.Header
	base   http.Header // on every request; fixed once DialHTTP returns
	nextID atomic.Int64
	info   Info
	calls  callCache

	toolsOnce sync.Once
	tools     map[string]*mcp.Tool // for Mcp-Param-* headers
}

// DialHTTP opens a conversation with the MCP endpoint url: initialize
// (keeping the session id a stateful server issues) or, for 2026-07-28,
// server/discover.
func DialHTTP(url string, opts Options) (*HTTPConn, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: 256, DisableCompression: true}
	h := &HTTPConn{
		url:    url,
		client: &http.Client{Transport: tr, Timeout: time.Minute},
		proto:  opts.protocol(),
		user:   opts.Header,
		base: http.Header{
			"Content-Type": {"application/json"},
			"Accept":       {"application/json, text/event-stream"},
		},
	}
	if err := h.open(); err != nil {
		tr.CloseIdleConnections()
		return nil, err
	}
	return h, nil
}

func (h *HTTPConn) open() error {
	method := string(mcp.MethodInitialize)
	if isStateless(h.proto) {
		method = string(mcp.MethodServerDiscover)
		h.base.Set(mcp.HeaderProtocolVersion, h.proto)
	}
	body := openingRequest(h.proto)
	resp, data, err := h.post(body, h.headerFor(method, nil))
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	info, err := parseOpening(h.proto, jsonPayload(resp, data))
	if err != nil {
		return fmt.Errorf("%w (HTTP %d)", err, resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d", method, resp.StatusCode)
	}
	if !isStateless(h.proto) {
		info.SessionID = resp.Header.Get(mcp.HeaderSessionID)
		h.base.Set(mcp.HeaderProtocolVersion, info.Protocol)
		if info.SessionID != "" {
			h.base.Set(mcp.HeaderSessionID, info.SessionID)
		}
		resp, data, err := h.post([]byte(initializedNotification), h.headerFor("", nil))
		if err != nil {
			return fmt.Errorf("notifications/initialized: %w", err)
		}
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("notifications/initialized: HTTP %d: %s", resp.StatusCode, clip(data))
		}
	}
	h.info = info
	return nil
}

// headerFor returns the headers of a request for method with params as
// sent: the connection's, the 2026-07-28 standard ones, then the user's.
func (h *HTTPConn) headerFor(method string, wire []byte) http.Header {
	hdr := h.base.Clone()
	if method != "" {
		for k, v := range mcp.StandardHeaders(h.proto, mcp.MCPMethod(method), wire) {
			hdr.Set(k, v)
		}
	}
	if isStateless(h.proto) && method == string(mcp.MethodToolsCall) {
		var call struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(wire, &call) == nil {
			if tool := h.tool(call.Name); tool != nil {
				for k, v := range mcp.GenerateParamHeaders(tool, wire) {
					hdr.Set(k, v)
				}
			}
		}
	}
	for k, vs := range h.user {
		hdr.Del(k)
		for _, v := range vs {
			hdr.Add(k, v)
		}
	}
	return hdr
}

// tool returns the definition of the tool name, listing the tools once,
// so that tools/call can carry the Mcp-Param-* headers its x-mcp-header
// annotations ask for. A listing that fails leaves them out.
func (h *HTTPConn) tool(name string) *mcp.Tool {
	h.toolsOnce.Do(h.listTools)
	return h.tools[name]
}

func (h *HTTPConn) listTools() {
	tools := map[string]*mcp.Tool{}
	defer func() { h.tools = tools }()
	cursor := ""
	for range 100 {
		var params json.RawMessage
		if cursor != "" {
			params, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		r, err := h.Prepare(string(mcp.MethodToolsList), params)
		if err != nil {
			return
		}
		resp, data, err := h.post(r.body(h.nextID.Add(1)), r.header)
		if err != nil || resp.StatusCode != http.StatusOK {
			return
		}
		var res response
		if json.Unmarshal(jsonPayload(resp, data), &res) != nil || res.err("tools/list") != nil {
			return
		}
		var page struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if json.Unmarshal(res.Result, &page) != nil {
			return
		}
		for _, t := range page.Tools {
			tools[t.Name] = &mcp.Tool{Name: t.Name, RawInputSchema: t.InputSchema}
		}
		if page.NextCursor == "" || page.NextCursor == cursor {
			return
		}
		cursor = page.NextCursor
	}
}

// post sends body and reads the whole answer, for requests outside the load.
func (h *HTTPConn) post(body []byte, hdr http.Header) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header = hdr
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return resp, data, err
}

// jsonPayload returns the JSON-RPC message of an answer: the body, or the
// first data of an event stream that carries an id.
func jsonPayload(resp *http.Response, body []byte) []byte {
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		return body
	}
	var data []byte
	for line := range bytes.Lines(body) {
		line = bytes.TrimRight(line, "\r\n")
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(d, []byte(" "))...)
			continue
		}
		if len(line) == 0 && len(data) > 0 {
			var head response
			if json.Unmarshal(data, &head) == nil && len(head.ID) > 0 && head.Method == "" {
				return data
			}
			data = nil
		}
	}
	return data
}

// Info describes the conversation.
func (h *HTTPConn) Info() Info { return h.info }

// Prepare encodes method with params, and their headers, for this
// connection.
func (h *HTTPConn) Prepare(method string, params json.RawMessage) (*Request, error) {
	suffix, wire, err := encode(h.proto, method, params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return &Request{Method: method, owner: h, suffix: suffix, header: h.headerFor(method, wire)}, nil
}

func (r *Request) body(id int64) []byte {
	b := make([]byte, 0, len(reqPrefix)+20+len(r.suffix))
	b = append(b, reqPrefix...)
	b = strconv.AppendInt(b, id, 10)
	return append(b, r.suffix...)
}

// scanner is a reader for answers of any size, reused across calls.
type scanner struct {
	buf []byte
	m   message
}

var scanners = sync.Pool{New: func() any { return &scanner{buf: make([]byte, 1<<20)} }}

// Do posts r with a new id and reads the whole answer.
func (h *HTTPConn) Do(r *Request) (int, error) {
	if r.owner != h {
		return 0, errors.New("mcpload: request prepared for another connection")
	}
	id := h.nextID.Add(1)
	req, err := http.NewRequest(http.MethodPost, h.url, bytes.NewReader(r.body(id)))
	if err != nil {
		return 0, err
	}
	req.Header = r.header // read-only: net/http does not modify it
	resp, err := h.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	s := scanners.Get().(*scanner)
	defer scanners.Put(s)
	m := &s.m
	m.reset()
	buf := s.buf[:cap(s.buf)]
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			m.scan(buf[:n])
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return m.size, err
		}
	}
	m.done()
	if resp.StatusCode != http.StatusOK || m.isError {
		return m.size, fmt.Errorf("error response (HTTP %d): %s", resp.StatusCode, m.head)
	}
	if rid, ok := findID(m.head); !ok || rid != id {
		if rid, ok = findID(m.tail); !ok || rid != id {
			return m.size, fmt.Errorf("response without id %d: %s", id, m.head)
		}
	}
	return m.size, nil
}

// Call posts tools/call with params (prepared on first use) and reads the
// answer.
func (h *HTTPConn) Call(params json.RawMessage) (int, error) { return h.calls.call(h, params) }

// Close ends a stateful session (DELETE) and closes idle connections.
func (h *HTTPConn) Close() error {
	if h.info.SessionID != "" {
		if req, err := http.NewRequest(http.MethodDelete, h.url, nil); err == nil {
			req.Header = h.headerFor("", nil)
			if resp, err := h.client.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
	}
	h.client.CloseIdleConnections()
	return nil
}
