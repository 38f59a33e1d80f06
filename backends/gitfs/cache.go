package gitfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// lockName is the file in a repository's cache folder that processes
// lock (flock) while they fetch into it; it holds the holder's PID.
const lockName = "skillstore.lock"

// lockPoll is how often a process waiting for a cache folder retries.
const lockPoll = 50 * time.Millisecond

var folderLocks sync.Map // cache folder → chan struct{} (capacity 1)

// openCache makes sure the cache folder parent and the repository's
// folder dir within it are this user's alone, creating dir exclusively
// (mode 0700) if it is new, then locks dir against this process's other
// sources and against other processes (flock on lockName), waiting as
// long as ctx allows. It refuses, as git's safe.directory does, a folder
// that is not a folder, is another user's or is writable by others
// (another local user could plant objects in it); and when ctx ends
// first, it says which process holds the folder.
func openCache(ctx context.Context, parent, dir string) (unlock func(), err error) {
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return nil, fmt.Errorf("the cache folder cannot be created: %w", unwrapPath(err))
	}
	if err := ownedDir(parent, false); err != nil {
		return nil, fmt.Errorf("the cache folder %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("the repository's cache folder cannot be created: %w", unwrapPath(err))
	}
	if err := ownedDir(dir, true); err != nil {
		return nil, fmt.Errorf("the repository's cache folder %s %w", filepath.Base(dir), err)
	}

	m, _ := folderLocks.LoadOrStore(dir, make(chan struct{}, 1))
	mine := m.(chan struct{})
	select {
	case mine <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("the repository's cache folder is in use by this process's other fetch: %w", ctx.Err())
	}
	release := func() { <-mine }
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		release()
		return nil, fmt.Errorf("the repository's cache folder cannot be locked: %w", unwrapPath(err))
	}
	for {
		err := lockFile(f)
		if err == nil {
			break
		}
		if !errors.Is(err, errLocked) {
			f.Close()
			release()
			return nil, fmt.Errorf("the repository's cache folder cannot be locked: %w", err)
		}
		select {
		case <-ctx.Done():
			holder := "another process"
			if b, err := os.ReadFile(f.Name()); err == nil {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
					holder = "PID " + strconv.Itoa(pid)
				}
			}
			f.Close()
			release()
			return nil, fmt.Errorf("the repository's cache folder is in use by %s; waited until %w", holder, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() {
		f.Truncate(0)
		unlockFile(f)
		f.Close()
		release()
	}, nil
}

// unwrapPath drops an *fs.PathError's path, which names a folder of this
// machine.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
