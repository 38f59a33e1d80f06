// Package fsdir holds the directories of filesystems whose folders exist
// only as the names in their files' paths (object storage, archives,
// published manifests).
package fsdir

import (
	"errors"
	"io"
	"io/fs"
	"slices"
	"time"
)

// Entry returns the entry of a directory that exists only as a name
// (object storage and archives imply directories from the paths of their
// files). It is also the directory's fs.FileInfo.
func Entry(name string) fs.DirEntry { return dirInfo{name} }

// Open returns an open directory named name holding ents, for fs.FS
// implementations whose directories are implied.
func Open(name string, ents []fs.DirEntry) fs.ReadDirFile {
	return &dirFile{info: dirInfo{name}, ents: ents}
}

type dirInfo struct{ name string }

func (d dirInfo) Name() string               { return d.name }
func (d dirInfo) Size() int64                { return 0 }
func (d dirInfo) Mode() fs.FileMode          { return fs.ModeDir | 0o555 }
func (d dirInfo) ModTime() time.Time         { return time.Time{} }
func (d dirInfo) IsDir() bool                { return true }
func (d dirInfo) Sys() any                   { return nil }
func (d dirInfo) Type() fs.FileMode          { return fs.ModeDir }
func (d dirInfo) Info() (fs.FileInfo, error) { return d, nil }

// dirFile is an open directory whose entries are known.
type dirFile struct {
	info dirInfo
	ents []fs.DirEntry
	off  int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: errors.New("is a directory")}
}
func (d *dirFile) Close() error { return nil }

// ReadDir implements fs.ReadDirFile.
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.ents[d.off:]
	if n <= 0 {
		d.off = len(d.ents)
		return slices.Clone(rest), nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(rest))
	d.off += n
	return slices.Clone(rest[:n]), nil
}
