package registry

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/skillsapi"
	"github.com/skillstore/skillstore/store"
)

// counts are the requests a registry made to its store.
type counts struct{ list, get atomic.Uint64 }

// viewCache holds the served view of each channel ("" the default).
type viewCache struct {
	mu    sync.Mutex
	views map[string]*channelView
}

// get returns channel's entry, made on first use.
func (c *viewCache) get(channel string) *channelView {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.views == nil {
		c.views = map[string]*channelView{}
	}
	v := c.views[channel]
	if v == nil {
		v = &channelView{}
		c.views[channel] = v
	}
	return v
}

// problems returns the problems of every channel's last view.
func (c *viewCache) problems(into map[uint64]string) {
	c.mu.Lock()
	views := slices.Collect(maps.Values(c.views))
	c.mu.Unlock()
	for _, v := range views {
		v.mu.Lock()
		maps.Copy(into, v.problems)
		v.mu.Unlock()
	}
}

// channelView is one channel's served view, and the log position and
// reviewer list it was made with.
type channelView struct {
	mu        sync.Mutex
	seq       uint64
	reviewers *sshsig.AllowedSigners
	made      bool
	remade    int // views made at this position (another reviewer list)
	v         *published
	err       error
	// problems are the skills left out of v or served their default,
	// by the entry of the version left out or of the channel's pointer,
	// and why.
	problems map[uint64]string
}

// published is the registry as a snapshot: each skill's served version
// as one manifest in memory.
type published struct {
	*snapshot.View
	versions map[string]*store.SkillVersion // by skill name
}

// Published is the snapshot's listing, each skill with its version.
func (p *published) Published() []store.PublishedSkill {
	out := p.View.Published()
	for i := range out {
		out[i].Version = p.versions[out[i].Dir]
	}
	return out
}

// WithContext keeps the versions on a view bound to ctx.
func (p *published) WithContext(ctx context.Context) fs.FS {
	return &published{View: p.View.WithContext(ctx).(*snapshot.View), versions: p.versions}
}

// Source returns the registry as a store source: the served version of
// each skill (ChannelSource's default), named as the skill, as a
// snapshot the store pins per catalog (store.SnapshotFS). A Refresh
// reads the log entries written since the last one (one request when
// there are none) and the next snapshot is made when asked for, about a
// tenth of a second at 100,000 skills. The source does not close the
// registry.
func (r *Registry) Source(label string) store.Source { return r.ChannelSource(label, "") }

// ChannelSource returns the registry as a store source serving channel:
// of each skill, the version the channel points at while it may be
// served, else the default (Options.Pins, else the latest version that
// may be served). Channel "" is the default for every skill (Source).
// Sources of one registry share its log: refreshes that overlap read it
// once, and only the default source counts requests (RequestCounter),
// so a store that sums its sources counts each request once.
func (r *Registry) ChannelSource(label, channel string) store.Source {
	return store.Source{Label: label, Location: r.opts.Location, Kind: "registry", FS: &sourceFS{r, channel}}
}

type sourceFS struct {
	r       *Registry
	channel string
}

var (
	_ store.SnapshotFS     = (*sourceFS)(nil)
	_ store.Refresher      = (*sourceFS)(nil)
	_ store.RequestCounter = (*sourceFS)(nil)
)

func (s *sourceFS) Refresh(ctx context.Context) error { return s.r.Refresh(ctx) }

func (s *sourceFS) RequestCounts() (list, get uint64) {
	if s.channel != "" {
		return 0, 0
	}
	return s.r.counts.list.Load(), s.r.counts.get.Load()
}

func (s *sourceFS) Snapshot(ctx context.Context) (fs.FS, error) {
	v, err := s.r.published(s.channel)
	if err != nil {
		return nil, err
	}
	return v, nil
}

func (s *sourceFS) Open(name string) (fs.File, error) {
	v, err := s.r.published(s.channel)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return v.Open(name)
}

func (s *sourceFS) Stat(name string) (fs.FileInfo, error) {
	v, err := s.r.published(s.channel)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return v.Stat(name)
}

func (s *sourceFS) ReadDir(name string) ([]fs.DirEntry, error) {
	v, err := s.r.published(s.channel)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	return v.ReadDir(name)
}

// refreshFlight is the refresh under way, which a refresh asked for
// meanwhile waits for instead of reading the log again: the sources of
// one registry (one per channel) are refreshed at once by a store.
type refreshFlight struct {
	mu  sync.Mutex
	cur *flight
}

type flight struct {
	done chan struct{}
	err  error
}

// published returns the snapshot of channel as the state is, made once
// per log position and reviewer list.
func (r *Registry) published(channel string) (*published, error) {
	c := r.views.get(channel)
	c.mu.Lock()
	defer c.mu.Unlock()
	g := r.gate()
	seq := r.seq()
	if c.made && c.seq == seq && c.reviewers == g.reviewers {
		return c.v, c.err
	}
	if c.made && c.seq == seq {
		c.remade++
	} else {
		c.remade = 0
	}
	r.mu.RLock()
	id := fmt.Sprintf("log-%d", r.st.Seq)
	if c.remade > 0 {
		id += fmt.Sprintf(".%d", c.remade)
	}
	if channel != "" {
		id += "@" + channel
	}
	m := &snapshot.Manifest{ID: id, Skills: make([]snapshot.Skill, 0, len(r.st.ids))}
	versions := make(map[string]*store.SkillVersion, len(r.st.ids))
	seqs := make([]uint64, 0, len(r.st.ids)) // the entry of each skill's version
	problems := map[uint64]string{}
	for _, id := range r.st.ids {
		sk := r.st.skills[id]
		v, byChannel := r.served(sk, channel, g, problems)
		if v == nil {
			continue
		}
		m.Skills = append(m.Skills, snapshot.Skill{Dir: sk.Name, DocPath: v.DocPath, Frontmatter: v.Frontmatter, Headings: v.Headings, Files: v.Files, Findings: v.Findings})
		sv := &store.SkillVersion{ID: v.ID, Digest: v.Digest, CreatedBy: v.By, Created: v.Created, Signer: v.Signer}
		if byChannel {
			sv.Channel = channel
		}
		if g.needs(sk.Name) {
			rv := sk.Reviews[v.ID]
			signer, _ := g.counts(sk, v, rv)
			sv.Review = &store.VersionReview{By: rv.By, Time: rv.Time, Signer: signer}
		}
		versions[sk.Name] = sv
		seqs = append(seqs, v.Seq)
	}
	seq = r.st.Seq
	r.mu.RUnlock()
	view, err := snapshot.NewView(m, objects{r})
	if err != nil {
		// A version edited by hand (a path out of its folder, a repeated
		// path, a bad digest) fails the whole manifest: leave out the
		// skills that fail, report them, serve the rest.
		maps.Copy(problems, r.dropBad(m, seqs))
		view, err = snapshot.NewView(m, objects{r})
	}
	if err != nil {
		err = fmt.Errorf("the registry %s: %w", r.opts.Location, err)
	}
	c.seq, c.reviewers, c.made, c.err, c.v, c.problems = seq, g.reviewers, true, err, nil, problems
	if err == nil {
		c.v = &published{View: view, versions: versions}
	}
	return c.v, c.err
}

// dropBad removes from m the skills that fail snapshot.Skill.Check or
// repeat a folder (seqs[i] is the entry of m.Skills[i]'s version), logs
// each and returns them by entry.
func (r *Registry) dropBad(m *snapshot.Manifest, seqs []uint64) map[uint64]string {
	bad := map[uint64]string{}
	seen := make(map[string]bool, len(m.Skills))
	kept := m.Skills[:0]
	for i, sk := range m.Skills {
		err := sk.Check()
		if err == nil && seen[sk.Dir] {
			err = errors.New("a second skill of one name")
		}
		if err != nil {
			why := fmt.Sprintf("skill %q not served: %v", sk.Dir, err)
			bad[seqs[i]] = why
			r.opts.Logger.Warn("registry skill not served", "registry", r.opts.Location, "entry", seqs[i], "reason", why)
			continue
		}
		seen[sk.Dir] = true
		kept = append(kept, sk)
	}
	m.Skills = kept
	return bad
}

// gate is what decides, on this replica, whether a version may be
// served: the review rule and the reviewer list, taken once per view.
type gate struct {
	r         *Registry
	reviewers *sshsig.AllowedSigners
}

func (r *Registry) gate() gate {
	g := gate{r: r}
	if r.opts.Reviewers != nil {
		g.reviewers = r.opts.Reviewers()
	}
	return g
}

// needs reports whether skill name needs review.
func (g gate) needs(name string) bool {
	return g.r.opts.NeedsReview != nil && g.r.opts.NeedsReview(name)
}

// counts reports whether review rv of version v counts on this replica
// and the key that makes it count: under Reviewers, the reviewer's
// signature verifying for rv.By; under Trust, the entry's; with
// neither, every review counts (zero signer).
func (g gate) counts(sk *skill, v *version, rv *review) (store.Signer, bool) {
	o := g.r.opts
	if rv == nil {
		return store.Signer{}, false
	}
	if o.Reviewers != nil {
		if s, ok := rv.reviewer(sk.Name, v.ID, g.reviewers); ok {
			return s, true
		}
	}
	if o.Trust != nil && rv.signed {
		return rv.signer, true
	}
	return store.Signer{}, o.Trust == nil && o.Reviewers == nil
}

// reviewer checks rv's reviewer signature against list, once per list.
func (rv *review) reviewer(skillName, versionID string, list *sshsig.AllowedSigners) (store.Signer, bool) {
	if rv.sig == "" || list == nil {
		return store.Signer{}, false
	}
	if c := rv.checked.Load(); c != nil && c.list == list {
		return c.signer, c.ok
	}
	c := &reviewerCheck{list: list}
	msg := skillsapi.Statement(rv.Approve, skillName, versionID, rv.Digest, rv.By, rv.ReviewerTime)
	if s, err := list.Verify(msg, []byte(rv.sig), skillsapi.ReviewNamespace, rv.ReviewerTime); err == nil && slices.Contains(strings.Split(s.Principal, ","), rv.By) {
		c.ok, c.signer = true, store.Signer{Fingerprint: s.Fingerprint, Principal: rv.By}
	}
	rv.checked.Store(c)
	return c.signer, c.ok
}

// status is v's review state on this replica: "" when nothing needs
// review, published when sk does not, else approved (an approval that
// counts, of the version's digest, its files intact), rejected, or
// pending.
func (g gate) status(sk *skill, v *version) string {
	if g.r.opts.NeedsReview == nil {
		return ""
	}
	if !g.needs(sk.Name) {
		return skillsapi.StatusPublished
	}
	rv := sk.Reviews[v.ID]
	switch {
	case rv == nil:
		return skillsapi.StatusPending
	case !rv.Approve:
		return skillsapi.StatusRejected
	}
	if _, ok := g.counts(sk, v, rv); ok && rv.Digest == v.Digest && v.intact {
		return skillsapi.StatusApproved
	}
	return skillsapi.StatusPending
}

// servable reports whether agents may get v: under Trust, its entry
// signed by a trusted key; when sk needs review, approved.
func (g gate) servable(sk *skill, v *version) bool {
	if g.r.opts.Trust != nil && !v.signed {
		return false
	}
	return !g.needs(sk.Name) || g.status(sk, v) == skillsapi.StatusApproved
}

// served is the version of sk agents get on channel, and whether the
// channel's pointer chose it: the version the channel points at while it
// may be served and, under Trust, the promote is signed by a trusted key
// (else the default, and a problem noted by the pointer's entry); the
// default is the one Options.Pins names if it may be served, else the
// latest that may be. nil for none.
func (r *Registry) served(sk *skill, channel string, g gate, problems map[uint64]string) (*version, bool) {
	if c := sk.Channels[channel]; channel != "" && c != nil {
		_, v := sk.find(c.Version)
		switch {
		case r.opts.Trust != nil && !c.signed:
			problems[c.Seq] = fmt.Sprintf("channel %q of skill %q: its promote is not signed by a trusted key: serving the default", channel, sk.Name)
		case v != nil && g.servable(sk, v):
			return v, true
		default:
			problems[c.Seq] = fmt.Sprintf("channel %q of skill %q points at version %s, which may not be served (%s): serving the default", channel, sk.Name, c.Version, g.why(sk, c.Version))
		}
	}
	if r.opts.Pins != nil {
		if id, ok := r.opts.Pins(sk.Name); ok {
			if _, v := sk.find(id); v != nil && g.servable(sk, v) {
				return v, false
			}
		}
	}
	for i := len(sk.Versions) - 1; i >= 0; i-- {
		if v := sk.Versions[i]; g.servable(sk, v) {
			return v, false
		}
	}
	return nil, false
}

// why says why version id of sk may not be served.
func (g gate) why(sk *skill, id string) string {
	_, v := sk.find(id)
	switch {
	case v == nil:
		return "deleted"
	case g.r.opts.Trust != nil && !v.signed:
		return "not signed by a trusted key"
	}
	return g.status(sk, v)
}

// objects reads blobs for the view, counting the requests.
type objects struct{ r *Registry }

func (o objects) ReadObject(ctx context.Context, key string, max int64) ([]byte, error) {
	o.r.counts.get.Add(1)
	return o.r.b.ReadObject(ctx, key, max)
}

func (o objects) ObjectTag(context.Context, string) (string, error) {
	return "", errors.ErrUnsupported
}
