package ui_test

import (
	"archive/zip"
	"bytes"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
	"github.com/skillstore/skillstore/ui"
)

// newPages serves the pages over the fixture tree (label real) and the
// hostile one (label hostile), for an unrestricted caller.
func newPages(t testing.TB, opts ui.Options) http.Handler {
	t.Helper()
	s, err := store.New([]store.Source{
		{Label: "real", Location: "./real", FS: fixture.MapFS()},
		{Label: "hostile", Location: "./hostile", FS: fixture.HostileMapFS()},
		{Label: "shadowed", Location: "./shadowed", FS: fstest.MapFS{
			"calculator/SKILL.md": {Data: []byte("---\nname: calculator\ndescription: A copy the real one hides.\n---\nHidden copy.\n")},
		}},
		{Label: "plugins", Location: "./plugins", Grouper: backends.Plugins, FS: fstest.MapFS{
			"acme/plugin.json":            {Data: []byte(`{"$schema": "` + backends.PluginSchema + `", "name": "acme.tools"}`)},
			"acme/skills/deploy/SKILL.md": {Data: []byte("---\nname: deploy\ndescription: Deploys, the acme way.\n---\nSee [the script](run.sh).\n")},
			"acme/skills/deploy/run.sh":   {Data: []byte("echo deploy\n")},
		}},
		{Label: "panicky", Location: "./panicky", FS: panicky{m: fstest.MapFS{
			"boom/SKILL.md": {Data: []byte("---\nname: boom\ndescription: A skill whose file panics its backend.\n---\nBoom.\n")},
			"boom/bad.txt":  {Data: []byte("never read")},
		}}},
	}, store.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	v := tools.New(s, tools.Options{}).View()
	opts.View = func(*http.Request) *store.View { return v }
	u := ui.New(opts)
	mux := http.NewServeMux()
	mux.Handle("/", u)
	mux.Handle(ui.AssetsPath, u.Assets())
	return mux
}

type answer struct {
	code int
	h    http.Header
	body string
}

func get(t testing.TB, h http.Handler, target string, header ...string) answer {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return answer{w.Code, w.Result().Header, w.Body.String()}
}

// escaped is a folder name as a page's address has it.
func escaped(name string) string { return url.PathEscape(name) }

const oddFolder = "Odd Name &amp; <b>"

// TestStatuses: every page, and every way to ask for what is not there or
// may not be read, answers with a status and a page that says so, under
// the page policy; files under the file policy.
func TestStatuses(t *testing.T) {
	h := newPages(t, ui.Options{})
	cases := []struct {
		target string
		code   int
		says   string // in the body
		file   bool   // served under the file policy
	}{
		{"/", 200, "calculator", false},
		{"/?q=weather", 200, "weather", false},
		{"/?page=99999", 200, "skills", false},
		{"/?page=-3", 200, "skills", false},
		{"/?q=" + strings.Repeat("x", 5000), 200, "No skill matches", false},
		{"/skills/calculator", 200, "Calculator Skill", false},
		{"/skills/calculator?scan=1", 200, "No text file of this skill hides text", false},
		{"/skills/xss?scan=1", 200, "html-comment", false},
		{"/skills/" + escaped(oddFolder), 200, "Odd Name &amp;amp; &lt;b&gt;", false},
		{"/skills/calculator/files/examples/basic.py", 200, "def ", false},
		{"/skills/calculator/files/assets/logo.png", 200, "logo.png", false},
		{"/skills/xss/files/blob.bin", 200, "A binary file", false},
		{"/skills/long-line/files/line.txt", 200, "0123456789abcdef", false},
		{"/skills/odd-names/files/" + escaped("a b#c?d%2e.md"), 200, "a b#c?d%2e", false},
		{"/skills/calculator/raw/examples/basic.py", 200, "def ", true},
		{"/?q=acme", 200, `href="/skills/acme.tools:deploy"`, false},
		{"/skills/acme.tools:deploy", 200, "skill://acme.tools/deploy/SKILL.md", false},
		{"/skills/acme.tools:deploy", 200, `href="/skills/acme.tools:deploy/files/run.sh"`, false},
		{"/skills/acme.tools:deploy/files/run.sh", 200, "skill://acme.tools/deploy/run.sh", false},
		{"/skills/acme.tools:deploy/raw/run.sh", 200, "echo deploy", true},
		{"/skills/acme.tools:deploy/zip", 200, "deploy/run.sh", true}, // unpacks as the folder deploy
		{"/skills/calculator/zip", 200, "", true},
		{"/sources", 200, "broken", false},
		{"/sources", 200, `<a href="/?q=acme.tools"><strong>acme.tools</strong></a></td><td>plugins</td><td><code>acme</code></td><td class="num">1</td>`, false},
		{"/connect", 200, "/mcp", false},
		{"/skills/nope", 404, "Skill &#39;nope&#39; not found", false},
		{"/skills/broken", 422, "broken", false},
		{"/skills/nodoc", 404, "nodoc", false},
		{"/skills/calculator/files/.env", 404, "not found", false},
		{"/skills/calculator/files/docs/.draft.md", 404, "not found", false},
		{"/skills/calculator/raw/.git/config", 404, "not found", false},
		{"/skills/calculator/files/nope.md", 404, "not found", false},
		{"/skills/calculator/files/%2e%2e/weather/SKILL.md", 400, "traversal", false},
		{"/skills/calculator/files/docs", 400, "", false},
		{"/skills/%2e%2e/files/secret.txt", 400, "", false},
		{"/skills/long-line/files/huge.txt", 413, "", false},
		{"/skills/long-line/raw/huge.txt", 413, "", false},
		{"/nowhere", 404, "There is no page at this address", false},
		{"/assets/app.js", 200, "sessionStorage", false},
		{"/assets/style.css", 200, "--fg", false},
		{"/assets/nope.js", 404, "", false},
		{"/assets/", 404, "", false},
	}
	for _, c := range cases {
		got := get(t, h, c.target)
		if got.code != c.code || !strings.Contains(got.body, c.says) {
			t.Errorf("GET %s: %d, want %d with %q:\n%.600s", c.target, got.code, c.code, c.says, got.body)
		}
		csp := got.h.Get("Content-Security-Policy")
		if got.h.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("GET %s: headers %v", c.target, got.h)
		}
		if c.file != strings.Contains(csp, "sandbox") {
			t.Errorf("GET %s: policy %q (a file: %v)", c.target, csp, c.file)
		}
		if c.file && !strings.HasPrefix(got.h.Get("Content-Disposition"), "attachment") {
			t.Errorf("GET %s: Content-Disposition %q", c.target, got.h.Get("Content-Disposition"))
		}
		if strings.Contains(got.body, fixture.HiddenSecret) {
			t.Errorf("GET %s shows a hidden file's content", c.target)
		}
	}
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /: %d %v", w.Code, w.Header())
	}
}

// TestImagesInline: an image is served inline only when a page asks for
// it as one, with its type, under the policy that runs nothing.
func TestImagesInline(t *testing.T) {
	h := newPages(t, ui.Options{})
	got := get(t, h, "/skills/xss/raw/evil.svg?inline=1")
	if got.code != 200 || got.h.Get("Content-Type") != "image/svg+xml" || got.h.Get("Content-Disposition") != "inline" || !strings.Contains(got.h.Get("Content-Security-Policy"), "sandbox") {
		t.Errorf("inline SVG: %d %v", got.code, got.h)
	}
	got = get(t, h, "/skills/xss/raw/page.html?inline=1") // not an image: downloaded, as text
	if got.h.Get("Content-Type") != "text/plain; charset=utf-8" || !strings.HasPrefix(got.h.Get("Content-Disposition"), "attachment") {
		t.Errorf("inline HTML: %v", got.h)
	}
}

var (
	tagRe     = regexp.MustCompile(`<[a-zA-Z][^>]*>`)
	onAttr    = regexp.MustCompile(`(?i)\son[a-z]+\s*=`)
	urlAttr   = regexp.MustCompile(`(?i)\s(href|src|data-src|action|formaction)\s*=\s*"([^"]*)"`)
	scriptTag = regexp.MustCompile(`(?i)<script\b[^>]*>`)
)

// safeHTML reports what in a page of ours could run or fetch from
// elsewhere: a tag other than the layout's script, an on* attribute, an
// element that embeds, or a URL that is not the page's own.
func safeHTML(t *testing.T, where, body string) {
	t.Helper()
	for _, s := range scriptTag.FindAllString(body, -1) {
		if s != `<script src="/assets/app.js" defer>` {
			t.Errorf("%s: a script tag: %s", where, s)
		}
	}
	for _, tag := range tagRe.FindAllString(body, -1) {
		if onAttr.MatchString(tag) {
			t.Errorf("%s: an event handler: %s", where, tag)
		}
		lower := strings.ToLower(tag)
		for _, bad := range []string{"<iframe", "<object", "<embed", "<style", "<base", "<form action=\"javascript", "<meta http-equiv", "<svg", "<link rel=\"import"} {
			if strings.HasPrefix(lower, bad) {
				t.Errorf("%s: %s", where, tag)
			}
		}
		for _, m := range urlAttr.FindAllStringSubmatch(tag, -1) {
			u := strings.ToLower(m[2])
			ok := strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "//") || strings.HasPrefix(u, "#") || strings.HasPrefix(u, "?") ||
				m[1] == "href" && (strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "mailto:"))
			if !ok {
				t.Errorf("%s: %s=%q", where, m[1], m[2])
			}
			if (m[1] == "src" || m[1] == "data-src") && !strings.HasPrefix(u, "/assets/") && !strings.HasPrefix(u, "/skills/") {
				t.Errorf("%s: an image from elsewhere: %s", where, tag)
			}
		}
	}
}

// TestHostilePages: every page of the hostile corpus, in both the open
// and the token-asking form, holds nothing that runs, nothing that embeds
// and no URL but the server's own and plain http(s) and mailto links.
func TestHostilePages(t *testing.T) {
	for _, token := range []bool{false, true} {
		h := newPages(t, ui.Options{TokenRequired: token})
		pages := map[string]int{"/": 200, "/?q=script": 200, "/?q=%3Cscript%3E": 200, "/sources": 200, "/connect": 200}
		for p := range fixture.HostileSkills() {
			name, file, _ := strings.Cut(p, "/")
			code := 200
			switch file {
			case ".env":
				code = 404
			case "huge.txt":
				code = 413
			}
			pages["/skills/"+escaped(name)] = 200
			pages["/skills/"+escaped(name)+"/files/"+escapeFile(file)] = code
			pages["/skills/"+escaped(name)+"/files/"+escapeFile(file)+"?source=1"] = code
		}
		for p, code := range pages {
			got := get(t, h, p)
			if got.code != code || !strings.Contains(got.body, "</main>") {
				t.Errorf("GET %s: %d, want %d", p, got.code, code)
			}
			safeHTML(t, p, got.body)
		}
		if body := get(t, h, "/skills/xss").body; !strings.Contains(body, "a skill that attacks its page") {
			t.Errorf("the xss page does not show its description:\n%s", body)
		}
	}
}

func escapeFile(p string) string {
	parts := strings.Split(p, "/")
	for i := range parts {
		parts[i] = url.PathEscape(parts[i])
	}
	return strings.Join(parts, "/")
}

// TestMarkdownLinks: which links and images of a skill's Markdown keep
// their target, and where they point.
func TestMarkdownLinks(t *testing.T) {
	h := newPages(t, ui.Options{})
	got := get(t, h, "/skills/xss").body
	for _, want := range []string{
		`<a href="/skills/xss/files/references/ok.md#part">ok</a>`,
		`<a href="https://example.com/a?b=1&amp;c=2">`,
		`<a href="mailto:someone@example.com">`,
		`<img src="/skills/xss/raw/evil.svg?inline=1" alt="svg">`,
		`<img src="/skills/xss/raw/pixel.png?inline=1" alt="pixel" title="a &quot;title&quot;">`,
		`js link and JS upper`,                     // javascript: links, as their text
		`out of the skill hidden missing absolute`, // out of the skill, hidden, missing, absolute: text
		`remote data image`,                        // remote and data: images: their alternative text
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, m := range urlAttr.FindAllStringSubmatch(got, -1) {
		for _, never := range []string{"evil.example", "javascript:", "data:", "vbscript:", "file:", "/etc/passwd", "calculator/", ".env", "nowhere.md"} {
			if strings.Contains(strings.ToLower(m[2]), never) {
				t.Errorf("a URL of the page holds %q: %s", never, m[0])
			}
		}
	}
	// Token mode: images are loaded by the script.
	tok := newPages(t, ui.Options{TokenRequired: true})
	if body := get(t, tok, "/skills/xss").body; !strings.Contains(body, `<img data-src="/skills/xss/raw/evil.svg?inline=1" alt="svg">`) || strings.Contains(body, `<img src="/skills/`) {
		t.Errorf("token mode images:\n%s", body)
	}
	odd := get(t, h, "/skills/odd-names").body
	for _, want := range []string{`href="/skills/odd-names/files/a%20b%23c%3Fd%252e.md"`, `href="/skills/odd-names/files/%C3%BCn%C3%AF%20%3C&amp;%3E%22%27.md"`} {
		if !strings.Contains(odd, want) {
			t.Errorf("odd-names lacks %s:\n%s", want, odd)
		}
	}
}

// TestPathological: documents a renderer takes long over are shown as
// plain text, saying why; the others are rendered.
func TestPathological(t *testing.T) {
	h := newPages(t, ui.Options{})
	for target, want := range map[string]string{
		"/skills/deep":           "levels deep; it is shown as plain text",
		"/skills/deep-lists":     "is over 512 KiB; it is shown as plain text",
		"/skills/long-line":      "is over 512 KiB; it is shown as plain text",
		"/skills/unclosed-links": `<div class="markdown"><p>[a](`,
	} {
		if got := get(t, h, target); got.code != 200 || !strings.Contains(got.body, want) {
			t.Errorf("GET %s: %d, lacks %q", target, got.code, want)
		}
	}
}

// TestZip: the skill's zip holds its served files under its folder name,
// SKILL.md by its canonical name, and no hidden file.
func TestZip(t *testing.T) {
	h := newPages(t, ui.Options{})
	got := get(t, h, "/skills/calculator/zip")
	if got.h.Get("Content-Disposition") != `attachment; filename=calculator.zip` {
		t.Errorf("Content-Disposition %q", got.h.Get("Content-Disposition"))
	}
	zr, err := zip.NewReader(bytes.NewReader([]byte(got.body)), int64(len(got.body)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for p, b := range fixture.Skills() {
		if rest, ok := strings.CutPrefix(p, "calculator/"); ok && !strings.HasPrefix(rest, ".") && !strings.Contains(rest, "/.") {
			want[p] = string(b)
		}
	}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if w, ok := want[f.Name]; !ok || w != string(b) {
			t.Errorf("zip entry %s: %q", f.Name, b)
		}
		delete(want, f.Name)
	}
	if len(want) > 0 {
		t.Errorf("zip lacks %v", want)
	}
}

// TestSearchPart: the list alone, as the script asks for it while a
// person types.
func TestSearchPart(t *testing.T) {
	h := newPages(t, ui.Options{})
	got := get(t, h, "/?q=weather", "X-Skillstore-Part", "results")
	if got.code != 200 || strings.Contains(got.body, "<html") || !strings.Contains(got.body, `href="/skills/weather"`) || strings.Contains(got.body, `href="/skills/calculator"`) {
		t.Errorf("results part: %d\n%s", got.code, got.body)
	}
}

// panicky is a backend with a bug: opening boom/bad.txt panics. It has
// only Open, so that every read goes through it.
type panicky struct{ m fstest.MapFS }

func (p panicky) Open(name string) (fs.File, error) {
	if name == "boom/bad.txt" {
		panic("a backend's bug")
	}
	return p.m.Open(name)
}

// TestBackendPanic: a backend that panics reading one file fails that
// file's row of the skill's page, not the server.
func TestBackendPanic(t *testing.T) {
	h := newPages(t, ui.Options{})
	got := get(t, h, "/skills/boom")
	if got.code != 200 || !strings.Contains(got.body, "bad.txt") || !strings.Contains(got.body, "it cannot be read") {
		t.Errorf("boom: %d\n%s", got.code, got.body)
	}
	if got := get(t, h, "/skills/calculator"); got.code != 200 {
		t.Errorf("after the panic, calculator: %d", got.code)
	}
}

// TestShadows: a skill's page names the copies it hides (by their
// source's label; with ShowLocations, where the source is too), and the
// index marks it.
func TestShadows(t *testing.T) {
	h := newPages(t, ui.Options{})
	if body := get(t, h, "/skills/calculator").body; !strings.Contains(body, "Shadowed copies") || !strings.Contains(body, "<li>shadowed <span") {
		t.Errorf("calculator's page does not name its shadowed copy:\n%s", body)
	}
	if body := get(t, newPages(t, ui.Options{ShowLocations: true}), "/skills/calculator").body; !strings.Contains(body, "./shadowed") {
		t.Errorf("with ShowLocations, calculator's page does not say where its shadowed copy is:\n%s", body)
	}
	if body := get(t, h, "/").body; !strings.Contains(body, ">shadows 1</span>") {
		t.Errorf("the index does not mark calculator:\n%s", body)
	}
	if body := get(t, h, "/skills/weather").body; strings.Contains(body, "Shadowed copies") {
		t.Error("weather's page names shadowed copies")
	}
}

// TestNoHostPaths: no page names where a source is on the server's disk
// (its folder or archive) unless the operator asks for it with
// ShowLocations; a remote source is named by its URL, which holds no
// credential.
func TestNoHostPaths(t *testing.T) {
	pages := []string{"/", "/?q=calc", "/skills/calculator", "/skills/weather", "/skills/weather/files/scripts/forecast.py",
		"/skills/acme.tools:deploy", "/skills/no-such", "/sources", "/connect", "/no/such/page"}
	paths := []string{"./real", "./hostile", "./shadowed", "./plugins", "./panicky"}
	for _, show := range []bool{false, true} {
		h := newPages(t, ui.Options{ShowLocations: show})
		seen := map[string]bool{}
		for _, p := range pages {
			body := get(t, h, p).body
			for _, loc := range paths {
				if strings.Contains(body, loc) {
					seen[loc] = true
					if !show {
						t.Errorf("%s names the host path %s", p, loc)
					}
				}
			}
		}
		if show && len(seen) != len(paths) {
			t.Errorf("with ShowLocations, the pages name %v of %v", seen, paths)
		}
	}
	s, err := store.New([]store.Source{{Label: "org", Location: "s3://corp?prefix=skills%2F", Kind: "s3", FS: fixture.MapFS()}}, store.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	v := tools.New(s, tools.Options{}).View()
	if body := get(t, ui.New(ui.Options{View: func(*http.Request) *store.View { return v }}), "/sources").body; !strings.Contains(body, "s3://corp?prefix=skills%2F") {
		t.Errorf("/sources does not name a bucket source's URL:\n%s", body)
	}
}

// TestEmailAutolink: an email autolink is a mailto: link.
func TestEmailAutolink(t *testing.T) {
	h := newPages(t, ui.Options{})
	if body := get(t, h, "/skills/odd-names").body; !strings.Contains(body, `<a href="mailto:bob@example.com">bob@example.com</a>`) {
		t.Errorf("odd-names:\n%s", body)
	}
}
