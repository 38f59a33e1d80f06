package backends

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
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
// directly inside a skill folder (where SKILL.md lives), and the same for
// the skills of Agent Plugins (Plugins): a plugin's skills folder and each
// skill folder in it, whether the plugin is the directory itself or one of
// its folders. Deeper files are not watched; their cached content is
// revalidated by version on read.
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
	watched := 0
	watch := func(rel string) {
		if watched < MaxWatchedFolders {
			watched++
			_ = w.Add(filepath.Join(dir, filepath.FromSlash(rel)))
		}
	}
	isDir := func(rel string) bool { fi, err := l.Stat(rel); return err == nil && fi.IsDir() }
	// watchPlugin watches the skills of the plugin in folder rel, if it
	// is one.
	watchPlugin := func(rel string) {
		skills := path.Join(rel, "skills")
		if _, err := l.Stat(path.Join(rel, "plugin.json")); err != nil || !isDir(skills) {
			return
		}
		watch(skills)
		sk, _ := fs.ReadDir(l, skills)
		for _, e := range sk {
			if isDir(path.Join(skills, e.Name())) {
				watch(path.Join(skills, e.Name()))
			}
		}
	}
	watch(".")
	watchPlugin(".")
	for _, e := range ents {
		if (e.IsDir() || e.Type()&fs.ModeSymlink != 0) && isDir(e.Name()) {
			watch(e.Name())
			watchPlugin(e.Name())
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
				if ev.Has(fsnotify.Create) {
					watchNew(ev.Name, dir, watch, watchPlugin)
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

// watchNew watches what a Create event in root dir brings that Watch
// watches: a top-level folder (a new skill, or a new plugin), a plugin's
// skills folder or a skill folder in it, and the skills of a folder that
// has just become a plugin (its plugin.json created).
func watchNew(name, dir string, watch, watchPlugin func(rel string)) {
	rel, err := filepath.Rel(dir, name)
	if err != nil {
		return
	}
	segs := strings.Split(filepath.ToSlash(rel), "/")
	switch {
	case segs[len(segs)-1] == "plugin.json" && len(segs) <= 2:
		watchPlugin(path.Dir(filepath.ToSlash(rel)))
	case len(segs) == 1: // a folder of the root: a skill, or a plugin
		watch(segs[0]) // a file is refused by the watcher: harmless
		watchPlugin(segs[0])
	case len(segs) == 2 && segs[1] == "skills": // a plugin's skills folder, and what it holds already
		watchPlugin(segs[0])
	case len(segs) == 2 && segs[0] == "skills", // a root plugin's skill
		len(segs) == 3 && segs[1] == "skills": // a plugin's skill
		watch(filepath.ToSlash(rel))
	}
}
