package mcpserver

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/audit"
	"github.com/skillstore/skillstore/auth"
	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/discovery"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// A skill the caller may not see is indistinguishable from one that does
// not exist (issue 20), on every surface, transport and protocol version.
// One case table — the hidden skills, each hidden another way — is driven
// through every operation, as os/root_test.go drives its cases through
// every Root method, and every answer is compared whole: the HTTP status
// and the headers that can differ, and the body byte for byte (over stdio,
// the line). Two proofs:
//
//   - hidden is missing: within one server, a request naming a hidden
//     skill is answered as the same request naming a skill that exists
//     nowhere, of the same length, once the name is substituted;
//   - hidden is absent: a server holding the hidden skills and one where
//     they were never written answer every request alike — lists,
//     searches, completions, the .well-known index and archives, reads of
//     the caller's own skills and of the hidden names — so no count,
//     digest, entity tag, length, ranking or note betrays them.
//
// The mcptest harness was not used: it drives an mcp-go client over the
// fixture, which decodes answers (losing bytes, statuses and headers) and
// has no access policy.

// hidViewer and hidAdmin are the callers' static tokens: the viewer sees
// the team's skills and the open ones of the mixed source; the admin sees
// everything. Neither may appear in an answer.
const (
	hidViewer = "viewer-tok-3b8e51d2a7"
	hidAdmin  = "admin-tok-c64f09e1b5"
)

// hidPolicy is the access policy of the tests: stdio serves the viewer.
const hidPolicy = `default: deny
rules:
  - groups: [team]
    sources: [team]
    skills: ["*"]
  - sources: [mixed, cover]
    skills: ["open-*"]
  - groups: [admin]
    sources: ["*"]
    skills: ["*"]
stdio:
  subject: viewer
  groups: [team]
`

// hidDoc is a SKILL.md.
func hidDoc(name, description, body string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body
}

// hidSources are the sources, in priority order, and their files. The
// viewer may see team's, and mixed's and cover's open-* (cover has none:
// its twin shadows team's); upper, lower, flaky and down are hidden
// whole, and take no part in the viewer's layering. How each hidden skill is hidden is hidNames'.
var hidSources = []struct {
	label string
	files map[string]string // nil: the source cannot be listed
}{
	{"upper", map[string]string{
		"vault/SKILL.md":            hidDoc("vault", "Guard the quarterly keys.", "# Vault\nRotate the quarterly keys; see references/notes.md.\n"),
		"vault/references/notes.md": "Keys rotate on the first Monday.",
		"vault/assets/logo.png":     "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"vault/scripts/run.sh":      "#!/bin/sh\necho rotate\n",
		"vault/.env":                "KEY=1\n",
		"wreck/SKILL.md":            "---\nname: [\n---\n",
		"husk/README.md":            "A folder without SKILL.md.",
		"stray/SKILL.md":            hidDoc("other", "Its frontmatter names another skill.", "# Stray\n"),
		"flaw/SKILL.md":             "---\nname: flaw\ndescription: [upper\n---\n",
	}},
	{"cover", map[string]string{
		"twin/SKILL.md": hidDoc("twin", "Cover's copy, served over the team's.", "# Twin\nCover instructions.\n"),
	}},
	{"team", map[string]string{
		"mask/SKILL.md":             hidDoc("mask", "Draft the release notes.", "# Mask\nDraft the release notes; see references/style.md.\n"),
		"mask/references/style.md":  "Short sentences.",
		"mask/assets/logo.png":      "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"atlas/SKILL.md":            hidDoc("atlas", "Map the quarterly roadmap.", "# Atlas\nMap the roadmap for the quarter.\n"),
		"twin/SKILL.md":             hidDoc("twin", "The team's copy, shadowed.", "# Twin\nTeam instructions.\n"),
		"twin/references/notes.md":  "team twin notes",
		"atlas/references/notes.md": "roadmap notes",
		"flaw/SKILL.md":             "---\nname: flaw\n---\n# Flaw\nThe team's copy has no description.\n",
		"north/SKILL.md":            hidDoc("north", "Chart the northern route.", "# North\nChart the route.\n"),
		"south/SKILL.md":            hidDoc("south", "Chart the southern route.", "# South\nChart the route.\n"),
	}},
	{"mixed", map[string]string{
		"open-plan/SKILL.md": hidDoc("open-plan", "Plan the office move.", "# Open plan\nPlan the move.\n"),
		"shut-plan/SKILL.md": hidDoc("shut-plan", "Plan the office closure.", "# Shut plan\nPlan the closure; plan it twice.\n"),
	}},
	{"lower", map[string]string{
		"mask/SKILL.md":   hidDoc("mask", "Lower copy, shadowed by the team's.", "# Mask\nLower instructions.\n"),
		"cellar/SKILL.md": hidDoc("cellar", "Keep the release archive of the northern office.", "# Cellar\nKeep every northern release, northern notes and northern plans.\n"),
	}},
	{"flaky", map[string]string{
		"ghost/SKILL.md":            hidDoc("ghost", "Haunt the quarterly review.", "# Ghost\nSee references/notes.md.\n"),
		"ghost/references/notes.md": "ghost notes",
	}},
	{"down", nil},
}

// hidNames are the hidden skills, each hidden another way.
var hidNames = []struct{ name, how string }{
	{"vault", "served from a hidden source, with text, binary, hidden and nested files"},
	{"wreck", "left out with a problem in a hidden source: its SKILL.md does not parse"},
	{"husk", "a folder of a hidden source without SKILL.md"},
	{"stray", "served from a hidden source, breaking the specification"},
	{"twin", "served from a source the caller may see, hidden by its name, over the caller's own copy, which it shadows"},
	{"shut-plan", "served from a source the caller may see, hidden by its name"},
	{"cellar", "served from a hidden source below the caller's"},
	{"ghost", "served from a hidden source whose reads fail"},
}

// hidVisible are the caller's own skills: mask shadows a hidden copy;
// flaw is left out with a problem, and so is a copy in upper, hidden,
// which the catalog lists first.
var hidVisible = []string{"mask", "atlas", "open-plan", "flaw"}

// hidMissing is a name of the same length as name that exists nowhere.
func hidMissing(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' {
			return r
		}
		return 'q'
	}, name)
}

// hidSeen reports whether the viewer sees the skill of source label in
// the world holding every skill: a world without the hidden skills keeps
// exactly these (and not team's twin, which upper's shadows).
func hidSeen(label, skill string) bool {
	return label == "team" && skill != "twin" || (label == "mixed" || label == "cover") && strings.HasPrefix(skill, "open-")
}

// hidFS is a source that can be made to fail: every Open fails once
// failing is set (down's from the start).
type hidFS struct {
	m       fstest.MapFS
	failing *atomic.Bool
}

func (f hidFS) Open(name string) (fs.File, error) {
	if f.failing.Load() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("input/output error")}
	}
	return f.m.Open(name)
}

// hidWorld is a server over hidSources behind HTTP: stateful with the
// static tokens, and stateless with an open .well-known publication.
type hidWorld struct {
	srv            *Server
	stateful, open string               // base URLs
	audit          *testutil.SyncBuffer // the audit log, under the policy
	auditLog       *audit.Logger
	flaky          *atomic.Bool
	logs           *testutil.SyncBuffer
}

// newHidWorld starts a world: with every skill, or without the hidden
// ones (bare); under hidPolicy, or none (policy false). flaky's reads
// fail once the catalog is built.
func newHidWorld(t *testing.T, bare, policy bool) *hidWorld {
	t.Helper()
	w := &hidWorld{audit: &testutil.SyncBuffer{}, logs: &testutil.SyncBuffer{}, flaky: &atomic.Bool{}}
	var srcs []store.Source
	for _, s := range hidSources {
		m := fstest.MapFS{}
		for p, data := range s.files {
			skill, _, _ := strings.Cut(p, "/")
			if !bare || hidSeen(s.label, skill) {
				m[p] = &fstest.MapFile{Data: []byte(data), Mode: 0o644}
			}
		}
		failing := &atomic.Bool{}
		failing.Store(s.files == nil && !bare)
		if s.label == "flaky" && !bare {
			failing = w.flaky
		}
		srcs = append(srcs, store.Source{Label: s.label, Location: "./" + s.label, FS: hidFS{m, failing}})
	}
	log := slog.New(slog.NewTextHandler(w.logs, nil))
	st, err := store.New(srcs, store.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Logger: log}
	if policy {
		p, err := access.Parse("policy.yaml", []byte(hidPolicy))
		if err != nil {
			t.Fatal(err)
		}
		opts.Access = policyOf{p}
		w.auditLog = audit.New(w.audit, audit.Options{})
		opts.Audit = w.auditLog
	}
	// Small limits, so that answers count what they leave out: the Skill
	// tool lists two skills, list_skills names as many as fit 300 bytes.
	if w.srv, err = New(context.Background(), tools.New(st, tools.Options{MaxListed: 2, TextBudget: 300}), opts); err != nil {
		t.Fatal(err)
	}
	<-w.srv.ready
	if _, err := st.View(nil).Search(context.Background(), "warm the index", 1); err != nil {
		t.Fatal(err)
	}
	w.flaky.Store(!bare)
	rs := hidAuth(t)
	for _, h := range []struct {
		url       *string
		stateless bool
		open      bool
	}{{&w.stateful, false, false}, {&w.open, true, true}} {
		ts := httptest.NewServer(hidSite(w.srv, rs, h.stateless, h.open))
		t.Cleanup(ts.Close)
		*h.url = ts.URL
	}
	return w
}

// hidSite is the part of the HTTP site these cases need, composed as
// package site composes it (which this package's tests cannot import):
// the MCP endpoint at /mcp behind rs, and the .well-known publication
// behind rs or, with open, open to anyone.
func hidSite(srv *Server, rs *auth.ResourceServer, stateless, open bool) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", rs.Require(srv.HTTPHandler(HTTPOptions{Authenticated: true, Stateless: stateless})))
	wk := discovery.NewPublisher(discovery.PublishOptions{Store: srv.store, View: srv.ViewOf, Audit: srv.AuditRead, Logger: srv.log, Timeout: srv.timeout})
	if open {
		open := wk.Handler(true)
		mux.HandleFunc(discovery.WellKnownPath, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			open.ServeHTTP(w, r)
		})
	} else {
		mux.Handle(discovery.WellKnownPath, rs.Require(wk.Handler(false)))
	}
	return mux
}

// hidAuth is the resource server of the static tokens.
func hidAuth(t *testing.T) *auth.ResourceServer {
	t.Helper()
	st, err := auth.ParseStaticTokens([]byte("tokens:\n" +
		"  - {sha256: " + auth.HashToken(hidViewer) + ", subject: viewer, groups: [team]}\n" +
		"  - {sha256: " + auth.HashToken(hidAdmin) + ", subject: admin, groups: [admin]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := auth.NewResourceServer(auth.ResourceConfig{Resource: "https://skills.example.com/mcp", Authenticator: st})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// hidAnswer is what a client gets for one request: over HTTP the status
// and the headers that could tell two answers apart, and the body, whole;
// over stdio the line.
type hidAnswer struct {
	Status int               `json:",omitempty"`
	Header map[string]string `json:",omitempty"`
	Body   string
}

// hidHeaders are the response headers compared (Date aside, every header
// the server sets).
var hidHeaders = []string{"Content-Type", "Content-Length", "Content-Range", "Accept-Ranges", "ETag", "Last-Modified", "Cache-Control", "Vary",
	"Retry-After", "Allow", "WWW-Authenticate", "X-Content-Type-Options", "Access-Control-Allow-Origin", "Mcp-Session-Id", "Transfer-Encoding"}

func hidHTTPAnswer(resp *http.Response, body string) hidAnswer {
	a := hidAnswer{Status: resp.StatusCode, Header: map[string]string{}, Body: body}
	for _, k := range hidHeaders {
		if v := resp.Header.Values(k); len(v) > 0 {
			a.Header[k] = strings.Join(v, ", ")
		}
	}
	for k := range resp.Header {
		if !slices.Contains(hidHeaders, k) && k != "Date" {
			a.Header["unexpected "+k] = resp.Header.Get(k) // a header the list forgot: compared too
		}
	}
	if len(resp.TransferEncoding) > 0 {
		a.Header["Transfer-Encoding"] = strings.Join(resp.TransferEncoding, ", ")
	}
	return a
}

// replace is a with old replaced by new throughout.
func (a hidAnswer) replace(old, new string) hidAnswer {
	b := hidAnswer{Status: a.Status, Body: strings.ReplaceAll(a.Body, old, new)}
	if a.Header != nil {
		b.Header = map[string]string{}
		for k, v := range a.Header {
			b.Header[k] = strings.ReplaceAll(v, old, new)
		}
	}
	return b
}

// holds reports whether s occurs anywhere in a.
func (a hidAnswer) holds(s string) bool {
	if strings.Contains(a.Body, s) {
		return true
	}
	for _, v := range a.Header {
		if strings.Contains(v, s) {
			return true
		}
	}
	return false
}

// hidOp is one request. NAME in params stands for a skill's name. method
// is a JSON-RPC method, or GET or HEAD of params, a path under
// discovery.WellKnownPath, with header.
type hidOp struct {
	name, method, params string
	header               map[string]string
	batch                []hidOp // method "batch": these, in one JSON-RPC batch
}

func (op hidOp) wellKnown() bool { return op.method == http.MethodGet || op.method == http.MethodHead }

// named is op about the skill called name.
func (op hidOp) named(name string) hidOp {
	op.params = strings.ReplaceAll(op.params, "NAME", name)
	op.batch = slices.Clone(op.batch)
	for i := range op.batch {
		op.batch[i] = op.batch[i].named(name)
	}
	return op
}

// names reports whether op is about a skill (NAME in its params).
func (op hidOp) names() bool {
	for _, b := range op.batch {
		if b.names() {
			return true
		}
	}
	return strings.Contains(op.params, "NAME")
}

// body is op's JSON-RPC message (a batch's elements numbered from 7),
// with the _meta of 2026-07-28 when modern.
func (op hidOp) body(modern bool) string {
	if op.method == "batch" {
		var elems []string
		for i, b := range op.batch {
			elems = append(elems, strings.Replace(b.body(modern), `"id":7,`, `"id":`+strconv.Itoa(7+i)+`,`, 1))
		}
		return "[" + strings.Join(elems, ",") + "]"
	}
	params := op.params
	if modern {
		params = withMeta(params)
	}
	return `{"jsonrpc":"2.0","id":7,"method":"` + op.method + `","params":` + params + `}`
}

// hidPeer is one client connection, one protocol version.
type hidPeer struct {
	name string
	do   func(t *testing.T, op hidOp) hidAnswer
}

// hidRPCPeer is a connection to /mcp of base with token, speaking
// version: a legacy session (stateless endpoints give an id too), or
// 2026-07-28 requests with their _meta and standard headers.
func hidRPCPeer(t *testing.T, name, base, token, version string) *hidPeer {
	t.Helper()
	url := base + "/mcp"
	header := map[string]string{"Authorization": "Bearer " + token, "Mcp-Protocol-Version": version}
	modern := version == mcp.ProtocolVersion20260728
	if !modern {
		resp, body := testutil.SendMCP(t, http.MethodPost, url, hidInitialize(version), header)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
			t.Fatalf("%s: initialize: %d %s", name, resp.StatusCode, body)
		}
		header["Mcp-Session-Id"] = resp.Header.Get("Mcp-Session-Id")
		if resp, body := testutil.SendMCP(t, http.MethodPost, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("%s: initialized: %d %s", name, resp.StatusCode, body)
		}
	}
	return &hidPeer{name: name, do: func(t *testing.T, op hidOp) hidAnswer {
		t.Helper()
		h := header
		if modern && op.method != "batch" {
			h = maps.Clone(header)
			maps.Copy(h, mcp.StandardHeaders(version, mcp.MCPMethod(op.method), json.RawMessage(withMeta(op.params))))
		}
		resp, body := testutil.SendMCP(t, http.MethodPost, url, op.body(modern), h)
		return hidHTTPAnswer(resp, body)
	}}
}

func hidInitialize(version string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
}

// hidWellKnownPeer fetches .well-known paths of base with token (none
// if "").
func hidWellKnownPeer(name, base, token string) *hidPeer {
	return &hidPeer{name: name, do: func(t *testing.T, op hidOp) hidAnswer {
		t.Helper()
		req, err := http.NewRequest(op.method, base+discovery.WellKnownPath+op.params, nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		for k, v := range op.header {
			req.Header.Set(k, v)
		}
		resp, b := testutil.Do(t, req)
		return hidHTTPAnswer(resp, string(b))
	}}
}

// hidStdioPeer is a stdio connection to srv speaking version; the
// answers are the lines the server writes, notifications left out.
func hidStdioPeer(t *testing.T, name string, srv *Server, version string) *hidPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan struct{})
	go func() {
		srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		close(served)
	}()
	t.Cleanup(func() { inW.Close(); <-served })
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		r := bufio.NewReaderSize(outR, 1<<20)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if strings.HasPrefix(line, `{"jsonrpc":"2.0","id":`) || strings.HasPrefix(line, "[") {
				lines <- line
			}
		}
	}()
	call := func(t *testing.T, body string) hidAnswer {
		t.Helper()
		io.WriteString(inW, body+"\n")
		select {
		case line := <-lines:
			return hidAnswer{Body: line}
		case <-time.After(leakDeadline):
			t.Fatalf("%s: no answer to %.200s", name, body)
			return hidAnswer{}
		}
	}
	modern := version == mcp.ProtocolVersion20260728
	if !modern {
		if a := call(t, hidInitialize(version)); !strings.Contains(a.Body, `"protocolVersion":"`+version+`"`) {
			t.Fatalf("%s: initialize: %s", name, a.Body)
		}
		io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	}
	return &hidPeer{name: name, do: func(t *testing.T, op hidOp) hidAnswer {
		t.Helper()
		return call(t, op.body(modern))
	}}
}

// hidVersions are the protocol versions: the four of the handshake era and
// 2026-07-28.
var hidVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// hidEnds are the first and last versions of each era, which stateless
// HTTP and stdio speak (stateful HTTP speaks every version).
var hidEnds = []string{"2024-11-05", "2025-11-25", "2026-07-28"}

// peers are token's connections to w: stateful HTTP at every version,
// stateless HTTP and (for the viewer, whom the policy names for stdio)
// stdio at hidEnds; and the .well-known publication, behind the token and
// open.
func (w *hidWorld) peers(t *testing.T, token string) (rpc, wellKnown []*hidPeer) {
	t.Helper()
	for _, v := range hidVersions {
		rpc = append(rpc, hidRPCPeer(t, "http/"+v, w.stateful, token, v))
	}
	for _, v := range hidEnds {
		rpc = append(rpc, hidRPCPeer(t, "stateless/"+v, w.open, token, v))
		if token == hidViewer {
			rpc = append(rpc, hidStdioPeer(t, "stdio/"+v, w.srv, v))
		}
	}
	wellKnown = []*hidPeer{hidWellKnownPeer("well-known", w.stateful, token)}
	if token == hidViewer { // the open publication is the anonymous caller's, whoever asks
		wellKnown = append(wellKnown, hidWellKnownPeer("open well-known", w.open, ""))
	}
	return rpc, wellKnown
}

// hidPaths are the paths asked for in a skill: its document, a text file,
// a binary one, a hidden one, a folder, one that does not exist, and
// paths no skill may serve (a traversal into a visible skill, an
// absolute one, a NUL, a detour).
var hidPaths = []string{"SKILL.md", "references/notes.md", "assets/logo.png", ".env", "references", "nope.md",
	"../open-plan/SKILL.md", "/etc/passwd", "a\x00b", "references/../SKILL.md"}

// hidQuote is s as a JSON string.
func hidQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// hidSkillOps are the requests about one skill, NAME: every method and
// tool that takes a skill's name, URI or file.
func hidSkillOps() []hidOp {
	ops := []hidOp{
		{name: "get_skill", method: "tools/call", params: `{"name":"get_skill","arguments":{"skill_name":"NAME"}}`},
		{name: "get_skill by uri", method: "tools/call", params: `{"name":"get_skill","arguments":{"uri":"skill://NAME/SKILL.md"}}`},
		{name: "Skill", method: "tools/call", params: `{"name":"Skill","arguments":{"skill_name":"NAME"}}`},
		{name: "prompts/get", method: "prompts/get", params: `{"name":"NAME"}`},
		{name: "skills/get", method: "skills/get", params: `{"uri":"skill://NAME/SKILL.md"}`},
		{name: "resources/subscribe", method: "resources/subscribe", params: `{"uri":"skill://NAME/SKILL.md"}`},
		{name: "resources/unsubscribe", method: "resources/unsubscribe", params: `{"uri":"skill://NAME/SKILL.md"}`},
		{name: "resources/directory/read of the skill", method: "resources/directory/read", params: `{"uri":"skill://NAME"}`},
		{name: "resources/directory/read of the skill/", method: "resources/directory/read", params: `{"uri":"skill://NAME/"}`},
		{name: "completion of the name", method: "completion/complete", params: `{"ref":{"type":"ref/resource","uri":"skill://{name}/{+path}"},"argument":{"name":"name","value":"NAME"}}`},
		{name: "completion of its paths", method: "completion/complete", params: `{"ref":{"type":"ref/resource","uri":"skill://{name}/{+path}"},"argument":{"name":"path","value":""},"context":{"arguments":{"name":"NAME"}}}`},
		{name: "completion of its paths under references", method: "completion/complete", params: `{"ref":{"type":"ref/resource","uri":"skill://{name}/{+path}"},"argument":{"name":"path","value":"ref"},"context":{"arguments":{"name":"NAME"}}}`},
		{name: "completion of the prompt", method: "completion/complete", params: `{"ref":{"type":"ref/prompt","name":"NAME"},"argument":{"name":"x","value":""}}`},
		{name: "get_skill, the name in blanks", method: "tools/call", params: `{"name":"get_skill","arguments":{"skill_name":" NAME "}}`},
		{name: "get_skill by an upper-case uri", method: "tools/call", params: `{"name":"get_skill","arguments":{"uri":"SKILL://NAME/skill.md"}}`},
		{name: "resources/read of the folder", method: "resources/read", params: `{"uri":"skill://NAME"}`},
		{name: "resources/read, upper-case", method: "resources/read", params: `{"uri":"SKILL://NAME/SKILL.MD"}`},
		{name: "a batch", method: "batch", batch: []hidOp{
			{method: "tools/call", params: `{"name":"get_skill","arguments":{"skill_name":"NAME"}}`},
			{method: "resources/read", params: `{"uri":"skill://NAME/references/notes.md"}`},
			{method: "tools/call", params: `{"name":"list_skills","arguments":{}}`},
		}},
	}
	for _, p := range hidPaths {
		ops = append(ops,
			hidOp{name: "read_file_in_skill " + hidQuote(p), method: "tools/call", params: `{"name":"read_file_in_skill","arguments":{"skill_name":"NAME","file_path":` + hidQuote(p) + `}}`},
			hidOp{name: "resources/read " + hidQuote(p), method: "resources/read", params: `{"uri":` + hidQuote("skill://NAME/"+p) + `}`},
			hidOp{name: "resources/directory/read " + hidQuote(p), method: "resources/directory/read", params: `{"uri":` + hidQuote("skill://NAME/"+p) + `}`})
	}
	return ops
}

// hidSkillWellKnownOps are the .well-known requests for one skill's
// artifact: GET and HEAD of either kind, a range, a conditional GET.
var hidSkillWellKnownOps = []hidOp{
	{name: "GET NAME.zip", method: http.MethodGet, params: "NAME.zip"},
	{name: "GET NAME/SKILL.md", method: http.MethodGet, params: "NAME/SKILL.md"},
	{name: "HEAD NAME.zip", method: http.MethodHead, params: "NAME.zip"},
	{name: "HEAD NAME/SKILL.md", method: http.MethodHead, params: "NAME/SKILL.md"},
	{name: "GET NAME.zip, a range", method: http.MethodGet, params: "NAME.zip", header: map[string]string{"Range": "bytes=0-9"}},
	{name: "GET NAME/SKILL.md, a range", method: http.MethodGet, params: "NAME/SKILL.md", header: map[string]string{"Range": "bytes=0-9"}},
	{name: "GET NAME.zip if none match *", method: http.MethodGet, params: "NAME.zip", header: map[string]string{"If-None-Match": "*"}},
	{name: "GET NAME/notes.md", method: http.MethodGet, params: "NAME/notes.md"},
}

// hidCatalogOps are the requests about the catalog: every list, the
// searches (whose hits, order and limit a hidden skill must not touch),
// name completions, and pages after a hidden skill's name.
func hidCatalogOps() []hidOp {
	std := base64.StdEncoding.EncodeToString
	raw := base64.RawURLEncoding.EncodeToString
	ops := []hidOp{
		{name: "tools/list", method: "tools/list", params: `{}`},
		{name: "resources/list", method: "resources/list", params: `{}`},
		{name: "resources/list after twin", method: "resources/list", params: `{"cursor":"` + std([]byte("twin")) + `"}`},
		{name: "resources/templates/list", method: "resources/templates/list", params: `{}`},
		{name: "prompts/list", method: "prompts/list", params: `{}`},
		{name: "prompts/list after shut-plan", method: "prompts/list", params: `{"cursor":"` + std([]byte("shut-plan")) + `"}`},
		{name: "skills/list", method: "skills/list", params: `{}`},
		{name: "skills/list after cellar", method: "skills/list", params: `{"cursor":"` + raw([]byte("cellar")) + `"}`},
		{name: "list_skills", method: "tools/call", params: `{"name":"list_skills","arguments":{}}`},
		{name: "server/discover", method: "server/discover", params: `{}`},
	}
	for _, q := range []string{"quarterly keys", "quarterly roadmap review", "plan the office", "release notes", "release archive",
		"twin instructions", "vault", "shut plan closure", "haunt ghost", "lower copy", "northern southern route"} {
		for _, limit := range []string{"", `,"limit":1`} {
			ops = append(ops, hidOp{name: "search_skills " + hidQuote(q) + limit, method: "tools/call",
				params: `{"name":"search_skills","arguments":{"query":` + hidQuote(q) + limit + `}}`})
		}
	}
	for _, prefix := range []string{"", "t", "s", "c", "m", "o", "v", "g"} {
		ops = append(ops, hidOp{name: "completion of names " + hidQuote(prefix), method: "completion/complete",
			params: `{"ref":{"type":"ref/resource","uri":"skill://{name}/{+path}"},"argument":{"name":"name","value":` + hidQuote(prefix) + `}}`})
	}
	return ops
}

// hidCatalogWellKnownOps are the requests for the discovery index.
var hidCatalogWellKnownOps = []hidOp{
	{name: "GET index.json", method: http.MethodGet, params: "index.json"},
	{name: "HEAD index.json", method: http.MethodHead, params: "index.json"},
	{name: "GET index.json, a range", method: http.MethodGet, params: "index.json", header: map[string]string{"Range": "bytes=0-99"}},
	{name: "GET index.json if none match", method: http.MethodGet, params: "index.json", header: map[string]string{"If-None-Match": `"0123456789abcdef0123456789abcdef"`}},
}

// hidKey names one recorded answer.
type hidKey struct{ peer, op, skill string }

// record runs ops on every peer, each about every name (ops without NAME
// once, under skill ""), and returns the answers.
func record(t *testing.T, peers []*hidPeer, ops []hidOp, names []string) map[hidKey]hidAnswer {
	t.Helper()
	got := map[hidKey]hidAnswer{}
	for _, p := range peers {
		for _, op := range ops {
			if !op.names() {
				got[hidKey{p.name, op.name, ""}] = p.do(t, op)
				continue
			}
			for _, n := range names {
				got[hidKey{p.name, op.name, n}] = p.do(t, op.named(n))
			}
		}
	}
	return got
}

// hidAnswers are the viewer's answers from w: every catalog request, and
// every request about each of names.
func (w *hidWorld) answers(t *testing.T, token string, names []string) map[hidKey]hidAnswer {
	t.Helper()
	rpc, wk := w.peers(t, token)
	got := record(t, rpc, append(hidCatalogOps(), hidSkillOps()...), names)
	for k, v := range record(t, wk, append(slices.Clone(hidCatalogWellKnownOps), hidSkillWellKnownOps...), names) {
		got[k] = v
	}
	return got
}

// hidErrors caps what a test reports: one leak shows on many surfaces.
type hidErrors struct {
	t *testing.T
	n int
}

func (e *hidErrors) errorf(format string, args ...any) {
	e.t.Helper()
	if e.n++; e.n <= 40 {
		e.t.Errorf(format, args...)
	}
}

func (e *hidErrors) done() {
	if e.n > 40 {
		e.t.Errorf("… and %d more", e.n-40)
	}
}

// TestHiddenSkills: for the viewer, on stateful and stateless HTTP and
// stdio in both protocol eras, and on the .well-known publication,
// every request naming a hidden skill is answered as one naming a
// missing skill (the name aside), and a server with the hidden skills
// answers every request as one where they were never written.
func TestHiddenSkills(t *testing.T) {
	full, bare := newHidWorld(t, false, true), newHidWorld(t, true, true)
	var hidden, missing []string
	for _, h := range hidNames {
		hidden = append(hidden, h.name)
		missing = append(missing, hidMissing(h.name))
	}
	names := append(slices.Clone(hidden), hidVisible...)
	fullAnswers, bareAnswers := full.answers(t, hidViewer, append(slices.Clone(names), missing...)), bare.answers(t, hidViewer, names)

	t.Run("hidden is missing", func(t *testing.T) {
		errs := &hidErrors{t: t}
		defer errs.done()
		for k, got := range fullAnswers {
			if !slices.Contains(hidden, k.skill) {
				continue
			}
			m := hidMissing(k.skill)
			want := fullAnswers[hidKey{k.peer, k.op, m}]
			if want.holds(k.skill) {
				t.Fatalf("the test's own fault: %q occurs in the answer about %q: %+v", k.skill, m, want)
			}
			if diff := cmp.Diff(want, got.replace(k.skill, m)); diff != "" {
				errs.errorf("%s: %s of hidden %s (%s) differs from a missing %s's (-missing +hidden)\n%s", k.peer, k.op, k.skill, hidHow(k.skill), m, diff)
			}
		}
	})
	t.Run("hidden is absent", func(t *testing.T) {
		errs := &hidErrors{t: t}
		defer errs.done()
		for k, want := range bareAnswers {
			if diff := cmp.Diff(want, fullAnswers[k]); diff != "" {
				errs.errorf("%s: %s %s differs from the answer without the hidden skills (-without +with)\n%s", k.peer, k.op, k.skill, diff)
			}
		}
	})
	t.Run("private", func(t *testing.T) { hidPrivate(t, fullAnswers) })
	t.Run("audit", func(t *testing.T) { hidAudit(t, full, hidden) })
	for _, a := range fullAnswers {
		if a.holds(hidViewer) || a.holds(hidAdmin) {
			t.Errorf("an answer holds a token: %.300s", a.Body)
		}
	}
}

// hidHow says how a hidden skill is hidden.
func hidHow(name string) string {
	for _, h := range hidNames {
		if h.name == name {
			return h.how
		}
	}
	return "?"
}

// hidPrivate checks that every cacheable result is cacheScope "private":
// on 2026-07-28 every cacheable method's, and on every version the skills
// extension's.
func hidPrivate(t *testing.T, answers map[hidKey]hidAnswer) {
	methodOf := map[string]string{}
	for _, op := range append(hidCatalogOps(), hidSkillOps()...) {
		methodOf[op.name] = op.method
	}
	checked := 0
	for k, a := range answers {
		m := methods[methodOf[k.op]]
		if m == nil || !m.cacheable || !strings.Contains(a.Body, `"result":`) {
			continue
		}
		if !strings.HasSuffix(k.peer, mcp.ProtocolVersion20260728) && !m.extension {
			continue
		}
		checked++
		if !strings.Contains(a.Body, `"ttlMs":0,"cacheScope":"private"`) {
			t.Errorf("%s: %s %s: a cacheable result that is not private: %.300s", k.peer, k.op, k.skill, a.Body)
		}
	}
	if checked == 0 {
		t.Fatal("no cacheable result was checked")
	}
}

// hidAudit checks the audit log of the viewer's requests: every request
// that reads a hidden skill is logged as denied, as often as the same
// requests about one of its own skills are logged as allowed; a skill
// that exists nowhere is never logged; and no line holds a token.
func hidAudit(t *testing.T, w *hidWorld, hidden []string) {
	if err := w.auditLog.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	text := w.audit.String()
	errs := &hidErrors{t: t}
	defer errs.done()
	lines, sources := map[string]int{}, map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		var e struct{ Sub, Skill, Source, Decision string }
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("not a JSON line: %s", sc.Text())
		}
		want := "allow"
		if slices.Contains(hidden, e.Skill) || e.Sub == "" && e.Skill != "open-plan" { // the open publication's anonymous caller sees open-plan
			want = "deny"
		}
		if e.Decision != want || !slices.Contains(hidden, e.Skill) && !slices.Contains(hidVisible, e.Skill) {
			errs.errorf("audit line %s; want a decision %q on a skill that exists", sc.Text(), want)
		}
		if e.Sub == "viewer" {
			lines[e.Skill]++
			sources[e.Skill] = e.Source
		}
	}
	if lines["atlas"] == 0 {
		t.Fatal("no audit line for the viewer's own skill")
	}
	for _, h := range hidden {
		if lines[h] != lines["atlas"] {
			t.Errorf("%s (%s): %d audit lines; the same requests about atlas made %d", h, hidHow(h), lines[h], lines["atlas"])
		}
	}
	if sources["twin"] != "cover" || sources["shut-plan"] != "mixed" || sources["flaw"] != "team" {
		t.Errorf("twin audited in %q, shut-plan in %q, flaw in %q; want the sources whose copies answered: cover, mixed and team",
			sources["twin"], sources["shut-plan"], sources["flaw"])
	}
	if strings.Contains(text, hidViewer) || strings.Contains(text, "Rotate the quarterly keys") {
		t.Error("the audit log holds a token or content")
	}
}

// TestUnfilteredUnchanged: a caller the policy lets see everything gets,
// on every request, the answer of a server without a policy, byte for
// byte (cacheScope "private" included).
func TestUnfilteredUnchanged(t *testing.T) {
	with, without := newHidWorld(t, false, true), newHidWorld(t, false, false)
	names := append(slices.Clone(hidVisible), "qqqqq")
	for _, h := range hidNames {
		names = append(names, h.name)
	}
	got, want := with.answers(t, hidAdmin, names), without.answers(t, hidAdmin, names)
	errs := &hidErrors{t: t}
	defer errs.done()
	for k, w := range want {
		if diff := cmp.Diff(w, got[k]); diff != "" {
			errs.errorf("%s: %s %s: (-without a policy +under it)\n%s", k.peer, k.op, k.skill, diff)
		}
	}
	hidPrivate(t, got)
}

// hidFolders are a world's sources as local folders, which a test edits.
type hidFolders struct {
	t    *testing.T
	dirs map[string]string // by label
	seq  atomic.Int64
}

// write makes label's skill name hold a SKILL.md, with a new time.
func (f *hidFolders) write(label, name, description, body string) {
	dir := filepath.Join(f.dirs[label], name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.t.Fatal(err)
	}
	file := filepath.Join(dir, "SKILL.md")
	if err := os.WriteFile(file, []byte(hidDoc(name, description, body)), 0o644); err != nil {
		f.t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(f.seq.Add(1)) * time.Second)
	if err := os.Chtimes(file, at, at); err != nil {
		f.t.Fatal(err)
	}
}

func (f *hidFolders) remove(label, name string) {
	if err := os.RemoveAll(filepath.Join(f.dirs[label], name)); err != nil {
		f.t.Fatal(err)
	}
}

// hidRecipient is one of the viewer's notification streams.
type hidRecipient struct {
	name      string
	notes     <-chan msg
	listsOnly bool // a stateless GET stream: list changes alone
}

// hidURIs are the URIs every recipient subscribes to: hidden skills
// (vault, twin and mask's hidden copies, cellar, fresh once added), a
// skill that does not exist, and the sentinel.
var hidURIs = []string{"skill://vault/SKILL.md", "skill://twin/SKILL.md", "skill://mask/SKILL.md", "skill://cellar/SKILL.md",
	"skill://fresh/SKILL.md", "skill://qqqqq/SKILL.md", "skill://beacon/SKILL.md"}

// hidRecipients opens the viewer's streams to srv: stateful and stateless
// HTTP and stdio, legacy sessions subscribed to hidURIs and 2026-07-28
// listen streams subscribed to them and to every list.
func hidRecipients(t *testing.T, srv *Server) []hidRecipient {
	t.Helper()
	rs := hidAuth(t)
	var out []hidRecipient
	for _, stateless := range []bool{false, true} {
		ts := httptest.NewServer(hidSite(srv, rs, stateless, false))
		t.Cleanup(ts.Close)
		url, kind := ts.URL+"/mcp", map[bool]string{false: "http", true: "stateless"}[stateless]
		header := map[string]string{"Authorization": "Bearer " + hidViewer, "Mcp-Protocol-Version": "2025-11-25"}
		if !stateless {
			resp, body := testutil.SendMCP(t, http.MethodPost, url, initMsg, header)
			header["Mcp-Session-Id"] = resp.Header.Get("Mcp-Session-Id")
			if resp.StatusCode != http.StatusOK || header["Mcp-Session-Id"] == "" {
				t.Fatalf("initialize: %d %s", resp.StatusCode, body)
			}
			testutil.SendMCP(t, http.MethodPost, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header)
			for _, uri := range hidURIs {
				if resp, body := testutil.SendMCP(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"`+uri+`"}}`, header); resp.StatusCode != http.StatusOK {
					t.Fatalf("subscribe %s: %d %s", uri, resp.StatusCode, body)
				}
			}
		}
		s := openStream(t, http.DefaultClient, http.MethodGet, url, "", header)
		if !s.open() {
			t.Fatalf("%s GET stream: %d %s", kind, s.resp.StatusCode, s.body)
		}
		out = append(out, hidRecipient{name: kind + " GET stream", notes: decoded(events(s.resp.Body)), listsOnly: stateless})
		listen := openStream(t, http.DefaultClient, http.MethodPost, url, hidListen(), map[string]string{
			"Authorization": "Bearer " + hidViewer, "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"})
		if !listen.open() {
			t.Fatalf("%s listen: %d %s", kind, listen.resp.StatusCode, listen.body)
		}
		out = append(out, hidRecipient{name: kind + " listen stream", notes: hidAcknowledged(t, decoded(events(listen.resp.Body)))})
	}
	p := stdioPeer(t, srv)
	p.initialize(t)
	for _, uri := range hidURIs {
		p.subscribe(t, uri, true)
	}
	l := stdioPeer(t, srv)
	l.notify(hidListen())
	return append(out, hidRecipient{name: "stdio session", notes: p.notes}, hidRecipient{name: "stdio listen stream", notes: hidAcknowledged(t, l.notes)})
}

// hidListen is a subscriptions/listen request for every list and hidURIs.
func hidListen() string {
	uris, _ := json.Marshal(hidURIs)
	return `{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourcesListChanged":true,"promptsListChanged":true,"resourceSubscriptions":` +
		string(uris) + `},` + modernMeta + `}}`
}

// hidAcknowledged returns notes once their first message, the listen
// stream's acknowledgement, is in.
func hidAcknowledged(t *testing.T, notes <-chan msg) <-chan msg {
	t.Helper()
	select {
	case m := <-notes:
		if m.method() != "notifications/subscriptions/acknowledged" {
			t.Fatalf("a listen stream began with %v", m)
		}
	case <-time.After(leakDeadline):
		t.Fatal("a listen stream was not acknowledged")
	}
	return notes
}

// next reads n notifications from r, each as its method and URI.
func (r hidRecipient) next(t *testing.T, n int) []string {
	t.Helper()
	var got []string
	deadline := time.After(leakDeadline)
	for len(got) < n {
		select {
		case m, ok := <-r.notes:
			if !ok {
				t.Fatalf("%s ended after %v", r.name, got)
			}
			uri, _ := m.param("uri", false).(string)
			got = append(got, m.method()+" "+uri)
		case <-deadline:
			t.Fatalf("%s: %v, then nothing within %v; want %d notifications", r.name, got, leakDeadline, n)
		}
	}
	return got
}

// hidWatchedWorld is a server under hidPolicy over four local folders
// (upper and lower hidden whole, cover's twin hidden by its name, team the
// viewer's), which the test edits and refreshes: cover's twin shadows
// team's, team's mask shadows lower's, and team's beacon is the sentinel.
func hidWatchedWorld(t *testing.T) (*Server, *store.Store, *hidFolders) {
	t.Helper()
	ctx := context.Background()
	f := &hidFolders{t: t, dirs: map[string]string{}}
	var srcs []store.Source
	for _, label := range []string{"upper", "cover", "team", "lower"} {
		f.dirs[label] = t.TempDir()
		fsys, err := backends.OpenLocal(f.dirs[label])
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, store.Source{Label: label, Location: "./" + label, FS: fsys})
	}
	f.write("upper", "vault", "Guard the keys.", "# Vault\n")
	f.write("cover", "twin", "The cover copy.", "# Twin\n")
	f.write("team", "twin", "The team's copy.", "# Twin\n")
	f.write("team", "mask", "Draft the notes.", "# Mask\n")
	f.write("team", "beacon", "The sentinel.", "# Beacon\n")
	f.write("lower", "mask", "The lower copy.", "# Mask\n")
	f.write("lower", "cellar", "Keep the archive.", "# Cellar\n")
	st, err := store.New(srcs, store.Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	pol, err := access.Parse("policy.yaml", []byte(hidPolicy))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(ctx, tools.New(st, tools.Options{}), Options{Logger: quiet(), Access: policyOf{pol}})
	if err != nil {
		t.Fatal(err)
	}
	<-srv.ready
	return srv, st, f
}

// TestHiddenChangesNotNotified: a change to skills the viewer may not see
// reaches none of its streams — legacy sessions and listen streams, over
// stateful and stateless HTTP and stdio — any more than nothing would; a
// change that makes the viewer's view gain or lose a skill is told as the
// list changes a skill that did not exist being added (or removed) would
// give, never as the update of a resource. After each change, the
// viewer's own sentinel skill changes: what a stream gets before the
// sentinel's notifications is what the change told it.
func TestHiddenChangesNotNotified(t *testing.T) {
	ctx := context.Background()
	srv, st, f := hidWatchedWorld(t)
	recipients := hidRecipients(t, srv)
	refresh := func(what string) {
		changes, err := st.Refresh(ctx)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		srv.refreshed(ctx, changes)
	}
	lists := []string{"notifications/tools/list_changed ", "notifications/resources/list_changed ", "notifications/prompts/list_changed "}
	beacon := "# Beacon\n"
	for _, step := range []struct {
		name    string
		change  func()
		want    []string
		updated []string // told after want, but on stateless GET streams (lists only)
	}{
		{"a hidden skill's document grows", func() { f.write("upper", "vault", "Guard the keys.", "# Vault\nLonger now.\n") }, nil, nil},
		{"a hidden skill's description changes", func() { f.write("upper", "vault", "Guard every key.", "# Vault\nLonger now.\n") }, nil, nil},
		{"a hidden skill is added", func() { f.write("upper", "fresh", "Freshly added.", "# Fresh\n") }, nil, nil},
		{"a hidden skill is removed", func() { f.remove("upper", "vault") }, nil, nil},
		{"a hidden copy, shadowed, changes", func() { f.write("lower", "mask", "The lower copy, changed.", "# Mask\nChanged.\n") }, nil, nil},
		{"a skill that did not exist is added", func() { f.write("team", "qqqqq", "Added.", "# Q\n") }, lists, nil},
		{"the hidden copy that shadowed the viewer's is removed", func() { f.remove("cover", "twin") }, lists, nil},
		// A source the viewer may see nothing of takes no part in its
		// layering: a copy there served over the viewer's changes nothing
		// for it.
		{"a copy of a source hidden whole is served over the viewer's", func() { f.write("upper", "mask", "The upper copy.", "# Mask\n") }, nil, nil},
		{"the viewer's own copy under it changes", func() { f.write("team", "mask", "Draft the notes.", "# Mask\nLonger now.\n") },
			[]string{"notifications/resources/list_changed "}, []string{"notifications/resources/updated skill://mask/SKILL.md"}},
		{"that copy is removed", func() { f.remove("upper", "mask") }, nil, nil},
		{"the viewer's copy is removed, and a hidden one is served", func() { f.remove("team", "mask") }, lists, nil},
		{"the viewer's skill is removed", func() { f.remove("team", "qqqqq") }, lists, nil},
		{"a hidden copy is served over the viewer's", func() { f.write("cover", "twin", "The cover copy again.", "# Twin\n") }, lists, nil},
	} {
		step.change()
		refresh(step.name)
		beacon += "More.\n"
		f.write("team", "beacon", "The sentinel.", beacon)
		refresh(step.name + ": the sentinel")
		for _, r := range recipients {
			want := slices.Clone(step.want)
			if !r.listsOnly {
				want = append(want, step.updated...)
			}
			want = append(want, "notifications/resources/list_changed ")
			if !r.listsOnly {
				want = append(want, "notifications/resources/updated skill://beacon/SKILL.md")
			}
			if diff := cmp.Diff(want, r.next(t, len(want))); diff != "" {
				t.Errorf("%s: %s: notifications up to the sentinel's (-want +got)\n%s", step.name, r.name, diff)
			}
		}
	}
	// The last sentinel changes every list: a notification left over from
	// a step (one like a sentinel's, read in its place) shows here.
	f.write("team", "beacon", "The sentinel, described anew.", beacon)
	refresh("the last sentinel")
	for _, r := range recipients {
		want := slices.Clone(lists)
		if !r.listsOnly {
			want = append(want, "notifications/resources/updated skill://beacon/SKILL.md")
		}
		if diff := cmp.Diff(want, r.next(t, len(want))); diff != "" {
			t.Errorf("the last sentinel: %s (-want +got)\n%s", r.name, diff)
		}
	}
}
