package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/audit"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/site"
	"github.com/skillstore/skillstore/ui"
)

// page GETs path of w's server with the token (none if "") and headers h.
func page(t testing.TB, w *accessWorld, path, token string, h ...string) (int, http.Header, string) {
	t.Helper()
	got, header := post(t, w.ts.URL+path, token, "", h...) // no body: a GET
	return got.Status, header, got.Body
}

// TestPagesAccess: the catalog's pages follow /mcp's rules — the token,
// the caller's view under the access policy, the Origin check — and a
// skill the caller may not see answers, on every page, as one that does
// not exist.
func TestPagesAccess(t *testing.T) {
	var buf testutil.SyncBuffer
	log := audit.New(&buf, audit.Options{})
	w := newWorld(t, worldOptions{policy: fixture.TeamPolicy, audit: log, http: site.Options{UI: true}})

	// No token, a refused one, one without the scope: the page that asks
	// for it, with the challenge, and nothing of the catalog.
	for _, tok := range []string{"", aliceToken + "x", noScopeToken} {
		code, h, body := page(t, w, "/skills/ledger", tok)
		if code != http.StatusUnauthorized && code != http.StatusForbidden || !strings.Contains(body, `id="signin-form"`) || !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("token %q: %d %v\n%s", tok, code, h, body)
		}
		for _, name := range []string{"ledger", "payroll", "deploy", "Reconcile"} {
			if strings.Contains(body, name) {
				t.Errorf("token %q: the sign-in page names %q", tok, name)
			}
		}
		noSecrets(t, "sign-in page", body, aliceToken, noScopeToken)
	}
	if code, _, body := page(t, w, "/assets/app.js", ""); code != 200 || !strings.Contains(body, "sessionStorage") {
		t.Errorf("assets without a token: %d", code)
	}

	// Each caller sees its own catalog.
	_, _, index := page(t, w, "/", aliceToken)
	for name, want := range map[string]bool{"ledger": true, "payroll": true, "deploy": false, "review": false} {
		if strings.Contains(index, `href="/skills/`+name+`"`) != want {
			t.Errorf("alice's index: %s listed = %v, want %v", name, !want, want)
		}
	}
	if _, _, body := page(t, w, "/?q=deploy", aliceToken); strings.Contains(body, "/skills/deploy") {
		t.Error("alice finds deploy")
	}
	_, _, bobIndex := page(t, w, "/", bobToken)
	if !strings.Contains(bobIndex, `href="/skills/deploy"`) || !strings.Contains(bobIndex, `href="/skills/ledger"`) || strings.Contains(bobIndex, `href="/skills/payroll"`) {
		t.Errorf("bob's index:\n%s", bobIndex)
	}

	// A hidden skill is a missing one, page by page: same status, same
	// words but for the name.
	for _, c := range []struct{ token, hidden string }{{aliceToken, "deploy"}, {bobToken, "payroll"}, {bobToken, "broken-books"}} {
		for _, suffix := range []string{"", "/files/SKILL.md", "/files/scripts/run.sh", "/raw/SKILL.md", "/zip", "/files/%2e%2e/x", "/files/.env"} {
			hc, _, hb := page(t, w, "/skills/"+c.hidden+suffix, c.token)
			mc, _, mb := page(t, w, "/skills/zz-none"+suffix, c.token)
			if hc != mc || strings.ReplaceAll(hb, c.hidden, "zz-none") != mb {
				t.Errorf("%s%s: %d\n%s\nwhere a missing skill gets %d\n%s", c.hidden, suffix, hc, hb, mc, mb)
			}
		}
	}
	// eng has a ledger, shadowed by finance's for those who see finance;
	// finance, which bob may see nothing of, takes no part in his layering.
	_, _, bobLedger := page(t, w, "/skills/ledger", bobToken)
	if !strings.Contains(bobLedger, "Change ledger") {
		t.Error("bob does not see eng's ledger")
	}
	if _, _, body := page(t, w, "/skills/ledger", aliceToken); strings.Contains(body, "<li>eng <span") {
		t.Errorf("alice's ledger names the shadowed copy in a source she may not see:\n%s", body)
	}

	// Sources and problems: only those the caller may know of.
	_, _, src := page(t, w, "/sources", aliceToken)
	if !strings.Contains(src, "<strong>finance</strong>") || strings.Contains(src, "<strong>eng</strong>") || !strings.Contains(src, "broken-books") {
		t.Errorf("alice's sources:\n%s", src)
	}
	_, _, src = page(t, w, "/sources", bobToken)
	if strings.Contains(src, "<strong>finance</strong>") || strings.Contains(src, "broken-books") || !strings.Contains(src, "<strong>eng</strong>") {
		t.Errorf("bob's sources:\n%s", src)
	}

	// A browser page of another origin is refused, as on /mcp.
	if code, _, _ := page(t, w, "/", aliceToken, "Origin", "http://evil.example"); code != http.StatusForbidden {
		t.Errorf("another origin: %d", code)
	}

	// The audit log has a line for each read of skill content, allowed
	// or not, and none for lists.
	page(t, w, "/skills/ledger/files/references/fx.md", aliceToken, "X-Request-Id", "page-1")
	page(t, w, "/skills/deploy/zip", aliceToken, "X-Request-Id", "page-2")
	if err := log.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	type line struct {
		RequestID string `json:"request_id"`
		Subject   string `json:"sub"`
		Method    string `json:"method"`
		Skill     string `json:"skill"`
		File      string `json:"file"`
		Decision  string `json:"decision"`
	}
	var got []line
	for _, text := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var e line
		if json.Unmarshal([]byte(text), &e) == nil && strings.HasPrefix(e.RequestID, "page-") {
			got = append(got, e)
		}
	}
	if len(got) != 2 || got[0].Skill != "ledger" || got[0].File != "references/fx.md" || got[0].Decision != "allow" || got[0].Subject != "alice" ||
		got[1].Skill != "deploy" || got[1].Decision != "deny" || got[1].Method != "GET /skills/deploy/zip" {
		t.Errorf("audit lines: %+v", got)
	}
	noSecrets(t, "audit log", buf.String(), aliceToken, bobToken)
}

// TestPagesSharedToken: with the one shared token, pages ask for it and
// show everything to its holder; without UI, / is the JSON 404 it was.
func TestPagesSharedToken(t *testing.T) {
	w := newWorld(t, worldOptions{noAuth: true, http: site.Options{UI: true, AuthToken: "shared-tok-1"}})
	if code, h, body := page(t, w, "/", ""); code != http.StatusUnauthorized || h.Get("WWW-Authenticate") == "" || !strings.Contains(body, "signin-form") || !strings.Contains(body, `data-token="required"`) {
		t.Errorf("no token: %d\n%s", code, body)
	}
	if code, _, body := page(t, w, "/", "wrong"); code != http.StatusUnauthorized || !strings.Contains(body, "The token was refused") {
		t.Errorf("wrong token: %d\n%s", code, body)
	}
	// A browser is not told by the status where a refusal is the first
	// step: a person's navigation, and the page's own script (told in a
	// header of its own).
	if code, h, body := page(t, w, "/skills/deploy", "", "Sec-Fetch-Mode", "navigate"); code != 200 || !strings.Contains(body, "signin-form") || strings.Contains(body, "Deploy a service") || h.Get(ui.RefusedHeader) != "" {
		t.Errorf("a navigation without the token: %d %v", code, h)
	}
	if code, h, body := page(t, w, "/skills/deploy", "wrong", ui.PageHeader, "1"); code != 200 || !strings.Contains(body, "signin-form") || strings.Contains(body, "Deploy a service") || h.Get(ui.RefusedHeader) != "401" {
		t.Errorf("the script with a wrong token: %d %v", code, h)
	}
	if code, _, _ := page(t, w, "/skills/deploy", "wrong", "Sec-Fetch-Mode", "navigate"); code != http.StatusUnauthorized {
		t.Errorf("a navigation with a wrong token: %d", code)
	}
	if code, _, body := page(t, w, "/", "shared-tok-1"); code != 200 || !strings.Contains(body, `href="/skills/deploy"`) || !strings.Contains(body, `href="/skills/ledger"`) {
		t.Errorf("the token: %d\n%s", code, body)
	}
	// One metrics label for every page, whatever the skill.
	if _, _, m := page(t, w, "/metrics", ""); !strings.Contains(m, `skillstore_http_requests_total{path="pages",code="200"}`) || strings.Contains(m, "deploy") {
		t.Errorf("metrics:\n%s", m)
	}
	off := newWorld(t, worldOptions{noAuth: true})
	if code, h, _ := page(t, off, "/", ""); code != http.StatusNotFound || h.Get("Content-Type") != "application/json" {
		t.Errorf("without UI: %d %v", code, h)
	}
}
