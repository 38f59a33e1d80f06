package ui

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"html/template"
	"net/http"
	"path"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skillstore/skillstore/internal/hidden"
	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// page is what the layout needs of every page.
type page struct {
	Title   string
	Nav     string // the section the page belongs to: "skills", "sources", "connect"
	Token   bool   // the server asks for a token: the script sends the tab's
	Reviews bool   // the server has a reviews page: the layout links to it
	Version string
	Data    any
}

var funcs = template.FuncMap{
	"skillURL": skillURL,
	"fileURL":  fileURL,
	"rawURL":   rawURL,
	"imageURL": imageURL,
	"size":     humanSize,
	"short":    shortRevision,
	"when":     func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"iso":      func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"ago":      ago,
	"plural":   plural,
	"base":     path.Base,
	"shown":    hidden.Visible, // a file's name or hidden text, every character that could make it display as other text written as its code point
	"lines":    visibleLines,   // text of many lines as shown, each line as shown does, its line ends and tabs kept
}

// location returns the "loc" template function, (label, location) → where
// a page says the source is: with showLocations the location as the store
// shows it (a path on the server's disk included), else as a remote
// caller is shown it (tools.RemoteLocation), and nothing when that is the
// label, which the pages show beside it.
func location(showLocations bool) func(label, location string) string {
	if showLocations {
		return func(_, loc string) string { return store.ShownLocation(loc) }
	}
	return func(label, loc string) string {
		if shown := tools.RemoteLocation(label, loc); shown != label {
			return shown
		}
		return ""
	}
}

// parsePages parses each page with the layout it shares, where "loc"
// shows locations as showLocations says (location).
func parsePages(showLocations bool) map[string]*template.Template {
	base := template.Must(template.New("layout.html").Funcs(funcs).Funcs(template.FuncMap{"loc": location(showLocations)}).ParseFS(files, "templates/layout.html"))
	out := map[string]*template.Template{}
	for _, name := range []string{"index", "skill", "file", "sources", "connect", "status", "signin", "reviews"} {
		out[name] = template.Must(template.Must(base.Clone()).ParseFS(files, "templates/"+name+".html"))
	}
	return out
}

var bufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// render writes the named page, or with block the named template of it
// alone (a part the script swaps in), with status code.
func (u *UI) render(w http.ResponseWriter, r *http.Request, code int, name, title, nav string, data any) {
	u.renderBlock(w, r, code, name, "layout.html", page{Title: title, Nav: nav, Token: u.opts.TokenRequired, Reviews: u.opts.Reviews != nil, Version: u.opts.Version, Data: data})
}

func (u *UI) renderBlock(w http.ResponseWriter, r *http.Request, code int, name, block string, data any) {
	buf := bufs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 1<<20 {
			buf.Reset()
			bufs.Put(buf)
		}
	}()
	buf.Reset()
	if err := u.pages[name].ExecuteTemplate(buf, block, data); err != nil {
		u.opts.Logger.Error("a catalog page could not be rendered", "page", name, "err", logtext.Of(err))
		http.Error(w, "the page could not be rendered; see the server log", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	h.Set(PageHeader, "1") // one of the pages: the script shows no other answer as a page
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
}

func humanSize(n int64) string {
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	default:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	}
}

// shortRevision shortens a commit or digest for a listing; the full one
// is in the element's title.
func shortRevision(rev string) string {
	if i := strings.IndexByte(rev, ':'); i >= 0 && len(rev)-i > 13 {
		return rev[:i+13]
	}
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

func ago(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < 2*time.Second:
		return "just now"
	case d < 2*time.Minute:
		return fmt.Sprintf("%d seconds ago", int(d.Seconds()))
	case d < 2*time.Hour:
		return fmt.Sprintf("%d minutes ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d hours ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// renderKey names what a rendering depends on: the text (by its
// SHA-256) and the paths its links may name (linkBase.fingerprint), in
// one file of one skill.
type renderKey struct {
	source, skill, path string
	text                [sha256.Size]byte
	files               uint64
}

// String is the key as flight.Group takes it.
func (k renderKey) String() string {
	return k.source + "\x00" + k.skill + "\x00" + k.path + "\x00" + string(k.text[:]) + strconv.FormatUint(k.files, 16)
}

// maxRenders is how many documents the pages render at once, at most: a
// render takes a core for its length (up to a quarter of a second at the
// bounds of internal/markdown) and cannot be stopped part way.
var maxRenders = max(2, runtime.GOMAXPROCS(0)/2)

// markdownOf returns text, the content of file p of sk, rendered: from
// the cache when the same text was rendered before with the same files
// to link to, or by the render of it another request has started, or
// rendered now once one of maxRenders slots is free. It fails only when
// ctx ends first; the render, once started, finishes and is cached.
func (u *UI) markdownOf(ctx context.Context, sk *store.Skill, p string, text string, base *linkBase) (template.HTML, error) {
	key := renderKey{sk.Source.Label, sk.Name, p, sha256.Sum256([]byte(text)), base.fingerprint}
	if h, ok := u.html.Get(key); ok {
		return h, nil
	}
	return u.renders.Do(ctx, key.String(), true, func(ctx context.Context) (template.HTML, error) {
		if h, ok := u.html.Get(key); ok { // rendered while this request looked
			return h, nil
		}
		select {
		case u.slots <- struct{}{}:
		case <-ctx.Done(): // every request that wanted it has gone
			return "", ctx.Err()
		}
		defer func() { <-u.slots }()
		h := renderMarkdown(u.md, text, base)
		u.html.Add(key, h, int64(len(h)+len(key.skill)+len(key.path)+64))
		return h, nil
	})
}
