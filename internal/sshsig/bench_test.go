package sshsig_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/skillstore/skillstore/internal/sshsig"
)

// BenchmarkVerifyManifest checks the signature of a 64 MiB message (the
// size of a 100,000-skill manifest): signed over SHA-512 as ssh-keygen
// does, the verifier hashes the whole message again; signed over SHA-256
// (what publish does), it reuses the digest it already has.
func BenchmarkVerifyManifest(b *testing.B) {
	msg := make([]byte, 64<<20)
	for i := range msg {
		msg[i] = byte(i)
	}
	sum := sha256.Sum256(msg)
	_, priv, _ := ed25519.GenerateKey(nil)
	signer, _ := ssh.NewSignerFromKey(priv)
	trust, err := sshsig.ParseAllowedSigners(append([]byte("p "), ssh.MarshalAuthorizedKey(signer.PublicKey())...))
	if err != nil {
		b.Fatal(err)
	}
	sig512, _ := sshsig.Sign(signer, msg, "skillstore-snapshot")
	sig256, _ := sshsig.SignSHA256(signer, sum, "skillstore-snapshot")
	for _, tc := range []struct {
		name string
		sig  []byte
	}{{"sha512", sig512}, {"sha256-digest-known", sig256}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			for range b.N {
				if _, err := trust.VerifySHA256(msg, sum, tc.sig, "skillstore-snapshot", time.Now()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
