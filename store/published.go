package store

import (
	"io/fs"
	"strings"
)

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
	// Findings is the hidden text the publisher found in the skill's
	// files (Skill.Findings), each with its Path.
	Findings []Finding
}

// fromPublished builds a skill from a snapshot's listing, without reading
// its document.
func (s *Store) fromPublished(i int, fsys fs.FS, ps PublishedSkill) found {
	if ps.Doc == nil || !IsDocName(ps.DocPath) {
		err := &Error{Kind: ErrNoSkillDoc, Skill: ps.Dir}
		return found{problem: &Problem{Source: ref(s.sources[i]), Skill: ps.Dir, Message: err.reason(), err: err}}
	}
	// What is indexed: the frontmatter, and the headings the manifest has,
	// built once (a document of many headings is not copied for each).
	var b strings.Builder
	b.Grow(len(ps.Frontmatter) + len(ps.Headings) + 2*strings.Count(ps.Headings, "\n") + 10)
	b.WriteString("---\n")
	b.WriteString(ps.Frontmatter)
	b.WriteString("---\n")
	for h := range strings.Lines(ps.Headings) {
		b.WriteString("# ")
		b.WriteString(h)
	}
	doc := b.String()
	return s.skillFrom(i, fsys, ps.Dir, ps.DocPath, doc, ps.Doc, ps.Findings, true)
}
