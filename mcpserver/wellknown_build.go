package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/internal/lru"
	"github.com/skillstore/skillstore/store"
)

// How .well-known artifacts are built and kept (see DESIGN.md): one build
// per artifact version (artifactKey), shared by the requests that want it
// and detached from them, so a build that outlasts a request serves the
// next one; every artifact's kind, digest and size are kept apart from its
// body, so the index and HEAD never need the body again; bodies up to
// artifactMemMax are kept in memory, larger ones in unlinked temporary
// files (nothing is left on disk when the process ends, however it ends).
const (
	artifactMemBudget  = 64 << 20  // bodies kept in memory
	artifactMemMax     = 1 << 20   // a larger body is spilled to a temporary file
	artifactDiskBudget = 1 << 30   // bytes of spilled bodies kept
	artifactMetaBudget = 16 << 20  // kinds, digests and sizes kept (artifactMetaCost each)
	artifactMetaCost   = 256       // about what one artifactMeta and its key hold
	artifactBuildLimit = time.Hour // the longest one build (an index's, say) may run
)

// wellKnown is the .well-known publication's state: builds in flight and
// what they built.
type wellKnown struct {
	artifacts flightGroup[artifactKey, *artifact]
	indexes   flightGroup[*store.Catalog, indexBody]
	index     wellKnownIndex

	mu     sync.Mutex // guards the caches' replacement (tests), not their use
	mem    *lru.Cache[artifactKey, *artifact]
	memMax int64
	disk   *spillCache
	meta   *lru.Cache[artifactKey, artifactMeta]

	builds atomic.Int64 // artifact builds started, for tests
}

func newWellKnown(logPanic func(string, any)) *wellKnown {
	wk := &wellKnown{meta: lru.New[artifactKey, artifactMeta](artifactMetaBudget)}
	wk.artifacts.hand = func(a *artifact, n int) { a.hand(n) }
	wk.artifacts.logPanic = func(v any) { logPanic("a .well-known artifact", v) }
	wk.indexes.logPanic = func(v any) { logPanic("the .well-known index", v) }
	wk.limit(artifactMemBudget, artifactMemMax, artifactDiskBudget)
	return wk
}

// limit replaces the body caches (dropping what they hold): memBudget
// bytes in memory, bodies up to memMax each, diskBudget bytes on disk.
func (wk *wellKnown) limit(memBudget, memMax, diskBudget int64) {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	if wk.disk != nil {
		wk.disk.purge()
	}
	wk.mem, wk.memMax, wk.disk = lru.New[artifactKey, *artifact](memBudget), memMax, newSpillCache(diskBudget)
}

func (wk *wellKnown) caches() (*lru.Cache[artifactKey, *artifact], int64, *spillCache) {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	return wk.mem, wk.memMax, wk.disk
}

// artifact is a skill's published bytes: its kind, digest and size, and
// its body when held (data, or file; neither when only the meta is known).
type artifact struct {
	artifactMeta
	data []byte
	file *spillFile // one reference is the holder's: release it
}

// artifactMeta is what the index and HEAD need of an artifact. err is a
// build's lasting failure for this version (too large), kept so it is not
// built again to learn it.
type artifactMeta struct {
	kind   string // discovery.TypeSkillMD or discovery.TypeArchive
	digest string // "sha256:" and 64 hex digits
	size   int64
	err    error
}

// errArchiveTooLarge: a skill's files add up to more than one archive holds.
var errArchiveTooLarge = fmt.Errorf("its files add up to over %d MiB, too much for one archive", maxArchiveBytes>>20)

// body is the artifact's bytes to serve; an artifact known by its meta
// alone gives a reader of its length that fails to read (enough for HEAD
// and 304, which http.ServeContent answers without reading).
func (a *artifact) body() io.ReadSeeker {
	switch {
	case a.file != nil:
		return io.NewSectionReader(a.file.f, 0, a.size)
	case a.data != nil || a.size == 0:
		return bytes.NewReader(a.data)
	}
	return &lengthOnly{size: a.size}
}

// release lets go of the holder's reference to the artifact's file.
func (a *artifact) release() {
	if a.file != nil {
		a.file.release()
	}
}

// hand passes the builder's reference on to n holders (none: dropped).
func (a *artifact) hand(n int) {
	if a.file == nil {
		return
	}
	if n == 0 {
		a.file.release()
		return
	}
	a.file.acquire(n - 1)
}

// etag is the artifact's entity tag, from its digest.
func (a *artifact) etag() string { return `"` + a.digest[len("sha256:"):][:32] + `"` }

// errNotHeld: a lengthOnly body was read.
var errNotHeld = errors.New("the artifact's body is not held")

// lengthOnly is a body known by its length alone: it seeks, but never reads.
type lengthOnly struct{ size, off int64 }

func (l *lengthOnly) Read([]byte) (int, error) { return 0, errNotHeld }

func (l *lengthOnly) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += l.off
	case io.SeekEnd:
		offset += l.size
	}
	if offset < 0 {
		return 0, errors.New("seek before the start")
	}
	l.off = offset
	return offset, nil
}

// cached returns the artifact's body if it is kept (release it when
// done), or its meta if body is false and that is kept.
func (wk *wellKnown) cached(key artifactKey, body bool) (*artifact, bool) {
	mem, _, disk := wk.caches()
	if a, ok := mem.Get(key); ok {
		return a, true
	}
	if a := disk.get(key); a != nil {
		return a, true
	}
	if m, ok := wk.meta.Get(key); ok && (!body || m.err != nil) {
		return &artifact{artifactMeta: m}, true
	}
	return nil, false
}

// keep files what a build made: its meta always, its body in memory or
// on disk if it fits.
func (wk *wellKnown) keep(key artifactKey, a *artifact) {
	wk.meta.Add(key, a.artifactMeta, artifactMetaCost)
	mem, _, disk := wk.caches()
	if a.file != nil {
		disk.add(key, a)
	} else {
		mem.Add(key, a, int64(cap(a.data))+128)
	}
}

// flightGroup shares one build per key among the callers that want it at
// the same time. Unlike the store's flights, a build does not end with
// its callers: it runs detached from them (keeping their context's values),
// bounded by artifactBuildLimit, and keeps what it built itself, so a
// build that outlasts one request serves the next. A caller stops waiting
// when its own context ends.
type flightGroup[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]*buildCall[V]
	// hand, if set, passes the builder's reference to a value on to the n
	// callers it is returned to, under mu.
	hand     func(v V, n int)
	logPanic func(any)
}

type buildCall[V any] struct {
	done     chan struct{}
	val      V
	err      error
	waiters  int
	finished bool // under mu: val and err are set and handed to the waiters
}

// errBuildPanicked: a build panicked; the server logged it.
var errBuildPanicked = errors.New("building it failed; the server logged the details")

func (g *flightGroup[K, V]) do(ctx context.Context, key K, build func(context.Context) (V, error)) (V, error) {
	g.mu.Lock()
	c, ok := g.m[key]
	if !ok {
		if g.m == nil {
			g.m = make(map[K]*buildCall[V])
		}
		c = &buildCall[V]{done: make(chan struct{})}
		g.m[key] = c
		go g.run(ctx, key, c, build)
	}
	c.waiters++
	g.mu.Unlock()
	select {
	case <-c.done:
		return c.val, c.err
	case <-ctx.Done():
		g.mu.Lock()
		defer g.mu.Unlock()
		if c.finished { // it finished meanwhile, and counted this caller
			return c.val, c.err
		}
		c.waiters--
		var zero V
		return zero, ctx.Err()
	}
}

func (g *flightGroup[K, V]) run(ctx context.Context, key K, c *buildCall[V], build func(context.Context) (V, error)) {
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), artifactBuildLimit)
	defer cancel()
	val, err := func() (val V, err error) {
		defer func() {
			if v := recover(); v != nil {
				if g.logPanic != nil {
					g.logPanic(v)
				}
				err = errBuildPanicked
			}
		}()
		return build(bctx)
	}()
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.m, key)
	c.val, c.err, c.finished = val, err, true
	if err == nil && g.hand != nil {
		g.hand(val, c.waiters)
	}
	close(c.done)
}

// spillFile is an artifact's body in an unlinked temporary file, read by
// its holders: the cache that keeps it, the build that made it and each
// request serving it. The last to let go closes it, which frees the disk.
type spillFile struct {
	f    *os.File
	name string // removed on close where an open file could not be unlinked
	mu   sync.Mutex
	refs int
}

func (sf *spillFile) acquire(n int) {
	sf.mu.Lock()
	sf.refs += n
	sf.mu.Unlock()
}

func (sf *spillFile) release() {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if sf.refs--; sf.refs == 0 {
		sf.f.Close()
		if sf.name != "" {
			os.Remove(sf.name)
		}
	}
}

// spillCache keeps spilled bodies, least recently used first out, within
// a budget of bytes on disk.
type spillCache struct {
	mu     sync.Mutex
	lru    *simplelru.LRU[artifactKey, *artifact]
	bytes  int64
	budget int64
}

func newSpillCache(budget int64) *spillCache {
	c := &spillCache{budget: budget}
	c.lru, _ = simplelru.NewLRU(math.MaxInt32, func(_ artifactKey, a *artifact) {
		c.bytes -= a.size
		a.file.release()
	})
	return c
}

// get returns the kept artifact, with a reference for the caller.
func (c *spillCache) get(key artifactKey) *artifact {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.lru.Get(key)
	if !ok {
		return nil
	}
	a.file.acquire(1)
	return a
}

func (c *spillCache) add(key artifactKey, a *artifact) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a.size > c.budget || c.lru.Contains(key) {
		return
	}
	a.file.acquire(1)
	c.lru.Add(key, a)
	for c.bytes += a.size; c.bytes > c.budget; {
		c.lru.RemoveOldest()
	}
}

func (c *spillCache) purge() {
	c.mu.Lock()
	c.lru.Purge()
	c.mu.Unlock()
}

// spillWriter takes an artifact's bytes as they are made and hashes them:
// in memory up to max bytes, then in an unlinked temporary file (or still
// in memory, with a log line, where no temporary file can be made).
type spillWriter struct {
	max  int64
	log  *slog.Logger
	buf  bytes.Buffer
	file *spillFile
	n    int64
	sum  hash.Hash
	err  error
}

func newSpillWriter(max int64, log *slog.Logger) *spillWriter {
	return &spillWriter{max: max, log: log, sum: sha256.New()}
}

func (w *spillWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.sum.Write(p)
	w.n += int64(len(p))
	if w.file == nil && w.n > w.max {
		w.spill()
	}
	if w.file == nil {
		return w.buf.Write(p)
	}
	n, err := w.file.f.Write(p)
	w.err = err
	return n, err
}

// spill moves what is held in memory to a new temporary file.
func (w *spillWriter) spill() {
	f, err := os.CreateTemp("", "skillstore-well-known-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path names the temporary folder, a host path
		}
		w.log.Warn("no temporary file for a large .well-known artifact; it is held in memory instead", "err", logtext.Of(err))
		w.max = math.MaxInt64
		return
	}
	sf := &spillFile{f: f, refs: 1}
	if os.Remove(f.Name()) != nil {
		sf.name = f.Name()
	}
	w.file = sf
	if _, err := f.Write(w.buf.Bytes()); err != nil {
		w.err = err
	}
	w.buf = bytes.Buffer{}
}

// finish returns the artifact made, with the builder's reference to its
// file; abort lets go of it instead.
func (w *spillWriter) finish(kind string) (*artifact, error) {
	if w.err != nil {
		w.abort()
		return nil, w.err
	}
	a := &artifact{artifactMeta: artifactMeta{kind: kind, digest: "sha256:" + hex.EncodeToString(w.sum.Sum(nil)), size: w.n}, file: w.file}
	if w.file == nil {
		a.data = w.buf.Bytes()
		if a.data == nil {
			a.data = []byte{}
		}
	}
	return a, nil
}

func (w *spillWriter) abort() {
	if w.file != nil {
		w.file.release()
		w.file = nil
	}
}

// running reports whether a build is in flight.
func (g *flightGroup[K, V]) running() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.m) > 0
}
