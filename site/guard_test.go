package site_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/site"
)

// TestSlowBodies: a request without credentials gets 401 and its
// connection is closed at once, body unread; an authenticated body that
// trickles is cut off after BodyTimeout, and the connection closed.
func TestSlowBodies(t *testing.T) {
	srv := testServer(t)
	ts := httptest.NewServer(site.New(srv, site.Options{AuthToken: "tok", BodyTimeout: 300 * time.Millisecond}))
	defer ts.Close()
	addr := strings.TrimPrefix(ts.URL, "http://")
	for _, tc := range []struct {
		name, auth string
		status     string
	}{{"unauthenticated", "", "401"}, {"authenticated", "Authorization: Bearer tok\r\n", "408"}} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n%s\r\n{", addr, tc.auth)
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		got, err := io.ReadAll(conn) // ends only when the server closes
		conn.Close()
		if err != nil {
			t.Fatalf("%s: the connection stayed open: %v", tc.name, err)
		}
		if !strings.HasPrefix(string(got), "HTTP/1.1 "+tc.status) {
			t.Errorf("%s: %.200s", tc.name, got)
		}
	}
}

// TestCORS: a browser page from an allowed origin gets its preflight
// answered without credentials, and its calls' answers readable; other
// origins are refused.
func TestCORS(t *testing.T) {
	srv := testServer(t)
	ts := httptest.NewServer(site.New(srv, site.Options{AuthToken: "tok", AllowedOrigins: []string{"https://app.example"}}))
	defer ts.Close()
	pre, err := http.NewRequest(http.MethodOptions, ts.URL+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	pre.Header.Set("Origin", "https://app.example")
	pre.Header.Set("Access-Control-Request-Method", "POST")
	pre.Header.Set("Access-Control-Request-Headers", "authorization, content-type, mcp-protocol-version")
	resp, err := http.DefaultClient.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h := resp.Header
	if resp.StatusCode != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "https://app.example" ||
		h.Get("Access-Control-Allow-Headers") != "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID" ||
		h.Get("Access-Control-Allow-Methods") != "POST, GET, DELETE, OPTIONS" {
		t.Errorf("preflight: %d %v", resp.StatusCode, h)
	}
	resp, body := testutil.SendMCP(t, http.MethodPost, ts.URL+"/mcp", initMsg, map[string]string{"Origin": "https://app.example", "Authorization": "Bearer tok"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" ||
		resp.Header.Get("Access-Control-Expose-Headers") != "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate" {
		t.Errorf("call: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	pre.Header.Set("Origin", "https://evil.example")
	if resp, err := http.DefaultClient.Do(pre); err != nil || resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("foreign preflight: %v %v", resp, err)
	}
}
