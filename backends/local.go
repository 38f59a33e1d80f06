package backends

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"syscall"

	"github.com/skillstore/skillstore/store"
)

// LocalFS is a directory on local disk, confined with os.Root: names with
// "..", absolute names and symbolic links that leave the directory fail
// with an error wrapping store.ErrPathEscapes, while links that stay
// inside it work. Sub returns a folder confined the same way, so a link from one
// skill's folder into a sibling's fails as well.
//
// Only directories and regular files are opened: a FIFO, device or socket
// (or a link to one) is opened without blocking and refused as if absent
// (ErrNotRegular, which wraps fs.ErrNotExist), since reading a FIFO would
// hang its caller.
//
// LocalFS holds an open directory; Close releases it. Its methods are safe
// for concurrent use.
type LocalFS struct {
	root *os.Root
	fsys fs.FS
}

var (
	_ fs.StatFS     = (*LocalFS)(nil)
	_ fs.ReadDirFS  = (*LocalFS)(nil)
	_ fs.ReadFileFS = (*LocalFS)(nil)
	_ fs.SubFS      = (*LocalFS)(nil)
	_ io.Closer     = (*LocalFS)(nil)

	_ store.Watcher = (*LocalFS)(nil)
)

// OpenLocal opens dir. It fails if dir does not exist or is not a directory.
func OpenLocal(dir string) (*LocalFS, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &LocalFS{root: root, fsys: root.FS()}, nil
}

// ErrNotRegular is the error of opening a special file (FIFO, device,
// socket): such files are never read. It wraps fs.ErrNotExist.
var ErrNotRegular = fmt.Errorf("not a regular file: %w", fs.ErrNotExist)

// Open opens the named file or directory for reading; see ErrNotRegular.
func (l *LocalFS) Open(name string) (fs.File, error) { return openRegular(l.root, name) }

// openRegular opens name in root without blocking (O_NONBLOCK: opening a
// FIFO for reading would otherwise wait for a writer) and keeps it only if
// it is a directory or a regular file.
func openRegular(root *os.Root, name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, escaped(err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	return f, nil
}

// Stat describes the named file, following links that stay inside the root.
func (l *LocalFS) Stat(name string) (fs.FileInfo, error) {
	fi, err := fs.Stat(l.fsys, name)
	return fi, escaped(err)
}

// ReadDir lists the named directory, sorted by name.
func (l *LocalFS) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, err := fs.ReadDir(l.fsys, name)
	return ents, escaped(err)
}

// ReadFile reads the named regular file.
func (l *LocalFS) ReadFile(name string) ([]byte, error) { return readRegular(l.root, name) }

func readRegular(root *os.Root, name string) ([]byte, error) {
	f, err := openRegular(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, _ := f.Stat(); fi != nil && fi.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	return io.ReadAll(f)
}

// Sub returns dir as a filesystem confined to dir itself, not just to l.
func (l *LocalFS) Sub(dir string) (fs.FS, error) {
	if !fs.ValidPath(dir) {
		return nil, &fs.PathError{Op: "sub", Path: dir, Err: fs.ErrInvalid}
	}
	if dir == "." {
		return l, nil
	}
	return &subRoot{parent: l.root, dirs: []string{dir}}, nil
}

// Close releases the directory.
func (l *LocalFS) Close() error { return l.root.Close() }

// subRoot is a folder of a root, confined to itself: each operation opens
// the folder as an os.Root of its own, so nothing can leave it. A Sub of
// a subRoot is opened from within it (dirs, each from the one before), so
// it stays inside every folder it was taken from: a link from inside a
// plugin's skill folder to elsewhere in the source leaves the plugin, and
// fails, even though it stays in the source.
type subRoot struct {
	parent *os.Root
	dirs   []string
}

var (
	_ fs.StatFS     = (*subRoot)(nil)
	_ fs.ReadDirFS  = (*subRoot)(nil)
	_ fs.ReadFileFS = (*subRoot)(nil)
	_ fs.SubFS      = (*subRoot)(nil)
)

// with runs op on the folder opened as a root of its own (an open file
// outlives the root); errors name paths relative to the parent root,
// never host paths.
func (s *subRoot) with(op, name string, f func(*os.Root) error) error {
	if !fs.ValidPath(name) {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	r, err := s.parent.OpenRoot(s.dirs[0])
	for _, d := range s.dirs[1:] {
		if err != nil {
			break
		}
		var next *os.Root
		next, err = r.OpenRoot(d)
		r.Close()
		r = next
	}
	if err != nil {
		return s.openError(op, err)
	}
	defer r.Close()
	return escaped(f(r))
}

// openError is the error of opening the folder itself: os.Root says a
// folder that is a file with an error it does not export, naming the host
// path; here it wraps syscall.ENOTDIR and names the folder as s's parent
// sees it.
func (s *subRoot) openError(op string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "not a directory" {
		return &fs.PathError{Op: op, Path: path.Join(s.dirs...), Err: syscall.ENOTDIR}
	}
	return escaped(err)
}

// escaped rewrites two of os.Root's refusals as errors callers test with
// errors.Is: a path that leaves the root — an error the os package does
// not export, recognized here by its text, next to the only code that can
// meet it — as a *fs.PathError wrapping store.ErrPathEscapes, and a name
// too long for the disk (ENAMETOOLONG, which os.Root also gives for a path
// that takes too many steps) as one wrapping errNameTooLong, a file that
// does not exist, so a caller asking for one is told "not found" rather
// than that the disk failed.
func escaped(err error) error {
	var pe *fs.PathError
	switch {
	case !errors.As(err, &pe) || pe.Err == nil:
	case pe.Err.Error() == "path escapes from parent":
		return &fs.PathError{Op: pe.Op, Path: pe.Path, Err: store.ErrPathEscapes}
	case errors.Is(pe.Err, syscall.ENAMETOOLONG):
		return &fs.PathError{Op: pe.Op, Path: pe.Path, Err: errNameTooLong}
	}
	return err
}

// errNameTooLong is the error of a name longer than the disk allows: no
// file has it. It matches both syscall.ENAMETOOLONG and fs.ErrNotExist.
var errNameTooLong = fmt.Errorf("%w: %w", syscall.ENAMETOOLONG, fs.ErrNotExist)

func (s *subRoot) Open(name string) (f fs.File, err error) {
	err = s.with("open", name, func(r *os.Root) error { f, err = openRegular(r, name); return err })
	return f, err
}

func (s *subRoot) Stat(name string) (fi fs.FileInfo, err error) {
	err = s.with("stat", name, func(r *os.Root) error { fi, err = fs.Stat(r.FS(), name); return err })
	return fi, err
}

func (s *subRoot) ReadDir(name string) (d []fs.DirEntry, err error) {
	err = s.with("readdir", name, func(r *os.Root) error { d, err = fs.ReadDir(r.FS(), name); return err })
	return d, err
}

func (s *subRoot) ReadFile(name string) (b []byte, err error) {
	err = s.with("read", name, func(r *os.Root) error { b, err = readRegular(r, name); return err })
	return b, err
}

func (s *subRoot) Sub(dir string) (fs.FS, error) {
	if !fs.ValidPath(dir) {
		return nil, &fs.PathError{Op: "sub", Path: dir, Err: fs.ErrInvalid}
	}
	if dir == "." {
		return s, nil
	}
	return &subRoot{parent: s.parent, dirs: append(slices.Clip(s.dirs), dir)}, nil
}
