package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/internal/authtest"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
)

// The access policy reloaded while callers are served.

// widePolicy also shows finance engineering's source.
const widePolicy = fixture.TeamPolicy + `  - groups: [finance]
    sources: [eng]
    skills: ["*"]
`

// brokenPolicy has a key the policy format does not know.
const brokenPolicy = `default: deny
rules:
  - groups: [finance]
    sources: [finance, eng]
    skillz: ["*"]
`

// policyView is what one policy shows a caller: list_skills' names, and
// whether get_skill finds deploy.
type policyView struct {
	list   string
	deploy bool
}

// The views of the reload test: finance's under each policy, and
// engineering's, which no reload changes.
var (
	narrowView = policyView{"ledger payroll tax", false}
	wideView   = policyView{"deploy ledger oncall payroll review tax", true}
	engView    = policyView{"deploy ledger oncall review", true}
)

// reloadPhase is a step of the reload test: the views an answer to
// finance's request started in it may show.
type reloadPhase struct {
	name    string
	finance []policyView
}

// reloadPhases are the reload test's steps, in order.
var reloadPhases = []reloadPhase{
	{"narrow", []policyView{narrowView}},
	{"widening (rename)", []policyView{narrowView, wideView}},
	{"wide", []policyView{wideView}},
	{"narrowing (in place)", []policyView{wideView, narrowView}},
	{"narrow", []policyView{narrowView}},
	{"broken edit", []policyView{narrowView}},
	{"widening (rename)", []policyView{narrowView, wideView}},
	{"wide", []policyView{wideView}},
}

// reloadLoad is the callers of the reload test, each calling in a loop
// and checking every answer against the phase it was begun and ended in.
type reloadLoad struct {
	t        *testing.T
	phase    atomic.Int32
	answered [8]atomic.Int64 // answers to requests begun in each phase
	callers  int
	stop     chan struct{}
	wg       sync.WaitGroup
}

// add starts a caller: g, whose view is fixed (engineering's) or else
// finance's under the phase's policy.
func (l *reloadLoad) add(g *goCaller, who string, fixed *policyView) {
	missing := g.call("tools/call", askMissing).text()
	l.callers++
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		for {
			select {
			case <-l.stop:
				return
			default:
			}
			for _, deploy := range []bool{false, true} {
				// Each request on its own: a reload may come between two.
				begun := int(l.phase.Load())
				got, ok := askView(l.t, g, deploy, missing)
				ended := int(l.phase.Load())
				views := append(slices.Clone(reloadPhases[begun].finance), reloadPhases[ended].finance...)
				if fixed != nil {
					views = []policyView{*fixed}
				}
				if !ok || !slices.ContainsFunc(views, func(v policyView) bool { return got == v.part(deploy) }) {
					l.t.Errorf("%s at %s, begun in phase %d (%s), ended in %d: %q; want that of one of %+v", who, g.version, begun, reloadPhases[begun].name, ended, got, views)
					return
				}
				l.answered[begun].Add(1)
			}
		}
	}()
}

// next moves to the next phase and returns it.
func (l *reloadLoad) next() int { return int(l.phase.Add(1)) }

// loaded waits until every caller may have had an answer to a request
// begun in the current phase: as many more answers as there are callers.
func (l *reloadLoad) loaded() {
	l.t.Helper()
	n := &l.answered[l.phase.Load()]
	from := n.Load()
	until(l.t, 20*time.Second, "the callers answered", func() bool { return n.Load() >= from+int64(l.callers) })
}

// TestAccessPolicyReload: while finance and engineering callers (mcp-go,
// legacy sessions and 2026-07-28 requests) call list_skills and get_skill
// in a loop, the policy file is rewritten: wider by rename, narrower in
// place, broken (kept: the server logs it and serves the previous
// policy), wider again by rename. No request fails; every answer shows
// one policy's view — the one in force when the request began or the
// one in force when it ended — and once a new view has been seen, every
// request begun after that sees it.
func TestAccessPolicyReload(t *testing.T) {
	w := newAccessWorld(t)
	checkBrokenAtStart(t, w)
	w.serve(t)
	finance, eng := w.issuer.Token(t, authtest.FinanceClient), w.issuer.Token(t, authtest.EngClient)
	l := &reloadLoad{t: t, stop: make(chan struct{})}
	for _, version := range []string{"2025-11-25", "2025-11-25", mcp.ProtocolVersion20260728} {
		l.add(dialGo(t, w.url, finance, version), "finance", nil)
	}
	l.add(dialGo(t, w.url, eng, "2025-11-25"), "eng", &engView)
	defer func() { close(l.stop); l.wg.Wait() }()

	probe := dialGo(t, w.url, finance, "2025-11-25")
	missing := probe.call("tools/call", askMissing).text()
	step := func(write func(), want policyView) {
		t.Helper()
		p := l.next()
		write()
		until(t, 15*time.Second, reloadPhases[p].name+": the new view served", func() bool { return seesView(t, probe, missing, want) })
		l.next()
		l.loaded()
	}
	l.loaded()
	step(func() { renameOver(t, w.policy, widePolicy) }, wideView)
	step(func() { writeInPlace(t, w.policy, fixture.TeamPolicy) }, narrowView)

	l.next() // the broken edit
	renameOver(t, w.policy, brokenPolicy)
	until(t, 15*time.Second, "the broken edit refused", func() bool {
		return strings.Contains(w.logs.String(), `msg="access policy not reloaded; keeping the previous one" file=policy.yaml`)
	})
	l.loaded()
	if !strings.Contains(w.logs.String(), `policy.yaml:5: unknown key \"skillz\"`) {
		t.Errorf("the log line of the broken edit does not name its line")
	}
	noHostPath(t, w, "the server's log", w.logs.String())
	if !seesView(t, probe, missing, narrowView) {
		t.Errorf("after a broken edit: not the previous policy's view %+v", narrowView)
	}
	step(func() { renameOver(t, w.policy, widePolicy) }, wideView)
	var counts []int64
	for i := range l.answered {
		counts = append(counts, l.answered[i].Load())
	}
	t.Logf("answers to requests begun in each phase: %v", counts)
	noTokens(t, "the server's log", w.logs.String(), finance, eng)
}

// askMissing is get_skill of a skill that exists nowhere.
const askMissing = `{"name":"get_skill","arguments":{"skill_name":"` + missingSkill + `"}}`

// part is what the view shows list_skills (the names) or, with deploy,
// get_skill deploy ("found" or "missing").
func (v policyView) part(deploy bool) string {
	switch {
	case !deploy:
		return v.list
	case v.deploy:
		return "found"
	}
	return "missing"
}

// seesView reports whether g's list_skills and get_skill deploy both show v.
func seesView(t *testing.T, g *goCaller, missing string, v policyView) bool {
	list, ok1 := askView(t, g, false, missing)
	deploy, ok2 := askView(t, g, true, missing)
	return ok1 && ok2 && list == v.part(false) && deploy == v.part(true)
}

// askView asks g list_skills, or with deploy get_skill deploy, and returns
// what the answer shows, as policyView.part; ok is false if the answer is
// neither a skill list, nor deploy's document, nor exactly the answer
// about a missing skill (missing, with the name substituted).
func askView(t *testing.T, g *goCaller, deploy bool, missing string) (string, bool) {
	if !deploy {
		list := g.call("tools/call", `{"name":"list_skills","arguments":{}}`)
		sc, _ := list.object()["structuredContent"].(map[string]any)
		if _, ok := sc["skills"].([]any); list.Error != nil || !ok {
			t.Logf("list_skills: %.300s", list.text())
			return "", false
		}
		return strings.Join(testutil.SortedStrings(list.object(), "structuredContent", "skills"), " "), true
	}
	got := g.call("tools/call", `{"name":"get_skill","arguments":{"skill_name":"deploy"}}`)
	text := got.text()
	isError, _ := got.object()["isError"].(bool)
	switch {
	case got.Error == nil && !isError && strings.Contains(text, "Deploy a service to production"):
		return "found", true
	case strings.ReplaceAll(text, "deploy", missingSkill) == missing:
		return "missing", true
	}
	t.Logf("get_skill deploy: %.300s", text)
	return "", false
}

// checkBrokenAtStart: a policy that cannot be used stops the binary at
// start, with an error naming each bad line and no host path.
func checkBrokenAtStart(t *testing.T, w *accessWorld) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(file, []byte(brokenPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "serve", "--http", "127.0.0.1:0", "--access-policy", file, "--source", "finance="+filepath.Join(w.root, "finance"))
	out, err := cmd.CombinedOutput()
	want := "skillstore: --access-policy: policy.yaml:3: rule has no \"skills\" (write skills: [\"*\"] for all)\npolicy.yaml:5: unknown key \"skillz\" (did you mean \"skills\"?)\n"
	if code := cmd.ProcessState.ExitCode(); err == nil || code != 1 || string(out) != want {
		t.Errorf("serve with a broken policy: exit %d, output %q; want 1, %q", code, out, want)
	}
}

// renameOver writes text to a new file beside path and renames it over
// path, as editors and ConfigMap updates do.
func renameOver(t *testing.T, path, text string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), ".policy.yaml.new")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// writeInPlace truncates path and writes text into the same file.
func writeInPlace(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
