package store

import (
	"context"
	"hash/maphash"
	"strconv"
	"strings"

	"github.com/skillstore/skillstore/search"
)

// The search index holds every skill discovery reads, shadowed copies
// too, under an ID naming its folder and source. A skill is indexed when
// discovery reads its document (in the discovery workers, so the cost is
// spread over them), at no cost when its document is unchanged (a Version
// check), and dropped when a catalog no longer has it. Searches rank the
// index and keep the hits the current catalog serves.
//
// Skills from a published snapshot are indexed from their frontmatter
// (name and description): their documents are not read to build the
// catalog, and reading 100,000 of them would cost 100,000 requests.

var versionSeed = maphash.MakeSeed()

// indexID names a skill folder of a source in the index. It sorts by
// folder name first, so equal scores rank alphabetically.
func indexID(src int, dir string) string { return dir + "\x00" + strconv.Itoa(src) }

func parseIndexID(id string) (folder, bool) {
	dir, n, ok := strings.Cut(id, "\x00")
	src, err := strconv.Atoi(n)
	return folder{src, dir}, ok && err == nil
}

// index adds a discovered skill to the search index. doc is its whole
// SKILL.md, or only its frontmatter for a published skill.
func (s *Store) index(sk *Skill, doc string) {
	var headings, body strings.Builder
	_, text, err := splitFrontmatter(doc)
	if err == nil {
		fenced := false
		for line := range strings.Lines(text) {
			trimmed := strings.TrimSpace(line)
			if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
				fenced = !fenced
			}
			if !fenced && strings.HasPrefix(trimmed, "#") {
				headings.WriteString(strings.TrimLeft(trimmed, "#"))
				headings.WriteByte('\n')
			} else {
				body.WriteString(line)
			}
		}
	}
	name := sk.Name
	if sk.Frontmatter.Name != "" && sk.Frontmatter.Name != sk.Name {
		name += " " + sk.Frontmatter.Name
	}
	s.search.Put(search.Doc{
		ID:      indexID(sk.src, sk.Name),
		Version: maphash.String(versionSeed, doc) | 1, // never 0, which means "no version"
		Fields:  [4]string{name, sk.Frontmatter.Description, headings.String(), body.String()},
	})
}

// pruneIndex drops from the index the skills c no longer holds.
func (s *Store) pruneIndex(c *Catalog) {
	s.search.Retain(func(id string) bool {
		f, ok := parseIndexID(id)
		return ok && c.found[f] != nil
	})
}

// Search ranks the catalog's skills for query (a request in everyday
// words: see package search for how it is matched) and returns at most
// limit of them, best first. A query of stop words or punctuation only
// finds nothing.
func (s *Store) Search(ctx context.Context, query string, limit int) ([]*Skill, error) {
	c, err := s.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	// Shadowed copies and skills of a newer catalog are indexed too: ask
	// for more until limit servable skills are found or the hits run out.
	for want := limit + len(c.Shadowed); ; want *= 2 {
		hits := s.search.Search(query, want)
		out := make([]*Skill, 0, limit)
		for _, h := range hits {
			f, _ := parseIndexID(h.ID)
			if sk := c.byName[f.dir]; sk != nil && sk.src == f.src {
				out = append(out, sk)
				if len(out) == limit {
					return out, nil
				}
			}
		}
		if len(hits) < want {
			return out, nil
		}
	}
}
