// Package search ranks documents (skills) for a query, the way people
// write queries: BM25F over weighted fields (a skill's name, description,
// headings and text), with matching that ignores case and punctuation,
// splits hyphenated and snake_case words, treats singular and plural
// alike, and leaves out common English stop words.
//
// An Index is updated one document at a time (Put, Remove), so a catalog
// change that touches one skill does not rebuild the rest. It is safe for
// concurrent use; searches share a read lock.
package search

import (
	"math"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Field is one weighted part of a document.
type Field int

// The fields of a skill, from the most telling to the least.
const (
	Name Field = iota
	Description
	Headings
	Body
	numFields
)

// weights are the fields' weights in BM25F: a word in a skill's name says
// more about what it is for than a word in its text.
var weights = [numFields]float64{Name: 4, Description: 2.5, Headings: 1.5, Body: 1}

// BM25 parameters: term-frequency saturation and length normalization.
const (
	k1 = 1.2
	b  = 0.75
)

// Doc is a document to index.
type Doc struct {
	ID     string
	Fields [numFields]string
}

// Hit is one ranked document.
type Hit struct {
	ID    string
	Score float64
}

type posting struct {
	doc int32
	tf  [numFields]uint16 // term frequency per field
}

type docEntry struct {
	id    string
	len   [numFields]int32 // tokens per field
	terms []string         // its distinct terms, to remove it
}

// Index is a BM25F index.
type Index struct {
	mu       sync.RWMutex
	docs     []*docEntry // by internal number; nil once removed
	byID     map[string]int32
	postings map[string][]posting
	free     []int32 // numbers of removed documents, for reuse
	total    [numFields]int64
	live     int
}

// New returns an empty Index.
func New() *Index {
	return &Index{byID: map[string]int32{}, postings: map[string][]posting{}}
}

// Len returns the number of documents indexed.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

// Put indexes d, replacing any document with its ID.
func (x *Index) Put(d Doc) {
	tfs := map[string]*[numFields]uint16{}
	e := &docEntry{id: d.ID}
	for f := range numFields {
		for _, t := range Tokens(d.Fields[f]) {
			c := tfs[t]
			if c == nil {
				c = new([numFields]uint16)
				tfs[t] = c
				e.terms = append(e.terms, t)
			}
			if c[f] < math.MaxUint16 {
				c[f]++
			}
			e.len[f]++
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.remove(d.ID)
	var n int32
	if k := len(x.free); k > 0 {
		n, x.free = x.free[k-1], x.free[:k-1]
		x.docs[n] = e
	} else {
		n = int32(len(x.docs))
		x.docs = append(x.docs, e)
	}
	x.byID[d.ID] = n
	for t, c := range tfs {
		x.postings[t] = append(x.postings[t], posting{doc: n, tf: *c})
	}
	for f := range numFields {
		x.total[f] += int64(e.len[f])
	}
	x.live++
}

// Remove drops the document with id, if indexed.
func (x *Index) Remove(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.remove(id)
}

func (x *Index) remove(id string) {
	n, ok := x.byID[id]
	if !ok {
		return
	}
	e := x.docs[n]
	for _, t := range e.terms {
		ps := x.postings[t]
		for i, p := range ps {
			if p.doc == n {
				ps[i] = ps[len(ps)-1]
				ps = ps[:len(ps)-1]
				break
			}
		}
		if len(ps) == 0 {
			delete(x.postings, t)
		} else {
			x.postings[t] = ps
		}
	}
	for f := range numFields {
		x.total[f] -= int64(e.len[f])
	}
	x.docs[n] = nil
	x.free = append(x.free, n)
	delete(x.byID, id)
	x.live--
}

// Search returns up to limit documents ranked for query, best first; ties
// are broken by ID. A query whose every word is a stop word, or that has
// no word at all, finds nothing (see Tokens).
func (x *Index) Search(query string, limit int) []Hit {
	terms := uniq(Tokens(query))
	x.mu.RLock()
	defer x.mu.RUnlock()
	if len(terms) == 0 || x.live == 0 || limit <= 0 {
		return nil
	}
	var avg [numFields]float64
	for f := range numFields {
		avg[f] = math.Max(float64(x.total[f])/float64(x.live), 1)
	}
	scores := map[int32]float64{}
	for _, t := range terms {
		ps := x.postings[t]
		if len(ps) == 0 {
			continue
		}
		idf := math.Log(1 + (float64(x.live)-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for _, p := range ps {
			e := x.docs[p.doc]
			var tf float64
			for f := range numFields {
				if p.tf[f] > 0 {
					tf += weights[f] * float64(p.tf[f]) / (1 - b + b*float64(e.len[f])/avg[f])
				}
			}
			scores[p.doc] += idf * tf / (k1 + tf)
		}
	}
	hits := make([]Hit, 0, len(scores))
	for n, s := range scores {
		hits = append(hits, Hit{ID: x.docs[n].id, Score: s})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

func uniq(ts []string) []string {
	seen := map[string]bool{}
	out := ts[:0:0]
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// Tokens splits text into the terms the index matches: words of letters
// and digits (so punctuation, hyphens and underscores separate words, and
// "pdf-forms" and "pdf_forms" both give "pdf" and "form"), folded to lower
// case, with plurals reduced to their singular and stop words left out.
// Invalid UTF-8 is skipped.
func Tokens(text string) []string {
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 {
			if w := normalize(text[start:end]); w != "" {
				out = append(out, w)
			}
			start = -1
		}
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		wordRune := r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
		if wordRune && start < 0 {
			start = i
		} else if !wordRune {
			flush(i)
		}
		i += size
	}
	flush(len(text))
	return out
}

// normalize folds a word and reduces it to its singular, or returns "" for
// a stop word.
func normalize(w string) string {
	w = strings.ToLower(w)
	if stopWords[w] {
		return ""
	}
	return singular(w)
}

// singular undoes the regular English plurals: "policies" → "policy",
// "boxes" → "box", "forms" → "form"; words ending in "ss", "us" or "is"
// ("access", "status", "analysis") and short words are kept.
func singular(w string) string {
	n := len(w)
	switch {
	case n <= 3:
		return w
	case strings.HasSuffix(w, "ies") && n > 4:
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "zes"),
		strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:n-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:n-1]
	}
	return w
}

// stopWords are common English words that say nothing about a skill.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be but by can could do does for from how i if in into
		is it its me my of on or our should so that the their them then there these this to use using
		was we what when where which who why will with would you your want need help please`) {
		m[w] = true
	}
	return m
}()
