package backends

import (
	"io"
	"io/fs"

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
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return f, nil
	}
	if ra, ok := f.(readerAtFile); ok {
		return eofReaderAt{ra}, nil
	}
	return f, nil
}

// ReadDir lists the named directory; afero's IOFS would clean an invalid
// name ("a/..", "a/") into another directory instead of refusing it.
func (a aferoFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	return a.iofs.ReadDir(name)
}

func (a aferoFS) ReadFile(name string) ([]byte, error) { return a.iofs.ReadFile(name) }

func (a aferoFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	return a.iofs.Stat(name)
}

type readerAtFile interface {
	fs.File
	io.ReaderAt
}

// eofReaderAt fixes afero files whose ReadAt returns fewer bytes than asked
// without an error, which io.ReaderAt forbids (afero's MemMapFs does this).
type eofReaderAt struct{ readerAtFile }

func (f eofReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.readerAtFile.ReadAt(p, off)
	if err == nil && n < len(p) {
		err = io.EOF
	}
	return n, err
}
