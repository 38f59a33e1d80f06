package store

import "io/fs"

// RevisionFS is implemented by snapshots of a versioned source (a git
// commit): Revision names the version its files come from, and each
// skill found in it carries it (Skill.Revision).
type RevisionFS interface {
	fs.FS
	Revision() string
}
