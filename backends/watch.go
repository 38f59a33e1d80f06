package backends

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// MaxWatchedFolders bounds how many skill folders Watch subscribes to; a
// larger tree is left to periodic rescans (inotify watches are a limited
// per-user resource).
const MaxWatchedFolders = 2000

// ErrTooManyToWatch reports a tree larger than MaxWatchedFolders.
var ErrTooManyToWatch = errors.New("too many folders to watch; relying on periodic rescans")

// watchDebounce gathers a burst of changes (an editor's save, a git
// checkout) into one signal.
const watchDebounce = 150 * time.Millisecond

// Watch reports changes to the directory's skills: a folder added or
// removed at the top level, or a file created, written, renamed or removed
// directly inside a skill folder (where SKILL.md lives). Deeper files are
// not watched; their cached content is revalidated by version on read.
// Each burst of changes sends one value on the returned channel, which is
// closed when ctx ends. Watch fails with ErrTooManyToWatch for trees over
// MaxWatchedFolders folders.
func (l *LocalFS) Watch(ctx context.Context) (<-chan struct{}, error) {
	dir := l.root.Name()
	ents, err := fs.ReadDir(l, ".")
	if err != nil {
		return nil, err
	}
	if len(ents) > MaxWatchedFolders {
		return nil, ErrTooManyToWatch
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	// A folder that cannot be watched (gone already, out of watches) is
	// still caught by the periodic rescan.
	watch := func(p string) { _ = w.Add(p) }
	watch(dir)
	for _, e := range ents {
		if e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			if fi, err := l.Stat(e.Name()); err == nil && fi.IsDir() {
				watch(filepath.Join(dir, e.Name()))
			}
		}
	}
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		defer w.Close()
		var pending <-chan time.Time
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				// A new top-level folder is a new skill: watch it too.
				if ev.Has(fsnotify.Create) && filepath.Dir(ev.Name) == filepath.Clean(dir) {
					watch(ev.Name)
				}
				if pending == nil {
					pending = time.After(watchDebounce)
				}
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
				// Overflow or a vanished folder: signal, so a rescan catches up.
				if pending == nil {
					pending = time.After(watchDebounce)
				}
			case <-pending:
				pending = nil
				select {
				case out <- struct{}{}:
				default: // a signal is already waiting
				}
			}
		}
	}()
	return out, nil
}
