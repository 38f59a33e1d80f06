// Package gittest runs a real git server for tests: git http-backend (from
// Debian's git package) behind net/http/cgi on 127.0.0.1, with
// repositories made and changed by the git command.
package gittest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha1"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/skillstore/skillstore/internal/testutil"
)

// Token guards the repositories under private/ of a Server.
const Token = "s3cret-git-token"

// Server is a real git server: git http-backend behind net/http/cgi, on
// 127.0.0.1. Repositories under private/ need Token as the HTTP basic
// auth password; a path under moved/ redirects to another host. It stops
// when the test ends. Without git it skips the test, or fails it when
// SKILLSTORE_IT_REQUIRED is set.
type Server struct {
	Root, URL string
	// PublicAuth counts requests for public repositories that carried
	// credentials: a client should send them only when asked.
	PublicAuth atomic.Int64
	// Requests counts every request the server answered.
	Requests atomic.Int64
}

// NewServer starts a Server.
func NewServer(t testing.TB) *Server {
	t.Helper()
	backend := "/usr/lib/git-core/git-http-backend"
	if out, err := exec.Command("git", "--exec-path").Output(); err == nil {
		backend = filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	}
	testutil.RequireBinary(t, backend, "git http-backend (Debian's git)")
	testutil.Ran(t, "git server (git http-backend)")
	root := t.TempDir()
	h := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}, Stderr: io.Discard}
	srv := &Server{Root: root}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.Requests.Add(1)
		if !strings.HasPrefix(r.URL.Path, "/private/") && r.Header.Get("Authorization") != "" {
			srv.PublicAuth.Add(1)
		}
		if strings.HasPrefix(r.URL.Path, "/private/") {
			if _, pass, ok := r.BasicAuth(); !ok || pass != Token {
				w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
				http.Error(w, "authentication required", http.StatusUnauthorized)
				return
			}
		}
		if strings.HasPrefix(r.URL.Path, "/moved/") { // a redirect to another host
			http.Redirect(w, r, "http://localhost"+r.URL.Path[len("/moved"):]+"?"+r.URL.RawQuery, http.StatusFound)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	srv.URL = ts.URL
	return srv
}

// Repo is a repository on a Server and a working copy to commit from.
type Repo struct {
	t          testing.TB
	Bare, Work string
	URL        string // git+http://…/NAME.git
}

// Repo makes an empty repository called name (a path such as
// "private/team" is allowed).
func (s *Server) Repo(t testing.TB, name string) *Repo {
	t.Helper()
	r := &Repo{t: t, Bare: filepath.Join(s.Root, name+".git"), Work: t.TempDir(), URL: "git+" + s.URL + "/" + name + ".git"}
	os.MkdirAll(filepath.Dir(r.Bare), 0o755)
	r.Git(s.Root, "init", "--quiet", "--bare", "--initial-branch=main", r.Bare)
	r.Git(r.Work, "init", "--quiet", "--initial-branch=main")
	return r
}

// Git runs the git command in dir and returns its output.
func (r *Repo) Git(dir string, args ...string) string {
	r.t.Helper()
	return r.gitIn(dir, nil, args...)
}

// gitIn runs the git command in dir with stdin (if not nil) as its input.
func (r *Repo) gitIn(dir string, stdin io.Reader, args ...string) string {
	r.t.Helper()
	return r.gitWith(dir, nil, stdin, args...)
}

// gitWith runs the git command in dir with sign's settings and
// environment (if not nil) and stdin (if not nil) as its input.
func (r *Repo) gitWith(dir string, sign *Signing, stdin io.Reader, args ...string) string {
	r.t.Helper()
	base := []string{"-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.Work)
	if sign != nil {
		for _, c := range sign.Config {
			base = append(base, "-c", c)
		}
		env = append(env, sign.Env...)
	}
	cmd := exec.Command("git", append(base, args...)...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out.Bytes())
	}
	return strings.TrimSpace(out.String())
}

// Object writes a raw object of type typ ("blob", "tree", …) into the
// working copy's object database, unchecked (git hash-object
// --literally: a malformed tree can be made), and returns its hash.
func (r *Repo) Object(typ string, data []byte) string {
	r.t.Helper()
	return r.gitIn(r.Work, bytes.NewReader(data), "hash-object", "-t", typ, "--literally", "-w", "--stdin")
}

// ZeroBlob writes a blob of size zero bytes, streamed to git (no file, no
// buffer: it may be far larger than memory), and returns its hash. git
// deflates it (fast, at level 1) to about 1/200 of its size.
func (r *Repo) ZeroBlob(size int64) string {
	r.t.Helper()
	return r.gitIn(r.Work, io.LimitReader(testutil.Zeros, size), "-c", "core.compression=1", "hash-object", "-w", "--stdin")
}

// Entry is one entry of a tree Tree writes: Mode is git's ("100644",
// "40000" for a tree, "120000" for a link), Hash the object's.
type Entry struct{ Mode, Name, Hash string }

// Tree writes a tree object holding entries in the order given, unchecked
// (duplicate or ".." names are kept), and returns its hash.
func (r *Repo) Tree(entries ...Entry) string {
	r.t.Helper()
	var b bytes.Buffer
	for _, e := range entries {
		raw, err := hex.DecodeString(e.Hash)
		if err != nil || len(raw) != 20 {
			r.t.Fatalf("tree entry %q: bad hash %q", e.Name, e.Hash)
		}
		b.WriteString(e.Mode + " " + e.Name + "\x00")
		b.Write(raw)
	}
	return r.Object("tree", b.Bytes())
}

// Nest writes depth trees, each holding the next as a folder called name
// and the innermost holding inner, with one git command, and returns the
// outermost's hash.
func (r *Repo) Nest(depth int, name string, inner Entry) string {
	r.t.Helper()
	dir := r.t.TempDir()
	var paths strings.Builder
	e := inner
	for i := range depth {
		raw, err := hex.DecodeString(e.Hash)
		if err != nil {
			r.t.Fatalf("nest: bad hash %q", e.Hash)
		}
		body := append([]byte(e.Mode+" "+e.Name+"\x00"), raw...)
		sum := sha1.Sum(append([]byte(fmt.Sprintf("tree %d\x00", len(body))), body...))
		p := filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(p, body, 0o644); err != nil {
			r.t.Fatal(err)
		}
		paths.WriteString(p + "\n")
		e = Entry{Mode: "40000", Name: name, Hash: hex.EncodeToString(sum[:])}
	}
	r.gitIn(r.Work, strings.NewReader(paths.String()), "hash-object", "-t", "tree", "-w", "--stdin-paths")
	return e.Hash
}

// CommitTree commits tree (with no parent) and pushes the commit as
// branch, forcing it; it returns the commit's hash. Objects built with
// Object, ZeroBlob and Tree reach the server this way, unchecked.
func (r *Repo) CommitTree(branch, tree string) string {
	r.t.Helper()
	commit := r.Git(r.Work, "commit-tree", tree, "-m", "change")
	r.Git(r.Work, "-c", "pack.compression=1", "push", "--quiet", "--force", r.Bare, commit+":refs/heads/"+branch)
	return commit
}

// Commit writes files (a nil content removes one), commits them and
// pushes the branch (forcing it); it returns the commit's hash.
func (r *Repo) Commit(branch string, files map[string][]byte) string {
	r.t.Helper()
	return r.commit(branch, nil, files)
}

// CommitSigned is Commit with the commit signed by the real git (git
// commit -S) as sign says.
func (r *Repo) CommitSigned(branch string, sign Signing, files map[string][]byte) string {
	r.t.Helper()
	return r.commit(branch, &sign, files)
}

func (r *Repo) commit(branch string, sign *Signing, files map[string][]byte) string {
	r.t.Helper()
	for name, data := range files {
		p := filepath.Join(r.Work, filepath.FromSlash(name))
		if data == nil {
			os.Remove(p)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	r.Git(r.Work, "add", "-A")
	if sign != nil {
		r.gitWith(r.Work, sign, nil, "commit", "--quiet", "--allow-empty", "-S", "-m", "change")
	} else {
		r.Git(r.Work, "commit", "--quiet", "--allow-empty", "-m", "change")
	}
	r.Git(r.Work, "push", "--quiet", "--force", r.Bare, "HEAD:refs/heads/"+branch)
	return r.Git(r.Work, "rev-parse", "HEAD")
}

// Tag makes an annotated tag called name of commit, signed by the real
// git (git tag -s) as sign says, or unsigned when sign is nil, and
// pushes it (forcing it); it returns the tag object's hash.
func (r *Repo) Tag(name, commit string, sign *Signing) string {
	r.t.Helper()
	if sign != nil {
		r.gitWith(r.Work, sign, nil, "tag", "--force", "-s", "-m", "release "+name, name, commit)
	} else {
		r.Git(r.Work, "tag", "--force", "-a", "-m", "release "+name, name, commit)
	}
	r.Git(r.Work, "push", "--quiet", "--force", r.Bare, "refs/tags/"+name)
	return r.Git(r.Work, "rev-parse", "refs/tags/"+name)
}

// Push makes the working copy's object hash (a commit) the server's
// branch, forcing it: commits written with Object reach the server so.
func (r *Repo) Push(branch, hash string) {
	r.t.Helper()
	r.Git(r.Work, "push", "--quiet", "--force", r.Bare, hash+":refs/heads/"+branch)
}

// Raw returns the content of the working copy's object hash (git
// cat-file), for tests that build a forged or hand-signed object from it.
func (r *Repo) Raw(typ, hash string) []byte {
	r.t.Helper()
	cmd := exec.Command("git", "cat-file", typ, hash)
	cmd.Dir = r.Work
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("git cat-file %s %s: %v", typ, hash, err)
	}
	return out
}

// WithSignature returns commit (a commit object's content, unsigned) with
// sig in a gpgsig header after its other headers, as git writes it: each
// line of sig after the first indented by a space.
func WithSignature(commit, sig []byte) []byte {
	head, body, _ := bytes.Cut(commit, []byte("\n\n"))
	header := "gpgsig " + strings.ReplaceAll(strings.TrimSuffix(string(sig), "\n"), "\n", "\n ") + "\n"
	var b bytes.Buffer
	b.Write(head)
	b.WriteString("\n" + header + "\n")
	b.Write(body)
	return b.Bytes()
}

// SSHServer is a git server over SSH on 127.0.0.1: a small SSH server
// (golang.org/x/crypto/ssh) that runs Debian's git-upload-pack for the
// repositories of a Server, for one client key.
type SSHServer struct {
	Addr       string // host:port
	KeyFile    string // the client's private key (OpenSSH format)
	KnownHosts string // a known_hosts file naming the server's key
}

// NewSSHServer serves s's repositories over SSH until the test ends.
func (s *Server) NewSSHServer(t testing.TB) *SSHServer {
	t.Helper()
	_, hostPriv, _ := ed25519.GenerateKey(nil)
	clientPub, clientPriv, _ := ed25519.GenerateKey(nil)
	hostSigner, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	allowed, _ := ssh.NewPublicKey(clientPub)
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
		if bytes.Equal(key.Marshal(), allowed.Marshal()) {
			return nil, nil
		}
		return nil, errors.New("unknown key")
	}}
	cfg.AddHostKey(hostSigner)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serveSSH(c, cfg, s.Root)
		}
	}()
	dir := t.TempDir()
	block, err := ssh.MarshalPrivateKey(clientPriv, "")
	if err != nil {
		t.Fatal(err)
	}
	out := &SSHServer{Addr: l.Addr().String(), KeyFile: filepath.Join(dir, "id_ed25519"), KnownHosts: filepath.Join(dir, "known_hosts")}
	os.WriteFile(out.KeyFile, pem.EncodeToMemory(block), 0o600)
	os.WriteFile(out.KnownHosts, []byte(knownhosts.Line([]string{out.Addr}, hostSigner.PublicKey())+"\n"), 0o600)
	return out
}

// serveSSH answers one connection: each session may exec
// git-upload-pack 'PATH', run against the repositories under root.
func serveSSH(c net.Conn, cfg *ssh.ServerConfig, root string) {
	defer c.Close()
	_, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.UnknownChannelType, "sessions only")
			continue
		}
		ch, chReqs, err := nc.Accept()
		if err != nil {
			return
		}
		go func() {
			defer ch.Close()
			for req := range chReqs {
				if req.Type != "exec" || len(req.Payload) < 4 {
					req.Reply(false, nil)
					continue
				}
				command := string(req.Payload[4:])
				prog, arg, _ := strings.Cut(command, " ")
				arg = strings.Trim(arg, "'")
				if prog != "git-upload-pack" || strings.Contains(arg, "..") {
					req.Reply(false, nil)
					return
				}
				req.Reply(true, nil)
				cmd := exec.Command("git-upload-pack", filepath.Join(root, filepath.FromSlash(arg)))
				cmd.Stdin, cmd.Stdout, cmd.Stderr = ch, ch, ch.Stderr()
				status := 0
				if err := cmd.Run(); err != nil {
					status = 1
				}
				ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{uint32(status)}))
				return
			}
		}()
	}
}
