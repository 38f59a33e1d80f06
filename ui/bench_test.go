package ui_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/skillgen"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
	"github.com/skillstore/skillstore/ui"
)

// benchPages serves the pages over fsys, its catalog built and indexed.
func benchPages(b *testing.B, fsys fstest.MapFS) http.Handler {
	b.Helper()
	s, err := store.New([]store.Source{{Label: "bench", Location: "./bench", FS: fsys}}, store.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.View(nil).List(ctx); err != nil {
		b.Fatal(err)
	}
	if err := s.Indexed(ctx); err != nil {
		b.Fatal(err)
	}
	v := tools.New(s, tools.Options{}).View()
	return ui.New(ui.Options{View: func(*http.Request) *store.View { return v }})
}

// catalogFS is skillgen's first n realistic skills, SKILL.md each.
func catalogFS(n int) fstest.MapFS {
	m := fstest.MapFS{}
	for _, sk := range skillgen.Catalog(n) {
		doc := "---\nname: " + sk.Name + "\ndescription: " + fmt.Sprintf("%q", sk.Description) + "\n---\n" + sk.Body
		m[sk.Name+"/SKILL.md"] = &fstest.MapFile{Data: []byte(doc)}
	}
	return m
}

// serve answers target once; it fails b unless the answer is 200.
func serve(b *testing.B, h http.Handler, target string) int {
	r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+target, nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		b.Fatalf("GET %s: %d\n%.300s", target, w.Code, w.Body.String())
	}
	return w.Body.Len()
}

// BenchmarkIndexPage renders the index (its first and its middle page of
// 50 skills, and a search as typed) over 10,000 and 100,000 realistic
// skills: the server's time per page, and bytes-sent the page's size.
func BenchmarkIndexPage(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		h := benchPages(b, catalogFS(n))
		for _, c := range []struct{ name, target string }{
			{"first", "/"},
			{"middle", fmt.Sprintf("/?page=%d", n/100)},
			{"search", "/?q=pdf+forms"},
			{"search-part", "/?q=pdf+forms"},
		} {
			b.Run(fmt.Sprintf("skills=%d/%s", n, c.name), func(b *testing.B) {
				var size int
				hdr := c.name == "search-part"
				for b.Loop() {
					r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+c.target, nil)
					if hdr {
						r.Header.Set("X-Skillstore-Part", "results")
					}
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
					if w.Code != http.StatusOK {
						b.Fatalf("%d", w.Code)
					}
					size = w.Body.Len()
				}
				b.ReportMetric(float64(size), "bytes-sent")
			})
		}
	}
}

// BenchmarkSkillPage renders the page of a skill of 500 files (SKILL.md
// of about 8 KB of Markdown, files in 10 folders): warm, with every
// digest and the rendered Markdown remembered, as a second visit finds
// them; and cold, each visit a new server, every file read for its
// digest and the Markdown rendered.
func BenchmarkSkillPage(b *testing.B) {
	m := fstest.MapFS{}
	body := strings.Repeat("## A step\n\nRun `tool --flag` on the [reference](docs/d0/f0.md), then check the **output** against the table:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- one\n- two\n\n", 40)
	m["big/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: big\ndescription: A skill of 500 files.\n---\n# Big\n\n" + body)}
	for i := range 499 {
		m[fmt.Sprintf("big/docs/d%d/f%d.md", i%10, i)] = &fstest.MapFile{Data: []byte(strings.Repeat(fmt.Sprintf("line %d of a supporting file\n", i), 40))}
	}
	var size int
	b.Run("warm", func(b *testing.B) {
		h := benchPages(b, m)
		serve(b, h, "/skills/big")
		for b.Loop() {
			size = serve(b, h, "/skills/big")
		}
		b.ReportMetric(float64(size), "bytes-sent")
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			h := benchPages(b, m)
			b.StartTimer()
			size = serve(b, h, "/skills/big")
		}
		b.ReportMetric(float64(size), "bytes-sent")
	})
}

// BenchmarkHostilePage renders, cold (no Markdown remembered), the pages
// of the hostile corpus's pathological documents: 3,000 unclosed links
// (rendered: under the bracket bound), a thousand levels of nesting and a
// 1 MiB line (shown as plain text, past the bounds).
func BenchmarkHostilePage(b *testing.B) {
	s, err := store.New([]store.Source{{Label: "hostile", Location: "./hostile", FS: fixture.HostileMapFS()}}, store.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	v := tools.New(s, tools.Options{}).View()
	for _, name := range []string{"unclosed-links", "deep", "deep-lists", "long-line", "xss"} {
		b.Run(name, func(b *testing.B) {
			var size int
			for b.Loop() {
				b.StopTimer()
				h := ui.New(ui.Options{View: func(*http.Request) *store.View { return v }})
				b.StartTimer()
				size = serve(b, h, "/skills/"+name)
			}
			b.ReportMetric(float64(size), "bytes-sent")
		})
	}
}
