package search_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/search"
)

// filtered is the first limit hits of x's whole ranking for q that keep
// accepts: what a search within a subset must return.
func filtered(x *search.Index, q string, limit int, keep func(string) bool) []search.Hit {
	out := []search.Hit{}
	for _, h := range x.Search(q, x.Len()) {
		if keep(h.ID) && len(out) < limit {
			out = append(out, h)
		}
	}
	return out
}

// TestSelection: a search within a Selection ranks as the whole index
// does with the other documents left out, and takes limit of its own
// documents however many others rank higher; that holds as documents are
// added, replaced and removed, and after a sweep renumbers them. The
// predicate is asked about each document once, not at every search.
func TestSelection(t *testing.T) {
	x := search.New()
	docs := corpus(600)
	for _, d := range docs {
		x.Put(d)
	}
	var calls atomic.Int64
	inSel := func(id string) bool { return strings.Contains(id, "a") && !strings.HasPrefix(id, "pdf") }
	sel := x.Select(func(id string) bool { calls.Add(1); return inSel(id) })
	odd := func(id string) bool { return id[len(id)-1]%2 == 1 } // keep, on top of the selection
	queries := []string{"pdf form", "kubernetes deploy", "security audit report", "release notes for the api", "translate locale"}
	check := func(stage string) {
		t.Helper()
		for _, q := range queries {
			for _, limit := range []int{1, 10, 50} {
				got := x.SearchIn(q, limit, sel, nil)
				if diff := cmp.Diff(filtered(x, q, limit, inSel), got); diff != "" {
					t.Errorf("%s: %q limit %d (-want +got)\n%s", stage, q, limit, diff)
				}
				got = x.SearchIn(q, limit, sel, odd)
				both := func(id string) bool { return inSel(id) && odd(id) }
				if diff := cmp.Diff(filtered(x, q, limit, both), got); diff != "" {
					t.Errorf("%s: %q limit %d, with keep (-want +got)\n%s", stage, q, limit, diff)
				}
			}
		}
	}
	check("fresh")
	if n := calls.Load(); n != int64(len(docs)) {
		t.Errorf("the first searches asked about %d documents; the index holds %d", n, len(docs))
	}
	check("again")
	if n := calls.Load(); n != int64(len(docs)) {
		t.Errorf("searches of an unchanged index asked again: %d calls for %d documents", n, len(docs))
	}

	// Replace a few documents (new numbers at the end): only they are asked about.
	for _, d := range docs[:5] {
		d.Fields[search.Body] += " replaced"
		x.Put(d)
	}
	x.Put(search.Doc{ID: "added-a", Fields: [4]string{"added-a", "Audit the pdf forms of a release."}})
	before := calls.Load()
	check("after replacing")
	if n := calls.Load() - before; n != 6 {
		t.Errorf("after six Puts, %d documents were asked about", n)
	}

	// Remove a third (a sweep renumbers the rest), then add more than were
	// removed, so the index numbers more documents than the bits cover.
	sweeps := x.Stats().Sweeps
	for i, d := range docs {
		if i%3 == 0 {
			x.Remove(d.ID)
		}
	}
	for i := range 400 {
		x.Put(search.Doc{ID: fmt.Sprintf("late-%d", i), Fields: [4]string{"late", "pdf form audit", "", fmt.Sprint(i)}})
	}
	if x.Stats().Sweeps == sweeps {
		t.Fatal("no sweep: the renumbering is not tested")
	}
	check("after a sweep")
	if hits := x.SearchIn("the of and", 5, sel, nil); len(hits) != 0 {
		t.Errorf("stop words only: %v", hits)
	}
}

// TestSelectionConcurrent: searches within Selections run while documents
// change and sweeps renumber them (run with -race).
func TestSelectionConcurrent(t *testing.T) {
	x := search.New()
	docs := corpus(200)
	sels := []*search.Selection{
		x.Select(func(id string) bool { return strings.HasPrefix(id, "pdf") }),
		x.Select(func(id string) bool { return len(id)%2 == 0 }),
	}
	done := make(chan bool)
	go func() {
		for i := range 2000 {
			x.Put(docs[i%len(docs)])
			if i%3 == 0 {
				x.Remove(docs[(i*7)%len(docs)].ID)
			}
		}
		close(done)
	}()
	for i := 0; ; i++ {
		select {
		case <-done:
			if x.Stats().Sweeps == 0 {
				t.Error("no sweep while searching")
			}
			return
		default:
			for _, h := range x.SearchIn("pdf invoice report", 5, sels[i%2], nil) {
				if i%2 == 0 && !strings.HasPrefix(h.ID, "pdf") {
					t.Fatalf("a hit outside the selection: %s", h.ID)
				}
			}
		}
	}
}
