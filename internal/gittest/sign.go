package gittest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/internal/sshsig/sshsigtest"
	"github.com/skillstore/skillstore/internal/testutil"
)

// Signing is how the real git signs a commit or a tag: the -c settings
// (without the -c) and the environment it needs.
type Signing struct {
	Config []string
	Env    []string
}

// SSHKey is a key pair the real ssh-keygen made, for SSH signatures
// (sshsigtest.Key, whose Sign signs with ssh-keygen -Y sign), with the
// forms git and allowed-signers files use.
type SSHKey struct {
	sshsigtest.Key // Path is the private key file, Line the public key as allowed-signers lines write it
	// Fingerprint is the key's fingerprint as ssh-keygen -l prints it:
	// "SHA256:…".
	Fingerprint string
}

// NewSSHKey makes a key of type typ ("ed25519", "rsa", "ecdsa") and bits
// (0: ssh-keygen's default) with ssh-keygen. Without it the test is
// skipped, or fails when SKILLSTORE_IT_REQUIRED is set.
func NewSSHKey(t testing.TB, typ string, bits int) SSHKey {
	t.Helper()
	k := sshsigtest.NewKey(t, typ, bits)
	testutil.Ran(t, "ssh-keygen (SSHSIG)")
	return SSHKey{Key: k, Fingerprint: sshsig.Fingerprint(k.Pub)}
}

// Signing is git's settings to sign with k: gpg.format=ssh.
func (k SSHKey) Signing() Signing {
	return Signing{Config: []string{"gpg.format=ssh", "user.signingkey=" + k.Path}}
}

// GPGKey is an OpenPGP key the real gpg made, in a GNUPGHOME of its own.
type GPGKey struct {
	Home        string // its GNUPGHOME
	Fingerprint string // the primary key's fingerprint, upper-case hex
	UID         string // its user ID, "Name <email>"
	Armored     []byte // gpg --armor --export: the public key
}

const gpg = "/usr/bin/gpg"

// NewGPGKey makes a signing key for uid ("Name <email>") of algorithm
// algo ("ed25519", "rsa3072", "rsa1024"…), without a passphrase, with
// gpg --quick-gen-key in a GNUPGHOME under t.TempDir(); its gpg-agent is
// stopped when the test ends. Without gpg the test is skipped, or fails
// when SKILLSTORE_IT_REQUIRED is set.
func NewGPGKey(t testing.TB, uid, algo string) GPGKey {
	t.Helper()
	testutil.RequireBinary(t, gpg, "gpg (Debian's gnupg)")
	testutil.Ran(t, "gpg (OpenPGP)")
	home := t.TempDir()
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"GNUPGHOME=" + home}
	t.Cleanup(func() { // the agent the first gpg started
		exec.Command("gpgconf", "--homedir", home, "--kill", "gpg-agent").Run()
	})
	run(t, env, gpg, "--batch", "--passphrase", "", "--quick-gen-key", uid, algo, "sign", "never")
	k := GPGKey{Home: home, UID: uid}
	for _, line := range strings.Split(run(t, env, gpg, "--batch", "--with-colons", "--list-keys", uid), "\n") {
		if f := strings.Split(line, ":"); f[0] == "fpr" && len(f) > 9 && k.Fingerprint == "" {
			k.Fingerprint = f[9]
		}
	}
	if k.Fingerprint == "" {
		t.Fatalf("gpg listed no fingerprint for %q", uid)
	}
	k.Armored = []byte(run(t, env, gpg, "--batch", "--armor", "--export", k.Fingerprint))
	return k
}

// Signing is git's settings to sign with k: gpg.format=openpgp with gpg,
// k's fingerprint as the signing key and its GNUPGHOME.
func (k GPGKey) Signing() Signing {
	return Signing{Config: []string{"gpg.format=openpgp", "gpg.program=" + gpg, "user.signingkey=" + k.Fingerprint}, Env: []string{"GNUPGHOME=" + k.Home}}
}

// run runs a program with env added to the environment and returns its
// standard output; a failure fails the test with its output.
func run(t testing.TB, env []string, prog string, args ...string) string {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", filepath.Base(prog), strings.Join(args, " "), err, out.Bytes(), errOut.Bytes())
	}
	return out.String()
}
