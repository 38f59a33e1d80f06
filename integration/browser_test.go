package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/fixture"
)

var chromium = binPath("SKILLSTORE_IT_CHROMIUM", "/usr/bin/chromium")

// browserPage calls the MCP endpoint from a page with fetch, as a browser
// app would: initialize with a bearer token (a CORS preflight), read the
// session id the server exposes, then call get_skill in that session. It
// posts what happened to /report on its own origin.
var browserPage = template.Must(template.New("page").Parse(`<!doctype html>
<title>skillstore CORS</title>
<script>
const mcp = {{.MCP}}, token = {{.Token}};
const headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "Authorization": "Bearer " + token};
async function post(body, extra) {
  const r = await fetch(mcp, {method: "POST", headers: Object.assign({}, headers, extra), body: JSON.stringify(body)});
  return [r, await r.text()];
}
async function run() {
  const [init] = await post({jsonrpc: "2.0", id: 1, method: "initialize", params: {protocolVersion: "2025-11-25", capabilities: {}, clientInfo: {name: "browser", version: "1"}}});
  const sid = init.headers.get("Mcp-Session-Id");
  const session = {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"};
  await post({jsonrpc: "2.0", method: "notifications/initialized"}, session);
  const [call, text] = await post({jsonrpc: "2.0", id: 2, method: "tools/call", params: {name: "get_skill", arguments: {skill_name: "calculator"}}}, session);
  return {ok: true, status: call.status, session: sid || "", body: text};
}
run().catch(e => ({ok: false, error: String(e)})).then(r =>
  fetch("/report", {method: "POST", body: JSON.stringify(r)}));
</script>`))

type browserReport struct {
	OK      bool   `json:"ok"`
	Status  int    `json:"status"`
	Session string `json:"session"`
	Body    string `json:"body"`
	Error   string `json:"error"`
}

// TestBrowserCORS: headless Chromium, on a page from an origin given to
// --allow-origin, calls the server with a bearer token — the preflight
// succeeds, the session id is readable, the tool answers — while the same
// page from another origin is refused by the browser.
func TestBrowserCORS(t *testing.T) {
	requireBinary(t, chromium, "Chromium (Debian package chromium)")
	ran(t, "Chromium (browser CORS)")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	allowed := fmt.Sprintf("http://app.test:%d", port)
	const token = "browser-cors-token"
	tokenFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokenFile, []byte(token), 0o600)
	mcpURL := serveHTTP(t, "--allow-origin", allowed, "--auth-token-file", tokenFile, "-s", writeSkills(t))

	reports := make(chan browserReport, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		browserPage.Execute(w, map[string]string{"MCP": mcpURL, "Token": token})
	})
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		var rep browserReport
		if err := json.NewDecoder(r.Body).Decode(&rep); err != nil {
			t.Errorf("report: %v", err)
		}
		select {
		case reports <- rep:
		default:
		}
	})
	page := &http.Server{Handler: mux}
	go page.Serve(ln)
	t.Cleanup(func() { page.Close() })

	open := func(origin string) browserReport {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
			"--user-data-dir="+t.TempDir(), "--host-resolver-rules=MAP app.test 127.0.0.1, MAP evil.test 127.0.0.1",
			origin+"/")
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		select {
		case rep := <-reports:
			return rep
		case <-ctx.Done():
			t.Fatalf("no report from the page at %s\n%s", origin, out.String())
		}
		return browserReport{}
	}

	rep := open(allowed)
	var answer struct {
		Result struct {
			Structured struct{ Documentation string } `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(rep.Body), &answer); err != nil || !rep.OK || rep.Status != http.StatusOK || rep.Session == "" ||
		answer.Result.Structured.Documentation != fixture.CalculatorDoc {
		t.Errorf("from the allowed origin %s: %+v (%v)", allowed, rep, err)
	}
	rep = open(fmt.Sprintf("http://evil.test:%d", port))
	if rep.OK || rep.Error != "TypeError: Failed to fetch" {
		t.Errorf("from an origin not allowed: %+v (want the browser to refuse)", rep)
	}
}
