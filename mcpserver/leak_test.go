package mcpserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// What streams leave behind: a thousand streams opened and dropped, a
// client that disconnects mid-stream, a stream that is never read while
// the server publishes, and a stdio listen stream when the input ends.
// Each leaves no goroutine, no place under the stream cap, no listener in
// the hub and no memory behind.

// leakDeadline is how long the tests wait for what a stream leaves to go.
const leakDeadline = 10 * time.Second

// within polls cond until it holds, failing after leakDeadline.
func within(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !testutil.Within(leakDeadline, cond) {
		t.Fatalf("%s: not within %v", what, leakDeadline)
	}
}

// goroutineBaseline returns the number of goroutines once it has held for
// a quarter of a second (what earlier steps started has wound down).
func goroutineBaseline() int {
	n, stable := runtime.NumGoroutine(), 0
	for deadline := time.Now().Add(5 * time.Second); stable < 5 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond) // real time: "settled" is a count unchanged for a while; no event says it
		if m := runtime.NumGoroutine(); m != n {
			n, stable = m, 0
		} else {
			stable++
		}
	}
	return n
}

// waitGoroutines waits until no more than base goroutines run, and fails
// listing every goroutine's stack if they do not within leakDeadline.
func waitGoroutines(t *testing.T, base int) {
	t.Helper()
	if !testutil.Within(leakDeadline, func() bool { return runtime.NumGoroutine() <= base }) {
		t.Fatalf("%d goroutines, %d before the streams:\n%s", runtime.NumGoroutine(), base, goroutineStacks())
	}
}

// goroutineStacks is every goroutine's stack, each file named by its base
// name (no host path).
func goroutineStacks() string {
	buf := make([]byte, 8<<20)
	buf = buf[:runtime.Stack(buf, true)]
	lines := strings.Split(string(buf), "\n")
	for i, l := range lines {
		if rest, ok := strings.CutPrefix(l, "\t"); ok && strings.Contains(rest, "/") {
			lines[i] = "\t" + filepath.Base(rest)
		}
	}
	return strings.Join(lines, "\n")
}

// liveHeap is the heap in use once garbage is collected (twice, so pooled
// buffers are gone too).
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// gauge reads one of the endpoint's gauges, as package site shows it on
// /metrics.
func gauge(t *testing.T, h *Endpoint, name string) int {
	t.Helper()
	n, found := 0, false
	h.WriteGauges(func(g, _ string, v int64) {
		if g == name {
			n, found = int(v), true
		}
	})
	if !found {
		t.Fatalf("the endpoint has no gauge %s", name)
	}
	return n
}

// initWith initializes a legacy session through c and returns its id.
func initWith(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	post := func(body string, header map[string]string) *http.Response {
		resp, err := c.Do(mcpRequest(context.Background(), http.MethodPost, url, body, header))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := post(initMsg, nil)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, id)
	}
	if resp := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, legacyHeader(id)); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", resp.StatusCode)
	}
	return id
}

// legacyHeader is the header of a 2025-11-25 request in session id.
func legacyHeader(id string) map[string]string {
	return map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}
}

// hubCounts is how many sessions and listen streams the hub holds.
func hubCounts(h *hub) (sessions, listeners int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions), len(h.listeners)
}

// sessionsWithOut counts the hub's sessions whose notifications go to a
// stream.
func sessionsWithOut(h *hub) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for ss := range h.sessions {
		ss.mu.Lock()
		if ss.out != nil {
			n++
		}
		ss.mu.Unlock()
	}
	return n
}

// TestThousandStreamsLeaveNothing: 1,000 streams open at once — legacy GET
// streams of 500 sessions and 500 2026-07-28 subscriptions/listen streams
// — then dropped by their clients leave no goroutine, no place under the
// stream cap (/metrics), no listener or stream sink in the hub, and no
// memory behind, on stateful and stateless endpoints.
func TestThousandStreamsLeaveNothing(t *testing.T) {
	const gets, listens = 500, 500
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprint("stateless=", stateless), func(t *testing.T) {
			srv := testServer(t)
			h := srv.HTTPHandler(HTTPOptions{Stateless: stateless, MaxStreams: gets + listens, MaxSessions: gets})
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close) // after the streams' clean-ups, which run first
			url := ts.URL + "/mcp"
			c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
			t.Cleanup(c.CloseIdleConnections)
			ids := make([]string, gets)
			for i := range ids {
				ids[i] = initWith(t, c, url)
			}
			open := func(i int) *stream {
				if i%2 == 0 {
					return dialStream(t, c, http.MethodGet, url, "", legacyHeader(ids[i/2]))
				}
				return dialStream(t, c, http.MethodPost, url, listenBody(fmt.Sprint("sub-", i)), listenHeader)
			}
			open(0).close() // grow what a first stream of each kind grows, once
			open(1).close()
			within(t, "the warm-up streams released", func() bool { return gauge(t, h, "skillstore_http_streams") == 0 })
			c.CloseIdleConnections()
			reserveGoroutines(6 * (gets + listens))
			base, heapBase := goroutineBaseline(), liveHeap()

			streams := make([]*stream, gets+listens)
			t.Cleanup(func() { closeAll(streams) })
			for i := range streams {
				if streams[i] = open(i); !streams[i].open() {
					t.Fatalf("stream %d: %d %s", i, streams[i].resp.StatusCode, streams[i].body)
				}
			}
			if n := gauge(t, h, "skillstore_http_streams"); n != len(streams) {
				t.Fatalf("skillstore_http_streams %d with every stream open; want %d", n, len(streams))
			}
			if n := sessionsWithOut(srv.hub); n != gets {
				t.Errorf("%d sessions stream to a client; want %d", n, gets)
			}
			goroutinesOpen, heapOpen := runtime.NumGoroutine(), liveHeap()

			closeAll(streams)
			clear(streams) // the test keeps nothing of them
			within(t, "skillstore_http_streams back to 0", func() bool { return gauge(t, h, "skillstore_http_streams") == 0 })
			c.CloseIdleConnections()
			waitGoroutines(t, base)
			heapAfter := liveHeap()
			t.Logf("goroutines: %d before, %d with %d streams open; heap: %d KiB before, +%d KiB open, %+d KiB after",
				base, goroutinesOpen, len(streams), heapBase>>10, (int64(heapOpen)-int64(heapBase))>>10, (int64(heapAfter)-int64(heapBase))>>10)
			// What a stream holds (buffers, its session's sink, the hub's
			// entry) is kilobytes; a megabyte over a thousand streams is a
			// leak of a kilobyte each.
			if heapAfter > heapBase+1<<20 {
				t.Errorf("heap %d KiB after the streams closed; %d KiB before (%d KiB with them open)", heapAfter>>10, heapBase>>10, heapOpen>>10)
			}
			sessions, listeners := hubCounts(srv.hub)
			wantSessions := gets // the stateful sessions outlive their streams
			if stateless {
				wantSessions = 0 // a stateless GET stream's session is its own
			}
			if sessions != wantSessions || listeners != 0 || sessionsWithOut(srv.hub) != 0 {
				t.Errorf("hub after the streams closed: %d sessions (want %d), %d listeners, %d sessions streaming; want none streaming",
					sessions, wantSessions, listeners, sessionsWithOut(srv.hub))
			}
		})
	}
}

// reserveGoroutines runs n goroutines at once and ends them. The runtime
// never frees a goroutine's descriptor (about 400 bytes) but keeps it for
// the next goroutine, so a test that measures the heap across thousands of
// goroutines makes them first.
func reserveGoroutines(n int) {
	var started sync.WaitGroup
	release := make(chan struct{})
	started.Add(n)
	for range n {
		go func() {
			started.Done()
			<-release
		}()
	}
	started.Wait()
	close(release)
}

// closeAll closes the streams that are set.
func closeAll(streams []*stream) {
	for _, s := range streams {
		if s != nil {
			s.close()
		}
	}
}

// churnServer serves a local folder (not watched) and returns a function
// that changes its catalog (a skill added or removed) and syncs the lists,
// as Watch does: each call makes the server publish a list_changed
// notification for tools, resources and prompts.
func churnServer(t *testing.T, log *slog.Logger) (srv *Server, churn func()) {
	t.Helper()
	dir := t.TempDir()
	writeSkill(t, dir, "first", "The first skill.", "body\n")
	src, err := backends.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.New([]store.Source{{Label: "project", Location: dir, FS: src}}, store.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	if srv, err = New(context.Background(), tools.New(s, tools.Options{}), Options{Logger: log}); err != nil {
		t.Fatal(err)
	}
	<-srv.ready // the first lists, which notify nobody, are built
	extra := false
	return srv, func() {
		t.Helper()
		if extra = !extra; extra {
			writeSkill(t, dir, "extra", "Comes and goes.", "body\n")
		} else if err := os.RemoveAll(filepath.Join(dir, "extra")); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		srv.Sync(context.Background())
	}
}

// writeSkill writes a skill folder's SKILL.md.
func writeSkill(t *testing.T, dir, name, description, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	doc := "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body
	if err := os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// events reads a stream's SSE data lines onto a channel until the stream
// ends, when the channel is closed.
func events(body io.Reader) <-chan string {
	ch := make(chan string, 4096)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				select {
				case ch <- data:
				default: // nobody reads this far: drop
				}
			}
		}
	}()
	return ch
}

// TestDisconnectMidStream: a client that goes away after reading the first
// event of its stream — a listen stream's acknowledgement, a GET stream's
// first list_changed — leaves no goroutine, no place under the cap and no
// sink in the hub, and its session may open a stream again.
func TestDisconnectMidStream(t *testing.T) {
	for _, tt := range []struct {
		name      string
		stateless bool
		get       bool
	}{
		{"GET stateful", false, true},
		{"GET stateless", true, true},
		{"listen stateful", false, false},
		{"listen stateless", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, churn := churnServer(t, quiet())
			h := srv.HTTPHandler(HTTPOptions{Stateless: tt.stateless})
			ts := httptest.NewServer(h)
			t.Cleanup(ts.Close)
			url := ts.URL + "/mcp"
			c := &http.Client{Transport: &http.Transport{}}
			t.Cleanup(c.CloseIdleConnections)
			id := initWith(t, c, url)
			c.CloseIdleConnections()
			base := goroutineBaseline()

			var s *stream
			if tt.get {
				s = openStream(t, c, http.MethodGet, url, "", legacyHeader(id))
			} else {
				s = openStream(t, c, http.MethodPost, url, listenBody("mid"), listenHeader)
			}
			if !s.open() {
				t.Fatalf("stream: %d %s", s.resp.StatusCode, s.body)
			}
			ev := events(s.resp.Body)
			want := "notifications/subscriptions/acknowledged"
			if tt.get {
				want = "notifications/tools/list_changed"
				churn() // the stream's sink is set before its headers are sent
			}
			select {
			case data := <-ev:
				if !strings.Contains(data, want) {
					t.Fatalf("first event %s; want %s", data, want)
				}
			case <-time.After(leakDeadline):
				t.Fatalf("no first event (%s)", want)
			}
			s.close()
			within(t, "skillstore_http_streams back to 0", func() bool { return gauge(t, h, "skillstore_http_streams") == 0 })
			c.CloseIdleConnections()
			waitGoroutines(t, base)
			if _, listeners := hubCounts(srv.hub); listeners != 0 || sessionsWithOut(srv.hub) != 0 {
				t.Errorf("hub after the client left: %d listeners, %d sessions streaming", listeners, sessionsWithOut(srv.hub))
			}
			churn() // publishing to nobody blocks nothing
			if tt.get {
				again := openStream(t, c, http.MethodGet, url, "", legacyHeader(id))
				if !again.open() {
					t.Errorf("the session's next GET stream: %d %s", again.resp.StatusCode, again.body)
				}
				again.close()
			}
		})
	}
}

// quiet is a logger that discards.
func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// logRecorder keeps the records logged through it.
type logRecorder struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	l.recs = append(l.recs, r.Clone())
	l.mu.Unlock()
	return nil
}

// dropped returns the dropped counts of the "messages were dropped"
// records.
func (l *logRecorder) dropped() []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []int64
	for _, r := range l.recs {
		if !strings.Contains(r.Message, "messages were dropped") {
			continue
		}
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "dropped" {
				out = append(out, a.Value.Int64())
			}
			return true
		})
	}
	return out
}

// smallSendBuffers makes the kernel's send buffer of every accepted
// connection small (and fixed), so a client that does not read blocks the
// server's writes after kilobytes rather than megabytes.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(4 << 10)
	}
	return c, err
}

// smallReceiveBuffers is a client transport whose connections have small
// kernel receive buffers.
func smallReceiveBuffers() *http.Transport {
	return &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetReadBuffer(4 << 10)
		}
		return c, err
	}}
}

// TestUnreadStreamBounded: streams whose clients never read them, while
// the server publishes thousands of notifications, hold at most their
// buffer each (the rest is dropped, and the drop logged), and end once a
// write has blocked for sseWriteTimeout; a stream that is read meanwhile
// gets its notifications.
func TestUnreadStreamBounded(t *testing.T) {
	// The write timeout bounds the publishing (to half of it): long
	// enough that a loaded machine running the race detector still
	// publishes many times a stream's buffer (8 s published only 486 once).
	const timeout = 16 * time.Second
	old := sseWriteTimeout
	sseWriteTimeout = timeout
	t.Cleanup(func() { sseWriteTimeout = old })
	rec := &logRecorder{}
	srv, churn := churnServer(t, slog.New(rec))
	h := srv.HTTPHandler(HTTPOptions{})
	ts, serverConns := smallBufferServer(t, h)
	url := ts.URL + "/mcp"
	c := &http.Client{Transport: smallReceiveBuffers()}
	t.Cleanup(c.CloseIdleConnections)
	const gets, listens = 8, 8
	ids := make([]string, gets)
	for i := range ids {
		ids[i] = initWith(t, c, url)
	}
	c.CloseIdleConnections()
	base := goroutineBaseline()
	unread := openStreams(t, c, url, ids, listens)
	read := openStream(t, c, http.MethodPost, url, listenBody("read"), listenHeader)
	readChanges := countEvents(read.resp.Body, `"notifications/tools/list_changed"`)
	heapBefore := liveHeap()

	// Publish for a second at least (so that every unread stream's socket
	// buffers fill and its writes block, however fast the publishing) and
	// at most half the write timeout, so that every unread stream is still
	// open, its writes blocked, when the heap is measured.
	start, published := time.Now(), 0
	for ; (published < 1200 || time.Since(start) < time.Second) && time.Since(start) < timeout/2; published += 3 {
		churn()
	}
	heapFlooded := liveHeap()
	if open := gauge(t, h, "skillstore_http_streams"); open != len(unread)+1 {
		t.Fatalf("%d streams open after publishing for %v; want %d (the timeout is %v)", open, time.Since(start), len(unread)+1, timeout)
	}
	// Unbounded, each stream would hold every notification (a slice
	// header, and a listen stream's own copy of about 100 bytes); bounded,
	// it holds sseBuffer of them and the one being written.
	perStream := (int64(heapFlooded) - int64(heapBefore)) / int64(len(unread))
	t.Logf("%d notifications published in %v to %d unread streams: heap +%d bytes per stream", published, time.Since(start).Round(time.Millisecond), len(unread), perStream)
	if published < 10*sseBuffer {
		t.Fatalf("only %d notifications published; the test needs many more than a stream's buffer", published)
	}
	if limit := int64(sseBuffer * 256); perStream > limit {
		t.Errorf("an unread stream holds %d bytes after %d notifications; want at most %d", perStream, published, limit)
	}

	within(t, "the read stream's notifications", func() bool { return readChanges.Load() > 0 })
	if !testutil.Within(timeout+leakDeadline, func() bool { return gauge(t, h, "skillstore_http_streams") == 1 }) {
		t.Fatalf("unread streams still open %v after their writes blocked", timeout+leakDeadline)
	}
	within(t, "the server closing the unread streams' connections", func() bool { return serverConns() == 1 }) // the read stream's
	if d := rec.dropped(); len(d) != len(unread) || slices.Min(d) <= 0 {
		t.Errorf("dropped-message warnings: %v; want one per unread stream, each counting drops", d)
	}
	read.close()
	closeAll(unread)
	c.CloseIdleConnections()
	waitGoroutines(t, base)
	if sessions, listeners := hubCounts(srv.hub); listeners != 0 || sessionsWithOut(srv.hub) != 0 || sessions != gets {
		t.Errorf("hub after the streams ended: %d sessions (want %d), %d listeners, %d streaming", sessions, gets, listeners, sessionsWithOut(srv.hub))
	}
}

// smallBufferServer serves h on connections with small send buffers, and
// counts the connections the server holds open.
func smallBufferServer(t *testing.T, h http.Handler) (ts *httptest.Server, open func() int) {
	ts = httptest.NewUnstartedServer(h)
	ts.Listener = smallSendBuffers{ts.Listener}
	var conns sync.Map
	ts.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateClosed || st == http.StateHijacked {
			conns.Delete(c)
		} else {
			conns.Store(c, true)
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	return ts, func() int {
		n := 0
		conns.Range(func(any, any) bool { n++; return true })
		return n
	}
}

// openStreams opens a GET stream for each session of ids, then listens
// 2026-07-28 subscriptions/listen streams.
func openStreams(t *testing.T, c *http.Client, url string, ids []string, listens int) []*stream {
	t.Helper()
	var out []*stream
	for i := range len(ids) + listens {
		var s *stream
		if i < len(ids) {
			s = openStream(t, c, http.MethodGet, url, "", legacyHeader(ids[i]))
		} else {
			s = openStream(t, c, http.MethodPost, url, listenBody(fmt.Sprint("unread-", i)), listenHeader)
		}
		if !s.open() {
			t.Fatalf("stream %d: %d %s", i, s.resp.StatusCode, s.body)
		}
		out = append(out, s)
	}
	return out
}

// countEvents reads a stream to its end, counting (not keeping) the events
// that contain what.
func countEvents(body io.Reader, what string) *atomic.Int64 {
	var n atomic.Int64
	go func() {
		for data := range events(body) {
			if strings.Contains(data, what) {
				n.Add(1)
			}
		}
	}()
	return &n
}

// TestStdioListenEndsWithInput: subscriptions/listen streams open on a
// stdio connection end when its input closes: ServeStdio answers each and
// returns, and leaves no goroutine behind.
func TestStdioListenEndsWithInput(t *testing.T) {
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprint(n, " streams"), func(t *testing.T) {
			srv := testServer(t)
			base := goroutineBaseline()
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			served := make(chan error, 1)
			go func() {
				served <- srv.ServeStdio(context.Background(), inR, outW)
				outW.Close()
			}()
			lines := make(chan string, 64)
			go func() {
				defer close(lines)
				sc := bufio.NewScanner(outR)
				for sc.Scan() {
					lines <- sc.Text()
				}
			}()
			for i := range n {
				io.WriteString(inW, listenBody(fmt.Sprint("stdio-", i))+"\n")
			}
			acks := 0
			for acks < n {
				select {
				case l := <-lines:
					if strings.Contains(l, "notifications/subscriptions/acknowledged") {
						acks++
					}
				case <-time.After(leakDeadline):
					t.Fatalf("%d of %d acknowledgements", acks, n)
				}
			}
			within(t, "the listeners registered", func() bool { _, l := hubCounts(srv.hub); return l == n })
			inW.Close()
			select {
			case err := <-served:
				if err != nil {
					t.Errorf("ServeStdio: %v", err)
				}
			case <-time.After(leakDeadline):
				t.Fatal("ServeStdio did not return after its input closed")
			}
			answered := 0
			for l := range lines {
				if strings.Contains(l, `"result"`) && strings.Contains(l, `"io.modelcontextprotocol/subscriptionId":"stdio-`) {
					answered++
				}
			}
			if answered != n {
				t.Errorf("%d of %d listen streams answered when the input closed", answered, n)
			}
			waitGoroutines(t, base)
			if sessions, listeners := hubCounts(srv.hub); sessions != 0 || listeners != 0 {
				t.Errorf("hub after the connection ended: %d sessions, %d listeners", sessions, listeners)
			}
		})
	}
}
