package ui

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/parser"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// gatedMarkdown counts the documents it converts, and holds each until
// release is closed.
type gatedMarkdown struct {
	goldmark.Markdown
	converts atomic.Int32
	release  chan struct{}
}

func (g *gatedMarkdown) Convert(src []byte, w io.Writer, opts ...parser.ParseOption) error {
	g.converts.Add(1)
	<-g.release
	return g.Markdown.Convert(src, w, opts...)
}

// pagesOver is the pages over one skill, "doc", with body as its
// document, its Markdown converted by md.
func pagesOver(t *testing.T, body string, opts Options) (*UI, *gatedMarkdown) {
	t.Helper()
	s, err := store.New([]store.Source{{Label: "l", Location: "./l", FS: fstest.MapFS{
		"doc/SKILL.md": {Data: []byte("---\nname: doc\ndescription: A document.\n---\n" + body)},
	}}}, store.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	v := tools.New(s, tools.Options{}).View()
	opts.View = func(*http.Request) *store.View { return v }
	u := New(opts)
	g := &gatedMarkdown{Markdown: u.md, release: make(chan struct{})}
	u.md = g
	return u, g
}

func view(u *UI, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	u.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+target, nil))
	return w
}

// TestRenderShared: concurrent views of one document render it once, and
// every view shows that rendering; a later view renders nothing. It runs
// in a synctest bubble: synctest.Wait, not a guess, tells when every view
// has reached the render.
func TestRenderShared(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u, g := pagesOver(t, "# Shared\n\nOne *render*.\n", Options{})
		const views = 8
		var wg sync.WaitGroup
		bodies := make([]string, views)
		for i := range views {
			wg.Go(func() {
				w := view(u, "/skills/doc")
				if w.Code != http.StatusOK {
					t.Errorf("view %d: %d", i, w.Code)
				}
				bodies[i] = w.Body.String()
			})
		}
		// Every view reaches the render (each would start its own without
		// sharing) and blocks; then the renders finish.
		synctest.Wait()
		close(g.release)
		wg.Wait()
		if n := g.converts.Load(); n != 1 {
			t.Errorf("%d concurrent views rendered the document %d times, want 1", views, n)
		}
		for i, b := range bodies {
			if !strings.Contains(b, "<em>render</em>") {
				t.Errorf("view %d does not show the rendering: %.200s", i, b)
			}
		}
		view(u, "/skills/doc")
		view(u, "/skills/doc/files/SKILL.md")
		if n := g.converts.Load(); n != 1 { // the file page shows the same rendering
			t.Errorf("after more views, %d renders, want 1", n)
		}
	})
}

// TestRenderSlots: no more than maxRenders documents render at once; a
// view waiting for a slot gives up when its request's context ends
// (the page then answers 503, Too slow), and a later view renders.
func TestRenderSlots(t *testing.T) {
	u, g := pagesOver(t, "# Waiting\n\nSome *text*.\n", Options{Timeout: 50 * time.Millisecond})
	close(g.release)
	for range maxRenders { // every slot taken by renders of other documents
		u.slots <- struct{}{}
	}
	w := view(u, "/skills/doc")
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "Too slow") {
		t.Errorf("a view with every render slot taken: %d %.300s, want 503 Too slow", w.Code, w.Body.String())
	}
	if n := g.converts.Load(); n != 0 {
		t.Errorf("%d renders while every slot was taken", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := httptest.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1/skills/doc/files/SKILL.md", nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		u.ServeHTTP(httptest.NewRecorder(), r)
	}()
	cancel() // the client leaves
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a view waiting for a render slot did not end when its request's context did")
	}
	for range maxRenders {
		<-u.slots
	}
	u.opts.Timeout = 0 // a loaded machine may take longer than the bound above to answer
	if w := view(u, "/skills/doc"); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "<em>text</em>") {
		t.Errorf("a view once slots are free: %d %.300s", w.Code, w.Body.String())
	}
	if n := g.converts.Load(); n != 1 {
		t.Errorf("%d renders, want 1", n)
	}
}
