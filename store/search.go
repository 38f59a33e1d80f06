package store

import (
	"context"
	"errors"
	"hash/maphash"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/search"
)

// The search index holds every skill discovery reads, shadowed copies
// too, under an ID naming its folder and source. It costs nothing for a
// document already indexed at its version, and drops what a catalog no
// longer has. A new or changed skill is indexed in the background once
// its catalog is built, from the text discovery read (held meanwhile up
// to maxPendingBytes; past that, the discovery worker indexes it itself),
// so that indexing adds little to discovery. A search on a catalog waits
// for the background work its build started, so it ranks every skill of
// that catalog; a search during a build ranks the catalog being served,
// which the index still holds. Searches keep the hits the catalog serves.
//
// Skills from a published snapshot are indexed from their frontmatter
// (name and description): their documents are not read to build the
// catalog, and reading 100,000 of them would cost 100,000 requests.

var versionSeed = maphash.MakeSeed()

// indexID names a skill folder of a source in the index. It sorts by
// folder name first, so equal scores rank alphabetically. The first
// source's are the folder names themselves, which the skills hold anyway:
// 100,000 IDs are not built.
func indexID(src int, dir string) string {
	if src == 0 {
		return dir
	}
	return dir + "\x00" + strconv.Itoa(src)
}

// parseIndexID splits an indexID, reading from its end: a search calls it
// for every candidate, and a folder name never holds a NUL.
func parseIndexID(id string) (folder, bool) {
	i := strings.LastIndexByte(id, 0)
	if i < 0 {
		return folder{0, id}, id != ""
	}
	src, err := strconv.Atoi(id[i+1:])
	return folder{src, id[:i]}, err == nil
}

// maxPendingBytes bounds the documents held for background indexing.
const maxPendingBytes = 64 << 20

// inlineBytes is the longest body indexed in the discovery worker.
const inlineBytes = 1024

// indexer holds the documents waiting to be indexed in the background,
// and tells searches when that work is done.
type indexer struct {
	mu      sync.Mutex
	pending []pendingDoc
	bytes   int
	newest  map[string]uint64 // per ID, the version of its newest document waiting
	running int               // background batches under way
	idle    chan struct{}     // closed when running drops to 0
}

// index adds a discovered skill to the search index, or leaves it to
// indexPending: its frontmatter, and its body or, for a published skill,
// its listed headings.
func (s *Store) index(sk *Skill, t docText) {
	if s.search == nil {
		return // a benchmark's baseline (export_test.go)
	}
	id := indexID(int(sk.src), sk.Name)
	var h maphash.Hash
	h.SetSeed(versionSeed)
	for _, part := range []string{t.header, t.body, t.headings} {
		h.WriteString(part)
		h.WriteByte(0)
	}
	version := h.Sum64() | 1 // never 0, which means "no version"
	if v, ok := s.search.Version(id); ok && v == version {
		return
	}
	name := sk.Name
	if sk.Frontmatter.Name != "" && sk.Frontmatter.Name != sk.Name {
		name += " " + sk.Frontmatter.Name
	}
	body := t.body
	p := pendingDoc{id: id, version: version, name: name, description: sk.Frontmatter.Description, body: body, headings: t.headings}
	ix := &s.indexing
	ix.mu.Lock()
	if ix.newest == nil {
		ix.newest = map[string]uint64{}
	}
	ix.newest[id] = version // an older document still waiting is now out of date
	// A short document is indexed at once: queueing it would cost more
	// than indexing it. A published skill's (its frontmatter and
	// headings) is short, but there may be 100,000 of them, listed with
	// no request: they are queued, so a cold catalog is served before
	// its index is complete (a search waits for it).
	queued := (len(body) > inlineBytes || sk.published) && ix.bytes+len(body) <= maxPendingBytes
	if queued {
		ix.pending = append(ix.pending, p)
		ix.bytes += len(body)
	}
	ix.mu.Unlock()
	if !queued {
		s.put(p)
	}
}

// expectIndexed makes room for n more documents waiting to be indexed,
// so that queueing a published catalog of 100,000 skills does not grow
// the queue (under its lock) a step at a time.
func (s *Store) expectIndexed(n int) {
	ix := &s.indexing
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.pending = slices.Grow(ix.pending, n)
	if ix.newest == nil {
		ix.newest = make(map[string]uint64, n)
	}
}

// put indexes p unless a newer document with its ID has been discovered
// since, or the skill has left the catalog: the background indexing of
// an older build never overwrites a newer one, nor brings a removed skill
// back.
func (s *Store) put(p pendingDoc) {
	ix := &s.indexing
	s.search.PutIf(p.doc(), func() bool { // with the index locked
		ix.mu.Lock()
		defer ix.mu.Unlock()
		if ix.newest[p.id] != p.version {
			return false
		}
		delete(ix.newest, p.id)
		return true
	})
}

// pendingDoc is a skill waiting to be indexed.
type pendingDoc struct {
	id                      string
	version                 uint64
	name, description, body string
	headings                string // listed rather than found in body (a published skill)
}

func (p pendingDoc) doc() search.Doc {
	d := search.SkillDoc(p.id, p.name, p.description, p.body)
	if p.headings != "" {
		d.Fields[search.Headings] = p.headings
	}
	d.Version = p.version
	return d
}

// indexPending indexes in the background the documents discovery left
// for later. A build calls it before its catalog is served, so a search
// on that catalog waits for them.
func (s *Store) indexPending() {
	ix := &s.indexing
	ix.mu.Lock()
	docs := ix.pending
	ix.pending, ix.bytes = nil, 0
	if len(docs) == 0 {
		ix.mu.Unlock()
		return
	}
	if ix.running == 0 {
		ix.idle = make(chan struct{})
	}
	ix.running++
	ix.mu.Unlock()
	go func() {
		// Analysis runs in parallel; the index takes one update at a time.
		// A core is left to the requests a cold server is answering
		// meanwhile (100,000 published skills take a second of CPU).
		var wg sync.WaitGroup
		workers := max(1, min(s.opts.Concurrency, len(docs), runtime.GOMAXPROCS(0)-1))
		for w := range workers {
			wg.Go(func() {
				for i := w; i < len(docs); i += workers {
					s.put(docs[i])
				}
			})
		}
		wg.Wait()
		ix.mu.Lock()
		if ix.running--; ix.running == 0 {
			if len(ix.newest) == 0 {
				ix.newest = nil // a map never shrinks: 100,000 entries, deleted, still hold ~5 MB
			}
			close(ix.idle)
		}
		ix.mu.Unlock()
	}()
}

// Indexed waits until the search index holds every skill the catalogs
// built so far found (indexing runs in the background after a catalog is
// served), or ctx ends. Work that can wait for a cold server's first
// answers can wait for this too.
func (s *Store) Indexed(ctx context.Context) error {
	s.indexing.mu.Lock()
	idle := s.indexing.idle
	s.indexing.mu.Unlock()
	if idle == nil {
		return nil
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// searchStats describes the search index (Stats.Search).
func (s *Store) searchStats() search.Stats {
	if s.search == nil {
		return search.Stats{}
	}
	return s.search.Stats()
}

// pruneIndex drops from the index the skills c no longer holds, except
// those of the sources whose load c did not wait for (pending): that load
// is indexing what it finds for a later catalog.
func (s *Store) pruneIndex(c *Catalog, pending []bool) {
	if s.search == nil {
		return
	}
	keep := func(id string) bool {
		f, ok := parseIndexID(id)
		return ok && (c.inFolder(f) != nil || f.src >= 0 && f.src < len(pending) && pending[f.src])
	}
	s.indexing.mu.Lock()
	for id := range s.indexing.newest {
		if !keep(id) {
			delete(s.indexing.newest, id)
		}
	}
	s.indexing.mu.Unlock()
	s.search.Retain(keep)
}

// errNoSearch is the error of searching a store built with
// Options.NoSearch.
var errNoSearch = errors.New("this store keeps no search index (Options.NoSearch)")

// newIndex returns the store's search index, or nil with none.
func newIndex(none bool) *search.Index {
	if none {
		return nil
	}
	return search.New()
}

// subset is a part of a Store's skills, chosen by the label of a skill's
// source and its name, to search in (searchIn). Which indexed skills it
// holds is decided once per skill and remembered, a bit per skill in the
// index, with the index's postings of its skills alone (search.Selection),
// until the index renumbers its documents (after a quarter of them has
// been replaced or removed): the first search through a subset calls its
// predicate for every indexed skill (shadowed copies included) and reads
// the whole index once; then the index calls it for each skill it
// indexes while the subset is in use. A restricted View keeps one. It is
// safe for concurrent use.
//
// A search within a subset ranks with the subset's own statistics, as a
// store holding only its skills would, and costs what a search of such a
// store costs: the other skills' text changes neither the order, nor
// which hits fill the limit, nor the time it takes. Its memory (Bytes) is
// a bit per indexed skill and, for each of its skills, about what the
// index holds for one.
type subset struct{ sel *search.Selection }

// Bytes returns about how much memory the subset holds: nothing before
// its first search.
func (sub *subset) Bytes() int64 {
	if sub == nil || sub.sel == nil {
		return 0
	}
	return sub.sel.Bytes()
}

// newSubset returns the skills keep accepts, given the label of a
// skill's source and its name. keep is called with the search index locked; it
// must be cheap, must not use the Store, and must answer alike for a
// source and name over the subset's life (a new access policy needs a new
// subset).
func (s *Store) newSubset(keep func(source, name string) bool) *subset {
	if s.search == nil {
		return &subset{}
	}
	return &subset{sel: s.search.Select(func(id string) bool {
		f, ok := parseIndexID(id)
		return ok && f.src >= 0 && f.src < len(s.sources) && keep(s.sources[f.src].Label, f.dir)
	})}
}

// searchIn ranks the catalog's skills for query (a request in everyday
// words: see package search for how it is matched) and returns at most
// limit of them, best first, over the skills of sub (all, if sub is
// nil): limit counts only those, so a caller that may see part of the
// catalog gets the best limit of its skills, however many others rank
// higher. They rank as in a store holding only sub's skills (the
// shadowed copies sub holds included), less those whose name this store
// serves from a copy outside sub. A skill outside sub costs a search
// nothing. served, if not nil, is the catalog whose copies are found, a
// view's own layering of the current catalog; nil: the current catalog.
func (s *Store) searchIn(ctx context.Context, query string, limit int, sub *subset, served *Catalog) ([]*Skill, error) {
	if s.search == nil {
		return nil, errNoSearch
	}
	c := served
	if c == nil {
		var err error
		if c, err = s.catalog(ctx); err != nil {
			return nil, err
		}
	}
	if limit <= 0 {
		return nil, nil
	}
	if err := s.Indexed(ctx); err != nil {
		return nil, err
	}
	var sel *search.Selection
	if sub != nil {
		sel = sub.sel
	}
	// Shadowed copies and skills of another catalog are indexed too: rank
	// the skills this catalog serves.
	hits := s.search.SearchIn(query, limit, sel, func(id string) bool {
		f, _ := parseIndexID(id)
		sk := c.byName[f.dir]
		return sk != nil && int(sk.src) == f.src
	})
	out := make([]*Skill, len(hits))
	for i, h := range hits {
		f, _ := parseIndexID(h.ID)
		out[i] = c.byName[f.dir]
	}
	return out, nil
}
