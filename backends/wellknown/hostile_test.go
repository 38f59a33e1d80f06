package wellknown_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillstore/skillstore/backends/wellknown"
	"github.com/skillstore/skillstore/discovery"
	"github.com/skillstore/skillstore/store"
)

// bombs builds n .tar.gz artifacts, each SKILL.md plus zeros bytes of
// zeros in big.bin: gzip members of the same stream, so the zeros are
// compressed once and shared.
func bombs(t *testing.T, n int, zeros int64) map[string][]byte {
	t.Helper()
	var tail bytes.Buffer // big.bin and the tar's end, compressed once
	gz := gzip.NewWriter(&tail)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "big.bin", Typeflag: tar.TypeReg, Mode: 0o644, Size: zeros})
	chunk := make([]byte, 1<<20)
	for left := zeros; left > 0; left -= int64(len(chunk)) {
		tw.Write(chunk[:min(left, int64(len(chunk)))])
	}
	tw.Close()
	gz.Close()
	out := map[string][]byte{}
	for i := range n {
		name := fmt.Sprintf("bomb-%02d", i)
		var head bytes.Buffer
		gz := gzip.NewWriter(&head)
		tw := tar.NewWriter(gz)
		d := doc(name, "Holds a file of zeros.")
		tw.WriteHeader(&tar.Header{Name: "SKILL.md", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(d))})
		tw.Write(d)
		tw.Flush() // no end-of-archive marker: the tail carries it
		gz.Close()
		out[name] = append(head.Bytes(), tail.Bytes()...)
	}
	return out
}

// serveArtifacts serves an index of archive skills, one per artifact
// (name → .tar.gz), with no ETag; it counts requests per path. The index
// also names others (name → digest), whose artifacts, under other/, extra
// serves.
func serveArtifacts(t *testing.T, arts map[string][]byte, others map[string]string, extra http.HandlerFunc) (*httptest.Server, *sync.Map) {
	t.Helper()
	var skills []map[string]string
	for name, data := range arts {
		skills = append(skills, map[string]string{"name": name, "type": "archive", "description": "x", "url": name + ".tar.gz", "digest": sum(data)})
	}
	for name, digest := range others {
		skills = append(skills, map[string]string{"name": name, "type": "archive", "description": "x", "url": "other/" + name + ".tar.gz", "digest": digest})
	}
	index, err := json.Marshal(map[string]any{"$schema": discovery.Schema, "skills": skills})
	if err != nil {
		t.Fatal(err)
	}
	var hits sync.Map // path → *atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := hits.LoadOrStore(r.URL.Path, new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
		base := strings.TrimPrefix(r.URL.Path, "/.well-known/agent-skills/")
		if base == "index.json" {
			w.Write(index)
			return
		}
		if data, ok := arts[strings.TrimSuffix(base, ".tar.gz")]; ok {
			w.Header().Set("Content-Type", "application/gzip")
			w.Write(data)
			return
		}
		if extra != nil {
			extra(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts, &hits
}

func count(hits *sync.Map, path string) int64 {
	if c, ok := hits.Load(path); ok {
		return c.(*atomic.Int64).Load()
	}
	return 0
}

// heapPeak samples HeapInuse until stop is called, which returns the
// peak seen.
func heapPeak() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak.Load() }
}

func heapNow() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestArtifactBombs: issue 17's amplification — an index of 40 skills
// whose .tar.gz artifacts each hold SKILL.md and 4 MiB of zeros (160 MiB
// unpacked, a few hundred KB downloaded). Listing, reading and holding
// them takes a few MiB of heap whatever the zeros' size: the zeros are
// over the largest file served, so only their name and size are kept
// (reading big.bin says it is too large), and what is kept is on disk,
// in a private folder Close removes.
func TestArtifactBombs(t *testing.T) {
	const n, zeros = 40, 4 << 20
	ts, hits := serveArtifacts(t, bombs(t, n, zeros), nil, nil)
	dir := t.TempDir()
	src, err := wellknown.Open(ts.URL+"/.well-known/agent-skills/", wellknown.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.New([]store.Source{{Label: "org", Location: src.Location(), FS: src}}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	base := heapNow()
	stop := heapPeak()
	c, err := st.View(nil).Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Skills) != n {
		t.Fatalf("%d skills served, %d problems: %+v", len(c.Skills), len(c.Problems), c.Problems)
	}
	for _, sk := range c.Skills {
		files, err := st.View(nil).Files(ctx, sk.Name, nil)
		if err != nil {
			t.Fatal(err)
		}
		var big int64 = -1
		for _, f := range files {
			if f.Path == "big.bin" {
				big = f.Size
			}
		}
		if big != zeros {
			t.Errorf("%s: big.bin listed with %d bytes; want %d", sk.Name, big, zeros)
		}
		_, err = st.View(nil).ReadFile(ctx, sk.Name, "big.bin", nil)
		if !errors.Is(err, store.ErrTooLarge) {
			t.Errorf("%s: reading big.bin: %v; want too large", sk.Name, err)
		}
	}
	peak := stop()
	held := heapNow()
	runtime.KeepAlive(src) // what the source holds counts
	const bound = 48 << 20 // the unpacked total is 160 MiB
	t.Logf("heap: base %d MiB, peak %d MiB, held after %d MiB (unpacked total %d MiB)", base>>20, peak>>20, held>>20, n*zeros>>20)
	if peak > base+bound || held > base+bound/2 {
		t.Errorf("heap peak %d MiB, held %d MiB over a base of %d MiB; want at most %d MiB more", peak>>20, held>>20, base>>20, bound>>20)
	}
	var disk int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				disk += fi.Size()
			}
		}
		return nil
	})
	if disk > n<<16 {
		t.Errorf("%d KiB kept on disk for %d artifacts", disk>>10, n)
	}
	if got := count(hits, "/.well-known/agent-skills/bomb-00.tar.gz"); got != 1 {
		t.Errorf("bomb-00 downloaded %d times", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("%d temporary folders", len(ents))
	}
	if fi, err := os.Stat(filepath.Join(dir, ents[0].Name())); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the temporary folder: %v %v; want private", fi.Mode(), err)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("Close left %d entries", len(ents))
	}
}

// TestTricklingArtifact: one artifact of a site trickles (a byte every
// 100 ms, for ever). With a short configured pace it is cut off within
// seconds and fails alone: the site's other skills are listed, and the
// trickler's problem says why. (Without a pace, each trickler held a
// discovery worker for the client's whole 30 s timeout.)
func TestTricklingArtifact(t *testing.T) {
	arts := map[string][]byte{}
	for _, name := range []string{"alpha", "beta", "gamma"} {
		arts[name] = tarGz(t, reg("SKILL.md", string(doc(name, "Quick."))))
	}
	slow := tarGz(t, reg("SKILL.md", string(doc("slow", "Trickles."))))
	ended := make(chan struct{}, 1)
	ts, _ := serveArtifacts(t, arts, map[string]string{"slow": sum(slow)}, func(w http.ResponseWriter, r *http.Request) {
		defer func() { ended <- struct{}{} }()
		w.Header().Set("Content-Type", "application/gzip")
		w.WriteHeader(http.StatusOK)
		for i := 0; ; i++ {
			w.Write(slow[i%len(slow) : i%len(slow)+1])
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
	src, err := wellknown.Open(ts.URL+"/.well-known/agent-skills/", wellknown.Options{Dir: t.TempDir(), Grace: 300 * time.Millisecond, MinRate: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	st, _ := store.New([]store.Source{{Label: "org", Location: src.Location(), FS: src}}, store.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // generous: the bound is 300 ms
	defer cancel()
	c := wantServed(ctx, t, st, "alpha,beta,gamma")
	var problem string
	for _, p := range c.Problems {
		if p.Skill == "slow" {
			problem = p.Message
		}
	}
	// Exact but for the bytes that arrived, which depend on timing.
	tooSlow := regexp.MustCompile(`^source unavailable: the published skills: skill slow: reading its artifact: it arrived too slowly \([0-9]+ bytes; a download must start within 300ms and then keep up 4 KiB/s\)$`)
	if !tooSlow.MatchString(problem) {
		t.Errorf("the trickler's problem: %q", problem)
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Error("the trickling download was not cut off")
	}
}

// TestAbandonedDownload: a read whose context ends stops waiting for its
// artifact, and the download, which no read waits for any more, is
// cancelled (the server sees the request end) and tried again by the
// next read instead of being remembered as failed.
func TestAbandonedDownload(t *testing.T) {
	slow := tarGz(t, reg("SKILL.md", string(doc("slow", "Trickles."))))
	ended := make(chan struct{}, 2)
	var tries atomic.Int64
	ts, _ := serveArtifacts(t, nil, map[string]string{"slow": sum(slow)}, func(w http.ResponseWriter, r *http.Request) {
		if tries.Add(1) > 1 { // the second try answers at once
			w.Write(slow)
			return
		}
		defer func() { ended <- struct{}{} }()
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	snap := openSnapshot(t, ts.URL, wellknown.Options{Dir: t.TempDir(), Grace: time.Minute, Timeout: time.Minute})
	cf, ok := snap.(store.ContextFS)
	if !ok {
		t.Fatalf("%T is not a store.ContextFS", snap)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := fs.ReadFile(cf.WithContext(ctx), "slow/SKILL.md"); err == nil {
		t.Fatal("read a file whose download hangs")
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the abandoned download went on")
	}
	if data, err := fs.ReadFile(snap, "slow/SKILL.md"); err != nil || !bytes.Equal(data, doc("slow", "Trickles.")) {
		t.Errorf("the next read: %q %v", data, err)
	}
}

// TestUnchangedIndexWithoutETag: a site that sends no ETag. A refresh
// that downloads the same index keeps the same snapshot (nothing is
// discovered again) and costs that one request; an index that changes
// makes a new snapshot, and the artifacts it no longer names are let go
// from disk.
func TestUnchangedIndexWithoutETag(t *testing.T) {
	arts := map[string][]byte{}
	for _, name := range []string{"alpha", "beta"} {
		arts[name] = tarGz(t, reg("SKILL.md", string(doc(name, "Here."))))
	}
	indexOf := func(names ...string) []byte {
		var skills []map[string]string
		for _, name := range names {
			skills = append(skills, map[string]string{"name": name, "type": "archive", "description": "x", "url": name + ".tar.gz", "digest": sum(arts[name])})
		}
		b, err := json.Marshal(map[string]any{"$schema": discovery.Schema, "skills": skills})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var index atomic.Pointer[[]byte]
	both := indexOf("alpha", "beta")
	index.Store(&both)
	var requests atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		base := strings.TrimPrefix(r.URL.Path, "/.well-known/agent-skills/")
		if base == "index.json" {
			w.Write(*index.Load())
			return
		}
		w.Write(arts[strings.TrimSuffix(base, ".tar.gz")])
	}))
	defer ts.Close()
	dir := t.TempDir()
	src, err := wellknown.Open(ts.URL+"/.well-known/agent-skills/", wellknown.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	st, _ := store.New([]store.Source{{Label: "org", Location: src.Location(), FS: src}}, store.Options{})
	ctx := context.Background()
	if list, err := st.View(nil).List(ctx); err != nil || len(list) != 2 {
		t.Fatalf("%d skills, %v", len(list), err)
	}
	before, _ := src.Snapshot(ctx)
	n := requests.Load()
	for range 3 {
		if _, err := st.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := requests.Load() - n; got != 3 {
		t.Errorf("3 refreshes of an unchanged index made %d requests; want 3", got)
	}
	if after, _ := src.Snapshot(ctx); after != before {
		t.Error("an unchanged index made a new snapshot")
	}
	kept := func() int {
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			return -1
		}
		files, _ := os.ReadDir(filepath.Join(dir, ents[0].Name()))
		return len(files)
	}
	if got := kept(); got != 2 {
		t.Fatalf("%d artifacts kept; want 2", got)
	}
	one := indexOf("alpha")
	index.Store(&one)
	if _, err := st.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if after, _ := src.Snapshot(ctx); after == before {
		t.Error("a changed index kept the old snapshot")
	}
	if list, err := st.View(nil).List(ctx); err != nil || len(list) != 1 {
		t.Errorf("after the change: %d skills, %v", len(list), err)
	}
	if got := kept(); got != 1 {
		t.Errorf("%d artifacts kept after the index dropped one; want 1", got)
	}
}

// TestDiskBudget: unpacked artifacts are kept within MaxDiskBytes; the
// least recently used are let go and downloaded again when read.
func TestDiskBudget(t *testing.T) {
	arts := map[string][]byte{}
	for i := range 6 {
		name := fmt.Sprintf("s%d", i)
		noise := make([]byte, 64<<10) // incompressible: 64 KiB kept each
		rand.NewChaCha8([32]byte{byte(i)}).Read(noise)
		arts[name] = tarGz(t, reg("SKILL.md", string(doc(name, "Noisy."))), reg("noise.bin", string(noise)))
	}
	ts, hits := serveArtifacts(t, arts, nil, nil)
	dir := t.TempDir()
	const budget = 160 << 10
	snap := openSnapshot(t, ts.URL, wellknown.Options{Dir: dir, MaxDiskBytes: budget})
	disk := func() (total int64) {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if fi, err := d.Info(); err == nil {
					total += fi.Size()
				}
			}
			return nil
		})
		return total
	}
	for i := range 6 {
		if _, err := fs.ReadFile(snap, fmt.Sprintf("s%d/noise.bin", i)); err != nil {
			t.Fatal(err)
		}
		if d := disk(); d > budget {
			t.Errorf("after %d artifacts, %d KiB on disk; budget %d KiB", i+1, d>>10, budget>>10)
		}
	}
	if data, err := fs.ReadFile(snap, "s0/SKILL.md"); err != nil || !bytes.Equal(data, doc("s0", "Noisy.")) {
		t.Fatalf("s0 again: %v", err)
	}
	if got := count(hits, "/.well-known/agent-skills/s0.tar.gz"); got != 2 {
		t.Errorf("s0 downloaded %d times; want 2 (let go, then read again)", got)
	}
}

// TestStaleFoldersSwept: a source's temporary folder left by a process
// that no longer runs (killed before Close) is removed when a source
// makes its own in the same place; folders of running processes, other
// names and files are left alone.
func TestStaleFoldersSwept(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skipf("cannot run a process to get a dead PID: %v", err)
	}
	dir := t.TempDir()
	stale := filepath.Join(dir, fmt.Sprintf("skillstore-wellknown-%d-123", dead.Process.Pid))
	keep := []string{
		fmt.Sprintf("skillstore-wellknown-%d-456", os.Getppid()), // a running process
		"skillstore-wellknown-notapid-789",
		"other-folder",
	}
	for _, d := range append([]string{stale}, keep...) {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Base(d), "artifact"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	ts, _ := serveArtifacts(t, map[string][]byte{"one": tarGz(t, reg("SKILL.md", string(doc("one", "One."))))}, nil, nil)
	src, err := wellknown.Open(ts.URL+"/.well-known/agent-skills/", wellknown.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	st, err := store.New([]store.Source{{Label: "org", Location: src.Location(), FS: src}}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantServed(context.Background(), t, st, "one")
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the dead process's folder is still there (%v)", err)
	}
	for _, k := range keep {
		if _, err := os.Stat(filepath.Join(dir, k)); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
}

// openSnapshot opens the site at base as a source with opts (closed when
// the test ends) and returns its current snapshot.
func openSnapshot(t *testing.T, base string, opts wellknown.Options) fs.FS {
	t.Helper()
	src, err := wellknown.Open(base+"/.well-known/agent-skills/", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	snap, err := src.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}
