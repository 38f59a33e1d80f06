package access

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRefusesReviewsAndChannels(t *testing.T) {
	const head = "default: deny\nrules: [{sources: [\"*\"], skills: [\"*\"]}]\n"
	tests := []struct {
		name, yaml string
		want       string // the whole error text
	}{
		{"channel in capitals", `channels:
  - groups: [beta]
    channel: Canary`, `policy.yaml:5: channel: "Canary": a channel name holds only lowercase letters, digits and hyphens`},
		{"channel with @", `channels: [{channel: "a@b"}]`, `policy.yaml:3: channel: "a@b": a channel name holds only lowercase letters, digits and hyphens`},
		{"channel with a space", `channels: [{channel: "can ary"}]`, `policy.yaml:3: channel: "can ary": a channel name holds only lowercase letters, digits and hyphens`},
		{"channel too long", `channels: [{channel: ` + strings.Repeat("c", 65) + `}]`, `policy.yaml:3: channel: "` + strings.Repeat("c", 65) + `": a channel name of more than 64 characters`},
		{"empty channel", `channels: [{channel: ""}]`, `policy.yaml:3: channel: "": empty channel name`},
		{"null channel", `channels: [{groups: [a], channel: }]`, `policy.yaml:3: channel: no value`},
		{"channel a list", `channels: [{channel: [a]}]`, `policy.yaml:3: channel: want a string, got a list`},
		{"channel rule without channel", `channels:
  - groups: [beta]`, `policy.yaml:4: channel rule has no "channel" (write channel: stable, say)`},
		{"channel rule key misspelt", `channels:
  - chanel: canary`, "policy.yaml:4: unknown key \"chanel\" (did you mean \"channel\"?)\npolicy.yaml:4: channel rule has no \"channel\" (write channel: stable, say)"},
		{"channel rule with skills", `channels:
  - channel: canary
    skills: ["*"]`, `policy.yaml:5: unknown key "skills" (known: groups, subjects, scopes, channel)`},
		{"empty channels", `channels: []`, `policy.yaml:3: channels: empty list (leave channels out: every caller gets the default)`},
		{"channels a mapping", `channels: {channel: x}`, `policy.yaml:3: channels: want a list of channel rules, got a mapping`},
		{"star selector", `channels: [{groups: ["*"], channel: x}]`, `policy.yaml:3: groups: "*" is not a wildcard here; leave groups out to match every caller`},
		{"review rule without skills", `reviews:
  - groups: [security]`, `policy.yaml:4: review rule has no "skills" (write skills: ["*"] for all)`},
		{"review rule key misspelt", `reviews:
  - group: [security]
    skills: ["*"]`, `policy.yaml:4: unknown key "group" (did you mean "groups"?)`},
		{"review rule with ops", `reviews:
  - skills: ["*"]
    ops: [create]`, `policy.yaml:5: unknown key "ops" (known: groups, subjects, scopes, skills)`},
		{"empty reviews", `reviews: []`, `policy.yaml:3: reviews: empty list (leave reviews out: nobody may review)`},
		{"review bad glob", `reviews: [{skills: ["[a-"]}]`, `policy.yaml:3: skills: bad glob "[a-": syntax error in pattern`},
		{"review a list", `review: ["*"]`, `policy.yaml:3: review: want a mapping with required, got a list`},
		{"review without required", `review: {}`, `policy.yaml:3: review has no "required" (write required: ["*"] for every skill)`},
		{"review key misspelt", `review: {requird: ["*"]}`, "policy.yaml:3: unknown key \"requird\" (did you mean \"required\"?)\npolicy.yaml:3: review has no \"required\" (write required: [\"*\"] for every skill)"},
		{"review required empty", `review: {required: []}`, `policy.yaml:3: required: empty list (leave review out: no skill needs review)`},
		{"review required slash", `review: {required: ["a/b"]}`, `policy.yaml:3: required: "a/b" contains "/"; skill names have none`},
		{"review required bad glob", `review: {required: ["x\\"]}`, `policy.yaml:3: required: bad glob "x\\": syntax error in pattern`},
		{"review key misspelt at the top", `reveiws: [{skills: ["*"]}]`, `policy.yaml:3: unknown key "reveiws" (did you mean "reviews"?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("policy.yaml", []byte(head+tt.yaml))
			if err == nil {
				t.Fatal("parsed")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// channelPolicy gives group beta the canary channel, alice the
// experimental one, and everyone else stable; finance sees its source.
const channelPolicy = `default: deny
rules:
  - groups: [finance]
    sources: [finance]
    skills: ["*"]
  - sources: [registry]
    skills: ["*"]
  - groups: [admins]
    sources: ["*"]
    skills: ["*"]
channels:
  - groups: [beta]
    channel: canary
  - subjects: [alice]
    channel: experimental
  - groups: [beta-too]
    channel: canary
  - channel: stable
`

func TestChannels(t *testing.T) {
	p := mustParse(t, channelPolicy)
	if diff := cmp.Diff([]string{"canary", "experimental", "stable"}, p.Channels()); diff != "" {
		t.Errorf("Channels (-want +got):\n%s", diff)
	}
	labels := []string{"registry", "registry@canary", "registry@stable", "registry@experimental", "finance", "finance@canary", "other", "other@canary", "a@B"}
	tests := []struct {
		name    string
		pr      *Principal
		channel string
		sees    []string // of labels, those whose skill "x" the caller sees
	}{
		{"stranger", &Principal{Subject: "zed"}, "stable", []string{"registry", "registry@stable"}},
		{"beta", &Principal{Groups: []string{"beta"}}, "canary", []string{"registry", "registry@canary"}},
		{"first match wins", &Principal{Subject: "alice", Groups: []string{"beta"}}, "canary", []string{"registry", "registry@canary"}},
		{"alice", &Principal{Subject: "alice"}, "experimental", []string{"registry", "registry@experimental"}},
		{"finance on canary", &Principal{Groups: []string{"finance", "beta-too"}}, "canary", []string{"registry", "registry@canary", "finance", "finance@canary"}},
		// An admin sees every source, but of the channel sources only its own.
		{"admin", &Principal{Groups: []string{"admins"}}, "stable", []string{"registry", "registry@stable", "finance", "other", "a@B"}},
		// A nil principal sees everything but the other channels.
		{"nil principal", nil, "stable", []string{"registry", "registry@stable", "finance", "other", "a@B"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Channel(tt.pr); got != tt.channel {
				t.Errorf("Channel = %q, want %q", got, tt.channel)
			}
			f := p.For(tt.pr)
			if f.Channel() != tt.channel {
				t.Errorf("Filter.Channel = %q", f.Channel())
			}
			var got, sources []string
			for _, l := range labels {
				if f.Allows(l, "x") {
					got = append(got, l)
				}
				if f.AllowsSource(l) {
					sources = append(sources, l)
				}
				if f.Source(l).Allows("x") != f.Allows(l, "x") {
					t.Errorf("Source(%q).Allows differs from Allows", l)
				}
			}
			if diff := cmp.Diff(tt.sees, got); diff != "" {
				t.Errorf("Allows (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.sees, sources); diff != "" {
				t.Errorf("AllowsSource (-want +got):\n%s", diff)
			}
			if f.All() {
				t.Error("All under a policy with channels")
			}
		})
	}
	// Two callers of one rule set differ by their channel only: their keys
	// and IDs differ, so the store remembers a view per channel.
	beta, other := p.For(&Principal{Groups: []string{"beta"}}), p.For(&Principal{Subject: "zed"})
	if beta.Key() == other.Key() || beta.ID() == other.ID() || beta.ViewKey() == other.ViewKey() {
		t.Errorf("keys %q and %q, IDs equal: %v", beta.Key(), other.Key(), beta.ID() == other.ID())
	}
	if again := p.For(&Principal{Groups: []string{"beta"}, Subject: "bob"}); again.ID() != beta.ID() {
		t.Error("one channel, one rule set, two IDs")
	}
	if got := beta.Reason("registry@stable", "x"); got != "a source of another channel" {
		t.Errorf("Reason = %q", got)
	}
	if got := beta.Reason("registry@canary", "x"); got != "rule policy.yaml:6" {
		t.Errorf("Reason = %q", got)
	}
}

// TestNoChannelRules: without channel rules, labels with "@" are labels
// like any, a caller's channel is "" and All views stay All.
func TestNoChannelRules(t *testing.T) {
	p := mustParse(t, "default: allow\nrules:\n  - {groups: [g], sources: [\"a@canary\"], skills: [\"*\"]}\n")
	if p.Channels() != nil || p.Channel(&Principal{Groups: []string{"g"}}) != "" || (*Policy)(nil).Channel(nil) != "" {
		t.Error("channels without channel rules")
	}
	g := p.For(&Principal{Groups: []string{"g"}})
	if !g.Allows("a@canary", "x") || g.Allows("a", "x") {
		t.Error("a literal label with @")
	}
	if f := p.For(&Principal{Subject: "s"}); !f.All() || !f.Allows("a@canary", "x") {
		t.Error("default allow")
	}
	if f := p.For(nil); !f.All() {
		t.Error("nil principal")
	}
	// Only selector-less rules match a nil principal; none: "".
	q := mustParse(t, "default: allow\nrules: [{sources: [\"*\"], skills: [\"*\"]}]\nchannels: [{groups: [g], channel: canary}]\n")
	if f := q.For(nil); f.All() || f.Channel() != "" || f.Allows("r@canary", "x") || !f.Allows("r", "x") {
		t.Error("nil principal under channels it has none of")
	}
}

func TestSplitChannel(t *testing.T) {
	tests := []struct {
		label, base, channel string
		ok                   bool
	}{
		{"registry@canary", "registry", "canary", true},
		{"a@b@stable-2", "a@b", "stable-2", true},
		{"registry", "registry", "", false},
		{"registry@", "registry@", "", false},
		{"registry@Canary", "registry@Canary", "", false},
		{"user@host.example", "user@host.example", "", false},
	}
	for _, tt := range tests {
		b, c, ok := SplitChannel(tt.label)
		if b != tt.base || c != tt.channel || ok != tt.ok {
			t.Errorf("SplitChannel(%q) = %q, %q, %v", tt.label, b, c, ok)
		}
		if ok && ChannelLabel(b, c) != tt.label {
			t.Errorf("ChannelLabel(%q, %q) = %q", b, c, ChannelLabel(b, c))
		}
	}
	for _, name := range []string{"a", "stable", "canary-2", strings.Repeat("x", 64), "0"} {
		if err := CheckChannel(name); err != nil {
			t.Errorf("CheckChannel(%q): %v", name, err)
		}
	}
}

const reviewPolicy = `default: deny
rules:
  - sources: ["*"]
    skills: ["*"]
reviews:
  - groups: [security]
    skills: ["*"]
  - subjects: [ann]
    scopes: [skills:admin]
    skills: ["fin-*"]
review:
  required: ["fin-*", "payments"]
`

func TestMayReview(t *testing.T) {
	p := mustParse(t, reviewPolicy)
	sec := &Principal{Subject: "sam", Groups: []string{"security"}, Scopes: []string{ReviewScope}}
	ann := &Principal{Subject: "ann", Scopes: []string{"skills:admin", WriteScope}}
	tests := []struct {
		name  string
		p     *Policy
		pr    *Principal
		skill string
		want  string // "allow: reason" or "deny: reason"
	}{
		{"group with the review scope", p, sec, "anything", "allow: rule policy.yaml:6"},
		{"the write scope does too", p, &Principal{Groups: []string{"security"}, Scopes: []string{WriteScope}}, "x", "allow: rule policy.yaml:6"},
		{"neither scope", p, &Principal{Groups: []string{"security"}, Scopes: []string{"skills:read"}}, "x", "deny: the token lacks the skills:review (or skills:write) scope"},
		{"no scopes at all", p, &Principal{Groups: []string{"security"}}, "x", "deny: the token lacks the skills:review (or skills:write) scope"},
		{"subject and scope", p, ann, "fin-report", "allow: rule policy.yaml:8"},
		{"outside the glob", p, ann, "ledger", "deny: no review rule grants it"},
		{"subject without the selector scope", p, &Principal{Subject: "ann", Scopes: []string{WriteScope}}, "fin-report", "deny: no review rule grants it"},
		{"no rule matches", p, &Principal{Subject: "bob", Scopes: []string{ReviewScope}}, "x", "deny: no review rule grants it"},
		{"nil principal", p, nil, "x", "deny: no authenticated caller"},
		{"empty name", p, sec, "", "deny: no skill name"},
		{"no review rules", mustParse(t, writePolicy), sec, "x", "deny: the policy has no review rules"},
		{"nil policy", nil, sec, "x", "deny: no access policy (reviews need review rules)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, why := tt.p.MayReview(tt.pr, tt.skill)
			got := "deny: " + why
			if ok {
				got = "allow: " + why
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("MayReview (-want +got):\n%s", diff)
			}
		})
	}
	if !p.AllowsReviews() || mustParse(t, writePolicy).AllowsReviews() || (*Policy)(nil).AllowsReviews() {
		t.Error("AllowsReviews")
	}
}

func TestNeedsReview(t *testing.T) {
	p := mustParse(t, reviewPolicy)
	for _, tt := range []struct {
		p    *Policy
		name string
		want bool
	}{
		{p, "fin-report", true},
		{p, "fin-", true},
		{p, "payments", true},
		{p, "payments-2", false},
		{p, "ledger", false},
		{p, "", false},
		{mustParse(t, writePolicy), "fin-report", false},
		{nil, "fin-report", false},
		{mustParse(t, "default: deny\nrules: [{sources: [\"*\"], skills: [\"*\"]}]\nreview: {required: [\"*\"]}\n"), "any", true},
	} {
		if got := tt.p.NeedsReview(tt.name); got != tt.want {
			t.Errorf("NeedsReview(%q) = %v", tt.name, got)
		}
	}
}

// TestReloadChannels: a reload carries channel, review and
// review-required rules; a bad channel name keeps the previous policy,
// and its error names the file and line.
func TestReloadChannels(t *testing.T) {
	file := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, file, channelPolicy)
	r, err := NewReloader(file, ReloadOptions{Interval: -1, noNotify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	beta := &Principal{Groups: []string{"beta"}}
	if got := r.Policy().Channel(beta); got != "canary" {
		t.Fatalf("Channel = %q", got)
	}
	writeFile(t, file, strings.Replace(channelPolicy, "channel: canary\n", "channel: Canary\n", 1))
	if err := r.Reload(); err == nil || err.Error() != `policy.yaml:13: channel: "Canary": a channel name holds only lowercase letters, digits and hyphens` {
		t.Errorf("bad channel: %v", err)
	}
	if got := r.Policy().Channel(beta); got != "canary" {
		t.Errorf("after a refused reload: Channel = %q", got)
	}
	writeFile(t, file, strings.Replace(channelPolicy, "channel: canary\n", "channel: beta\n", 1)+"reviews: [{groups: [security], skills: [\"*\"]}]\nreview: {required: [\"*\"]}\n")
	if err := r.Reload(); err != nil {
		t.Fatal(err)
	}
	f := r.For(beta)
	if got := r.Policy().Channel(beta); got != "beta" || !f.Allows("registry@beta", "x") || f.Allows("registry@canary", "x") {
		t.Errorf("after reload: Channel = %q", got)
	}
	if ok, _ := r.Policy().MayReview(&Principal{Groups: []string{"security"}, Scopes: []string{ReviewScope}}, "x"); !ok || !r.Policy().NeedsReview("x") {
		t.Error("reviews not reloaded")
	}
}
