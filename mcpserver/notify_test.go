package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/httpserve"
	"github.com/skillstore/skillstore/internal/servertest"
	"github.com/skillstore/skillstore/mcpserver/mcpgoclient"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/site"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

const listenMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

const listenRequest = `{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourcesListChanged":true,"promptsListChanged":true},` + listenMeta + `}}`

// watchedServer serves a local folder that it watches, as serve does.
func watchedServer(t *testing.T) (*mcpserver.Server, string) {
	t.Helper()
	dir := t.TempDir()
	addSkill(t, dir, "first")
	src, err := backends.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.New([]store.Source{{Label: "project", Location: dir, FS: src}}, store.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(context.Background(), tools.New(s, tools.Options{}), mcpserver.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go srv.Watch(ctx, 0)
	return srv, dir
}

var skillSeq atomic.Int64

func addSkill(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	doc := "---\nname: " + name + "\ndescription: Added during the test.\n---\n# " + name + "\n"
	if err := os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// awaitListChanged adds skill folders until the three list-changed
// notifications have arrived on msgs (the stream may take a moment to be
// registered), and checks each carries the subscription's id.
func awaitListChanged(t *testing.T, dir string, msgs <-chan map[string]any, subID any) {
	t.Helper()
	want := map[string]bool{"notifications/tools/list_changed": true, "notifications/resources/list_changed": true, "notifications/prompts/list_changed": true}
	deadline := time.After(15 * time.Second)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	addSkill(t, dir, fmt.Sprintf("added-%d", skillSeq.Add(1)))
	for len(want) > 0 {
		select {
		case m := <-msgs:
			method, _ := m["method"].(string)
			if !want[method] {
				continue
			}
			if subID != nil {
				params, _ := m["params"].(map[string]any)
				meta, _ := params["_meta"].(map[string]any)
				if meta[mcp.MetaKeySubscriptionID] != subID {
					t.Errorf("%s without the subscription id: %v", method, m)
				}
			}
			delete(want, method)
		case <-tick.C:
			addSkill(t, dir, fmt.Sprintf("added-%d", skillSeq.Add(1)))
		case <-deadline:
			t.Fatalf("no %v after adding skill folders", want)
		}
	}
}

// TestListenStreamHTTP: a 2026-07-28 client holding a subscriptions/listen
// stream hears that the lists changed when a skill folder is added, on
// stateless and stateful HTTP alike.
func TestListenStreamHTTP(t *testing.T) {
	for _, stateless := range []bool{true, false} {
		t.Run(fmt.Sprint("stateless=", stateless), func(t *testing.T) {
			srv, dir := watchedServer(t)
			ts := httptest.NewServer(site.New(srv, site.Options{Stateless: stateless}))
			defer ts.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/mcp", strings.NewReader(listenRequest))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "subscriptions/listen")
			msgs := make(chan map[string]any, 64)
			go func() {
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					return
				}
				defer resp.Body.Close()
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() {
					if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
						var m map[string]any
						if err := json.Unmarshal([]byte(data), &m); err != nil {
							t.Errorf("an event %q: %v", data, err)
							return
						}
						msgs <- m
					}
				}
			}()
			awaitListChanged(t, dir, msgs, "sub-1")
		})
	}
}

// TestListenStreamStdio: the same over stdio, where the listen request
// stays open on the connection.
func TestListenStreamStdio(t *testing.T) {
	srv, dir := watchedServer(t)
	inW, msgs := mcpserver.ServeStdioForTest(t, srv)
	io.WriteString(inW, listenRequest+"\n")
	awaitListChanged(t, dir, msgs, "sub-1")
}

// TestListChangedLegacy: a client on the initialize handshake still gets
// notifications/*/list_changed.
func TestListChangedLegacy(t *testing.T) {
	srv, dir := watchedServer(t)
	c := mcpgoclient.New(srv)
	defer c.Close()
	ctx := context.Background()
	msgs := make(chan map[string]any, 64)
	c.OnNotification(func(n mcp.JSONRPCNotification) { msgs <- map[string]any{"method": n.Method} })
	c.Start(ctx)
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: "2025-11-25"}}); err != nil {
		t.Fatal(err)
	}
	awaitListChanged(t, dir, msgs, nil)
}

// TestShutdownEndsStreams: a graceful shutdown ends the open streams (a
// legacy session's GET stream, a 2026-07-28 subscriptions/listen) at once
// rather than waiting out the grace period for them, and is no error.
func TestShutdownEndsStreams(t *testing.T) {
	srv := servertest.New(t, fixture.MapFS())
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	addrc := make(chan net.Addr, 1)
	served := make(chan error, 1)
	const grace = time.Minute
	go func() {
		served <- httpserve.Serve(ctx, "127.0.0.1:0", site.New(srv, site.Options{}), grace, func(a net.Addr) { addrc <- a })
	}()
	url := "http://" + (<-addrc).String() + "/mcp"
	open := func(method, body string, header map[string]string) <-chan error {
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
			t.Fatalf("%s stream: %d %s", method, resp.StatusCode, ct)
		}
		ended := make(chan error, 1)
		go func() {
			_, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			ended <- err
		}()
		return ended
	}
	init, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	init.Body.Close()
	id := init.Header.Get("Mcp-Session-Id")
	streams := map[string]<-chan error{
		"GET":                  open(http.MethodGet, "", map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}),
		"subscriptions/listen": open(http.MethodPost, listenRequest, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"}),
	}
	start := time.Now()
	stop()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeHTTP after shutdown: %v", err)
		}
	case <-time.After(grace - 10*time.Second):
		t.Fatal("shutdown waited for the open streams")
	}
	for name, ended := range streams {
		select {
		case <-ended:
		case <-time.After(10 * time.Second):
			t.Errorf("the %s stream was not closed", name)
		}
	}
	t.Logf("shutdown took %v", time.Since(start))
}

// refreshCounter is a source that keeps a snapshot (a store.Refresher,
// as a bucket is); it counts its refreshes.
type refreshCounter struct {
	fs.FS
	refreshes atomic.Int32
}

func (r *refreshCounter) Refresh(context.Context) error { r.refreshes.Add(1); return nil }

// watchedCounter is a refreshCounter that is watched (and reports no
// change; its channel closes when ctx ends, as store.Watcher says).
type watchedCounter struct{ *refreshCounter }

func (watchedCounter) Watch(ctx context.Context) (<-chan struct{}, error) {
	ch := make(chan struct{})
	context.AfterFunc(ctx, func() { close(ch) })
	return ch, nil
}

// TestWatchRescansOnlyWatched: once the first catalog is served, Watch
// rescans a watched source once (a change made before its watch began
// would be missed), and no other: a cold replica of a bucket does not
// check the pointer it has just read. It runs on synctest's fake clock:
// synctest.Wait, not a guess, tells when the watch has done what it does.
func TestWatchRescansOnlyWatched(t *testing.T) {
	for _, watched := range []bool{false, true} {
		t.Run(fmt.Sprint("watched=", watched), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rc := &refreshCounter{FS: fstest.MapFS{"a/SKILL.md": {Data: []byte("---\nname: a\ndescription: A.\n---\n")}}}
				var src fs.FS = rc
				if watched {
					src = watchedCounter{rc}
				}
				s, err := store.New([]store.Source{{Label: "bucket", FS: src}}, store.Options{Logger: quiet})
				if err != nil {
					t.Fatal(err)
				}
				srv, err := mcpserver.New(context.Background(), tools.New(s, tools.Options{}), mcpserver.Options{Logger: quiet})
				if err != nil {
					t.Fatal(err)
				}
				srv.Tools() // the first catalog served
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				go srv.Watch(ctx, time.Hour)
				synctest.Wait()         // the watch has begun and rescanned what it rescans
				time.Sleep(time.Minute) // fake time: well within the first period
				synctest.Wait()
				if n, want := rc.refreshes.Load(), map[bool]int32{false: 0, true: 1}[watched]; n != want {
					t.Errorf("the watch refreshed %d times before its first period; want %d", n, want)
				}
			})
		})
	}
}
