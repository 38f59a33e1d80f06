package store

import (
	"context"
	"io/fs"
)

// SnapshotFS is implemented by sources that serve immutable snapshots (a
// folder `skillstore publish` wrote; see package backends/snapshot). The
// store builds each catalog from one snapshot and reads every file of that
// catalog's skills from the same snapshot, so no answer mixes two;
// Refresh (Refresher) moves the source to a new one.
type SnapshotFS interface {
	fs.FS
	Snapshot(ctx context.Context) (fs.FS, error)
}

// RevisionFS is implemented by snapshots of a versioned source (a git
// commit): Revision names the version its files come from, and each
// skill found in it carries it (Skill.Revision).
type RevisionFS interface {
	fs.FS
	Revision() string
}

// PublishedFS is implemented by snapshots that list their skills with
// each document's frontmatter, so a catalog is built without reading any
// SKILL.md. The frontmatter must be the document's own: when the store
// reads the document, it checks, and refuses the skill if they differ.
type PublishedFS interface {
	fs.FS
	Published() []PublishedSkill
}

// PublishedSkill is one skill as a PublishedFS lists it.
type PublishedSkill struct {
	Dir         string      // the folder name
	DocPath     string      // the document's file name
	Frontmatter string      // the YAML between the document's '---' lines, verbatim
	Headings    string      // the document's Markdown headings, one a line, for search; may be empty
	Doc         fs.FileInfo // the document's size and time; nil if it is missing
}

// ContentFS is implemented by backends that know each file's content
// digests without reading it (a published snapshot's manifest). Content
// with a known digest is immutable: the store caches it by digest and
// never revalidates it, and the skills extension takes its digest from
// here instead of reading the file.
type ContentFS interface {
	fs.FS
	// ContentSHA256 returns the lower-case hex SHA-256 of the named file's
	// bytes and, when served differs from them (text decoded to UTF-8),
	// the SHA-256 and size of the content as served.
	ContentSHA256(name string) (raw, served string, servedSize int64, ok bool)
}
