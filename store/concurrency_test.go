package store_test

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/storetest"
	"github.com/skillstore/skillstore/store"
)

// countingFS counts file opens, to observe request sharing.
type countingFS struct {
	fs.FS
	opens atomic.Int64
	gate  chan struct{} // if set, opens wait on it
}

func (c *countingFS) Open(name string) (fs.File, error) {
	if strings.HasPrefix(name, "a/") && !strings.HasSuffix(name, "SKILL.md") {
		c.opens.Add(1)
		if c.gate != nil {
			<-c.gate
		}
	}
	return c.FS.Open(name)
}

// TestSharedMisses checks that concurrent misses for one file cause one backend read.
func TestSharedMisses(t *testing.T) {
	cfs := &countingFS{FS: storetest.MapFS("a/SKILL.md="+storetest.Doc("a", "A."), "a/big.txt="+strings.Repeat("x", 4096)), gate: make(chan struct{})}
	s := storetest.New(t, store.Options{}, cfs)
	ctx := context.Background()
	if _, err := s.View(nil).List(ctx); err != nil {
		t.Fatal(err)
	}
	const readers = 32
	var wg sync.WaitGroup
	started := make(chan struct{}, readers)
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started <- struct{}{}
			if f, err := s.View(nil).ReadFile(ctx, "a", "big.txt", &store.ReadOptions{Text: true}); err != nil || len(f.Text) != 4096 {
				t.Errorf("read: %v", err)
			}
		}()
	}
	for range readers {
		<-started
	}
	close(cfs.gate)
	wg.Wait()
	if n := cfs.opens.Load(); n < 1 || n > 2 {
		// One shared read; a second only if a reader arrived after the first finished.
		t.Errorf("backend opens = %d; want shared reads", n)
	}
	if st := s.Stats(); st.BackendReads != uint64(cfs.opens.Load()) {
		t.Errorf("BackendReads = %d, opens = %d", st.BackendReads, cfs.opens.Load())
	}
}

// TestCacheBudget hammers a small cache from many goroutines, with
// invalidations, and checks that it never holds more than its budget.
func TestCacheBudget(t *testing.T) {
	m := fstest.MapFS{}
	for i := range 20 {
		name := fmt.Sprintf("s%02d", i)
		m[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte(storetest.Doc(name, "S."))}
		for j := range 10 {
			m[fmt.Sprintf("%s/f%d.txt", name, j)] = &fstest.MapFile{Data: []byte(strings.Repeat("y", 500*(j+1)))}
		}
	}
	const budget = 16 << 10
	s := storetest.New(t, store.Options{CacheBytes: budget, RevalidateAfter: -1}, m)
	ctx := context.Background()
	var wg sync.WaitGroup
	var over atomic.Int64
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 400 {
				name := fmt.Sprintf("s%02d", (g*7+i)%20)
				if _, err := s.View(nil).ReadFile(ctx, name, fmt.Sprintf("f%d.txt", (g+i)%10), &store.ReadOptions{Text: true}); err != nil {
					t.Error(err)
					return
				}
				if i%3 == 0 {
					s.View(nil).Document(ctx, name, nil)
				}
				if g == 0 && i%97 == 0 {
					s.Invalidate()
				}
				if b := s.Stats().Bytes; b > budget {
					over.Store(b)
				}
			}
		}()
	}
	wg.Wait()
	st := s.Stats()
	if over.Load() != 0 || st.Bytes > budget || st.Bytes < 0 {
		t.Errorf("cache exceeded budget: max seen %d, now %d (budget %d)", over.Load(), st.Bytes, budget)
	}
	if st.Evictions == 0 || st.Hits == 0 || st.Misses == 0 {
		t.Errorf("stats = %+v", st)
	}
}

// TestCacheAccounting checks replacement and oversize handling exactly.
func TestCacheAccounting(t *testing.T) {
	m := storetest.MapFS("a/SKILL.md="+storetest.Doc("a", "A."), "a/small.txt=12345", "a/huge.txt="+strings.Repeat("h", 5000))
	s := storetest.New(t, store.Options{CacheBytes: 2048, RevalidateAfter: -1}, m)
	ctx := context.Background()
	if f, err := s.View(nil).ReadFile(ctx, "a", "small.txt", &store.ReadOptions{Text: true}); err != nil || f.Text != "12345" {
		t.Fatalf("small.txt: %q %v", f.Text, err)
	}
	b1 := s.Stats().Bytes
	if b1 <= 5 {
		t.Fatalf("bytes after one small read = %d", b1)
	}
	// Larger than the budget: served, not cached.
	if f, err := s.View(nil).ReadFile(ctx, "a", "huge.txt", &store.ReadOptions{Text: true}); err != nil || f.Text != strings.Repeat("h", 5000) {
		t.Fatalf("huge.txt: %d bytes, %v", len(f.Text), err)
	}
	if st := s.Stats(); st.Bytes != b1 || st.Entries != 1 {
		t.Errorf("oversize entry cached: %+v", st)
	}
	s.Invalidate()
	if st := s.Stats(); st.Bytes != 0 || st.Entries != 0 {
		t.Errorf("after Invalidate: %+v", st)
	}
}

// TestConcurrentRefresh reads while the catalog is rebuilt and invalidated.
func TestConcurrentRefresh(t *testing.T) {
	s := storetest.New(t, store.Options{}, fixture.MapFS())
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				switch (g + i) % 5 {
				case 0:
					s.Refresh(ctx)
				case 1:
					s.Invalidate()
				case 2:
					if _, err := s.View(nil).List(ctx); err != nil {
						t.Error(err)
					}
				default:
					if _, err := s.View(nil).ReadFile(ctx, "calculator", "examples/basic.py", &store.ReadOptions{Text: true}); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestCachedBytesAreImmutable: content is returned as strings, so no
// caller can change what the next caller reads.
func TestCachedBytesAreImmutable(t *testing.T) {
	s := storetest.New(t, store.Options{}, fixture.MapFS())
	ctx := context.Background()
	f1, err := s.View(nil).ReadFile(ctx, "calculator", "assets/logo.png", nil)
	if err != nil {
		t.Fatal(err)
	}
	b := []byte(f1.Data)
	b[0] = 'X'
	f2, err := s.View(nil).ReadFile(ctx, "calculator", "assets/logo.png", nil)
	if err != nil || f2.Data != fixture.Binary {
		t.Errorf("cached bytes changed: %q %v", f2.Data, err)
	}
}

// docCounter counts opens of SKILL.md; like every real backend it has a
// Stat that does not open the file.
type docCounter struct {
	fs.FS
	docs atomic.Int64
}

func (d *docCounter) Stat(name string) (fs.FileInfo, error) { return fs.Stat(d.FS, name) }

func (d *docCounter) Open(name string) (fs.File, error) {
	if strings.HasSuffix(name, "/SKILL.md") {
		d.docs.Add(1)
	}
	return d.FS.Open(name)
}

// TestRefreshReusesUnchangedSkills: a refresh reads only the documents
// whose size or modification time changed.
func TestRefreshReusesUnchangedSkills(t *testing.T) {
	m := fstest.MapFS{}
	for i := range 50 {
		name := fmt.Sprintf("s%02d", i)
		m[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte(storetest.Doc(name, "S.")), ModTime: time.Unix(1000, 0)}
	}
	dc := &docCounter{FS: m}
	s := storetest.New(t, store.Options{}, dc, storetest.MapFS("s07/SKILL.md="+storetest.Doc("s07", "Shadowed copy.")))
	ctx := context.Background()
	if _, err := s.View(nil).List(ctx); err != nil {
		t.Fatal(err)
	}
	if n := dc.docs.Load(); n != 50 {
		t.Fatalf("first build read %d documents", n)
	}
	ch, err := s.Refresh(ctx)
	if err != nil || !ch.Empty() {
		t.Fatalf("refresh: %+v %v", ch, err)
	}
	if n := dc.docs.Load(); n != 50 {
		t.Errorf("an unchanged refresh read %d documents", n-50)
	}
	m["s03/SKILL.md"] = &fstest.MapFile{Data: []byte(storetest.Doc("s03", "Changed.")), ModTime: time.Unix(2000, 0)}
	if ch, err = s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(store.Changes{Updated: []string{"s03"}}, ch); diff != "" {
		t.Errorf("after one change (-want +got):\n%s", diff)
	}
	if n := dc.docs.Load(); n != 51 {
		t.Errorf("after one change: %d reads; want 1", n-50)
	}
	sk, err := s.View(nil).Skill(ctx, "s07")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]store.SourceRef{{Label: "personal", Location: "./personal"}}, sk.Shadows); diff != "" {
		t.Errorf("reused skill's shadows (-want +got):\n%s", diff)
	}
	if d, err := s.View(nil).Document(ctx, "s03", nil); err != nil || d.Text != storetest.Doc("s03", "Changed.") {
		t.Errorf("changed document not served: %q %v", d.Text, err)
	}
}

// TestReadFileUncached: bulk reads use the cache but do not fill it.
func TestReadFileUncached(t *testing.T) {
	s := storetest.New(t, store.Options{RevalidateAfter: -1}, fixture.MapFS())
	ctx := context.Background()
	if f, err := s.View(nil).ReadFile(ctx, "calculator", "config.json", &store.ReadOptions{Uncached: true}); err != nil || f.Text != fixture.ConfigJSON {
		t.Fatalf("%+v %v", f, err)
	}
	if st := s.Stats(); st.Entries != 0 {
		t.Errorf("an uncached read filled the cache: %+v", st)
	}
	if _, err := s.View(nil).ReadFile(ctx, "calculator", "config.json", nil); err != nil {
		t.Fatal(err)
	}
	if f, err := s.View(nil).ReadFile(ctx, "calculator", "config.json", &store.ReadOptions{Uncached: true}); err != nil || f.Text != fixture.ConfigJSON {
		t.Fatalf("%+v %v", f, err)
	}
	if st := s.Stats(); st.Entries != 1 || st.BackendReads != 2 || st.Hits != 1 {
		t.Errorf("a cached file should be served from the cache: %+v", st)
	}
}
