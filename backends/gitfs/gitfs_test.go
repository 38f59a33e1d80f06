package gitfs_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/backendtest"
	"github.com/skillstore/skillstore/backends/gitfs"
	"github.com/skillstore/skillstore/internal/gittest"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

func skill(name, desc string) []byte {
	return []byte("---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\n")
}

// tooLarge is the error for a clone over 4 × a MaxBytes of 1 MiB.
const tooLarge = "the clone exceeds 4 MiB; the repository is too large to serve (the cap is 4× the 1 MiB cap on its skills path)"

// open opens a git source that must open (its errors come with Snapshot).
func open(t *testing.T, url string, opts gitfs.Options) *gitfs.Repo {
	t.Helper()
	g, err := gitfs.Open(url, opts)
	if err != nil {
		t.Fatal(err)
	}
	return g
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
// skills folder served by a real git server; Update pushes a commit.
func TestBackend(t *testing.T) {
	s := gittest.NewServer(t)
	n := 0
	backendtest.Run(t, backendtest.Harness{
		Make: func(t *testing.T, files map[string][]byte) backendtest.Backend {
			n++
			r := s.Repo(t, fmt.Sprintf("suite-%d", n))
			commit := func(next map[string][]byte) {
				in := map[string][]byte{"README.md": []byte("outside the skills path")}
				for name := range files {
					in["skills/"+name] = nil // removed, unless next has it
				}
				for name, data := range next {
					in["skills/"+name] = data
				}
				r.Commit("main", in)
				files = next
			}
			commit(files)
			repo, err := gitfs.Open(r.URL+"?path=skills/", gitfs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return backendtest.Backend{FS: repo, Update: commit}
		},
		Upgrades: backendtest.Upgrades{SnapshotFS: true, Refresher: true, RevisionFS: true},
	})
}

// TestRefs: a branch is followed as it moves forward and when it is
// force-pushed, a tag and a commit stay pinned, and a refresh switches
// to the new commit at once while an older snapshot stays readable.
func TestRefs(t *testing.T) {
	s := gittest.NewServer(t)
	r := s.Repo(t, "org/skills")
	first := r.Commit("main", map[string][]byte{"skills/alpha/SKILL.md": skill("alpha", "First.")})
	r.Git(r.Work, "tag", "-a", "v1", "-m", "release 1")
	r.Git(r.Work, "push", "--quiet", r.Bare, "v1")
	ctx := context.Background()
	open := func(query string) *gitfs.Repo {
		t.Helper()
		g, err := gitfs.Open(r.URL+query, gitfs.Options{})
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
	if got := read(t, snap, "alpha/SKILL.md"); got != string(skill("alpha", "First.")) {
		t.Fatalf("branch: %q", got)
	}
	if branch.Revision() != first || branch.Location() != r.URL+"?path=skills/&ref=main" {
		t.Errorf("revision %s, location %s", branch.Revision(), branch.Location())
	}

	// Nothing moved: a refresh is one request (the ref listing).
	before := s.Requests.Load()
	if err := branch.Refresh(ctx); err != nil || s.Requests.Load()-before != 1 || branch.Revision() != first {
		t.Errorf("an idle refresh: %v, %d requests", err, s.Requests.Load()-before)
	}

	// The branch moves forward.
	second := r.Commit("main", map[string][]byte{"skills/alpha/SKILL.md": skill("alpha", "Second."), "skills/beta/SKILL.md": skill("beta", "New.")})
	if err := branch.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if branch.Revision() != second || read(t, branch, "alpha/SKILL.md") != string(skill("alpha", "Second.")) || read(t, branch, "beta/SKILL.md") != string(skill("beta", "New.")) {
		t.Errorf("after a push: revision %s", branch.Revision())
	}
	if got := read(t, snap, "alpha/SKILL.md"); got != string(skill("alpha", "First.")) {
		t.Errorf("the older snapshot changed: %q", got)
	}

	// A force-push rewrites it.
	r.Git(r.Work, "reset", "--quiet", "--hard", first)
	forced := r.Commit("main", map[string][]byte{"skills/alpha/SKILL.md": skill("alpha", "Rewritten.")})
	if err := branch.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if branch.Revision() != forced || read(t, branch, "alpha/SKILL.md") != string(skill("alpha", "Rewritten.")) {
		t.Errorf("after a force-push: revision %s", branch.Revision())
	}
	if _, err := fs.Stat(branch, "beta/SKILL.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a skill the force-push removed: %v", err)
	}

	// The tag, the SHA and the default branch.
	for name, g := range map[string]*gitfs.Repo{"tag": tag, "sha": sha} {
		if got := read(t, g, "alpha/SKILL.md"); got != string(skill("alpha", "First.")) || g.Revision() != first {
			t.Errorf("%s: %q at %s", name, got, g.Revision())
		}
	}
	if got := read(t, dflt, "alpha/SKILL.md"); got != string(skill("alpha", "Rewritten.")) {
		t.Errorf("default branch: %q", got)
	}

	// The branch disappears: the refresh fails, the last commit stays.
	r.Git(r.Bare, "branch", "-D", "main")
	if err := branch.Refresh(ctx); err == nil || err.Error() != "git source "+r.URL+`?path=skills/&ref=main: no branch, tag or commit "main" in the repository` {
		t.Errorf("a deleted branch: %v", err)
	}
	if got := read(t, branch, "alpha/SKILL.md"); got != string(skill("alpha", "Rewritten.")) {
		t.Errorf("after a failed refresh: %q", got)
	}
}

// TestPrivate: a token-protected repository is read with GIT_TOKEN, and
// refused with a clear error without it; the token is never shown.
func TestPrivate(t *testing.T) {
	s := gittest.NewServer(t)
	r := s.Repo(t, "private/team")
	r.Commit("main", map[string][]byte{"gamma/SKILL.md": skill("gamma", "Private.")})
	ctx := context.Background()
	t.Setenv("GIT_TOKEN", "")
	source := "git source " + r.URL + ": "
	needToken := source + "the repository needs credentials: set GIT_TOKEN to a token that can read it"
	_, err := open(t, r.URL, gitfs.Options{}).Snapshot(ctx)
	if err == nil || err.Error() != needToken {
		t.Errorf("without a token: %v", err)
	}
	wrong := open(t, r.URL, gitfs.Options{Token: "wrong-token"})
	if _, err := wrong.Snapshot(ctx); err == nil || err.Error() != source+"the repository needs credentials: the token was refused; check that it can read the repository" {
		t.Errorf("a wrong token: %v", err)
	}
	t.Setenv("GIT_TOKEN", gittest.Token)
	g := open(t, r.URL, gitfs.Options{})
	if got := read(t, g, "gamma/SKILL.md"); got != string(skill("gamma", "Private.")) {
		t.Errorf("with GIT_TOKEN: %q", got)
	}
	if g.Location() != r.URL {
		t.Errorf("location shows the token: %s", g.Location())
	}

	// The token goes only where credentials are asked for, and only to
	// the hosts GIT_TOKEN_HOSTS lists.
	pub := s.Repo(t, "public")
	pub.Commit("main", map[string][]byte{"p/SKILL.md": skill("p", "Public.")})
	p := open(t, pub.URL, gitfs.Options{})
	if got := read(t, p, "p/SKILL.md"); got != string(skill("p", "Public.")) || s.PublicAuth.Load() != 0 {
		t.Errorf("a public repository: %q, %d requests with credentials", got, s.PublicAuth.Load())
	}
	t.Setenv("GIT_TOKEN_HOSTS", "git.example.com")
	if _, err := open(t, r.URL, gitfs.Options{}).Snapshot(ctx); err == nil || err.Error() != needToken {
		t.Errorf("a host GIT_TOKEN_HOSTS does not list: %v", err)
	}
	if _, err := gitfs.Open("git+http://git.example.com/org/x.git", gitfs.Options{Token: "t"}); err == nil ||
		err.Error() != "git source git+http://git.example.com/org/x.git: a token is set, and would travel unencrypted over http:// to a host other than this machine; use git+https://" {
		t.Errorf("a token over plain http to another machine: %v", err)
	}
}

// TestBadSources: each bad source gets an error saying what is wrong.
func TestBadSources(t *testing.T) {
	s := gittest.NewServer(t)
	r := s.Repo(t, "plain")
	tip := r.Commit("main", map[string][]byte{"skills/a/SKILL.md": skill("a", "A."), "skills/a/big.bin": make([]byte, 3<<20)})
	huge := s.Repo(t, "huge") // small skills, and 6 MiB of incompressible data beside them
	noise := make([]byte, 6<<20)
	rand.NewChaCha8([32]byte{1}).Read(noise)
	huge.Commit("main", map[string][]byte{"skills/a/SKILL.md": skill("a", "A."), "data/noise.bin": noise})
	heads := s.Repo(t, "headers") // a commit whose headers go-git would take minutes to decode
	heads.Commit("main", map[string][]byte{"skills/a/SKILL.md": skill("a", "A.")})
	payload := heads.Raw("commit", heads.Git(heads.Work, "commit-tree", "HEAD^{tree}", "-m", "headers"))
	bigHeads := heads.Object("commit", gittest.WithSignature(payload, []byte(strings.Repeat("x\n", 1100))))
	heads.Push("main", bigHeads)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "git+http://" + l.Addr().String() + "/x.git"
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		url  string
		opts gitfs.Options
		want string
	}{
		{r.URL + "?ref=nope", gitfs.Options{}, `git source ` + r.URL + `?ref=nope: no branch, tag or commit "nope" in the repository`},
		{r.URL + "?path=missing/", gitfs.Options{}, `git source ` + r.URL + `?path=missing/: the repository has no folder "missing/" at ` + tip[:12]},
		{r.URL + "?path=%1B%5B31mred", gitfs.Options{}, `git source ` + r.URL + `?path=%1B%5B31mred/: the repository has no folder "\\x1b[31mred/" at ` + tip[:12]},
		{r.URL + "?path=skills", gitfs.Options{MaxBytes: 1 << 20}, `git source ` + r.URL + `?path=skills/: the files under "skills/" at ` + tip[:12] + `, their paths included, exceed the 1 MiB cap`},
		{huge.URL + "?path=skills", gitfs.Options{MaxBytes: 1 << 20}, "git source " + huge.URL + "?path=skills/: " + tooLarge},
		{heads.URL, gitfs.Options{}, "git source " + heads.URL + ": commit " + bigHeads[:12] + " is refused: its headers (signature, merged tags) are over 65536 bytes or 1024 lines, the limits; fix the repository"},
		{"git+" + s.URL + "/nothing.git", gitfs.Options{}, "git source git+" + s.URL + "/nothing.git: no repository at this URL"},
		{closed, gitfs.Options{}, "git source " + closed + `: cannot reach the repository: Get "` + l.Addr().String() +
			`/info/refs?service=git-upload-pack": dial tcp ` + l.Addr().String() + ": connect: connection refused"},
		{"git+" + s.URL + "/moved/plain.git", gitfs.Options{}, "git source git+" + s.URL + "/moved/plain.git: the server redirected to another host; refusing to follow it"},
	} {
		g, err := gitfs.Open(tc.url, tc.opts)
		if err == nil {
			_, err = g.Snapshot(ctx)
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v; want %q", tc.url, err, tc.want)
		}
	}
	for bad, want := range map[string]string{
		"git+ftp://x/y.git":                  "git source git+ftp://x/y.git: the URL must start with git+https://, git+ssh:// or git+http://",
		"git+https://user:pw@host/y.git":     "git source git+https://REDACTED@host/y.git: put no credentials in the URL; set GIT_TOKEN (GIT_SSH_KEY for ssh) instead",
		"git+https://host/y.git?branch=main": `git source git+https://host/y.git?branch=main: unknown parameter "branch"; use ref=, path= and verify=`,
		// verify= names a host path: errors never show it.
		"git+https://host/y.git?Verify=/secret/signers&branch=main": `git source git+https://host/y.git?branch=main: unknown parameter "branch"; use ref=, path= and verify=`,
		"git+https://host/%zz.git?verify=%2Fsecret%2Fsigners":       "git source (unparsable URL) is not a valid URL",
		"git+https://host/y.git?verify=&ref=v1":                     "git source git+https://host/y.git?ref=v1: verify= names no file; give the path of an allowed-signers file or an OpenPGP keyring",
	} {
		if _, err := gitfs.Open(bad, gitfs.Options{}); err == nil || err.Error() != want {
			t.Errorf("%s: %v; want %q", bad, err, want)
		}
	}
}

// TestServedWithCommit: a store over a git source serves its skills, the
// Skill tool and each skill name the commit, and a refresh moves them to
// the new commit.
func TestServedWithCommit(t *testing.T) {
	s := gittest.NewServer(t)
	r := s.Repo(t, "org/tools")
	first := r.Commit("main", map[string][]byte{"skills/weather/SKILL.md": skill("weather", "Forecasts.")})
	ctx := context.Background()
	src, err := backends.Open(ctx, r.URL+"?ref=main&path=skills/")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	st, err := store.New([]store.Source{src}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tl := tools.New(st, tools.Options{})
	got, err := tl.Call(ctx, "Skill", `{"skill_name": "weather"}`)
	want := "Skill: weather (Type: org)\nPath: " + r.URL + "?path=skills/weather/&ref=main (commit " + first[:12] + ")\n\n" + string(skill("weather", "Forecasts."))
	if err != nil || got != want {
		t.Errorf("Skill (%v):\n%s\nwant:\n%s", err, got, want)
	}
	second := r.Commit("main", map[string][]byte{"skills/weather/SKILL.md": skill("weather", "Better forecasts.")})
	if _, err := st.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	sk, err := st.View(nil).Skill(ctx, "weather")
	if err != nil || sk.Revision() != second || sk.Description != "Better forecasts." {
		t.Errorf("after a push: %v, %+v", err, sk)
	}
}

// TestCacheDir: with a cache folder the repository lives on disk, follows
// a branch through a push and a force-push, and a new Repo (a restart)
// serves from the same folder.
func TestCacheDir(t *testing.T) {
	s := gittest.NewServer(t)
	r := s.Repo(t, "cached")
	first := r.Commit("main", map[string][]byte{"skills/a/SKILL.md": skill("a", "First.")})
	cache := t.TempDir()
	ctx := context.Background()
	g := open(t, r.URL+"?path=skills/", gitfs.Options{CacheDir: cache})
	if got := read(t, g, "a/SKILL.md"); got != string(skill("a", "First.")) || g.Revision() != first {
		t.Fatalf("%q at %s", got, g.Revision())
	}
	second := r.Commit("main", map[string][]byte{"skills/a/SKILL.md": skill("a", "Second.")})
	if err := g.Refresh(ctx); err != nil || g.Revision() != second || read(t, g, "a/SKILL.md") != string(skill("a", "Second.")) {
		t.Errorf("after a push: %v at %s", err, g.Revision())
	}
	r.Git(r.Work, "reset", "--quiet", "--hard", first)
	forced := r.Commit("main", map[string][]byte{"skills/a/SKILL.md": skill("a", "Forced.")})
	if err := g.Refresh(ctx); err != nil || g.Revision() != forced || read(t, g, "a/SKILL.md") != string(skill("a", "Forced.")) {
		t.Errorf("after a force-push: %v at %s", err, g.Revision())
	}
	t.Setenv("SKILLSTORE_GIT_CACHE", cache)
	again := open(t, r.URL+"?path=skills/", gitfs.Options{})
	if got := read(t, again, "a/SKILL.md"); got != string(skill("a", "Forced.")) {
		t.Errorf("a restart on the cache: %q", got)
	}
	if ents, err := os.ReadDir(cache); err != nil || len(ents) != 1 {
		t.Errorf("cache folder: %v %v", ents, err)
	}
}

// TestOlderCommit: a commit that is no branch's or tag's tip is fetched
// with its history, and one the repository does not have is an error.
func TestOlderCommit(t *testing.T) {
	s := gittest.NewServer(t)
	r := s.Repo(t, "history")
	old := r.Commit("main", map[string][]byte{"a/SKILL.md": skill("a", "Old.")})
	r.Commit("main", map[string][]byte{"a/SKILL.md": skill("a", "New.")})
	g := open(t, r.URL+"?ref="+old, gitfs.Options{})
	if got := read(t, g, "a/SKILL.md"); got != string(skill("a", "Old.")) || g.Revision() != old {
		t.Errorf("an older commit: %q at %s", got, g.Revision())
	}
	lacking := strings.Repeat("ab", 20)
	missing := open(t, r.URL+"?ref="+lacking, gitfs.Options{})
	if _, err := missing.Snapshot(context.Background()); err == nil || err.Error() != "git source "+r.URL+"?ref="+lacking+": commit "+lacking+" is not in the repository" {
		t.Errorf("a commit the repository lacks: %v", err)
	}
}

// TestSSH: git+ssh:// against a real git-upload-pack behind an SSH server
// on 127.0.0.1, with a key from GIT_SSH_KEY and the host checked against
// SSH_KNOWN_HOSTS; an unknown host and a missing key are clear errors.
func TestSSH(t *testing.T) {
	s := gittest.NewServer(t)
	r := s.Repo(t, "org/ssh-skills")
	first := r.Commit("main", map[string][]byte{"skills/a/SKILL.md": skill("a", "Over SSH.")})
	srv := s.NewSSHServer(t)
	url := "git+ssh://git@" + srv.Addr + "/org/ssh-skills.git?path=skills/"
	ctx := context.Background()

	t.Setenv("SSH_AUTH_SOCK", "")
	t.Setenv("GIT_SSH_KEY", "")
	none := open(t, url, gitfs.Options{})
	if _, err := none.Snapshot(ctx); err == nil || err.Error() != "git source "+url+": git+ssh needs a key: set GIT_SSH_KEY to a private key file, or run an ssh-agent" {
		t.Errorf("without a key: %v", err)
	}
	t.Setenv("GIT_SSH_KEY", srv.KeyFile)
	t.Setenv("SSH_KNOWN_HOSTS", filepath.Join(t.TempDir(), "empty"))
	if err := os.WriteFile(os.Getenv("SSH_KNOWN_HOSTS"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	unknown := open(t, url, gitfs.Options{})
	if _, err := unknown.Snapshot(ctx); err == nil ||
		err.Error() != "git source "+url+": the server's SSH host key is not in SSH_KNOWN_HOSTS (else ~/.ssh/known_hosts), or does not match it; add it after checking it" {
		t.Errorf("an unknown host: %v", err)
	}
	t.Setenv("SSH_KNOWN_HOSTS", srv.KnownHosts)
	g, err := gitfs.Open(url, gitfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, g, "a/SKILL.md"); got != string(skill("a", "Over SSH.")) || g.Revision() != first {
		t.Errorf("over SSH: %q at %s", got, g.Revision())
	}
	second := r.Commit("main", map[string][]byte{"skills/a/SKILL.md": skill("a", "Pushed.")})
	if err := g.Refresh(ctx); err != nil || g.Revision() != second {
		t.Errorf("a refresh over SSH: %v at %s", err, g.Revision())
	}
	if _, err := gitfs.Open("git+ssh://git:pw@"+srv.Addr+"/x.git", gitfs.Options{}); err == nil {
		t.Error("a password in a git+ssh URL was accepted")
	}
}

// peakHeap runs f and returns how far the heap grew above where it
// started, sampled every millisecond while f runs.
func peakHeap(f func()) uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	base, peak := m.HeapAlloc, m.HeapAlloc
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	<-stopped
	return peak - base
}

// TestPackBomb: a repository of a few hundred KiB holding, outside path=,
// a 128 MiB blob of zeros is refused at the blob's header, before it is
// inflated, with the cap in the error: in memory and with a cache folder
// the heap stays within a few times the (here 4 MiB) cap on a clone's
// objects.
func TestPackBomb(t *testing.T) {
	s := gittest.NewServer(t)
	r := s.Repo(t, "bomb")
	const bomb = 128 << 20
	skillTree := r.Tree(gittest.Entry{Mode: "100644", Name: "SKILL.md", Hash: r.Object("blob", skill("a", "A."))})
	skills := r.Tree(gittest.Entry{Mode: "40000", Name: "a", Hash: skillTree})
	data := r.Tree(gittest.Entry{Mode: "100644", Name: "zeros.bin", Hash: r.ZeroBlob(bomb)})
	r.CommitTree("main", r.Tree(gittest.Entry{Mode: "40000", Name: "data", Hash: data}, gittest.Entry{Mode: "40000", Name: "skills", Hash: skills}))
	for _, mode := range []struct{ name, cache string }{{"memory", ""}, {"cache", t.TempDir()}} {
		g, err := gitfs.Open(r.URL+"?path=skills/", gitfs.Options{MaxBytes: 1 << 20, CacheDir: mode.cache})
		if err != nil {
			t.Fatal(err)
		}
		grew := peakHeap(func() { _, err = g.Snapshot(context.Background()) })
		t.Logf("%s: the heap grew by %d KiB at most; %v", mode.name, grew>>10, err)
		if err == nil || err.Error() != "git source "+r.URL+"?path=skills/: "+tooLarge {
			t.Errorf("%s: %v; want the clone refused with its cap", mode.name, err)
		}
		if grew > 32<<20 {
			t.Errorf("%s: the heap grew by %d MiB for a 4 MiB cap", mode.name, grew>>20)
		}
	}

	// Within the cap, a blob outside path= is held packed (3 MiB of zeros:
	// about 15 KiB), not inflated.
	small := s.Repo(t, "outside")
	small.Commit("main", map[string][]byte{"skills/a/SKILL.md": skill("a", "A."), "data/zeros.bin": make([]byte, 3<<20)})
	g := open(t, small.URL+"?path=skills/", gitfs.Options{MaxBytes: 1 << 20})
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	before := m.HeapAlloc
	snap, err := g.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.GC() // and the buffers pooled while indexing
	runtime.ReadMemStats(&m)
	held := int64(m.HeapAlloc) - int64(before)
	t.Logf("a clone with 3 MiB outside path= holds %d KiB", held>>10)
	if held > 1<<20 || read(t, snap, "a/SKILL.md") != string(skill("a", "A.")) {
		t.Errorf("a clone with 3 MiB of zeros outside path= holds %d KiB", held>>10)
	}
}

// TestUnsafeTrees: a commit whose tree under path= holds an entry named
// "..", two entries of one name (git fsck's duplicateEntries) or folders
// nested past the bound is refused as a whole, with an error that names
// the entry and that callers are shown (not "temporarily unavailable").
func TestUnsafeTrees(t *testing.T) {
	s := gittest.NewServer(t)
	r := s.Repo(t, "unsafe")
	doc, other := r.Object("blob", skill("a", "A.")), r.Object("blob", skill("a", "Other."))
	file := func(name, hash string) gittest.Entry { return gittest.Entry{Mode: "100644", Name: name, Hash: hash} }
	folder := func(name, hash string) gittest.Entry { return gittest.Entry{Mode: "40000", Name: name, Hash: hash} }
	under := func(skillTree string) string {
		return r.Tree(folder("skills", r.Tree(folder("a", skillTree))))
	}
	deep := r.Nest(1030, "d", file("SKILL.md", doc))
	for _, tc := range []struct {
		name, tree, want string
	}{
		{"dotdot", under(r.Tree(file("..", other), file("SKILL.md", doc))), `entry "skills/a/.." has a name git refuses to check out`},
		{"duplicate", under(r.Tree(file("SKILL.md", doc), file("SKILL.md", other))), `entry "skills/a/SKILL.md" appears twice (git fsck: duplicateEntries)`},
		{"deep", r.Tree(folder("skills", deep)), `"` + ("skills/" + strings.Repeat("d/", 1030))[:200] + `…" nests folders deeper than 1024`},
	} {
		commit := r.CommitTree(tc.name, tc.tree)
		g, err := gitfs.Open(r.URL+"?path=skills/&ref="+tc.name, gitfs.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = g.Snapshot(context.Background())
		// The log's error names the source; the one callers are shown
		// does not.
		reason := "commit " + commit[:12] + " is refused: unsafe tree: " + tc.want + "; fix the repository"
		if !errors.Is(err, gitfs.ErrUnsafeTree) || err.Error() != "git source "+r.URL+"?path=skills/&ref="+tc.name+": "+reason {
			t.Errorf("%s: %v; want it to say %q", tc.name, err, reason)
		}
		var pub store.PublicError
		if !errors.As(err, &pub) || pub.Public() != "the git source: "+reason {
			t.Errorf("%s: %v is not a public error saying %q", tc.name, err, reason)
		}
	}
}

// TestTokenScope: with GIT_TOKEN set and GIT_TOKEN_HOSTS unset, the token
// is for the one host of the git sources: a source on a second host (the
// same server reached as "localhost", whose private repository asks for
// credentials, as a community repository might) is refused when opened
// and never gets the token; listing both hosts lets both have it.
func TestTokenScope(t *testing.T) {
	s := gittest.NewServer(t)
	corp := s.Repo(t, "private/corp")
	corp.Commit("main", map[string][]byte{"a/SKILL.md": skill("a", "Corp.")})
	community := s.Repo(t, "private/community")
	community.Commit("main", map[string][]byte{"b/SKILL.md": skill("b", "Community.")})
	otherHost := strings.Replace(community.URL, "127.0.0.1", "localhost", 1)
	gitfs.ForgetTokenHost()
	t.Cleanup(gitfs.ForgetTokenHost)
	t.Setenv("GIT_TOKEN", gittest.Token)
	t.Setenv("GIT_TOKEN_HOSTS", "")
	g, err := gitfs.Open(corp.URL, gitfs.Options{})
	if err != nil || read(t, g, "a/SKILL.md") != string(skill("a", "Corp.")) {
		t.Fatalf("the token's host: %v", err)
	}
	before := s.Requests.Load()
	if g, err = gitfs.Open(otherHost, gitfs.Options{}); err == nil {
		_, err = g.Snapshot(context.Background())
	}
	if !errors.Is(err, gitfs.ErrTokenHosts) || err.Error() != "git source "+otherHost+": GIT_TOKEN needs GIT_TOKEN_HOSTS: GIT_TOKEN is set, GIT_TOKEN_HOSTS is not, "+
		"and git sources are on 127.0.0.1 and on localhost; set GIT_TOKEN_HOSTS to the host(s) the token is for" {
		t.Errorf("a second host without GIT_TOKEN_HOSTS: %v", err)
	}
	if n := s.Requests.Load() - before; n != 0 {
		t.Errorf("the second host was asked %d times", n)
	}
	t.Setenv("GIT_TOKEN_HOSTS", "127.0.0.1, localhost")
	if g, err = gitfs.Open(otherHost, gitfs.Options{}); err != nil || read(t, g, "b/SKILL.md") != string(skill("b", "Community.")) {
		t.Errorf("a host GIT_TOKEN_HOSTS lists: %v", err)
	}
}

// trickle passes on a response body one byte per interval until the
// request ends, then reports it on ended.
type trickle struct {
	body     io.ReadCloser
	interval time.Duration
	done     <-chan struct{}
	ended    chan<- struct{}
}

func (t *trickle) Read(p []byte) (int, error) {
	select {
	case <-t.done:
		return 0, context.Canceled
	case <-time.After(t.interval):
	}
	return t.body.Read(p[:1])
}

func (t *trickle) Close() error {
	select {
	case t.ended <- struct{}{}:
	default:
	}
	return t.body.Close()
}

// TestTricklingFetch: a git server that trickles its fetch (the
// git-upload-pack answer, a byte every 100 ms) is cut off by the fetch's
// pace within seconds, with an error that says so, rather than holding
// the fetch for its whole 10-minute limit. (Before the pace it held it
// until the caller's deadline.)
func TestTricklingFetch(t *testing.T) {
	s := gittest.NewServer(t)
	r := s.Repo(t, "slow")
	r.Commit("main", map[string][]byte{"skills/a/SKILL.md": skill("a", "A."), "skills/a/data.bin": make([]byte, 64<<10)})
	target, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{}, 1)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	proxy.ModifyResponse = func(res *http.Response) error {
		if strings.HasSuffix(res.Request.URL.Path, "/git-upload-pack") {
			res.Body = &trickle{body: res.Body, interval: 100 * time.Millisecond, done: res.Request.Context().Done(), ended: ended}
		}
		return nil
	}
	ts := httptest.NewServer(proxy)
	defer ts.Close()
	g, err := gitfs.Open(strings.Replace(r.URL, s.URL, ts.URL, 1)+"?path=skills", gitfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gitfs.SetPace(g, 300*time.Millisecond, 4<<10)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // generous: the pace cuts it after about 300 ms
	defer cancel()
	_, err = g.Snapshot(ctx)
	var pub interface{ Public() string }
	if err == nil || !errors.As(err, &pub) {
		t.Fatalf("a trickling fetch: %v", err)
	}
	// Exact but for the bytes that arrived, which depend on timing.
	tooSlow := regexp.MustCompile(`^the git source: the repository's server sent the fetch too slowly \([0-9]+ bytes; a download must start within 300ms and then keep up 4 KiB/s\)$`)
	if !tooSlow.MatchString(pub.Public()) {
		t.Errorf("the error does not name the pace: %q", pub.Public())
	}
	if ctx.Err() != nil {
		t.Errorf("cut off by the test's deadline, not by the pace: %v", err)
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Error("the trickling response was not cut off")
	}
}

// TestTreeBombs: a tree's objects may be listed many times over (a
// folder of 50 entries naming one folder of 50 entries, and so on: a few
// hundred bytes of objects), and folders may nest with long names, so
// that its paths alone outgrow the cap; what indexing a commit holds and
// takes is bounded all the same: at most backends.DefaultMaxArchiveEntries
// files and folders are indexed (links and submodules visited count),
// and the folders' paths count against the cap on the files under
// path=, as empty files cost nothing else. Each is refused, saying why.
func TestTreeBombs(t *testing.T) {
	s := gittest.NewServer(t)
	r := s.Repo(t, "bombs")
	doc := r.Object("blob", skill("a", "A."))
	empty := r.Object("blob", nil)
	file := func(name, hash string) gittest.Entry { return gittest.Entry{Mode: "100644", Name: name, Hash: hash} }
	folder := func(name, hash string) gittest.Entry { return gittest.Entry{Mode: "40000", Name: name, Hash: hash} }
	fanOut := func(inner gittest.Entry) string { // 50 entries of one object
		var es []gittest.Entry
		for i := range 50 {
			e := inner
			e.Name = fmt.Sprintf("%s%02d", inner.Name, i)
			es = append(es, e)
		}
		return r.Tree(es...)
	}
	withSkill := func(tree string) string {
		return r.Tree(folder("a", r.Tree(file("SKILL.md", doc))), folder("b", tree))
	}
	files := fanOut(folder("d", fanOut(folder("d", fanOut(file("f", empty)))))) // 125,000 empty files
	links := fanOut(folder("d", fanOut(folder("d", fanOut(gittest.Entry{Mode: "120000", Name: "l", Hash: doc})))))
	long := r.Nest(200, strings.Repeat("n", 200), file("SKILL.md", doc)) // 200 folders deep: 4 MB of paths
	for _, tc := range []struct {
		name, tree, want string
	}{
		{"fan-out-files", withSkill(files), `the files and folders under "skills/" at %s are over 100000, the limit`},
		{"fan-out-links", withSkill(links), `the files and folders under "skills/" at %s are over 100000, the limit`},
		{"long-paths", withSkill(long), `the files under "skills/" at %s, their paths included, exceed the 1 MiB cap`},
	} {
		commit := r.CommitTree(tc.name, r.Tree(folder("skills", tc.tree)))
		g := open(t, r.URL+"?path=skills/&ref="+tc.name, gitfs.Options{MaxBytes: 1 << 20})
		_, err := g.Snapshot(context.Background())
		want := fmt.Sprintf(tc.want, commit[:12])
		var pub store.PublicError
		if err == nil || !strings.HasSuffix(err.Error(), want) || !errors.As(err, &pub) || pub.Public() == "" {
			t.Errorf("%s: %v; want a public error ending %q", tc.name, err, want)
		}
	}
}
