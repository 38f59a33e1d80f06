//go:build unix

package gitfs_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if _, err := g.Snapshot(ctx); err == nil || !strings.Contains(err.Error(), "in use by PID "+strconv.Itoa(os.Getpid())) {
		t.Errorf("a held cache folder: %v", err)
	}
	fd, released := int(lock.Fd()), make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(300 * time.Millisecond)
		syscall.Flock(fd, syscall.LOCK_UN)
	}()
	if got := read(t, g, "a/SKILL.md"); !strings.Contains(got, "A.") {
		t.Errorf("after the lock is let go: %q", got)
	}
	<-released
}
