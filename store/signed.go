package store

import (
	"errors"
	"io/fs"
)

// Signer is the key a source's content was verified against: the signer of
// a published snapshot's manifest, or of a git commit or tag.
type Signer struct {
	// Kind is the signature format: "ssh" (SSHSIG) or "openpgp".
	Kind string `json:"kind"`
	// Fingerprint identifies the key: "SHA256:…" as `ssh-keygen -l`
	// prints it, or an OpenPGP key's hex fingerprint.
	Fingerprint string `json:"fingerprint"`
	// Principal is who the trust list says holds the key: an
	// allowed-signers line's principals, or an OpenPGP identity.
	Principal string `json:"principal"`
}

// SignedFS is implemented by snapshots whose content was verified against
// a signer policy: Signer returns the key that signed the version served,
// and false when no policy applies (the content was not verified).
type SignedFS interface {
	fs.FS
	Signer() (Signer, bool)
}

// ErrUnverified is wrapped by the errors of sources that refuse a new
// version because their signer policy does not trust it (VerifyError).
var ErrUnverified = errors.New("the newest content failed signature verification")

// VerifyError is the error of a source whose newest version was refused
// by its signer policy; the source keeps serving the last version that
// verified, or nothing when none did. Its text names no host path.
type VerifyError struct {
	// Reason is one stable word, for metrics: "unsigned", "unknown-signer",
	// "bad-signature", "malformed", "replayed".
	Reason string
	// Err says what was refused and why.
	Err error
}

func (e *VerifyError) Error() string { return e.Err.Error() }

// Unwrap returns ErrUnverified and the cause.
func (e *VerifyError) Unwrap() []error { return []error{ErrUnverified, e.Err} }
