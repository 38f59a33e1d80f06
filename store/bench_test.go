package store_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skillstore/skillstore/internal/skillgen"
	"github.com/skillstore/skillstore/internal/storetest"
	"github.com/skillstore/skillstore/store"
)

// doc4K is a 4 KB SKILL.md.
func doc4K(name string) string {
	d := storetest.Doc(name, "Benchmark skill that reads a 4 KB document.")
	return d + strings.Repeat("Some instructions for the agent to follow.\n", (4096-len(d))/43+1)[:4096-len(d)]
}

func BenchmarkDocumentCached(b *testing.B) {
	s := storetest.New(b, store.Options{}, storetest.MapFS("bench/SKILL.md="+doc4K("bench")))
	ctx := context.Background()
	if d, err := s.View(nil).Document(ctx, "bench", nil); err != nil || len(d.Text) != 4096 {
		b.Fatal(err, len(d.Text))
	}
	b.ReportAllocs()
	b.SetBytes(4096)
	for b.Loop() {
		if _, err := s.View(nil).Document(ctx, "bench", nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadFileCached(b *testing.B) {
	s := storetest.New(b, store.Options{}, storetest.MapFS("bench/SKILL.md="+storetest.Doc("bench", "B."), "bench/references/guide.md="+doc4K("x")))
	ctx := context.Background()
	if _, err := s.View(nil).ReadFile(ctx, "bench", "references/guide.md", &store.ReadOptions{Text: true}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(4096)
	for b.Loop() {
		if _, err := s.View(nil).ReadFile(ctx, "bench", "references/guide.md", &store.ReadOptions{Text: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDocumentCachedParallel measures contention on the cache lock.
func BenchmarkDocumentCachedParallel(b *testing.B) {
	s := storetest.New(b, store.Options{}, storetest.MapFS("bench/SKILL.md="+doc4K("bench")))
	ctx := context.Background()
	s.View(nil).Document(ctx, "bench", nil)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.View(nil).Document(ctx, "bench", nil); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkReadFileUncached1MiB reads a 1 MiB file from local disk with the
// cache disabled: the cost of a miss.
func BenchmarkReadFileUncached1MiB(b *testing.B) {
	dir := b.TempDir()
	os.MkdirAll(filepath.Join(dir, "bench"), 0o755)
	os.WriteFile(filepath.Join(dir, "bench", "SKILL.md"), []byte(storetest.Doc("bench", "B.")), 0o644)
	os.WriteFile(filepath.Join(dir, "bench", "big.txt"), []byte(strings.Repeat("0123456789abcde\n", 1<<16)), 0o644)
	l, _ := openLocal(dir)
	defer l.Close()
	s, _ := store.New([]store.Source{{Label: "project", FS: l}}, store.Options{CacheBytes: -1})
	ctx := context.Background()
	b.SetBytes(1 << 20)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.View(nil).ReadFile(ctx, "bench", "big.txt", &store.ReadOptions{Text: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	storetest.RemoveTree10k()
	for _, dir := range []string{realistic10kDir, typography10kDir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

// BenchmarkDiscoverLocal10k builds the catalog of 10,000 skills from local
// disk with nothing cached in the store (the OS page cache is warm).
func BenchmarkDiscoverLocal10k(b *testing.B) {
	dir := storetest.Tree10k(b)
	l, err := openLocal(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		s, _ := store.New([]store.Source{{Label: "project", FS: l}}, store.Options{})
		c, err := s.View(nil).Catalog(ctx)
		if err != nil || len(c.Skills) != 10000 {
			b.Fatalf("%v, %d skills", err, len(c.Skills))
		}
		b.StopTimer()
		s.Indexed(context.Background()) // its background indexing must not slow the next iteration
		b.StartTimer()
	}
}

// BenchmarkListWarm10k lists 10,000 skills from the cached catalog.
func BenchmarkListWarm10k(b *testing.B) {
	l, _ := openLocal(storetest.Tree10k(b))
	defer l.Close()
	s, _ := store.New([]store.Source{{Label: "project", FS: l}}, store.Options{})
	ctx := context.Background()
	s.View(nil).List(ctx)
	b.ReportAllocs()
	for b.Loop() {
		if list, err := s.View(nil).List(ctx); err != nil || len(list) != 10000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkCatalogMemory reports the heap a catalog of 10,000 skills and
// its search index hold, per skill (metric "B/skill"), measured after a
// full GC once the index is complete.
func BenchmarkCatalogMemory(b *testing.B) {
	m := fstest.MapFS{}
	for i := range 10000 {
		name := fmt.Sprintf("skill-%05d", i)
		m[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: Does task number " + name + " for the benchmark; use it when the user asks for that task by name.\nlicense: MIT\nmetadata:\n  author: bench\n  version: \"1.0\"\n---\n\n# Body\n" + strings.Repeat("x", 2000))}
	}
	ctx := context.Background()
	var perSkill float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, _ := store.New([]store.Source{{Label: "project", FS: m}}, store.Options{})
		c, err := s.View(nil).Catalog(ctx)
		if err != nil || len(c.Skills) != 10000 {
			b.Fatal(err)
		}
		s.Indexed(context.Background()) // the search index complete, the text it was built from let go
		runtime.GC()
		runtime.ReadMemStats(&after)
		perSkill = float64(after.HeapAlloc-before.HeapAlloc) / 10000
		runtime.KeepAlive(s)
	}
	b.ReportMetric(perSkill, "B/skill")
}

var (
	realistic10kOnce sync.Once
	realistic10kDir  string
)

// realistic10k writes skillgen's 10,000 realistic skills (descriptions
// and SKILL.md bodies of 150 to 1,500 words) to a temporary folder.
func realistic10k(b *testing.B) string {
	realistic10kOnce.Do(func() {
		dir, err := os.MkdirTemp("", "skillstore-bench-")
		if err != nil {
			b.Fatal(err)
		}
		if err := skillgen.WriteTree(dir, skillgen.Catalog(10000)); err != nil {
			b.Fatal(err)
		}
		realistic10kDir = dir
	})
	return realistic10kDir
}

// BenchmarkDiscoverSearchIndex builds the catalog of 10,000 realistic
// skills from local disk (the OS page cache warm), without the search
// index and with it: the difference in ns/op is what indexing adds to a
// cold discovery; indexed-ms is when the index has caught up (its
// background step done), and heap-B/skill what the catalog and the index
// hold.
func BenchmarkDiscoverSearchIndex(b *testing.B) {
	l, err := openLocal(realistic10k(b))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	for _, indexed := range []bool{false, true} {
		b.Run(fmt.Sprintf("index=%v", indexed), func(b *testing.B) {
			var heap float64
			var ready time.Duration
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				s, _ := store.New([]store.Source{{Label: "project", FS: l}}, store.Options{})
				if !indexed {
					store.WithoutSearchIndex(s)
				}
				start := time.Now()
				c, err := s.View(nil).Catalog(ctx)
				if err != nil || len(c.Skills) != 10000 {
					b.Fatalf("%v, %d skills", err, len(c.Skills))
				}
				b.StopTimer()
				s.Indexed(context.Background())
				ready = time.Since(start)
				runtime.GC()
				runtime.ReadMemStats(&after)
				heap = (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / 10000
				runtime.KeepAlive(s)
				b.StartTimer()
			}
			b.ReportMetric(heap, "heap-B/skill")
			b.ReportMetric(float64(ready.Milliseconds()), "indexed-ms")
		})
	}
}

// BenchmarkRefreshOneSkill10k refreshes a catalog of 10,000 realistic
// skills after one SKILL.md changed, until the index has caught up: the
// listing and a Stat per skill, one document read and one skill indexed
// (the index is not rebuilt; updates/op counts its updates).
func BenchmarkRefreshOneSkill10k(b *testing.B) {
	dir := realistic10k(b)
	l, err := openLocal(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	s, _ := store.New([]store.Source{{Label: "project", FS: l}}, store.Options{})
	c, err := s.View(nil).Catalog(ctx)
	if err != nil {
		b.Fatal(err)
	}
	s.Indexed(context.Background())
	target := filepath.Join(dir, c.Skills[0].Name, "SKILL.md")
	orig, err := os.ReadFile(target)
	if err != nil {
		b.Fatal(err)
	}
	defer os.WriteFile(target, orig, 0o644)
	before := s.Stats().Search.Updates
	i := 0
	for b.Loop() {
		i++
		os.WriteFile(target, append(orig, fmt.Sprintf("\nRevision %d.\n", i)...), 0o644)
		ch, err := s.Refresh(ctx)
		if err != nil || len(ch.Updated) != 1 {
			b.Fatalf("%v, %+v", err, ch)
		}
		s.Indexed(context.Background())
	}
	b.ReportMetric(float64(s.Stats().Search.Updates-before)/float64(i), "updates/op")
}

// openLocal is dir confined with os.Root, as the local backend opens a
// folder: the benchmarks measure the store over local disk, not the
// backend's own checks (it refuses special files, at one Stat per open).
func openLocal(dir string) (*rootFS, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &rootFS{FS: r.FS(), root: r}, nil
}

// rootFS is an os.Root's file system (a StatFS, ReadDirFS and
// ReadFileFS, as the local backend is), closed with its root.
type rootFS struct {
	fs.FS
	root *os.Root
}

func (r *rootFS) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(r.FS, name) }
func (r *rootFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(r.FS, name) }
func (r *rootFS) ReadFile(name string) ([]byte, error)       { return fs.ReadFile(r.FS, name) }
func (r *rootFS) Close() error                               { return r.root.Close() }
