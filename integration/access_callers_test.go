package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/internal/authtest"
	"github.com/skillstore/skillstore/internal/testutil"
)

// Two callers with disjoint groups, each through the TypeScript SDK
// (2025-11-25, a legacy session) and through mcp-go (2026-07-28), against
// the binary: neither ever sees the other's skills.

var skillLine = regexp.MustCompile(`\n- ([a-z0-9-]+): `)

// accessList is a request that lists skills; seen gives the names of the
// skills its answer shows.
type accessList struct {
	name, method, params string
	ts                   bool // the TypeScript SDK's Client has a method for it
	seen                 func(map[string]any) []string
}

var accessLists = []accessList{
	{"tools/list: the Skill tool's description", "tools/list", `{}`, true, func(r map[string]any) []string {
		out := []string{}
		tools, _ := r["tools"].([]any)
		for _, tl := range tools {
			m, _ := tl.(map[string]any)
			if d, ok := m["description"].(string); ok && m["name"] == "Skill" {
				for _, g := range skillLine.FindAllStringSubmatch(d, -1) {
					out = append(out, g[1])
				}
			}
		}
		sort.Strings(out)
		return out
	}},
	{"list_skills", "tools/call", `{"name":"list_skills","arguments":{}}`, true, func(r map[string]any) []string { return testutil.SortedStrings(r, "structuredContent", "skills") }},
	{"search_skills", "tools/call", `{"name":"search_skills","arguments":{"query":"monthly ledger payroll quarterly tax return deploy service review pull request page call changes","limit":50}}`, true,
		func(r map[string]any) []string { return testutil.SortedStrings(r, "structuredContent", "skills") }},
	{"resources/list", "resources/list", `{}`, true, func(r map[string]any) []string { return testutil.SortedFields(r, "resources", "name", "", "") }},
	{"prompts/list", "prompts/list", `{}`, true, func(r map[string]any) []string { return testutil.SortedFields(r, "prompts", "name", "", "") }},
	{"completion of skill names", "completion/complete", `{"ref":{"type":"ref/resource","uri":"skill://{name}/{+path}"},"argument":{"name":"name","value":""}}`, true,
		func(r map[string]any) []string { return testutil.SortedStrings(r, "completion", "values") }},
	{"skills/list", "skills/list", `{}`, false, func(r map[string]any) []string {
		return testutil.SortedFields(r, "skills", "uri", "skill://", "/SKILL.md")
	}},
}

// accessAsk is a request about one skill, NAME in its params.
type accessAsk struct {
	name, method, params string
	ts, modern           bool // the TypeScript SDK's Client has a method for it; it exists on 2026-07-28
}

var accessAsks = []accessAsk{
	{"get_skill", "tools/call", `{"name":"get_skill","arguments":{"skill_name":"NAME"}}`, true, true},
	{"get_skill by uri", "tools/call", `{"name":"get_skill","arguments":{"uri":"skill://NAME/SKILL.md"}}`, true, true},
	{"read_file_in_skill", "tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"NAME","file_path":"SKILL.md"}}`, true, true},
	{"read_file_in_skill of a reference", "tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"NAME","file_path":"references/notes.md"}}`, true, true},
	{"read_file_in_skill of a script", "tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"NAME","file_path":"scripts/run.sh"}}`, true, true},
	{"read_file_in_skill escaping", "tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"NAME","file_path":"../payroll/SKILL.md"}}`, true, true},
	{"Skill", "tools/call", `{"name":"Skill","arguments":{"skill_name":"NAME"}}`, true, true},
	{"resources/read", "resources/read", `{"uri":"skill://NAME/SKILL.md"}`, true, true},
	{"resources/read of a reference", "resources/read", `{"uri":"skill://NAME/references/notes.md"}`, true, true},
	{"prompts/get", "prompts/get", `{"name":"NAME"}`, true, true},
	{"completion of paths", "completion/complete", `{"ref":{"type":"ref/resource","uri":"skill://{name}/{+path}"},"argument":{"name":"path","value":""},"context":{"arguments":{"name":"NAME"}}}`, true, true},
	{"resources/subscribe", "resources/subscribe", `{"uri":"skill://NAME/SKILL.md"}`, true, false},
	{"skills/get", "skills/get", `{"uri":"skill://NAME/SKILL.md"}`, false, true},
	{"resources/directory/read", "resources/directory/read", `{"uri":"skill://NAME"}`, false, true},
	{"resources/directory/read of a folder", "resources/directory/read", `{"uri":"skill://NAME/references"}`, false, true},
}

// cacheable are the 2026-07-28 methods whose answers carry cacheScope.
var cacheable = []string{"tools/list", "resources/list", "resources/templates/list", "resources/read", "prompts/list", "skills/list", "skills/get", "resources/directory/read"}

// accessCaller is one team's caller through one client.
type accessCaller struct {
	name string
	call func(method, params string) rpcAnswer
	ts   bool // the TypeScript SDK (else mcp-go at 2026-07-28)
}

// TestAccessCallers: finance's and engineering's callers, through the
// TypeScript SDK (which finds the issuer from the server's 401 and gets its
// own token) and through mcp-go at 2026-07-28, each see exactly their
// team's skills on every surface; a hidden skill answers exactly as a
// missing one; the .well-known index and archives follow; a session
// answers only its principal; change notifications reach only the callers
// who see the change; and the audit log records reads allowed and denied,
// with no token in it or in the server's log.
func TestAccessCallers(t *testing.T) {
	w := newAccessWorld(t)
	w.serve(t)
	ts := startTS(t, w.url, w.issuer, authtest.FinanceClient, authtest.EngClient)
	var tokens, sessions []string
	callers := map[string][]accessCaller{}
	for _, tm := range accessTeams {
		conn := ts.connect(tm.client)
		checkDiscovery(t, w, tm.client, conn)
		token := w.issuer.Token(t, tm.client)
		tokens = append(tokens, token)
		g := dialGo(t, w.url, token, mcp.ProtocolVersion20260728)
		callers[tm.client] = []accessCaller{
			{"TypeScript SDK at " + conn.ProtocolVersion, func(m, p string) rpcAnswer { return ts.call(tm.client, m, p) }, true},
			{"mcp-go at 2026-07-28", g.call, false},
		}
		sessions = append(sessions, conn.SessionID)
	}
	checkSessionBound(t, w, sessions[0], tokens)
	var templates []string
	for _, tm := range accessTeams {
		for _, c := range callers[tm.client] {
			t.Run(tm.client+"/"+c.name, func(t *testing.T) {
				answers := checkSurfaces(t, tm, c)
				for _, a := range answers {
					for _, f := range tm.foreign {
						if strings.Contains(a, f) {
							t.Errorf("an answer holds %q of the other team: %.500s", f, a)
						}
					}
					noTokens(t, "an answer", a, tokens...)
				}
			})
			templates = append(templates, c.call("resources/templates/list", `{}`).text())
		}
	}
	// The resource template names no skill: every caller gets the same.
	if templates[0] != templates[2] || templates[1] != templates[3] || !strings.Contains(templates[0], `"uriTemplate":"skill://{name}/{+path}"`) {
		t.Errorf("resources/templates/list differs between the teams: %q", templates)
	}
	t.Run("well-known", func(t *testing.T) { checkWellKnown(t, w, tokens) })
	t.Run("notifications", func(t *testing.T) { checkNotifications(t, w, ts, tokens) })
	t.Run("audit", func(t *testing.T) { checkAudit(t, w, tokens) })
	noTokens(t, "the server's log", w.logs.String(), tokens...)
}

// checkDiscovery checks that the TypeScript SDK found the authorization
// server from the 401 and got its own token, then opened its session.
func checkDiscovery(t *testing.T, w *accessWorld, clientID string, conn tsConnection) {
	t.Helper()
	want := []tsRequest{
		{"POST", w.url, "none", "", http.StatusUnauthorized},
		{"GET", w.base + "/.well-known/oauth-protected-resource/mcp", "none", "", http.StatusOK},
		{"GET", w.issuer.Issuer + "/.well-known/oauth-authorization-server", "none", "", http.StatusOK},
		{"POST", w.issuer.Metadata.TokenEndpoint, "Basic", w.url, http.StatusOK},
		{"POST", w.url, "Bearer", "", http.StatusOK},       // initialize
		{"POST", w.url, "Bearer", "", http.StatusAccepted}, // notifications/initialized
		{"GET", w.url, "Bearer", "", http.StatusOK},        // the session's stream
	}
	if d := cmp.Diff(want, conn.Requests); d != "" {
		t.Errorf("%s: the SDK's requests (-want +got):\n%s", clientID, d)
	}
	if conn.SessionID == "" || conn.ProtocolVersion != "2025-11-25" {
		t.Errorf("%s: session %q, protocol version %q", clientID, conn.SessionID, conn.ProtocolVersion)
	}
}

// checkSurfaces checks every listing and every request about a skill
// through c, and returns every answer's text.
func checkSurfaces(t *testing.T, tm accessTeam, c accessCaller) []string {
	var answers []string
	for _, s := range accessLists {
		if c.ts && !s.ts {
			continue
		}
		got := c.call(s.method, s.params)
		answers = append(answers, got.text())
		if d := cmp.Diff(tm.visible, s.seen(got.object())); d != "" {
			t.Errorf("%s: skills seen (-want +got)\n%s\n%.400s", s.name, d, got.text())
		}
		checkPrivate(t, c, s.method, got)
	}
	for _, s := range accessAsks {
		if c.ts && !s.ts || !c.ts && !s.modern {
			continue
		}
		ask := func(name string) rpcAnswer { return c.call(s.method, strings.ReplaceAll(s.params, "NAME", name)) }
		want := ask(missingSkill).text()
		for _, h := range tm.hidden {
			got := ask(h).text()
			answers = append(answers, got)
			if got = strings.ReplaceAll(got, h, missingSkill); got != want {
				t.Errorf("%s of hidden %s differs from a missing skill's:\nmissing: %.600s\nhidden:  %.600s", s.name, h, want, got)
			}
		}
		for _, v := range tm.visible {
			got := ask(v)
			answers = append(answers, got.text())
			checkPrivate(t, c, s.method, got)
			if s.name == "get_skill" && !strings.Contains(got.text(), "# ") {
				t.Errorf("%s of its own %s: %.300s", s.name, v, got.text())
			}
		}
	}
	return answers
}

// checkPrivate fails t if a 2026-07-28 answer that carries a cache scope
// is not "private".
func checkPrivate(t *testing.T, c accessCaller, method string, got rpcAnswer) {
	t.Helper()
	if !c.ts && slices.Contains(cacheable, method) && got.Error == nil && got.object()["cacheScope"] != "private" {
		t.Errorf("%s: a filtered 2026-07-28 answer is not private: %.300s", method, got.text())
	}
}

// checkSessionBound: another principal's token on a caller's legacy
// session gets the answer of a session that does not exist.
func checkSessionBound(t *testing.T, w *accessWorld, session string, tokens []string) {
	t.Helper()
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	eng := bearer(tokens[1])
	got, _ := httpDo(t, w.url, list, append(eng, "Mcp-Session-Id", session, "Mcp-Protocol-Version", "2025-11-25")...)
	want, _ := httpDo(t, w.url, list, append(eng, "Mcp-Session-Id", "mcp-session-0000", "Mcp-Protocol-Version", "2025-11-25")...)
	if want.Status != http.StatusNotFound {
		t.Errorf("an unknown session: %+v", want)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("engineering's token on finance's session (-unknown session +got):\n%s", d)
	}
	if own, _ := httpDo(t, w.url, list, append(bearer(tokens[0]), "Mcp-Session-Id", session, "Mcp-Protocol-Version", "2025-11-25")...); own.Status != http.StatusOK {
		t.Errorf("finance's token on its session: %+v", own)
	}
}

// checkWellKnown: the discovery index lists each caller's skills, and the
// other team's artifacts answer as missing ones do.
func checkWellKnown(t *testing.T, w *accessWorld, tokens []string) {
	get := func(token, path string) reply {
		got, h := httpDo(t, w.base+"/.well-known/agent-skills/"+path, "", bearer(token)...)
		if got.Status == http.StatusOK && !strings.Contains(h.Get("Cache-Control"), "private") {
			t.Errorf("%s: Cache-Control %q, want private", path, h.Get("Cache-Control"))
		}
		return got
	}
	for i, tm := range accessTeams {
		index := get(tokens[i], "index.json")
		var idx map[string]any
		if err := json.Unmarshal([]byte(index.Body), &idx); err != nil {
			t.Fatalf("%s: index.json: %v: %+v", tm.client, err, index)
		}
		if d := cmp.Diff(tm.visible, testutil.SortedFields(idx, "skills", "name", "", "")); d != "" {
			t.Errorf("%s: index (-want +got)\n%s", tm.client, d)
		}
		for _, f := range tm.foreign {
			if strings.Contains(index.Body, f) {
				t.Errorf("%s: the index holds %q", tm.client, f)
			}
		}
		for _, path := range []string{"NAME.zip", "NAME/SKILL.md"} {
			want := get(tokens[i], strings.ReplaceAll(path, "NAME", missingSkill))
			for _, h := range tm.hidden {
				got := get(tokens[i], strings.ReplaceAll(path, "NAME", h))
				got.Body = strings.ReplaceAll(got.Body, h, missingSkill)
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("%s: %s of hidden %s (-missing +hidden)\n%s", tm.client, path, h, d)
				}
			}
		}
		var kinds []string
		for _, e := range idx["skills"].([]any) {
			e := e.(map[string]any)
			kinds = append(kinds, e["type"].(string))
			u, _ := e["url"].(string)
			if !strings.HasPrefix(u, "/") {
				u = w.base + "/.well-known/agent-skills/" + u
			} else {
				u = w.base + u
			}
			got, _ := httpDo(t, u, "", bearer(tokens[i])...)
			if got.Status != http.StatusOK {
				t.Errorf("%s: its own artifact %s: %+v", tm.client, e["url"], got)
			}
			for _, f := range tm.foreign {
				if strings.Contains(got.Body, f) {
					t.Errorf("%s: its artifact %s holds %q", tm.client, e["url"], f)
				}
			}
		}
		// Finance: ledger and tax are folders, payroll a SKILL.md alone;
		// eng sees its own ledger too (finance's is in a source it cannot see).
		want := []string{"archive", "archive", "skill-md"}
		if i == 1 {
			want = []string{"archive", "archive", "archive", "skill-md"}
		}
		if slices.Sort(kinds); !slices.Equal(kinds, want) {
			t.Errorf("%s: artifact types %v, want %v", tm.client, kinds, want)
		}
	}
	if got, _ := httpDo(t, w.base+"/.well-known/agent-skills/index.json", ""); got.Status != http.StatusUnauthorized {
		t.Errorf("the index without a token: %+v", got)
	}
}

// notes are the notifications a change to skill name brings its owner:
// each list changed (the name's description is in each), then the
// skill's document was updated.
func notes(name string) []tsNote {
	return []tsNote{
		{Method: "notifications/tools/list_changed"},
		{Method: "notifications/resources/list_changed"},
		{Method: "notifications/prompts/list_changed"},
		{Method: "notifications/resources/updated", Params: map[string]any{"uri": "skill://" + name + "/SKILL.md"}},
	}
}

// touch changes the description of the skill in a team's source, as an
// editor saves it: a new file renamed over the old.
func touch(t *testing.T, w *accessWorld, team, name string, n int) {
	t.Helper()
	p := filepath.Join(w.root, team, name, "SKILL.md")
	old, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := regexp.MustCompile(`(?m)^(description: .*?)( \(edit \d+\))?\.$`).ReplaceAll(old, []byte(fmt.Sprintf("$1 (edit %d).", n)))
	tmp := filepath.Join(w.root, "SKILL.md.tmp") // beside the sources' folders, in none
	if err := os.WriteFile(tmp, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}

// goNotes converts mcp-go's notifications for comparison with notes:
// method and params, without _meta (the listen stream's id).
func goNotes(ns []mcp.JSONRPCNotification) []tsNote {
	out := []tsNote{}
	for _, n := range ns {
		var p map[string]any
		if len(n.Params.AdditionalFields) > 0 {
			p = n.Params.AdditionalFields
		}
		out = append(out, tsNote{Method: n.Method, Params: p})
	}
	return out
}

// checkNotifications: each team's skill is changed on disk in turn —
// engineering's, finance's, engineering's again. Every caller (the
// TypeScript SDK's legacy session, subscribed to both changed skills; an mcp-go
// listen stream at 2026-07-28 that asks for every list and for every
// skill's updates, the other team's included) hears of its own team's
// changes, each as soon as it is made, and of nothing else. Notifications
// reach one recipient in the order they were published, so a change
// heard of by the wrong team would come before that team's own.
func checkNotifications(t *testing.T, w *accessWorld, ts *tsDriver, tokens []string) {
	var uris []string
	for _, name := range []string{"ledger", "payroll", "broken-books", "deploy", "review"} {
		uris = append(uris, "skill://"+name+"/SKILL.md")
	}
	listeners := map[string]*goCaller{}
	base := map[string]int{}
	for i, tm := range accessTeams {
		g := dialGo(t, w.url, tokens[i], mcp.ProtocolVersion20260728)
		stop, err := g.c.ListenAsync(context.Background(), mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true,
			ResourcesListChanged: true, ResourceSubscriptions: uris}, func(err error) { t.Errorf("%s: listen: %v", tm.client, err) })
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		if ack := g.waitNotes(1); ack[0].Method != mcp.MethodNotificationSubscriptionsAcknowledged {
			t.Fatalf("%s: the listen stream began with %+v", tm.client, ack)
		}
		listeners[tm.client] = g
		for _, name := range []string{"payroll", "deploy"} { // its own and the other team's (answered as a missing skill's)
			ts.call(tm.client, "resources/subscribe", `{"uri":"skill://`+name+`/SKILL.md"}`)
		}
		base[tm.client] = len(ts.waitNotes(tm.client, 0))
	}
	heard := map[string][]tsNote{}
	for i, step := range []accessTeam{accessTeams[1], accessTeams[0], accessTeams[1]} {
		touch(t, w, strings.TrimSuffix(step.client, "-client"), step.own, i)
		heard[step.client] = append(heard[step.client], notes(step.own)...)
		n := len(heard[step.client])
		ts.waitNotes(step.client, base[step.client]+n)
		listeners[step.client].waitNotes(1 + n)
	}
	for _, tm := range accessTeams {
		got := ts.waitNotes(tm.client, 0)[base[tm.client]:]
		if d := cmp.Diff(heard[tm.client], got); d != "" {
			t.Errorf("%s's session (TypeScript SDK) heard (-want +got):\n%s", tm.client, d)
		}
		if d := cmp.Diff(heard[tm.client], goNotes(listeners[tm.client].waitNotes(0)[1:])); d != "" {
			t.Errorf("%s's listen stream (mcp-go) heard (-want +got):\n%s", tm.client, d)
		}
	}
}

// auditLine is the part of an audit line the test checks.
type auditLine struct {
	Sub      string   `json:"sub"`
	ClientID string   `json:"client_id"`
	Groups   []string `json:"groups"`
	Method   string   `json:"method"`
	Tool     string   `json:"tool,omitempty"`
	Source   string   `json:"source"`
	Skill    string   `json:"skill"`
	Decision string   `json:"decision"`
	Reason   string   `json:"reason"`
	Version  string   `json:"protocol_version"`
}

// readAudit returns the audit log's lines, each as its JSON object.
func readAudit(t *testing.T, w *accessWorld) []map[string]any {
	t.Helper()
	f, err := os.Open(w.audit)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("an audit line is not JSON: %v", err)
		}
		lines = append(lines, m)
	}
	return lines
}

// checkAudit: the audit log holds a line for a read allowed and one for a
// read denied, for each team, naming the caller, and one for each request
// refused for want of a token or on another principal's session; it
// holds no token and no host path.
func checkAudit(t *testing.T, w *accessWorld, tokens []string) {
	wants := []auditLine{
		{"finance-client", "finance-client", []string{"finance"}, "tools/call", "get_skill", "finance", "ledger", "allow", "rule policy.yaml:3", "2025-11-25"},
		{"finance-client", "finance-client", []string{"finance"}, "tools/call", "get_skill", "eng", "deploy", "deny", "no rule grants it", "2025-11-25"},
		{"eng-client", "eng-client", []string{"eng"}, "resources/read", "", "eng", "review", "allow", "rule policy.yaml:6", "2025-11-25"},
		{"eng-client", "eng-client", []string{"eng"}, "skills/get", "", "finance", "payroll", "deny", "no rule grants it", "2026-07-28"},
		{"eng-client", "eng-client", []string{"eng"}, "tools/call", "Skill", "finance", "tax", "deny", "no rule grants it", "2026-07-28"},
		{Method: "GET /.well-known/agent-skills/index.json", Decision: "deny", Reason: "a bearer token is required"},
		{Method: "POST /mcp", Decision: "deny", Reason: "a bearer token is required"}, // the TypeScript SDK's first request
		{"eng-client", "eng-client", []string{"eng"}, "POST /mcp", "", "", "", "deny", "the session belongs to another principal", "2025-11-25"},
	}
	var got, missing []auditLine
	if !testutil.Within(10*time.Second, func() bool { // the log is written behind serving
		got = nil
		for _, m := range readAudit(t, w) {
			b, _ := json.Marshal(m)
			var l auditLine
			json.Unmarshal(b, &l)
			got = append(got, l)
		}
		missing = slices.DeleteFunc(slices.Clone(wants), func(l auditLine) bool {
			return slices.ContainsFunc(got, func(g auditLine) bool { return cmp.Equal(g, l) })
		})
		return len(missing) == 0
	}) {
		t.Fatalf("the audit log lacks %+v; it has %d lines", missing, len(got))
	}
	raw, err := os.ReadFile(w.audit)
	if err != nil {
		t.Fatal(err)
	}
	noTokens(t, "the audit log", string(raw), tokens...)
	noHostPath(t, w, "the audit log", string(raw))
	for _, m := range readAudit(t, w) {
		if addr, _ := m["client_addr"].(string); m["skill"] != nil && m["sub"] == nil || !strings.HasPrefix(addr, "127.0.0.1:") {
			t.Errorf("an audit line without the caller or its address: %v", m)
		}
	}
}
