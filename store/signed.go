package store

import "io/fs"

// SignedFS is implemented by snapshots whose content was verified against
// a signature before they were served (a signed published snapshot, a
// signed git commit or tag): Signer names the key that signed it. Each
// skill found in such a snapshot carries the signer in its Provenance.
//
// Signer must answer from what the snapshot already holds, without I/O:
// the store asks once per catalog build for every skill, never per
// request. It reports false for a snapshot that was not verified; a
// snapshot that failed verification must not be served at all.
type SignedFS interface {
	fs.FS
	Signer() (Signer, bool)
}

// Signer is the key that signed a snapshot, as a verifier found it.
type Signer struct {
	// Fingerprint is the key's fingerprint as `ssh-keygen -l` prints it
	// ("SHA256:" and the unpadded base64 of the key's SHA-256), or an
	// OpenPGP key's fingerprint in hex.
	Fingerprint string `json:"fingerprint"`
	// Principal is who the allowed-signers list names for the key (an
	// e-mail address, or an OpenPGP key's user ID).
	Principal string `json:"principal"`
	// Kind names the signature's format: "ssh" or "openpgp".
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
