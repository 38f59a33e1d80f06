package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skillstore/skillstore/internal/flight"
)

// A catalog is built from one load per source: the source's refresh (for
// a Refresh), its snapshot, its listing and the discovery of its skill
// folders. Each load runs on its own goroutine, at most one per source at
// a time, and a build waits for each up to Options.SourceTimeout. A load
// still running then goes on in the background: the build serves the
// source's last finished load instead (or a Problem if it has none), and
// when the load ends with something new, Changed delivers so that the next
// Refresh serves it.

// errSlow is the cause of the failure recorded for a source left out of a
// catalog because it did not answer within Options.SourceTimeout.
var errSlow = errors.New("the source did not answer in time")

// sourceResult is one finished load of a source: what its snapshot holds,
// in folder order, or the problem that kept it from being listed. It is
// shared by the catalogs built from it and never changed.
type sourceResult struct {
	view    fs.FS
	gen     uint64 // view's snapshot generation (see snapshotGen)
	found   []found
	groups  []FoundGroup
	answers map[string]*groupAnswer // by folder, its FileGrouper's answers to keep
	problem *Problem                // the source could not be listed
}

// sourceLoads tracks the loads of one source.
type sourceLoads struct {
	mu      sync.Mutex
	running *sourceLoad   // the load under way, if any
	last    *sourceResult // the newest finished load
	slow    bool          // the newest load outlasted SourceTimeout: builds do not wait for the next
}

// forget drops what the source's loads found (Invalidate).
func (l *sourceLoads) forget() {
	l.mu.Lock()
	l.last, l.slow = nil, false
	l.mu.Unlock()
}

// sourceLoad is one load under way.
type sourceLoad struct {
	done chan struct{} // closed when res is set
	res  *sourceResult
	late bool // a catalog was built without waiting for it: signal when it brings something new
}

// loadAll returns every source's result for a build: each load's own if
// it ends within SourceTimeout, else the source's last result (pending
// reports which). When no source that answered has anything to serve, it
// waits for the slow ones, until ctx ends.
func (s *Store) loadAll(ctx context.Context, prev *Catalog, refresh bool) (results []*sourceResult, pending []bool, err error) {
	n := len(s.sources)
	loads := make([]*sourceLoad, n)
	results = make([]*sourceResult, n)
	pending = make([]bool, n)
	wait := make([]bool, n)
	for i := range n {
		loads[i], wait[i] = s.startLoad(ctx, i, prev, refresh)
	}
	wctx, cancel := ctx, context.CancelFunc(func() {})
	if s.opts.SourceTimeout > 0 {
		wctx, cancel = context.WithTimeout(ctx, s.opts.SourceTimeout)
	}
	defer cancel()
	for i, l := range loads {
		if !wait[i] {
			continue
		}
		select {
		case <-l.done:
		case <-wctx.Done():
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	served := false // some source has skills to serve
	var waiting []int
	for i, l := range loads {
		select {
		case <-l.done:
			results[i] = l.res
			served = served || l.res.problem == nil
		default:
			pending[i] = true
			waiting = append(waiting, i)
			if last := s.lastResult(i); last != nil && last.problem == nil {
				served = true
			}
		}
	}
	if !served && len(waiting) > 0 {
		// Nothing else to serve, so leaving the slow sources out helps no
		// one: wait until one of them has something.
		ended := make(chan int, len(waiting))
		for _, i := range waiting {
			go func() {
				<-loads[i].done
				ended <- i
			}()
		}
		for left := len(waiting); !served && left > 0; left-- {
			select {
			case i := <-ended:
				results[i], pending[i] = loads[i].res, false
				served = results[i].problem == nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		}
	}
	for i, l := range loads {
		if pending[i] {
			results[i] = s.leaveBehind(i, l)
		}
	}
	return results, pending, nil
}

// startLoad returns source i's load under way, starting one if none is,
// and whether a build should wait for it (the source is not known slow).
func (s *Store) startLoad(ctx context.Context, i int, prev *Catalog, refresh bool) (*sourceLoad, bool) {
	st := &s.loads[i]
	st.mu.Lock()
	defer st.mu.Unlock()
	if l := st.running; l != nil {
		return l, !st.slow
	}
	l := &sourceLoad{done: make(chan struct{}), late: st.slow}
	st.running = l
	go s.runLoad(context.WithoutCancel(ctx), i, l, prev, refresh)
	return l, !st.slow
}

// lastResult returns source i's newest finished load, if any.
func (s *Store) lastResult(i int) *sourceResult {
	st := &s.loads[i]
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.last
}

// leaveBehind stops waiting for load l of source i: it returns l's result
// if it has just ended, else the source's last result (or a Problem
// saying it is slow), marks the source slow and failing, and has l signal
// when it ends.
func (s *Store) leaveBehind(i int, l *sourceLoad) *sourceResult {
	st := &s.loads[i]
	st.mu.Lock()
	if l.res != nil {
		st.mu.Unlock()
		return l.res
	}
	l.late, st.slow = true, true
	last := st.last
	st.mu.Unlock()
	s.noteSlow(i)
	if last != nil {
		return last
	}
	src := s.sources[i]
	err := &Error{Kind: ErrUnavailable, Location: src.Location, Detail: fmt.Sprintf("did not answer within %s; serving the other sources", s.opts.SourceTimeout), cause: errSlow}
	return &sourceResult{problem: &Problem{Source: ref(src), Message: err.reason(), err: err}}
}

// runLoad runs load l of source i, records its result and, if a build did
// not wait for it and it found something new, signals Changed.
func (s *Store) runLoad(ctx context.Context, i int, l *sourceLoad, prev *Catalog, refresh bool) {
	start := time.Now()
	var res *sourceResult
	defer func() {
		if v := recover(); v != nil {
			p := flight.NewPanic(v, debug.Stack())
			s.opts.Logger.Error("a skill source panicked", "source", s.sources[i].Label, "location", s.sources[i].Location, "panic", string(p.Stack()))
			res = s.unlisted(i, p)
		}
		st := &s.loads[i]
		st.mu.Lock()
		news := !sameResult(st.last, res)
		st.last, st.running, l.res = res, nil, res
		slow := s.opts.SourceTimeout > 0 && time.Since(start) > s.opts.SourceTimeout
		st.slow = slow
		late := l.late && news
		st.mu.Unlock()
		close(l.done)
		if f := s.failing[i].Load(); !slow && res.problem == nil && f != nil && errors.Is(f.err, errSlow) {
			s.noteSource(i, nil) // it answers within the bound again
		}
		if late {
			select {
			case s.late <- struct{}{}:
			default:
			}
		}
	}()
	res = s.loadSource(ctx, i, prev, refresh)
}

// loadSource refreshes (if asked), lists and discovers source i, reading
// up to Options.Concurrency skill folders at once. A refresh that begins
// a failure is logged once the listing says what is served meanwhile.
func (s *Store) loadSource(ctx context.Context, i int, prev *Catalog, refresh bool) (res *sourceResult) {
	src := s.sources[i]
	if r, ok := src.FS.(Refresher); ok && refresh {
		if err := r.Refresh(ctx); s.noteSource(i, err) {
			defer func() {
				if res != nil { // nil when the listing panicked
					s.logFailing(i, "refreshing", err, res.problem == nil)
				}
			}()
		}
	}
	res = &sourceResult{view: src.FS}
	if sf, ok := src.FS.(SnapshotFS); ok {
		view, err := sf.Snapshot(ctx)
		s.noteListing(i, err)
		if err != nil {
			return s.unlisted(i, err)
		}
		res.view = view
		res.gen = s.snapshotGen(i, view)
	}
	if pf, ok := res.view.(PublishedFS); ok {
		// The snapshot the last load listed: it says everything about its
		// skills (nothing was read), so what that load found stands. An
		// idle replica of 100,000 skills refreshes without rebuilding them.
		if last := s.lastResult(i); last != nil && last.problem == nil && sameFS(last.view, res.view) {
			return last
		}
		res.found = s.allPublished(i, res.view, pf.Published())
		return res
	}
	if src.Grouper != nil {
		g, ok, keep := s.askGroup(i, res.view, ".", s.lastResult(i))
		if keep != nil {
			res.answers = map[string]*groupAnswer{".": keep}
		}
		if ok {
			// The source is one group: its skills, or why it has none.
			if err := checkGroup(g); err != nil {
				if errors.Is(err, ErrUnavailable) {
					s.noteListing(i, err)
					return s.unlisted(i, err)
				}
				s.noteListing(i, nil)
				res.found = []found{groupProblem(src, ".", err)}
				return res
			}
			dirs, err := s.groupDirs(i, res.view, ".", g)
			s.noteListing(i, err) // the group's skills folder is the source's listing
			if err != nil {
				return s.unlisted(i, err)
			}
			s.notes(i, g)
			res.groups = []FoundGroup{{Source: ref(src), Name: g.Name, Dir: ".", Skills: len(dirs)}}
			res.found = s.discoverAll(i, res.view, res.gen, dirs, prev)
			return res
		}
	}
	ents, err := fs.ReadDir(res.view, ".")
	s.noteListing(i, err)
	if err != nil {
		return s.unlisted(i, err)
	}
	if rootDoc(ents) {
		// The source is one skill's folder, as a one-skill archive is:
		// that skill, its own folders (assets/, references/) no skills.
		res.found = s.discoverAll(i, res.view, res.gen, []skillDir{{name: s.rootName(i, res.view), dir: "."}}, prev)
		return res
	}
	names := folders(ents)
	dirs := make([]skillDir, len(names))
	for k, n := range names {
		dirs[k] = skillDir{name: n, dir: n}
	}
	res.found = s.discoverAll(i, res.view, res.gen, dirs, prev)
	if src.Grouper != nil {
		res.found = append(res.found, s.discoverGroups(i, res, dirs, prev)...)
	}
	if len(dirs) == 1 {
		s.oneFolderDown(i, res.view, dirs[0].dir, res.found)
	}
	return res
}

// rootDoc reports whether a source's root listing holds a skill document:
// the source is then one skill's folder.
func rootDoc(ents []fs.DirEntry) bool {
	for _, d := range ents {
		if !d.IsDir() && IsDocName(d.Name()) {
			return true
		}
	}
	return false
}

// rootName is the name the one skill a source's root holds is served
// under (see rootDoc): the folder's own name for a local folder ("pdf" of
// "./skills/pdf"), else the name its frontmatter gives if the
// specification allows it (a bucket prefix, a repository's path, a
// filesystem a program made with fs.Sub), else "skill". Being the name of
// its folder, it is held to the rule that the frontmatter's name equals it.
func (s *Store) rootName(i int, fsys fs.FS) string {
	src := s.sources[i]
	if src.Kind == "local" && !strings.Contains(src.Location, "://") {
		if n := path.Base(strings.ReplaceAll(src.Location, `\`, "/")); servableDir(n) {
			return n
		}
	}
	if data, _, _, err := s.readDoc(fsys, "."); err == nil {
		if t := documentText(string(data)); t.err == nil {
			if fm, _, err := t.frontmatter(); err == nil && SpecName(fm.Name) {
				return fm.Name
			}
		}
	}
	return "skill"
}

// maxAskedDown bounds the folders oneFolderDown reads a document in, so a
// source whose one folder is anything else costs a few reads a listing.
const maxAskedDown = 4

// oneFolderDown explains, when the only folder of a source's root is no
// skill but holds skill folders, that the source is one folder too high:
// a program that embeds "skills" (//go:embed skills) serves its embed.FS
// whose root holds the folder "skills", not the skills, unless it takes
// fs.Sub(fsys, "skills"). found, the folder's discovery, becomes a
// problem saying so.
func (s *Store) oneFolderDown(i int, fsys fs.FS, dir string, found []found) {
	if len(found) != 1 || found[0].problem == nil || !errors.Is(found[0].problem.err, ErrNoSkillDoc) {
		return
	}
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return
	}
	holds, asked := false, 0
	for _, d := range ents {
		if !d.IsDir() && IsDocName(d.Name()) {
			return // a skill folder without its document read: reported as it is
		}
		if !holds && asked < maxAskedDown && d.IsDir() && servableDir(d.Name()) {
			asked++
			_, _, _, err := s.readDoc(fsys, path.Join(dir, d.Name()))
			holds = err == nil // one is enough to say so
		}
	}
	if !holds {
		return
	}
	e := &Error{Kind: ErrSkillInvalid, Skill: dir, cause: ErrNoSkillDoc,
		Detail: fmt.Sprintf("it is no skill but a folder of skills: the source is one folder above its skills; serve the folder %s itself (a Go program embedding it serves fs.Sub(fsys, %q))", Echo(dir), dir)}
	found[0].problem = &Problem{Source: found[0].problem.Source, Skill: dir, Message: e.reason(), err: e}
}

// folders returns the names of a listing's entries that may be skill
// folders: folders (or links) with a servable name.
func folders(ents []fs.DirEntry) []string {
	out := make([]string, 0, len(ents))
	for _, d := range ents {
		if servableDir(d.Name()) && (d.IsDir() || d.Type()&fs.ModeSymlink != 0) {
			out = append(out, d.Name())
		}
	}
	return out
}

// discoverGroups finds the groups among the folders of a source's root
// that hold no skill document (their discovery said so: res.found[k] is
// dirs[k]'s), replaces each one's problem with the group's, if refused, and
// discovers the skills of the others. A second group of a name already
// found in the source is refused.
func (s *Store) discoverGroups(i int, res *sourceResult, dirs []skillDir, prev *Catalog) []found {
	src := s.sources[i]
	var asks []int // the folders with no skill document
	for k, f := range res.found {
		if f.problem != nil && errors.Is(f.problem.err, ErrNoSkillDoc) {
			asks = append(asks, k)
		}
	}
	type answer struct {
		g    Group
		ok   bool
		keep *groupAnswer
	}
	answers := make([]answer, len(asks)) // asked concurrently: a bucket's are requests
	last := s.lastResult(i)
	s.concurrently(len(asks), func(a int) {
		answers[a].g, answers[a].ok, answers[a].keep = s.askGroup(i, res.view, dirs[asks[a]].dir, last)
	})
	for a, k := range asks {
		if keep := answers[a].keep; keep != nil {
			if res.answers == nil {
				res.answers = map[string]*groupAnswer{}
			}
			res.answers[dirs[k].dir] = keep
		}
	}
	var more []skillDir
	seen := map[string]string{} // group name: its folder
	for a, k := range asks {
		g, ok := answers[a].g, answers[a].ok
		if !ok {
			continue
		}
		if err := checkGroup(g); err != nil {
			res.found[k] = groupProblem(src, dirs[k].dir, err)
			continue
		}
		if other, dup := seen[g.Name]; dup {
			res.found[k] = groupProblem(src, dirs[k].dir, fmt.Errorf("the folder %s holds a group of the same name, %s, which is served instead", Echo(other), g.Name))
			continue
		}
		gd, err := s.groupDirs(i, res.view, dirs[k].dir, g)
		if err != nil {
			res.found[k] = groupProblem(src, dirs[k].dir, fmt.Errorf("%w: %w", ErrUnavailable, err))
			continue
		}
		seen[g.Name] = dirs[k].dir
		res.found[k] = found{}
		s.notes(i, g)
		res.groups = append(res.groups, FoundGroup{Source: ref(src), Name: g.Name, Dir: dirs[k].dir, Skills: len(gd)})
		more = append(more, gd...)
	}
	return s.discoverAll(i, res.view, res.gen, more, prev)
}

// discoverAll discovers dirs, up to Options.Concurrency folders at once.
// Results land in their slots, so the outcome does not depend on
// scheduling.
func (s *Store) discoverAll(i int, view fs.FS, gen uint64, dirs []skillDir, prev *Catalog) []found {
	out := make([]found, len(dirs))
	s.concurrently(len(dirs), func(k int) { out[k] = s.discoverOrReuse(i, view, gen, dirs[k], prev) })
	return out
}

// concurrently runs f(0) … f(n-1), Options.Concurrency at once (a
// source's reads are I/O: requests, for a bucket), and returns when all
// have.
func (s *Store) concurrently(n int, f func(k int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(s.opts.Concurrency, n) {
		wg.Go(func() {
			for k := range next {
				f(k)
			}
		})
	}
	for k := range n {
		next <- k
	}
	close(next)
	wg.Wait()
}

// allPublished builds the skills a snapshot lists, on every core: no
// request is made, and 100,000 skills cost a second of CPU. Results land
// in their slots, so the outcome does not depend on scheduling.
func (s *Store) allPublished(i int, view fs.FS, list []PublishedSkill) []found {
	list = slices.DeleteFunc(list, func(ps PublishedSkill) bool { return !servableDir(ps.Dir) })
	out := make([]found, len(list))
	s.expectIndexed(len(list))
	workers := min(runtime.GOMAXPROCS(0), len(list)/256+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for k := w; k < len(list); k += workers {
				out[k] = s.fromPublished(i, view, list[k])
			}
		})
	}
	wg.Wait()
	return out
}

// unlisted is the result of a source whose root could not be listed.
func (s *Store) unlisted(i int, err error) *sourceResult {
	src := s.sources[i]
	serr := s.sourceError(src, err)
	return &sourceResult{problem: &Problem{Source: ref(src), Message: serr.reason(), err: serr}}
}

// noteSlow records that source i did not answer within SourceTimeout,
// unless it is already failing, and logs it once.
func (s *Store) noteSlow(i int) {
	src := s.sources[i]
	f := &sourceFailure{err: fmt.Errorf("%w within %s", errSlow, s.opts.SourceTimeout), since: time.Now()}
	if s.failing[i].CompareAndSwap(nil, f) && !s.closed.Load() {
		s.opts.Logger.Warn("the skill source did not answer in time; serving the other sources, and its last listing if it had one, until it does",
			"source", src.Label, "location", src.Location, "waited", s.opts.SourceTimeout)
	}
}

// sameResult reports whether two loads of a source found the same thing:
// the same snapshot, skills and problems, so a catalog built from b would
// serve what one built from a does.
func sameResult(a, b *sourceResult) bool {
	if a == nil || b == nil {
		return a == b
	}
	if (a.problem == nil) != (b.problem == nil) {
		return false
	}
	if a.problem != nil {
		return a.problem.Message == b.problem.Message
	}
	if !sameFS(a.view, b.view) || len(a.found) != len(b.found) || !slices.Equal(a.groups, b.groups) {
		return false
	}
	for k, fa := range a.found {
		fb := b.found[k]
		switch {
		case (fa.skill == nil) != (fb.skill == nil), (fa.problem == nil) != (fb.problem == nil):
			return false
		case fa.skill != nil:
			x, y := fa.skill, fb.skill
			if x.Name != y.Name || x.DocPath != y.DocPath || x.DocSize != y.DocSize || x.docMod != y.docMod || x.Raw != y.Raw {
				return false
			}
		case fa.problem != nil:
			if fa.problem.Skill != fb.problem.Skill || fa.problem.Message != fb.problem.Message {
				return false
			}
		}
	}
	return true
}
