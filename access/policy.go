package access

import (
	"encoding/hex"
	"maps"
	"path"
	"strconv"
	"sync"
	"sync/atomic"
)

// Policy says which sources and skills each principal may see. It is
// compiled from a YAML file (Parse, Load) and is immutable and safe for
// concurrent use; a Reloader swaps whole policies.
//
// The file:
//
//	default: deny            # required: allow or deny, what a caller no rule matches sees
//	rules:                   # required, at least one
//	  - groups: [finance]    # caller selectors, each optional: groups, subjects, scopes
//	    scopes: [skills.read]
//	    sources: [finance]   # required: source labels, "*" for all
//	    skills: ["*"]        # required: skill names
//	  - sources: [public]    # no caller selector: every caller
//	    skills: ["*"]
//	writes:                  # optional: who may write to the registry
//	  - groups: [platform]   # caller selectors, as in rules
//	    skills: ["team-*"]   # required: skill-name globs
//	    ops: [create, version, delete]  # required: some of the three
//	reviews:                 # optional: who may approve or reject versions
//	  - groups: [security]   # caller selectors, as in rules
//	    skills: ["*"]        # required: skill-name globs
//	review:                  # optional
//	  required: ["team-*"]   # the skills whose versions need an approval
//	channels:                # optional: the channel each caller gets
//	  - groups: [canary]     # caller selectors, as in rules; first match wins
//	    channel: canary      # required: lowercase letters, digits, hyphens
//	  - channel: stable      # no selector: every other caller
//	stdio:                   # optional: the principal stdio serves
//	  subject: alice
//	  groups: [finance]
//
// A rule matches a principal when, for every selector kind the rule has,
// the principal has at least one of the listed values: groups: [a, b]
// matches a member of a or b; groups: [a] with scopes: [s] matches only a
// member of a granted s (any within a kind, all across kinds). Write two
// rules for "a member of a, or anyone granted s". A rule with no selector
// matches every principal. Selector values are compared literally; "*" is
// refused there.
//
// A principal sees the union of what its matching rules grant: a rule
// grants the skills whose source label matches one of its sources and
// whose name matches one of its skills. Both are path.Match globs,
// checked at load, except that "*" alone matches everything (even a name
// holding '/'). A principal no rule matches sees everything under
// default: allow and nothing under default: deny; one that some rule
// matches sees exactly what those rules grant, whatever the default.
//
// Write rules ("writes:") say who may create skills, add versions and
// delete, in the registry: see MayWrite. Without them nobody may write,
// whatever the default; the default governs reads only. A write rule
// matches principals as a read rule does (no selector: every caller
// whose token grants WriteScope) and names skills, not sources: it applies to the
// registry's skills. Its ops are required, as its skills are, so that no
// rule allows deletion by omission.
//
// Review rules ("reviews:") say who may approve or reject versions of
// which skills: see MayReview. "review: required:" names the skills whose
// versions need an approval before agents get them: see NeedsReview.
//
// Channel rules ("channels:") give each caller a channel: the first rule
// matching it names it (Channel); a caller no rule matches gets the
// default, "" (each skill's latest servable version). A server serves
// channel C of source X as a source labelled "X@C" (ChannelLabel), ordered
// before X; a caller sees it only when its channel is C (see Filter), so
// a canary caller is served X@C's copies and the others X's.
//
// A nil principal means the transport authenticated nobody (stdio, or
// HTTP without auth configured): it sees everything, whatever the policy,
// except the sources of channels other than its own (the channel of the
// first channel rule without selectors, if any). Callers that serve stdio under a policy pass Stdio() instead, which is
// nil (everything) unless the file names a stdio principal. A server must
// therefore never pass nil for an HTTP caller it failed to authenticate.
//
// Refused at load, each with its line: unknown or repeated keys (with a
// suggestion for near misses), wrong types, empty lists, a rule without
// sources or skills, a write rule without skills or ops, an unknown op,
// a review rule without skills, a review without required, a channel
// rule without a channel or with a bad channel name (CheckChannel), bad
// globs, globs over MaxGlob bytes, a "/" in a skill glob, "*" in a
// selector, anchors and aliases, more than one YAML document, files over
// MaxPolicySize and more than MaxRules rules or write rules.
type Policy struct {
	file  string
	allow bool
	rules []rule
	stdio *Principal

	writes      []writeRule
	reviewRules []reviewRule
	required    []string // review: required: globs
	channels    []channelRule

	// Indexes from a selector value to the rules (and write, review and
	// channel rules) naming it.
	sel, writeSel, reviewSel, channelSel selIndex
	reviewRequired                       nameSet // required, compiled

	deflt *view // what a principal no rule matches sees

	mu    sync.Mutex                       // serializes writers of views
	views atomic.Pointer[map[string]*view] // by matched-rule bitset; copy on write
}

// maxViews bounds the views a Policy caches (one per distinct set of
// matching rules, not per principal); past it, views are built per call.
const maxViews = 1024

// Selector kinds, as bits of rule.need.
const (
	kindGroups = 1 << iota
	kindSubjects
	kindScopes
)

type rule struct {
	selectors
	sources, skills     []string
	need                uint8   // selector kinds the rule has
	sourceSet, skillSet nameSet // compiled sources and skills
}

// selectors are what a rule (read or write) says of its callers, and
// the line it starts on.
type selectors struct {
	line                     int
	groups, subjects, scopes []string
}

// selIndex maps selector values to the rules naming them, by kind.
type selIndex struct {
	byGroup, bySubject, byScope map[string][]int32
}

// add indexes rule i's selectors and returns the kinds it has (its need).
func (x *selIndex) add(i int, groups, subjects, scopes []string) uint8 {
	var need uint8
	index := func(m *map[string][]int32, vals []string, kind uint8) {
		if len(vals) > 0 {
			need |= kind
		}
		if *m == nil {
			*m = map[string][]int32{}
		}
		for _, v := range dedupe(vals) {
			(*m)[v] = append((*m)[v], int32(i))
		}
	}
	index(&x.byGroup, groups, kindGroups)
	index(&x.bySubject, subjects, kindSubjects)
	index(&x.byScope, scopes, kindScopes)
	return need
}

// mark sets in hit[i] the selector kinds of rule i that pr matches; a
// rule matches pr when hit[i] holds all of its need. hit has one entry
// per indexed rule.
func (x *selIndex) mark(pr *Principal, hit []uint8) {
	mark := func(idx []int32, kind uint8) {
		for _, i := range idx {
			hit[i] |= kind
		}
	}
	for _, g := range pr.Groups {
		mark(x.byGroup[g], kindGroups)
	}
	for _, s := range pr.Scopes {
		mark(x.byScope[s], kindScopes)
	}
	if pr.Subject != "" {
		mark(x.bySubject[pr.Subject], kindSubjects)
	}
}

// compile builds the indexes and compiled sets of a parsed policy.
func (p *Policy) compile() {
	for i := range p.rules {
		r := &p.rules[i]
		r.need = p.sel.add(i, r.groups, r.subjects, r.scopes)
		for _, s := range r.sources {
			r.sourceSet.add(s)
		}
		for _, s := range r.skills {
			r.skillSet.add(s)
		}
	}
	for i := range p.writes {
		w := &p.writes[i]
		w.need = p.writeSel.add(i, w.groups, w.subjects, w.scopes)
		for _, s := range w.skills {
			w.skillSet.add(s)
		}
	}
	for i := range p.reviewRules {
		r := &p.reviewRules[i]
		r.need = p.reviewSel.add(i, r.groups, r.subjects, r.scopes)
		for _, s := range r.skills {
			r.skillSet.add(s)
		}
	}
	for _, s := range p.required {
		p.reviewRequired.add(s)
	}
	for i := range p.channels {
		r := &p.channels[i]
		r.need = p.channelSel.add(i, r.groups, r.subjects, r.scopes)
	}
	if p.allow {
		p.deflt = &view{all: true, key: "all", why: "default: allow"}
	} else {
		p.deflt = &view{none: true, key: "none", why: "default: deny"}
	}
	p.views.Store(&map[string]*view{})
}

// Stdio returns the principal the file names for stdio serving, or nil
// when it names none (stdio then sees everything). The result is a copy.
func (p *Policy) Stdio() *Principal {
	if p == nil || p.stdio == nil {
		return nil
	}
	c := *p.stdio
	c.Groups = append([]string(nil), c.Groups...)
	c.Scopes = append([]string(nil), c.Scopes...)
	return &c
}

// Allows reports whether principal pr may see the skill named skill of
// the source labelled source. It is For(pr).Allows(source, skill); to
// filter many skills, call For once.
func (p *Policy) Allows(pr *Principal, source, skill string) bool {
	return p.For(pr).Allows(source, skill)
}

// unrestricted is the view of a nil principal, or of any principal under
// a nil Policy.
var unrestricted = &view{all: true, key: "all", why: "unrestricted caller"}

// For returns principal pr's view of the catalog. Its cost is one map
// lookup per group, scope and subject of pr, one pass over the rules
// (len/8 bytes of work), and a lookup of the cached view; no sorting, and
// no allocation once the view is cached. A nil Policy or a nil principal
// gets the unrestricted view.
func (p *Policy) For(pr *Principal) Filter {
	if p == nil {
		return Filter{v: unrestricted}
	}
	chans := len(p.channels) > 0
	var ch string
	if chans {
		ch = p.Channel(pr)
	}
	if pr == nil {
		return Filter{unrestricted, ch, chans}
	}
	n := len(p.rules)
	var hitBuf [256]uint8
	var bitBuf [32]byte
	var hit []uint8
	var bits []byte
	if n <= len(hitBuf) {
		hit, bits = hitBuf[:n], bitBuf[:(n+7)/8]
	} else {
		hit, bits = make([]uint8, n), make([]byte, (n+7)/8)
	}
	p.sel.mark(pr, hit)
	matched := false
	for i := range p.rules {
		if need := p.rules[i].need; hit[i]&need == need {
			bits[i/8] |= 1 << (i % 8)
			matched = true
		}
	}
	if !matched {
		return Filter{p.deflt, ch, chans}
	}
	if v, ok := (*p.views.Load())[string(bits)]; ok {
		return Filter{v, ch, chans}
	}
	return Filter{p.addView(bits), ch, chans}
}

// addView builds the view of the rules in bits and caches it, unless the
// cache is full.
func (p *Policy) addView(bits []byte) *view {
	v := p.buildView(bits)
	p.mu.Lock()
	defer p.mu.Unlock()
	return putShared(&p.views, v.key, v, maxViews)
}

// putShared adds key→v to the copy-on-write map m points at (nil: an
// empty map) and publishes the copy, unless key is already there (its
// value is returned instead of v) or the map holds limit entries (v is
// returned, not kept). Writers hold a mutex; readers load m without one.
func putShared[V any](m *atomic.Pointer[map[string]V], key string, v V, limit int) V {
	var old map[string]V
	if cur := m.Load(); cur != nil {
		old = *cur
	}
	if cached, ok := old[key]; ok {
		return cached
	}
	if len(old) >= limit {
		return v
	}
	next := make(map[string]V, len(old)+1)
	maps.Copy(next, old)
	next[key] = v
	m.Store(&next)
	return v
}

// buildView merges the grants of the rules in bits.
func (p *Policy) buildView(bits []byte) *view {
	v := &view{key: string(bits), file: p.file, pol: p}
	lit := map[string]*nameSet{}
	for i := range p.rules {
		if bits[i/8]&(1<<(i%8)) == 0 {
			continue
		}
		r := &p.rules[i]
		v.rules = append(v.rules, r)
		for _, src := range r.sources {
			switch {
			case src == "*":
				v.any.addSet(&r.skillSet)
			case !hasMeta(src):
				if lit[src] == nil {
					lit[src] = &nameSet{}
				}
				lit[src].addSet(&r.skillSet)
			default:
				v.globs = append(v.globs, sourceGrant{src, &r.skillSet})
			}
		}
	}
	if v.any.all {
		v.all = true
		return v
	}
	// Each literal source's set also holds what "*" and matching source
	// globs grant, so Allows does one lookup for it.
	for src, set := range lit {
		set.addSet(&v.any)
		for _, g := range v.globs {
			if ok, _ := path.Match(g.pattern, src); ok {
				set.addSet(g.skills)
			}
		}
	}
	v.bySource = lit
	v.none = v.any.empty() && len(lit) == 0 && len(v.globs) == 0
	return v
}

// Filter is one principal's view of the catalog, from Policy.For. It is a
// small value, safe for concurrent use, and stays valid (answering as the
// policy it came from) after a reload. The zero Filter sees nothing.
//
// Under a policy with "channels:" rules, a source labelled "X@C"
// (ChannelLabel: the source serving channel C of source X) is included
// only for a caller whose channel (Policy.Channel) is C, and then as the
// rules say of source X: rules name base labels, and a caller sees X's
// channel source when it may see X. Every other label is matched as it
// is. Under a policy without channel rules, labels are matched as they
// are, "@" or not.
type Filter struct {
	v        *view
	channel  string // the caller's channel (Policy.Channel)
	channels bool   // the policy has channel rules: channel labels are the caller's only
}

// base returns the label of source that the rules match (its base label
// for a channel source) and whether the caller may see the source at all
// (a channel source is the callers of its channel's only).
func (f Filter) base(source string) (string, bool) {
	if !f.channels {
		return source, true
	}
	b, ch, ok := SplitChannel(source)
	if !ok {
		return source, true
	}
	return b, ch == f.channel
}

// Channel returns the caller's channel (Policy.Channel): "" for the
// default, and always "" under a policy without channel rules.
func (f Filter) Channel() string { return f.channel }

// view is a compiled grant: everything, nothing, or skill-name sets for
// every source ("*"), per literal source label, and per source glob.
type view struct {
	all, none bool
	any       nameSet
	bySource  map[string]*nameSet
	globs     []sourceGrant
	key       string  // the matched-rule bitset, or "all" / "none"
	why       string  // the reason for every decision of an all/none view
	file      string  // the policy's file name, for reasons
	rules     []*rule // the matched rules, for reasons
	pol       *Policy // the policy of a view of rules, for ID

	memoMu sync.Mutex
	memo   atomic.Pointer[map[string]*nameSet] // source → merged set, when globs exist
}

type sourceGrant struct {
	pattern string
	skills  *nameSet
}

// maxMemo bounds the source labels a view remembers its merged set for.
const maxMemo = 256

// Allows reports whether the view includes the skill named skill of the
// source labelled source (as the store shows it). It does not allocate:
// a literal label costs one map lookup plus the skill-name match, and the
// unrestricted view one branch.
func (f Filter) Allows(source, skill string) bool {
	v := f.v
	if v == nil || v.none {
		return false
	}
	source, ok := f.base(source)
	if !ok {
		return false
	}
	if v.all {
		return true
	}
	return v.set(source).match(skill)
}

// Source returns the view of the skills of the source labelled source:
// to filter many skills of one source, it costs one lookup for them all
// instead of one each.
func (f Filter) Source(source string) SourceFilter {
	v := f.v
	source, ok := f.base(source)
	switch {
	case v == nil || v.none || !ok:
		return SourceFilter{}
	case v.all:
		return SourceFilter{&allNames}
	}
	return SourceFilter{v.set(source)}
}

// SourceFilter is a Filter's view of one source, from Filter.Source. The
// zero SourceFilter sees nothing.
type SourceFilter struct{ s *nameSet }

// allNames is the set of every name.
var allNames = nameSet{all: true}

// Allows reports whether the view includes the skill named skill.
func (f SourceFilter) Allows(skill string) bool { return f.s.match(skill) }

// All reports whether the view includes every skill of the source.
func (f SourceFilter) All() bool { return f.s != nil && f.s.all }

// AllowsSource reports whether the view may include some skill of the
// source labelled source: false means every skill of it is hidden.
func (f Filter) AllowsSource(source string) bool {
	v := f.v
	if v == nil || v.none {
		return false
	}
	source, ok := f.base(source)
	return ok && (v.all || !v.set(source).empty())
}

// All reports whether the view includes every skill, so a caller can skip
// filtering. Under a policy with channel rules no view does: the other
// channels' sources are hidden from every caller.
func (f Filter) All() bool { return f.v != nil && f.v.all && !f.channels }

// None reports whether the view includes no skill.
func (f Filter) None() bool { return f.v == nil || f.v.none }

// Key identifies the view within its Policy: two Filters of one Policy
// with equal keys see the same skills (the converse need not hold), so a
// caller may cache filtered answers per (policy, key). Keys of different
// policies are unrelated. The key is opaque and at most MaxRules/8 bytes
// and a channel's name long; it names the caller's channel under a
// policy with channel rules.
func (f Filter) Key() string {
	var k string
	switch {
	case f.v == nil:
		k = "none"
	case len(f.v.key) > 0 && f.v.rules != nil:
		k = "r" + hex.EncodeToString([]byte(f.v.key))
	default:
		k = f.v.key
	}
	if f.channels {
		k += ChannelSep + f.channel
	}
	return k
}

// ID identifies a Filter's view for caches keyed by caller, across
// policies: two Filters with equal IDs see the same skills (the converse
// need not hold), whichever policies they came from. Unlike Key it needs
// no policy beside it, so a cache may hold views of a policy and of its
// reload side by side. An ID is comparable and does not allocate; a kept
// ID keeps its policy in memory.
func (f Filter) ID() ID {
	if f.v == nil {
		return ID{key: "none"}
	}
	return ID{f.v.pol, f.v.key, f.channel, f.channels}
}

// ID identifies a view: see Filter.ID. It names the caller's channel.
type ID struct {
	pol      *Policy // nil for the views that see everything or nothing
	key      string
	channel  string
	channels bool
}

// Reason says why Allows answers as it does, for audit logs: "rule
// policy.yaml:12" (the first rule granting it), "no rule grants it",
// "default: allow", "default: deny" or "unrestricted caller". The wording
// is for people and may change.
func (f Filter) Reason(source, skill string) string {
	v := f.v
	if v == nil {
		return "no access"
	}
	source, ok := f.base(source)
	if !ok {
		return "a source of another channel"
	}
	if v.rules == nil {
		return v.why
	}
	for _, r := range v.rules {
		if r.sourceSet.match(source) && r.skillSet.match(skill) {
			return "rule " + v.file + ":" + strconv.Itoa(r.line)
		}
	}
	return "no rule grants it"
}

// set returns the skill-name set granted in source.
func (v *view) set(source string) *nameSet {
	if s, ok := v.bySource[source]; ok {
		return s
	}
	if len(v.globs) == 0 {
		return &v.any
	}
	if m := v.memo.Load(); m != nil {
		if s, ok := (*m)[source]; ok {
			return s
		}
	}
	s := &nameSet{}
	s.addSet(&v.any)
	for _, g := range v.globs {
		if ok, _ := path.Match(g.pattern, source); ok {
			s.addSet(g.skills)
		}
	}
	v.memoMu.Lock()
	defer v.memoMu.Unlock()
	return putShared(&v.memo, source, s, maxMemo)
}

// ViewKey is ID, for store.Filter: the store remembers a view's listing
// and search subset by it.
func (f Filter) ViewKey() any { return f.ID() }
