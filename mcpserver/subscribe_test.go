package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// Subscriptions: resources/subscribe on a legacy session (stdio, stateful
// HTTP with a GET stream), subscriptions/listen on 2026-07-28, and which
// list_changed notifications a change gives.

const (
	alphaURI = "skill://alpha/SKILL.md"
	betaURI  = "skill://beta/SKILL.md"
)

// watchedFolder is a skills folder the server watches, as serve does, with
// alpha and beta.
type watchedFolder struct {
	t   *testing.T
	dir string
	tmp string       // where a new SKILL.md is written before it is moved in
	seq atomic.Int64 // versions written, for distinct times and bodies
}

// watchedServer serves a new watched folder.
func newWatchedServer(t *testing.T) (*Server, *watchedFolder) {
	t.Helper()
	f := &watchedFolder{t: t, dir: t.TempDir(), tmp: t.TempDir()}
	writeSkill(t, f.dir, "alpha", "The first skill.", "version 0000\n")
	writeSkill(t, f.dir, "beta", "The second skill.", "version 0000\n")
	src, err := backends.OpenLocal(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.New([]store.Source{{Label: "project", Location: f.dir, FS: src}}, store.Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(context.Background(), tools.New(s, tools.Options{}), Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	<-srv.ready // the first lists, which notify nobody, are built
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go srv.Watch(ctx, 0)
	return srv, f
}

// body rewrites a skill's SKILL.md with a new body of the same size: its
// resource is updated, and no list changes.
func (f *watchedFolder) body(name string) {
	f.write(name, "The "+map[string]string{"alpha": "first", "beta": "second"}[name]+" skill.", fmt.Sprintf("version %04d\n", f.seq.Add(1)%10000))
}

// grow rewrites a skill's SKILL.md with a longer body: its size, which the
// resource list gives, changes too.
func (f *watchedFolder) grow(name string) {
	n := f.seq.Add(1)
	f.write(name, "The "+map[string]string{"alpha": "first", "beta": "second"}[name]+" skill.", fmt.Sprintf("version 0000\n%s\n", strings.Repeat("x", int(n))))
}

// describe gives a skill a new description.
func (f *watchedFolder) describe(name string) {
	f.write(name, fmt.Sprintf("Described anew (%d).", f.seq.Add(1)), "version 0000\n")
}

// add adds a skill folder.
func (f *watchedFolder) add() {
	writeSkill(f.t, f.dir, fmt.Sprintf("gamma-%d", f.seq.Add(1)), "Added.", "body\n")
}

// write replaces a skill's SKILL.md in one rename, with a modification time
// of its own, so the watcher sees one complete change.
func (f *watchedFolder) write(name, description, body string) {
	f.t.Helper()
	tmp := filepath.Join(f.tmp, "SKILL.md")
	doc := "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body
	if err := os.WriteFile(tmp, []byte(doc), 0o644); err != nil {
		f.t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(f.seq.Add(1)) * time.Second)
	if err := os.Chtimes(tmp, at, at); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(f.dir, name, "SKILL.md")); err != nil {
		f.t.Fatal(err)
	}
}

// msg is a decoded JSON-RPC message.
type msg map[string]any

func (m msg) method() string { s, _ := m["method"].(string); return s }

// param returns params[key], or params._meta[key] when meta is set.
func (m msg) param(key string, meta bool) any {
	p, _ := m["params"].(map[string]any)
	if meta {
		p, _ = p["_meta"].(map[string]any)
	}
	return p[key]
}

// updated matches notifications/resources/updated for uri.
func updated(uri string) func(msg) bool {
	return func(m msg) bool {
		return m.method() == "notifications/resources/updated" && m.param("uri", false) == uri
	}
}

// listChanged matches notifications/{list}/list_changed.
func listChanged(list string) func(msg) bool {
	return func(m msg) bool { return m.method() == "notifications/"+list+"/list_changed" }
}

// await reads notes until one matches, calling change at once and then
// every second until it does (the watcher may not be watching yet, or the
// stream not yet registered), and returns the match and the notifications
// read before it.
func await(t *testing.T, notes <-chan msg, what string, match func(msg) bool, change func()) (msg, []msg) {
	t.Helper()
	var before []msg
	change()
	retry := time.NewTicker(time.Second)
	defer retry.Stop()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case m, ok := <-notes:
			if !ok {
				t.Fatalf("the stream ended before %s", what)
			}
			if match(m) {
				return m, before
			}
			before = append(before, m)
		case <-retry.C:
			change()
		case <-deadline:
			t.Fatalf("no %s within 20s; got %v", what, before)
		}
	}
}

// only fails if a notification in got is not one of those allowed.
func only(t *testing.T, who string, got []msg, allowed ...func(msg) bool) {
	t.Helper()
	for _, m := range got {
		ok := false
		for _, a := range allowed {
			ok = ok || a(m)
		}
		if !ok {
			t.Errorf("%s got %v", who, m)
		}
	}
}

// methodSet is the set of methods of msgs and m.
func methodSet(m msg, msgs []msg) map[string]bool {
	set := map[string]bool{m.method(): true}
	for _, m := range msgs {
		set[m.method()] = true
	}
	return set
}

// peer is one client connection: call sends a request and returns its
// answer; notes carries the notifications it receives.
type peer struct {
	call   func(body string) msg
	notify func(body string)
	notes  <-chan msg
}

// stdioPeer connects to srv over in-memory stdio.
func stdioPeer(t *testing.T, srv *Server) *peer {
	inW, out := serveStdio(t, srv)
	answers, notes := make(chan msg, 64), make(chan msg, 4096)
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		for {
			var m msg
			select {
			case m = <-out:
			case <-done:
				return
			}
			to := notes
			if _, ok := m["id"]; ok {
				to = answers
			}
			select {
			case to <- m:
			case <-done:
				return
			}
		}
	}()
	return &peer{
		call: func(body string) msg {
			t.Helper()
			io.WriteString(inW, body+"\n")
			select {
			case m := <-answers:
				return m
			case <-time.After(leakDeadline):
				t.Fatalf("no answer to %s", body)
				return nil
			}
		},
		notify: func(body string) { io.WriteString(inW, body+"\n") },
		notes:  notes,
	}
}

// httpPeer starts a session on a stateful endpoint and opens its GET
// stream.
func httpPeer(t *testing.T, url string) *peer {
	id := startSession(t, url)
	s := openStream(t, http.DefaultClient, http.MethodGet, url, "", legacyHeader(id))
	if !s.open() {
		t.Fatalf("GET stream: %d %s", s.resp.StatusCode, s.body)
	}
	return &peer{
		call: func(body string) msg {
			t.Helper()
			resp, b := testutil.SendMCP(t, http.MethodPost, url, body, legacyHeader(id))
			var m msg
			if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(b), &m) != nil {
				t.Fatalf("%s: %d %s", body, resp.StatusCode, b)
			}
			return m
		},
		notify: func(body string) { testutil.SendMCP(t, http.MethodPost, url, body, legacyHeader(id)) },
		notes:  decoded(events(s.resp.Body)),
	}
}

// decoded decodes a stream's messages.
func decoded(data <-chan string) <-chan msg {
	out := make(chan msg, 4096)
	go func() {
		defer close(out)
		for d := range data {
			var m msg
			if err := json.Unmarshal([]byte(d), &m); err != nil {
				panic(fmt.Sprintf("a stream message %q: %v", d, err)) // no *testing.T here; never expected
			}
			out <- m
		}
	}()
	return out
}

// subscribe sends resources/subscribe or resources/unsubscribe.
func (p *peer) subscribe(t *testing.T, uri string, on bool) {
	t.Helper()
	method := map[bool]string{true: "resources/subscribe", false: "resources/unsubscribe"}[on]
	if m := p.call(`{"jsonrpc":"2.0","id":"s","method":"` + method + `","params":{"uri":"` + uri + `"}}`); m["result"] == nil {
		t.Fatalf("%s %s: %v", method, uri, m)
	}
}

// initialize runs the handshake.
func (p *peer) initialize(t *testing.T) {
	t.Helper()
	if m := p.call(initMsg); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	p.notify(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// TestSubscribeLegacy: on a legacy session, over stdio and stateful HTTP,
// resources/subscribe brings notifications/resources/updated for the URI
// when its SKILL.md changes, and only for it; a session that did not
// subscribe, or unsubscribed, gets none. A change to a body alone changes
// no list; one that changes the body's size changes the resource list
// (which gives sizes) alone; a new description changes every list.
func TestSubscribeLegacy(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			srv, f := newWatchedServer(t)
			connect := func() *peer { return stdioPeer(t, srv) }
			if transport == "http" {
				ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{}))
				t.Cleanup(ts.Close)
				connect = func() *peer { return httpPeer(t, ts.URL+"/mcp") }
			}
			a, b := connect(), connect()
			a.initialize(t)
			b.initialize(t)
			a.subscribe(t, alphaURI, true)
			a.subscribe(t, betaURI, true)
			b.subscribe(t, betaURI, true)

			_, before := await(t, a.notes, "a: alpha updated", updated(alphaURI), func() { f.body("alpha") })
			only(t, "a, before alpha's update", before)
			// b did not subscribe to alpha: had it been told, it would be
			// before beta's update, which is published later.
			_, before = await(t, b.notes, "b: beta updated", updated(betaURI), func() { f.body("beta") })
			only(t, "b, subscribed to beta only, before beta's update", before)
			_, before = await(t, a.notes, "a: beta updated", updated(betaURI), func() {})
			only(t, "a, before beta's update", before, updated(alphaURI))

			a.subscribe(t, alphaURI, false)
			b.subscribe(t, alphaURI, true)
			_, before = await(t, b.notes, "b: alpha updated", updated(alphaURI), func() { f.body("alpha") })
			only(t, "b, before alpha's update", before, updated(betaURI))
			_, before = await(t, a.notes, "a: beta updated", updated(betaURI), func() { f.body("beta") })
			only(t, "a, unsubscribed from alpha, before beta's update", before, updated(betaURI))

			// A size change: the resource list changes, the others do not.
			m, before := await(t, b.notes, "b: alpha updated", updated(alphaURI), func() { f.grow("alpha") })
			only(t, "b, after alpha grew", before, listChanged("resources"), updated(betaURI), updated(alphaURI))
			if got := methodSet(m, before); !got["notifications/resources/list_changed"] {
				t.Errorf("b, after alpha grew: %v; want notifications/resources/list_changed", got)
			}
			// A new description: every list changes.
			m, before = await(t, b.notes, "b: beta updated", updated(betaURI), func() { f.describe("beta") })
			only(t, "b, after beta's description changed", before, listChanged("resources"), listChanged("tools"), listChanged("prompts"), updated(alphaURI))
			want := map[string]bool{"notifications/resources/updated": true, "notifications/resources/list_changed": true,
				"notifications/tools/list_changed": true, "notifications/prompts/list_changed": true}
			if diff := cmp.Diff(want, methodSet(m, before)); diff != "" {
				t.Errorf("b, after beta's description changed (-want +got):\n%s", diff)
			}
			_, before = await(t, a.notes, "a: beta updated", updated(betaURI), func() {})
			only(t, "a, after alpha grew and beta's description changed", before, listChanged("resources"), listChanged("tools"), listChanged("prompts"), updated(betaURI))
		})
	}
}

// TestSubscribeStateless: a stateless endpoint accepts resources/subscribe
// but has no session to remember it by: its GET streams carry list changes
// alone.
func TestSubscribeStateless(t *testing.T) {
	srv, f := newWatchedServer(t)
	ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{Stateless: true}))
	t.Cleanup(ts.Close)
	url := ts.URL + "/mcp"
	id := startSession(t, url)
	if resp, body := testutil.SendMCP(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"`+alphaURI+`"}}`, legacyHeader(id)); resp.StatusCode != http.StatusOK || body != `{"jsonrpc":"2.0","id":2,"result":{}}`+"\n" {
		t.Fatalf("resources/subscribe: %d %s", resp.StatusCode, body)
	}
	s := openStream(t, http.DefaultClient, http.MethodGet, url, "", legacyHeader(id))
	if !s.open() {
		t.Fatalf("GET stream: %d %s", s.resp.StatusCode, s.body)
	}
	notes := decoded(events(s.resp.Body))
	await(t, notes, "resources list_changed", listChanged("resources"), func() { f.grow("alpha") })
	// Had the stream been told of alpha's update, it would come before the
	// list changes of a skill added later.
	_, before := await(t, notes, "tools list_changed", listChanged("tools"), f.add)
	only(t, "a stateless GET stream", before, listChanged("resources"), listChanged("prompts"))
}

// listenPeer opens a 2026-07-28 subscriptions/listen stream with id and
// the filter notifications, over transport, and returns its messages after
// checking its acknowledgement.
func listenPeer(t *testing.T, transport string, srv *Server, url, id, notifications string) <-chan msg {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":"` + id + `","method":"subscriptions/listen","params":{"notifications":` + notifications + `,` + modernMeta + `}}`
	var notes <-chan msg
	if transport == "stdio" {
		p := stdioPeer(t, srv)
		p.notify(body)
		notes = p.notes
	} else {
		s := openStream(t, http.DefaultClient, http.MethodPost, url, body, listenHeader)
		if !s.open() {
			t.Fatalf("listen %s: %d %s", id, s.resp.StatusCode, s.body)
		}
		notes = decoded(events(s.resp.Body))
	}
	select {
	case ack := <-notes:
		var want any
		if err := json.Unmarshal([]byte(notifications), &want); err != nil {
			t.Fatalf("notifications %s: %v", notifications, err)
		}
		if ack.method() != "notifications/subscriptions/acknowledged" || ack.param("io.modelcontextprotocol/subscriptionId", true) != id ||
			!cmp.Equal(ack.param("notifications", false), want) {
			t.Fatalf("listen %s: first message %v", id, ack)
		}
	case <-time.After(leakDeadline):
		t.Fatalf("listen %s: no acknowledgement", id)
	}
	return notes
}

// TestListenSubscriptions: on 2026-07-28 a subscriptions/listen stream
// with resourceSubscriptions gets notifications/resources/updated for its
// URIs, tagged with its id; a stream that did not ask for them gets none,
// and a stream gets only the list changes it asked for.
func TestListenSubscriptions(t *testing.T) {
	for _, transport := range []string{"http stateful", "http stateless", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			srv, f := newWatchedServer(t)
			ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{Stateless: transport == "http stateless"}))
			t.Cleanup(ts.Close)
			url := ts.URL + "/mcp"
			s1 := listenPeer(t, transport, srv, url, "s1", `{"resourceSubscriptions":["`+alphaURI+`"]}`)
			s2 := listenPeer(t, transport, srv, url, "s2", `{"resourcesListChanged":true}`)

			m, before := await(t, s1, "s1: alpha updated", updated(alphaURI), func() { f.body("alpha") })
			only(t, "s1, before alpha's update", before, updated(alphaURI))
			if id := m.param("io.modelcontextprotocol/subscriptionId", true); id != "s1" {
				t.Errorf("alpha's update on s1 tagged %v; want s1: %v", id, m)
			}
			m, before = await(t, s2, "s2: resources list_changed", listChanged("resources"), f.add)
			only(t, "s2, subscribed to the resource list only", before)
			if id := m.param("io.modelcontextprotocol/subscriptionId", true); id != "s2" {
				t.Errorf("the list change on s2 tagged %v; want s2: %v", id, m)
			}
			_, before = await(t, s1, "s1: alpha updated", updated(alphaURI), func() { f.body("alpha") })
			only(t, "s1, subscribed to alpha only, after a skill was added", before, updated(alphaURI))
		})
	}
}

// sinkFunc is a sink that hands each message to a function.
type sinkFunc func(msg []byte) bool

func (f sinkFunc) send(msg []byte) bool { return f(msg) }

// TestListenAckMeansListening: once a subscriptions/listen stream is
// acknowledged, the subscription is established: a change made as soon as
// the client reads the acknowledgement reaches it. This client reacts
// while the server is still sending the acknowledgement (as one on the
// other end of a connection may): the change, published then, must follow
// the acknowledgement on the stream.
func TestListenAckMeansListening(t *testing.T) {
	srv, churn := churnServer(t, quiet())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var got []string
	changed := make(chan struct{})
	out := sinkFunc(func(m []byte) bool {
		mu.Lock()
		got = append(got, string(bytes.TrimSpace(m)))
		mu.Unlock()
		if bytes.Contains(m, []byte("notifications/subscriptions/acknowledged")) {
			go func() { churn(); close(changed) }()
			select { // an established subscription holds the change until the acknowledgement is sent
			case <-changed:
			case <-time.After(500 * time.Millisecond):
			}
		}
		return true
	})
	done := make(chan answer, 1)
	go func() { done <- srv.accept(ctx, source{}, []byte(listenBody("ack"))).run(out) }()
	select {
	case <-changed:
	case <-time.After(leakDeadline):
		t.Fatal("no acknowledgement, or the change never published")
	}
	cancel()
	a := <-done
	if !bytes.Contains(a.body, []byte(`"io.modelcontextprotocol/subscriptionId":"ack"`)) {
		t.Errorf("listen answer %s", clip(a.body))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || !strings.Contains(got[0], "notifications/subscriptions/acknowledged") || !strings.Contains(got[1], `"notifications/tools/list_changed"`) {
		t.Errorf("stream: %q; want the acknowledgement, then the tools list change", got)
	}
}

// TestListenAckFirst: the acknowledgement is the first message of a
// subscriptions/listen stream, however busy the server is publishing
// changes when the stream opens.
func TestListenAckFirst(t *testing.T) {
	srv := testServer(t)
	stop := make(chan struct{})
	published := make(chan struct{})
	go func() { // changes published all along
		defer close(published)
		for {
			select {
			case <-stop:
				return
			default:
				srv.hub.publish(notice{method: "notifications/tools/list_changed"})
			}
		}
	}()
	defer func() { close(stop); <-published }()
	for i := range 200 {
		ctx, cancel := context.WithCancel(context.Background())
		first := make(chan string, 1)
		var n atomic.Int64
		out := sinkFunc(func(m []byte) bool {
			if n.Add(1) == 1 {
				first <- string(m)
			}
			if n.Load() == 3 {
				cancel() // the stream carries notifications after its acknowledgement
			}
			return true
		})
		a := srv.accept(ctx, source{}, []byte(listenBody(fmt.Sprint("first-", i)))).run(out)
		cancel()
		if m := <-first; !strings.Contains(m, "notifications/subscriptions/acknowledged") {
			t.Fatalf("stream %d: first message %s; answer %s", i, m, clip(a.body))
		}
	}
}

// flushWriter is a ResponseWriter, safe for concurrent use, whose first
// Flush (the one that sends the headers) calls onFlush: a client that acts
// as soon as its stream is answered.
type flushWriter struct {
	mu      sync.Mutex
	header  http.Header
	body    bytes.Buffer
	status  int
	onFlush func()
	flushed bool
}

func (w *flushWriter) Header() http.Header { return w.header }
func (w *flushWriter) WriteHeader(code int) {
	w.mu.Lock()
	w.status = code
	w.mu.Unlock()
}
func (w *flushWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.body.Write(p)
}
func (w *flushWriter) Flush() {
	w.mu.Lock()
	first := !w.flushed
	w.flushed = true
	w.mu.Unlock()
	if first {
		w.onFlush()
	}
}
func (w *flushWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.body.String()
}

// TestGetStreamLiveWhenAnswered: a legacy GET stream receives the session's
// notifications from the moment its headers are sent: a change made as
// soon as the client sees them reaches it.
func TestGetStreamLiveWhenAnswered(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprint("stateless=", stateless), func(t *testing.T) {
			srv, churn := churnServer(t, quiet())
			h := srv.streamableHTTP(HTTPOptions{Stateless: stateless, MaxSessions: 10, MaxStreams: 10, SessionIdleTTL: time.Hour, BodyTimeout: time.Minute})
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close)
			id := startSession(t, ts.URL)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/mcp", nil)
			for k, v := range legacyHeader(id) {
				req.Header.Set(k, v)
			}
			w := &flushWriter{header: http.Header{}, onFlush: churn}
			served := make(chan struct{})
			go func() { h.ServeHTTP(w, req); close(served) }()
			within(t, "the tools list change on the stream", func() bool { return strings.Contains(w.String(), "notifications/tools/list_changed") })
			cancel()
			<-served
			if w.status != http.StatusOK {
				t.Errorf("status %d", w.status)
			}
		})
	}
}
