package access

import (
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const teamPolicy = `
default: deny
rules:
  - groups: [finance]
    sources: [finance]
    skills: ["*"]
  - groups: [eng, sre]
    scopes: [skills.read]
    sources: ["*"]
    skills: ["eng-*", shared]
  - subjects: [alice]
    sources: ["team-*"]
    skills: ["report-[0-9]"]
  - sources: [public]
    skills: ["*"]
  - groups: [admins]
    sources: ["*"]
    skills: ["*"]
stdio:
  subject: ops
  groups: [finance, finance]
`

func mustParse(t testing.TB, text string) *Policy {
	t.Helper()
	p, err := Parse("policy.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// skillRef is one skill a test asks about.
type skillRef struct{ source, skill string }

var probes = []skillRef{
	{"finance", "ledger"}, {"public", "hello"}, {"eng", "eng-build"}, {"finance", "shared"},
	{"team-a", "report-1"}, {"team-a", "report-12"}, {"other", "report-1"}, {"eng", "ops-x"},
}

func TestPolicyViews(t *testing.T) {
	p := mustParse(t, teamPolicy)
	tests := []struct {
		name string
		pr   *Principal
		want []skillRef // of probes, those visible
	}{
		{"nil principal sees all", nil, probes},
		{"finance", &Principal{Subject: "bob", Groups: []string{"finance"}},
			[]skillRef{{"finance", "ledger"}, {"public", "hello"}, {"finance", "shared"}}},
		{"eng without the scope", &Principal{Groups: []string{"eng"}},
			[]skillRef{{"public", "hello"}}},
		{"eng with the scope", &Principal{Groups: []string{"eng"}, Scopes: []string{"openid", "skills.read"}},
			[]skillRef{{"public", "hello"}, {"eng", "eng-build"}, {"finance", "shared"}}},
		{"the scope without a group", &Principal{Scopes: []string{"skills.read"}},
			[]skillRef{{"public", "hello"}}},
		{"alice", &Principal{Subject: "alice"},
			[]skillRef{{"public", "hello"}, {"team-a", "report-1"}}},
		{"alice is a subject, not a group", &Principal{Groups: []string{"alice"}},
			[]skillRef{{"public", "hello"}}},
		{"nobody in particular", &Principal{Subject: "carol", Groups: []string{"marketing"}},
			[]skillRef{{"public", "hello"}}},
		{"union of rules", &Principal{Subject: "alice", Groups: []string{"sre", "finance"}, Scopes: []string{"skills.read"}},
			[]skillRef{{"finance", "ledger"}, {"public", "hello"}, {"eng", "eng-build"}, {"finance", "shared"}, {"team-a", "report-1"}}},
		{"admins", &Principal{Groups: []string{"x", "admins"}}, probes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := p.For(tt.pr)
			var got, gotDirect []skillRef
			for _, s := range probes {
				if f.Allows(s.source, s.skill) {
					got = append(got, s)
				}
				if p.Allows(tt.pr, s.source, s.skill) {
					gotDirect = append(gotDirect, s)
				}
				if f.Source(s.source).Allows(s.skill) != f.Allows(s.source, s.skill) {
					t.Errorf("Source(%q).Allows(%q) differs from Allows", s.source, s.skill)
				}
			}
			opt := cmp.AllowUnexported(skillRef{})
			if diff := cmp.Diff(tt.want, got, opt); diff != "" {
				t.Errorf("For().Allows (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, gotDirect, opt); diff != "" {
				t.Errorf("Policy.Allows (-want +got):\n%s", diff)
			}
			if f.All() != (len(tt.want) == len(probes)) {
				t.Errorf("All() = %v", f.All())
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	rules := "rules:\n  - {groups: [finance], sources: [finance], skills: [\"*\"]}\n"
	for _, tt := range []struct {
		deflt    string
		stranger bool // what a principal no rule matches sees
	}{{"allow", true}, {"deny", false}} {
		p := mustParse(t, "default: "+tt.deflt+"\n"+rules)
		stranger := p.For(&Principal{Subject: "x", Groups: []string{"eng"}})
		member := p.For(&Principal{Groups: []string{"finance"}})
		got := []bool{
			stranger.Allows("finance", "ledger"), stranger.Allows("eng", "build"),
			stranger.All(), stranger.None(),
			// A matched principal sees what its rules grant, whatever the default.
			member.Allows("finance", "ledger"), member.Allows("eng", "build"),
			// Nil sees all under either default.
			p.Allows(nil, "eng", "build"),
		}
		want := []bool{tt.stranger, tt.stranger, tt.stranger, !tt.stranger, true, false, true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("default %s (-want +got):\n%s", tt.deflt, diff)
		}
		if r := stranger.Reason("eng", "build"); r != "default: "+tt.deflt {
			t.Errorf("default %s: reason %q", tt.deflt, r)
		}
	}
}

func TestReasonsAndKeys(t *testing.T) {
	p := mustParse(t, teamPolicy)
	fin := p.For(&Principal{Groups: []string{"finance"}})
	tests := []struct {
		f             Filter
		source, skill string
		want          string
	}{
		{fin, "finance", "ledger", "rule policy.yaml:4"},
		{fin, "public", "x", "rule policy.yaml:14"},
		{fin, "eng", "x", "no rule grants it"},
		{p.For(nil), "eng", "x", "unrestricted caller"},
		{Filter{}, "eng", "x", "no access"},
	}
	for _, tt := range tests {
		if got := tt.f.Reason(tt.source, tt.skill); got != tt.want {
			t.Errorf("Reason(%s, %s) = %q; want %q", tt.source, tt.skill, got, tt.want)
		}
	}
	// Principals matching the same rules share a view; others do not.
	a := p.For(&Principal{Subject: "u1", Groups: []string{"finance"}})
	b := p.For(&Principal{Subject: "u2", Groups: []string{"finance", "unknown"}, Scopes: []string{"x"}})
	c := p.For(&Principal{Groups: []string{"admins"}})
	if a.v != b.v || a.Key() != b.Key() || a.Key() == c.Key() {
		t.Errorf("keys: %q %q %q; views shared: %v", a.Key(), b.Key(), c.Key(), a.v == b.v)
	}
	if (Filter{}).Key() != "none" || p.For(nil).Key() != "all" {
		t.Errorf("zero and nil keys: %q %q", (Filter{}).Key(), p.For(nil).Key())
	}
	if !(Filter{}).None() || (Filter{}).Allows("a", "b") || (Filter{}).AllowsSource("a") || (Filter{}).Source("a").Allows("b") {
		t.Error("the zero Filter sees something")
	}
	if !fin.AllowsSource("finance") || !fin.AllowsSource("public") || fin.AllowsSource("eng") {
		t.Error("AllowsSource for finance")
	}
	if !fin.Source("finance").All() || fin.Source("eng").All() || !p.For(nil).Source("eng").All() {
		t.Error("SourceFilter.All for finance")
	}
}

func TestStdio(t *testing.T) {
	p := mustParse(t, teamPolicy)
	got := p.Stdio()
	want := &Principal{Subject: "ops", Groups: []string{"finance"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Stdio (-want +got):\n%s", diff)
	}
	got.Groups[0] = "admins" // a copy: the policy is not changed
	if p.For(p.Stdio()).All() {
		t.Error("Stdio returned the policy's own principal")
	}
	if mustParse(t, "default: deny\nrules: [{sources: [a], skills: [b]}]").Stdio() != nil {
		t.Error("Stdio without a stdio section is not nil")
	}
	empty := mustParse(t, "default: deny\nrules: [{groups: [g], sources: [a], skills: [b]}]\nstdio: {}").Stdio()
	if empty == nil || empty.Subject != "" {
		t.Errorf("stdio: {} gave %+v", empty)
	}
}

// TestSourceGlobs checks source patterns other than "*", which take the
// memoized path.
func TestSourceGlobs(t *testing.T) {
	p := mustParse(t, `
default: deny
rules:
  - {groups: [g], sources: ["team-?"], skills: ["a*"]}
  - {groups: [g], sources: [team-b], skills: [zed]}
  - {groups: [g], sources: ["*"], skills: [common]}
`)
	f := p.For(&Principal{Groups: []string{"g"}})
	for range 2 { // the second pass answers from the memo
		got := []bool{
			f.Allows("team-a", "abc"), f.Allows("team-b", "abc"), f.Allows("team-b", "zed"),
			f.Allows("team-a", "zed"), f.Allows("team-ab", "abc"), f.Allows("other", "common"),
			f.Allows("team-c", "common"), f.AllowsSource("nothing"),
		}
		want := []bool{true, true, true, false, false, true, true, true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
	for i := range maxMemo + 10 { // a bounded memo still answers
		if !f.Allows(fmt.Sprintf("team-%c", 'a'+i%26), "ax") {
			t.Fatalf("team-%c", 'a'+i%26)
		}
		if f.Allows(fmt.Sprintf("x%d", i), "ax") {
			t.Fatalf("x%d", i)
		}
	}
}

// reference is the policy's meaning written plainly, without indexes,
// merged sets or caches.
func reference(p *Policy, pr *Principal, source, skill string) bool {
	if pr == nil {
		return true
	}
	any := func(want, have []string) bool {
		for _, w := range want {
			if slices.Contains(have, w) {
				return true
			}
		}
		return false
	}
	glob := func(pats []string, s string) bool {
		for _, pat := range pats {
			if ok, _ := path.Match(pat, s); ok || pat == "*" {
				return true
			}
		}
		return false
	}
	matched := false
	for _, r := range p.rules {
		subj := []string{}
		if pr.Subject != "" {
			subj = []string{pr.Subject}
		}
		if (len(r.groups) == 0 || any(r.groups, pr.Groups)) &&
			(len(r.subjects) == 0 || any(r.subjects, subj)) &&
			(len(r.scopes) == 0 || any(r.scopes, pr.Scopes)) {
			matched = true
			if glob(r.sources, source) && glob(r.skills, skill) {
				return true
			}
		}
	}
	return !matched && p.allow
}

// TestAgainstReference compares compiled answers with reference for
// random policies, principals and names.
func TestAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "c", "fin", "eng"}
	pick := func(n int) []string {
		var out []string
		for range rng.IntN(n + 1) {
			out = append(out, words[rng.IntN(len(words))])
		}
		return out
	}
	pats := []string{"*", "a*", "fin-*", "?", "[ab]", "eng", "e*g", "fin-[0-9]", "a"}
	names := []string{"a", "b", "ab", "fin-1", "fin-x", "eng", "ezzg", "c", "fin-", ""}
	for iter := range 300 {
		text := fmt.Sprintf("default: %s\nrules:\n", []string{"allow", "deny"}[iter%2])
		for range 1 + rng.IntN(6) {
			text += "  - {"
			for _, k := range []string{"groups", "subjects", "scopes"} {
				if l := pick(2); len(l) > 0 {
					text += fmt.Sprintf("%s: %q, ", k, l)
				}
			}
			src, sk := []string{}, []string{}
			for range 1 + rng.IntN(2) {
				src = append(src, pats[rng.IntN(len(pats))])
				sk = append(sk, pats[rng.IntN(len(pats))])
			}
			text += fmt.Sprintf("sources: %q, skills: %q}\n", src, sk)
		}
		text = fixQuotes(text)
		p := mustParse(t, text)
		for range 20 {
			var subj string
			if s := pick(1); len(s) > 0 {
				subj = s[0]
			}
			pr := &Principal{Subject: subj, Groups: pick(3), Scopes: pick(2)}
			f := p.For(pr)
			for _, src := range names {
				for _, sk := range names {
					want := reference(p, pr, src, sk)
					if got := f.Allows(src, sk); got != want {
						t.Fatalf("policy\n%s\nprincipal %+v, %q/%q: got %v, want %v", text, pr, src, sk, got, want)
					}
					if got := f.Source(src).Allows(sk); got != want {
						t.Fatalf("Source: policy\n%s\nprincipal %+v, %q/%q: got %v, want %v", text, pr, src, sk, got, want)
					}
				}
			}
		}
	}
}

// fixQuotes turns Go's %q of a []string ("[\"a\" \"b\"]") into a YAML
// flow list.
func fixQuotes(s string) string {
	out := []byte{}
	inList, inStr := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' && inList:
			inStr = !inStr
		case c == '[' && !inStr:
			inList = true
		case c == ']' && !inStr:
			inList = false
		case c == ' ' && inList && !inStr:
			out = append(out, ',')
		}
		out = append(out, c)
	}
	return string(out)
}

// TestViewCacheBound resolves more distinct rule sets than the cache
// holds, from several goroutines, and checks answers and the bound.
func TestViewCacheBound(t *testing.T) {
	text := "default: deny\nrules:\n"
	for i := range 12 {
		text += fmt.Sprintf("  - {groups: [g%d], sources: [s%d], skills: [\"*\"]}\n", i, i)
	}
	p := mustParse(t, text)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for set := w; set < 1<<12; set += 4 {
				var groups []string
				for i := range 12 {
					if set&(1<<i) != 0 {
						groups = append(groups, fmt.Sprintf("g%d", i))
					}
				}
				f := p.For(&Principal{Groups: groups})
				for i := range 12 {
					if f.Allows(fmt.Sprintf("s%d", i), "x") != (set&(1<<i) != 0) {
						t.Errorf("set %b, source %d", set, i)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if n := len(*p.views.Load()); n != maxViews {
		t.Errorf("%d views cached; want %d", n, maxViews)
	}
}

// TestIDs: Filter.ID is equal for the principals whose views are equal
// (even once the policy caches no more views), and tells apart the views
// of two policies whose rules match alike, as Key does not.
func TestIDs(t *testing.T) {
	p, reloaded := mustParse(t, teamPolicy), mustParse(t, teamPolicy)
	fin := &Principal{Subject: "u1", Groups: []string{"finance"}}
	const denyText = "default: deny\nrules:\n  - {groups: [g], sources: [s], skills: [\"*\"]}\n"
	deny, deny2 := mustParse(t, denyText), mustParse(t, denyText)
	tests := []struct {
		name  string
		a, b  Filter
		equal bool
	}{
		{"same rules matched", p.For(fin), p.For(&Principal{Subject: "u2", Groups: []string{"finance", "unknown"}}), true},
		{"other rules matched", p.For(fin), p.For(&Principal{Groups: []string{"eng"}}), false},
		{"a reload, same rules matched", p.For(fin), reloaded.For(fin), false},
		{"no rule matched, across policies", deny.For(&Principal{Groups: []string{"nobody"}}), deny2.For(&Principal{}), true},
		{"unrestricted, across policies", p.For(nil), (*Policy)(nil).For(nil), true},
		{"unrestricted and no rule matched", deny.For(nil), deny.For(&Principal{}), false},
		{"zero and denied", Filter{}, deny.For(&Principal{}), true},
	}
	for _, tt := range tests {
		if got := tt.a.ID() == tt.b.ID(); got != tt.equal {
			t.Errorf("%s: IDs equal %v; want %v", tt.name, got, tt.equal)
		}
	}

	text := "default: deny\nrules:\n"
	for i := range 11 {
		text += fmt.Sprintf("  - {groups: [g%d], sources: [s%d], skills: [\"*\"]}\n", i, i)
	}
	full := mustParse(t, text)
	groups := func(set int) (out []string) {
		for i := range 11 {
			if set&(1<<i) != 0 {
				out = append(out, fmt.Sprintf("g%d", i))
			}
		}
		return out
	}
	for set := 1; set <= maxViews; set++ {
		full.For(&Principal{Groups: groups(set)})
	}
	a, b := full.For(&Principal{Groups: groups(2000)}), full.For(&Principal{Groups: groups(2000)})
	if a.v == b.v || a.ID() != b.ID() || a.ID() == full.For(&Principal{Groups: groups(2001)}).ID() {
		t.Errorf("past the view cache: views shared %v, IDs %v %v", a.v == b.v, a.ID(), b.ID())
	}
}

// writePolicy: the rule at line 4 lets finance read fin-* and ledger of
// the registry, line 7 everyone read team-* there; the write rules are at
// lines 10, 13, 17 and 20. Under default: allow, a caller no read rule
// matches would see everything, but line 7 matches every caller.
const writePolicy = `
default: allow
rules:
  - groups: [finance]
    sources: [registry]
    skills: ["fin-*", "ledger"]
  - sources: [public, registry]
    skills: ["team-*"]
writes:
  - groups: [finance]
    skills: ["fin-*"]
    ops: [create, version]
  - groups: [finance-admins]
    scopes: [skills:admin]
    skills: ["fin-*", "ledger"]
    ops: [create, version, delete, delete]
  - subjects: [ci-bot]
    skills: ["team-?", "secret"]
    ops: [version]
  - skills: ["team-shared"]
    ops: [create]
`

func TestMayWrite(t *testing.T) {
	p := mustParse(t, writePolicy)
	w := []string{WriteScope}
	fin := &Principal{Subject: "bob", Groups: []string{"finance"}, Scopes: w}
	admin := &Principal{Subject: "ann", Groups: []string{"finance-admins", "finance"}, Scopes: []string{"openid", WriteScope, "skills:admin"}}
	bot := &Principal{Subject: "ci-bot", Scopes: []string{"skills:read", WriteScope}}
	tests := []struct {
		name  string
		p     *Policy
		pr    *Principal
		op    WriteOp
		skill string
		want  string // "allow: reason" or "deny: reason"
	}{
		{"group creates in its glob", p, fin, WriteCreate, "fin-report", "allow: rule policy.yaml:10"},
		{"group versions in its glob", p, fin, WriteVersion, "fin-report", "allow: rule policy.yaml:10"},
		{"op not in the group's rule", p, fin, WriteDelete, "fin-report", "deny: no write rule grants it"},
		{"name outside the glob", p, fin, WriteCreate, "ledger", "deny: no write rule grants it"},
		{"no write scope", p, &Principal{Groups: []string{"finance"}, Scopes: []string{"skills:read"}}, WriteCreate, "fin-report", "deny: the token lacks the skills:write scope"},
		{"no scopes at all (static token)", p, &Principal{Subject: "ci-finance", Groups: []string{"finance"}}, WriteCreate, "fin-report", "deny: the token lacks the skills:write scope"},
		{"anonymous", p, &Principal{}, WriteCreate, "team-shared", "deny: the token lacks the skills:write scope"},
		{"nil principal writes nothing", p, nil, WriteCreate, "team-shared", "deny: no authenticated caller"},
		{"group and scope both needed", p, &Principal{Groups: []string{"finance-admins"}, Scopes: w}, WriteDelete, "fin-x", "deny: no write rule grants it"},
		{"admin deletes", p, admin, WriteDelete, "ledger", "allow: rule policy.yaml:13"},
		{"first allowing rule is named", p, admin, WriteCreate, "fin-x", "allow: rule policy.yaml:10"},
		{"subject versions", p, bot, WriteVersion, "team-a", "allow: rule policy.yaml:17"},
		{"subject may not create", p, bot, WriteCreate, "team-a", "deny: no write rule grants it"},
		{"? is one character", p, bot, WriteVersion, "team-ab", "deny: no write rule grants it"},
		{"hidden from reads is refused alike", p, bot, WriteVersion, "secret", "deny: no write rule grants it"},
		{"readable through the group's read rule", p, fin, WriteCreate, "fin-x", "allow: rule policy.yaml:10"},
		{"no selector: any caller with the scope", p, &Principal{Subject: "zed", Scopes: w}, WriteCreate, "team-shared", "allow: rule policy.yaml:20"},
		{"no selector, another op", p, &Principal{Subject: "zed", Scopes: w}, WriteDelete, "team-shared", "deny: no write rule grants it"},
		{"zero op", p, admin, 0, "ledger", "deny: unknown write operation"},
		{"op out of range", p, admin, WriteDelete + 1, "ledger", "deny: unknown write operation"},
		{"empty name", p, admin, WriteCreate, "", "deny: no skill name"},
		{"default allow grants no writes", mustParse(t, "default: allow\nrules: [{sources: [\"*\"], skills: [\"*\"]}]\n"), admin, WriteCreate, "x", "deny: the policy has no write rules"},
		{"nil policy grants no writes", nil, admin, WriteCreate, "x", "deny: no access policy (writes need write rules)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, why := tt.p.MayWrite(tt.pr, tt.op, "registry", tt.skill)
			got := "deny: " + why
			if ok {
				got = "allow: " + why
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("MayWrite (-want +got):\n%s", diff)
			}
		})
	}
	// A write needs the skill readable in the source asked about: fin-x
	// is readable in registry by finance (line 4), not in public.
	if ok, why := p.MayWrite(fin, WriteCreate, "public", "fin-x"); ok || why != "no write rule grants it" {
		t.Errorf("write to a skill hidden in that source: %v, %q", ok, why)
	}
	if !p.AllowsWrites() || mustParse(t, teamPolicy).AllowsWrites() || (*Policy)(nil).AllowsWrites() {
		t.Error("AllowsWrites")
	}
}

func TestWriteOpString(t *testing.T) {
	got := []string{WriteCreate.String(), WriteVersion.String(), WriteDelete.String(), WriteOp(0).String(), WriteOp(9).String()}
	want := []string{"create", "version", "delete", "WriteOp(0)", "WriteOp(9)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

// TestMayWriteManyRules: past the stack buffer of rule hits, the last of
// many write rules still decides.
func TestMayWriteManyRules(t *testing.T) {
	var b strings.Builder
	b.WriteString("default: deny\nrules: [{sources: [\"*\"], skills: [\"*\"]}]\nwrites:\n")
	for i := range 300 {
		fmt.Fprintf(&b, "- {groups: [g%d], skills: [s%d], ops: [delete]}\n", i, i)
	}
	p := mustParse(t, b.String())
	pr := &Principal{Groups: []string{"g299"}, Scopes: []string{WriteScope}}
	got := []bool{}
	for _, s := range []string{"s299", "s298", "s0"} {
		ok, _ := p.MayWrite(pr, WriteDelete, "registry", s)
		got = append(got, ok)
	}
	if diff := cmp.Diff([]bool{true, false, false}, got); diff != "" {
		t.Error(diff)
	}
	if _, why := p.MayWrite(pr, WriteDelete, "registry", "s299"); why != "rule policy.yaml:303" {
		t.Errorf("reason %q", why)
	}
}
