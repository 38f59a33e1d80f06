package mcpserver_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/site"
)

// The per-caller catalog, surface by surface: two callers with disjoint
// groups (alice in finance, bob in eng) under fixture.TeamPolicy, through a real
// HTTP server, on every protocol version.

// versions are the protocol versions a client may speak.
var versions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// rpcClient speaks raw JSON-RPC to /mcp as one caller at one version: a
// legacy session opened by initialize, or 2026-07-28 requests carrying
// their _meta and headers.
type rpcClient struct {
	t                            testing.TB
	url, token, version, session string
}

func dialRPC(t testing.TB, url, token, version string) *rpcClient {
	t.Helper()
	c := &rpcClient{t: t, url: url, token: token, version: version}
	if version == mcp.ProtocolVersion20260728 {
		return c
	}
	got, h := post(t, url, token, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if got.Status != 200 || !strings.Contains(got.Body, `"protocolVersion":"`+version+`"`) {
		t.Fatalf("initialize %s: %+v", version, got)
	}
	c.session = h.Get("Mcp-Session-Id")
	if r, _ := post(t, url, token, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, c.headers()...); r.Status != http.StatusAccepted {
		t.Fatalf("initialized: %+v", r)
	}
	return c
}

func (c *rpcClient) headers() []string {
	return []string{"Mcp-Session-Id", c.session, "Mcp-Protocol-Version", c.version}
}

// call sends one request (params a JSON object) and returns the answer.
func (c *rpcClient) call(method, params string) reply {
	c.t.Helper()
	h := c.headers()
	if c.version == mcp.ProtocolVersion20260728 {
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
		if params == "{}" {
			params = "{" + meta + "}"
		} else {
			params = "{" + meta + "," + params[1:]
		}
		h = []string{"Mcp-Protocol-Version", c.version}
		for k, v := range mcp.StandardHeaders(c.version, mcp.MCPMethod(method), json.RawMessage(params)) {
			h = append(h, k, v)
		}
	}
	got, _ := post(c.t, c.url, c.token, `{"jsonrpc":"2.0","id":7,"method":"`+method+`","params":`+params+`}`, h...)
	return got
}

// result decodes an answer's result, or nil for an error.
func result(r reply) map[string]any {
	var m struct {
		Result map[string]any `json:"result"`
	}
	json.Unmarshal([]byte(r.Body), &m)
	return m.Result
}

var listedSkill = regexp.MustCompile(`\n- ([a-z0-9-]+): `)

// listSurfaces are the answers that list skills: each gives the names of
// the skills it shows, which must be exactly the caller's.
var listSurfaces = []struct {
	name, method, params string
	seen                 func(map[string]any) []string
}{
	{"tools/list: the Skill tool's description", "tools/list", `{}`, func(r map[string]any) []string {
		out := []string{}
		tools, _ := r["tools"].([]any)
		for _, tl := range tools {
			m, _ := tl.(map[string]any)
			if m["name"] == "Skill" {
				for _, g := range listedSkill.FindAllStringSubmatch(m["description"].(string), -1) {
					out = append(out, g[1])
				}
			}
		}
		return out
	}},
	{"list_skills", "tools/call", `{"name":"list_skills","arguments":{}}`, func(r map[string]any) []string { return testutil.SortedStrings(r, "structuredContent", "skills") }},
	{"search_skills", "tools/call", `{"name":"search_skills","arguments":{"query":"monthly ledger payroll deploy service review pull request changes","limit":50}}`,
		func(r map[string]any) []string { return testutil.SortedStrings(r, "structuredContent", "skills") }},
	{"resources/list", "resources/list", `{}`, func(r map[string]any) []string { return testutil.SortedFields(r, "resources", "name", "", "") }},
	{"prompts/list", "prompts/list", `{}`, func(r map[string]any) []string { return testutil.SortedFields(r, "prompts", "name", "", "") }},
	{"skills/list", "skills/list", `{}`, func(r map[string]any) []string {
		return testutil.SortedFields(r, "skills", "uri", "skill://", "/SKILL.md")
	}},
	{"completion of skill names", "completion/complete", `{"ref":{"type":"ref/resource","uri":"skill://{name}/{+path}"},"argument":{"name":"name","value":""}}`,
		func(r map[string]any) []string { return testutil.SortedStrings(r, "completion", "values") }},
}

// skillSurfaces are the requests about one skill (NAME in params).
var skillSurfaces = []struct{ name, method, params string }{
	{"get_skill", "tools/call", `{"name":"get_skill","arguments":{"skill_name":"NAME"}}`},
	{"get_skill by uri", "tools/call", `{"name":"get_skill","arguments":{"uri":"skill://NAME/SKILL.md"}}`},
	{"read_file_in_skill", "tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"NAME","file_path":"SKILL.md"}}`},
	{"read_file_in_skill of a reference", "tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"NAME","file_path":"references/fx.md"}}`},
	{"read_file_in_skill escaping", "tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"NAME","file_path":"../payroll/SKILL.md"}}`},
	{"read_file_in_skill of a hidden file", "tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"NAME","file_path":".env"}}`},
	{"Skill", "tools/call", `{"name":"Skill","arguments":{"skill_name":"NAME"}}`},
	{"resources/read", "resources/read", `{"uri":"skill://NAME/SKILL.md"}`},
	{"resources/read of a reference", "resources/read", `{"uri":"skill://NAME/references/fx.md"}`},
	{"prompts/get", "prompts/get", `{"name":"NAME"}`},
	{"skills/get", "skills/get", `{"uri":"skill://NAME/SKILL.md"}`},
	{"resources/directory/read", "resources/directory/read", `{"uri":"skill://NAME"}`},
	{"resources/directory/read of a folder", "resources/directory/read", `{"uri":"skill://NAME/references"}`},
	{"completion of paths", "completion/complete", `{"ref":{"type":"ref/resource","uri":"skill://{name}/{+path}"},"argument":{"name":"path","value":""},"context":{"arguments":{"name":"NAME"}}}`},
	{"completion of a prompt", "completion/complete", `{"ref":{"type":"ref/prompt","name":"NAME"},"argument":{"name":"x","value":""}}`},
	{"resources/subscribe", "resources/subscribe", `{"uri":"skill://NAME/SKILL.md"}`},
}

// team is what one caller may see, and marks of what it may not.
type team struct {
	token    string
	visible  []string // the servable skills it sees, sorted
	hidden   []string // skills that exist (served, shadowed, or left out with a problem) that it may not see
	foreign  []string // text that only the other team's skills hold
	noSource string   // the other team's source label, as answers would quote it
}

var teams = map[string]team{
	"alice": {aliceToken, []string{"ledger", "payroll"}, []string{"deploy", "review"},
		[]string{"Deploy a service", "echo deploy", "Review a pull request", "Engineering's ledger", "Change ledger"}, `"eng"`},
	// finance, which bob may see nothing of, takes no part in his
	// layering: its ledger, which shadows eng's for alice, does not for him.
	"bob": {bobToken, []string{"deploy", "ledger", "review"}, []string{"payroll", "broken-books"},
		[]string{"Close the monthly ledger", "Reconcile accounts", "exchange rates", "Run payroll"}, "finance"},
}

// missing is a skill that exists nowhere.
const missing = "no-such-skill"

// TestCallersSeeOnlyTheirSkills: on every surface, on every protocol
// version, each caller sees exactly its own team's skills; every answer
// about another team's skill is the answer about a skill that does not
// exist, byte for byte (the name aside); and no answer holds anything of
// the other team's skills or source.
func TestCallersSeeOnlyTheirSkills(t *testing.T) {
	w := newWorld(t, worldOptions{policy: fixture.TeamPolicy})
	for _, version := range versions {
		for _, who := range []string{"alice", "bob"} {
			tm := teams[who]
			c := dialRPC(t, w.url, tm.token, version)
			t.Run(version+"/"+who, func(t *testing.T) {
				var answers []string
				for _, s := range listSurfaces {
					got := c.call(s.method, s.params)
					answers = append(answers, got.Body)
					if diff := cmp.Diff(tm.visible, s.seen(result(got))); diff != "" {
						t.Errorf("%s: skills seen (-want +got)\n%s\n%.400s", s.name, diff, got.Body)
					}
					checkPrivate(t, version, s.method, got)
				}
				for _, s := range skillSurfaces {
					ask := func(name string) reply { return c.call(s.method, strings.ReplaceAll(s.params, "NAME", name)) }
					want := ask(missing)
					for _, h := range tm.hidden {
						got := ask(h)
						answers = append(answers, got.Body)
						got.Body = strings.ReplaceAll(got.Body, h, missing)
						if diff := cmp.Diff(want, got); diff != "" {
							t.Errorf("%s of hidden %s differs from a missing skill's (-missing +hidden)\n%s", s.name, h, diff)
						}
					}
					for _, v := range tm.visible {
						got := ask(v)
						answers = append(answers, got.Body)
						checkPrivate(t, version, s.method, got)
						if s.name == "get_skill" && !strings.Contains(got.Body, "# ") {
							t.Errorf("%s of its own %s: %.300s", s.name, v, got.Body)
						}
					}
				}
				for _, a := range answers {
					for _, f := range append(tm.foreign, tm.noSource) {
						if strings.Contains(a, f) {
							t.Errorf("an answer holds %q of the other team: %.500s", f, a)
						}
					}
					noSecrets(t, "answer", a)
				}
			})
		}
	}
	noSecrets(t, "log", w.logs.String())
}

// checkPrivate fails t if a cacheable 2026-07-28 answer for a caller with
// a restricted view is not cacheScope "private".
func checkPrivate(t *testing.T, version, method string, got reply) {
	t.Helper()
	cacheable := slices.Contains([]string{"tools/list", "resources/list", "resources/templates/list", "resources/read", "prompts/list", "skills/list", "skills/get", "resources/directory/read"}, method)
	if version == mcp.ProtocolVersion20260728 && cacheable && got.Status == 200 && !strings.Contains(got.Body, `"cacheScope":"private"`) {
		t.Errorf("%s: a filtered answer is not private: %.300s", method, got.Body)
	}
}

// TestTemplatesSameForEveryone: the resource template names no skill, so
// every caller gets the same list.
func TestTemplatesSameForEveryone(t *testing.T) {
	w := newWorld(t, worldOptions{policy: fixture.TeamPolicy})
	for _, version := range versions {
		a := dialRPC(t, w.url, aliceToken, version).call("resources/templates/list", `{}`)
		b := dialRPC(t, w.url, bobToken, version).call("resources/templates/list", `{}`)
		if a.Status != 200 || !strings.Contains(a.Body, `"uriTemplate":"skill://{name}/{+path}"`) {
			t.Errorf("%s: %+v", version, a)
		}
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("%s: (-alice +bob)\n%s", version, diff)
		}
	}
}

// wellKnownGet fetches a .well-known path with the token (none if "").
func wellKnownGet(t *testing.T, w *accessWorld, token, path string) reply {
	t.Helper()
	got, h := post(t, w.ts.URL+"/.well-known/agent-skills/"+path, token, "")
	if got.Status == 200 && h.Get("Cache-Control") == "" {
		t.Errorf("%s: no Cache-Control", path)
	}
	return got
}

// indexNames are the skills index.json lists.
func indexNames(t *testing.T, r reply) []string {
	t.Helper()
	var idx map[string]any
	if err := json.Unmarshal([]byte(r.Body), &idx); err != nil {
		t.Fatalf("index.json: %v: %+v", err, r)
	}
	return testutil.SortedFields(idx, "skills", "name", "", "")
}

// TestWellKnownPerCaller: behind authentication the discovery index lists
// the caller's skills, and another team's artifacts answer as missing
// ones do; an open publication shows what the anonymous caller may see.
func TestWellKnownPerCaller(t *testing.T) {
	w := newWorld(t, worldOptions{policy: fixture.TeamPolicy})
	for who, tm := range teams {
		if diff := cmp.Diff(tm.visible, indexNames(t, wellKnownGet(t, w, tm.token, "index.json"))); diff != "" {
			t.Errorf("%s: index (-want +got)\n%s", who, diff)
		}
		for _, path := range []string{"NAME.zip", "NAME/SKILL.md"} {
			want := wellKnownGet(t, w, tm.token, strings.ReplaceAll(path, "NAME", missing))
			for _, h := range tm.hidden {
				got := wellKnownGet(t, w, tm.token, strings.ReplaceAll(path, "NAME", h))
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: %s of hidden %s (-missing +hidden)\n%s", who, path, h, diff)
				}
			}
		}
		artifact := map[string]string{"alice": "ledger.zip", "bob": "review/SKILL.md"}[who]
		if got := wellKnownGet(t, w, tm.token, artifact); got.Status != 200 {
			t.Errorf("%s: its own %s: %+v", who, artifact, got)
		}
	}
	if got := wellKnownGet(t, w, "", "index.json"); got.Status != 401 {
		t.Errorf("index without a token: %+v", got)
	}

	open := newWorld(t, worldOptions{policy: fixture.TeamPolicy + "  - sources: [eng]\n    skills: [review]\n", http: site.Options{OpenWellKnown: true}})
	for _, token := range []string{"", aliceToken} { // a token sent to the open publication changes nothing
		if diff := cmp.Diff([]string{"review"}, indexNames(t, wellKnownGet(t, open, token, "index.json"))); diff != "" {
			t.Errorf("open index (-want +got)\n%s", diff)
		}
		if got := wellKnownGet(t, open, token, "ledger.zip"); got.Status != 404 {
			t.Errorf("open ledger.zip: %+v", got)
		}
	}
}

// TestStdioPrincipal: stdio serves everyone unless the policy names a
// principal for it; then it sees what that principal may.
func TestStdioPrincipal(t *testing.T) {
	for _, tt := range []struct {
		name, policy string
		want         []string
	}{
		{"no policy", "", []string{"deploy", "ledger", "payroll", "review"}},
		{"policy without stdio", fixture.TeamPolicy, []string{"deploy", "ledger", "payroll", "review"}},
		{"stdio in finance", fixture.TeamPolicy + "stdio:\n  subject: launcher\n  groups: [finance]\n", []string{"ledger", "payroll"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, worldOptions{policy: tt.policy, noAuth: true})
			in, out := mcpserver.ServeStdioForTest(t, w.srv)
			io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}`+"\n")
			msg := <-out
			if diff := cmp.Diff(tt.want, testutil.SortedStrings(msg["result"], "structuredContent", "skills")); diff != "" {
				t.Errorf("list_skills over stdio (-want +got)\n%s", diff)
			}
		})
	}
}

// TestPolicyReloadUnderLoad: while the policy file is rewritten, back and
// forth, every request in flight is answered, each with one policy's view
// or the other's, never an error or a mixture.
func TestPolicyReloadUnderLoad(t *testing.T) {
	file := filepath.Join(t.TempDir(), "policy.yaml")
	wider := fixture.TeamPolicy + "  - groups: [finance]\n    sources: [eng]\n    skills: [deploy]\n"
	write := func(text string) {
		tmp := file + ".tmp"
		if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, file); err != nil { // as editors and ConfigMaps do
			t.Fatal(err)
		}
	}
	write(fixture.TeamPolicy)
	r, err := access.NewReloader(file, access.ReloadOptions{Interval: 5 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w := newWorld(t, worldOptions{access: r})
	views := map[string]bool{"ledger payroll": true, "deploy ledger payroll": true}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var answered, seenWide, seenNarrow atomic.Int64
	for i := range 4 {
		c := dialRPC(t, w.url, aliceToken, versions[i%len(versions)])
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, s := range listSurfaces[:2] { // the Skill tool's description and list_skills
					got := c.call(s.method, s.params)
					seen := strings.Join(s.seen(result(got)), " ")
					if got.Status != 200 || !views[seen] {
						t.Errorf("%s during a reload: %q from %.300s", s.name, seen, got.Body)
						return
					}
					if seen == "deploy ledger payroll" {
						seenWide.Add(1)
					} else {
						seenNarrow.Add(1)
					}
					answered.Add(1)
				}
			}
		}()
	}
	for i := range 40 {
		before := r.Policy()
		write(map[bool]string{true: wider, false: fixture.TeamPolicy}[i%2 == 0])
		// The reloader, polling the file, loads each version in turn.
		testutil.Eventually(t, "the policy reloaded", func() bool { return r.Policy() != before })
	}
	close(stop)
	wg.Wait()
	if seenWide.Load() == 0 || seenNarrow.Load() == 0 {
		t.Errorf("the reloads were not seen: %d answers, %d wide, %d narrow", answered.Load(), seenWide.Load(), seenNarrow.Load())
	}
}
