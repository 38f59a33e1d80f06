package integration

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
)

// Bounds of the page tests: a step (a page load, a click and what it
// brings, a download) and a page's render.
const (
	pageStep   = 60 * time.Second
	pageRender = 20 * time.Second
	maxCrawl   = 300 // pages a crawl visits at most: the corpora have a few dozen
)

// pageChecks is evaluated on every page: what a page of skill content must
// never hold. It returns what is wrong, empty when nothing is.
const pageChecks = `(() => {
  const bad = [];
  if (window.` + fixture.Pwned + ` !== undefined) bad.push("a script of the corpus ran: window.` + fixture.Pwned + ` = " + String(window.` + fixture.Pwned + `));
  const main = document.querySelector("main");
  if (!main) bad.push("no <main>");
  else if (!main.textContent.trim()) bad.push("an empty <main>");
  for (const el of document.querySelectorAll("main, main *"))
    for (const a of el.attributes)
      if (/^on/i.test(a.name)) bad.push("<" + el.localName + "> has the attribute " + a.name + "=" + JSON.stringify(a.value));
  for (const a of document.querySelectorAll('a[href^="javascript:" i], a[href^="data:" i], a[href^="vbscript:" i], a[href^="file:" i]'))
    bad.push("a link to " + a.getAttribute("href"));
  for (const img of document.images)
    if (img.src && new URL(img.src).origin !== location.origin) bad.push("an image from " + img.src);
  for (const el of document.querySelectorAll("iframe, frame, object, embed, style, base, meta[http-equiv]"))
    bad.push("a <" + el.localName + ">");
  for (const el of document.querySelectorAll("[style]")) bad.push("<" + el.localName + "> has a style attribute");
  const scripts = Array.from(document.scripts, s => s.getAttribute("src") || "inline: " + s.textContent.slice(0, 80));
  if (scripts.length !== 1 || scripts[0] !== "/assets/app.js") bad.push("scripts: " + JSON.stringify(scripts));
  return bad;
})()`

// pageBrowser is a headless Chromium with one tab that the page tests
// drive. It collects what the tab's console reports as an error or a
// warning, the addresses the tab showed and requested, and the downloads.
type pageBrowser struct {
	tab      context.Context
	name     string // prefixes screenshots
	shots    string // where screenshots go, if anywhere
	dir      string // downloads
	shot     int
	mu       sync.Mutex
	console  []string          // errors and warnings not yet reported
	urls     []string          // every address the tab showed or requested
	began    map[string]string // the name each download was offered under, by its id
	finished chan *browser.EventDownloadProgress
}

// newPageBrowser starts Chromium with a tab, both stopped with the test.
func newPageBrowser(t *testing.T, name string) *pageBrowser {
	t.Helper()
	b := &pageBrowser{name: name, dir: t.TempDir(), began: map[string]string{},
		finished: make(chan *browser.EventDownloadProgress, 16), shots: os.Getenv("SKILLSTORE_PAGES_SCREENSHOTS")}
	if b.shots != "" {
		if err := os.MkdirAll(b.shots, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out := &testutil.SyncBuffer{}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900), chromedp.CombinedOutput(out))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancelTab := chromedp.NewContext(alloc, chromedp.WithListener(b.listen))
	b.tab = tab
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	ctx, cancel := context.WithTimeout(tab, pageStep)
	defer cancel()
	if err := chromedp.Do(tab); err != nil { // starts the browser and the tab, bound to tab alone
		t.Fatalf("starting Chromium: %v\n%s", err, out.String())
	}
	if err := chromedp.ListenBrowser(tab, b.listenBrowser); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: b.dir, EventsEnabled: new(true),
	}); err != nil {
		t.Fatal(err)
	}
	return b
}

// listen sees every event of the tab, in order, on the tab's reading
// goroutine: it must return fast and send no command.
func (b *pageBrowser) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		switch ev.Type {
		case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeAssert, runtime.ConsoleAPICalledTypeWarning:
			var args []string
			for _, a := range ev.Args {
				args = append(args, remoteText(a))
			}
			b.console = append(b.console, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil {
			text += " " + d.Exception.Description
		}
		b.console = append(b.console, fmt.Sprintf("exception at %s:%d:%d: %s", d.URL, d.LineNumber+1, d.ColumnNumber+1, text))
	case *log.EventEntryAdded:
		if e := ev.Entry; e.Level == log.EntryLevelError || e.Level == log.EntryLevelWarning {
			b.console = append(b.console, fmt.Sprintf("log %s (%s) %s: %s", e.Level, e.Source, e.URL, e.Text))
		}
	case *page.EventJavascriptDialogOpening:
		b.console = append(b.console, fmt.Sprintf("a script opened a %s dialog: %q", ev.Type, ev.Message))
		go chromedp.Call(b.tab, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
	case *page.EventFrameNavigated:
		b.urls = append(b.urls, ev.Frame.URL)
	case *page.EventNavigatedWithinDocument:
		b.urls = append(b.urls, ev.URL)
	case *network.EventRequestWillBeSent:
		b.urls = append(b.urls, ev.Request.URL)
	}
}

// listenBrowser sees the browser's events: the downloads.
func (b *pageBrowser) listenBrowser(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *browser.EventDownloadWillBegin:
		b.began[ev.GUID] = ev.SuggestedFilename
		b.urls = append(b.urls, ev.URL)
	case *browser.EventDownloadProgress:
		if ev.State != browser.DownloadProgressStateInProgress {
			select {
			case b.finished <- ev:
			default:
			}
		}
	}
}

// remoteText is a console argument as the console shows it.
func remoteText(o *runtime.RemoteObject) string {
	if len(o.Value) > 0 {
		var s string
		if json.Unmarshal(o.Value, &s) == nil {
			return s
		}
		return string(o.Value)
	}
	if o.Description != "" {
		return o.Description
	}
	return string(o.Type)
}

// step returns a context for one step in the tab.
func (b *pageBrowser) step() (context.Context, context.CancelFunc) {
	return context.WithTimeout(b.tab, pageStep)
}

// takeConsole returns the errors and warnings reported since the last call.
func (b *pageBrowser) takeConsole() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.console
	b.console = nil
	return c
}

// quiet fails the test with what the console reported since the last
// call, during what.
func (b *pageBrowser) quiet(t *testing.T, what string) {
	t.Helper()
	if c := b.takeConsole(); len(c) > 0 {
		t.Errorf("%s: the browser's console reported:\n\t%s", what, strings.Join(c, "\n\t"))
	}
}

// seen returns every address the tab showed or requested so far.
func (b *pageBrowser) seen() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.urls)
}

// run runs actions as one step, failing the test on an error.
func (b *pageBrowser) run(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := b.step()
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates expr in the tab's page.
func eval[T any](t *testing.T, b *pageBrowser, expr string) T {
	t.Helper()
	ctx, cancel := b.step()
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// waitJS waits until expr is true in the tab's page, across navigations
// (an evaluation that fails while a document is replaced is retried).
func (b *pageBrowser) waitJS(t *testing.T, what, expr string) {
	t.Helper()
	ctx, cancel := b.step()
	defer cancel()
	var last error
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			loc, _ := chromedp.Run(b.tab, chromedp.Location())
			t.Fatalf("%s: not within %s (at %s; last error %v)", what, pageStep, loc, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// check fails the test with what pageChecks finds on the tab's page.
func (b *pageBrowser) check(t *testing.T, what string) {
	t.Helper()
	for _, p := range eval[[]string](t, b, pageChecks) {
		t.Errorf("%s: %s", what, p)
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// screenshot saves the tab's page, whole, as a PNG in the screenshots
// folder, if one is set.
func (b *pageBrowser) screenshot(t *testing.T, what string) {
	t.Helper()
	if b.shots == "" {
		return
	}
	ctx, cancel := b.step()
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Errorf("screenshot of %s: %v", what, err)
		return
	}
	b.shot++
	name := strings.Trim(unsafeName.ReplaceAllString(what, "_"), "_")
	if len(name) > 100 {
		name = name[:100]
	}
	if err := os.WriteFile(filepath.Join(b.shots, fmt.Sprintf("%s-%03d-%s.png", b.name, b.shot, name)), png, 0o644); err != nil {
		t.Error(err)
	}
}

// visit loads page u in the tab, waits for its <main>, checks it and its
// console, and returns how long it took to render.
func (b *pageBrowser) visit(t *testing.T, u string) time.Duration {
	t.Helper()
	took := b.load(t, u)
	b.quiet(t, u)
	return took
}

// load is visit without the check of the console.
func (b *pageBrowser) load(t *testing.T, u string) time.Duration {
	t.Helper()
	start := time.Now()
	b.run(t, "loading "+u, chromedp.Navigate(u), chromedp.WaitReady(chromedp.CSS("main")))
	took := time.Since(start)
	if took > pageRender {
		t.Errorf("%s took %s to render, over %s", u, took.Round(time.Millisecond), pageRender)
	}
	b.check(t, u)
	b.screenshot(t, pageName(u))
	return took
}

// pageName names page u for a screenshot: its path and query, unescaped.
func pageName(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	name := p.Path
	if p.RawQuery != "" {
		name += " " + p.RawQuery
	}
	if name == "/" {
		return "index"
	}
	return strings.TrimPrefix(name, "/skills/")
}

// download runs trigger, which starts a download, and returns the file's
// name as the page suggested it and its bytes.
func (b *pageBrowser) download(t *testing.T, what string, trigger chromedp.Action[chromedp.Void]) (string, []byte) {
	t.Helper()
	for len(b.finished) > 0 {
		<-b.finished
	}
	b.run(t, what, trigger)
	deadline := time.After(pageStep)
	for {
		select {
		case ev := <-b.finished:
			if ev.State != browser.DownloadProgressStateCompleted {
				t.Fatalf("%s: the download ended %s", what, ev.State)
			}
			data, err := os.ReadFile(filepath.Join(b.dir, ev.GUID))
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			b.mu.Lock()
			name := b.began[ev.GUID]
			b.mu.Unlock()
			return name, data
		case <-deadline:
			t.Fatalf("%s: no download completed within %s", what, pageStep)
		case <-time.After(100 * time.Millisecond):
			b.mu.Lock()
			failed := len(b.console) > 0
			b.mu.Unlock()
			if failed {
				time.Sleep(200 * time.Millisecond) // real time: what else the browser, another process, reports of the failure
				t.Fatalf("%s: no download, and the browser's console reported:\n\t%s", what, strings.Join(b.takeConsole(), "\n\t"))
			}
		}
	}
}

// links returns the addresses of the tab page's links, resolved.
func (b *pageBrowser) links(t *testing.T) []string {
	t.Helper()
	return eval[[]string](t, b, `Array.from(document.querySelectorAll("a[href]"), a => a.href)`)
}

// servePages starts the binary over the real corpus, the hostile one and
// the built-in examples, with args, and returns the pages' base URL.
func servePages(t *testing.T, args ...string) string {
	t.Helper()
	real := testutil.TempTree(t, fixture.Skills())
	hostile := testutil.TempTree(t, fixture.HostileSkills())
	mcp := serveHTTP(t, append([]string{"-s", "real=" + real, "-s", "hostile=" + hostile, "-s", "builtin://"}, args...)...)
	return strings.TrimSuffix(mcp, "/mcp")
}

// The hostile corpus's pages, visited whatever the crawl finds.
var hostilePages = []string{
	"/skills/xss", "/skills/deep", "/skills/deep-lists", "/skills/unclosed-links", "/skills/long-line", "/skills/odd-names",
	"/skills/" + url.PathEscape("Odd Name &amp; <b>"),
	"/skills/xss/files/evil.svg", "/skills/xss/files/page.html", "/skills/xss/files/blob.bin", "/skills/long-line/files/line.txt",
}

// TestPages drives headless Chromium through the catalog pages of a server
// over a real corpus, a hostile one and the built-in examples: it loads
// every page a crawl from / reaches, each in bounded time, with no script
// of the corpus run, no handler, foreign image, frame or script in the
// page, and nothing on the console (an error, a warning, an exception, a
// failed load, a refused policy, a dialog); every link answers; typing a
// search swaps in the results and following a link opens the skill; a
// file and a skill's zip download with their bytes; and the statuses and
// headers that keep a file from running or leaking are served.
func TestPages(t *testing.T) {
	requireBinary(t, chromium, "Chromium (Debian package chromium)")
	ran(t, "Chromium (catalog pages)")
	base := servePages(t)

	t.Run("statuses", func(t *testing.T) {
		res, _ := testutil.Request(t, http.MethodGet, base+"/")
		csp := res.Header.Get("Content-Security-Policy")
		if res.StatusCode != http.StatusOK || !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "script-src 'self'") ||
			res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("/: %d, Content-Security-Policy %q, X-Content-Type-Options %q", res.StatusCode, csp, res.Header.Get("X-Content-Type-Options"))
		}
		for _, c := range []struct {
			path   string
			status []int
			not    string // text the answer must not hold
			holds  string // text it must hold
		}{
			{"/skills/xss/files/.env", []int{404}, fixture.HiddenSecret, ""},
			{"/skills/xss/raw/.env", []int{404}, fixture.HiddenSecret, ""},
			{"/skills/calculator/files/.git/config", []int{404}, fixture.HiddenSecret, ""},
			{"/skills/xss/files/%2e%2e/deep/SKILL.md", []int{400, 404}, "nests a thousand levels", ""},
			{"/skills/xss/files/%2e%2e%2fdeep%2fSKILL.md", []int{400, 404}, "nests a thousand levels", ""},
			{"/skills/xss/raw/%2e%2e%2f%2e%2e%2freal%2fcalculator%2fSKILL.md", []int{400, 404}, "calculator", ""},
			{"/skills/xss/files/references/%2e%2e/%2e%2e/%2e%2e/secret.txt", []int{400, 404}, fixture.Outside, ""},
			{"/skills/long-line/files/huge.txt", []int{413}, "0123456789abcdef", "too large"},
			{"/skills/long-line/raw/huge.txt", []int{413}, "0123456789abcdef", "too large"},
			{"/skills/nope", []int{404}, "", "Not found"},
			{"/skills/nope/files/SKILL.md", []int{404}, "", "Not found"},
			{"/nowhere", []int{404}, "", "Not found"},
		} {
			res, body := testutil.Request(t, http.MethodGet, base+c.path)
			if !slices.Contains(c.status, res.StatusCode) || c.not != "" && bytes.Contains(body, []byte(c.not)) ||
				!strings.Contains(strings.ToLower(string(body)), strings.ToLower(c.holds)) {
				t.Errorf("%s: %d (want %v), holding %q, not %q:\n%.600s", c.path, res.StatusCode, c.status, c.holds, c.not, body)
			}
			if !strings.Contains(res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
				t.Errorf("%s: Content-Security-Policy %q", c.path, res.Header.Get("Content-Security-Policy"))
			}
		}
		for _, c := range []struct{ path, disposition, body string }{
			{"/skills/calculator/raw/examples/basic.py", `attachment; filename=basic.py`, fixture.BasicPy},
			{"/skills/xss/raw/evil.svg", `attachment; filename=evil.svg`, string(fixture.HostileSkills()["xss/evil.svg"])},
			{"/skills/xss/raw/page.html", `attachment; filename=page.html`, string(fixture.HostileSkills()["xss/page.html"])},
			{"/skills/xss/raw/evil.svg?inline=1", `inline`, string(fixture.HostileSkills()["xss/evil.svg"])},
			{"/skills/xss/raw/page.html?inline=1", `attachment; filename=page.html`, string(fixture.HostileSkills()["xss/page.html"])},
		} {
			res, body := testutil.Request(t, http.MethodGet, base+c.path)
			csp := res.Header.Get("Content-Security-Policy")
			if res.StatusCode != http.StatusOK || res.Header.Get("Content-Disposition") != c.disposition || string(body) != c.body ||
				!strings.Contains(csp, "sandbox") || !strings.Contains(csp, "default-src 'none'") || res.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s: %d, Content-Disposition %q (want %q), Content-Security-Policy %q, X-Content-Type-Options %q, body %.200q",
					c.path, res.StatusCode, res.Header.Get("Content-Disposition"), c.disposition, csp, res.Header.Get("X-Content-Type-Options"), body)
			}
		}
		res, _ = testutil.Request(t, http.MethodGet, base+"/skills/calculator/zip")
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Disposition") != "attachment; filename=calculator.zip" {
			t.Errorf("/skills/calculator/zip: %d, Content-Disposition %q", res.StatusCode, res.Header.Get("Content-Disposition"))
		}
	})

	b := newPageBrowser(t, "pages")

	t.Run("checks-can-fail", func(t *testing.T) {
		// What the checks and the console are watched for is seen: a
		// script's mark, a handler, a foreign image, an inline script, a
		// console error, an uncaught exception, a refused policy.
		b.visit(t, base+"/")
		problems := eval[[]string](t, b, `(() => {
  window.`+fixture.Pwned+` = 1;
  const main = document.querySelector("main");
  main.setAttribute("onclick", "x");
  main.append(Object.assign(document.createElement("img"), {src: "https://evil.example/x.png"}));
  document.body.append(Object.assign(document.createElement("script"), {textContent: "1"}));
  console.error("probe error");
  setTimeout(() => { throw new Error("probe exception"); });
  return `+pageChecks+`;
})()`)
		want := []string{"a script of the corpus ran", "has the attribute onclick", "an image from https://evil.example/x.png", `scripts: ["/assets/app.js","inline: 1"]`}
		for _, w := range want {
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, w) }) {
				t.Errorf("the page checks missed %q: %q", w, problems)
			}
		}
		var got []string
		deadline := time.Now().Add(pageStep)
		for _, w := range []string{"console.error: probe error", "Uncaught Error: probe exception", "https://evil.example/x.png' violates", "inline script violates"} {
			if !testutil.Within(time.Until(deadline), func() bool {
				got = append(got, b.takeConsole()...)
				return slices.ContainsFunc(got, func(m string) bool { return strings.Contains(m, w) })
			}) {
				t.Fatalf("the console did not report %q; it reported:\n\t%s", w, strings.Join(got, "\n\t"))
			}
		}
		b.visit(t, base+"/")
	})

	t.Run("crawl", func(t *testing.T) {
		type link struct{ from, to string }
		seen := map[string]bool{}
		queue := []link{{"", base + "/"}, {"", base + "/?q=calculator"}}
		for _, p := range hostilePages {
			queue = append(queue, link{"", base + p})
		}
		times := map[string]time.Duration{}
		for len(queue) > 0 {
			l := queue[0]
			queue = queue[1:]
			u, err := url.Parse(l.to)
			if err != nil {
				t.Errorf("%s links to %q: %v", l.from, l.to, err)
				continue
			}
			u.Fragment, u.RawFragment = "", ""
			if u.Scheme+"://"+u.Host != base || seen[u.String()] {
				continue
			}
			p := u.EscapedPath()
			if strings.HasPrefix(p, "/assets/") || p == "/mcp" || p == "/readyz" || strings.Contains(p, "/raw/") || strings.HasSuffix(p, "/zip") {
				continue
			}
			seen[u.String()] = true
			if len(seen) > maxCrawl {
				t.Fatalf("the crawl found over %d pages", maxCrawl)
			}
			// A page answering other than 200 makes Chromium log an error:
			// check it here.
			res, body := testutil.Request(t, http.MethodGet, u.String())
			if res.StatusCode != http.StatusOK {
				if p == "/skills/long-line/files/huge.txt" && res.StatusCode == http.StatusRequestEntityTooLarge {
					continue // listed, and refused as too large (statuses)
				}
				t.Errorf("a broken link on %s: %s answers %d:\n%.300s", l.from, u, res.StatusCode, body)
				continue
			}
			times[u.String()] = b.visit(t, u.String())
			for _, to := range b.links(t) {
				queue = append(queue, link{u.String(), to})
			}
		}
		for _, p := range hostilePages {
			if _, ok := times[base+p]; !ok {
				t.Errorf("%s was not visited", p)
			}
		}
		if len(times) < 30 {
			t.Errorf("the crawl visited %d pages, want the few dozen of the corpora", len(times))
		}
		var total time.Duration
		var lines []string
		for u, d := range times {
			total += d
			lines = append(lines, fmt.Sprintf("%8s %s", d.Round(time.Millisecond), strings.TrimPrefix(u, base)))
		}
		slices.Sort(lines)
		slices.Reverse(lines)
		t.Logf("%d pages rendered in %s; each:\n%s", len(times), total.Round(time.Millisecond), strings.Join(lines, "\n"))
	})

	t.Run("raw-svg", func(t *testing.T) {
		// An SVG with a script, opened as a document: its sandbox policy
		// keeps the script from running.
		u := base + "/skills/xss/raw/evil.svg?inline=1"
		b.run(t, "loading "+u, chromedp.Navigate(u))
		if v := eval[string](t, b, `typeof window.`+fixture.Pwned+` + ":" + document.documentElement.localName`); v != "undefined:svg" {
			t.Errorf("%s: got %q, want an svg document where window.%s is undefined", u, v, fixture.Pwned)
		}
		b.screenshot(t, "raw evil.svg")
		// Chromium says it blocked the script and the handler: that is
		// the one report expected here.
		blocked := "log error (security) " + u + ": Blocked script execution in '" + u +
			"' because the document's frame is sandboxed and the 'allow-scripts' permission is not set."
		c := b.takeConsole()
		if len(c) == 0 {
			t.Errorf("%s: Chromium did not report blocking the SVG's script", u)
		}
		for _, m := range c {
			if m != blocked {
				t.Errorf("%s: the browser's console reported %s", u, m)
			}
		}
	})

	t.Run("search", func(t *testing.T) {
		b.visit(t, base+"/")
		b.run(t, "typing a search", chromedp.SendKeys(chromedp.ID("q"), "weather"))
		b.waitJS(t, "the results for weather", `(() => {
  const r = document.getElementById("results");
  return !!r && !!r.querySelector('a[href="/skills/weather"]') && !r.textContent.includes("calculator") && location.search === "?q=weather";
})()`)
		b.check(t, "the results for weather")
		b.screenshot(t, "search weather")
		b.quiet(t, "searching")
		b.run(t, "following the result", chromedp.Click(chromedp.CSS(`#results a[href="/skills/weather"]`)))
		b.waitJS(t, "the page of weather", `location.pathname === "/skills/weather" && document.readyState === "complete" && document.querySelector("main h1")?.textContent === "weather"`)
		b.check(t, "the page of weather")
		b.quiet(t, "following the result")
	})

	t.Run("download", func(t *testing.T) {
		b.visit(t, base+"/skills/calculator")
		name, data := b.download(t, "downloading examples/basic.py",
			chromedp.Click(chromedp.CSS(`a[download][href="/skills/calculator/raw/examples/basic.py"]`)))
		if name != "basic.py" || string(data) != fixture.BasicPy {
			t.Errorf("downloaded %q: %q, want basic.py: %q", name, data, fixture.BasicPy)
		}
		b.quiet(t, "downloading examples/basic.py")
		name, data = b.download(t, "downloading the zip", chromedp.Click(chromedp.CSS(`a[download][href="/skills/calculator/zip"]`)))
		if name != "calculator.zip" {
			t.Errorf("the zip was saved as %q, want calculator.zip", name)
		}
		checkCalculatorZip(t, data)
		b.quiet(t, "downloading the zip")
	})
}

// checkCalculatorZip checks that data is the calculator skill's zip: its
// SKILL.md under calculator/, and no hidden file.
func checkCalculatorZip(t *testing.T, data []byte) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("the zip (%d bytes): %v", len(data), err)
	}
	var names []string
	found := false
	for _, f := range zr.File {
		names = append(names, f.Name)
		rc, err := f.Open()
		if err != nil {
			t.Fatalf("%s in the zip: %v", f.Name, err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s in the zip: %v", f.Name, err)
		}
		if bytes.Contains(b, []byte(fixture.HiddenSecret)) {
			t.Errorf("the zip's %s holds a hidden file's secret", f.Name)
		}
		if f.Name == "calculator/SKILL.md" {
			found = true
			if string(b) != fixture.CalculatorDoc {
				t.Errorf("the zip's calculator/SKILL.md: %q, want %q", b, fixture.CalculatorDoc)
			}
		}
	}
	if !found {
		t.Errorf("the zip holds %q, not calculator/SKILL.md", names)
	}
}

// TestPagesToken drives headless Chromium through the pages of a server
// that asks for a bearer token: a page asks for it; once given, the
// script sends it with every request — pages, search, images, a download,
// which arrives whole — keeps it in the tab's session storage and never
// puts it in an address; a wrong token brings the sign-in page back,
// saying it was refused. Nothing of it reports on the console.
func TestPagesToken(t *testing.T) {
	requireBinary(t, chromium, "Chromium (Debian package chromium)")
	ran(t, "Chromium (catalog pages)")
	const token = "pages-token-Hq7w2"
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := servePages(t, "--auth-token-file", tokenFile)
	res, body := testutil.Request(t, http.MethodGet, base+"/")
	if res.StatusCode != http.StatusUnauthorized || !bytes.Contains(body, []byte(`id="signin-form"`)) {
		t.Fatalf("/ without the token: %d\n%.600s", res.StatusCode, body)
	}
	if res, _ := testutil.Request(t, http.MethodGet, base+"/skills/calculator/raw/examples/basic.py"); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a file without the token: %d, want 401", res.StatusCode)
	}
	if res, body := testutil.Request(t, http.MethodGet, base+"/skills/calculator/raw/examples/basic.py", "Authorization", "Bearer "+token); string(body) != fixture.BasicPy {
		t.Errorf("a file with the token: %d %q", res.StatusCode, body)
	}

	b := newPageBrowser(t, "token")
	t.Run("signin", func(t *testing.T) {
		b.load(t, base+"/")
		b.quiet(t, "the sign-in page")
		b.waitJS(t, "the sign-in form", `!!document.querySelector("#signin-form #token")`)
		b.run(t, "giving the token",
			chromedp.SendKeys(chromedp.ID("token"), token),
			chromedp.Click(chromedp.CSS(`#signin-form button[type="submit"]`)))
		b.waitJS(t, "the index", `!!document.querySelector('ol.skills a.name[href="/skills/calculator"]') && !document.getElementById("signin-form")`)
		b.check(t, "the index, signed in")
		b.screenshot(t, "index signed in")
		if got := eval[string](t, b, `sessionStorage.getItem("skillstore.token") || ""`); got != token {
			t.Errorf("session storage holds %q, want the token", got)
		}
		b.quiet(t, "signing in")
	})

	t.Run("browse", func(t *testing.T) {
		b.run(t, "typing a search", chromedp.SendKeys(chromedp.ID("q"), "weather"))
		b.waitJS(t, "the results for weather", `(() => {
  const r = document.getElementById("results");
  return !!r && !!r.querySelector('a[href="/skills/weather"]') && !r.textContent.includes("calculator") && location.search === "?q=weather";
})()`)
		b.quiet(t, "searching")
		b.run(t, "following the result", chromedp.Click(chromedp.CSS(`#results a[href="/skills/weather"]`)))
		b.waitJS(t, "the page of weather", `location.pathname === "/skills/weather" && document.querySelector("main h1")?.textContent === "weather"`)
		b.check(t, "the page of weather")
		b.quiet(t, "following the result")

		// A hostile skill's page, swapped in by the script: nothing runs,
		// and its images are fetched with the token, but for the SVG: as a
		// blob: address it would lose the policy that keeps it from
		// running when opened on its own, so it stays its alternative text.
		b.run(t, "going back to the index", chromedp.Click(chromedp.CSS(`header a.brand`)))
		b.waitJS(t, "the index", `location.pathname === "/" && !!document.querySelector('ol.skills a.name[href="/skills/xss"]')`)
		b.run(t, "opening xss", chromedp.Click(chromedp.CSS(`ol.skills a.name[href="/skills/xss"]`)))
		b.waitJS(t, "the page of xss, its images loaded with the token", `location.pathname === "/skills/xss" && document.querySelector("main h1")?.textContent === "xss" && (() => {
  const imgs = Array.from(document.querySelectorAll("main .markdown img"));
  const png = imgs.find(img => img.alt === "pixel"), svg = imgs.find(img => img.alt === "svg");
  return imgs.length === 2 && png.src.startsWith("blob:") && png.complete && png.naturalWidth > 0 &&
    !svg.hasAttribute("src") && !svg.hasAttribute("data-src");
})()`)
		b.check(t, "the page of xss")
		b.screenshot(t, "xss signed in")
		b.quiet(t, "opening xss")
		b.run(t, "opening xss/pixel.png", chromedp.Click(chromedp.CSS(`table.files a[href="/skills/xss/files/pixel.png"]`)))
		b.waitJS(t, "the image, loaded with the token", `location.pathname === "/skills/xss/files/pixel.png" && (() => {
  const img = document.querySelector("main figure img");
  return !!img && img.src.startsWith("blob:") && img.complete && img.naturalWidth === 1;
})()`)
		b.check(t, "the page of xss/pixel.png")
		b.screenshot(t, "xss pixel.png signed in")
		b.quiet(t, "opening xss/pixel.png")
	})

	t.Run("download", func(t *testing.T) {
		b.run(t, "going back to the index", chromedp.Click(chromedp.CSS(`header a.brand`)))
		b.waitJS(t, "the index", `location.pathname === "/" && !!document.querySelector('ol.skills a.name[href="/skills/calculator"]')`)
		b.run(t, "opening calculator", chromedp.Click(chromedp.CSS(`ol.skills a.name[href="/skills/calculator"]`)))
		b.waitJS(t, "the page of calculator", `location.pathname === "/skills/calculator" && document.querySelector("main h1")?.textContent === "calculator"`)
		b.check(t, "the page of calculator")
		b.screenshot(t, "calculator signed in")
		name, data := b.download(t, "downloading examples/basic.py",
			chromedp.Click(chromedp.CSS(`a[download][href="/skills/calculator/raw/examples/basic.py"]`)))
		if name != "basic.py" || string(data) != fixture.BasicPy {
			t.Errorf("downloaded %q: %q, want basic.py: %q", name, data, fixture.BasicPy)
		}
		name, data = b.download(t, "downloading the zip", chromedp.Click(chromedp.CSS(`a[download][href="/skills/calculator/zip"]`)))
		if name != "calculator.zip" {
			t.Errorf("the zip was saved as %q, want calculator.zip", name)
		}
		checkCalculatorZip(t, data)
		b.quiet(t, "downloading")

		// A link to a file's bytes that is not marked as a download (an
		// address a skill's text gives): the browser opens it without the
		// token, gets the sign-in page, and the script fetches it with the
		// token and saves it, once, then shows the catalog. What is not a
		// page is never shown as one.
		eval[bool](t, b, `(() => {
  const a = Object.assign(document.createElement("a"), {href: location.origin + "/skills/calculator/raw/examples/basic.py", id: "plain-raw", textContent: "raw"});
  document.querySelector("main").append(a);
  return true;
})()`)
		name, data = b.download(t, "following a plain link to a file's bytes", chromedp.Click(chromedp.ID("plain-raw")))
		if name != "basic.py" || string(data) != fixture.BasicPy {
			t.Errorf("following a plain link downloaded %q: %q", name, data)
		}
		b.waitJS(t, "the index after the download", `location.pathname === "/" && !!document.querySelector("ol.skills")`)
		b.check(t, "the index after a plain link's download")
		b.quiet(t, "following a plain link to a file's bytes")
	})

	t.Run("wrong-token", func(t *testing.T) {
		b.run(t, "forgetting the token", chromedp.Click(chromedp.ID("signout")))
		b.waitJS(t, "the sign-in page", `!!document.querySelector("#signin-form #token") && !sessionStorage.getItem("skillstore.token")`)
		b.check(t, "the sign-in page after forgetting the token")
		b.quiet(t, "forgetting the token")
		b.run(t, "giving a wrong token",
			chromedp.SendKeys(chromedp.ID("token"), "not-"+token),
			chromedp.Click(chromedp.CSS(`#signin-form button[type="submit"]`)))
		b.waitJS(t, "the sign-in page, saying the token was refused",
			`/refused/.test(document.getElementById("signin-message")?.textContent || "") && !!document.querySelector("#signin-form #token")`)
		if got := eval[string](t, b, `sessionStorage.getItem("skillstore.token") || ""`); got != "" {
			t.Errorf("session storage keeps the refused token %q", got)
		}
		b.check(t, "the sign-in page after a wrong token")
		b.screenshot(t, "wrong token")
		b.quiet(t, "giving a wrong token")
	})

	seen := b.seen()
	if !slices.Contains(seen, base+"/skills/calculator") {
		t.Errorf("the addresses the tab showed and requested were not all recorded: %q", seen)
	}
	for _, u := range seen {
		if strings.Contains(u, token) {
			t.Errorf("an address the tab showed or requested holds the token: %s", u)
		}
	}
}
