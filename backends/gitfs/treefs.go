package gitfs

import (
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// treeFS is one commit's tree (or a folder of it) as an fs.FS. It is
// immutable. Symbolic links and submodules are left out: a link's target
// is not in the tree's control, and a submodule's content is not in the
// repository.
type treeFS struct {
	tree   *object.Tree
	commit string    // the commit's hash
	when   time.Time // the commit's time, every file's modification time
}

// Revision returns the commit the files come from.
func (t *treeFS) Revision() string { return t.commit }

func (t *treeFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return &treeDir{fs: t, tree: t.tree, name: "."}, nil
	}
	e, err := t.tree.FindEntry(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	switch {
	case e.Mode == filemode.Dir:
		sub, err := t.tree.Tree(name)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &treeDir{fs: t, tree: sub, name: name}, nil
	case e.Mode.IsFile() && e.Mode != filemode.Symlink:
		f, err := t.tree.TreeEntryFile(e)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		r, err := f.Reader()
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &treeFile{ReadCloser: r, info: t.info(path.Base(name), e.Mode, f.Size)}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// ReadDir lists a folder, sorted by name, without links and submodules.
func (t *treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := t.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, ok := f.(*treeDir)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	return d.ReadDir(-1)
}

func (t *treeFS) info(name string, mode filemode.FileMode, size int64) fileInfo {
	return fileInfo{name: name, mode: mode, size: size, when: t.when}
}

type treeFile struct {
	io.ReadCloser
	info fileInfo
}

func (f *treeFile) Stat() (fs.FileInfo, error) { return f.info, nil }

type treeDir struct {
	fs      *treeFS
	tree    *object.Tree
	name    string
	entries []fs.DirEntry // nil until listed
	off     int
}

func (d *treeDir) Stat() (fs.FileInfo, error) {
	return d.fs.info(path.Base(d.name), filemode.Dir, 0), nil
}
func (d *treeDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: fs.ErrInvalid}
}
func (d *treeDir) Close() error { return nil }

func (d *treeDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if d.entries == nil {
		d.entries = []fs.DirEntry{}
		for _, e := range d.tree.Entries {
			var size int64
			switch {
			case e.Mode == filemode.Dir:
			case e.Mode.IsFile() && e.Mode != filemode.Symlink:
				size, _ = d.tree.Size(e.Name)
			default:
				continue // a link or a submodule
			}
			d.entries = append(d.entries, fs.FileInfoToDirEntry(d.fs.info(e.Name, e.Mode, size)))
		}
		slices.SortFunc(d.entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
	rest := d.entries[d.off:]
	if n <= 0 {
		d.off = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(n, len(rest))]
	d.off += len(rest)
	return rest, nil
}

type fileInfo struct {
	name string
	mode filemode.FileMode
	size int64
	when time.Time
}

func (i fileInfo) Name() string { return i.name }
func (i fileInfo) Size() int64  { return i.size }
func (i fileInfo) Mode() fs.FileMode {
	switch i.mode {
	case filemode.Dir:
		return fs.ModeDir | 0o555
	case filemode.Executable:
		return 0o555
	}
	return 0o444
}
func (i fileInfo) ModTime() time.Time { return i.when }
func (i fileInfo) IsDir() bool        { return i.mode == filemode.Dir }
func (i fileInfo) Sys() any           { return nil }
