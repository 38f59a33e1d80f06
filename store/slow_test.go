package store_test

import (
	"context"
	"io/fs"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/skillstore/skillstore/internal/storetest"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

// gateFS answers like files, except that while shut every Open blocks
// until the gate opens; it counts the calls that blocked.
type gateFS struct {
	files   fstest.MapFS
	shut    atomic.Bool
	blocked atomic.Int32
	open    chan struct{}
	once    sync.Once
}

// newGate returns a gate over files, shut or not; it is released when
// the test ends, so no blocked Open outlives it.
func newGate(t *testing.T, files fstest.MapFS, shut bool) *gateFS {
	g := &gateFS{files: files, open: make(chan struct{})}
	g.shut.Store(shut)
	t.Cleanup(g.release)
	return g
}

// release opens the gate for good and lets every blocked Open through.
func (g *gateFS) release() {
	g.once.Do(func() {
		g.shut.Store(false)
		close(g.open)
	})
}

func (g *gateFS) Open(name string) (fs.File, error) {
	if g.shut.Load() {
		g.blocked.Add(1)
		<-g.open
	}
	return g.files.Open(name)
}

// TestSlowSourceLeftOut: a source that does not answer is left out of
// the catalog after SourceTimeout, as a failing source is (a Problem
// naming it, and in Failing), while the other source is served; later
// refreshes of the other source do not wait for it, and it holds one
// load however many refreshes come; once it answers, Changed delivers
// and a refresh serves its skills.
func TestSlowSourceLeftOut(t *testing.T) {
	slow := newGate(t, storetest.MapFS("remote/SKILL.md="+storetest.Doc("remote", "Far away.")), true)
	local := storetest.MapFS("a/SKILL.md=" + storetest.Doc("a", "A."))
	s := storetest.New(t, store.Options{SourceTimeout: 300 * time.Millisecond}, slow, local)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := s.Changed(ctx)

	cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
	c, err := s.View(nil).Catalog(cctx)
	ccancel()
	if err != nil {
		t.Fatalf("the local source was held by the slow one: %v", err)
	}
	if storetest.Names(c.Skills) != "a" {
		t.Errorf("skills %q; want a", storetest.Names(c.Skills))
	}
	if len(c.Problems) != 1 || c.Problems[0].Source.Location != "./project" || c.Problems[0].Skill != "" ||
		c.Problems[0].Message != "source unavailable: did not answer within 300ms; serving the other sources" {
		t.Errorf("problems %+v", c.Problems)
	}
	if f := s.Failing(); len(f) != 1 || f[0].Source.Location != "./project" {
		t.Errorf("failing %+v", f)
	}

	local["b/SKILL.md"] = &fstest.MapFile{Data: []byte(storetest.Doc("b", "B."))}
	storetest.RefreshUntil(t, s, "a,b")
	local["c/SKILL.md"] = &fstest.MapFile{Data: []byte(storetest.Doc("c", "C."))}
	storetest.RefreshUntil(t, s, "a,b,c")
	if n := slow.blocked.Load(); n != 1 {
		t.Errorf("%d loads of the slow source under way; want 1", n)
	}

	slow.release()
	select {
	case <-changed:
	case <-time.After(20 * time.Second):
		t.Fatal("no change signal once the slow source answered")
	}
	ch, err := s.Refresh(ctx)
	if err != nil || !slices.Contains(ch.Added, "remote") {
		t.Fatalf("changes %+v, %v; want remote added", ch, err)
	}
	c, _ = s.View(nil).Catalog(ctx)
	if storetest.Names(c.Skills) != "a,b,c,remote" || len(c.Problems) != 0 {
		t.Errorf("after it answered: skills %q, problems %+v", storetest.Names(c.Skills), c.Problems)
	}
	recovered(t, s)
	if hits, err := s.View(nil).Search(ctx, "far away", 5); err != nil || len(hits) != 1 || hits[0].Name != "remote" {
		t.Errorf("search for the late source's skill: %v %v", hits, err)
	}
}

// TestSlowSourceKeepsItsSkills: a source that answered before and now
// does not is served from its last listing (stale rather than gone),
// reported in Failing but not as a Problem, while the other source's
// refreshes go on; it recovers when it answers.
func TestSlowSourceKeepsItsSkills(t *testing.T) {
	slow := newGate(t, storetest.MapFS("remote/SKILL.md="+storetest.Doc("remote", "Far away.")), false)
	local := storetest.MapFS("a/SKILL.md=" + storetest.Doc("a", "A."))
	s := storetest.New(t, store.Options{SourceTimeout: 300 * time.Millisecond}, local, slow)
	ctx := context.Background()
	if c, err := s.View(nil).Catalog(ctx); err != nil || storetest.Names(c.Skills) != "a,remote" {
		t.Fatalf("%v %v", c, err)
	}
	slow.shut.Store(true)
	local["b/SKILL.md"] = &fstest.MapFile{Data: []byte(storetest.Doc("b", "B."))}
	c := storetest.RefreshUntil(t, s, "a,b,remote")
	if len(c.Problems) != 0 {
		t.Errorf("problems %+v", c.Problems)
	}
	if f := s.Failing(); len(f) != 1 || f[0].Source.Location != "./personal" {
		t.Errorf("failing %+v", f)
	}
	if d, err := s.View(nil).Document(ctx, "a", nil); err != nil || d.Text != storetest.Doc("a", "A.") {
		t.Errorf("document: %q %v", d.Text, err)
	}

	slow.release()
	recovered(t, s)
}

// recovered refreshes s until no source is failing: a source that was
// slow counts as answering again once a load of it ends within the bound.
func recovered(t *testing.T, s *store.Store) {
	t.Helper()
	if !testutil.Within(20*time.Second, func() bool {
		if len(s.Failing()) == 0 {
			return true
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := s.Refresh(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		return false
	}) {
		t.Fatalf("still failing once it answered: %+v", s.Failing())
	}
}

// TestOnlySourceSlow: with nothing else to serve, a slow source is
// waited for rather than left out. It runs on synctest's fake clock.
func TestOnlySourceSlow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := newGate(t, storetest.MapFS("remote/SKILL.md="+storetest.Doc("remote", "Far away.")), true)
		s := storetest.New(t, store.Options{SourceTimeout: 50 * time.Millisecond}, slow)
		done := make(chan *store.Catalog)
		go func() {
			c, err := s.View(nil).Catalog(context.Background())
			if err != nil {
				t.Error(err)
			}
			done <- c
		}()
		time.Sleep(200 * time.Millisecond) // fake time: past the bound
		synctest.Wait()
		slow.release()
		if c := <-done; c == nil || storetest.Names(c.Skills) != "remote" {
			t.Errorf("catalog %v", c)
		}
	})
}
