package backends

import (
	"embed"
	"io/fs"
)

//go:embed all:examples
var examples embed.FS

// Examples returns the example skills compiled into the binary: spec-valid
// skills with supporting files, served when no other source is configured.
func Examples() fs.FS {
	sub, err := fs.Sub(examples, "examples")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	return sub
}

// NewEmbedded returns fsys, a filesystem compiled into the program (an
// embed.FS, or a sub-tree of one), as a source. Embedded filesystems cannot
// hold symbolic links and are immutable, so they need no further confinement.
func NewEmbedded(fsys fs.FS) fs.FS { return fsys }
