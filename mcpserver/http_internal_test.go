package mcpserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"context"
)

func post(t *testing.T, url, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// TestStatelessFastPath checks which path answers a stateless tools/call:
// the dispatcher's encoder for the versions it serves, mcp-go otherwise,
// with the same decoded result either way.
func TestStatelessFastPath(t *testing.T) {
	srv := testServer(t)
	ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{Stateless: true}))
	defer ts.Close()
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"calc"}}}`
	var req request
	json.Unmarshal([]byte(call), &req)
	want := string(appendToolResponse(nil, req.ID, srv.tools.Run(context.Background(), "get_skill", req.Params.Arguments), nil))

	_, fast := post(t, ts.URL+"/mcp", call, map[string]string{"MCP-Protocol-Version": "2025-06-18"})
	if fast != want {
		t.Errorf("2025-06-18 was not answered by the fast path:\n%s", fast)
	}
	_, slow := post(t, ts.URL+"/mcp", call, map[string]string{"MCP-Protocol-Version": "2026-07-28"})
	if slow == want {
		t.Error("2026-07-28 must go through mcp-go")
	}
	for _, version := range []string{"2025-06-18", ""} { // no header means 2025-03-26
		_, got := post(t, ts.URL+"/mcp", call, map[string]string{"MCP-Protocol-Version": version})
		var a, b map[string]any
		json.Unmarshal([]byte(got), &a)
		json.Unmarshal([]byte(want), &b)
		if a["result"] == nil || a["id"] != b["id"] {
			t.Errorf("version %q: %s", version, got)
		}
	}
	// Requests the fast path leaves alone still work.
	if _, got := post(t, ts.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{"MCP-Protocol-Version": "2025-06-18"}); !strings.Contains(got, `"get_skill"`) {
		t.Errorf("tools/list: %s", got)
	}
	// DNS rebinding is refused before any answer.
	resp, got := post(t, ts.URL+"/mcp", call, map[string]string{"MCP-Protocol-Version": "2025-06-18", "Host": "evil.example:80"})
	if resp.StatusCode != http.StatusForbidden || strings.Contains(got, "documentation") {
		t.Errorf("rebinding: %d %s", resp.StatusCode, got)
	}
}

// TestMetrics checks /metrics after calls through mcp-go and the fast path.
func TestMetrics(t *testing.T) {
	srv := testServer(t)
	ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{Stateless: true}))
	defer ts.Close()
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"calc"}}}`
	bad := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"nope"}}}`
	post(t, ts.URL+"/mcp", call, map[string]string{"MCP-Protocol-Version": "2025-06-18"}) // fast path
	post(t, ts.URL+"/mcp", call, map[string]string{"MCP-Protocol-Version": "2025-06-18"})
	post(t, ts.URL+"/mcp", bad, map[string]string{"MCP-Protocol-Version": "2025-06-18"})
	srv.mcp.HandleMessage(context.Background(), []byte(call)) // mcp-go path
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(b)
	for _, want := range []string{
		`skillstore_tool_call_duration_seconds_count{tool="get_skill",outcome="ok"} 3`,
		`skillstore_tool_call_duration_seconds_count{tool="get_skill",outcome="error"} 1`,
		`skillstore_tool_call_duration_seconds_bucket{tool="get_skill",outcome="ok",le="+Inf"} 3`,
		`skillstore_http_requests_total{path="/mcp",code="200"} 3`,
		`skillstore_cache_hits_total `,
		`skillstore_backend_reads_total 1`,
		`skillstore_skills 2`,
		"# TYPE skillstore_cache_bytes gauge",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q:\n%s", want, text)
		}
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("content type %q", ct)
	}
}
