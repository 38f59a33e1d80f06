package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/wellknown"
	"github.com/skillstore/skillstore/discovery"
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

// refreshUntil refreshes s until its catalog serves want (the local
// source may itself be slower than a short bound on a loaded machine, and
// then served one refresh late); each Refresh must answer.
func refreshUntil(t *testing.T, s *store.Store, want string) *store.Catalog {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := s.Refresh(ctx)
		cancel()
		if err != nil {
			t.Fatalf("refresh: %v", err)
		}
		c, err := s.Catalog(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := names(c.Skills); got == want || time.Now().After(deadline) {
			if got != want {
				t.Fatalf("skills %q; want %q", got, want)
			}
			return c
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSlowSourceLeftOut: a source that does not answer is left out of
// the catalog after SourceTimeout, as a failing source is (a Problem
// naming it, and in Failing), while the other source is served; later
// refreshes of the other source do not wait for it, and it holds one
// load however many refreshes come; once it answers, Changed delivers
// and a refresh serves its skills.
func TestSlowSourceLeftOut(t *testing.T) {
	slow := newGate(t, mapFS("remote/SKILL.md="+doc("remote", "Far away.")), true)
	local := mapFS("a/SKILL.md=" + doc("a", "A."))
	s := newStore(t, store.Options{SourceTimeout: 300 * time.Millisecond}, slow, local)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := s.Changed(ctx)

	cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
	c, err := s.Catalog(cctx)
	ccancel()
	if err != nil {
		t.Fatalf("the local source was held by the slow one: %v", err)
	}
	if names(c.Skills) != "a" {
		t.Errorf("skills %q; want a", names(c.Skills))
	}
	if len(c.Problems) != 1 || c.Problems[0].Source.Location != "./project" || c.Problems[0].Skill != "" ||
		c.Problems[0].Message != "source unavailable: did not answer within 300ms; serving the other sources" {
		t.Errorf("problems %+v", c.Problems)
	}
	if f := s.Failing(); len(f) != 1 || f[0].Source.Location != "./project" {
		t.Errorf("failing %+v", f)
	}

	local["b/SKILL.md"] = &fstest.MapFile{Data: []byte(doc("b", "B."))}
	refreshUntil(t, s, "a,b")
	local["c/SKILL.md"] = &fstest.MapFile{Data: []byte(doc("c", "C."))}
	refreshUntil(t, s, "a,b,c")
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
	c, _ = s.Catalog(ctx)
	if names(c.Skills) != "a,b,c,remote" || len(c.Problems) != 0 {
		t.Errorf("after it answered: skills %q, problems %+v", names(c.Skills), c.Problems)
	}
	recovered(t, s)
	if hits, err := s.Search(ctx, "far away", 5); err != nil || len(hits) != 1 || hits[0].Name != "remote" {
		t.Errorf("search for the late source's skill: %v %v", hits, err)
	}
}

// TestSlowSourceKeepsItsSkills: a source that answered before and now
// does not is served from its last listing (stale rather than gone),
// reported in Failing but not as a Problem, while the other source's
// refreshes go on; it recovers when it answers.
func TestSlowSourceKeepsItsSkills(t *testing.T) {
	slow := newGate(t, mapFS("remote/SKILL.md="+doc("remote", "Far away.")), false)
	local := mapFS("a/SKILL.md=" + doc("a", "A."))
	s := newStore(t, store.Options{SourceTimeout: 300 * time.Millisecond}, local, slow)
	ctx := context.Background()
	if c, err := s.Catalog(ctx); err != nil || names(c.Skills) != "a,remote" {
		t.Fatalf("%v %v", c, err)
	}
	slow.shut.Store(true)
	local["b/SKILL.md"] = &fstest.MapFile{Data: []byte(doc("b", "B."))}
	c := refreshUntil(t, s, "a,b,remote")
	if len(c.Problems) != 0 {
		t.Errorf("problems %+v", c.Problems)
	}
	if f := s.Failing(); len(f) != 1 || f[0].Source.Location != "./personal" {
		t.Errorf("failing %+v", f)
	}
	if d, err := s.Document(ctx, "a"); err != nil || d.Text != doc("a", "A.") {
		t.Errorf("document: %q %v", d.Text, err)
	}

	slow.release()
	recovered(t, s)
}

// recovered refreshes s until no source is failing: a source that was
// slow counts as answering again once a load of it ends within the bound.
func recovered(t *testing.T, s *store.Store) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(s.Failing()) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("still failing once it answered: %+v", s.Failing())
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := s.Refresh(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestOnlySourceSlow: with nothing else to serve, a slow source is
// waited for rather than left out.
func TestOnlySourceSlow(t *testing.T) {
	slow := newGate(t, mapFS("remote/SKILL.md="+doc("remote", "Far away.")), true)
	s := newStore(t, store.Options{SourceTimeout: 50 * time.Millisecond}, slow)
	done := make(chan *store.Catalog)
	go func() {
		c, err := s.Catalog(context.Background())
		if err != nil {
			t.Error(err)
		}
		done <- c
	}()
	time.Sleep(200 * time.Millisecond) // past the bound
	slow.release()
	if c := <-done; c == nil || names(c.Skills) != "remote" {
		t.Errorf("catalog %v", c)
	}
}

// trickleSite serves a .well-known/agent-skills/ site of one skill that
// answers one byte every 100 ms until release is called, then the rest at
// once.
func trickleSite(t *testing.T) (ts *httptest.Server, release func()) {
	doc := []byte(doc("remote", "Far away."))
	sum := sha256.Sum256(doc)
	index := []byte(fmt.Sprintf(`{"$schema": %q, "skills": [{"name": "remote", "type": "skill-md", "description": "Far away.", "url": "remote/SKILL.md", "digest": "sha256:%s"}]}`,
		discovery.Schema, hex.EncodeToString(sum[:])))
	fast := make(chan struct{})
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := doc
		if strings.HasSuffix(r.URL.Path, "/index.json") {
			body = index
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		for i := range body {
			select {
			case <-fast:
				w.Write(body[i:])
				return
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			w.Write(body[i : i+1])
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(ts.Close)
	var once sync.Once
	release = func() { once.Do(func() { close(fast) }) }
	t.Cleanup(release)
	return ts, release
}

// TestTricklingSiteBesideLocalFolder: a .well-known site that answers one
// byte every 100 ms, beside a local folder, over real HTTP: the folder's
// skills are served once the bound (300 ms) has passed, the site is
// reported as a problem, a skill added to the folder is served at the
// next refresh, and once the site answers its skill is served too.
func TestTricklingSiteBesideLocalFolder(t *testing.T) {
	ts, release := trickleSite(t)
	dir := testutil.TempTree(t, map[string][]byte{"hello/SKILL.md": []byte(doc("hello", "Local."))})
	local, err := backends.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	site, err := wellknown.Open(ts.URL+"/.well-known/agent-skills/", wellknown.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	s, err := store.New([]store.Source{
		{Label: "project", Location: "./skills", FS: local},
		{Label: "org", Location: site.Location(), Kind: "well-known", FS: site},
	}, store.Options{SourceTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := s.Changed(ctx)

	cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
	c, err := s.Catalog(cctx)
	ccancel()
	if err != nil {
		t.Fatalf("the local folder was held by the trickling site: %v", err)
	}
	if names(c.Skills) != "hello" || len(c.Problems) != 1 || c.Problems[0].Source.Label != "org" ||
		c.Problems[0].Message != "source unavailable: did not answer within 300ms; serving the other sources" {
		t.Errorf("skills %q, problems %+v", names(c.Skills), c.Problems)
	}

	if err := os.MkdirAll(filepath.Join(dir, "added"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "added", "SKILL.md"), []byte(doc("added", "Added later.")), 0o644); err != nil {
		t.Fatal(err)
	}
	refreshUntil(t, s, "added,hello")

	release()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("the site's skill is not served once it answered: %q", names(c.Skills))
		}
		if _, err := s.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if c, _ = s.Catalog(ctx); names(c.Skills) == "added,hello,remote" {
			break
		}
	}
	if len(c.Problems) != 0 {
		t.Errorf("problems %+v", c.Problems)
	}
}
