package snapshot

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/store"
)

// verify checks the signature of v's manifest against the signer policy,
// and records the signer in v. It reads one object (SignatureKey): a
// signature over SHA-256 (what publish makes) is checked against the
// digest v kept of the manifest's bytes. A signature over SHA-512
// (ssh-keygen's) needs the bytes themselves: v keeps them (format 2),
// else the manifest is read again. A refusal is a *store.VerifyError; a
// failure to read (other than the signature's absence) is returned as it
// is, so a store outage is not reported as a forgery.
func (f *FS) verify(ctx context.Context, v *View) error {
	id, mb, sigKey := v.ID(), v.raw, signatureKey(v.key)
	trust := f.opts.Trust()
	if trust == nil || trust.Len() == 0 {
		return &store.VerifyError{Reason: "unknown-signer", Err: fmt.Errorf("snapshot %s: no signer is trusted (the trusted-signers list is empty)", id)}
	}
	sig, err := f.objs.ReadObject(ctx, sigKey, sshsig.MaxSignatureBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &store.VerifyError{Reason: "unsigned", Err: fmt.Errorf("snapshot %s is not signed (no %s); publish it with --sign KEY", id, sigKey)}
	case errors.Is(err, ErrTooLarge):
		return &store.VerifyError{Reason: "malformed", Err: fmt.Errorf("the signature of snapshot %s is over %d bytes", id, sshsig.MaxSignatureBytes)}
	case err != nil:
		return fmt.Errorf("reading the signature of snapshot %s: %w", id, err)
	}
	if mb == nil {
		if parsed, perr := sshsig.Parse(sig); perr == nil && parsed.HashAlgorithm != "sha256" {
			if mb, err = f.objs.ReadObject(ctx, v.key, maxManifestBytes); err != nil {
				return fmt.Errorf("reading snapshot %s again for its signature: %w", id, err)
			}
			if sha256.Sum256(mb) != v.digest {
				return fmt.Errorf("%w: snapshot %s changed after it was read", ErrBroken, id)
			}
		}
	}
	signer, err := trust.VerifySHA256(mb, v.digest, sig, SignatureNamespace, time.Now())
	if err != nil {
		return &store.VerifyError{Reason: verifyReason(err), Err: fmt.Errorf("snapshot %s: %w", id, err)}
	}
	v.signer = store.Signer{Kind: "ssh", Fingerprint: signer.Fingerprint, Principal: signer.Principal}
	v.signed, v.trust = true, trust
	return nil
}

// verifyReason is the store.VerifyError reason of an sshsig error.
func verifyReason(err error) string {
	switch {
	case errors.Is(err, sshsig.ErrUnknownSigner):
		return "unknown-signer"
	case errors.Is(err, sshsig.ErrBadSignature):
		return "bad-signature"
	}
	return "malformed" // another format, namespace or key type
}
