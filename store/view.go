package store

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/skillstore/skillstore/internal/lru"
)

// Filter says which copies of skills a View includes. The store declares
// it, so it imports no policy package; access.Filter is one.
type Filter interface {
	// All reports whether the filter includes everything: a view of such
	// a filter costs one branch per read.
	All() bool
	// Allows reports whether the view includes the copy of skill name
	// held by the source labelled source.
	Allows(source, name string) bool
	// AllowsSource reports whether the view includes anything of the
	// source labelled source: whether the caller may know it exists. A
	// source it excludes takes no part in the view's layering (see View),
	// and none of its copies is included, whatever Allows says.
	AllowsSource(source string) bool
	// ViewKey identifies the filter's answers: two filters with equal
	// keys include the same skills. It must be comparable. The store
	// remembers what a view learns (its listing, its search subset) by
	// it, so views made afresh per request cost what one kept view does.
	ViewKey() any
}

// View is one caller's view of a store: the skills a Filter lets it see,
// through the store's own reads. Every tool, page and MCP surface reads
// the catalog through a View, so what a caller may see is decided in this
// one place, inside the store.
//
// A skill the caller may not see is indistinguishable from one that does
// not exist: lookups fail with the store's ErrSkillNotFound for its name
// (whatever else is wrong with it), after the same checks of the name and
// path a missing skill gets; listings and searches leave it out before
// counting, ranking or limiting, and a pinned read of it fails as a read of
// a missing skill does.
//
// Which copy of a skill a view serves is decided by layering the sources
// the view does not exclude whole (Filter.AllowsSource), then hiding the
// copies the Filter does not allow (Filter.Allows). A source the view
// excludes whole takes no part in the view's layering: its copies neither
// serve nor shadow, so such a view is the catalog of a store without that
// source, in every read (a caller who may not see a channel's source,
// "registry@canary", is served the next source's copies, "registry"'s).
// A copy hidden inside a source the view includes still shadows: a caller
// who may see a shadowed copy but not the copy that is served sees no
// skill of that name. Copies left out with a problem shadow nothing, so a
// caller whose own copy is broken is told of its problem, whatever hidden
// broken copies come first.
//
// The view of an unrestricted caller (View(nil), or a Filter that allows
// everything) costs one branch per read. A restricted view remembers, per
// catalog, the skills it lists, and which indexed skills it may find (a
// Subset), so that a listing or a search costs it no more than an
// unrestricted caller's. The store keeps that memory per filter key
// (Filter.ViewKey), within viewCacheBytes, so a view made per request
// finds what the last one of its filter learned. A view that excludes a
// source whole layers its catalog once per store catalog, at its first
// read of it (lookups by name included), costing about what listing the
// skills of the sources it includes costs; its later reads cost what a
// restricted view's do.
//
// Reads by name and reads pinned to one copy of a skill (ReadOptions)
// are the view's. A later version of the store names a version of a skill
// through the view too (a field of ReadOptions): lookups are the view's,
// never the caller's.
type View struct {
	store  *Store
	filter Filter
	all    bool       // the filter hides nothing
	state  *viewState // what a restricted view remembers; nil if all
}

// View returns the view of the caller f lets see; a nil f sees
// everything. Views are cheap: make one per request.
func (s *Store) View(f Filter) *View {
	if f == nil || f.All() {
		return &s.all
	}
	return &View{store: s, filter: f, state: s.views.state(s, f)}
}

// All reports whether the view hides nothing.
func (v *View) All() bool { return v.all }

// Visible reports whether the view includes sk.
func (v *View) Visible(sk *Skill) bool { return v.Allows(sk.Source.Label, sk.Name) }

// Allows reports whether the view includes the copy of skill name held by
// the source labelled source: a served copy, a shadowed one (Skill.Shadows)
// or one left out with a problem. Nothing of a source the view excludes
// whole (AllowsSource) is included, whatever the Filter's Allows says.
func (v *View) Allows(source, name string) bool {
	return v.all || v.filter.Allows(source, name) && (v.state.excluded == nil || v.filter.AllowsSource(source))
}

// AllowsSource reports whether the view includes anything of the source
// labelled source: whether the caller may know it exists.
func (v *View) AllowsSource(source string) bool {
	return v.all || v.filter.AllowsSource(source)
}

// Key identifies what the view includes (its Filter's ViewKey): two views
// with equal keys include the same skills, so what is built for one
// serves the other. It is nil for a view that hides nothing.
func (v *View) Key() any {
	if v.all {
		return nil
	}
	return v.filter.ViewKey()
}

// Shadows returns the copies sk hides (Skill.Shadows) that the view
// includes.
func (v *View) Shadows(sk *Skill) []SourceRef {
	if v.all {
		return sk.Shadows
	}
	var out []SourceRef
	for _, s := range sk.Shadows {
		if v.Allows(s.Label, sk.Name) {
			out = append(out, s)
		}
	}
	return out
}

// Status returns the state of every source the view includes anything
// of, in priority order, as of the current catalog.
func (v *View) Status(ctx context.Context) ([]SourceStatus, error) {
	st, err := v.store.status(ctx)
	if err != nil || v.all {
		return st, err
	}
	out := st[:0]
	for _, s := range st {
		if v.AllowsSource(s.Source.Label) {
			out = append(out, s)
		}
	}
	return out, nil
}

// Catalog returns the current catalog as the view sees it, building the
// store's on first use; a caller whose ctx ends stops waiting, and the
// build goes on. An unrestricted view gets the store's catalog. A
// restricted one gets the part of it the view includes, made once per
// catalog and remembered: the skills it serves; the problems of folders
// it may see and of sources it may know of; the shadowed copies whose
// winner and loser it may both see; the groups it serves a skill of, each
// counting those skills. Catalog.Problem and Catalog.HasGroup answer for
// the view too: a folder left out with a problem is the view's first copy
// of it, however many hidden copies come before. The result is shared and
// must not be modified.
func (v *View) Catalog(ctx context.Context) (*Catalog, error) {
	c, err := v.store.catalog(ctx)
	if err != nil || v.all {
		return c, err
	}
	return v.CatalogOf(c), nil
}

// CatalogOf returns c, a catalog of the store's unrestricted view (the
// current one or an earlier one), as the view sees it: what Catalog
// returns while c is current. A surface that keeps lists of a catalog
// (the MCP server's) filters them through it, so that they are the
// view's, copies of sources the view excludes whole left out of its
// layering, and compares an earlier catalog's with the current one's.
// The view remembers its catalog of the current catalog only. The result
// is shared and must not be modified.
func (v *View) CatalogOf(c *Catalog) *Catalog {
	if v.all || c == nil {
		return c
	}
	if r := v.state.cat.Load(); r != nil && r.of == c {
		return r.view
	}
	from := c
	if ex := v.state.excluded; ex != nil {
		// A source the view excludes whole takes no part in its layering.
		from = layer(c.results, c.withheld, func(i int) bool { return ex[i] })
		from.Built = c.Built
	}
	r := &viewCatalog{of: c, view: restrict(from, v.filter)}
	if v.store.cat.Load() == c {
		v.state.cat.Store(r)
		v.state.held.Store(int64(len(r.view.Skills) + len(r.view.Problems) + len(r.view.Shadowed)))
		v.state.charge()
	}
	return r.view
}

// restrict returns the part of c that f includes (see View.Catalog).
func restrict(c *Catalog, f Filter) *Catalog {
	r := &Catalog{Built: c.Built, Groups: c.Groups, results: c.results, byName: map[string]*Skill{}}
	for _, sk := range c.Skills {
		if !f.Allows(sk.Source.Label, sk.Name) {
			continue
		}
		r.Skills = append(r.Skills, sk)
		r.byName[sk.Name] = sk
		r.noteGroup(sk.Name)
	}
	for i, p := range c.Problems {
		if p.Skill == "" && !f.AllowsSource(p.Source.Label) || p.Skill != "" && !f.Allows(p.Source.Label, p.Skill) {
			continue
		}
		r.Problems = append(r.Problems, p)
		// A name the store serves from a copy the view hides is not
		// known to the view: its own broken copy does not answer for it.
		if p.Skill == "" || c.byName[p.Skill] != nil && r.byName[p.Skill] == nil {
			continue
		}
		if r.problems == nil {
			r.problems = map[string]*Problem{}
		}
		if r.problems[p.Skill] == nil {
			r.problems[p.Skill] = &c.Problems[i]
			r.noteGroup(p.Skill)
		}
	}
	for _, sh := range c.Shadowed {
		if f.Allows(sh.Hidden.Label, sh.Name) && f.Allows(sh.WinnerIn.Label, sh.Name) {
			r.Shadowed = append(r.Shadowed, sh)
		}
	}
	r.Groups = r.ServedGroups()
	return r
}

// notFound is the error for a skill the view hides: the one the store
// gives for a name it does not serve.
func notFound(name string) error { return &Error{Kind: ErrSkillNotFound, Skill: name} }

// List returns the skills the view serves, sorted by name: its Catalog's
// Skills. The result and the skills it points to are shared and must not
// be modified.
func (v *View) List(ctx context.Context) ([]*Skill, error) {
	c, err := v.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	return c.Skills, nil
}

// Skill returns the skill called name the view serves. A skill the view
// hides fails as a missing one does (ErrSkillNotFound), whether it is
// served or left out with a problem (an unparsable SKILL.md, say); a
// folder left out with a problem fails with that problem (ErrNoSkillDoc,
// ErrSkillInvalid, ...). The result is shared and must not be modified.
func (v *View) Skill(ctx context.Context, name string) (*Skill, error) {
	if !v.all && v.state.excluded != nil {
		// The view's own layering decides: its catalog answers.
		if err := CheckName(name); err != nil {
			return nil, err
		}
		c, err := v.Catalog(ctx)
		if err != nil {
			return nil, err
		}
		return c.lookup(name)
	}
	sk, err := v.store.skill(ctx, name)
	switch {
	case v.all:
		return sk, err
	case err == nil && v.Visible(sk):
		return sk, nil
	case err == nil:
		return nil, notFound(name)
	}
	var se *Error
	if !errors.As(err, &se) || se.Kind == ErrSkillNotFound || se.Kind == ErrInvalidName || se.Skill != name {
		return nil, err // not about this skill (a source that fails, a cancelled request): the same for everyone
	}
	// A folder left out with a problem: the view's own copy decides (a
	// rare path: the view's catalog is made for it).
	c, cerr := v.Catalog(ctx)
	if cerr != nil {
		return nil, notFound(name)
	}
	return c.lookup(name)
}

// Search ranks the skills the view serves for query (a request in
// everyday words: see package search for how it is matched) and returns
// at most limit of them, best first. A query of stop words or punctuation
// only finds nothing. Hidden skills are left out before ranking and
// limiting, so they neither appear nor take a place, and the ranking's
// statistics are the view's own skills', so hidden text changes neither
// the order nor which hits fill the limit.
func (v *View) Search(ctx context.Context, query string, limit int) ([]*Skill, error) {
	if v.all {
		return v.store.searchIn(ctx, query, limit, nil, nil)
	}
	var served *Catalog // the copies the view serves, when its layering is its own
	if v.state.excluded != nil {
		c, err := v.Catalog(ctx)
		if err != nil {
			return nil, err
		}
		served = c
	}
	found, err := v.store.searchIn(ctx, query, limit, v.state.sub, served)
	v.state.charge() // the subset, built by the view's first search
	return found, err
}

// viewState is what a restricted view remembers between calls: its
// catalog, for the store's catalog it was made from, and the subset of
// the search index it may find.
type viewState struct {
	sub      *subset
	cat      atomic.Pointer[viewCatalog]
	excluded []bool // per source: the filter excludes it whole; nil if none

	cache   *viewCache // that holds the state, to charge its memory to
	id      any
	held    atomic.Int64 // the entries of the catalog held
	charged atomic.Int64 // the bytes last charged
}

// viewCatalog is a view's Catalog of one store catalog.
type viewCatalog struct {
	of, view *Catalog
}

// newViewState returns the state of f's view of s, held in cache (if not
// nil).
func newViewState(s *Store, f Filter, cache *viewCache) *viewState {
	st := &viewState{cache: cache, id: f.ViewKey()}
	for i, src := range s.sources {
		if !f.AllowsSource(src.Label) {
			if st.excluded == nil {
				st.excluded = make([]bool, len(s.sources))
			}
			st.excluded[i] = true
		}
	}
	keep := f.Allows
	if st.excluded != nil {
		keep = func(source, name string) bool { return f.AllowsSource(source) && f.Allows(source, name) }
	}
	st.sub = s.newSubset(keep)
	st.charged.Store(viewStateBytes)
	return st
}

// charge counts what st holds against the cache's budget, its catalog
// and its search subset, when that changed, if the cache still holds st (an
// evicted state is not brought back).
func (st *viewState) charge() {
	size := viewStateBytes + viewEntryBytes*st.held.Load() + st.sub.Bytes()
	if st.charged.Swap(size) == size {
		return
	}
	if cur, ok := st.cache.lru.Get(st.id); ok && cur == st {
		st.cache.lru.Add(st.id, st, size)
	}
}

// viewCacheBytes bounds the memory of the restricted views' states that
// the store keeps: a view of n skills in a catalog of N holds about
// viewEntryBytes×n once it has read its catalog and, once it has
// searched, N/8 bytes and the search index's postings of its n skills
// (10,000 of 100,000 realistic skills: about 3 MB; see subset). A view
// past it is filtered afresh at its next call.
const viewCacheBytes = lru.StoreViews

// viewStateBytes is the memory of a viewState without its catalog and
// bits; viewEntryBytes that of one entry of its catalog (a slice slot and
// a map entry).
const (
	viewStateBytes = 256
	viewEntryBytes = 64
)

// viewCache holds restricted views' states, by filter, most recently used
// first.
type viewCache struct {
	lru *lru.Cache[any, *viewState]
}

func newViewCache() *viewCache {
	return &viewCache{lru: lru.New[any, *viewState](viewCacheBytes)}
}

// state returns the state of f's view of s, remembered or new.
func (vc *viewCache) state(s *Store, f Filter) *viewState {
	id := f.ViewKey()
	if st, ok := vc.lru.Get(id); ok {
		return st
	}
	st := newViewState(s, f, vc)
	vc.lru.Add(id, st, viewStateBytes)
	return st
}
