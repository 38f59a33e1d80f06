package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/skillstore/skillstore/internal/testutil"
)

const initMsg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// startSession initializes a stateful session and returns its id.
func startSession(t *testing.T, url string) string {
	t.Helper()
	resp, body := testutil.SendMCP(t, http.MethodPost, url, initMsg, nil)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	if r, b := testutil.SendMCP(t, http.MethodPost, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}); r.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", r.StatusCode, b)
	}
	return id
}

// sessionRequests are one request of each kind, the layer's and mcp-go's.
var sessionRequests = []struct{ name, method, body string }{
	{"tools/list", http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`},
	{"ping", http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"ping"}`},
	{"tools/call", http.MethodPost, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"calc"}}}`},
	{"resources/read", http.MethodPost, `{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"skill://calc/SKILL.md"}}`},
	{"skills/list", http.MethodPost, `{"jsonrpc":"2.0","id":6,"method":"skills/list"}`},
	{"resources/directory/read", http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"resources/directory/read","params":{"uri":"skill://calc"}}`},
	{"notification", http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`},
	{"GET stream", http.MethodGet, ""},
	{"DELETE", http.MethodDelete, ""},
}

// TestSessionLifecycle: on stateful HTTP every method checks the session
// the same way — unknown or ended ids get 404, a missing one 400 — and
// DELETE ends a session for all of them.
func TestSessionLifecycle(t *testing.T) {
	srv := testServer(t)
	ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{}))
	defer ts.Close()
	url := ts.URL + "/mcp"
	v := map[string]string{"Mcp-Protocol-Version": "2025-11-25"}
	with := func(id string) map[string]string {
		return map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Mcp-Session-Id": id}
	}

	live := startSession(t, url)
	for _, r := range sessionRequests[:7] {
		if resp, body := testutil.SendMCP(t, r.method, url, r.body, with(live)); resp.StatusCode/100 != 2 || strings.Contains(body, `"error"`) {
			t.Errorf("%s in a live session: %d %s", r.name, resp.StatusCode, clip([]byte(body)))
		}
	}
	for _, r := range sessionRequests {
		if resp, body := testutil.SendMCP(t, r.method, url, r.body, with("mcp-session-made-up")); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s with a made-up session: %d %s; want 404", r.name, resp.StatusCode, clip([]byte(body)))
		}
		if resp, body := testutil.SendMCP(t, r.method, url, r.body, v); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s without a session: %d %s; want 400", r.name, resp.StatusCode, clip([]byte(body)))
		}
	}
	if resp, body := testutil.SendMCP(t, http.MethodDelete, url, "", with(live)); resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, body)
	}
	for _, r := range sessionRequests {
		if resp, body := testutil.SendMCP(t, r.method, url, r.body, with(live)); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s after DELETE: %d %s; want 404", r.name, resp.StatusCode, clip([]byte(body)))
		}
	}
	// 2026-07-28 requests carry no session and need none, on the same endpoint.
	modern := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "get_skill"}
	resp, body := testutil.SendMCP(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"calc"},`+modernMeta+`}}`, modern)
	var call struct {
		Result struct {
			ResultType string `json:"resultType"`
			IsError    bool   `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &call); err != nil || resp.StatusCode != http.StatusOK || call.Result.ResultType != "complete" || call.Result.IsError {
		t.Errorf("2026-07-28 tools/call: %d %s %v", resp.StatusCode, clip([]byte(body)), err)
	}
	modern["Mcp-Method"] = "server/discover"
	delete(modern, "Mcp-Name")
	resp, body = testutil.SendMCP(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":9,"method":"server/discover","params":{`+modernMeta+`}}`, modern)
	var discover struct {
		Result struct {
			SupportedVersions []string `json:"supportedVersions"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &discover); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("2026-07-28 server/discover: %d %s %v", resp.StatusCode, clip([]byte(body)), err)
	}
	if diff := cmp.Diff([]string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}, discover.Result.SupportedVersions); diff != "" {
		t.Errorf("2026-07-28 server/discover: supportedVersions (-want +got):\n%s", diff)
	}
}

// TestSessionCap: live sessions never exceed MaxSessions — past it,
// initialize evicts an idle session (TestSessionEviction has the details) —
// and a stateless endpoint caps nothing.
func TestSessionCap(t *testing.T) {
	srv := testServer(t)
	h := srv.streamableHTTP(HTTPOptions{MaxSessions: 2, MaxStreams: 10, SessionIdleTTL: time.Hour, BodyTimeout: time.Minute})
	ts := httptest.NewServer(h)
	defer ts.Close()
	for range 5 {
		startSession(t, ts.URL)
		if n := h.sessions.Len(); n > 2 {
			t.Fatalf("%d live sessions; the cap is 2", n)
		}
	}
	stateless := httptest.NewServer(srv.HTTPHandler(HTTPOptions{Stateless: true, MaxSessions: 1}))
	defer stateless.Close()
	for range 3 {
		if resp, body := testutil.SendMCP(t, http.MethodPost, stateless.URL+"/mcp", initMsg, nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("stateless initialize: %d %s", resp.StatusCode, body)
		}
	}
}

// TestIdleSessionsEnd: a session idle past SessionIdleTTL ends, and its
// place under the cap is free again (under a cap of 2, nothing is evicted
// to make room: the TTL alone ends it). It runs on synctest's fake clock,
// the handler called in process (a real listener has no place in a
// bubble): the sleep takes no real time.
func TestIdleSessionsEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := testServer(t).HTTPHandler(HTTPOptions{SessionIdleTTL: 100 * time.Millisecond, MaxSessions: 2})
		post := func(body, session string) *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if session != "" {
				req.Header.Set("Mcp-Session-Id", session)
				req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			return w
		}
		start := func() string {
			w := post(initMsg, "")
			id := w.Header().Get("Mcp-Session-Id")
			if w.Code != http.StatusOK || id == "" {
				t.Fatalf("initialize: %d %s", w.Code, w.Body)
			}
			if w := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, id); w.Code != http.StatusAccepted {
				t.Fatalf("initialized: %d %s", w.Code, w.Body)
			}
			return id
		}
		idle := start()
		time.Sleep(250 * time.Millisecond) // fake time: past SessionIdleTTL
		fresh := start()                   // the sweep runs on this request and frees the place
		if n := h.h.sessions.Len(); n != 1 {
			t.Errorf("%d live sessions; want the fresh one alone", n)
		}
		if w := post(sessionRequests[0].body, idle); w.Code != http.StatusNotFound {
			t.Errorf("idle session: %d; want 404", w.Code)
		}
		if w := post(sessionRequests[0].body, fresh); w.Code != http.StatusOK {
			t.Errorf("fresh session: %d %s", w.Code, w.Body)
		}
	})
}

// TestClosedRequestCancelsRead: a client that closes its HTTP request ends
// the call, down to the backend read.
func TestClosedRequestCancelsRead(t *testing.T) {
	fsys := &stallFS{m: fstest.MapFS{
		"calc/SKILL.md":  {Data: []byte("---\nname: calc\ndescription: d\n---\nbody")},
		"calc/stall.txt": {Data: []byte("never")},
	}, started: make(chan struct{}, 4), ended: make(chan error, 4)}
	srv := serverOver(t, fsys)
	for _, stateless := range []bool{true, false} {
		ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{Stateless: stateless}))
		header := map[string]string{"Mcp-Protocol-Version": "2025-11-25"}
		if !stateless {
			header["Mcp-Session-Id"] = startSession(t, ts.URL+"/mcp")
		}
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"skill://calc/stall.txt"}}`))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		go http.DefaultClient.Do(req)
		select {
		case <-fsys.started:
		case <-time.After(5 * time.Second):
			t.Fatal("the read never started")
		}
		cancel()
		select {
		case err := <-fsys.ended:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("backend read ended with %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("stateless=%v: closing the request did not reach the backend read", stateless)
		}
		ts.Close()
	}
}

// TestStatelessSessions: a stateless endpoint hands out session ids but
// accepts any (another replica may have issued it) or none, except one
// ended here by DELETE, which every method then refuses alike.
func TestStatelessSessions(t *testing.T) {
	srv := testServer(t)
	ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{Stateless: true}))
	defer ts.Close()
	url := ts.URL + "/mcp"
	with := func(id string) map[string]string {
		h := map[string]string{"Mcp-Protocol-Version": "2025-11-25"}
		if id != "" {
			h["Mcp-Session-Id"] = id
		}
		return h
	}
	id := startSession(t, url)
	for _, sid := range []string{id, "", "mcp-session-from-another-replica"} {
		for _, r := range sessionRequests[:7] {
			if resp, body := testutil.SendMCP(t, r.method, url, r.body, with(sid)); resp.StatusCode/100 != 2 || strings.Contains(body, `"error"`) {
				t.Errorf("%s with session %q: %d %s", r.name, sid, resp.StatusCode, clip([]byte(body)))
			}
		}
	}
	if resp, body := testutil.SendMCP(t, http.MethodDelete, url, "", with(id)); resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, body)
	}
	for _, r := range sessionRequests {
		if resp, body := testutil.SendMCP(t, r.method, url, r.body, with(id)); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s after DELETE: %d %s; want 404", r.name, resp.StatusCode, clip([]byte(body)))
		}
	}
}

// TestStatelessKeepsNothing: initialize on a stateless endpoint leaves no
// session behind, and ids ended by DELETE are remembered within bounds.
func TestStatelessKeepsNothing(t *testing.T) {
	srv := testServer(t)
	h := srv.streamableHTTP(HTTPOptions{Stateless: true, MaxSessions: 10, SessionIdleTTL: time.Hour})
	ts := httptest.NewServer(h)
	defer ts.Close()
	for range 50 {
		startSession(t, ts.URL)
	}
	if n := h.sessions.Len(); n != 0 {
		t.Errorf("%d sessions kept after stateless initializes", n)
	}
	long := "mcp-session-" + strings.Repeat("x", 4000)
	testutil.SendMCP(t, http.MethodDelete, ts.URL, "", map[string]string{"Mcp-Session-Id": long, "Mcp-Protocol-Version": "2025-11-25"})
	h.sessions.mu.Lock()
	_, kept := h.sessions.ended[long]
	h.sessions.mu.Unlock()
	if kept {
		t.Error("a 4 KB made-up id was remembered")
	}
	// A malformed notification gets 202 and no body, like any notification.
	resp, body := testutil.SendMCP(t, http.MethodPost, ts.URL, `{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}`, nil)
	if resp.StatusCode != http.StatusAccepted || body != "" {
		t.Errorf("malformed notification: %d %q", resp.StatusCode, body)
	}
}
