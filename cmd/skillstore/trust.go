package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/gitfs"
	"github.com/skillstore/skillstore/internal/reload"
	"github.com/skillstore/skillstore/internal/sshsig"
)

// trustParam is the source URL option naming that source's allowed-signers
// file (the --trusted-signers of one source).
const trustParam = "trusted-signers"

// splitTrust takes the trusted-signers option out of a source URL,
// returning the URL without it and the file it names ("" for none). A
// path is returned as it is.
func splitTrust(location string) (rest, file string, err error) {
	if !strings.Contains(location, "://") || !strings.Contains(location, trustParam+"=") {
		return location, "", nil
	}
	u, err := url.Parse(location)
	if err != nil {
		return location, "", nil // backends.Open says what is wrong with it
	}
	q := u.Query()
	files := q[trustParam]
	q.Del(trustParam)
	u.RawQuery = q.Encode()
	if len(files) != 1 || files[0] == "" {
		return u.String(), "", fmt.Errorf("give %s=FILE once, naming an allowed-signers file", trustParam)
	}
	return u.String(), files[0], nil
}

// trustLists are the allowed-signers files the sources use, each loaded
// once however many sources name it and reloaded when it changes (a file
// that no longer parses leaves the previous list in place, logged). A
// file that lists no key (empty, or every line commented out) is a list
// that trusts nothing: logged at ERROR each time it is loaded, and the
// sources under it serve nothing.
type trustLists struct {
	files map[string]*reload.File[*sshsig.AllowedSigners]
	// reloaded, if set, is called after a list was reloaded, so that the
	// sources check what they serve against it now (mcpserver's Rescan).
	reloaded atomic.Pointer[func()]
}

// OnReload sets what is called after a list is reloaded.
func (t *trustLists) OnReload(f func()) { t.reloaded.Store(&f) }

// load returns the current list of file, reading and watching it the
// first time. Its errors name the file by its base name only.
func (t *trustLists) load(file string) (func() *sshsig.AllowedSigners, error) {
	if t.files == nil {
		t.files = map[string]*reload.File[*sshsig.AllowedSigners]{}
	}
	f, ok := t.files[file]
	if !ok {
		name := filepath.Base(file)
		var err error
		f, err = reload.Watch(file, func(data []byte) (*sshsig.AllowedSigners, error) {
			a, err := sshsig.ParseAllowedSigners(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if a.Len() == 0 {
				slog.Error("the trusted signers list no key: nothing is trusted, and every source under them serves nothing until a key is listed", "file", name)
			}
			return a, nil
		}, reload.Options{What: "trusted signers", MaxBytes: sshsig.MaxAllowedSignersBytes, Logger: slog.Default(), OnReload: func() {
			if f := t.reloaded.Load(); f != nil {
				(*f)()
			}
		}})
		if err != nil {
			if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
				return nil, fmt.Errorf("trusted signers %s: %w", name, pe.Err)
			}
			return nil, fmt.Errorf("trusted signers %w", err) // it names the file, by its base name
		}
		t.files[file] = f
	}
	return f.Current, nil
}

// readTrusted reads the allowed-signers file publish --sign is given
// with --trusted-signers: the keys besides its own whose snapshots it
// follows (snapshot.PublishOptions.Trusted). Errors name the file by its
// base name.
func readTrusted(file string) (*sshsig.AllowedSigners, error) {
	name := filepath.Base(file)
	data, err := reload.ReadFile(backends.ExpandHome(file), sshsig.MaxAllowedSignersBytes)
	if err != nil {
		return nil, fmt.Errorf("trusted signers %w", stripHost(err))
	}
	a, err := sshsig.ParseAllowedSigners(data)
	if err != nil {
		return nil, fmt.Errorf("trusted signers %s: %w", name, err)
	}
	return a, nil
}

// Close stops watching the files.
func (t *trustLists) Close() {
	for _, f := range t.files {
		f.Close()
	}
}

// signingKey loads publish --sign's key: an unencrypted private key file,
// or — for a key protected by a passphrase, or given as its .pub file —
// the same key held by the ssh-agent at SSH_AUTH_SOCK. Errors name the
// file by its base name only and never carry key material.
func signingKey(file string) (ssh.Signer, func(), error) {
	name := filepath.Base(file)
	data, err := reload.ReadFile(file, 1<<20)
	if err != nil {
		return nil, nil, fmt.Errorf("--sign %s: %w", name, stripHost(err))
	}
	signer, err := ssh.ParsePrivateKey(data)
	if err == nil {
		return signer, func() {}, nil
	}
	var pub ssh.PublicKey
	var missing *ssh.PassphraseMissingError
	switch {
	case errors.As(err, &missing) && missing.PublicKey != nil:
		pub = missing.PublicKey
	default:
		var perr error
		if pub, _, _, _, perr = ssh.ParseAuthorizedKey(data); perr != nil {
			return nil, nil, fmt.Errorf("--sign %s: not an SSH private key (%s)", name, strings.TrimPrefix(err.Error(), "ssh: "))
		}
	}
	return agentSigner(name, pub)
}

// agentSigner finds pub among the keys ssh-agent holds.
func agentSigner(name string, pub ssh.PublicKey) (ssh.Signer, func(), error) {
	sock := os.Getenv("SSH_AUTH_SOCK")
	if sock == "" {
		return nil, nil, fmt.Errorf("--sign %s: the key needs a passphrase (or is a public key): add it to ssh-agent (ssh-add) and publish again with SSH_AUTH_SOCK set", name)
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		return nil, nil, fmt.Errorf("--sign %s: cannot reach ssh-agent at SSH_AUTH_SOCK: %v", name, stripHost(err))
	}
	signers, err := agent.NewClient(conn).Signers()
	if err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("--sign %s: asking ssh-agent for its keys: %v", name, err)
	}
	want := string(pub.Marshal())
	for _, s := range signers {
		if string(s.PublicKey().Marshal()) == want {
			return s, func() { conn.Close() }, nil
		}
	}
	conn.Close()
	return nil, nil, fmt.Errorf("--sign %s: ssh-agent does not hold this key (%s); ssh-add it and publish again", name, ssh.FingerprintSHA256(pub))
}

// isGitURL reports whether location is a git source (git+https://…).
func isGitURL(location string) bool {
	scheme, _, ok := strings.Cut(location, "://")
	return ok && strings.HasPrefix(strings.ToLower(scheme), "git+")
}

// hasGitVerify reports whether a git source URL has its own verify=
// option (the name in any case, as gitfs reads it).
func hasGitVerify(location string) bool {
	u, err := url.Parse(location)
	if err != nil {
		return false // backends.Open says what is wrong with it
	}
	for k := range u.Query() {
		if strings.EqualFold(k, "verify") {
			return true
		}
	}
	return false
}

// withGitVerify gives a git source URL the trust file as its verify=
// option, unless it has its own.
func withGitVerify(location, file string) string {
	u, err := url.Parse(location)
	if err != nil || hasGitVerify(location) {
		return location // backends.Open says what is wrong with it; or the source's own wins
	}
	q := u.Query()
	q.Set("verify", file)
	u.RawQuery = q.Encode()
	return u.String()
}

// isKeyring reports whether file is an armored OpenPGP keyring (see
// gitfs.IsKeyring), from its first bytes; false when it cannot be read
// (loading it says why).
func isKeyring(file string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	return gitfs.IsKeyring(head[:n])
}
