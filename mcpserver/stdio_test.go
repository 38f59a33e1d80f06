package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/jsonstr"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// testServer serves fixture.EscapesMapFS rather than the shared fixture:
// the dispatcher's tests need what JSON escaping and the escape memo meet
// under a short name.
func testServer(t testing.TB) *Server {
	t.Helper()
	fsys := fixture.EscapesMapFS()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := store.New([]store.Source{{Label: "project", Location: "./skills", FS: fsys}}, store.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(context.Background(), tools.New(s, tools.Options{}), Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote\" back\\ nl\n tab\t", "\x00\x1f\x7f", "ünï ✓ 日本", "\u2028\u2029", "bad \xff\xfe utf8 \xc3", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := jsonstr.Append(nil, s)
		if !json.Valid(got) {
			t.Fatalf("invalid JSON for %q: %s", s, got)
		}
		var back, want string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q: %s: %v", s, got, err)
		}
		ref, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if back != want {
			t.Fatalf("%q: decodes to %q; encoding/json gives %q", s, back, want)
		}
	})
}

// TestServeStdioRouting checks that the layer's methods and mcp-go's are
// both answered over stdio, on a legacy and on the 2026-07-28 handshake.
func TestServeStdioRouting(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			srv := testServer(t)
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- srv.ServeStdio(ctx, inR, outW) }()
			lines := bufio.NewReader(outR)
			send := func(msg string) map[string]any {
				t.Helper()
				io.WriteString(inW, msg+"\n")
				for {
					line, err := lines.ReadString('\n')
					if err != nil {
						t.Fatal(err)
					}
					var m map[string]any
					if err := json.Unmarshal([]byte(line), &m); err != nil {
						t.Fatalf("%s: %v", line, err)
					}
					if _, isResponse := m["id"]; isResponse {
						return m
					}
				}
			}
			init := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			if init["result"] == nil {
				t.Fatalf("initialize: %v", init)
			}
			io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
			res := send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"calc"}}}`)
			r, _ := res["result"].(map[string]any)
			if r == nil || r["structuredContent"] == nil {
				t.Fatalf("tools/call: %v", res)
			}
			if list := send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); list["result"] == nil {
				t.Errorf("tools/list: %v", list)
			}
			if ping := send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`); ping["result"] == nil {
				t.Errorf("ping: %v", ping)
			}
			inW.Close()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("ServeStdio: %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Error("ServeStdio did not return after stdin closed")
			}
		})
	}
}

func BenchmarkAppendString1MiB(b *testing.B) {
	s := strings.Repeat("0123456789abcde\n", 1<<16)
	buf := make([]byte, 0, 2<<20)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = jsonstr.Append(buf[:0], s)
	}
}

func BenchmarkEncodingJSON1MiB(b *testing.B) {
	s := strings.Repeat("0123456789abcde\n", 1<<16)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if _, err := json.Marshal(s); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEscapeMemo checks that a large text is escaped once and reused, and
// that a different text of the same length is not confused with it.
func TestEscapeMemo(t *testing.T) {
	m := newEscapeMemo(32 << 20)
	a := strings.Repeat("a\"b\n", memoMinBytes/4+1)
	b := strings.Repeat("c\td\\", memoMinBytes/4+1)
	for range 3 {
		for _, s := range []string{a, b} {
			got := m.appendString(nil, s)
			if string(got) != string(jsonstr.Append(nil, s)) {
				t.Fatal("memo returned a different encoding")
			}
		}
	}
	if st := m.c.Stats(); st.Hits != 4 || st.Misses != 2 || st.Entries != 2 {
		t.Errorf("stats = %+v", st)
	}
	small := "short"
	m.appendString(nil, small)
	if st := m.c.Stats(); st.Entries != 2 {
		t.Error("small strings must not be memoized")
	}
}

// slowFS is a skill whose slow.txt blocks until release is called (or
// the test ends).
func slowFS(t *testing.T) (gateFS, func()) {
	g := gateFS{m: fstest.MapFS{
		"calc/SKILL.md": {Data: []byte("---\nname: calc\ndescription: d\n---\nbody")},
		"calc/slow.txt": {Data: []byte("finally")},
	}, gate: make(chan struct{})}
	var once sync.Once
	release := func() { once.Do(func() { close(g.gate) }) }
	t.Cleanup(release)
	return g, release
}

// gateFS blocks reads of slow.txt until its gate is closed.
type gateFS struct {
	m    fstest.MapFS
	gate chan struct{}
}

func (g gateFS) Open(name string) (fs.File, error) {
	if strings.HasSuffix(name, "slow.txt") {
		<-g.gate
	}
	return g.m.Open(name)
}

// TestSlowCallDoesNotBlockReading: an answer that waits on a slow backend
// moves reading to another goroutine, so later requests are answered first.
func TestSlowCallDoesNotBlockReading(t *testing.T) {
	g, release := slowFS(t)
	inW, responses := serveStdio(t, serverOver(t, g))
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	<-responses
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file_in_skill","arguments":{"skill_name":"calc","file_path":"slow.txt"}}}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"calc"}}}`+"\n")
	select {
	case m := <-responses:
		if m["id"] != float64(3) {
			t.Fatalf("first answer: %v; want id 3 while id 2 waits", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a slow call blocked the next request")
	}
	release()
	select {
	case m := <-responses:
		if m["id"] != float64(2) {
			t.Fatalf("second answer: %v", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the slow call never answered")
	}
}

// serverOver builds a server over one source.
func serverOver(t testing.TB, fsys fs.FS) *Server {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := store.New([]store.Source{{Label: "project", FS: fsys}}, store.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(context.Background(), tools.New(s, tools.Options{}), Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// serveStdio serves srv over in-memory stdio: it returns the server's
// stdin and the messages it writes, decoded, until the test ends.
func serveStdio(t *testing.T, srv *Server) (io.Writer, <-chan map[string]any) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	go srv.ServeStdio(context.Background(), inR, outW)
	out := make(chan map[string]any, 4096)
	go func() {
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Errorf("the server wrote %q: %v", line, err)
				return
			}
			out <- m
		}
	}()
	return inW, out
}

// stallFS is a store.ContextFS over m whose reads of stall.txt last until
// their context ends, reporting when they start and end.
type stallFS struct {
	m       fs.FS
	ctx     context.Context
	started chan struct{}
	ended   chan error
}

func (s *stallFS) WithContext(ctx context.Context) fs.FS {
	c := *s
	c.ctx = ctx
	return &c
}

func (s *stallFS) Open(name string) (fs.File, error) {
	if strings.HasSuffix(name, "stall.txt") && s.ctx != nil {
		s.started <- struct{}{}
		<-s.ctx.Done()
		s.ended <- s.ctx.Err()
		return nil, s.ctx.Err()
	}
	return s.m.Open(name)
}

// TestCancelReachesBackendRead: notifications/cancelled ends a call the
// layer answers, down to its backend read, and no answer is sent for it;
// the connection goes on serving.
func TestCancelReachesBackendRead(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			fsys := &stallFS{m: fstest.MapFS{
				"calc/SKILL.md":  {Data: []byte("---\nname: calc\ndescription: d\n---\nbody")},
				"calc/stall.txt": {Data: []byte("never")},
				"calc/other.txt": {Data: []byte("fine")},
			}, started: make(chan struct{}, 4), ended: make(chan error, 4)}
			inW, responses := serveStdio(t, serverOver(t, fsys))
			meta := ""
			if version == "2026-07-28" {
				meta = "," + modernMeta
			} else {
				io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
				<-responses
			}
			io.WriteString(inW, `{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"read_file_in_skill","arguments":{"skill_name":"calc","file_path":"stall.txt"}`+meta+`}}`+"\n")
			select {
			case <-fsys.started:
			case <-time.After(5 * time.Second):
				t.Fatal("the read never started")
			}
			io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"user"}}`+"\n")
			select {
			case err := <-fsys.ended:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("backend read ended with %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("notifications/cancelled did not reach the backend read")
			}
			io.WriteString(inW, `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"skill://calc/other.txt"`+meta+`}}`+"\n")
			select {
			case m := <-responses:
				if m["id"] != float64(3) || m["result"] == nil {
					t.Fatalf("answer %v; want id 3's result and nothing for the cancelled call", m)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the connection stopped serving")
			}
		})
	}
}

// TestStdioFlood: a client that sends far more calls than the server runs
// at once gets a clear error for the excess, and the connection goes on
// reading: ping is answered while every call waits on a stuck backend.
func TestStdioFlood(t *testing.T) {
	g, _ := slowFS(t) // released when the test ends
	inW, responses := serveStdio(t, serverOver(t, g))
	io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	<-responses
	n := maxRunning + maxWaiting + 10
	go func() {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file_in_skill","arguments":{"skill_name":"calc","file_path":"slow.txt"}}}`+"\n", i)
		}
		b.WriteString(`{"jsonrpc":"2.0","id":"ping","method":"ping"}` + "\n")
		io.WriteString(inW, b.String())
	}()
	busy := 0
	for deadline := time.After(20 * time.Second); ; {
		select {
		case m := <-responses:
			if m["id"] == "ping" {
				if busy == 0 {
					t.Error("no call was refused as busy")
				}
				return
			}
			if msg, _ := errorField(m, "message").(string); strings.HasPrefix(msg, "Server busy") {
				busy++
			} else {
				t.Fatalf("unexpected answer while the backend is stuck: %v", m)
			}
		case <-deadline:
			t.Fatalf("ping was not answered (%d busy errors)", busy)
		}
	}
}

// TestStdioMessageLimit: a line over MaxStdioMessageBytes is discarded with
// a clear error, and the connection goes on serving.
func TestStdioMessageLimit(t *testing.T) {
	inW, responses := serveStdio(t, testServer(t))
	go func() {
		io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"`+strings.Repeat("a", MaxStdioMessageBytes+10)+`"}}}`+"\n")
		io.WriteString(inW, `{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"list_skills"}}`+"\n")
	}()
	for i, want := range []string{"Request too large", ""} {
		select {
		case m := <-responses:
			msg, _ := errorField(m, "message").(string)
			if i == 0 && (!strings.HasPrefix(msg, want) || errorField(m, "code") != float64(-32600)) {
				t.Fatalf("oversized line: %v", m)
			}
			if i == 1 && (m["id"] != "after" || m["result"] == nil) {
				t.Fatalf("next call: %v", m)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no answer")
		}
	}
}
