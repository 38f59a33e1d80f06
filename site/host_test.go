package site_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/servertest"
	"github.com/skillstore/skillstore/site"
)

// TestHostHeader checks which Host headers each kind of listener accepts,
// with and without AllowedHosts (--allow-host): a loopback listener
// refuses other names (DNS rebinding) unless listed, which is what a
// reverse proxy or sidecar on the same host needs; a listener reached on
// another address accepts any Host until a list is given, then only
// listed and loopback ones; the probes answer a Host that is an IP
// address (a kubelet's) whatever the list.
func TestHostHeader(t *testing.T) {
	const (
		loopback4 = "127.0.0.1:8080" // a loopback listener, or --http 0.0.0.0:8080 reached through 127.0.0.1 (a proxy or sidecar on the host)
		loopback6 = "[::1]:8080"
		podIP     = "10.1.2.3:8080" // a 0.0.0.0 listener reached from another machine
	)
	proxied := []string{"skills.example.com"}
	tests := []struct {
		listener, host string
		allow          []string
		probes, others int // /healthz and /readyz; /metrics and /mcp (with the token)
	}{
		{loopback4, "127.0.0.1:8080", nil, 200, 200},
		{loopback4, "localhost", nil, 200, 200},
		{loopback4, "localhost:8080", proxied, 200, 200},
		{loopback4, "skills.example.com", nil, 403, 403},
		{loopback4, "evil.example:8080", nil, 403, 403},
		{loopback4, "10.1.2.3:8080", nil, 200, 403},
		{loopback4, "skills.example.com", proxied, 200, 200},
		{loopback4, "skills.example.com:443", proxied, 200, 200},
		{loopback4, "Skills.Example.COM.", proxied, 200, 200},
		{loopback4, "evil.example", proxied, 403, 403},
		{loopback4, "skills.example.com.evil.example", proxied, 403, 403},
		{loopback4, "skills.example.com:443", []string{"skills.example.com:443"}, 200, 200},
		{loopback4, "skills.example.com:8443", []string{"skills.example.com:443"}, 403, 403},
		{loopback4, "skills.example.com", []string{"skills.example.com:443"}, 403, 403},
		{loopback4, "[fd00::1]:8080", []string{"[fd00::1]"}, 200, 200},
		{loopback6, "[::1]:8080", nil, 200, 200},
		{loopback6, "skills.example.com", nil, 403, 403},
		{loopback6, "skills.example.com", proxied, 200, 200},
		{podIP, "skills.example.com", nil, 200, 200},
		{podIP, "10.1.2.3:8080", nil, 200, 200},
		{podIP, "10.1.2.3:8080", proxied, 200, 403},
		{podIP, "[fd00::5]:8080", proxied, 200, 403},
		{podIP, "evil.example", proxied, 403, 403},
		{podIP, "skills.example.com", proxied, 200, 200},
		{podIP, "localhost:8080", proxied, 200, 200},
	}
	srv := servertest.New(t, fixture.MapFS())
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tt := range tests {
		h := site.New(srv, site.Options{AuthToken: "tok", Stateless: true, AllowedHosts: tt.allow})
		local, err := net.ResolveTCPAddr("tcp", tt.listener)
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/healthz", "/readyz", "/metrics", "/mcp"} {
			want := tt.others
			if path == "/healthz" || path == "/readyz" {
				want = tt.probes
			}
			req := httptest.NewRequest(http.MethodGet, path, nil)
			if path == "/mcp" {
				req = httptest.NewRequest(http.MethodPost, path, strings.NewReader(initialize))
				req.Header.Set("Authorization", "Bearer tok")
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
			}
			req.Host = tt.host
			req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, local))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != want {
				t.Errorf("listener %s, Host %q, allowed %q, %s: status %d (%s); want %d", tt.listener, tt.host, tt.allow, path, rec.Code, strings.TrimSpace(rec.Body.String()), want)
			}
			if rec.Code == http.StatusForbidden && !strings.Contains(rec.Body.String(), "--allow-host") {
				t.Errorf("listener %s, Host %q, %s: the refusal does not say how to accept the name: %s", tt.listener, tt.host, path, rec.Body.String())
			}
		}
	}
}
