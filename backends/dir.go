package backends

import (
	"io/fs"

	"github.com/skillstore/skillstore/internal/fsdir"
)

// DirEntry returns the entry of a directory that exists only as a name
// (object storage and archives imply directories from the paths of their
// files). It is also the directory's fs.FileInfo.
func DirEntry(name string) fs.DirEntry { return fsdir.Entry(name) }

// DirFile returns an open directory named name holding ents, for fs.FS
// implementations whose directories are implied.
func DirFile(name string, ents []fs.DirEntry) fs.ReadDirFile { return fsdir.Open(name, ents) }
