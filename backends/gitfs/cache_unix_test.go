//go:build unix

package gitfs_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/skillstore/skillstore/backends/gitfs"
	"github.com/skillstore/skillstore/internal/gittest"
)

// TestCacheLocked: a repository's cache folder another process is
// fetching into (its lock file held, its PID inside) is waited for; when
// the wait ends first the error names the PID, and once the lock is let go
// the fetch goes ahead.
func TestCacheLocked(t *testing.T) {
	s := gittest.NewServer(t)
	r := s.Repo(t, "locked")
	r.Commit("main", map[string][]byte{"a/SKILL.md": skill("a", "A.")})
	g, err := gitfs.Open(r.URL, gitfs.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	dir := gitfs.CacheFolder(g)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "skillstore.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	lock.WriteString(strconv.Itoa(os.Getpid()) + "\n")

	// The deadline ends the wait for the lock; it must outlast listing the
	// remote's refs on a loaded machine (500 ms did not, at load 11).
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if _, err := g.Snapshot(ctx); err == nil || err.Error() != "git source "+r.URL+": the repository's cache folder is in use by PID "+strconv.Itoa(os.Getpid())+"; waited until context deadline exceeded" {
		t.Errorf("a held cache folder: %v", err)
	}
	fd, released := int(lock.Fd()), make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(300 * time.Millisecond) // real time: the read must be waiting on the OS's flock (and a real git server) when it goes
		syscall.Flock(fd, syscall.LOCK_UN)
	}()
	if got := read(t, g, "a/SKILL.md"); got != string(skill("a", "A.")) {
		t.Errorf("after the lock is let go: %q", got)
	}
	<-released
}

// TestCachePoisoned: a cache folder, or the repository's folder in it,
// that is writable by others, another user's or a link is refused before
// it is read; and in one's own folder, a commit stored under the real
// commit's hash but forged (with its own, valid, tree and file) is
// refused, not served as the real commit.
func TestCachePoisoned(t *testing.T) {
	s := gittest.NewServer(t)
	r := s.Repo(t, "poisoned")
	real := r.Commit("main", map[string][]byte{"a/SKILL.md": skill("a", "Real.")})
	blob := r.Object("blob", skill("a", "Forged."))
	inner := r.Tree(gittest.Entry{Mode: "100644", Name: "SKILL.md", Hash: blob})
	tree := r.Tree(gittest.Entry{Mode: "40000", Name: "a", Hash: inner})
	forged := r.CommitTree("forged", tree)
	open := func(cache string) (*gitfs.Repo, error) {
		g, err := gitfs.Open(r.URL+"?ref=main", gitfs.Options{CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		_, err = g.Snapshot(context.Background())
		return g, err
	}

	source := "git source " + r.URL + "?ref=main: "
	cache := t.TempDir()
	if err := os.Chmod(cache, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := open(cache); err == nil || err.Error() != source+"the cache folder is writable by other users; run chmod go-w on it, or use a folder of your own" {
		t.Errorf("a cache folder others can write: %v", err)
	}
	if err := os.Chmod(cache, 0o700); err != nil {
		t.Fatal(err)
	}
	g, err := open(cache)
	if err != nil || read(t, g, "a/SKILL.md") != string(skill("a", "Real.")) {
		t.Fatalf("the real commit: %v", err)
	}
	dir := gitfs.CacheFolder(g)
	folder := filepath.Base(dir)

	// Plant the forgery as loose objects, the commit under the real hash.
	loose := func(h string) string { return filepath.Join("objects", h[:2], h[2:]) }
	for from, to := range map[string]string{forged: real, tree: tree, inner: inner, blob: blob} {
		data, err := os.ReadFile(filepath.Join(r.Work, ".git", loose(from)))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, loose(to))), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, loose(to)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	forgery := source + "commit " + real[:12] + " or its tree in the cache folder " + folder + " does not match its hash (damaged or forged); delete that folder"
	if g, err := open(cache); err == nil || err.Error() != forgery {
		got, rerr := fs.ReadFile(g, "a/SKILL.md")
		t.Errorf("a forged commit under the real hash: %v, serving %q (%v)", err, got, rerr)
	}

	// Another user's folder, a link, a folder others can write.
	if os.Getuid() == 0 {
		if err := os.Chown(dir, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		if _, err := open(cache); err == nil || err.Error() != source+"the repository's cache folder "+folder+" belongs to another user; use a folder of your own (--git-cache)" {
			t.Errorf("another user's folder: %v", err)
		}
		if err := os.Chown(dir, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := open(cache); err == nil || err.Error() != source+"the repository's cache folder "+folder+" is writable by other users; run chmod go-w on it, or use a folder of your own" {
		t.Errorf("a repository folder others can write: %v", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), dir); err != nil {
		t.Fatal(err)
	}
	if _, err := open(cache); err == nil || err.Error() != source+"the repository's cache folder "+folder+" is not a folder (a link or a file is there); remove it" {
		t.Errorf("a link in place of the repository's folder: %v", err)
	}
}
