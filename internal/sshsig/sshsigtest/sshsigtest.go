// Package sshsigtest makes SSH keys and signatures with the real
// ssh-keygen, for tests of code that verifies them.
package sshsigtest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/skillstore/skillstore/internal/testutil"
)

// Keygen is where the test command installs ssh-keygen (openssh-client).
const Keygen = "/usr/bin/ssh-keygen"

// Key is a key pair ssh-keygen made.
type Key struct {
	Path   string // the private key file; Path+".pub" is the public one
	Signer ssh.Signer
	Pub    ssh.PublicKey
	Line   string // the public key as "TYPE BASE64", for allowed-signers lines
}

// NewKey makes a key of type typ ("ed25519", "ecdsa", "rsa"…) and, when
// bits > 0, that size, with no passphrase. The test is skipped (or fails
// under SKILLSTORE_IT_REQUIRED) without ssh-keygen.
func NewKey(t testing.TB, typ string, bits int) Key {
	t.Helper()
	testutil.RequireBinary(t, Keygen, "ssh-keygen (openssh-client)")
	p := filepath.Join(t.TempDir(), "id_"+typ)
	args := []string{"-q", "-t", typ, "-N", "", "-C", "test", "-f", p}
	if bits > 0 {
		args = append(args, "-b", strconv.Itoa(bits))
	}
	if out, err := exec.Command(Keygen, args...).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen -t %s: %v\n%s", typ, err, out)
	}
	priv, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	k := Key{Path: p}
	if k.Signer, err = ssh.ParsePrivateKey(priv); err != nil {
		t.Fatal(err)
	}
	k.Pub = k.Signer.PublicKey()
	k.Line = strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k.Pub)))
	return k
}

// AllowedSigners writes an allowed-signers file trusting k as principal
// and returns its path.
func (k Key) AllowedSigners(t testing.TB, principal string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "allowed_signers")
	if err := os.WriteFile(p, []byte(principal+" "+k.Line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Sign signs msg with `ssh-keygen -Y sign -n namespace` and returns the
// armored signature.
func (k Key) Sign(t testing.TB, namespace string, msg []byte) []byte {
	t.Helper()
	f := filepath.Join(t.TempDir(), "msg")
	if err := os.WriteFile(f, msg, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(Keygen, "-Y", "sign", "-f", k.Path, "-n", namespace, f).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen -Y sign: %v\n%s", err, out)
	}
	sig, err := os.ReadFile(f + ".sig")
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

// Verify checks sig over msg with `ssh-keygen -Y verify`, trusting k as
// principal for namespace; it returns ssh-keygen's words on failure.
func (k Key) Verify(t testing.TB, principal, namespace string, msg, sig []byte) error {
	t.Helper()
	return VerifyWith(t, k.AllowedSigners(t, principal), principal, namespace, msg, sig)
}

// VerifyWith checks sig over msg with `ssh-keygen -Y verify` against the
// allowed-signers file allowed, as principal for namespace; it returns
// ssh-keygen's words on failure.
func VerifyWith(t testing.TB, allowed, principal, namespace string, msg, sig []byte) error {
	t.Helper()
	sigFile := filepath.Join(t.TempDir(), "sig")
	if err := os.WriteFile(sigFile, sig, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(Keygen, "-Y", "verify", "-f", allowed, "-I", principal, "-n", namespace, "-s", sigFile)
	cmd.Stdin = bytes.NewReader(msg)
	if out, err := cmd.CombinedOutput(); err != nil {
		return errors.New(strings.TrimSpace(string(out)))
	}
	testutil.Ran(t, "ssh-keygen (SSHSIG)")
	return nil
}
