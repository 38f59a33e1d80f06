//go:build unix

package gitfs

import (
	"errors"
	"os"
	"syscall"
)

const noFollow = syscall.O_NOFOLLOW

var errLocked = errors.New("locked")

// lockFile takes f's exclusive flock without waiting: errLocked if another
// open file holds it.
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// ownedDir refuses dir (with the reason, worded to follow "the cache
// folder") unless it is a folder owned by this user that neither its
// group nor others may write. With noLink, a symbolic link is refused
// too, rather than followed.
func ownedDir(dir string, noLink bool) error {
	stat := os.Stat
	if noLink {
		stat = os.Lstat
	}
	fi, err := stat(dir)
	if err != nil {
		return errors.New("cannot be read")
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return errors.New("is not a folder (a link or a file is there); remove it")
	case !ok || int(st.Uid) != os.Getuid():
		return errors.New("belongs to another user; use a folder of your own (--git-cache)")
	case fi.Mode().Perm()&0o022 != 0:
		return errors.New("is writable by other users; run chmod go-w on it, or use a folder of your own")
	}
	return nil
}
