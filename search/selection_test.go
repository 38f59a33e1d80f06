package search_test

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/search"
)

// alone is an index built afresh from only the documents of docs that in
// accepts: its ranking is what a search within a Selection of them must
// return, scores included.
func alone(docs map[string]search.Doc, in func(string) bool) *search.Index {
	x := search.New()
	for id, d := range docs {
		if in(id) {
			x.Put(d)
		}
	}
	return x
}

// sameScores compares scores within a float32 rounding (they are computed
// alike, so they should be equal to the bit).
var sameScores = cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(math.Abs(a), 1) })

// TestSelection: on skillgen's catalog and queries, a search within a
// Selection returns what a search of an index holding only the
// Selection's documents returns (hits, order and scores), whatever the
// other documents hold, and takes limit of its own documents however many
// others rank higher; that holds as documents are added, replaced and
// removed, and after a sweep renumbers them. The predicate is asked about
// each document once, not at every search.
func TestSelection(t *testing.T) {
	docs, queries := realisticDocs(900)
	x := search.New()
	now := map[string]search.Doc{} // what x holds, by ID
	put := func(d search.Doc) { x.Put(d); now[d.ID] = d }
	remove := func(id string) { x.Remove(id); delete(now, id) }
	for _, d := range docs {
		put(d)
	}
	var calls atomic.Int64
	inSel := func(id string) bool { return strings.ContainsAny(id[:2], "aeiou") && !strings.HasPrefix(id, "pdf") }
	sel := x.Select(func(id string) bool { calls.Add(1); return inSel(id) })
	odd := func(id string) bool { return len(id)%2 == 1 } // keep, on top of the selection
	if len(queries) > 60 {
		queries = queries[:60]
	}
	check := func(stage string) {
		t.Helper()
		differ := 0 // queries whose ranking within the selection is not the whole index's filtered
		fresh := alone(now, inSel)
		for _, q := range queries {
			for _, limit := range []int{1, 10, 50} {
				got, want := x.SearchIn(q.Text, limit, sel, nil), fresh.Search(q.Text, limit)
				if diff := cmp.Diff(want, got, sameScores); diff != "" {
					t.Errorf("%s: %q limit %d (-alone +selection)\n%s", stage, q.Text, limit, diff)
				}
				got, want = x.SearchIn(q.Text, limit, sel, odd), fresh.SearchIn(q.Text, limit, nil, odd)
				if diff := cmp.Diff(want, got, sameScores); diff != "" {
					t.Errorf("%s: %q limit %d, with keep (-alone +selection)\n%s", stage, q.Text, limit, diff)
				}
				if limit == 50 && !cmp.Equal(filtered(x, q.Text, limit, inSel), got) {
					differ++
				}
			}
		}
		if differ == 0 {
			t.Errorf("%s: every search ranks and scores as the whole index does: the other documents' statistics are not told apart", stage)
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

	// Replace a few documents (new numbers at the end): only they are asked
	// about (by the Puts: the index keeps a Selection in use up to date).
	before := calls.Load()
	for _, d := range docs[:5] {
		d.Fields[search.Body] += " replaced with a review of quarterly invoices"
		put(d)
	}
	put(search.Doc{ID: "added-a", Fields: [4]string{"added-a", "Audit the pdf forms of a release."}})
	check("after replacing")
	if n := calls.Load() - before; n != 6 {
		t.Errorf("after six Puts, %d documents were asked about", n)
	}

	// Remove a few, too few for a sweep: nothing is asked about.
	sweeps := x.Stats().Sweeps
	for _, d := range docs[10:40] {
		remove(d.ID)
	}
	before = calls.Load()
	check("after removing a few")
	if n := calls.Load() - before; n != 0 {
		t.Errorf("after removals only, %d documents were asked about", n)
	}
	if x.Stats().Sweeps != sweeps {
		t.Fatal("a sweep: removals between sweeps are not tested")
	}

	// Remove a third (a sweep renumbers the rest), then add more than were
	// removed, so the index numbers more documents than the bits cover.
	for i, d := range docs {
		if i%3 == 0 {
			remove(d.ID)
		}
	}
	for i := range 400 {
		put(search.Doc{ID: fmt.Sprintf("late-%d", i), Fields: [4]string{"late", "pdf form audit", "", fmt.Sprint(i)}})
	}
	if x.Stats().Sweeps == sweeps {
		t.Fatal("no sweep: the renumbering is not tested")
	}
	check("after a sweep")
	if hits := x.SearchIn("the of and", 5, sel, nil); len(hits) != 0 {
		t.Errorf("stop words only: %v", hits)
	}
	if hits := x.SearchIn(queries[0].Text, 5, x.Select(func(string) bool { return false }), nil); len(hits) != 0 {
		t.Errorf("an empty selection: %v", hits)
	}
}

// filtered is the first limit hits of x's whole ranking for q that keep
// accepts.
func filtered(x *search.Index, q string, limit int, keep func(string) bool) []search.Hit {
	out := []search.Hit{}
	for _, h := range x.Search(q, x.Len()) {
		if keep(h.ID) && len(out) < limit {
			out = append(out, h)
		}
	}
	return out
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

// TestSelectionWorkIgnoresHidden: a search within a Selection reads the
// postings an index of the Selection's documents alone would read, and no
// others (Stats.Visited), so its cost says nothing of the documents
// outside it: two indexes whose selected documents are the same, and
// whose other documents hold the queries' words in one and none of them
// in the other, do the same work as that index for every query, as the
// others are added, replaced and removed, a sweep renumbering them.
func TestSelectionWorkIgnoresHidden(t *testing.T) {
	docs, queries := realisticDocs(600)
	if len(queries) > 40 {
		queries = queries[:40]
	}
	shown := func(id string) bool { return strings.HasPrefix(id, "shown/") }
	hidden := func(k int, telling bool) search.Doc {
		if telling { // the queries' words, from the catalog's own skills
			d := docs[200+k%400]
			d.ID = fmt.Sprintf("hidden/%d", k)
			return d
		}
		return search.Doc{ID: fmt.Sprintf("hidden/%d", k), Fields: [4]string{fmt.Sprintf("qqq%d", k), "Zzyzx quux.", "", "Xyzzy plugh."}}
	}
	alone := search.New()
	var xs [2]*search.Index
	var sels [2]*search.Selection
	for v, telling := range []bool{false, true} {
		xs[v] = search.New()
		for k, d := range docs[:200] {
			d.ID = "shown/" + d.ID
			if v == 0 {
				alone.Put(d)
			}
			xs[v].Put(d)
			xs[v].Put(hidden(2*k, telling))
			xs[v].Put(hidden(2*k+1, telling))
		}
		sels[v] = xs[v].Select(shown)
	}
	work := func(x *search.Index, f func()) uint64 {
		before := x.Stats().Visited
		f()
		return x.Stats().Visited - before
	}
	check := func(stage string) {
		t.Helper()
		for _, q := range queries {
			want := work(alone, func() { alone.Search(q.Text, 10) })
			for v := range xs {
				var hits []search.Hit
				if got := work(xs[v], func() { hits = xs[v].SearchIn(q.Text, 10, sels[v], nil) }); got != want {
					t.Errorf("%s: %q read %d postings with telling=%v others; the selected documents alone hold %d", stage, q.Text, got, v == 1, want)
				}
				if diff := cmp.Diff(alone.Search(q.Text, 10), hits, sameScores); diff != "" {
					t.Errorf("%s: %q (-alone +selection)\n%s", stage, q.Text, diff)
				}
			}
		}
	}
	check("fresh")
	sweeps := xs[1].Stats().Sweeps
	for v, telling := range []bool{false, true} {
		for k := range 400 {
			switch {
			case k%4 == 0:
				d := hidden(k, telling)
				d.Fields[search.Body] += " Replaced."
				xs[v].Put(d)
			case k%4 == 1:
				xs[v].Remove(fmt.Sprintf("hidden/%d", k))
			}
		}
		for k := range 60 {
			xs[v].Put(hidden(2000+k, telling))
		}
	}
	if xs[1].Stats().Sweeps == sweeps {
		t.Fatal("no sweep: the renumbering is not tested")
	}
	check("after the others changed")
}
