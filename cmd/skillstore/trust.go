package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

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
// once however many sources name it.
type trustLists struct {
	lists map[string]*sshsig.AllowedSigners
}

// load returns the current list of file, reading it the first time. Its
// errors name the file by its base name only.
func (t *trustLists) load(file string) (func() *sshsig.AllowedSigners, error) {
	if t.lists == nil {
		t.lists = map[string]*sshsig.AllowedSigners{}
	}
	a, ok := t.lists[file]
	if !ok {
		data, err := readBounded(file, sshsig.MaxAllowedSignersBytes)
		if err == nil {
			a, err = sshsig.ParseAllowedSigners(data)
		}
		if err != nil {
			return nil, fmt.Errorf("trusted signers %s: %w", filepath.Base(file), stripHost(err))
		}
		t.lists[file] = a
	}
	return func() *sshsig.AllowedSigners { return a }, nil
}

// readBounded reads at most limit bytes of file, failing past them.
func readBounded(file string, limit int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("the file is over %d bytes", limit)
	}
	return data, nil
}

// signingKey loads publish --sign's key: an unencrypted private key file,
// or — for a key protected by a passphrase, or given as its .pub file —
// the same key held by the ssh-agent at SSH_AUTH_SOCK. Errors name the
// file by its base name only and never carry key material.
func signingKey(file string) (ssh.Signer, func(), error) {
	name := filepath.Base(file)
	data, err := readBounded(file, 1<<20)
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
