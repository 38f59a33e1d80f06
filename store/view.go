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
	// source labelled source: whether the caller may know it exists.
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
// counting, ranking or limiting. Which copy of a skill is served is decided
// by the store's layering first: a caller who may see a shadowed copy but
// not the copy that is served sees no skill of that name. Copies left out
// with a problem shadow nothing, so a caller whose own copy is broken is
// told of its problem, whatever hidden broken copies come first.
//
// The view of an unrestricted caller (View(nil), or a Filter that allows
// everything) costs one branch per read. A restricted view remembers, per
// catalog, the skills it lists, and which indexed skills it may find (a
// Subset), so that a listing or a search costs it no more than an
// unrestricted caller's. The store keeps that memory per filter key
// (Filter.ViewKey), within viewCacheBytes, so a view made per request
// finds what the last one of its filter learned.
//
// A later version of the store names a version of a skill through the
// view too: lookups by name are the view's, never the caller's.
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

// Store returns the store the view reads.
func (v *View) Store() *Store { return v.store }

// All reports whether the view hides nothing.
func (v *View) All() bool { return v.all }

// Visible reports whether the view includes sk.
func (v *View) Visible(sk *Skill) bool { return v.Allows(sk.Source.Label, sk.Name) }

// Allows reports whether the view includes the copy of skill name held by
// the source labelled source: a served copy, a shadowed one (Skill.Shadows)
// or one left out with a problem.
func (v *View) Allows(source, name string) bool {
	return v.all || v.filter.Allows(source, name)
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

// Status is the store's Status of the sources the view includes
// anything of.
func (v *View) Status(ctx context.Context) ([]SourceStatus, error) {
	st, err := v.store.Status(ctx)
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

// Groups returns the catalog's groups of skills (plugins) of which the
// view serves at least one skill, each with Skills set to how many it
// serves, in the catalog's order: a group whose skills the view hides is
// not shown to it, whatever it holds.
func (v *View) Groups(ctx context.Context) ([]FoundGroup, error) {
	c, err := v.store.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	list, err := v.List(ctx)
	if err != nil {
		return nil, err
	}
	type key struct {
		src  SourceRef
		name string
	}
	served := map[key]int{}
	for _, sk := range list {
		if g, _, ok := SplitGroup(sk.Name); ok {
			served[key{*sk.Source, g}]++
		}
	}
	var out []FoundGroup
	for _, g := range c.Groups {
		if n := served[key{g.Source, g.Name}]; n > 0 {
			g.Skills = n
			out = append(out, g)
		}
	}
	return out, nil
}

// Problems returns the catalog's problems the view includes: folders left
// out in copies it may see, and sources it may know of that failed, in
// the catalog's order.
func (v *View) Problems(ctx context.Context) ([]Problem, error) {
	c, err := v.store.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	if v.all {
		return c.Problems, nil
	}
	var out []Problem
	for _, p := range c.Problems {
		if p.Skill == "" && v.AllowsSource(p.Source.Label) || p.Skill != "" && v.Allows(p.Source.Label, p.Skill) {
			out = append(out, p)
		}
	}
	return out, nil
}

// notFound is the error for a skill the view hides: the one the store
// gives for a name it does not serve.
func notFound(name string) error { return &Error{Kind: ErrSkillNotFound, Skill: name} }

// List returns the skills of the store's List the view includes, sorted
// by name. The result is shared and must not be modified.
func (v *View) List(ctx context.Context) ([]*Skill, error) {
	if v.all {
		return v.store.List(ctx)
	}
	c, err := v.store.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	if l := v.state.list.Load(); l != nil && l.cat == c {
		return l.skills, nil
	}
	l := &viewList{cat: c, skills: v.filterList(c.Skills)}
	v.state.list.Store(l)
	v.state.listed.Store(int64(len(l.skills)))
	v.state.charge()
	return l.skills, nil
}

// filterList returns the skills of list the view includes.
func (v *View) filterList(list []*Skill) []*Skill {
	var out []*Skill
	for _, sk := range list {
		if v.filter.Allows(sk.Source.Label, sk.Name) {
			out = append(out, sk)
		}
	}
	return out
}

// Skill is the store's Skill, for a skill the view includes; a hidden one
// fails as a missing one does, whether it is served or left out with a
// problem (an unparsable SKILL.md, say).
func (v *View) Skill(ctx context.Context, name string) (*Skill, error) {
	sk, err := v.store.Skill(ctx, name)
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
	// A folder left out with a problem: the view's own copy decides,
	// though a hidden one comes first. Without a catalog to ask, it is
	// hidden.
	p, ok := v.Problem(ctx, name)
	if !ok {
		return nil, notFound(name)
	}
	if !errors.As(p.Err(), &se) {
		return nil, p.Err()
	}
	own := *se // a copy, as the store gives: callers may annotate the error they get
	return nil, &own
}

// Problem is the catalog's Problem for the folder called name, as the
// view sees it: the first copy left out with a problem in a source the
// view includes, however many hidden copies come before it. It reports
// false when the view includes none, or the catalog cannot be read. The
// Problem's error is the catalog's: do not modify it.
func (v *View) Problem(ctx context.Context, name string) (Problem, bool) {
	c, err := v.store.Catalog(ctx)
	if err != nil {
		return Problem{}, false
	}
	if p, ok := c.Problem(name); !ok || v.all || v.filter.Allows(p.Source.Label, name) {
		return p, ok
	}
	for _, p := range c.Problems { // the first copy is hidden: a rare path, worth a scan
		if p.Skill == name && v.filter.Allows(p.Source.Label, name) {
			return p, true
		}
	}
	return Problem{}, false
}

// Document is the store's Document, for a skill the view includes.
func (v *View) Document(ctx context.Context, name string) (Document, error) {
	if v.all {
		return v.store.Document(ctx, name)
	}
	sk, err := v.Skill(ctx, name)
	if err != nil {
		return Document{}, err
	}
	return v.store.DocumentOf(ctx, sk)
}

// ReadFile is the store's ReadFile, for a skill the view includes. The
// name and path are checked first, as the store checks them, so a bad path
// in a hidden skill fails as it does in a missing one.
func (v *View) ReadFile(ctx context.Context, name, filePath string) (File, error) {
	if v.all {
		return v.store.ReadFile(ctx, name, filePath)
	}
	if err := v.store.CheckFile(name, filePath); err != nil {
		return File{}, err
	}
	sk, err := v.Skill(ctx, name)
	if err != nil {
		return File{}, err
	}
	return v.store.ReadFileOf(ctx, sk, filePath)
}

// ReadText is the store's ReadText, for a skill the view includes.
func (v *View) ReadText(ctx context.Context, name, filePath string) (File, error) {
	if v.all {
		return v.store.ReadText(ctx, name, filePath)
	}
	f, err := v.ReadFile(ctx, name, filePath)
	if err == nil && f.Binary {
		return File{}, &Error{Kind: ErrNotText, Skill: name, Path: f.Path}
	}
	return f, err
}

// Search is the store's Search over the skills the view includes: hidden
// skills are left out before ranking and limiting, so they neither appear
// nor take a place, and the ranking's statistics are the view's own
// skills' (SearchIn), so hidden text changes neither the order nor
// which hits fill the limit.
func (v *View) Search(ctx context.Context, query string, limit int) ([]*Skill, error) {
	if v.all {
		return v.store.Search(ctx, query, limit)
	}
	found, err := v.store.SearchIn(ctx, query, limit, v.state.sub)
	v.state.charge() // the subset, built by the view's first search
	return found, err
}

// viewState is what a restricted view remembers between calls: the
// skills it lists, for the catalog they were filtered from, and the
// subset of the search index it may find.
type viewState struct {
	sub  *Subset
	list atomic.Pointer[viewList]

	cache   *viewCache // that holds the state, to charge its memory to
	id      any
	listed  atomic.Int64 // the skills of the list held
	charged atomic.Int64 // the bytes last charged
}

// viewList is a view's List of one catalog.
type viewList struct {
	cat    *Catalog
	skills []*Skill
}

// newViewState returns the state of f's view of s, held in cache (if not
// nil).
func newViewState(s *Store, f Filter, cache *viewCache) *viewState {
	st := &viewState{sub: s.Subset(f.Allows), cache: cache, id: f.ViewKey()}
	st.charged.Store(viewStateBytes)
	return st
}

// charge counts what st holds against the cache's budget, its list and
// its search subset, when that changed, if the cache still holds st (an
// evicted state is not brought back).
func (st *viewState) charge() {
	size := viewStateBytes + 8*st.listed.Load() + st.sub.Bytes()
	if st.charged.Swap(size) == size {
		return
	}
	if cur, ok := st.cache.lru.Get(st.id); ok && cur == st {
		st.cache.lru.Add(st.id, st, size)
	}
}

// viewCacheBytes bounds the memory of the restricted views' states that
// the store keeps: a view of n skills in a catalog of N holds about 8n
// bytes once it has listed them and, once it has searched, N/8 bytes and
// the search index's postings of its n skills (10,000 of 100,000
// realistic skills: about 2.5 MB; see Subset). A view past it is
// filtered afresh at its next call.
const viewCacheBytes = lru.StoreViews

// viewStateBytes is the memory of a viewState without its list and bits.
const viewStateBytes = 256

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
