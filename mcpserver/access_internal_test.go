package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// recorder is a sink that keeps each notification's method (and URI).
type recorder struct {
	mu  sync.Mutex
	got []string
}

func (r *recorder) send(msg []byte) bool {
	var m struct {
		Method string `json:"method"`
		Params struct {
			URI string `json:"uri"`
		} `json:"params"`
	}
	json.Unmarshal(msg, &m)
	r.mu.Lock()
	r.got = append(r.got, m.Method+" "+m.Params.URI)
	r.mu.Unlock()
	return true
}

// take returns what was recorded since the last call, sorted.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]string{}, r.got...)
	r.got = nil
	sort.Strings(out)
	return out
}

// policyOf is a PolicySource of one policy.
type policyOf struct{ p *access.Policy }

func (p policyOf) Policy() *access.Policy { return p.p }

func writeDoc(t *testing.T, dir, name, body string) {
	t.Helper()
	os.MkdirAll(filepath.Join(dir, name), 0o755)
	doc := "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\n" + body
	if err := os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// teamsServer serves two watched local folders, finance (holding ledger)
// and eng (holding deploy), under a policy that shows each group its own.
func teamsServer(t *testing.T) (srv *Server, st *store.Store, finance, eng string) {
	t.Helper()
	finance, eng = t.TempDir(), t.TempDir()
	writeDoc(t, finance, "ledger", "# Ledger\n")
	writeDoc(t, eng, "deploy", "# Deploy\n")
	var srcs []store.Source
	for _, s := range []struct{ label, dir string }{{"finance", finance}, {"eng", eng}} {
		fsys, err := backends.OpenLocal(s.dir)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, store.Source{Label: s.label, FS: fsys})
	}
	st, err := store.New(srcs, store.Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	srv = policedServer(t, st, "default: deny\nrules:\n  - {groups: [finance], sources: [finance], skills: [\"*\"]}\n  - {groups: [eng], sources: [eng], skills: [\"*\"]}\n")
	return srv, st, finance, eng
}

// notifyChange makes change (nil: a policy reload) and has srv notify
// its recipients of it.
func notifyChange(t *testing.T, srv *Server, st *store.Store, name string, change func()) {
	t.Helper()
	if change == nil {
		srv.PolicyChanged()
		return
	}
	change()
	ctx := context.Background()
	changes, err := st.Refresh(ctx)
	if err != nil || changes.Empty() {
		t.Fatalf("%s: refresh found %+v, %v", name, changes, err)
	}
	srv.changed(ctx, changes)
}

// TestNotificationsFollowTheView: a session or listen stream hears of a
// list change only when its caller's view of the list changed, and of an
// updated skill only if it may see it; a policy reload tells the callers
// under the policy, and nobody else.
func TestNotificationsFollowTheView(t *testing.T) {
	srv, st, finance, eng := teamsServer(t)
	recipients := map[string]*recorder{}
	for _, r := range []struct {
		name             string
		who              *access.Principal
		everyone, stream bool
	}{
		{"alice", &access.Principal{Subject: "alice", Groups: []string{"finance"}}, false, false},
		{"bob", &access.Principal{Subject: "bob", Groups: []string{"eng"}}, false, false},
		{"bob's stream", &access.Principal{Subject: "bob", Groups: []string{"eng"}}, false, true},
		{"in process", nil, true, false},
	} {
		rec := &recorder{}
		recipients[r.name] = rec
		var who func() *caller
		if !r.everyone {
			who = srv.sessionCaller(r.who)
		}
		if r.stream {
			subs := []string{tools.SkillURI("ledger"), tools.SkillURI("deploy")}
			defer srv.hub.listen(&listener{out: rec, id: json.RawMessage(`1`), who: who, filter: mcp.SubscriptionFilter{
				ToolsListChanged: true, ResourcesListChanged: true, PromptsListChanged: true, ResourceSubscriptions: subs}})()
			continue
		}
		ss := srv.newSession(rec)
		ss.who = who
		ss.initialized()
		ss.subscribe(tools.SkillURI("ledger"), true)
		ss.subscribe(tools.SkillURI("deploy"), true)
		defer ss.end()
	}
	lists := []string{"notifications/prompts/list_changed ", "notifications/resources/list_changed ", "notifications/tools/list_changed "}
	steps := []struct {
		name   string
		change func()
		want   map[string][]string
	}{
		{"a finance skill added", func() { writeDoc(t, finance, "payroll", "# Payroll\n") },
			map[string][]string{"alice": lists, "bob": {}, "bob's stream": {}, "in process": lists}},
		{"an eng skill updated", func() { writeDoc(t, eng, "deploy", "# Deploy, longer now\n") },
			map[string][]string{"alice": {}, "bob": {"notifications/resources/list_changed ", "notifications/resources/updated skill://deploy/SKILL.md"},
				"bob's stream": {"notifications/resources/list_changed ", "notifications/resources/updated skill://deploy/SKILL.md"},
				"in process":   {"notifications/resources/list_changed ", "notifications/resources/updated skill://deploy/SKILL.md"}}},
		{"a finance skill updated", func() { writeDoc(t, finance, "ledger", "# Ledger, longer now\n") },
			map[string][]string{"alice": {"notifications/resources/list_changed ", "notifications/resources/updated skill://ledger/SKILL.md"}, "bob": {}, "bob's stream": {},
				"in process": {"notifications/resources/list_changed ", "notifications/resources/updated skill://ledger/SKILL.md"}}},
		{"the policy reloaded", nil, map[string][]string{"alice": lists, "bob": lists, "bob's stream": lists, "in process": {}}},
	}
	for _, step := range steps {
		notifyChange(t, srv, st, step.name, step.change)
		got := map[string][]string{}
		for name, rec := range recipients {
			got[name] = rec.take()
		}
		if diff := cmp.Diff(step.want, got); diff != "" {
			t.Errorf("%s: notifications (-want +got)\n%s", step.name, diff)
		}
	}
}

// BenchmarkCallerGetSkill measures a 4 KB get_skill through the
// dispatcher for everyone (no caller), for an authenticated principal
// without a policy, and for one whose view a policy restricts: what a
// caller costs on top of the call.
func BenchmarkCallerGetSkill(b *testing.B) {
	dir := b.TempDir()
	os.MkdirAll(filepath.Join(dir, "bench"), 0o755)
	head := "---\nname: bench\ndescription: A 4 KB skill.\n---\n"
	os.WriteFile(filepath.Join(dir, "bench", "SKILL.md"), []byte(head+strings.Repeat("x", 4096-len(head))), 0o644)
	other := fstest.MapFS{"hidden/SKILL.md": {Data: []byte("---\nname: hidden\ndescription: Hidden.\n---\n")}}
	fsys, err := backends.OpenLocal(dir)
	if err != nil {
		b.Fatal(err)
	}
	st, _ := store.New([]store.Source{{Label: "team", FS: fsys}, {Label: "other", FS: other}}, store.Options{Logger: quiet()})
	pol, err := access.Parse("policy.yaml", []byte("default: deny\nrules:\n  - {groups: [bench], sources: [team], skills: [\"*\"]}\n"))
	if err != nil {
		b.Fatal(err)
	}
	who := &access.Principal{Subject: "bench", Groups: []string{"bench"}}
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"bench"}}}`)
	for _, c := range []struct {
		name   string
		access PolicySource
		p      *access.Principal
	}{{"everyone", nil, nil}, {"principal", nil, who}, {"policy", policyOf{pol}, who}} {
		srv, err := New(context.Background(), tools.New(st, tools.Options{}), Options{Logger: quiet(), Access: c.access})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				a := srv.handle(context.Background(), source{caller: srv.callerFor(c.p)}, msg)
				if a.code != 0 || !bytes.Contains(a.body, []byte("xxxx")) {
					b.Fatalf("%s", a.body)
				}
				putBuffer(a.body)
			}
		})
	}
}

// policedServer serves st under the access policy given as YAML, its
// first lists built.
func policedServer(t *testing.T, st *store.Store, policy string) *Server {
	t.Helper()
	pol, err := access.Parse("policy.yaml", []byte(policy))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(context.Background(), tools.New(st, tools.Options{}), Options{Logger: quiet(), Access: policyOf{pol}})
	if err != nil {
		t.Fatal(err)
	}
	<-srv.ready
	return srv
}

// TestSessionNotificationsFollowItsToken: an HTTP session's notifications
// serve the principal of its latest request — a refreshed token's groups
// apply at once — and stop once that token has expired, until a request
// with a valid one.
func TestSessionNotificationsFollowItsToken(t *testing.T) {
	srv, st, finance, eng := teamsServer(t)
	h := srv.streamableHTTP(HTTPOptions{MaxSessions: 10, MaxStreams: 10, SessionIdleTTL: time.Hour})
	hour := time.Now().Add(time.Hour)
	asFinance := &access.Principal{Subject: "alice", Groups: []string{"finance"}, Expires: hour}
	asEng := &access.Principal{Subject: "alice", Groups: []string{"eng"}, Expires: hour}
	expired := &access.Principal{Subject: "alice", Groups: []string{"eng"}, Expires: time.Now().Add(-time.Second)}

	rec := &recorder{}
	if _, _, err := h.sessions.admit(principalKey(asFinance)); err != nil {
		t.Fatal(err)
	}
	sess := srv.newSession(rec)
	sess.who = srv.httpSessionCaller(sess, asFinance) // as initialize does
	id := h.sessions.open(sess, asFinance)
	h.sessions.release(id)
	sess.initialized()
	defer sess.end()
	request := func(p *access.Principal) {
		_, done, err := h.sessions.acquire(id, p)
		if err != nil {
			t.Fatal(err)
		}
		done()
	}
	lists := []string{"notifications/prompts/list_changed ", "notifications/resources/list_changed ", "notifications/tools/list_changed "}
	steps := []struct {
		name    string
		request *access.Principal // the session's latest request's principal, if any
		change  func()
		want    []string
	}{
		{"a finance skill added, the session opened as finance", nil, func() { writeDoc(t, finance, "payroll", "# Payroll\n") }, lists},
		{"a finance skill added, the latest token of eng", asEng, func() { writeDoc(t, finance, "budget", "# Budget\n") }, []string{}},
		{"an eng skill added, the latest token of eng", nil, func() { writeDoc(t, eng, "release", "# Release\n") }, lists},
		{"an eng skill added, the latest token expired", expired, func() { writeDoc(t, eng, "rollback", "# Rollback\n") }, []string{}},
		{"the policy reloaded, the latest token expired", nil, nil, []string{}},
		{"an eng skill added, a valid token again", asEng, func() { writeDoc(t, eng, "hotfix", "# Hotfix\n") }, lists},
	}
	for _, step := range steps {
		if step.request != nil {
			request(step.request)
		}
		notifyChange(t, srv, st, step.name, step.change)
		if diff := cmp.Diff(step.want, rec.take()); diff != "" {
			t.Errorf("%s: notifications (-want +got)\n%s", step.name, diff)
		}
	}
}
