package skillsapi

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/skillstore/skillstore/skilldiff"
)

// The review states of a version (Version.Status). A skill whose name
// no "needs review" rule matches has versions of status StatusPublished:
// served as soon as they are stored.
const (
	StatusPublished = "published"
	StatusPending   = "pending"  // needs review; listed to writers and reviewers, never served
	StatusApproved  = "approved" // a reviewer approved this digest set
	StatusRejected  = "rejected" // a reviewer rejected it; never served
)

// The operations CanWrite and AuditEvent name for reviews and channels,
// beside OpCreate, OpVersion and OpDelete.
const (
	OpApprove = "approve"
	OpReject  = "reject"
	OpPromote = "promote" // a channel set to a version (rollback included)
)

// Review is a reviewer's decision on one version, as the log records it.
type Review struct {
	Approve bool
	By      string    // the reviewer's subject; never the version's uploader
	Time    time.Time // when the registry recorded it
	Reason  string
	// Digest is the version digest the decision is bound to (the
	// FilesDigest of the digest set reviewed): a version with one byte
	// changed has another digest and needs its own review.
	Digest string
	// Signer is who signed the decision: the registry's key (Signature
	// "") or the reviewer's own key, by fingerprint and principal, when a
	// replica's trust list verified it; "" when none did.
	Signer string
}

// Decision is a reviewer's request to approve or reject a version.
type Decision struct {
	Version string // the version's ID
	Approve bool
	Reason  string // required for a rejection; at most 1000 bytes
	// Files is the digest set reviewed: every file's path and SHA-256
	// (hex), as the SEP-2640 manifest and a version's content list them.
	// It must equal the version's exactly, or the decision is refused:
	// an approval names bytes, not an ID.
	Files map[string]string
	// Time is when the reviewer made the decision (the time in the
	// signed statement); the registry refuses one more than
	// MaxDecisionAge old or in the future.
	Time time.Time
	// Signature, if set, is the reviewer's armored SSHSIG of
	// Statement(...) in namespace ReviewNamespace. A replica with an
	// allowed-signers file for reviewers counts the decision only when it
	// verifies for the reviewer's subject.
	Signature string
}

// ReviewNamespace is the SSHSIG namespace reviewers sign decisions in.
const ReviewNamespace = "skillstore-review"

// MaxDecisionAge bounds how old a decision's Time may be when it is
// recorded: an old signed decision replayed later is refused.
const MaxDecisionAge = 15 * time.Minute

// Statement is the exact text a reviewer signs: it names the decision,
// the skill, the version, its digest, the reviewer and the time, so a
// signature is good for one decision on one digest set only.
func Statement(approve bool, skill, version, digest, reviewer string, t time.Time) []byte {
	d := "reject"
	if approve {
		d = "approve"
	}
	return fmt.Appendf(nil, "skillstore-review v1\ndecision %s\nskill %s\nversion %s\ndigest %s\nreviewer %s\ntime %s\n",
		d, oneLine(skill), oneLine(version), oneLine(digest), oneLine(reviewer), t.UTC().Format(time.RFC3339))
}

func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }

// Channel is a named pointer to one version of a skill ("stable",
// "canary", any name). A replica serving a channel serves that version;
// a skill with no pointer in the channel serves its default (the latest
// approved, or published, version).
type Channel struct {
	Name    string    `json:"name"`
	SkillID string    `json:"skill_id"`
	Version string    `json:"version_id"`
	By      string    `json:"by,omitempty"`
	Time    time.Time `json:"time"`
	// History is the channel's earlier versions, newest first (a
	// rollback picks one).
	History []ChannelMove `json:"history,omitempty"`
}

// ChannelMove is one earlier position of a channel.
type ChannelMove struct {
	Version string    `json:"version_id"`
	By      string    `json:"by,omitempty"`
	Time    time.Time `json:"time"`
}

// Reviewer is a Registry that gates versions on review and keeps
// channels (backends/registry's). The handler serves its routes only
// when the Registry given to NewHandler implements it. Errors are as
// Registry's: *Error for what the caller is told.
type Reviewer interface {
	Registry
	// Review records a decision by by on a version of skill id. Refused:
	// a version unknown or hidden (404), a decision on a skill no review
	// rule covers (400), files not the version's digest set (409), by the
	// version's uploader (403), a version already decided the same way
	// (409), a Time out of MaxDecisionAge (400), a Signature that does
	// not verify for by (403).
	Review(ctx context.Context, by, id string, d Decision, visible func(name string) bool) (Version, error)
	// Pending lists up to limit versions waiting for review, oldest
	// first, after the version ID after.
	Pending(ctx context.Context, after string, limit int, visible func(name string) bool) (page []Version, more bool, err error)
	// Promote points channel at version of skill id (a rollback is a
	// promote to an earlier version). Refused: a version unknown, deleted,
	// pending or rejected (409).
	Promote(ctx context.Context, by, id, channel, version string, visible func(name string) bool) (Channel, error)
	// Channels lists skill id's channels, by name.
	Channels(ctx context.Context, id string, visible func(name string) bool) ([]Channel, error)
	// Files is the digest set of a version of skill id (its ID, or
	// "latest"): every file's path and SHA-256 (hex), from the registry's
	// records, as a Decision names them.
	Files(ctx context.Context, id, version string, visible func(name string) bool) (map[string]string, error)
	// Diff compares two versions of skill id (IDs, or "latest").
	Diff(ctx context.Context, id, from, to string, visible func(name string) bool) (*skilldiff.Diff, error)
}
