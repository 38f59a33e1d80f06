package main

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
)

// TestServeAllowHost: behind a reverse proxy on the same host that keeps
// the client's Host, a loopback listener answers the names --allow-host
// lists, on every path, and still refuses others (DNS rebinding).
func TestServeAllowHost(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "serve", "--http", "127.0.0.1:0", "--allow-host", "skills.example.com", "--allow-host", "mcp.example.com:443", "-s", dir)
	var errb testutil.SyncBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(testutil.WaitForMCPURL(t, &errb), "/mcp")
	for _, tt := range []struct {
		host, path string
		want       int
	}{
		{"skills.example.com", "/healthz", 200},
		{"skills.example.com:8443", "/readyz", 200},
		{"skills.example.com", "/", 200},
		{"mcp.example.com:443", "/readyz", 200},
		{"mcp.example.com", "/readyz", 403},
		{"evil.example", "/healthz", 403},
		{"evil.example", "/", 403},
	} {
		req, err := http.NewRequest(http.MethodGet, base+tt.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = tt.host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("Host %q, GET %s: status %d, want %d", tt.host, tt.path, resp.StatusCode, tt.want)
		}
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Errorf("graceful shutdown: %v\n%s", err, errb.String())
	}
}
