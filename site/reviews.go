package site

import (
	"context"
	"errors"
	"net/http"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/skillsapi"
	"github.com/skillstore/skillstore/ui"
)

// canWrite is the Skills API's CanWrite under the policy in force: its
// write rules for a create, a version and a delete; its review rules
// (access.Policy.MayReview) for an approval, a rejection and a promote.
// The policy has no write op of its own for a promote: whoever may
// review a skill moves its channels.
func canWrite(srv *mcpserver.Server, label string) func(r *http.Request, op, name string) (bool, string) {
	return func(r *http.Request, op, name string) (bool, string) {
		p, _ := access.FromContext(r.Context())
		pol := srv.Policy()
		switch op {
		case skillsapi.OpApprove, skillsapi.OpReject, skillsapi.OpPromote:
			return pol.MayReview(p, name)
		}
		return pol.MayWrite(p, writeOps[op], label, name)
	}
}

// auditReason is the reason an audit line gives for a review, a
// rejection or a promote: the op (and channel) first, so that the line
// says which, then the refusal's reason.
func auditReason(e skillsapi.AuditEvent, reason string) string {
	switch e.Op {
	case skillsapi.OpApprove, skillsapi.OpReject, skillsapi.OpPromote, "review":
	default:
		return reason
	}
	what := e.Op
	if e.Channel != "" {
		what += " to channel " + e.Channel
	}
	if reason == "" {
		return what
	}
	return what + ": " + reason
}

// registryReviews are the versions waiting for review as the reviews
// page shows them (ui.ReviewSource): those of skills the caller sees
// under the registry's label and may review or write, each with its
// digest set (from the registry's records) and its diff from the version before.
type registryReviews struct {
	srv      *mcpserver.Server
	rev      skillsapi.Reviewer
	label    string
	canWrite func(r *http.Request, op, name string) (bool, string)
}

func (rr registryReviews) Pending(ctx context.Context, r *http.Request, limit int) ([]ui.PendingVersion, bool, error) {
	v := rr.srv.ViewOf(r)
	visible := func(name string) bool { return v.Allows(rr.label, name) }
	may := func(name string) bool {
		if !visible(name) {
			return false
		}
		for _, op := range []string{skillsapi.OpApprove, skillsapi.OpVersion} {
			if ok, _ := rr.canWrite(r, op, name); ok {
				return true
			}
		}
		return false
	}
	page, more, err := rr.rev.Pending(ctx, "", limit, may)
	if err != nil {
		return nil, false, err
	}
	out := make([]ui.PendingVersion, len(page))
	for i, ver := range page {
		pv := ui.PendingVersion{SkillID: ver.SkillID, Name: ver.Name, ID: ver.ID, Created: ver.CreatedAt, CreatedBy: ver.CreatedBy, Digest: ver.Digest}
		var err error
		if pv.Files, err = rr.rev.Files(ctx, ver.SkillID, ver.ID, may); err != nil {
			rr.srv.Logger().Warn("a pending version's files cannot be read", "skill", ver.Name, "version", ver.ID, "err", logtext.Of(err))
			pv.DiffErr = "its files cannot be read; see the server log"
			out[i] = pv
			continue
		}
		if pv.Diff, err = rr.rev.Diff(ctx, ver.SkillID, "", ver.ID, may); err != nil {
			var e *skillsapi.Error
			if errors.As(err, &e) && e.Status < 500 {
				pv.DiffErr = e.Message
			} else {
				rr.srv.Logger().Warn("a pending version's diff failed", "skill", ver.Name, "version", ver.ID, "err", logtext.Of(err))
				pv.DiffErr = "it failed; see the server log"
			}
		}
		out[i] = pv
	}
	return out, more, nil
}

// limited is a writer that fails past n bytes.
