package snapshot

import (
	"strings"

	"github.com/skillstore/skillstore/store"
)

// docHeadings are a document's Markdown headings, one a line, as the search
// index takes them (store.Headings: none inside code fences), cut at a
// line to MaxHeadingsBytes: what a server searches besides the name and
// description of a published skill. A document without frontmatter has
// none.
func docHeadings(doc string) string {
	_, body, err := store.SplitDocument(doc)
	if err != nil {
		return ""
	}
	h := store.Headings(body)
	if len(h) > MaxHeadingsBytes {
		h = h[:strings.LastIndexByte(h[:MaxHeadingsBytes], '\n')+1]
	}
	return h
}
