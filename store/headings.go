package store

import "github.com/skillstore/skillstore/search"

// Headings returns the Markdown headings of a SKILL.md body (the text
// after its frontmatter), one a line without their #s, as the search
// index takes them: none inside code fences. A published snapshot
// carries them, so that a server searches a skill's headings without
// reading its document; the snapshot format takes them from here and
// imports no index.
func Headings(body string) string {
	return search.SkillDoc("", "", "", body).Fields[search.Headings]
}
