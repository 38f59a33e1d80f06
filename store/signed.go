package store

import (
	"errors"
	"io/fs"
)

// SignedFS is implemented by snapshots whose content was verified against
// a signature before they were served (a signed published snapshot, a
// signed git commit or tag): Signer names the key that signed it. Each
// skill found in such a snapshot carries the signer in its Provenance.
//
// Signer must answer from what the snapshot already holds, without I/O:
// the store asks once per catalog build for every skill, never per
// request. It reports false for a snapshot that was not verified (no
// signer policy applies); a snapshot that failed verification is not
// served at all (VerifyError).
type SignedFS interface {
	fs.FS
	Signer() (Signer, bool)
}

// Signer is the key that signed a snapshot, as a verifier found it.
type Signer struct {
	// Fingerprint is the key's fingerprint as `ssh-keygen -l` prints it
	// ("SHA256:" and the unpadded base64 of the key's SHA-256), or an
	// OpenPGP key's fingerprint in upper-case hex.
	Fingerprint string `json:"fingerprint"`
	// Principal is who the trust list names for the key: an
	// allowed-signers line's principals, or an OpenPGP key's user ID.
	Principal string `json:"principal"`
	// Kind names the signature's format: "ssh" (SSHSIG) or "openpgp".
	Kind string `json:"kind"`
}

// SignerOf returns the signer of fsys when it is a SignedFS that reports
// a verified signature; else the zero Signer and false.
func SignerOf(fsys fs.FS) (Signer, bool) {
	if sf, ok := fsys.(SignedFS); ok {
		return sf.Signer()
	}
	return Signer{}, false
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
