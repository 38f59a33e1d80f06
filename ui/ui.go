// Package ui serves a server's catalog to people: an index of the skills
// with search, a page per skill (its SKILL.md rendered, its frontmatter,
// files, digests, diagnostics and shadowed copies, and, where its source
// keeps them, its versions), its files, the skill as a zip, each version
// as a zip, the sources' health, and how to connect an MCP client. Pages
// are rendered on the server with html/template; the stylesheet, the
// script and the icon are embedded in the binary.
//
// Every page reads the catalog through the caller's store.View, so a
// person sees what an MCP client with the same credentials sees, and a
// skill the caller may not see answers as a missing one.
//
// Skill content is untrusted: Markdown is rendered without raw HTML and
// with vetted links (markdown.go); every answer carries a strict
// Content-Security-Policy (no inline script, nothing from elsewhere),
// X-Content-Type-Options: nosniff and frame-ancestors 'none'; a file is
// downloaded as an attachment, and shown inline only as an image, under a
// policy that runs nothing.
//
// Where the server asks for a bearer token, the pages ask the person for
// it (SignIn), keep it in the tab's session storage and send it in the
// Authorization header of every request their script makes — never in a
// URL or a cookie. Without the script, pages work where no token is asked
// for (a loopback listener).
package ui

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/yuin/goldmark"

	"github.com/skillstore/skillstore/internal/artifact"
	"github.com/skillstore/skillstore/internal/flight"
	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/internal/lru"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
	"github.com/skillstore/skillstore/usage"
)

// AssetsPath is where the stylesheet, script and icon are served.
const AssetsPath = "/assets/"

// Options configure the pages.
type Options struct {
	// View returns the view of the catalog the request's caller has
	// (required).
	View func(*http.Request) *store.View
	// TokenRequired says the server asks every request for a bearer
	// token: pages then carry what their script needs to send it.
	TokenRequired bool
	// Audit, if set, is told of each request that reads a skill's content
	// (its page, a file of it, its zip): skill and, for a file, its path.
	Audit func(r *http.Request, skill, file string)
	// MCPPath is the MCP endpoint's path, for the connect page (default
	// "/mcp"); Resource, if set, is its canonical URL as clients reach it
	// (the OAuth resource), used instead of the URL the request came to.
	MCPPath  string
	Resource string
	// Logger receives what went wrong (default: discard).
	Logger *slog.Logger
	// Timeout bounds one page's work (zero: no bound, as for MCP
	// requests). A zip's download is bounded by ZipTimeout instead.
	Timeout time.Duration
	// Version is the server's version, shown at the foot of each page.
	Version string
	// Archives builds the skills' zips and keeps them (default: a Cache
	// of the pages' own); a server shares one with its .well-known
	// publication, so one bound holds for every archive it builds.
	Archives *artifact.Cache
	// ShowLocations shows where each source is on the server's disk (a
	// folder's or an archive's path). Without it a page names such a
	// source by its label alone, and a remote source by its URL (see
	// tools.RemoteLocation): pages are for remote people.
	ShowLocations bool
	// Versions, if set, lists on a skill's page the versions of a skill
	// whose source keeps them (a registry), newest first, the one served
	// marked, and serves each as a zip at
	// /skills/NAME/versions/VERSION.zip.
	Versions VersionSource
	// Usage, if set, gives each skill's loads (see package usage): the
	// index then shows them, marks skills not loaded in 30 days, and
	// sorts by them with ?sort=usage. Counts only, never who loaded.
	Usage UsageSource
	// Reviews, if set, serves /reviews: the versions waiting for review
	// the caller may review, each with its diff, and buttons that send a
	// decision to the Skills API (ReviewSource, reviews.go).
	Reviews ReviewSource
}

// UsageSource gives a skill's usage counts: *usage.Counter.
type UsageSource interface {
	Stat(skill string) (usage.Stat, bool)
}

// UI serves the pages. It is safe for concurrent use.
type UI struct {
	opts    Options
	mux     *http.ServeMux
	pages   map[string]*template.Template
	html    *lru.Cache[renderKey, template.HTML] // rendered Markdown (markdownOf)
	renders flight.Group[string, template.HTML]  // renders under way, by renderKey
	slots   chan struct{}                        // a token a render running: at most maxRenders
	md      goldmark.Markdown
}

//go:embed templates assets
var files embed.FS

// New returns the pages over opts.
func New(opts Options) *UI {
	if opts.View == nil {
		panic("ui: Options.View is required")
	}
	if opts.MCPPath == "" {
		opts.MCPPath = "/mcp"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Archives == nil {
		opts.Archives = artifact.New(artifact.Options{Logger: opts.Logger})
	}
	u := &UI{opts: opts, pages: parsePages(opts.ShowLocations), html: lru.New[renderKey, template.HTML](lru.PageRenders),
		slots: make(chan struct{}, maxRenders), md: newMarkdown(opts.TokenRequired)}
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", u.index)
	m.HandleFunc("GET /skills/{name}", u.skill)
	m.HandleFunc("GET /skills/{name}/files/{path...}", u.file)
	m.HandleFunc("GET /skills/{name}/raw/{path...}", u.raw)
	m.HandleFunc("GET /skills/{name}/zip", u.zip)
	if opts.Versions != nil {
		m.HandleFunc("GET /skills/{name}/versions/{file}", u.versionZip)
	}
	if opts.Reviews != nil {
		m.HandleFunc("GET /reviews", u.reviews)
	}
	m.HandleFunc("GET /sources", u.sources)
	m.HandleFunc("GET /connect", u.connect)
	m.HandleFunc("/", u.notFound)
	u.mux = m
	return u
}

// pagePolicy is every page's Content-Security-Policy: the page's own
// stylesheet, script and icon, images of the skill (blob: for those the
// script fetched with the token), nothing else, in no frame.
const pagePolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; " +
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// filePolicy is a served file's: nothing runs, nothing loads, whatever it
// is (an SVG opened on its own included).
const filePolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox; frame-ancestors 'none'"

// secure sets the headers every answer carries.
func secure(h http.Header, policy string) {
	h.Set("Content-Security-Policy", policy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cache-Control", "no-store") // pages are one caller's view
}

// ServeHTTP answers a page request. Put it behind the server's access
// checks: it reads what the request's caller may see (Options.View).
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secure(w.Header(), pagePolicy)
	u.mux.ServeHTTP(w, r)
}

// Assets serves the embedded stylesheet, script and icon under
// AssetsPath. They hold nothing of the catalog: serve them to anyone.
func (u *UI) Assets() http.Handler {
	sub, _ := fs.Sub(files, "assets")
	fsrv := http.StripPrefix(AssetsPath, http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secure(w.Header(), pagePolicy)
		w.Header().Set("Cache-Control", "no-cache") // revalidated: a new binary's assets are seen at once
		if r.Method != http.MethodGet && r.Method != http.MethodHead || strings.HasSuffix(r.URL.Path, "/") {
			u.status(w, r, http.StatusNotFound, "Not found", "There is no such file.")
			return
		}
		fsrv.ServeHTTP(w, r)
	})
}

// SignIn answers a request the server refused for its credentials with
// a page that asks for the token (status is 401, 403 or 400, and the
// caller has set the WWW-Authenticate challenge). Its script sends the
// token kept in the tab, if any, and shows the page it gets.
//
// A browser is not told of the refusal by the status where the refusal
// is the expected first step (browsers report every 4xx answer as an
// error on the page's console): a person's navigation without a token
// gets the page with 200, and a request of the page's own script (marked
// with the PageHeader header) gets it with 200 and the status in
// RefusedHeader, which the script reads. Any other client gets status.
func (u *UI) SignIn(w http.ResponseWriter, r *http.Request, status int, msg string) {
	secure(w.Header(), pagePolicy)
	switch {
	case r.Header.Get(PageHeader) != "":
		w.Header().Set(RefusedHeader, strconv.Itoa(status))
		status = http.StatusOK
	case r.Header.Get("Sec-Fetch-Mode") == "navigate" && r.Header.Get("Authorization") == "":
		status = http.StatusOK
	}
	u.render(w, r, status, "signin", "Sign in", "", map[string]any{"Message": msg})
}

// PageHeader marks the requests the pages' script makes; RefusedHeader
// carries, on the sign-in page it gets, the status of the refusal.
const (
	PageHeader    = "X-Skillstore-Page"
	RefusedHeader = "X-Skillstore-Refused"
)

// bounded returns r's context bounded by Options.Timeout.
func (u *UI) bounded(r *http.Request) (context.Context, context.CancelFunc) {
	if u.opts.Timeout <= 0 {
		return context.WithCancel(r.Context())
	}
	return context.WithTimeout(r.Context(), u.opts.Timeout)
}

// notFound answers a path that names no page.
func (u *UI) notFound(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		u.status(w, r, http.StatusMethodNotAllowed, "Method not allowed", "These pages are read with GET.")
		return
	}
	u.status(w, r, http.StatusNotFound, "Not found",
		"There is no page at this address. The MCP endpoint is "+u.opts.MCPPath+"; health checks are /healthz and /readyz; metrics are at /metrics.")
}

// status answers with a page that says what happened.
func (u *UI) status(w http.ResponseWriter, r *http.Request, code int, title, msg string) {
	u.render(w, r, code, "status", title, "", map[string]any{"Title": title, "Message": msg, "Code": code})
}

// failed answers a failure to read the catalog or a skill: the store's
// error in the words the tools use (never a host or a path), with the
// status it calls for.
func (u *UI) failed(w http.ResponseWriter, r *http.Request, err error) {
	msg, hint := tools.Describe(err)
	if hint != "" && !errors.Is(err, store.ErrSkillNotFound) && !errors.Is(err, store.ErrInvalidName) { // those hints speak to models
		msg += ". " + hint
	}
	code := http.StatusServiceUnavailable
	title := "Unavailable"
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		code, title = http.StatusServiceUnavailable, "Too slow"
		w.Header().Set("Retry-After", "5")
	case errors.Is(err, store.ErrSkillNotFound), errors.Is(err, store.ErrFileNotFound), errors.Is(err, store.ErrNoSkillDoc):
		code, title = http.StatusNotFound, "Not found"
	case errors.Is(err, store.ErrInvalidName), errors.Is(err, store.ErrInvalidPath), errors.Is(err, store.ErrPathEscapes), errors.Is(err, store.ErrIsDir):
		code, title = http.StatusBadRequest, "Bad request"
	case errors.Is(err, store.ErrPermission):
		code, title = http.StatusForbidden, "Forbidden"
	case errors.Is(err, store.ErrTooLarge):
		code, title = http.StatusRequestEntityTooLarge, "Too large"
	case errors.Is(err, store.ErrSkillInvalid):
		code, title = http.StatusUnprocessableEntity, "Invalid skill"
	}
	if code >= 500 {
		u.opts.Logger.Warn("a catalog page failed", "path", r.URL.Path, "err", logtext.Of(err))
	}
	u.status(w, r, code, title, msg)
}

// skillURL and friends are the pages' addresses, each segment escaped.
func skillURL(name string) string { return "/skills/" + url.PathEscape(name) }

func fileURL(name, p string) string { return skillURL(name) + "/files/" + tools.EscapePath(p) }

func rawURL(name, p string) string { return skillURL(name) + "/raw/" + tools.EscapePath(p) }

// imageURL is the address of an image a page shows.
func imageURL(name, p string) string { return rawURL(name, p) + "?inline=1" }
