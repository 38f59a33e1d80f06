package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/skillsapi"
	"github.com/skillstore/skillstore/store"
)

// Review records decision d by by on a version of skill id, as one log
// entry. The checks are skillsapi.Reviewer's; a decision that would not
// count on this replica (under Options.Reviewers, no reviewer signature
// verifying for by, and no trusted signer of its own) is refused too,
// an approval with 403, so a reviewer is told at once.
func (r *Registry) Review(ctx context.Context, by, id string, d skillsapi.Decision, visible func(string) bool) (skillsapi.Version, error) {
	now := r.opts.Now().UTC()
	at := d.Time.UTC().Truncate(time.Second)
	e, err := r.commit(ctx, func(st *state) (*entry, error) {
		sk, v, err := r.decided(id, d.Version, visible)
		if err != nil {
			return nil, err
		}
		g := r.gate()
		if !g.needs(sk.Name) {
			return nil, skillsapi.Errorf(http.StatusBadRequest, "skill %q needs no review: no review rule covers it, so its versions are served as they are stored", sk.Name)
		}
		if by == "" {
			return nil, skillsapi.Errorf(http.StatusForbidden, "a decision needs a reviewer: this server takes no anonymous reviews")
		}
		if by == v.By {
			return nil, skillsapi.Errorf(http.StatusForbidden, "%s uploaded version %q: a version is reviewed by someone other than its uploader", store.Echo(by), v.ID)
		}
		if why := otherFiles(v, d.Files); why != "" {
			return nil, skillsapi.Errorf(http.StatusConflict, "the files reviewed are not version %s's: %s; review the version's files as its content lists them", v.ID, why)
		}
		if d.Time.IsZero() || now.Sub(at) > skillsapi.MaxDecisionAge || at.Sub(now) > skillsapi.MaxDecisionAge {
			return nil, skillsapi.Errorf(http.StatusBadRequest, "the decision's time %s is more than %s from the registry's clock (%s): a decision is made, and signed, for the moment it is sent; decide again",
				at.Format(time.RFC3339), skillsapi.MaxDecisionAge, now.Truncate(time.Second).Format(time.RFC3339))
		}
		switch cur := g.status(sk, v); {
		case d.Approve && cur == skillsapi.StatusApproved:
			return nil, skillsapi.Errorf(http.StatusConflict, "version %s is approved already", v.ID)
		case !d.Approve && cur == skillsapi.StatusRejected:
			return nil, skillsapi.Errorf(http.StatusConflict, "version %s is rejected already", v.ID)
		}
		if prev := sk.Reviews[v.ID]; prev != nil && !at.After(prev.ReviewerTime) {
			return nil, skillsapi.Errorf(http.StatusConflict, "version %s has a decision made at %s, no earlier than this one (%s): a decision replayed is refused; decide again",
				v.ID, prev.ReviewerTime.Format(time.RFC3339), at.Format(time.RFC3339))
		}
		if err := r.checkSignature(sk, v, by, d, at); err != nil {
			return nil, err
		}
		return &entry{Op: opReview, Time: now, By: by, Skill: sk.ID, VersionID: v.ID, Approve: d.Approve,
			Reason: d.Reason, Digest: v.Digest, ReviewerTime: at, ReviewerSig: d.Signature}, nil
	})
	if err != nil {
		return skillsapi.Version{}, err
	}
	return r.Version(ctx, e.Skill, e.VersionID, visible) // as the state is now
}

// decided returns the version of skill id a decision or promote names:
// by its ID, never "latest" (r.mu held).
func (r *Registry) decided(id, ver string, visible func(string) bool) (*skill, *version, error) {
	if ver == "latest" {
		return nil, nil, skillsapi.Errorf(http.StatusBadRequest, "name the version by its id, not \"latest\": a decision is on one version")
	}
	return r.version(id, ver, visible)
}

// Files is the digest set of version ver of skill id, from its record.
func (r *Registry) Files(ctx context.Context, id, ver string, visible func(string) bool) (map[string]string, error) {
	var out map[string]string
	err := r.read(ctx, func() error {
		_, v, err := r.version(id, ver, visible)
		if err != nil {
			return err
		}
		out = make(map[string]string, len(v.Files))
		for _, f := range v.Files {
			out[f.Path] = f.SHA256
		}
		return nil
	})
	return out, err
}

// otherFiles says how files (path → hex SHA-256) differ from v's, or "".
func otherFiles(v *version, files map[string]string) string {
	var diffs []string
	have := make(map[string]bool, len(v.Files))
	for _, f := range v.Files {
		have[f.Path] = true
		switch sum, ok := files[f.Path]; {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s is not in the files reviewed", f.Path))
		case sum != f.SHA256:
			diffs = append(diffs, fmt.Sprintf("%s has SHA-256 %s, not %s", f.Path, f.SHA256, store.Echo(sum)))
		}
	}
	var extra []string
	for p := range files {
		if !have[p] {
			extra = append(extra, p)
		}
	}
	slices.Sort(extra)
	for _, p := range extra {
		diffs = append(diffs, fmt.Sprintf("%s is not in the version", store.Echo(p)))
	}
	if len(diffs) > 5 {
		diffs = append(diffs[:5], fmt.Sprintf("and %d more", len(diffs)-5))
	}
	return strings.Join(diffs, "; ")
}

// checkSignature checks a decision's reviewer signature: one given must
// verify over skillsapi.Statement, by a key Options.Reviewers lists for
// by (or, without the list, by the key it carries). An approval must
// count on this replica: signed by the reviewer under Options.Reviewers,
// or by this replica's Signer under Trust.
func (r *Registry) checkSignature(sk *skill, v *version, by string, d skillsapi.Decision, at time.Time) error {
	var list *sshsig.AllowedSigners
	if r.opts.Reviewers != nil {
		list = r.opts.Reviewers()
	}
	if d.Signature != "" {
		msg := skillsapi.Statement(d.Approve, sk.Name, v.ID, v.Digest, by, at)
		var err error
		if list != nil {
			var s sshsig.Signer
			if s, err = list.Verify(msg, []byte(d.Signature), skillsapi.ReviewNamespace, at); err == nil && !slices.Contains(strings.Split(s.Principal, ","), by) {
				err = fmt.Errorf("the key is listed for %s, not for %s", store.Echo(s.Principal), store.Echo(by))
			}
		} else if r.opts.Reviewers != nil {
			err = errors.New("the registry's list of reviewer keys is not available")
		} else {
			var sig *sshsig.Signature
			if sig, err = sshsig.Parse([]byte(d.Signature)); err == nil {
				err = sig.Verify(msg, skillsapi.ReviewNamespace)
			}
		}
		if err != nil {
			return skillsapi.Errorf(http.StatusForbidden, "the decision's signature does not verify for %s: %s (sign skillsapi.Statement of this decision in namespace %s, with your own key, listed for you in the reviewer signers)",
				store.Echo(by), store.Echo(err.Error()), skillsapi.ReviewNamespace)
		}
	}
	o := r.opts
	switch {
	case !d.Approve, o.Trust == nil && o.Reviewers == nil:
		return nil
	case o.Reviewers != nil && d.Signature != "", o.Trust != nil && o.Signer != nil:
		return nil // signed by the reviewer, verified above; or by this replica
	case o.Reviewers != nil:
		return skillsapi.Errorf(http.StatusForbidden, "this registry counts only approvals signed with a reviewer's key: sign the decision (skillstore review --sign KEY)")
	}
	return skillsapi.Errorf(http.StatusForbidden, "this replica signs no log entries, so under its trusted signers its approvals would not count: approve on a replica that signs (serve --sign KEY)")
}

// Pending lists up to limit versions waiting for review (status
// pending on this replica), oldest first, after the version ID after.
// It reads every version of every skill the caller may see: 0.15 s a
// page at 100,000 skills all pending (BenchmarkPending).
func (r *Registry) Pending(ctx context.Context, after string, limit int, visible func(string) bool) ([]skillsapi.Version, bool, error) {
	visible = seen(visible)
	r.mu.RLock()
	defer r.mu.RUnlock()
	g := r.gate()
	type found struct {
		sk *skill
		v  *version
	}
	var all []found
	for _, id := range r.st.ids {
		sk := r.st.skills[id]
		if !g.needs(sk.Name) || !visible(sk.Name) {
			continue
		}
		for _, v := range sk.Versions {
			if v.ID > after && g.status(sk, v) == skillsapi.StatusPending {
				all = append(all, found{sk, v})
			}
		}
	}
	slices.SortFunc(all, func(a, b found) int { return strings.Compare(a.v.ID, b.v.ID) })
	more := len(all) > limit
	all = all[:min(len(all), limit)]
	page := make([]skillsapi.Version, len(all))
	for i, f := range all {
		page[i] = r.wireVersion(f.sk, f.v)
	}
	return page, more, nil
}

// errUnchanged is a promote's answer to a channel already at the version.
var errUnchanged = errors.New("the channel points at that version already")

// Promote points channel at version ver of skill id, as one log entry
// (a rollback is a promote to an earlier version). Refused: a channel
// name that is not one (400); a version unknown, deleted, pending,
// rejected or, under Trust, unsigned (409). A channel at ver already is
// answered as it is, with no entry written.
func (r *Registry) Promote(ctx context.Context, by, id, channel, ver string, visible func(string) bool) (skillsapi.Channel, error) {
	if err := validChannel(channel); err != nil {
		return skillsapi.Channel{}, skillsapi.Errorf(http.StatusBadRequest, "%s", err.Error())
	}
	if ver == "latest" {
		return skillsapi.Channel{}, skillsapi.Errorf(http.StatusBadRequest, "name the version to promote by its id, not \"latest\": a channel points at one version")
	}
	_, err := r.commit(ctx, func(st *state) (*entry, error) {
		sk, err := r.lookup(id, visible)
		if err != nil {
			return nil, err
		}
		_, v := sk.find(ver)
		if v == nil {
			return nil, skillsapi.Errorf(http.StatusConflict, "skill %q has no version %q (unknown or deleted): promote a version it has", id, store.Echo(ver))
		}
		g := r.gate()
		if !g.servable(sk, v) {
			return nil, skillsapi.Errorf(http.StatusConflict, "version %s of skill %q is %s: only a version agents may get is promoted", v.ID, sk.Name, g.why(sk, v.ID))
		}
		if c := sk.Channels[channel]; c != nil && c.Version == v.ID {
			return nil, errUnchanged
		}
		return &entry{Op: opPromote, Time: r.opts.Now().UTC(), By: by, Skill: sk.ID, Channel: channel, VersionID: v.ID}, nil
	})
	if err != nil && !errors.Is(err, errUnchanged) {
		return skillsapi.Channel{}, err
	}
	var out skillsapi.Channel
	err = r.read(ctx, func() error {
		sk, err := r.lookup(id, visible)
		if err != nil {
			return err
		}
		c := sk.Channels[channel]
		if c == nil {
			return noSkill(id) // deleted meanwhile
		}
		out = wireChannel(sk, channel, c)
		return nil
	})
	return out, err
}

// Channels lists skill id's channels, by name.
func (r *Registry) Channels(ctx context.Context, id string, visible func(string) bool) (out []skillsapi.Channel, err error) {
	err = r.read(ctx, func() error {
		sk, err := r.lookup(id, visible)
		if err != nil {
			return err
		}
		out = make([]skillsapi.Channel, 0, len(sk.Channels))
		for name, c := range sk.Channels {
			out = append(out, wireChannel(sk, name, c))
		}
		slices.SortFunc(out, func(a, b skillsapi.Channel) int { return strings.Compare(a.Name, b.Name) })
		return nil
	})
	return out, err
}

func wireChannel(sk *skill, name string, c *channel) skillsapi.Channel {
	out := skillsapi.Channel{Name: name, SkillID: sk.ID, Version: c.Version, By: c.By, Time: c.Time}
	for _, m := range c.History {
		out.History = append(out.History, skillsapi.ChannelMove{Version: m.Version, By: m.By, Time: m.Time})
	}
	return out
}
