package store

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestIndexNewestWins: a document waiting for the background indexer is
// dropped when a newer version of it has been discovered since, or when
// its skill has left the catalog, whatever order the indexers run in.
func TestIndexNewestWins(t *testing.T) {
	s, err := New([]Source{{Label: "project", FS: fstest.MapFS{}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc := func(desc string) docText { // long enough to be indexed in the background
		return documentText("---\nname: x\ndescription: " + desc + "\n---\n# Notes\n\n" + desc + "\n" + strings.Repeat("Filler text. ", 100))
	}
	sk := &Skill{Name: "x", Frontmatter: Frontmatter{Description: "gardening tips"}}
	s.index(sk, doc("gardening tips"))
	sk2 := &Skill{Name: "x", Frontmatter: Frontmatter{Description: "cooking recipes"}}
	s.index(sk2, doc("cooking recipes"))
	gone := &Skill{Name: "y", Frontmatter: Frontmatter{Description: "sailing knots"}}
	s.index(gone, doc("sailing knots"))
	pending := s.indexing.pending
	s.pruneIndex(&Catalog{byName: map[string]*Skill{"x": sk2}}, nil) // y has left
	for _, i := range []int{1, 0, 2} {                               // the newer first, then the older and the removed
		s.put(pending[i])
	}
	for q, want := range map[string]int{"cooking": 1, "gardening": 0, "sailing": 0} {
		if got := len(s.search.Search(q, 5)); got != want {
			t.Errorf("%q: %d hits; want %d", q, got, want)
		}
	}
	if st := s.search.Stats(); st.Updates != 1 || st.Documents != 1 {
		t.Errorf("%+v", st)
	}
}
