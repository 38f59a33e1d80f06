package gitfs_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/backends/backendtest"
	"github.com/skillstore/skillstore/backends/gitfs"
)

// token guards the repositories under /private/ of the test server.
const token = "s3cret-git-token"

// server is a real git server: git http-backend (Debian's git package)
// behind net/http/cgi, on 127.0.0.1. Repositories under private/ need
// the token as the HTTP basic auth password.
type server struct {
	root, url string
}

func newServer(t *testing.T) *server {
	t.Helper()
	backend := "/usr/lib/git-core/git-http-backend"
	if out, err := exec.Command("git", "--exec-path").Output(); err == nil {
		backend = filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	}
	if _, err := os.Stat(backend); err != nil {
		if os.Getenv("SKILLSTORE_IT_REQUIRED") != "" {
			t.Fatalf("git http-backend is required: %v", err)
		}
		t.Skipf("git http-backend not installed: %v", err)
	}
	root := t.TempDir()
	h := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}, Stderr: io.Discard}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/private/") {
			if _, pass, ok := r.BasicAuth(); !ok || pass != token {
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
	return &server{root: root, url: ts.URL}
}

// repo is a repository on the server and a working copy to commit from.
type repo struct {
	t          *testing.T
	bare, work string
	url        string // git+http://…/name.git
}

func (s *server) repo(t *testing.T, name string) *repo {
	t.Helper()
	r := &repo{t: t, bare: filepath.Join(s.root, name+".git"), work: t.TempDir(), url: "git+" + s.url + "/" + name + ".git"}
	os.MkdirAll(filepath.Dir(r.bare), 0o755)
	r.git(s.root, "init", "--quiet", "--bare", "--initial-branch=main", r.bare)
	r.git(r.work, "init", "--quiet", "--initial-branch=main")
	return r
}

func (r *repo) git(dir string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.work)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit writes files (a nil content removes one), commits them and
// pushes the branch; it returns the commit's hash.
func (r *repo) commit(branch string, files map[string][]byte) string {
	r.t.Helper()
	for name, data := range files {
		p := filepath.Join(r.work, filepath.FromSlash(name))
		if data == nil {
			os.Remove(p)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	r.git(r.work, "add", "-A")
	r.git(r.work, "commit", "--quiet", "--allow-empty", "-m", "change")
	r.git(r.work, "push", "--quiet", "--force", r.bare, "HEAD:refs/heads/"+branch)
	return r.git(r.work, "rev-parse", "HEAD")
}

func skill(name, desc string) []byte {
	return []byte("---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\n")
}

func read(t *testing.T, fsys fs.FS, name string) string {
	t.Helper()
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return string(b)
}

// TestBackend runs the shared backend suite against a repository's
// skills folder served by a real git server.
func TestBackend(t *testing.T) {
	s := newServer(t)
	n := 0
	backendtest.Run(t, backendtest.HarnessFunc(func(t *testing.T, files map[string][]byte) fs.FS {
		n++
		r := s.repo(t, "suite"+string(rune('a'+n)))
		in := map[string][]byte{"README.md": []byte("outside the skills path")}
		for name, data := range files {
			in["skills/"+name] = data
		}
		r.commit("main", in)
		repo, err := gitfs.Open(r.url+"?path=skills/", gitfs.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return repo
	}))
}

// TestRefs: a branch is followed as it moves forward and when it is
// force-pushed, a tag and a commit stay pinned, and a refresh switches
// to the new commit at once while an older snapshot stays readable.
func TestRefs(t *testing.T) {
	s := newServer(t)
	r := s.repo(t, "org/skills")
	first := r.commit("main", map[string][]byte{"skills/alpha/SKILL.md": skill("alpha", "First.")})
	r.git(r.work, "tag", "-a", "v1", "-m", "release 1")
	r.git(r.work, "push", "--quiet", r.bare, "v1")
	ctx := context.Background()
	open := func(query string) *gitfs.Repo {
		t.Helper()
		g, err := gitfs.Open(r.url+query, gitfs.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	branch, tag, sha, dflt := open("?ref=main&path=skills"), open("?ref=v1&path=skills/"), open("?ref="+first+"&path=skills"), open("?path=skills")
	snap, err := branch.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, snap, "alpha/SKILL.md"); !strings.Contains(got, "First.") {
		t.Fatalf("branch: %q", got)
	}
	if branch.Revision() != first || !strings.Contains(branch.Location(), "ref=main") {
		t.Errorf("revision %s, location %s", branch.Revision(), branch.Location())
	}

	// The branch moves forward.
	second := r.commit("main", map[string][]byte{"skills/alpha/SKILL.md": skill("alpha", "Second."), "skills/beta/SKILL.md": skill("beta", "New.")})
	if err := branch.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if branch.Revision() != second || !strings.Contains(read(t, branch, "alpha/SKILL.md"), "Second.") || !strings.Contains(read(t, branch, "beta/SKILL.md"), "New.") {
		t.Errorf("after a push: revision %s", branch.Revision())
	}
	if got := read(t, snap, "alpha/SKILL.md"); !strings.Contains(got, "First.") {
		t.Errorf("the older snapshot changed: %q", got)
	}

	// A force-push rewrites it.
	r.git(r.work, "reset", "--quiet", "--hard", first)
	forced := r.commit("main", map[string][]byte{"skills/alpha/SKILL.md": skill("alpha", "Rewritten.")})
	if err := branch.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if branch.Revision() != forced || !strings.Contains(read(t, branch, "alpha/SKILL.md"), "Rewritten.") {
		t.Errorf("after a force-push: revision %s", branch.Revision())
	}
	if _, err := fs.Stat(branch, "beta/SKILL.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a skill the force-push removed: %v", err)
	}

	// The tag, the SHA and the default branch.
	for name, g := range map[string]*gitfs.Repo{"tag": tag, "sha": sha} {
		if got := read(t, g, "alpha/SKILL.md"); !strings.Contains(got, "First.") || g.Revision() != first {
			t.Errorf("%s: %q at %s", name, got, g.Revision())
		}
	}
	if got := read(t, dflt, "alpha/SKILL.md"); !strings.Contains(got, "Rewritten.") {
		t.Errorf("default branch: %q", got)
	}

	// The branch disappears: the refresh fails, the last commit stays.
	r.git(r.bare, "branch", "-D", "main")
	if err := branch.Refresh(ctx); err == nil || !strings.Contains(err.Error(), `no branch, tag or commit "main"`) {
		t.Errorf("a deleted branch: %v", err)
	}
	if got := read(t, branch, "alpha/SKILL.md"); !strings.Contains(got, "Rewritten.") {
		t.Errorf("after a failed refresh: %q", got)
	}
}

// TestPrivate: a token-protected repository is read with GIT_TOKEN, and
// refused with a clear error without it; the token is never shown.
func TestPrivate(t *testing.T) {
	s := newServer(t)
	r := s.repo(t, "private/team")
	r.commit("main", map[string][]byte{"gamma/SKILL.md": skill("gamma", "Private.")})
	ctx := context.Background()
	t.Setenv("GIT_TOKEN", "")
	anon, _ := gitfs.Open(r.url, gitfs.Options{})
	_, err := anon.Snapshot(ctx)
	if err == nil || !strings.Contains(err.Error(), "needs credentials: set GIT_TOKEN") {
		t.Errorf("without a token: %v", err)
	}
	wrong, _ := gitfs.Open(r.url, gitfs.Options{Token: "wrong-token"})
	if _, err := wrong.Snapshot(ctx); err == nil || !strings.Contains(err.Error(), "the token was refused") || strings.Contains(err.Error(), "wrong-token") {
		t.Errorf("a wrong token: %v", err)
	}
	t.Setenv("GIT_TOKEN", token)
	g, _ := gitfs.Open(r.url, gitfs.Options{})
	if got := read(t, g, "gamma/SKILL.md"); !strings.Contains(got, "Private.") {
		t.Errorf("with GIT_TOKEN: %q", got)
	}
	if strings.Contains(g.Location(), token) {
		t.Errorf("location shows the token: %s", g.Location())
	}
}

// TestBadSources: each bad source gets an error saying what is wrong.
func TestBadSources(t *testing.T) {
	s := newServer(t)
	r := s.repo(t, "plain")
	r.commit("main", map[string][]byte{"skills/a/SKILL.md": skill("a", "A."), "skills/a/big.bin": make([]byte, 3<<20)})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "git+http://" + l.Addr().String() + "/x.git"
	l.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		url  string
		opts gitfs.Options
		want string
	}{
		{r.url + "?ref=nope", gitfs.Options{}, `no branch, tag or commit "nope" in the repository`},
		{r.url + "?path=missing/", gitfs.Options{}, "the repository has no folder missing/ at"},
		{r.url + "?path=skills", gitfs.Options{MaxBytes: 1 << 20}, "exceed the 1 MiB cap"},
		{"git+" + s.url + "/nothing.git", gitfs.Options{}, "no repository at this URL"},
		{closed, gitfs.Options{}, "cannot reach the repository"},
		{"git+" + s.url + "/moved/plain.git", gitfs.Options{}, "redirected to another host"},
	} {
		g, err := gitfs.Open(tc.url, tc.opts)
		if err == nil {
			_, err = g.Snapshot(ctx)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.url, err, tc.want)
		}
	}
	for _, bad := range []string{"git+ftp://x/y.git", "git+https://user:pw@host/y.git", "git+https://host/y.git?branch=main"} {
		if _, err := gitfs.Open(bad, gitfs.Options{}); err == nil || strings.Contains(err.Error(), "pw@") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
