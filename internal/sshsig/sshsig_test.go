package sshsig_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/internal/sshsig/sshsigtest"
)

var keyTypes = []struct {
	typ  string
	bits int
}{{"ed25519", 0}, {"ecdsa", 256}, {"ecdsa", 384}, {"ecdsa", 521}, {"rsa", 3072}}

// TestInterop signs with ssh-keygen and verifies here, and the reverse,
// for every supported key type.
func TestInterop(t *testing.T) {
	msg := []byte("{\"version\":1,\"id\":\"20261124T000000Z-abc\"}\n")
	for _, kt := range keyTypes {
		t.Run(kt.typ+strconv.Itoa(kt.bits), func(t *testing.T) {
			k := sshsigtest.NewKey(t, kt.typ, kt.bits)
			allowed, err := sshsig.ParseAllowedSigners([]byte("publisher@example.com " + k.Line + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			theirs := k.Sign(t, "skillstore-snapshot", msg)
			got, err := allowed.Verify(msg, theirs, "skillstore-snapshot", time.Now())
			if err != nil {
				t.Fatalf("verifying ssh-keygen's signature: %v", err)
			}
			want := sshsig.Signer{Principal: "publisher@example.com", Fingerprint: ssh.FingerprintSHA256(k.Pub), KeyType: k.Pub.Type()}
			if got != want {
				t.Errorf("signer = %+v, want %+v", got, want)
			}
			ours, err := sshsig.Sign(k.Signer, msg, "skillstore-snapshot")
			if err != nil {
				t.Fatal(err)
			}
			if err := k.Verify(t, "publisher@example.com", "skillstore-snapshot", msg, ours); err != nil {
				t.Fatalf("ssh-keygen refuses our signature: %v", err)
			}
			if err := k.Verify(t, "publisher@example.com", "file", msg, ours); err == nil {
				t.Error("ssh-keygen accepted our signature for another namespace")
			}
			if err := k.Verify(t, "publisher@example.com", "skillstore-snapshot", append(msg, ' '), ours); err == nil {
				t.Error("ssh-keygen accepted our signature for other bytes")
			}
			if _, err := allowed.Verify(msg, ours, "skillstore-snapshot", time.Now()); err != nil {
				t.Errorf("verifying our own signature: %v", err)
			}
			ours256, err := sshsig.SignSHA256(k.Signer, sha256.Sum256(msg), "skillstore-snapshot")
			if err != nil {
				t.Fatal(err)
			}
			if err := k.Verify(t, "publisher@example.com", "skillstore-snapshot", msg, ours256); err != nil {
				t.Fatalf("ssh-keygen refuses our SHA-256 signature: %v", err)
			}
			if _, err := allowed.VerifySHA256(msg, sha256.Sum256(msg), ours256, "skillstore-snapshot", time.Now()); err != nil {
				t.Errorf("verifying our SHA-256 signature with its digest: %v", err)
			}
			if _, err := allowed.VerifySHA256(msg, sha256.Sum256([]byte("other")), ours256, "skillstore-snapshot", time.Now()); !errors.Is(err, sshsig.ErrBadSignature) {
				t.Errorf("a SHA-256 signature checked against another digest: %v", err)
			}
			if _, err := allowed.VerifySHA256(msg, sha256.Sum256(msg), theirs, "skillstore-snapshot", time.Now()); err != nil {
				t.Errorf("ssh-keygen's SHA-512 signature through VerifySHA256: %v", err)
			}
		})
	}
}

// TestVerifyRefuses is one table of what a verifier must refuse, each
// with the error it wraps.
func TestVerifyRefuses(t *testing.T) {
	k := sshsigtest.NewKey(t, "ed25519", 0)
	other := sshsigtest.NewKey(t, "ed25519", 0)
	msg := []byte("manifest bytes")
	good := k.Sign(t, "skillstore-snapshot", msg)
	byOther := other.Sign(t, "skillstore-snapshot", msg)
	gitNS := k.Sign(t, "git", msg)
	tampered := bytes.Replace(good, []byte("\n"), []byte("\nAAAA"), 1)
	// A signature of other bytes, made by the trusted key, with the
	// message swapped: the forged case.
	forged := k.Sign(t, "skillstore-snapshot", []byte("other manifest"))
	allowed := "publisher@example.com " + k.Line + "\n"
	for _, tc := range []struct {
		name    string
		allowed string
		msg     []byte
		sig     []byte
		at      time.Time
		want    error
	}{
		{"tampered content", allowed, []byte("manifest bytez"), good, time.Now(), sshsig.ErrBadSignature},
		{"forged signature", allowed, msg, forged, time.Now(), sshsig.ErrBadSignature},
		{"unknown signer", allowed, msg, byOther, time.Now(), sshsig.ErrUnknownSigner},
		{"wrong namespace", allowed, msg, gitNS, time.Now(), sshsig.ErrNamespace},
		{"namespace not allowed for key", `publisher@example.com namespaces="git,file" ` + k.Line, msg, good, time.Now(), sshsig.ErrUnknownSigner},
		{"negated namespace", `publisher@example.com namespaces="*,!skillstore-*" ` + k.Line, msg, good, time.Now(), sshsig.ErrUnknownSigner},
		{"not yet valid", `publisher@example.com valid-after="20990101Z" ` + k.Line, msg, good, time.Now(), sshsig.ErrUnknownSigner},
		{"expired", `publisher@example.com valid-before="20200101Z" ` + k.Line, msg, good, time.Now(), sshsig.ErrUnknownSigner},
		{"empty signature", allowed, msg, nil, time.Now(), sshsig.ErrMalformed},
		{"armor damaged", allowed, msg, tampered, time.Now(), sshsig.ErrMalformed},
		{"PGP signature", allowed, msg, []byte("-----BEGIN PGP SIGNATURE-----\n\niQEz\n-----END PGP SIGNATURE-----\n"), time.Now(), sshsig.ErrMalformed},
		{"huge signature", allowed, msg, bytes.Repeat([]byte("A"), sshsig.MaxSignatureBytes+1), time.Now(), sshsig.ErrMalformed},
		{"truncated body", allowed, msg, []byte("-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n"), time.Now(), sshsig.ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := sshsig.ParseAllowedSigners([]byte(tc.allowed))
			if err != nil {
				t.Fatal(err)
			}
			_, err = a.Verify(tc.msg, tc.sig, "skillstore-snapshot", tc.at)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify = %v, want an error wrapping %v", err, tc.want)
			}
			if len(err.Error()) > 300 {
				t.Errorf("error is %d bytes long: %q", len(err.Error()), err)
			}
		})
	}
	t.Run("valid window", func(t *testing.T) {
		a, err := sshsig.ParseAllowedSigners([]byte(`p valid-after="20200101Z",valid-before="20990101Z",namespaces="skillstore-*" ` + k.Line))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Verify(msg, good, "skillstore-snapshot", time.Now()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestAllowedSignersLines: every line that cannot be used fails the file,
// naming its line.
func TestAllowedSignersLines(t *testing.T) {
	k := sshsigtest.NewKey(t, "ed25519", 0)
	weakRSA := sshsigtest.NewKey(t, "rsa", 1024)
	for _, tc := range []struct {
		name, file string
		line       int
		want       string
	}{
		{"no key", "# comment\n\nalice@example.com\n", 3, "no key"},
		{"garbage key", "alice ssh-ed25519 AAAA!!!\n", 1, "no readable public key"},
		{"weak rsa", "# x\nalice " + weakRSA.Line + "\n", 2, "1024-bit RSA key is weak"},
		{"dsa", "alice ssh-dss AAAAB3NzaC1kc3MAAACBAP1/U4EddRIpUt9KnC7s5Of2EbdSPO9EAMMeP4C2USZpRV1AIlH7WT2NWPq/xfW6MPbLm1Vs14E7gB00b/JmYLdrmVClpJ+f6AR7ECLCT7up1/63xhv4O1fnxqimFQ8E+4P208UewwI1VBNaFpEy9nXzrith1yrv8iIDGZ3RSAHHAAAAFQCXYFCPFSMLzLKSuYKi64QL8Fgc9QAAAIEA9+GghdabPd7LvKtcNrhXuXmUr7v6OuqC+VdMCz0HgmdRWVeOutRZT+ZxBxCBgLRJFnEj6EwoFhO3zwkyjMim4TwWeotUfI0o4KOuHiuzpnWRbqN/C/ohNWLx+2J6ASQ7zKTxvqhRkImog9/hWuWfBpKLZl6Ae1UlZAFMO/7PSSoAAACAFVb7YSUxcTZnbKSO2rNfLNGtpcqv8hsOtSAKmbm7sQ6yM4rTLVxS6n4mMOJ0TXPNXj8W4i0EkJHEJ3XyP0MkrOOLOTo5x5zoU0AjFDYGj5Og/LNTpqU0jGqgxRLb+hcIFkUAZQO5jXsNqS/5ePJa0pdlF0LpH5b9G9FIoG+vVtU=\n", 1, "ssh-dss (DSA) keys are weak"},
		{"cert authority", "*@example.com cert-authority " + k.Line + "\n", 1, "cert-authority lines are not supported"},
		{"unknown option", "alice colour=\"red\" " + k.Line + "\n", 1, "unknown option"},
		{"bad time", "alice valid-after=\"yesterday\" " + k.Line + "\n", 1, "bad time"},
		{"unclosed quote", "\"alice " + k.Line + "\n", 1, "not closed"},
		{"huge", strings.Repeat("#", sshsig.MaxAllowedSignersBytes+1), 0, "the limit is"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sshsig.ParseAllowedSigners([]byte(tc.file))
			if err == nil {
				t.Fatal("accepted")
			}
			var le *sshsig.LineError
			if tc.line > 0 && (!errors.As(err, &le) || le.Line != tc.line) {
				t.Errorf("error %q does not name line %d", err, tc.line)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
		})
	}
	t.Run("quoted principals and tabs", func(t *testing.T) {
		a, err := sshsig.ParseAllowedSigners([]byte("\"alice@example.com,bob@example.com\" " + k.Line + " comment\nteam\t" + k.Line + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		if a.Len() != 2 {
			t.Fatalf("Len = %d", a.Len())
		}
		msg := []byte("m")
		s, err := a.Verify(msg, k.Sign(t, "x", msg), "x", time.Now())
		if err != nil || s.Principal != "alice@example.com,bob@example.com" {
			t.Fatalf("Verify = %+v, %v", s, err)
		}
	})
}

// TestAllowedSignersEmpty: a file that lists no key is a list that
// trusts nothing, not an error (which would keep a reloaded file's
// previous list, and the key it was emptied to revoke).
func TestAllowedSignersEmpty(t *testing.T) {
	k := sshsigtest.NewKey(t, "ed25519", 0)
	msg := []byte("m")
	sig := k.Sign(t, "x", msg)
	for _, file := range []string{"", "\n", "# only comments\n", "# alice " + k.Line + "\n"} {
		a, err := sshsig.ParseAllowedSigners([]byte(file))
		if err != nil {
			t.Fatalf("%q: %v", file, err)
		}
		if a.Len() != 0 {
			t.Errorf("%q: Len = %d", file, a.Len())
		}
		if _, err := a.Verify(msg, sig, "x", time.Now()); !errors.Is(err, sshsig.ErrUnknownSigner) {
			t.Errorf("%q: Verify = %v, want ErrUnknownSigner", file, err)
		}
	}
}

// TestSignRefusesWeakKeys: Sign refuses what Verify would.
func TestSignRefusesWeakKeys(t *testing.T) {
	weak := sshsigtest.NewKey(t, "rsa", 1024)
	if _, err := sshsig.Sign(weak.Signer, []byte("m"), "x"); !errors.Is(err, sshsig.ErrKeyType) {
		t.Fatalf("Sign with a 1024-bit RSA key = %v", err)
	}
	k := sshsigtest.NewKey(t, "ed25519", 0)
	if _, err := sshsig.Sign(k.Signer, []byte("m"), ""); err == nil {
		t.Fatal("Sign with no namespace succeeded")
	}
}

// TestAllowedSignersAsSSHKeygen: each allowed-signers line is read as
// ssh-keygen -Y verify reads it, and never trusts a key ssh-keygen would
// not: an empty namespaces list allows no namespace, a list is matched
// as written (a space is part of a pattern), an option given twice, an
// unquoted value, a key without its keytype or under another keytype's
// name, a trailing comma are refused. Each line is checked against the
// real ssh-keygen too.
func TestAllowedSignersAsSSHKeygen(t *testing.T) {
	k := sshsigtest.NewKey(t, "ed25519", 0)
	const ns, who = "skillstore-snapshot", "alice@example.com"
	msg := []byte("a manifest")
	sig := k.Sign(t, ns, msg)
	b64 := strings.Fields(k.Line)[1]
	for _, tc := range []struct {
		name, line string
		trusted    bool // by both
	}{
		{"plain", who + " " + k.Line, true},
		{"leading spaces, tabs between", "  \t" + who + "\t \t" + k.Line, true},
		{"quoted principals", `"` + who + `" ` + k.Line, true},
		{"quoted principals, no space after", `"` + who + `"` + k.Line, true},
		{"a principal pattern", "*@example.com " + k.Line, true},
		{"the namespace", who + ` namespaces="` + ns + `" ` + k.Line, true},
		{"the option's name in capitals", who + ` NameSpaces="` + ns + `" ` + k.Line, true},
		{"a namespace list", who + ` namespaces="git,` + ns + `" ` + k.Line, true},
		{"a namespace pattern", who + ` namespaces="skill*" ` + k.Line, true},
		{"a quoted space in the options", who + ` namespaces="a b,` + ns + `" ` + k.Line, true},
		{"valid after, UTC", who + ` valid-after="20000101UTC" ` + k.Line, true},
		{"valid after, z", who + ` valid-after="200001010000z" ` + k.Line, true},
		{"valid in a window", who + ` valid-after="20000101",valid-before="29990101" ` + k.Line, true},

		{"an empty namespace list", who + ` namespaces="" ` + k.Line, false},
		{"a space in a namespace list", who + ` namespaces="git, ` + ns + `" ` + k.Line, false},
		{"another namespace", who + ` namespaces="git" ` + k.Line, false},
		{"the namespace negated", who + ` namespaces="!` + ns + `,*" ` + k.Line, false},
		{"namespaces twice, last allowing", who + ` namespaces="git",namespaces="` + ns + `" ` + k.Line, false},
		{"valid-after twice", who + ` valid-after="29990101",valid-after="20000101" ` + k.Line, false},
		{"an unquoted namespace", who + " namespaces=" + ns + " " + k.Line, false},
		{"an unquoted time", who + " valid-after=20000101 " + k.Line, false},
		{"a trailing comma", who + ` namespaces="` + ns + `", ` + k.Line, false},
		{"an unknown option", who + ` colour="red" ` + k.Line, false},
		{"options and no keytype", who + ` namespaces="git" ` + b64, false},
		{"another keytype's name", who + " ssh-rsa " + b64, false},
		{"expired", who + ` valid-before="20000101" ` + k.Line, false},
		{"not yet valid", who + ` valid-after="29990101" ` + k.Line, false},
		{"a window closing before it opens", who + ` valid-after="29990101",valid-before="20000101" ` + k.Line, false},
		{"empty principals", `"" ` + k.Line, false},
		{"cert-authority", who + " cert-authority " + k.Line, false},
		{"a NUL before the principals", "\x00" + who + " " + k.Line, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "allowed_signers")
			if err := os.WriteFile(file, []byte(tc.line+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			theirs := sshsigtest.VerifyWith(t, file, who, ns, msg, sig)
			if (theirs == nil) != tc.trusted {
				t.Fatalf("ssh-keygen: %v; want trusted %v", theirs, tc.trusted)
			}
			a, err := sshsig.ParseAllowedSigners([]byte(tc.line + "\n"))
			if err == nil {
				_, err = a.Verify(msg, sig, ns, time.Now())
			}
			if (err == nil) != tc.trusted {
				t.Errorf("trusted %v (%v); ssh-keygen says %v", err == nil, err, tc.trusted)
			}
		})
	}
}
