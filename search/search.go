// Package search ranks documents (skills) for a query, the way people
// write queries: BM25F over weighted fields (a skill's name, description,
// headings and text), with matching that ignores case and punctuation,
// splits hyphenated and snake_case words (camelCase product names such as
// TypeScript stay whole), reduces words to their stems (so singular and
// plural, "deploy" and "deploying", are alike),
// leaves out common English stop words, and widens a query with the
// abbreviations and synonyms people use ("k8s", "PR", "db").
//
// An Index is updated one document at a time (Put, Remove, Retain): a
// catalog change that touches one skill does not rebuild the rest.
// Removed documents are skipped at search time and swept out once they
// make up a quarter of the index. It is safe for concurrent use; searches
// share a read lock.
//
// Limits: a document contributes at most MaxTerms distinct terms (its
// name, description and headings first, then its text's most frequent
// words), a word longer than 64 bytes is not indexed, and a term's count
// saturates at 15 per field. These bound the index to well under 1 KB per
// skill for real SKILL.md files.
package search

import (
	"encoding/binary"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"weak"
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
// k1 is above the usual 1.2 because field weights multiply the counts
// before saturation (a word in the name counts 4); on the generated
// catalog's queries it ranked better (hits@1 0.793 against 0.779, means
// over five catalogs).
const (
	k1 = 2.0
	b  = 0.75
)

// MaxTerms is the most distinct terms one document contributes.
const MaxTerms = 192

// maxTF is the largest count of a term in one field that is told apart.
const maxTF = 15

// Doc is a document to index.
type Doc struct {
	ID string
	// Version, when not zero, identifies the document's content: a Put of
	// an ID already indexed at the same Version does nothing.
	Version uint64
	Fields  [numFields]string
}

// Hit is one ranked document.
type Hit struct {
	ID    string
	Score float64
}

type docEntry struct {
	id      string
	version uint64
	len     [numFields]uint16 // tokens per field, saturated
	live    bool
}

// plist is a term's postings: for each document holding the term, in
// increasing document number, the gap from the previous number and the
// term's counts per field (4 bits each, the text's in the low bits), both
// as uvarints. Most postings take two or three bytes.
type plist struct {
	data []byte
	next int32 // one past the last document number in data
	n    int32 // postings, removed documents' included
}

// Index is a BM25F index.
type Index struct {
	mu    sync.RWMutex
	terms map[string]*plist
	docs  []docEntry // by number, ascending in insertion order
	byID  map[string]int32
	dead  int              // removed documents still in docs
	total [numFields]int64 // tokens per field over live documents
	pool  sync.Pool        // *scratch

	updates, sweeps uint64        // for Stats
	visited         atomic.Uint64 // postings read by searches, for Stats

	selMu sync.Mutex                // guards sels (searches add to it)
	sels  []weak.Pointer[selection] // the Selections' subsets, kept up to date while in use

	gen    uint64                  // counts changes, for factors
	cached atomic.Pointer[factors] // the factors of generation gen, once a search needed them
	calc   sync.Mutex              // one search computes new factors
}

// factors are, for each document and field, the field's weight over its
// BM25 length normalization (w / (1-b + b*len/avg)): zero for a removed
// document. Searches share them until the index changes, so scoring a
// posting takes four multiplications.
type factors struct {
	gen uint64
	v   []float32 // numFields per document
}

// factorsNow returns the factors of the index as it is; the caller holds
// the read lock.
func (x *Index) factorsNow() []float32 {
	if f := x.cached.Load(); f != nil && f.gen == x.gen {
		return f.v
	}
	x.calc.Lock()
	defer x.calc.Unlock()
	if f := x.cached.Load(); f != nil && f.gen == x.gen {
		return f.v
	}
	live := len(x.docs) - x.dead
	var scale [numFields]float64
	for f := range numFields {
		scale[f] = b / math.Max(float64(x.total[f])/float64(max(live, 1)), 1)
	}
	v := make([]float32, int(numFields)*len(x.docs))
	for n, d := range x.docs {
		if d.live {
			for f := range numFields {
				v[n*int(numFields)+int(f)] = float32(weights[f] / (1 - b + scale[f]*float64(d.len[f])))
			}
		}
	}
	x.cached.Store(&factors{gen: x.gen, v: v})
	return v
}

// New returns an empty Index.
func New() *Index {
	return &Index{terms: map[string]*plist{}, byID: map[string]int32{}}
}

// Len returns the number of documents indexed.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.byID)
}

// analyzed is a document reduced to what the index keeps.
type analyzed struct {
	terms []string
	tf    []uint16 // packed counts per field, by term
	len   [numFields]uint16
}

// analyze tokenizes d's fields and keeps at most MaxTerms terms: every
// term of the name, description and headings (up to the cap), then the
// text's terms by count, then by first use. Words are counted as written
// first, and each distinct word is folded and stemmed once.
func analyze(d Doc) analyzed {
	sc := scratches.Get().(*analyzeScratch)
	defer func() { // pin no document's text
		clear(sc.seen.entries)
		clear(sc.index)
		clear(sc.terms[:cap(sc.terms)])
		clear(sc.kept[:cap(sc.kept)])
		clear(sc.rest[:cap(sc.rest)])
		clear(sc.sorted[:cap(sc.sorted)])
		scratches.Put(sc)
	}()
	size := 0
	for _, f := range d.Fields {
		size += len(f)
	}
	seen := &sc.seen
	seen.init(size / 6)
	for f := range numFields {
		words(d.Fields[f], func(w string) { seen.add(w, f) })
	}
	// Merge the words into terms, in order of first use.
	var a analyzed
	terms := sc.terms[:0]
	clear(sc.index)
	for _, c := range seen.entries {
		for f := range numFields {
			a.len[f] = uint16(min(int(a.len[f])+int(c.n[f]), math.MaxUint16))
		}
		t := term(c.word)
		if t == "" {
			continue
		}
		i, ok := sc.index[t]
		if !ok {
			i = len(terms)
			sc.index[t] = i
			terms = append(terms, termCount{t: t})
		}
		for f := range numFields {
			terms[i].n[f] = uint16(min(int(terms[i].n[f])+int(c.n[f]), math.MaxUint16))
		}
	}
	sc.terms = terms
	// Keep the name's, description's and headings' terms first, in order
	// of first use, then the text's most frequent (a counting sort, stable).
	if len(terms) > MaxTerms {
		kept, rest := sc.kept[:0], sc.rest[:0]
		for _, tc := range terms {
			if tc.n[Name]|tc.n[Description]|tc.n[Headings] != 0 {
				kept = append(kept, tc)
			} else {
				rest = append(rest, tc)
			}
		}
		// Bucket the rest by their count in the text, most first.
		var at [257]int
		for _, tc := range rest {
			at[255-min(tc.n[Body], 255)+1]++
		}
		for c := 1; c < len(at); c++ {
			at[c] += at[c-1]
		}
		sorted := slices.Grow(sc.sorted[:0], len(rest))[:len(rest)]
		for _, tc := range rest {
			k := 255 - min(tc.n[Body], 255)
			sorted[at[k]] = tc
			at[k]++
		}
		kept = append(kept, sorted[:min(len(sorted), max(MaxTerms-len(kept), 0))]...)
		sc.kept, sc.rest, sc.sorted = kept, rest, sorted
		terms = kept[:min(len(kept), MaxTerms)]
	}
	a.terms = make([]string, len(terms))
	a.tf = make([]uint16, len(terms))
	for i, tc := range terms {
		a.terms[i] = tc.t
		var packed uint16
		for f := range numFields {
			packed |= min(tc.n[f], maxTF) << (4 * (numFields - 1 - f))
		}
		a.tf[i] = packed
	}
	return a
}

// termCount is a term's count per field in one document.
type termCount struct {
	t string
	n [numFields]uint16
}

// analyzeScratch is the reusable memory of one analysis.
type analyzeScratch struct {
	seen                      wordTable
	index                     map[string]int
	terms, kept, rest, sorted []termCount
}

var scratches = sync.Pool{New: func() any { return &analyzeScratch{index: map[string]int{}} }}

// wordTable counts a document's words as written, per field: an
// open-addressing hash table, cheaper than a map for this one job.
type wordTable struct {
	slots   []int32 // 1 + an index in entries; 0 is empty
	entries []wordEntry
}

type wordEntry struct {
	hash uint64
	word string
	n    [numFields]uint16 // saturating
}

// init empties t for about words distinct words, reusing its memory.
func (t *wordTable) init(words int) {
	n := 64
	for n < 2*words {
		n *= 2
	}
	if cap(t.slots) >= n {
		t.slots = t.slots[:n]
		clear(t.slots)
	} else {
		t.slots = make([]int32, n)
	}
	t.entries = t.entries[:0]
}

func (t *wordTable) add(w string, f Field) {
	h := uint64(14695981039346656037) // FNV-1a
	for i := 0; i < len(w); i++ {
		h = (h ^ uint64(w[i])) * 1099511628211
	}
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			e := wordEntry{hash: h, word: w}
			e.n[f] = 1
			t.entries = append(t.entries, e)
			t.slots[i] = int32(len(t.entries))
			if 2*len(t.entries) > len(t.slots) {
				t.grow()
			}
			return
		}
		if e := &t.entries[s-1]; e.hash == h && e.word == w {
			if e.n[f] < math.MaxUint16 {
				e.n[f]++
			}
			return
		}
	}
}

func (t *wordTable) grow() {
	t.slots = make([]int32, 2*len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for k, e := range t.entries {
		i := e.hash & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = int32(k + 1)
	}
}

// Put indexes d, replacing any document with its ID.
func (x *Index) Put(d Doc) { x.PutIf(d, nil) }

// PutIf is Put if cond, called with the index locked for writing (after
// d is analyzed, which takes most of the time), returns true; a nil cond
// is true. cond must not use the Index.
func (x *Index) PutIf(d Doc, cond func() bool) {
	a := analyze(d)
	x.mu.Lock()
	defer x.mu.Unlock()
	if cond != nil && !cond() {
		return
	}
	if n, ok := x.byID[d.ID]; ok {
		if d.Version != 0 && x.docs[n].version == d.Version {
			return
		}
		x.kill(n)
	}
	n := int32(len(x.docs))
	x.docs = append(x.docs, docEntry{id: d.ID, version: d.Version, len: a.len, live: true})
	x.byID[d.ID] = n
	var in []*selection // the subsets in use that hold the document
	for _, st := range x.selections() {
		if int(n>>6) == len(st.words) {
			st.words = append(st.words, 0)
			st.bytes += 8
		}
		if st.sel.keep(d.ID) {
			st.words[n>>6] |= 1 << (n & 63)
			st.count(&x.docs[n], 1)
			in = append(in, st)
		}
	}
	var buf [2 * binary.MaxVarintLen32]byte
	for i, t := range a.terms {
		p := x.terms[t]
		if p == nil {
			p = &plist{}
			x.terms[strings.Clone(t)] = p
		}
		p.add(n, uint64(a.tf[i]), &buf)
		for _, st := range in {
			own := st.terms[p]
			if own == nil {
				own = &plist{}
				st.terms[p] = own
				st.bytes += selEntryBytes
			}
			size := len(own.data)
			own.add(n, uint64(a.tf[i]), &buf)
			st.bytes += int64(len(own.data) - size)
		}
	}
	for f := range numFields {
		x.total[f] += int64(a.len[f])
	}
	x.gen++
	x.updates++
	x.sweep()
}

// Stats describe an Index.
type Stats struct {
	Documents int    // documents indexed
	Terms     int    // distinct terms
	Updates   uint64 // Puts that changed the index, since New
	Sweeps    uint64 // rewrites of the postings without removed documents
	// Visited counts the postings searches have read: their work. A
	// search within a Selection reads only its documents' postings.
	Visited uint64
}

// Stats returns the index's figures.
func (x *Index) Stats() Stats {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return Stats{Documents: len(x.byID), Terms: len(x.terms), Updates: x.updates, Sweeps: x.sweeps, Visited: x.visited.Load()}
}

// Version returns the Version of the document with id, if indexed.
func (x *Index) Version(id string) (uint64, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	n, ok := x.byID[id]
	if !ok {
		return 0, false
	}
	return x.docs[n].version, true
}

// Remove drops the document with id, if indexed.
func (x *Index) Remove(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if n, ok := x.byID[id]; ok {
		x.kill(n)
		x.sweep()
	}
}

// Retain drops every document whose ID keep rejects.
func (x *Index) Retain(keep func(id string) bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for id, n := range x.byID {
		if !keep(id) {
			x.kill(n)
		}
	}
	x.sweep()
}

// kill marks document n removed; its postings stay until a sweep.
func (x *Index) kill(n int32) {
	d := &x.docs[n]
	d.live = false
	for _, st := range x.selections() {
		if bit := uint64(1) << (n & 63); st.words[n>>6]&bit != 0 {
			st.words[n>>6] &^= bit
			st.count(d, -1)
		}
	}
	delete(x.byID, d.id)
	for f := range numFields {
		x.total[f] -= int64(d.len[f])
	}
	x.dead++
	x.gen++
}

// sweep rewrites the postings without removed documents once they are a
// quarter of the index, renumbering the rest (a cost proportional to the
// index, paid once per that many removals).
func (x *Index) sweep() {
	if x.dead < 64 || x.dead*4 < len(x.docs) {
		return
	}
	renum := make([]int32, len(x.docs))
	live := x.docs[:0:0]
	for i, d := range x.docs {
		renum[i] = -1
		if d.live {
			renum[i] = int32(len(live))
			x.byID[d.id] = renum[i]
			live = append(live, d)
		}
	}
	var buf [2 * binary.MaxVarintLen32]byte
	for t, p := range x.terms {
		out := &plist{}
		p.each(func(n int32, packed uint64) {
			if m := renum[n]; m >= 0 {
				out.add(m, packed, &buf)
			}
		})
		if out.n == 0 {
			delete(x.terms, t)
		} else {
			x.terms[t] = out
		}
	}
	x.docs = live
	x.dead = 0
	x.sweeps++ // the Selections' subsets are rebuilt at their next search
	x.selMu.Lock()
	x.sels = nil
	x.selMu.Unlock()
	x.gen++
}

// each calls fn with each posting's document number and packed counts.
func (p *plist) each(fn func(n int32, packed uint64)) {
	data := p.data
	n := int32(0)
	for len(data) > 0 {
		gap, k := binary.Uvarint(data)
		packed, k2 := binary.Uvarint(data[k:])
		data = data[k+k2:]
		n += int32(gap)
		fn(n, packed)
		n++
	}
}

// scratch is one search's memory, pooled.
type scratch struct {
	acc     []float32 // scores by document number
	touched []int32   // the documents scored
	held    []held    // one term's postings in a Selection, until its idf is known
}

// held is a posting of a document in a Selection: its number and its
// weighted, length-normalized count.
type held struct {
	n  int32
	tf float32
}

// Search returns up to limit documents ranked for query, best first; ties
// are broken by ID. A query whose every word is a stop word, or that has
// no word at all, finds nothing (see Tokens).
func (x *Index) Search(query string, limit int) []Hit {
	return x.SearchIn(query, limit, nil, nil)
}

// SearchIn is Search over the documents of sel (all, if sel is nil) that
// keep accepts (all, if keep is nil): a caller serving a subset of the
// index gets limit of its documents, however many others rank higher.
//
// A search within sel ranks as Search would in an index holding only
// sel's documents: BM25's statistics (the number of documents, how many
// hold each query term, the fields' mean lengths) are sel's, so nothing
// outside sel changes the order or the scores of its hits. (Search's own
// counts include removed documents until a sweep; sel's never do, so its
// scores equal those of a freshly built index.) keep does not change the
// statistics: it only leaves hits out.
//
// A document outside sel costs nothing: only sel's own postings are read
// (see Selection), so the search costs what Search costs in an index of
// sel's documents alone, a bit test more per posting; keep, called with the index's read lock held, is asked only
// about documents that would rank within limit, best first (about
// limit·ln(candidates) calls), and must not use the Index. sel must come
// from x's Select.
func (x *Index) SearchIn(query string, limit int, sel *Selection, keep func(id string) bool) []Hit {
	qts := queryTerms(query)
	if len(qts) == 0 || limit <= 0 {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if len(x.docs) == x.dead {
		return nil
	}
	s, _ := x.pool.Get().(*scratch)
	if s == nil {
		s = &scratch{}
	}
	if len(s.acc) < len(x.docs) {
		s.acc = make([]float32, len(x.docs))
	}
	if sel == nil {
		x.score(qts, s)
	} else {
		x.scoreIn(qts, s, sel.now(x))
	}
	hits := x.top(s.acc, s.touched, limit, keep)
	for _, n := range s.touched {
		s.acc[n] = 0
	}
	x.pool.Put(s)
	return hits
}

// score adds up the scores of every document for qts in s, with the whole
// index's statistics. It is the hot path of Search.
func (x *Index) score(qts []queryTerm, s *scratch) {
	fac := x.factorsNow()
	acc := s.acc
	touched := s.touched[:0]
	total := float64(len(x.docs))
	const nf = int(numFields)
	var visited uint64 // postings read
	for _, q := range qts {
		p := x.terms[q.term]
		if p == nil {
			continue
		}
		visited += uint64(p.n)
		idf := float32(q.weight * math.Log(1+(total-float64(p.n)+0.5)/(float64(p.n)+0.5)))
		data := p.data
		n := 0
		for i := 0; i < len(data); {
			var gap, packed uint64
			gap, i = uvarint(data, i)
			packed, i = uvarint(data, i)
			n += int(gap)
			w := fac[n*nf : n*nf+nf : n*nf+nf]
			var tf float32
			if packed <= maxTF { // in the text only: the common case
				tf = float32(packed) * w[Body]
			} else {
				tf = float32(packed>>12&maxTF)*w[Name] + float32(packed>>8&maxTF)*w[Description] +
					float32(packed>>4&maxTF)*w[Headings] + float32(packed&maxTF)*w[Body]
			}
			if tf != 0 { // zero for a removed document
				if acc[n] == 0 {
					touched = append(touched, int32(n))
				}
				acc[n] += idf * tf / (k1 + tf)
			}
			n++
		}
	}
	s.touched = touched
	x.visited.Add(visited)
}

// scoreIn adds up the scores of the documents of st for qts in s, with
// st's statistics, reading st's own postings (removed documents' among
// them until a sweep): a term's postings in st are held until they are
// counted, which gives its idf, then added up. Each step computes what
// score computes, in the same order and precision, for an index of st's
// documents alone, so the scores are equal to the bit.
func (x *Index) scoreIn(qts []queryTerm, s *scratch, st *selection) {
	s.touched = s.touched[:0]
	if st.live == 0 {
		return
	}
	var scale [numFields]float64 // as factorsNow's
	for f := range numFields {
		scale[f] = b / math.Max(float64(st.total[f])/float64(st.live), 1)
	}
	norm := func(f Field, l *[numFields]uint16) float32 {
		return float32(weights[f] / (1 - b + scale[f]*float64(l[f])))
	}
	acc, bits := s.acc, st.words
	touched := s.touched
	total := float64(st.live)
	var visited uint64 // postings read
	defer func() { x.visited.Add(visited) }()
	for _, q := range qts {
		p := st.terms[x.terms[q.term]]
		if p == nil {
			continue
		}
		visited += uint64(p.n)
		hs := s.held[:0]
		data := p.data
		n := 0
		for i := 0; i < len(data); {
			var gap, packed uint64
			gap, i = uvarint(data, i)
			packed, i = uvarint(data, i)
			n += int(gap)
			if bits[n>>6]&(1<<(n&63)) == 0 {
				n++ // removed since st was built: neither counted nor scored
				continue
			}
			l := &x.docs[n].len
			var tf float32
			if packed <= maxTF {
				tf = float32(packed) * norm(Body, l)
			} else {
				tf = float32(packed>>12&maxTF)*norm(Name, l) + float32(packed>>8&maxTF)*norm(Description, l) +
					float32(packed>>4&maxTF)*norm(Headings, l) + float32(packed&maxTF)*norm(Body, l)
			}
			hs = append(hs, held{int32(n), tf})
			n++
		}
		s.held = hs
		df := float64(len(hs))
		if df == 0 {
			continue
		}
		idf := float32(q.weight * math.Log(1+(total-df+0.5)/(df+0.5)))
		for _, h := range hs {
			if acc[h.n] == 0 {
				touched = append(touched, h.n)
			}
			acc[h.n] += idf * h.tf / (k1 + h.tf)
		}
	}
	s.touched = touched
}

// uvarint reads the uvarint PutUvarint wrote at data[i] and returns it
// and the index past it. It is small enough to inline in score and
// scoreIn, the hot path of a search (a wrapper of binary.Uvarint with a
// one-byte fast path is not): most postings take a byte per number. The
// index writes data, so it is never malformed.
func uvarint(data []byte, i int) (uint64, int) {
	v := uint64(data[i])
	i++
	if v < 0x80 {
		return v, i
	}
	v &= 0x7f
	for shift := uint(7); ; shift += 7 {
		c := data[i]
		i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i
		}
	}
}

// Selection is a subset of an Index's documents, chosen by a predicate on
// their IDs that is asked once per document and remembered as one bit per
// document number, with the subset's own postings: for each term, the
// postings of its documents alone. A search within the subset (SearchIn)
// reads only those, so its cost is what it would be in an index of the
// subset's documents: the other documents' text changes neither its
// ranking nor its time. With the bits it keeps the subset's own ranking
// statistics, the number of its documents and their tokens per field; a
// term's count of documents in the subset is taken as a search reads its
// postings.
//
// The predicate is asked about every document at the first search through
// the Selection, which then reads every posting of the index once to
// build the subset's (a cost proportional to the index, paid again after a
// sweep renumbers the documents). Until then, the index keeps the
// Selection up to date as it changes, asking the predicate about each
// document it indexes, while the Selection is in use (the index holds it
// weakly). So a Selection costs len/8 bytes, its documents' postings
// (about what the index holds per document, for each of them) and a map
// entry per term they hold (Bytes). Make one per subset and keep it. It is
// safe for concurrent use.
type Selection struct {
	x    *Index
	keep func(id string) bool
	mu   sync.Mutex                // one search builds the subset at a time
	st   atomic.Pointer[selection] // built under the index's read lock; then changed under its write lock only
}

// selection is a Selection's subset in the numbering after the index's
// sweep number sweeps: its bits, its postings and the statistics of the
// documents its bits hold.
type selection struct {
	sel    *Selection
	sweeps uint64
	words  []uint64
	terms  map[*plist]*plist // by the index's postings of a term, the subset's
	live   int               // documents selected (bits set)
	total  [numFields]int64  // their tokens per field
	bytes  int64             // what words and terms hold, roughly
}

// selEntryBytes is about what a map entry of selection.terms and its
// plist cost.
const selEntryBytes = 64

// Select returns the subset of x's documents keep accepts. keep is called
// with the index locked (from searches, and from Put while the Selection
// is in use), once per document (see Selection); it must not use the
// Index, and its answer for an ID must not change: an ID whose answer may
// change needs a new Selection.
func (x *Index) Select(keep func(id string) bool) *Selection {
	return &Selection{x: x, keep: keep}
}

// Bytes returns about how much memory sel holds: nothing until its first
// search.
func (sel *Selection) Bytes() int64 {
	sel.x.mu.RLock()
	defer sel.x.mu.RUnlock()
	if st := sel.st.Load(); st != nil && st.sweeps == sel.x.sweeps {
		return st.bytes
	}
	return 0
}

// now returns sel's subset of the documents of x as they are, building it
// if it is not; the caller holds x's read lock, so it does not change
// meanwhile.
func (sel *Selection) now(x *Index) *selection {
	if sel.x != x {
		panic("search: a Selection used with another Index")
	}
	if st := sel.st.Load(); st != nil && st.sweeps == x.sweeps {
		return st
	}
	sel.mu.Lock()
	defer sel.mu.Unlock()
	if st := sel.st.Load(); st != nil && st.sweeps == x.sweeps {
		return st
	}
	st := &selection{sel: sel, sweeps: x.sweeps, words: make([]uint64, (len(x.docs)+63)/64), terms: map[*plist]*plist{}}
	for n := range x.docs {
		if d := &x.docs[n]; d.live && sel.keep(d.id) {
			st.words[n>>6] |= 1 << (n & 63)
			st.count(d, 1)
		}
	}
	var buf [2 * binary.MaxVarintLen32]byte
	for _, p := range x.terms {
		var own *plist
		p.each(func(n int32, packed uint64) {
			if st.words[n>>6]&(1<<(n&63)) != 0 {
				if own == nil {
					own = &plist{}
				}
				own.add(n, packed, &buf)
			}
		})
		if own != nil {
			st.terms[p] = own
			st.bytes += int64(len(own.data)) + selEntryBytes
		}
	}
	st.bytes += int64(8 * len(st.words))
	x.selMu.Lock()
	x.sels = append(x.sels, weak.Make(st))
	x.selMu.Unlock()
	sel.st.Store(st)
	return st
}

// add appends document n's posting, its counts packed, to p; n is above
// every document p holds.
func (p *plist) add(n int32, packed uint64, buf *[2 * binary.MaxVarintLen32]byte) {
	k := binary.PutUvarint(buf[:], uint64(n-p.next))
	k += binary.PutUvarint(buf[k:], packed)
	p.data = append(p.data, buf[:k]...)
	p.next = n + 1
	p.n++
}

// selections returns the subsets in use that describe x's documents as
// they are, forgetting the others; the caller holds x's write lock.
func (x *Index) selections() []*selection {
	x.selMu.Lock()
	defer x.selMu.Unlock()
	var out []*selection
	kept := x.sels[:0]
	for _, w := range x.sels {
		if st := w.Value(); st != nil && st.sweeps == x.sweeps {
			kept = append(kept, w)
			out = append(out, st)
		}
	}
	clear(x.sels[len(kept):])
	x.sels = kept
	return out
}

// count adds d to st's statistics (sign 1) or takes it out (-1).
func (st *selection) count(d *docEntry, sign int) {
	st.live += sign
	for f := range numFields {
		st.total[f] += int64(sign) * int64(d.len[f])
	}
}

// top selects the limit best of the touched documents that keep accepts.
func (x *Index) top(acc []float32, touched []int32, limit int, keep func(string) bool) []Hit {
	better := func(a, b Hit) bool {
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return a.ID < b.ID
	}
	hits := make([]Hit, 0, min(limit, len(touched)))
	for _, n := range touched {
		h := Hit{Score: float64(acc[n])}
		if len(hits) == limit && h.Score < hits[limit-1].Score {
			continue
		}
		h.ID = x.docs[n].id
		i := sort.Search(len(hits), func(i int) bool { return better(h, hits[i]) })
		if i == limit || keep != nil && !keep(h.ID) {
			continue
		}
		if len(hits) < limit {
			hits = append(hits, Hit{})
		}
		copy(hits[i+1:], hits[i:])
		hits[i] = h
	}
	return hits
}
