package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/internal/authtest"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
)

// The access tests: the built binary, `skillstore serve --http` as an
// OAuth 2.1 resource server in front of two teams' sources, with an access
// policy and an audit log, against a real authorization server
// (oidc-provider, internal/authtest). The MCP calls go through real
// clients: the official TypeScript SDK's (js/accessclient.mjs, which gets
// its own token with its client-credentials provider) and mcp-go's, with a
// token from the authorization server.

// teamSkills are the two teams' sources, under finance/ and eng/. Every
// finance text holds finMark and every engineering text engMark, so that an
// answer holding the other team's mark betrays one of its skills. eng has a
// ledger of its own, which finance's shadows (finance is the first source)
// for callers who may see finance;
// finance has a skill that does not parse (left out with a problem).
// Each team has skills with files (published in .well-known as archives)
// and one of SKILL.md alone (published as that file).
func teamSkills() map[string][]byte {
	skill := func(name, desc, body string) []byte {
		return []byte("---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + body + "\n")
	}
	return map[string][]byte{
		"finance/ledger/SKILL.md":            skill("ledger", "Close the monthly ledger "+finMark+".", "Ledger\nReconcile accounts "+finMark+"."),
		"finance/ledger/references/notes.md": []byte("exchange rates " + finMark + "\n"),
		"finance/payroll/SKILL.md":           skill("payroll", "Run payroll for the month "+finMark+".", "Payroll"),
		"finance/payroll/scripts/run.sh":     []byte("#!/bin/sh\necho payroll " + finMark + "\n"),
		"finance/broken-books/SKILL.md":      []byte("---\nname: [\n---\n" + finMark + "\n"),
		"finance/tax/SKILL.md":               skill("tax", "File the quarterly tax return "+finMark+".", "Tax"),
		"eng/deploy/SKILL.md":                skill("deploy", "Deploy a service to production "+engMark+".", "Deploy"),
		"eng/deploy/scripts/run.sh":          []byte("#!/bin/sh\necho deploy " + engMark + "\n"),
		"eng/review/SKILL.md":                skill("review", "Review a pull request "+engMark+".", "Review"),
		"eng/oncall/SKILL.md":                skill("oncall", "Answer a page while on call "+engMark+".", "On call"),
		"eng/review/references/notes.md":     []byte("checklist " + engMark + "\n"),
		"eng/ledger/SKILL.md":                skill("ledger", "Engineering's ledger of changes "+engMark+".", "Change ledger "+engMark),
		"eng/ledger/references/notes.md":     []byte("changes " + engMark + "\n"),
	}
}

// The teams' marks.
const (
	finMark = "FINMARK"
	engMark = "ENGMARK"
)

// accessTeam is what one caller (an authtest client) may see.
type accessTeam struct {
	client  string
	visible []string // the skills it sees, sorted
	hidden  []string // skills that exist (served, shadowed, or left out with a problem) it may not see
	foreign []string // text only the other team's answers may hold
	own     string   // the skill of its own the notification test changes
}

var accessTeams = []accessTeam{
	{authtest.FinanceClient, []string{"ledger", "payroll", "tax"}, []string{"deploy", "oncall", "review"}, []string{engMark, `"eng"`}, "payroll"},
	// finance, which eng may see nothing of, takes no part in its
	// layering: eng sees its own ledger, which finance's shadows for others.
	{authtest.EngClient, []string{"deploy", "ledger", "oncall", "review"}, []string{"broken-books", "payroll", "tax"}, []string{finMark, "finance"}, "deploy"},
}

// missingSkill is a skill that exists nowhere.
const missingSkill = "no-such-skill"

// accessWorld is a binary's setting: its sources, policy and audit log,
// the URL it will listen at, and the authorization server for it.
type accessWorld struct {
	base   string // http://127.0.0.1:PORT
	url    string // the MCP endpoint, also --resource
	addr   string
	root   string // the sources' folder
	policy string // the policy file
	audit  string // the audit log
	issuer *authtest.Server
	logs   *testutil.SyncBuffer // the binary's stderr
}

// accessForeignResource is a resource the authorization server also
// issues tokens for: not this server.
const accessForeignResource = "https://other.example/mcp"

// newAccessWorld writes the teams' sources and the policy, picks the
// server's address and starts the authorization server for it (with
// authtest's default clients); serve starts the binary.
func newAccessWorld(t *testing.T) *accessWorld {
	t.Helper()
	requireBinary(t, binary, "the skillstore binary")
	w := &accessWorld{root: t.TempDir()}
	testutil.WriteTree(t, w.root, teamSkills())
	cfg := t.TempDir()
	w.policy, w.audit = filepath.Join(cfg, "policy.yaml"), filepath.Join(cfg, "audit.jsonl")
	if err := os.WriteFile(w.policy, []byte(fixture.TeamPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	w.addr = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	w.base = "http://" + w.addr
	w.url = w.base + "/mcp"
	w.issuer = authtest.Start(t, authtest.Options{Resources: []string{w.url, accessForeignResource}})
	t.Logf("authorization server started in %v", w.issuer.StartTime.Round(time.Millisecond))
	return w
}

// serve starts the binary on w's address, for w's issuer and resource,
// over the two sources, with the policy, the audit log and extra flags;
// it is stopped when the test ends.
func (w *accessWorld) serve(t *testing.T, extra ...string) {
	t.Helper()
	args := append([]string{"serve", "--http", w.addr, "--log-level", "debug",
		"--source", "finance=" + filepath.Join(w.root, "finance"), "--source", "eng=" + filepath.Join(w.root, "eng"),
		"--oauth-issuer", w.issuer.Issuer, "--resource", w.url,
		"--access-policy", w.policy, "--audit-log", w.audit}, extra...)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, binary, args...)
	w.logs = &testutil.SyncBuffer{}
	cmd.Stderr = w.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		if t.Failed() {
			t.Logf("skillstore's stderr:\n%s", w.logs.String())
		}
	})
	if got := testutil.WaitForMCPURL(t, w.logs); got != w.url {
		t.Fatalf("the server listens at %s, not %s", got, w.url)
	}
}

// reply is what the tests compare of an HTTP answer.
type reply struct {
	Status    int
	Challenge string `json:",omitempty"` // WWW-Authenticate
	Body      string
}

// httpDo sends a request to url with body (GET when ""), and the header
// h (name, value pairs; an Authorization value is sent as given, and two
// of them as two fields).
func httpDo(t *testing.T, url, body string, h ...string) (reply, http.Header) {
	t.Helper()
	method := http.MethodPost
	if body == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(h); i += 2 {
		req.Header.Add(h[i], h[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("%s %s: %v", method, url, err) // not Fatal: called from load goroutines
		return reply{Status: -1}, http.Header{}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{Status: resp.StatusCode, Challenge: resp.Header.Get("WWW-Authenticate"), Body: string(b)}, resp.Header
}

// bearer is the header pair for an access token.
func bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }

// initializeBody opens a legacy session.
const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"it","version":"1"}}}`

// accepted reports whether token opens a session: 200, or else the answer.
func accepted(t *testing.T, w *accessWorld, token string) reply {
	t.Helper()
	got, _ := httpDo(t, w.url, initializeBody, bearer(token)...)
	if got.Status == http.StatusOK {
		return reply{Status: http.StatusOK}
	}
	return got
}

// noTokens fails t if text holds any of tokens, or the payload or the
// signature of one (a JWT's header is shared by every token of a key).
func noTokens(t *testing.T, what, text string, tokens ...string) {
	t.Helper()
	for _, tok := range tokens {
		parts := []string{tok}
		if p := strings.Split(tok, "."); len(p) == 3 {
			parts = append(parts, p[1], p[2])
		}
		for _, p := range parts {
			if len(p) >= 16 && strings.Contains(text, p) {
				t.Errorf("%s holds a token (or part of one)", what)
				return
			}
		}
	}
}

// noHostPath fails t if text names the folder the sources or the
// configuration live in.
func noHostPath(t *testing.T, w *accessWorld, what, text string) {
	t.Helper()
	for _, p := range []string{w.root, filepath.Dir(w.policy)} {
		if strings.Contains(text, p) {
			t.Errorf("%s names a host path: %.300s", what, text)
		}
	}
}

// rpcAnswer is one JSON-RPC answer, from either client: a result or an error.
type rpcAnswer struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcFailure     `json:"error,omitempty"`
}

type rpcFailure struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// text is the answer as one JSON text, for comparisons and searches.
func (a rpcAnswer) text() string {
	b, _ := json.Marshal(a)
	return string(b)
}

// object is the result as a map (nil for an error).
func (a rpcAnswer) object() map[string]any {
	var m map[string]any
	json.Unmarshal(a.Result, &m)
	return m
}

// goCaller is mcp-go's client as one caller, with its token, at one
// protocol version; it records the notifications it receives.
type goCaller struct {
	t       *testing.T
	c       *client.Client
	version string

	mu    sync.Mutex
	notes []mcp.JSONRPCNotification
	noted chan struct{} // signalled on each notification
}

// dialGo connects mcp-go to url with token at version.
func dialGo(t *testing.T, url, token, version string) *goCaller {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	g := &goCaller{t: t, c: c, version: version, noted: make(chan struct{}, 1)}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		g.mu.Lock()
		g.notes = append(g.notes, n)
		g.mu.Unlock()
		select {
		case g.noted <- struct{}{}:
		default:
		}
	})
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: version, ClientInfo: mcp.Implementation{Name: "access-it", Version: "1"},
	}}); err != nil {
		t.Fatalf("initialize at %s: %v", version, err)
	}
	if got := c.ProtocolVersion(); got != version {
		t.Fatalf("mcp-go speaks %s, want %s", got, version)
	}
	return g
}

var goIDs struct {
	sync.Mutex
	n int64
}

// call sends one request, params a JSON object, adding on 2026-07-28 the
// _meta and headers every request carries there (as mcp-go does for the
// methods it knows). A transport error fails the test.
func (g *goCaller) call(method, params string) rpcAnswer {
	g.t.Helper()
	var p map[string]any
	if err := json.Unmarshal([]byte(params), &p); err != nil {
		g.t.Fatalf("params %s: %v", params, err)
	}
	var header http.Header
	if mcp.IsModernProtocol(g.version) {
		p["_meta"] = map[string]any{
			mcp.MetaKeyProtocolVersion:    g.version,
			mcp.MetaKeyClientCapabilities: map[string]any{},
			mcp.MetaKeyClientInfo:         map[string]any{"name": "access-it", "version": "1"},
		}
		encoded, _ := json.Marshal(p)
		header = http.Header{}
		for k, v := range mcp.StandardHeaders(g.version, mcp.MCPMethod(method), encoded) {
			header.Set(k, v)
		}
	}
	goIDs.Lock()
	goIDs.n++
	id := goIDs.n
	goIDs.Unlock()
	resp, err := g.c.GetTransport().SendRequest(context.Background(), transport.JSONRPCRequest{
		JSONRPC: "2.0", ID: mcp.NewRequestId(id), Method: method, Params: p, Header: header})
	if err != nil {
		g.t.Errorf("%s over mcp-go: %v", method, err)
		return rpcAnswer{Error: &rpcFailure{Code: -1, Message: "transport: " + err.Error()}}
	}
	if resp.Error != nil {
		data, _ := json.Marshal(resp.Error.Data)
		if resp.Error.Data == nil {
			data = nil
		}
		return rpcAnswer{Error: &rpcFailure{Code: resp.Error.Code, Message: resp.Error.Message, Data: data}}
	}
	return rpcAnswer{Result: resp.Result}
}

// waitNotes waits until the caller has received n notifications, and
// returns them all; it fails the test after 20 s.
func (g *goCaller) waitNotes(n int) []mcp.JSONRPCNotification {
	g.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		g.mu.Lock()
		notes := append([]mcp.JSONRPCNotification(nil), g.notes...)
		g.mu.Unlock()
		if len(notes) >= n {
			return notes
		}
		select {
		case <-g.noted:
		case <-deadline:
			g.t.Fatalf("mcp-go at %s received %d notifications in 20 s, want %d: %v", g.version, len(notes), n, notes)
		}
	}
}

// tsDriver runs js/accessclient.mjs: the TypeScript SDK's callers.
type tsDriver struct {
	t      *testing.T
	in     io.WriteCloser
	lines  chan string
	next   int
	stderr *testutil.SyncBuffer
}

// startTS starts accessclient.mjs for the MCP endpoint url and the
// issuer, with the client secrets of clients.
func startTS(t *testing.T, url string, issuer *authtest.Server, clients ...string) *tsDriver {
	t.Helper()
	requireJS(t)
	ran(t, "MCP TypeScript SDK client (OAuth client credentials)")
	secrets := map[string]string{}
	for _, c := range clients {
		secrets[c] = issuer.Secret(c)
	}
	env, _ := json.Marshal(secrets)
	cmd := exec.Command(node22, "accessclient.mjs", url, issuer.Issuer)
	cmd.Dir = jsDir
	cmd.Env = append(os.Environ(), "ACCESS_SECRETS="+string(env))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	d := &tsDriver{t: t, lines: make(chan string, 16), stderr: &testutil.SyncBuffer{}}
	cmd.Stderr = d.stderr
	var err error
	if d.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
		close(d.lines)
	}()
	t.Cleanup(func() {
		d.in.Close() // it ends when its stdin closes
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		if t.Failed() {
			t.Logf("accessclient.mjs stderr:\n%s", d.stderr.String())
		}
	})
	return d
}

// do sends one command and decodes its answer into reply.
func (d *tsDriver) do(cmd map[string]any, reply any) {
	d.t.Helper()
	d.next++
	cmd["id"] = d.next
	line, _ := json.Marshal(cmd)
	if _, err := d.in.Write(append(line, '\n')); err != nil {
		d.t.Fatalf("accessclient.mjs: %v\n%s", err, d.stderr.String())
	}
	var got string
	select {
	case l, ok := <-d.lines:
		if !ok {
			d.t.Fatalf("accessclient.mjs ended:\n%s", d.stderr.String())
		}
		got = l
	case <-time.After(60 * time.Second):
		d.t.Fatalf("accessclient.mjs did not answer %s in 60 s", line)
	}
	var head struct {
		ID    int    `json:"id"`
		Fatal string `json:"fatal"`
	}
	if err := json.Unmarshal([]byte(got), &head); err != nil || head.ID != d.next || head.Fatal != "" {
		d.t.Fatalf("accessclient.mjs answered %q to %s: %v %s", got, line, err, head.Fatal)
	}
	if err := json.Unmarshal([]byte(got), reply); err != nil {
		d.t.Fatalf("accessclient.mjs answered %q: %v", got, err)
	}
}

// tsRequest is an HTTP request the TypeScript SDK made.
type tsRequest struct {
	Method, URL, Auth, Resource string
	Status                      int
}

// tsConnection is what connect answers.
type tsConnection struct {
	Requests        []tsRequest
	SessionID       string
	ProtocolVersion string
}

func (d *tsDriver) connect(clientID string) tsConnection {
	d.t.Helper()
	var c tsConnection
	d.do(map[string]any{"op": "connect", "client": clientID}, &c)
	return c
}

// call sends method through clientID's Client.
func (d *tsDriver) call(clientID, method, params string) rpcAnswer {
	d.t.Helper()
	var a rpcAnswer
	d.do(map[string]any{"op": "call", "client": clientID, "method": method, "params": json.RawMessage(params)}, &a)
	return a
}

// tsNote is a notification the TypeScript SDK received.
type tsNote struct {
	Method string         `json:"method"`
	Params map[string]any `json:"params,omitempty"`
}

// waitNotes waits until clientID received n notifications, and returns
// them all; it fails the test if they do not come in 20 s.
func (d *tsDriver) waitNotes(clientID string, n int) []tsNote {
	d.t.Helper()
	var got struct {
		Notifications []tsNote
		TimedOut      bool
	}
	d.do(map[string]any{"op": "wait", "client": clientID, "count": n, "timeoutMs": 20000}, &got)
	if got.TimedOut {
		d.t.Fatalf("%s received %d notifications in 20 s, want %d: %+v", clientID, len(got.Notifications), n, got.Notifications)
	}
	return got.Notifications
}
