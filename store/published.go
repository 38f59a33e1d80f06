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
	Frontmatter string      // the YAML between the document's '---' lines, verbatim; the store keeps it
	Headings    string      // the document's Markdown headings, one a line, for search; may be empty
	Doc         fs.FileInfo // the document's size and time; nil if it is missing
	// Findings is the hidden text the publisher found in the skill's
	// files (Skill.Findings), each with its Path, when Scanned.
	Findings []Finding
	// Scanned says Findings can be trusted: a snapshot signed by a
	// trusted key, scanned by this version's scanner. Otherwise anyone
	// who can write where the snapshot is published can list none, and
	// the store finds for itself: it scans the frontmatter (what a
	// listing shows) when it builds its catalog, and every file,
	// SKILL.md included, when it reads it (once per version, as a
	// cache miss), so strict mode withholds the skill or refuses the
	// read.
	Scanned bool
	// Version names the version of the skill served, when the source
	// versions skills one by one (a registry); its Provenance carries it.
	Version *SkillVersion
}

// fromPublished builds a skill from a snapshot's listing, without reading
// its document.
func (s *Store) fromPublished(i int, fsys fs.FS, ps PublishedSkill) found {
	if f, ok := s.reserved(i, skillDir{name: ps.Dir, dir: ps.Dir}); ok {
		return f
	}
	if ps.Doc == nil || !IsDocName(ps.DocPath) {
		err := &Error{Kind: ErrNoSkillDoc, Skill: ps.Dir}
		return found{problem: &Problem{Source: ref(s.sources[i]), Skill: ps.Dir, Message: err.reason(), err: err}}
	}
	// The skill keeps the listing's strings as they are (its snapshot
	// holds them while it is served): 100,000 skills are not copied.
	header, err := publishedHeader(ps.Frontmatter)
	t := docText{header: header, err: err, headings: ps.Headings}
	found := ps.Findings
	if !ps.Scanned && !s.noScan {
		// The document as its listing shows it: its frontmatter, on the
		// lines it holds in SKILL.md.
		found = ScanFile(ps.DocPath, ps.DocPath, "---\n"+ps.Frontmatter)
	}
	f := s.skillFrom(i, fsys, skillDir{name: ps.Dir, dir: ps.Dir}, ps.DocPath, t, ps.Doc, found, true)
	if f.skill != nil {
		f.skill.unscanned = !ps.Scanned
		if ps.Version != nil {
			p := *f.skill.Provenance // a copy of the source's: this skill's own
			p.Version = ps.Version
			f.skill.Provenance = &p
		}
	}
	return f
}

// publishedHeader returns the header a document starting "---\n" +
// frontmatter + "---\n" has, as SplitDocument would find it: the
// frontmatter up to a line that closes it early, or an error if its last
// line does not end (it would run into the closing "---").
func publishedHeader(frontmatter string) (string, error) {
	for pos := 0; pos < len(frontmatter); {
		line, next, found := cutLine(frontmatter[pos:])
		if !found {
			return "", errUnclosed
		}
		if l := strings.TrimRight(line, " \t"); l == "---" || l == "..." {
			return frontmatter[:pos], nil
		}
		pos = len(frontmatter) - len(next)
	}
	return frontmatter, nil
}
