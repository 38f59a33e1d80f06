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
	isDir := func(rel string) bool { fi, err := l.Stat(rel); return err == nil && fi.IsDir() }
	// pluginFolders lists the folders of the plugin in folder rel that are
	// watched (its skills folder and each skill folder), if it is one.
	pluginFolders := func(rel string) []string {
		skills := path.Join(rel, "skills")
		if _, err := l.Stat(path.Join(rel, "plugin.json")); err != nil || !isDir(skills) {
			return nil
		}
		out := []string{skills}
		sk, _ := fs.ReadDir(l, skills)
		for _, e := range sk {
			if isDir(path.Join(skills, e.Name())) {
				out = append(out, path.Join(skills, e.Name()))
			}
		}
		return out
	}
	ents, err := fs.ReadDir(l, ".")
	if err != nil {
		return nil, err
	}
	if len(ents) > MaxWatchedFolders {
		return nil, ErrTooManyToWatch
	}
	folders := append([]string{"."}, pluginFolders(".")...)
	for _, e := range ents {
		if (e.IsDir() || e.Type()&fs.ModeSymlink != 0) && isDir(e.Name()) {
			folders = append(folders, e.Name())
			folders = append(folders, pluginFolders(e.Name())...)
		}
		if len(folders) > MaxWatchedFolders {
			return nil, ErrTooManyToWatch
		}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	// A folder that cannot be watched (gone already, out of watches, or
	// past MaxWatchedFolders when added later) is still caught by the
	// periodic rescan. Only this goroutine, then the loop's, uses watched.
	watched := map[string]bool{}
	watch := func(rel string) {
		if !watched[rel] && len(watched) < MaxWatchedFolders && isDir(rel) && w.Add(filepath.Join(dir, filepath.FromSlash(rel))) == nil {
			watched[rel] = true
		}
	}
	watchPlugin := func(rel string) {
		for _, f := range pluginFolders(rel) {
			watch(f)
		}
	}
	for _, f := range folders {
		watch(f)
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
				switch rel, err := filepath.Rel(dir, ev.Name); {
				case err != nil:
				case ev.Has(fsnotify.Create):
					watchNew(filepath.ToSlash(rel), watch, watchPlugin)
				case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
					delete(watched, filepath.ToSlash(rel)) // the watcher dropped it
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

// watchNew watches what a Create event of rel (a path from the root)
// brings that Watch watches: a top-level folder (a new skill, or a new
// plugin), a plugin's skills folder and what it holds already, a skill
// folder of a plugin, and the skills of a folder that has just become a
// plugin (its plugin.json created). watch checks that what it is given is
// a folder.
func watchNew(rel string, watch, watchPlugin func(rel string)) {
	segs := strings.Split(rel, "/")
	switch {
	case segs[len(segs)-1] == "plugin.json" && len(segs) <= 2:
		watchPlugin(path.Dir(rel))
	case len(segs) == 1: // a folder of the root: a skill, or a plugin
		watch(rel)
		watchPlugin(rel)
	case len(segs) == 2 || len(segs) == 3 && segs[1] == "skills":
		if segs[0] == "skills" && len(segs) == 2 {
			watch(rel) // a skill of the root's plugin
		}
		if segs[1] == "skills" {
			if len(segs) == 2 {
				watchPlugin(segs[0]) // a plugin's skills folder, and what it holds already
			} else {
				watch(rel) // a plugin's skill
			}
		}
	}
}
