package sshsig_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/sshsig"
)

// FuzzParse: no input panics or is accepted without a key.
func FuzzParse(f *testing.F) {
	f.Add([]byte("-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAQ==\n-----END SSH SIGNATURE-----\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := sshsig.Parse(b)
		if err == nil && s.PublicKey == nil {
			t.Fatal("parsed a signature without a key")
		}
	})
}

// FuzzAllowedSigners: no file panics; an accepted one lists a key for
// each line that is not blank nor a comment.
func FuzzAllowedSigners(f *testing.F) {
	f.Add([]byte("alice namespaces=\"git\" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q\n"))
	f.Add([]byte("# nobody\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := sshsig.ParseAllowedSigners(b)
		if err != nil {
			return
		}
		lines := 0
		for _, l := range bytes.Split(b, []byte("\n")) {
			if l = bytes.TrimLeft(l, " \t\r"); len(l) > 0 && l[0] != '#' {
				lines++
			}
		}
		if a.Len() != lines {
			t.Fatalf("%d keys from %d lines", a.Len(), lines)
		}
		a.Verify([]byte("m"), b, "x", time.Now())
	})
}
