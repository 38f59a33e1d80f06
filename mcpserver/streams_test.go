package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skillstore/skillstore/internal/testutil"
)

// listenBody is a 2026-07-28 subscriptions/listen request with id.
func listenBody(id string) string {
	return `{"jsonrpc":"2.0","id":"` + id + `","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + modernMeta + `}}`
}

var listenHeader = map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"}

// stream is a request that may open a long-lived stream.
type stream struct {
	resp *http.Response
	body string // read when the request was refused
	stop context.CancelFunc
}

// openStream sends a request that opens a stream (a GET, a
// subscriptions/listen) and returns once its answer's headers are in; a
// refused one has its body read. close drops the stream; the test's end
// does too.
func openStream(t *testing.T, c *http.Client, method, url, body string, header map[string]string) *stream {
	t.Helper()
	s := dialStream(t, c, method, url, body, header)
	t.Cleanup(s.close)
	return s
}

// mcpRequest is a request to the MCP endpoint, with the headers a client
// sends and header's.
func mcpRequest(ctx context.Context, method, url, body string, header map[string]string) *http.Request {
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		panic(err) // a method or URL the test wrote wrong
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return req
}

// dialStream is openStream without a clean-up that keeps the stream: the
// caller closes it.
func dialStream(t *testing.T, c *http.Client, method, url, body string, header map[string]string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := c.Do(mcpRequest(ctx, method, url, body, header))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s := &stream{resp: resp, stop: cancel}
	if resp.StatusCode != http.StatusOK {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		s.body = string(b)
		s.close()
	}
	return s
}

func (s *stream) open() bool {
	return s.resp.StatusCode == http.StatusOK && strings.HasPrefix(s.resp.Header.Get("Content-Type"), "text/event-stream")
}

func (s *stream) close() {
	s.stop()
	s.resp.Body.Close()
}

// TestStreamCap: subscriptions/listen streams (which need no session) and
// GET streams count against one cap; past it a stream request gets 503
// with Retry-After and a JSON-RPC error naming its id, and closing a
// stream frees its place.
func TestStreamCap(t *testing.T) {
	srv := testServer(t)
	h := srv.HTTPHandler(HTTPOptions{MaxStreams: 3})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close) // after the streams' clean-ups, which run first
	url := ts.URL + "/mcp"
	c := ts.Client()
	get := func(id string) *stream {
		return openStream(t, c, http.MethodGet, url, "", map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"})
	}
	first := openStream(t, c, http.MethodPost, url, listenBody("sub-1"), listenHeader)
	second := openStream(t, c, http.MethodPost, url, listenBody("sub-2"), listenHeader)
	third := get(startSession(t, url))
	for i, s := range []*stream{first, second, third} {
		if !s.open() {
			t.Fatalf("stream %d under the cap: %d %s", i+1, s.resp.StatusCode, s.body)
		}
	}
	refused := openStream(t, c, http.MethodPost, url, listenBody("sub-4"), listenHeader)
	var e struct {
		ID    string `json:"id"`
		Error struct{ Message string }
	}
	if err := json.Unmarshal([]byte(refused.body), &e); err != nil {
		t.Fatalf("a 4th listen stream: %s: %v", refused.body, err)
	}
	if refused.resp.StatusCode != http.StatusServiceUnavailable || refused.resp.Header.Get("Retry-After") == "" ||
		e.ID != "sub-4" || e.Error.Message != "Too many open streams: this server holds its limit of 3 open streams. Retry later, close streams you do not read, or ask the operator to raise --max-streams" {
		t.Fatalf("a 4th listen stream: %d Retry-After %q %s", refused.resp.StatusCode, refused.resp.Header.Get("Retry-After"), refused.body)
	}
	if s := get(startSession(t, url)); s.resp.StatusCode != http.StatusServiceUnavailable || s.resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a GET stream past the cap: %d %s", s.resp.StatusCode, s.body)
	}
	// The gauges (on /metrics) count them against the cap.
	wantMetrics(t, h, "skillstore_http_streams 3\n", "skillstore_http_streams_max 3\n", "skillstore_http_sessions 2\n", "skillstore_http_sessions_max 1000\n")
	// Requests that open no stream are not refused meanwhile.
	if resp, body := testutil.SendMCP(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"calc"},`+modernMeta+`}}`,
		map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "get_skill"}); resp.StatusCode != http.StatusOK {
		t.Errorf("a call at the stream cap: %d %s", resp.StatusCode, clip([]byte(body)))
	}
	first.close()
	testutil.Eventually(t, "a listen stream after one closed", func() bool {
		return openStream(t, c, http.MethodPost, url, listenBody("sub-6"), listenHeader).open()
	})
}

// TestOneGetStreamPerSession: a legacy session holds one GET stream; a
// second while the first is open gets 409, other sessions are not
// affected, and once the first closes the session may open another.
func TestOneGetStreamPerSession(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprint("stateless=", stateless), func(t *testing.T) {
			srv := testServer(t)
			ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{Stateless: stateless}))
			t.Cleanup(ts.Close) // after the streams' clean-ups, which run first
			url := ts.URL + "/mcp"
			c := ts.Client()
			get := func(id string) *stream {
				return openStream(t, c, http.MethodGet, url, "", map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"})
			}
			id := startSession(t, url)
			first := get(id)
			if !first.open() {
				t.Fatalf("first GET stream: %d %s", first.resp.StatusCode, first.body)
			}
			if s := get(id); s.resp.StatusCode != http.StatusConflict || s.body != `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Conflict: this session already has a GET stream open, and a session holds one; close it before opening another"}}`+"\n" {
				t.Fatalf("second GET stream of one session: %d %s", s.resp.StatusCode, s.body)
			}
			if s := get(startSession(t, url)); !s.open() {
				t.Fatalf("another session's GET stream: %d %s", s.resp.StatusCode, s.body)
			}
			first.close()
			testutil.Eventually(t, "a GET stream after the first closed", func() bool { return get(id).open() })
		})
	}
}

// TestStreamsReleased: 1,000 streams opened and dropped by their client
// leave no place taken under the cap and no goroutines behind.
func TestStreamsReleased(t *testing.T) {
	srv := testServer(t)
	h := srv.streamableHTTP(HTTPOptions{MaxSessions: DefaultMaxSessions, MaxStreams: DefaultMaxStreams, SessionIdleTTL: time.Hour, BodyTimeout: time.Minute})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close) // after the streams' clean-ups, which run first
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 200}}
	defer c.CloseIdleConnections()
	openStream(t, c, http.MethodPost, ts.URL, listenBody("warm"), listenHeader).close()
	c.CloseIdleConnections()
	testutil.Eventually(t, "the warm-up stream released", func() bool { return h.streams.Len() == 0 })
	base := runtime.NumGoroutine()
	// In waves, so the race detector's goroutine limit is not reached.
	const waves, wave = 10, 100
	for w := range waves {
		var open []*stream
		for i := range wave {
			s := openStream(t, c, http.MethodPost, ts.URL, listenBody(fmt.Sprintf("sub-%d-%d", w, i)), listenHeader)
			if !s.open() {
				t.Fatalf("stream %d of wave %d: %d %s", i, w, s.resp.StatusCode, s.body)
			}
			open = append(open, s)
		}
		if n := h.streams.Len(); n != wave {
			t.Fatalf("wave %d: %d streams counted open; want %d", w, n, wave)
		}
		for _, s := range open {
			s.close()
		}
	}
	c.CloseIdleConnections()
	testutil.Eventually(t, "every stream's place released", func() bool { return h.streams.Len() == 0 })
	testutil.Eventually(t, fmt.Sprintf("goroutines back near %d", base), func() bool { return runtime.NumGoroutine() <= base+10 })
}

// TestSessionEviction: at the session cap, initialize evicts the least
// recently used session that is idle, whose id then gets 404; a session
// with a stream open or a call in flight is not evicted, and when every
// session is busy initialize gets 503 with Retry-After.
func TestSessionEviction(t *testing.T) {
	fsys := &stallFS{m: fstest.MapFS{
		"calc/SKILL.md":  {Data: []byte("---\nname: calc\ndescription: d\n---\nbody")},
		"calc/stall.txt": {Data: []byte("never")},
	}, started: make(chan struct{}, 4), ended: make(chan error, 4)}
	srv := serverOver(t, fsys)
	ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{MaxSessions: 2}))
	t.Cleanup(ts.Close) // after the streams' clean-ups, which run first
	url := ts.URL + "/mcp"
	c := ts.Client()
	status := func(id string) int {
		resp, _ := testutil.SendMCP(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"})
		return resp.StatusCode
	}

	a := startSession(t, url)
	b := startSession(t, url)
	status(a) // b is now the least recently used
	cc := startSession(t, url)
	if got := status(b); got != http.StatusNotFound {
		t.Errorf("the evicted session: %d; want 404", got)
	}
	if got := status(a); got != http.StatusOK {
		t.Errorf("the recently used session: %d; want 200", got)
	}

	// a holds a GET stream; cc a call in flight. Neither is evicted.
	stream := openStream(t, c, http.MethodGet, url, "", map[string]string{"Mcp-Session-Id": a, "Mcp-Protocol-Version": "2025-11-25"})
	if !stream.open() {
		t.Fatalf("GET stream: %d %s", stream.resp.StatusCode, stream.body)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"skill://calc/stall.txt"}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Session-Id", cc)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	go c.Do(req)
	select {
	case <-fsys.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the call never started")
	}
	resp, body := testutil.SendMCP(t, http.MethodPost, url, initMsg, nil)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || body != `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Too many sessions: this server holds its limit of 2 live sessions, `+
		`each with a request in flight or a stream open. Retry later, or ask the operator to raise --max-sessions"}}`+"\n" {
		t.Fatalf("initialize with every session busy: %d %s", resp.StatusCode, body)
	}
	cancel() // the call ends: cc is idle again, and the one to evict
	<-fsys.ended
	testutil.Eventually(t, "initialize once a session is idle", func() bool {
		resp, _ := testutil.SendMCP(t, http.MethodPost, url, initMsg, nil)
		return resp.StatusCode == http.StatusOK
	})
	if got := status(cc); got != http.StatusNotFound {
		t.Errorf("the session whose call ended: %d; want 404 (evicted)", got)
	}
	if got := status(a); got != http.StatusOK {
		t.Errorf("the session holding a stream: %d; want 200 (kept)", got)
	}
}

// wantMetrics checks that the endpoint's gauges, as package site shows
// them on /metrics, hold every line of want.
func wantMetrics(t *testing.T, h *Endpoint, want ...string) {
	t.Helper()
	var b strings.Builder
	h.WriteGauges(func(name, _ string, v int64) { fmt.Fprintf(&b, "%s %d\n", name, v) })
	for _, w := range want {
		if !strings.Contains(b.String(), w) {
			t.Errorf("the gauges lack %q", w)
		}
	}
}
