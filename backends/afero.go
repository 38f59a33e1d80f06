package backends

import (
	"errors"
	"io"
	"io/fs"
	"syscall"

	"github.com/spf13/afero"
)

// NewAfero presents any afero.Fs (in-memory, sftp, …) as a read-only fs.FS.
//
// Security: confinement is only as strong as the afero.Fs given. Names are
// checked with fs.ValidPath, so ".." and absolute names fail, but an afero
// filesystem that follows symbolic links (afero.OsFs) can be led out of its
// directory by one; serve local disk with OpenLocal instead. The result does not
// implement fs.SubFS, because afero's Sub is built on BasePathFs, which
// sibling-prefix paths and symbolic links can escape; fs.Sub falls back to
// lexical sub-trees.
//
// Errors name paths in the source, as LocalFS's do: a failure of the
// filesystem or of a file it opened is an *fs.PathError naming the path
// asked for, with the operation and cause of the innermost *fs.PathError
// afero gave (whose path is a host path for OsFs and BasePathFs); any
// text around it is dropped. A name too long for the disk (ENAMETOOLONG)
// is a file that does not exist, as for LocalFS. An error holding no
// *fs.PathError is kept, in the afero filesystem's words, as the cause of
// one naming the path (or as it is, for a file's reads): a filesystem
// whose own messages name host paths still shows them there.
func NewAfero(afs afero.Fs) fs.FS {
	return aferoFS{afero.NewIOFS(afs)}
}

type aferoFS struct{ iofs afero.IOFS }

var (
	_ fs.StatFS     = aferoFS{}
	_ fs.ReadDirFS  = aferoFS{}
	_ fs.ReadFileFS = aferoFS{}
)

func (a aferoFS) Open(name string) (fs.File, error) {
	f, err := a.iofs.Open(name)
	if err != nil {
		return nil, inSource("open", name, err)
	}
	lf, ok := f.(listingFile)
	if !ok { // IOFS's files are afero.Files that list: not expected
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("the afero filesystem opened a file without afero.File's methods")}
	}
	return &aferoFile{f: lf, name: name}, nil
}

// ReadDir lists the named directory; afero's IOFS would clean an invalid
// name ("a/..", "a/") into another directory instead of refusing it.
func (a aferoFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	ents, err := a.iofs.ReadDir(name)
	return ents, inSource("readdir", name, err)
}

func (a aferoFS) ReadFile(name string) ([]byte, error) {
	data, err := a.iofs.ReadFile(name)
	return data, inSource("readfile", name, err)
}

func (a aferoFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	fi, err := a.iofs.Stat(name)
	return fi, inSource("stat", name, err)
}

// inSource is err, a failure of operation op on name, naming name: see
// NewAfero. It is nil for nil.
func inSource(op, name string, err error) error {
	if err == nil {
		return nil
	}
	pe := innermost(err)
	if pe == nil {
		return &fs.PathError{Op: op, Path: name, Err: err}
	}
	if errors.Is(pe.Err, syscall.ENAMETOOLONG) {
		return &fs.PathError{Op: pe.Op, Path: name, Err: errNameTooLong} // as LocalFS: no file has that name
	}
	return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
}

// innermost is the innermost *fs.PathError err wraps, or nil.
func innermost(err error) *fs.PathError {
	var found *fs.PathError
	for ; err != nil; err = errors.Unwrap(err) {
		if pe, ok := err.(*fs.PathError); ok {
			found = pe
		}
	}
	return found
}

// listingFile is what afero's IOFS opens: an afero.File that lists.
type listingFile interface {
	afero.File
	fs.ReadDirFile
}

// aferoFile is a file of an aferoFS: its errors name it by its path in
// the source (see NewAfero), and its ReadAt reports io.EOF for a short
// read, which afero's MemMapFs does not and io.ReaderAt requires.
type aferoFile struct {
	f    listingFile
	name string
}

var (
	_ fs.ReadDirFile = (*aferoFile)(nil)
	_ io.ReaderAt    = (*aferoFile)(nil)
	_ io.Seeker      = (*aferoFile)(nil)
)

func (f *aferoFile) Read(p []byte) (int, error) {
	n, err := f.f.Read(p)
	return n, f.named(err)
}

func (f *aferoFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.f.ReadAt(p, off)
	if err == nil && n < len(p) {
		err = io.EOF
	}
	return n, f.named(err)
}

func (f *aferoFile) Seek(offset int64, whence int) (int64, error) {
	n, err := f.f.Seek(offset, whence)
	return n, f.named(err)
}

func (f *aferoFile) Stat() (fs.FileInfo, error) {
	fi, err := f.f.Stat()
	return fi, f.named(err)
}

func (f *aferoFile) ReadDir(n int) ([]fs.DirEntry, error) {
	ents, err := f.f.ReadDir(n)
	return ents, f.named(err)
}

func (f *aferoFile) Close() error { return f.named(f.f.Close()) }

// named is err naming the file when it holds an *fs.PathError, else err
// as it is (io.EOF stays io.EOF).
func (f *aferoFile) named(err error) error {
	if pe := innermost(err); pe != nil {
		return &fs.PathError{Op: pe.Op, Path: f.name, Err: pe.Err}
	}
	return err
}
