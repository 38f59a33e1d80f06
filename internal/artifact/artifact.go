// Package artifact builds a skill's downloadable artifacts (its zip, or
// its SKILL.md alone) once per version of its files and keeps them: the
// pages' zip and the .well-known publication share one implementation,
// and a server shares one Cache between them, so one bound holds for
// every archive it builds.
//
// A build is shared by the requests that want it and detached from them,
// so a build that outlasts one request serves the next; at most
// Options.Builds run at once, and a build waiting for its turn is dropped
// when every request that wanted it has gone. Every artifact's kind,
// digest and size are kept apart from its body, so HEAD and an index
// never need the body again; bodies up to Options.MemMax are kept in
// memory, larger ones in unlinked temporary files (nothing is left on
// disk when the process ends, however it ends).
package artifact

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
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/skillstore/skillstore/internal/flight"
	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/internal/lru"
	"github.com/skillstore/skillstore/store"
)

// Defaults of Options.
const (
	DefaultMemBudget  = lru.ArtifactBodies // bodies kept in memory
	DefaultMemMax     = 1 << 20            // a larger body is spilled to a temporary file
	DefaultDiskBudget = 1 << 30            // bytes of spilled bodies kept
	DefaultQueued     = 16                 // builds waiting for their turn
	metaBudget        = lru.ArtifactMeta   // kinds, digests and sizes kept (metaCost each)
	metaCost          = 256                // about what one Meta and its key hold
	// BuildLimit is the longest one build may run.
	BuildLimit = time.Hour
)

// DefaultBuilds is how many builds run at once by default: deflating
// takes a core for the archive's length.
var DefaultBuilds = max(2, runtime.GOMAXPROCS(0)/2)

// Options configure a Cache; zero fields take the defaults.
type Options struct {
	MemBudget, MemMax, DiskBudget int64
	// Builds bounds the builds running at once; Queued bounds those
	// waiting for their turn (negative: none wait), beyond which Get
	// fails with ErrBusy.
	Builds, Queued int
	// Logger receives what went wrong (default: discard).
	Logger *slog.Logger
}

// ErrBusy is Get's error when Options.Builds builds are running and
// Options.Queued more wait: answer 503 with Retry-After.
var ErrBusy = errors.New("too many archives are being built at once; try again shortly")

// ErrBuildPanicked is a build's error when it panicked; the panic is logged.
var ErrBuildPanicked = errors.New("building it failed; the server logged the details")

// Recover is a flight.Group's Recover for builds: log is told of the
// panic, and the build fails with ErrBuildPanicked.
func Recover(log func(*flight.Panic)) func(*flight.Panic) error {
	return func(p *flight.Panic) error {
		log(p)
		return ErrBuildPanicked
	}
}

// Key names one version of one artifact of a skill: its source, its
// name, what is built (Variant: the pages' zip and the .well-known
// artifact differ), and a hash of its files.
type Key struct {
	Source, Name, Variant string
	Files                 [sha256.Size]byte
}

// KeyOf is the key of sk's artifact variant built from files (FilesOf(sk)):
// each file's path, size, time and, when the source knows it, digest; and
// sk's revision unless every digest is known (two commits' files may share
// paths, sizes and times; digests name the content, so a new snapshot of
// the same files is the same artifact). A changed file is a new key.
func KeyOf(sk *store.Skill, files []store.FileInfo, variant string) Key {
	h := sha256.New()
	if !allDigested(files) {
		fmt.Fprintf(h, "%s\n", sk.Revision())
	}
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\n", f.Path, f.Size, f.ModTime.UnixNano(), f.SHA256)
	}
	k := Key{Source: sk.Source.Label, Name: sk.Name, Variant: variant}
	h.Sum(k.Files[:0])
	return k
}

func allDigested(files []store.FileInfo) bool {
	for _, f := range files {
		if f.SHA256 == "" {
			return false
		}
	}
	return true
}

// Lasting marks a build's failure as lasting for its version (a skill too
// large for an archive, say): it is kept with the artifact's meta, and
// Get returns it without building again.
func Lasting(err error) error { return &lastingError{err} }

type lastingError struct{ err error }

func (e *lastingError) Error() string { return e.err.Error() }
func (e *lastingError) Unwrap() error { return e.err }

// Cache builds artifacts and keeps them. It is safe for concurrent use.
type Cache struct {
	flight flight.Group[Key, *Artifact]
	log    *slog.Logger

	mu     sync.Mutex // guards the caches' replacement (Limit), not their use
	mem    *lru.Cache[Key, *Artifact]
	memMax int64
	disk   *spillCache
	meta   *lru.Cache[Key, Meta]

	builds atomic.Int64
}

// New returns a Cache with opts.
func New(opts Options) *Cache {
	if opts.MemBudget <= 0 {
		opts.MemBudget = DefaultMemBudget
	}
	if opts.MemMax <= 0 {
		opts.MemMax = DefaultMemMax
	}
	if opts.DiskBudget <= 0 {
		opts.DiskBudget = DefaultDiskBudget
	}
	if opts.Builds <= 0 {
		opts.Builds = DefaultBuilds
	}
	switch {
	case opts.Queued == 0:
		opts.Queued = DefaultQueued
	case opts.Queued < 0:
		opts.Queued = 0
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Cache{log: opts.Logger, meta: lru.New[Key, Meta](metaBudget)}
	c.flight.Hand = func(a *Artifact, n int) { a.hand(n) }
	c.flight.Recover = Recover(func(p *flight.Panic) {
		c.log.Error("panic while building an archive", "panic", fmt.Sprint(p.Value()), "stack", string(p.Stack()))
	})
	c.flight.Timeout = BuildLimit
	c.flight.Turns = make(chan struct{}, opts.Builds)
	c.flight.Queued = opts.Queued
	c.flight.Busy = ErrBusy
	c.Limit(opts.MemBudget, opts.MemMax, opts.DiskBudget)
	return c
}

// Limit replaces the body caches (dropping what they hold): memBudget
// bytes in memory, bodies up to memMax each, diskBudget bytes on disk.
// The kinds, digests and sizes built are kept.
func (c *Cache) Limit(memBudget, memMax, diskBudget int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.disk != nil {
		c.disk.purge()
	}
	c.mem, c.memMax, c.disk = lru.New[Key, *Artifact](memBudget), memMax, newSpillCache(diskBudget)
}

func (c *Cache) caches() (*lru.Cache[Key, *Artifact], int64, *spillCache) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mem, c.memMax, c.disk
}

// Builds is how many builds c started.
func (c *Cache) Builds() int64 { return c.builds.Load() }

// Running reports whether a build is in flight.
func (c *Cache) Running() bool { return c.flight.Running() }

// Get returns key's artifact: the one kept, or the one a build running for
// key makes, or one build makes now, once one of Options.Builds turns is
// free, by writing the artifact's bytes to w and returning its kind. With
// body, the artifact holds its bytes; without, perhaps only its meta
// (enough for HEAD and an index). Release it when done. Get fails with
// ctx's error when ctx ends first (the build goes on for the next caller
// once started), with ErrBusy when too many builds wait already, or with
// the build's error.
func (c *Cache) Get(ctx context.Context, key Key, body bool, build func(ctx context.Context, w io.Writer) (kind string, err error)) (*Artifact, error) {
	a, ok := c.cached(key, body)
	if !ok {
		var err error
		a, err = c.flight.Do(ctx, key, false, func(ctx context.Context) (*Artifact, error) {
			return c.build(ctx, key, build)
		})
		if err != nil {
			return nil, err
		}
	}
	if a.Err != nil {
		return nil, a.Err
	}
	return a, nil
}

// build makes key's artifact and keeps it.
func (c *Cache) build(ctx context.Context, key Key, build func(context.Context, io.Writer) (string, error)) (*Artifact, error) {
	c.builds.Add(1)
	_, memMax, _ := c.caches()
	out := newSpillWriter(memMax, c.log)
	kind, err := build(ctx, out)
	if err != nil {
		out.abort()
		if le := (*lastingError)(nil); errors.As(err, &le) {
			c.meta.Add(key, Meta{Err: err}, metaCost)
		}
		return nil, err
	}
	a, err := out.finish(kind)
	if err != nil {
		return nil, err
	}
	c.keep(key, a)
	return a, nil
}

// cached returns the artifact's body if it is kept (release it when
// done), or its meta if body is false and that is kept.
func (c *Cache) cached(key Key, body bool) (*Artifact, bool) {
	mem, _, disk := c.caches()
	if a, ok := mem.Get(key); ok {
		return a, true
	}
	if a := disk.get(key); a != nil {
		return a, true
	}
	if m, ok := c.meta.Get(key); ok && (!body || m.Err != nil) {
		return &Artifact{Meta: m}, true
	}
	return nil, false
}

// keep files what a build made: its meta always, its body in memory or
// on disk if it fits.
func (c *Cache) keep(key Key, a *Artifact) {
	c.meta.Add(key, a.Meta, metaCost)
	mem, _, disk := c.caches()
	if a.file != nil {
		disk.add(key, a)
	} else {
		mem.Add(key, a, int64(cap(a.data))+128)
	}
}

// Artifact is a skill's built bytes: their kind, digest and size, and the
// body when held (in memory, or in a temporary file; neither when only
// the meta is known).
type Artifact struct {
	Meta
	data []byte
	file *spillFile // one reference is the holder's: Release it
}

// Meta is what an index and HEAD need of an artifact. Err is a build's
// lasting failure for this version (Lasting).
type Meta struct {
	Kind   string // what the build said it made
	Digest string // "sha256:" and 64 hex digits
	Size   int64
	Err    error
}

// Body is the artifact's bytes to serve; an artifact known by its meta
// alone gives a reader of its length that fails to read (enough for HEAD
// and 304, which http.ServeContent answers without reading).
func (a *Artifact) Body() io.ReadSeeker {
	switch {
	case a.file != nil:
		return io.NewSectionReader(a.file.f, 0, a.Size)
	case a.HasBody():
		return bytes.NewReader(a.data)
	}
	return &lengthOnly{size: a.Size}
}

// HasBody reports whether the artifact holds its bytes.
func (a *Artifact) HasBody() bool { return a.file != nil || a.data != nil || a.Size == 0 }

// ETag is the artifact's entity tag, from its digest.
func (a *Artifact) ETag() string { return `"` + a.Digest[len("sha256:"):][:32] + `"` }

// Release lets go of the holder's reference to the artifact's file.
func (a *Artifact) Release() {
	if a.file != nil {
		a.file.release()
	}
}

// hand passes the builder's reference on to n holders (none: dropped).
func (a *Artifact) hand(n int) {
	if a.file == nil {
		return
	}
	if n == 0 {
		a.file.release()
		return
	}
	a.file.acquire(n - 1)
}

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
	lru    *simplelru.LRU[Key, *Artifact]
	bytes  int64
	budget int64
}

func newSpillCache(budget int64) *spillCache {
	c := &spillCache{budget: budget}
	c.lru, _ = simplelru.NewLRU(math.MaxInt32, func(_ Key, a *Artifact) {
		c.bytes -= a.Size
		a.file.release()
	})
	return c
}

// get returns the kept artifact, with a reference for the caller.
func (c *spillCache) get(key Key) *Artifact {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.lru.Get(key)
	if !ok {
		return nil
	}
	a.file.acquire(1)
	return a
}

func (c *spillCache) add(key Key, a *Artifact) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a.Size > c.budget || c.lru.Contains(key) {
		return
	}
	a.file.acquire(1)
	c.lru.Add(key, a)
	for c.bytes += a.Size; c.bytes > c.budget; {
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
	f, err := os.CreateTemp("", "skillstore-artifact-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path names the temporary folder, a host path
		}
		w.log.Warn("no temporary file for a large archive; it is held in memory instead", "err", logtext.Of(err))
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
func (w *spillWriter) finish(kind string) (*Artifact, error) {
	if w.err != nil {
		w.abort()
		return nil, w.err
	}
	a := &Artifact{Meta: Meta{Kind: kind, Digest: "sha256:" + hex.EncodeToString(w.sum.Sum(nil)), Size: w.n}, file: w.file}
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
