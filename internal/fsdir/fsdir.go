// Package fsdir holds the directories of filesystems whose folders exist
// only as the names in their files' paths (object storage, archives,
// published manifests).
package fsdir

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
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

// Tree collects the directories that a set of file paths implies.
type Tree struct {
	children map[string]map[string]bool // dir -> its children's names
	files    map[string]bool            // the files' paths
}

// NewTree returns a tree holding only the root, ".".
func NewTree() *Tree {
	return &Tree{children: map[string]map[string]bool{".": {}}, files: map[string]bool{}}
}

// AddFile adds the file at p (a clean, slash-separated path) and the
// folders above it.
func (t *Tree) AddFile(p string) {
	dir := path.Dir(p)
	t.AddDir(dir)
	t.children[dir][path.Base(p)] = true
	t.files[p] = true
}

// AddDir adds the folder at dir (a clean path) and the folders above it.
func (t *Tree) AddDir(dir string) {
	for dir != "." {
		parent := path.Dir(dir)
		if t.children[dir] == nil {
			t.children[dir] = map[string]bool{}
		}
		if t.children[parent] == nil {
			t.children[parent] = map[string]bool{}
		}
		t.children[parent][path.Base(dir)] = true
		dir = parent
	}
}

// Dirs returns each directory's entries, sorted by name: a folder's from
// Entry, a file's from file(p), its full path. A name that is both a file
// and a folder is listed once, as the file (object stores allow both).
func (t *Tree) Dirs(file func(p string) fs.DirEntry) map[string][]fs.DirEntry {
	dirs := make(map[string][]fs.DirEntry, len(t.children))
	for dir, kids := range t.children {
		ents := make([]fs.DirEntry, 0, len(kids))
		for name := range kids {
			if full := path.Join(dir, name); t.files[full] {
				ents = append(ents, file(full))
			} else {
				ents = append(ents, Entry(name))
			}
		}
		slices.SortFunc(ents, func(x, y fs.DirEntry) int { return strings.Compare(x.Name(), y.Name()) })
		dirs[dir] = ents
	}
	return dirs
}
