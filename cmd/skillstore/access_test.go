package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/auth"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
)

// TestServeAuthFlags: combinations of the identity flags that cannot
// work are refused before anything starts, naming what to do.
func TestServeAuthFlags(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	tokens := filepath.Join(t.TempDir(), "tokens.yaml")
	os.WriteFile(tokens, []byte("tokens:\n  - sha256: "+auth.HashToken("s3cret-static")+"\n    subject: ci\n"), 0o600)
	badTokens := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(badTokens, []byte("tokens:\n  - sha256: s3cret-static\n    subject: ci\n"), 0o600)
	shared := filepath.Join(t.TempDir(), "shared")
	os.WriteFile(shared, []byte("s3cret-shared\n"), 0o600)
	tests := []struct {
		name string
		args []string
		err  string
	}{
		{"issuer without http", []string{"--oauth-issuer", "https://login.example.com", "--resource", "https://x/mcp"}, "need --http"},
		{"issuer without resource", []string{"--http", "127.0.0.1:0", "--oauth-issuer", "https://login.example.com"}, "need --resource URL"},
		{"token file without resource", []string{"--http", "127.0.0.1:0", "--token-file", tokens}, "need --resource URL"},
		{"resource alone", []string{"--http", "127.0.0.1:0", "--resource", "https://x/mcp"}, "need --oauth-issuer or --token-file"},
		{"shared token beside principals", []string{"--http", "127.0.0.1:0", "--token-file", tokens, "--resource", "https://x/mcp", "--auth-token-file", shared}, "cannot be combined"},
		{"token file unreadable", []string{"--http", "127.0.0.1:0", "--token-file", tokens + ".missing", "--resource", "https://x/mcp"}, "reading --token-file"},
		{"token file invalid", []string{"--http", "127.0.0.1:0", "--token-file", badTokens, "--resource", "https://x/mcp"}, "--token-file bad.yaml: static tokens: line 2"},
		{"resource relative", []string{"--http", "127.0.0.1:0", "--token-file", tokens, "--resource", "/mcp"}, "--resource"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := run(t, nil, append([]string{"serve", "-s", dir}, tt.args...)...)
			if code != 1 || !strings.Contains(errOut, tt.err) {
				t.Errorf("exit %d; stderr %s; want %q", code, errOut, tt.err)
			}
			for _, secret := range []string{"s3cret", os.TempDir() + "/"} {
				if strings.Contains(errOut, secret) {
					t.Errorf("stderr holds %q: %s", secret, errOut)
				}
			}
		})
	}
}

// startServe starts serve with args on a free loopback port and returns
// the MCP endpoint's URL and the server's stderr.
func startServe(t *testing.T, args ...string) (string, *testutil.SyncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, binary, append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	errb := &testutil.SyncBuffer{}
	cmd.Stderr = errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		cancel()
	})
	return testutil.WaitForMCPURL(t, errb), errb
}

// httpPost posts body to url with the bearer token (none if "") and
// returns the status, the WWW-Authenticate header and the body.
func httpPost(t *testing.T, url, token, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)
}

// TestServeStaticTokens: serve --token-file --resource authenticates
// /mcp by the tokens file, serves the Protected Resource Metadata, and
// keeps the tokens out of its log.
func TestServeStaticTokens(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	tokens := filepath.Join(t.TempDir(), "tokens.yaml")
	os.WriteFile(tokens, []byte("tokens:\n  - sha256: "+auth.HashToken("s3cret-static")+"\n    subject: ci\n    scopes: [skills:read]\n"), 0o600)
	url, logs := startServe(t, "-s", dir, "--token-file", tokens, "--resource", "https://skills.example.com/mcp", "--oauth-scopes", "skills:read")
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	if code, challenge, _ := httpPost(t, url, "", initialize); code != 401 ||
		challenge != `Bearer resource_metadata="https://skills.example.com/.well-known/oauth-protected-resource/mcp", scope="skills:read"` {
		t.Errorf("no token: %d %q", code, challenge)
	}
	if code, _, body := httpPost(t, url, "s3cret-static", initialize); code != 200 || !strings.Contains(body, `"protocolVersion"`) {
		t.Errorf("static token: %d %s", code, body)
	}
	base := strings.TrimSuffix(url, "/mcp")
	resp, err := http.Get(base + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `{"resource":"https://skills.example.com/mcp","scopes_supported":["skills:read"],"bearer_methods_supported":["header"]}`; string(b) != want {
		t.Errorf("metadata %s; want %s", b, want)
	}
	// The file is reloaded when it changes: a revoked token is refused,
	// a new one accepted, without a restart.
	os.WriteFile(tokens, []byte("tokens:\n  - sha256: "+auth.HashToken("s3cret-new")+"\n    subject: ci\n    scopes: [skills:read]\n"), 0o600)
	testutil.Eventually(t, "the revoked token refused", func() bool {
		code, _, _ := httpPost(t, url, "s3cret-static", initialize)
		return code == 401
	})
	if code, _, body := httpPost(t, url, "s3cret-new", initialize); code != 200 {
		t.Errorf("the new token: %d %s", code, body)
	}
	if strings.Contains(logs.String(), "s3cret") {
		t.Errorf("the log holds the token: %s", logs)
	}
}

// TestServeAccessPolicy: serve --access-policy shows each principal of
// --token-file its own skills, and refuses a policy it cannot read at
// start, naming the line and never the folder.
func TestServeAccessPolicy(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	conf := t.TempDir()
	tokens := filepath.Join(conf, "tokens.yaml")
	os.WriteFile(tokens, []byte("tokens:\n  - {sha256: "+auth.HashToken("s3cret-calc")+", subject: calc-team, groups: [calc]}\n  - {sha256: "+auth.HashToken("s3cret-wx")+", subject: wx-team, groups: [wx]}\n"), 0o600)
	policy := filepath.Join(conf, "policy.yaml")
	os.WriteFile(policy, []byte("default: deny\nrules:\n  - {groups: [calc], sources: [\"*\"], skills: [calculator]}\n  - {groups: [wx], sources: [\"*\"], skills: [weather]}\n"), 0o600)
	bad := filepath.Join(conf, "bad.yaml")
	os.WriteFile(bad, []byte("default: deny\nrules:\n  - {groups: [calc], sources: [\"*\"], skils: [calculator]}\n"), 0o600)

	_, errOut, code := run(t, nil, "serve", "-s", dir, "--access-policy", bad)
	if code != 1 || !strings.Contains(errOut, "bad.yaml:3") || strings.Contains(errOut, conf) {
		t.Errorf("a bad policy: exit %d, %s", code, errOut)
	}

	auditFile := filepath.Join(conf, "audit.log")
	url, logs := startServe(t, "-s", dir, "--token-file", tokens, "--resource", "https://skills.example.com/mcp", "--access-policy", policy, "--audit-log", auditFile)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for token, want := range map[string]string{"s3cret-calc": `"skills":["calculator"]`, "s3cret-wx": `"skills":["weather"]`} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		req, _ = http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Mcp-Session-Id", resp.Header.Get("Mcp-Session-Id"))
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), want) {
			t.Errorf("list_skills for %s: %s; want %s", token[:9], b, want)
		}
	}
	httpPost(t, url, "s3cret-nope", initialize)
	const refused = `"method":"POST /mcp","decision":"deny","reason":"the token is not known"`
	var lines []byte
	testutil.Within(10*time.Second, func() bool {
		lines, _ = os.ReadFile(auditFile)
		return strings.Contains(string(lines), refused)
	})
	if !strings.Contains(string(lines), refused) || strings.Contains(string(lines), "s3cret") {
		t.Errorf("audit log:\n%s", lines)
	}
	if strings.Contains(logs.String(), "s3cret") {
		t.Errorf("the log holds a token: %s", logs)
	}
}

// TestIssuerKeysLogged: an identity provider whose keys cannot be fetched
// when serving starts is logged once, with the failure by its message
// (not as the error itself, which slog's text handler formats with %+v),
// and serving goes on.
func TestIssuerKeysLogged(t *testing.T) {
	issuer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	defer issuer.Close()
	logger, logs := testutil.TextLogByMessage()
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(logger)
	a := &accessFlags{issuer: issuer.URL, resource: "https://skills.example.com/mcp"}
	_, closeAuth, err := a.open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	closeAuth()
	const want = `level=WARN msg="the identity provider's keys could not be fetched yet; tokens are refused and /readyz reports not ready until they are" issuer=ISSUER` +
		` err="discovering the issuer's keys: ISSUER/.well-known/oauth-authorization-server: HTTP status 503\nISSUER/.well-known/openid-configuration: HTTP status 503"` + "\n"
	got := strings.ReplaceAll(logs.String(), issuer.URL, "ISSUER")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
}
