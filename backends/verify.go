package backends

import (
	"context"
	"fmt"

	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/store"
)

// Verifiable is implemented by source filesystems that can check what they
// serve against a signer policy: published snapshots (signed manifests)
// and git sources (signed commits and tags).
type Verifiable interface {
	// RequireSigners makes the filesystem serve only content signed by a
	// key trust returns (called at each check, so a reloaded list takes
	// effect), re-checking what it serves now: content that does not
	// verify stops being served at once. It fails only when the policy
	// cannot be applied at all.
	RequireSigners(ctx context.Context, trust func() *sshsig.AllowedSigners) error
}

// RequireSigners applies a signer policy to src, refusing a source whose
// kind cannot be verified (a plain folder, an archive, built-in skills,
// a .well-known origin): under a policy nothing unverified is served, so
// such a source is an error to report at start, not one to serve.
func RequireSigners(ctx context.Context, src store.Source, trust func() *sshsig.AllowedSigners) error {
	v, ok := src.FS.(Verifiable)
	if !ok {
		return fmt.Errorf("source %s (%s) cannot be verified: trusted signers apply to published snapshots (skillstore publish --sign) and git sources; serve this one without --trusted-signers, or publish it", src.Location, kindName(src.Kind))
	}
	return v.RequireSigners(ctx, trust)
}

func kindName(kind string) string {
	if kind == "" {
		return "unknown kind"
	}
	return kind
}
