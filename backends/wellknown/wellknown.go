// Package wellknown serves skills that a site publishes the way the Agent
// Skills discovery RFC (v0.2.0) describes: an index at
// https://host/.well-known/agent-skills/index.json naming each skill's
// artifact (its SKILL.md, or a .zip or .tar.gz archive of its folder) and
// the artifact's SHA-256 digest.
//
// Importing it makes backends.Open handle https:// (and http://) URLs of
// a .well-known/agent-skills/ folder or its index.json. The index is
// fetched on first use and revalidated with its ETag on each refresh (an
// unchanged body, by its hash, keeps the current snapshot); an artifact is
// downloaded when one of its skill's files is first read (a catalog reads
// every SKILL.md, so the first catalog downloads them all), checked
// against its digest (a mismatch is refused, with an error), and unpacked
// with the safety rules of zip sources (no "..", absolute paths or links;
// size caps) into a private temporary folder, kept by digest.
//
// Memory does not grow with artifacts: an unpacked artifact is a zip on
// disk holding only files within Options.MaxFileSize (larger ones keep
// their name and size; reading one fails with store.ErrTooLarge), read
// back one file at a time. Kept artifacts are bounded in all
// (Options.MaxDiskBytes on disk, Options.MaxListBytes of file lists in
// memory); beyond that the least recently used are let go and downloaded
// again when read.
//
// Security: a redirect to another host, and an artifact URL on another
// host, are refused unless Options.AllowHosts lists the host; responses
// are size-capped (index 16 MiB, artifact Options.MaxBytes) and paced (a
// download that trickles is cut off after seconds, see Options.MinRate).
package wellknown

import (
	"archive/zip"
	"bufio"
	"cmp"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/discovery"
	"github.com/skillstore/skillstore/internal/fsdir"
	"github.com/skillstore/skillstore/internal/pace"
	"github.com/skillstore/skillstore/internal/unpack"
	"github.com/skillstore/skillstore/store"
)

// Limits.
const (
	MaxIndexBytes       = 16 << 20
	DefaultMaxBytes     = 64 << 20 // per artifact, packed and unpacked
	DefaultMaxDiskBytes = 1 << 30
	DefaultMaxListBytes = 32 << 20
	DefaultMinRate      = 32 << 10 // bytes a second
	DefaultGrace        = 5 * time.Second
	DefaultTimeout      = 30 * time.Second
)

// MaxFileSizeEnv names the environment variable the registered opener
// takes Options.MaxFileSize from (the CLI sets it from --max-file-size).
const MaxFileSizeEnv = "SKILLSTORE_MAX_FILE_SIZE"

func init() {
	for _, scheme := range []string{"https", "http"} {
		backends.Register(scheme, func(ctx context.Context, u *url.URL) (store.Source, error) {
			max, _ := strconv.ParseInt(os.Getenv(MaxFileSizeEnv), 10, 64)
			s, err := Open(u.String(), Options{MaxFileSize: max})
			if err != nil {
				return store.Source{}, err
			}
			return store.Source{Location: s.Location(), Kind: "well-known", FS: s}, nil
		})
	}
}

// Options tune an FS.
type Options struct {
	// AllowHosts lists other hosts the index may redirect to or name
	// artifacts on (a CDN).
	AllowHosts []string
	// MaxBytes caps each artifact, downloaded and unpacked (default
	// DefaultMaxBytes).
	MaxBytes int64
	// MaxFileSize is the largest file kept with its bytes (default
	// store.DefaultMaxFileSize; give the store's Options.MaxFileSize):
	// larger ones keep their name and size, and reading one fails with
	// store.ErrTooLarge.
	MaxFileSize int64
	// MaxDiskBytes bounds the unpacked artifacts kept on disk (default
	// DefaultMaxDiskBytes), and MaxListBytes the memory their file lists
	// are estimated to take (default DefaultMaxListBytes). Beyond either
	// the least recently used artifacts are let go (the last one read is
	// always kept).
	MaxDiskBytes, MaxListBytes int64
	// Dir is where the source's temporary folder is made (default
	// os.TempDir()). The folder is private (0700) and removed by Close;
	// folders that processes no longer running left there (killed before
	// Close) are removed when the first one is made.
	Dir string
	// Grace is how long a download may take to start (default 5 s);
	// after it the bytes must keep up MinRate bytes a second on average
	// since the start (default 32 KiB/s), and the whole download end
	// within Timeout (default 30 s). A download that falls behind is cut
	// off and fails alone.
	Grace   time.Duration
	MinRate int64
	Timeout time.Duration
	// Client is the HTTP client (default: http.DefaultTransport's; its
	// Timeout, if any, still applies).
	Client *http.Client
}

// FS is a site's published skills: an fs.FS of one folder per skill
// (store.SnapshotFS: each index version is a snapshot), refreshed by
// store.Refresher.
type FS struct {
	index *url.URL
	opts  Options
	hc    *http.Client

	mu   sync.Mutex // one index fetch at a time
	etag string
	hash [sha256.Size]byte // of the index body cur was made from
	cur  atomic.Pointer[view]

	artMu      sync.Mutex
	artifacts  map[string]*download // by digest
	lru        list.List            // kept artifacts (*download), most recently used first
	disk, list int64                // their bytes on disk and estimated in memory
	dir        string               // the temporary folder, once made
	closed     bool
}

var (
	_ store.SnapshotFS = (*FS)(nil)
	_ store.Refresher  = (*FS)(nil)
	_ io.Closer        = (*FS)(nil)
)

// Open returns an FS for the URL of a .well-known/agent-skills/ folder
// or of its index.json. It does no I/O.
func Open(rawURL string, opts Options) (*FS, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("source %s: give the https:// URL of a site's /.well-known/agent-skills/ folder", backends.Redact(rawURL))
	}
	if u.User != nil {
		return nil, fmt.Errorf("source %s: put no credentials in the URL", backends.Redact(rawURL))
	}
	switch {
	case strings.HasSuffix(u.Path, "/index.json"):
	case strings.HasSuffix(u.Path, "/"):
		u.Path += "index.json"
	default:
		u.Path += "/index.json"
	}
	if !strings.Contains(u.Path, "/.well-known/agent-skills/") {
		return nil, fmt.Errorf("source %s: an https:// source must be a site's /.well-known/agent-skills/ folder (or its index.json)", backends.Redact(rawURL))
	}
	opts.MaxBytes = positive(opts.MaxBytes, DefaultMaxBytes)
	opts.MaxFileSize = positive(opts.MaxFileSize, store.DefaultMaxFileSize)
	opts.MaxDiskBytes = positive(opts.MaxDiskBytes, DefaultMaxDiskBytes)
	opts.MaxListBytes = positive(opts.MaxListBytes, DefaultMaxListBytes)
	opts.MinRate = positive(opts.MinRate, DefaultMinRate)
	opts.Grace = positive(opts.Grace, DefaultGrace)
	opts.Timeout = positive(opts.Timeout, DefaultTimeout)
	s := &FS{index: u, opts: opts, artifacts: map[string]*download{}}
	hc := opts.Client
	if hc == nil {
		hc = &http.Client{}
	}
	c := *hc
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !s.hostAllowed(req.URL) {
			return fmt.Errorf("%w: %s", errOtherHost, req.URL.Host)
		}
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		return nil
	}
	s.hc = &c
	return s, nil
}

// positive is v, or def if v is not above zero.
func positive[T int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

var errOtherHost = errors.New("refusing another host")

func (s *FS) hostAllowed(u *url.URL) bool {
	return strings.EqualFold(u.Host, s.index.Host) || slices.ContainsFunc(s.opts.AllowHosts, func(h string) bool { return strings.EqualFold(h, u.Host) })
}

// Location is the index's URL.
func (s *FS) Location() string { return s.index.String() }

// Open opens a file of the current index's skills, fetching the index on
// first use.
func (s *FS) Open(name string) (fs.File, error) {
	v, err := s.current(context.Background())
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return v.Open(name)
}

// Snapshot returns the skills of the current index. The result never
// changes; a refresh that finds a new index makes a new one.
func (s *FS) Snapshot(ctx context.Context) (fs.FS, error) { return s.current(ctx) }

func (s *FS) current(ctx context.Context) (*view, error) {
	if v := s.cur.Load(); v != nil {
		return v, nil
	}
	if err := s.Refresh(ctx); err != nil {
		return nil, err
	}
	return s.cur.Load(), nil
}

// Error is a .well-known source's failure; its text names no credential.
// Clients see its Detail only if it is public (see Public).
type Error struct {
	Location, Detail string
	Err              error

	public bool // Detail names no host or path: clients may see it
}

var _ store.PublicError = (*Error)(nil)

func (e *Error) Error() string { return "source " + e.Location + ": " + e.Detail }
func (e *Error) Unwrap() error { return e.Err }

// Public is the explanation callers may see (store.PublicError): what is
// wrong with the index or an artifact, never a network error's hosts. It
// is empty unless the error was made public, as in every backend: the
// store then shows callers only that the source is unavailable.
func (e *Error) Public() string {
	if !e.public {
		return ""
	}
	return "the published skills: " + e.Detail
}

// errorf is a failure whose detail names no host or path (what is wrong
// with the index or an artifact): callers may see it.
func (s *FS) errorf(err error, format string, a ...any) error {
	return &Error{Location: s.Location(), Detail: fmt.Sprintf(format, a...), Err: err, public: true}
}

// netError is a network failure: its detail, which may name a host,
// stays in the log.
func (s *FS) netError(err error, format string, a ...any) error {
	return &Error{Location: s.Location(), Detail: fmt.Sprintf(format, a...), Err: err}
}

// Refresh fetches the index, with its ETag: an unchanged index costs a
// 304, or, from a site that sends no ETag, one download whose body hashes
// the same and keeps the current snapshot. On failure the index served so
// far stays.
func (s *FS) Refresh(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	header := http.Header{"Accept": {"application/json"}}
	if s.etag != "" && s.cur.Load() != nil {
		header.Set("If-None-Match", s.etag)
	}
	res, p, stop, err := s.get(ctx, s.index, header)
	if err != nil {
		if errors.Is(err, errOtherHost) {
			return s.errorf(err, "the index redirects to another host; refusing it (allow the host to follow it)")
		}
		if p == nil { // the request could not be made; its error may repeat the URL
			return s.netError(err, "%v", err)
		}
		return s.downloadError(p, err, "cannot fetch the index")
	}
	defer stop()
	switch {
	case res.StatusCode == http.StatusNotModified:
		return nil
	case res.StatusCode != http.StatusOK:
		return s.errorf(nil, "fetching the index answered %s", res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(p, MaxIndexBytes+1))
	if err != nil {
		return s.downloadError(p, err, "reading the index")
	}
	if len(body) > MaxIndexBytes {
		return s.errorf(nil, "the index is over %d MiB", MaxIndexBytes>>20)
	}
	hash := sha256.Sum256(body)
	if hash == s.hash && s.cur.Load() != nil {
		s.etag = res.Header.Get("ETag")
		return nil // the same index: the same snapshot, nothing discovered again
	}
	v, err := s.parse(body)
	if err != nil {
		return err
	}
	s.etag, s.hash = res.Header.Get("ETag"), hash
	s.cur.Store(v)
	s.artMu.Lock() // artifacts the new index no longer names are let go
	var gone []string
	for digest, d := range s.artifacts {
		if _, named := v.digests[digest]; !named {
			delete(s.artifacts, digest)
			if d.k != nil {
				s.lru.Remove(d.elem)
				s.disk -= d.k.disk
				s.list -= d.k.list
				gone = append(gone, d.k.path)
			}
		}
	}
	s.artMu.Unlock()
	removeAll(gone)
	return nil
}

// reason is an HTTP error's cause without the URL it names.
func reason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// parse reads an index into a view. Entries that break the RFC (a bad
// name, an unknown type, a malformed digest, a URL on another host) are
// left out; a bad index as a whole is an error.
func (s *FS) parse(body []byte) (*view, error) {
	idx, err := discovery.Parse(body)
	var schemaErr *discovery.SchemaError
	switch {
	case errors.Is(err, discovery.ErrNoSchema):
		return nil, s.errorf(nil, "the index has no $schema: a v0.1.0 index, which has no digests; publish a v0.2.0 index (%s)", discovery.Schema)
	case errors.As(err, &schemaErr):
		return nil, s.errorf(nil, "the index's $schema %q is not one this server reads (%s)", store.Echo(schemaErr.Got), discovery.Schema)
	case err != nil:
		return nil, s.errorf(err, "the index is not valid JSON: %v", err)
	}
	v := &view{src: s, skills: map[string]entry{}, digests: map[string]struct{}{}}
	left := 0
	for _, e := range idx.Skills {
		u, err := s.index.Parse(e.URL)
		hexDigest, okDigest := e.HexDigest()
		switch {
		case !store.SpecName(e.Name), v.skills[e.Name].url != nil, !e.KnownType(), !okDigest,
			err != nil || !s.hostAllowed(u) || (u.Scheme != "https" && u.Scheme != "http"):
			if left++; left <= maxLeftOutLogged {
				slog.Warn("a .well-known index entry breaks the discovery RFC (name, type, digest) or names another host; left out",
					"source", s.Location(), "name", store.Echo(e.Name), "type", store.Echo(e.Type))
			}
			continue
		}
		v.skills[e.Name] = entry{kind: e.Type, url: u, digest: hexDigest}
		v.digests[hexDigest] = struct{}{}
		v.names = append(v.names, e.Name)
	}
	if left > maxLeftOutLogged {
		slog.Warn("more .well-known index entries left out", "source", s.Location(), "count", left-maxLeftOutLogged)
	}
	slices.Sort(v.names)
	return v, nil
}

// maxLeftOutLogged is how many left-out entries of one index are logged
// one by one; the rest are counted.
const maxLeftOutLogged = 10

// entry is one skill of an index.
type entry struct {
	kind   string
	url    *url.URL
	digest string // hex
}

// view is one index's skills, as an fs.FS: a folder per skill, whose
// files come from its artifact.
type view struct {
	src     *FS
	skills  map[string]entry
	digests map[string]struct{} // of skills' artifacts
	names   []string
}

var _ store.ContextFS = (*view)(nil)

// Open opens a file, downloading its skill's artifact if need be.
func (v *view) Open(name string) (fs.File, error) { return v.open(context.Background(), name) }

// WithContext is the view whose reads stop waiting for a download when
// ctx ends (store.ContextFS); the download ends when no read waits.
func (v *view) WithContext(ctx context.Context) fs.FS { return ctxView{v, ctx} }

type ctxView struct {
	v   *view
	ctx context.Context
}

func (c ctxView) Open(name string) (fs.File, error) { return c.v.open(c.ctx, name) }

func (v *view) open(ctx context.Context, name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		ents := make([]fs.DirEntry, len(v.names))
		for i, n := range v.names {
			ents[i] = fsdir.Entry(n)
		}
		return fsdir.Open(".", ents), nil
	}
	skill, rest, _ := strings.Cut(name, "/")
	e, ok := v.skills[skill]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	files, err := v.src.artifact(ctx, skill, e)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if rest == "" {
		rest = "."
	}
	f, err := files.Open(rest)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return f, nil
}

// download is one artifact: fetched once and shared by the reads that
// wait for it; a failure is remembered for retryAfter, so a tampered
// artifact is not downloaded on every read. A download no read waits for
// any more is cancelled and forgotten.
type download struct {
	digest  string
	done    chan struct{} // closed when k or err is set
	k       *kept
	err     error
	failed  time.Time
	waiters int
	cancel  context.CancelFunc
	elem    *list.Element // in FS.lru while k is kept
}

// kept is an artifact unpacked on disk: a zip in the source's temporary
// folder holding the files it serves, read back one file at a time.
type kept struct {
	path  string // the zip, in FS.dir
	files fs.FS  // the skill's folder
	disk  int64  // bytes on disk
	list  int64  // bytes of memory its file list is estimated to hold
}

const retryAfter = time.Minute

var (
	errClosed  = errors.New("the source is closed")
	errEvicted = errors.New("its unpacked copy was let go (under the budget, or for a new index); read it again")
	// errSlow is a download cut off by its pace or time limit (not the
	// caller's context, which it does not wrap).
	errSlow = errors.New("download too slow")
)

// artifact returns the skill's files, downloading and checking its
// artifact the first time (and again after the budget let it go). A read
// whose ctx ends stops waiting; the download ends when no read waits.
func (s *FS) artifact(ctx context.Context, skill string, e entry) (fs.FS, error) {
	s.artMu.Lock()
	if s.closed {
		s.artMu.Unlock()
		return nil, errClosed
	}
	d := s.artifacts[e.digest]
	if d != nil && d.err != nil && time.Since(d.failed) > retryAfter {
		delete(s.artifacts, e.digest) // this read tries again
		d = nil
	}
	if d == nil {
		if err := ctx.Err(); err != nil {
			// The caller left: no download is started for it.
			s.artMu.Unlock()
			return nil, s.errorf(err, "skill %s: its artifact's download was abandoned: %v", skill, err)
		}
		dctx, cancel := context.WithCancel(context.Background())
		d = &download{digest: e.digest, done: make(chan struct{}), cancel: cancel}
		s.artifacts[e.digest] = d
		go s.run(dctx, d, skill, e)
	}
	if d.k != nil {
		s.lru.MoveToFront(d.elem)
		files := d.k.files
		s.artMu.Unlock()
		return files, nil
	}
	d.waiters++
	s.artMu.Unlock()
	select {
	case <-d.done:
	case <-ctx.Done():
	}
	s.artMu.Lock()
	defer s.artMu.Unlock()
	d.waiters--
	select {
	case <-d.done:
	default:
		if d.waiters == 0 { // no read waits for it any more: the next starts again
			d.cancel()
			if s.artifacts[e.digest] == d {
				delete(s.artifacts, e.digest)
			}
		}
		return nil, s.errorf(ctx.Err(), "skill %s: its artifact's download was abandoned: %v", skill, ctx.Err())
	}
	if d.k != nil {
		return d.k.files, nil
	}
	return nil, d.err
}

// run downloads and unpacks one artifact, then keeps it within the
// budgets: beyond them the least recently used artifacts are let go.
func (s *FS) run(ctx context.Context, d *download, skill string, e entry) {
	k, err := s.fetch(ctx, skill, e)
	var gone []string
	s.artMu.Lock()
	d.cancel()
	switch {
	case err == nil && (s.closed || s.artifacts[e.digest] != d):
		gone = append(gone, k.path) // let go meanwhile (a new index, Close)
		err = cmp.Or(s.closedErr(), errEvicted)
	case err == nil:
		d.k = k
		d.elem = s.lru.PushFront(d)
		s.disk += k.disk
		s.list += k.list
		for s.lru.Len() > 1 && (s.disk > s.opts.MaxDiskBytes || s.list > s.opts.MaxListBytes) {
			gone = append(gone, s.evict(s.lru.Back().Value.(*download)))
		}
	case s.artifacts[e.digest] != d:
		// abandoned or let go: not remembered, the next read tries again
	default:
		d.failed = time.Now()
	}
	d.err = err
	s.artMu.Unlock()
	removeAll(gone) // before the waiters go on: disk stays within the budget
	close(d.done)
}

// closedErr is errClosed once the source is closed (s.artMu held).
func (s *FS) closedErr() error {
	if s.closed {
		return errClosed
	}
	return nil
}

// evict lets an artifact go (s.artMu held) and returns its file, for the
// caller to remove outside the lock.
func (s *FS) evict(d *download) string {
	s.lru.Remove(d.elem)
	s.disk -= d.k.disk
	s.list -= d.k.list
	if s.artifacts[d.digest] == d {
		delete(s.artifacts, d.digest)
	}
	return d.k.path
}

func removeAll(paths []string) {
	for _, p := range paths {
		os.Remove(p)
	}
}

// Close lets every artifact go and removes the temporary folder.
func (s *FS) Close() error {
	s.artMu.Lock()
	s.closed = true
	for _, d := range s.artifacts {
		d.cancel()
	}
	clear(s.artifacts)
	s.lru.Init()
	s.disk, s.list = 0, 0
	dir := s.dir
	s.artMu.Unlock()
	if dir == "" {
		return nil
	}
	return os.RemoveAll(dir)
}

// spillDir is the source's temporary folder (0700), made on first use.
func (s *FS) spillDir() (string, error) {
	s.artMu.Lock()
	defer s.artMu.Unlock()
	if s.closed {
		return "", errClosed
	}
	if s.dir == "" {
		sweepStale(s.opts.Dir)
		dir, err := os.MkdirTemp(s.opts.Dir, tempPrefix+strconv.Itoa(os.Getpid())+"-")
		if err != nil {
			return "", fmt.Errorf("cannot make a temporary folder for artifacts: %w", noPath(err))
		}
		s.dir = dir
	}
	return s.dir, nil
}

// noPath is err without the host path a *fs.PathError names.
func noPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// get starts a paced GET (see pace.Pacer, with Options.Grace, MinRate
// and Timeout); stop releases it. The body is read through the Pacer.
func (s *FS) get(ctx context.Context, u *url.URL, header http.Header) (*http.Response, *pace.Pacer, func(), error) {
	ctx, p, unpace := pace.Start(ctx, pace.Limits{Grace: s.opts.Grace, MinRate: s.opts.MinRate, Timeout: s.opts.Timeout})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		unpace()
		return nil, nil, nil, err
	}
	maps.Copy(req.Header, header)
	res, err := s.hc.Do(req)
	if err != nil {
		unpace()
		return nil, p, nil, err
	}
	p.Wrap(res.Body)
	return res, p, func() { res.Body.Close(); unpace() }, nil
}

// downloadError explains a failed request: too slow or over its time
// (which callers may see), else a network error (for the log).
func (s *FS) downloadError(p *pace.Pacer, err error, format string, a ...any) error {
	what := fmt.Sprintf(format, a...)
	switch {
	case p.Slow():
		return s.errorf(errSlow, "%s: it arrived too slowly (%s)", what, p.Explain())
	case p.Late():
		return s.errorf(errSlow, "%s: it took over %v", what, p.Limits().Timeout.Round(time.Second))
	}
	return s.netError(err, "%s: %s", what, reason(err))
}

// fetch downloads the artifact to the temporary folder (hashing it as it
// arrives) and unpacks it there as a zip that holds only what can be
// served: a file over Options.MaxFileSize keeps its name and size but no
// bytes (reading it fails with store.ErrTooLarge). Memory does not depend
// on the artifact's size or compression ratio.
func (s *FS) fetch(ctx context.Context, skill string, e entry) (*kept, error) {
	dir, err := s.spillDir()
	if err != nil {
		return nil, s.errorf(err, "skill %s: %v", skill, err)
	}
	raw, n, ctype, err := s.download(ctx, dir, skill, e)
	if err != nil {
		return nil, err
	}
	defer func() { raw.Close(); os.Remove(raw.Name()) }()
	return s.unpack(dir, skill, e, raw, n, ctype)
}

// download writes the artifact to a file in dir, n bytes checked against
// the index's digest, and returns it with the Content-Type it was served
// with; the caller closes and removes it. The connection goes back to the
// pool when it returns.
func (s *FS) download(ctx context.Context, dir, skill string, e entry) (raw *os.File, n int64, ctype string, err error) {
	res, p, stop, err := s.get(ctx, e.url, nil)
	if err != nil {
		if errors.Is(err, errOtherHost) {
			return nil, 0, "", s.errorf(err, "skill %s: its artifact redirects to another host; refusing it", skill)
		}
		return nil, 0, "", s.downloadError(p, err, "skill %s: cannot download its artifact", skill)
	}
	defer stop()
	if res.StatusCode != http.StatusOK {
		return nil, 0, "", s.errorf(nil, "skill %s: downloading its artifact answered %s", skill, res.Status)
	}
	raw, err = os.CreateTemp(dir, "download-")
	if err != nil {
		return nil, 0, "", s.errorf(noPath(err), "skill %s: cannot keep its artifact: %v", skill, noPath(err))
	}
	fail := func(err error) (*os.File, int64, string, error) {
		raw.Close()
		os.Remove(raw.Name())
		return nil, 0, "", err
	}
	h := sha256.New()
	n, err = io.Copy(io.MultiWriter(raw, h), io.LimitReader(p, s.opts.MaxBytes+1))
	switch {
	case err != nil && errors.Is(err, errOtherHost):
		return fail(s.errorf(err, "skill %s: its artifact redirects to another host; refusing it", skill))
	case err != nil:
		return fail(s.downloadError(p, noPath(err), "skill %s: reading its artifact", skill))
	case n > s.opts.MaxBytes:
		return fail(s.errorf(nil, "skill %s: its artifact is over %d MiB", skill, s.opts.MaxBytes>>20))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != e.digest {
		return fail(s.errorf(nil, "skill %s: its artifact does not match the index's digest (sha256:%s…, downloaded sha256:%s…); refusing it", skill, e.digest[:12], got[:12]))
	}
	return raw, n, res.Header.Get("Content-Type"), nil
}

// unpack keeps the downloaded artifact raw (n bytes, served as ctype) as
// a zip in dir that holds only what can be served (see fetch).
func (s *FS) unpack(dir, skill string, e entry, raw *os.File, n int64, ctype string) (*kept, error) {
	out, err := os.CreateTemp(dir, "artifact-")
	if err != nil {
		return nil, s.errorf(noPath(err), "skill %s: cannot unpack its artifact: %v", skill, noPath(err))
	}
	k := &kept{path: out.Name()}
	ok := false
	defer func() {
		if !ok {
			os.Remove(k.path)
		}
	}()
	u := s.unpacker(out)
	isTar := strings.Contains(ctype, "gzip") || strings.Contains(ctype, "x-tar") ||
		(!strings.Contains(ctype, "zip") && (strings.HasSuffix(e.url.Path, ".tar.gz") || strings.HasSuffix(e.url.Path, ".tgz")))
	switch {
	case e.kind == discovery.TypeSkillMD: // served as a one-file archive, the one reader of skills here
		err = u.add(store.DocName, n, time.Time{}, io.NewSectionReader(raw, 0, n))
	case isTar:
		err = u.fromTar(io.NewSectionReader(raw, 0, n))
	default:
		err = u.fromZip(raw, n)
	}
	if err == nil {
		err = u.close()
	}
	if err != nil {
		return nil, s.errorf(err, "skill %s: its archive: %v", skill, noPath(err))
	}
	k.disk, k.list = u.size, u.list
	a, err := backends.NewArchive(diskFile(k.path), k.disk, backends.ArchiveOptions{MaxBytes: s.opts.MaxBytes, MaxEntries: maxEntries, Name: skill})
	if err != nil {
		return nil, s.errorf(err, "skill %s: its archive: %v", skill, err)
	}
	if _, err := fs.Stat(a, skill+"/"+store.DocName); err != nil {
		return nil, s.errorf(nil, "skill %s: its archive has no SKILL.md at its root", skill)
	}
	sub, err := fs.Sub(a, skill)
	if err != nil {
		return nil, s.errorf(err, "skill %s: %v", skill, err)
	}
	prefix := skill + "/" // the skill's folder in the archive
	if u.rootDoc {
		prefix = ""
	}
	k.files = bounded{FS: sub, tooLarge: u.tooLarge, prefix: prefix}
	ok = true
	return k, nil
}

// maxEntries caps an artifact's files: one skill's folder, which the
// store lists up to store.MaxFilesPerSkill files of.
const maxEntries = store.MaxFilesPerSkill

// maxNameLen caps an entry's name, so a file list's memory is bounded
// by its count of entries (names compress well).
const maxNameLen = 1024

// entryCost is the memory a kept file's entry is estimated to take
// (archive/zip's File and directory entry), besides twice its name.
const entryCost = 320

// unpacker writes the zip an artifact is kept as.
type unpacker struct {
	f        *os.File
	buf      *bufio.Writer
	zw       *zip.Writer
	max      int64 // Options.MaxFileSize
	total    int64 // declared bytes, against Options.MaxBytes
	maxBytes int64
	entries  int
	size     int64 // the zip's bytes
	list     int64
	tooLarge map[string]bool // names with no bytes kept
	rootDoc  bool            // SKILL.md at the root: backends.NewArchive mounts it as the skill's folder
}

func (s *FS) unpacker(f *os.File) *unpacker {
	buf := bufio.NewWriter(f)
	return &unpacker{f: f, buf: buf, zw: zip.NewWriter(buf), max: s.opts.MaxFileSize, maxBytes: s.opts.MaxBytes}
}

// add keeps one file of size bytes read from r. A file over the size
// limit keeps its name and size only.
func (u *unpacker) add(name string, size int64, mod time.Time, r io.Reader) error {
	if u.entries++; u.entries > maxEntries {
		return fmt.Errorf("%w: over %d entries", backends.ErrUnsafeArchive, maxEntries)
	}
	if u.total += size; u.total > u.maxBytes {
		return fmt.Errorf("%w: uncompressed size exceeds %d bytes", backends.ErrUnsafeArchive, u.maxBytes)
	}
	if len(name) > maxNameLen {
		return fmt.Errorf("%w: an entry's name is over %d bytes", backends.ErrUnsafeArchive, maxNameLen)
	}
	u.list += entryCost + 2*int64(len(name))
	u.rootDoc = u.rootDoc || store.IsDocName(name)
	if size > u.max {
		if u.tooLarge == nil {
			u.tooLarge = map[string]bool{}
		}
		u.tooLarge[name] = true
		u.list += int64(len(name)) + 16
		// The entry declares the size and holds nothing: listed, never read.
		_, err := u.zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Store, Modified: mod, UncompressedSize64: uint64(size)})
		return err
	}
	w, err := u.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: mod})
	if err != nil {
		return err
	}
	n, err := io.Copy(w, io.LimitReader(r, size+1))
	switch {
	case err != nil:
		return fmt.Errorf("not readable: %w", err)
	case n != size:
		return fmt.Errorf("%w: entry %q is not the size it declares", backends.ErrUnsafeArchive, store.Echo(name))
	}
	return nil
}

func (u *unpacker) close() error {
	if err := u.zw.Close(); err != nil {
		return err
	}
	if err := u.buf.Flush(); err != nil {
		return err
	}
	st, err := u.f.Stat()
	if err == nil {
		u.size = st.Size()
		err = u.f.Close()
	}
	return err
}

// fromTar unpacks a .tar.gz with the rules every archive gets
// (unpack.Tar: no links, devices, "..", absolute paths or repeated
// names; within the caps). It streams: a file over the size limit is
// inflated only to be skipped.
func (u *unpacker) fromTar(r io.Reader) error {
	gz, err := unpack.Gunzip(r)
	if err != nil {
		return fmt.Errorf("not a gzip-compressed tar: %w", err)
	}
	_, err = unpack.Tar(gz, unpack.Options{MaxEntries: maxEntries, MaxBytes: u.maxBytes}, func(e unpack.Entry) error {
		if e.Dir {
			return nil // folders are implied by their files' paths
		}
		return u.add(e.Name, e.Size, e.ModTime, e.R)
	})
	return err
}

// fromZip keeps a zip's entries as they are compressed (no inflating),
// after backends.NewArchive's checks; entries over the size limit keep no bytes.
func (u *unpacker) fromZip(r io.ReaderAt, size int64) error {
	if _, err := backends.NewArchive(r, size, backends.ArchiveOptions{MaxBytes: u.maxBytes, MaxEntries: maxEntries}); err != nil {
		return err
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return fmt.Errorf("not a readable zip archive: %w", err)
	}
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue // folders are implied by their files' paths
		}
		size := int64(f.UncompressedSize64)
		if size > u.max || size < 0 {
			if err := u.add(f.Name, size, f.Modified, nil); err != nil {
				return err
			}
			continue
		}
		if err := u.addRaw(f); err != nil {
			return err
		}
	}
	return nil
}

// addRaw copies a zip entry's compressed bytes; archive/zip checks its
// size and CRC-32 when it is read.
func (u *unpacker) addRaw(f *zip.File) error {
	if u.entries++; u.entries > maxEntries {
		return fmt.Errorf("%w: over %d entries", backends.ErrUnsafeArchive, maxEntries)
	}
	u.total += int64(f.UncompressedSize64)
	if len(f.Name) > maxNameLen {
		return fmt.Errorf("%w: an entry's name is over %d bytes", backends.ErrUnsafeArchive, maxNameLen)
	}
	u.list += entryCost + 2*int64(len(f.Name))
	u.rootDoc = u.rootDoc || store.IsDocName(f.Name)
	rc, err := f.OpenRaw()
	if err != nil {
		return fmt.Errorf("not a readable zip archive: %w", err)
	}
	w, err := u.zw.CreateRaw(&zip.FileHeader{Name: f.Name, Method: f.Method, Modified: f.Modified,
		CRC32: f.CRC32, CompressedSize64: f.CompressedSize64, UncompressedSize64: f.UncompressedSize64})
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, rc); err != nil {
		return fmt.Errorf("not a readable zip archive: %w", err)
	}
	return nil
}

// diskFile reads a kept artifact, opening it for each read, so kept
// artifacts hold no file descriptor.
type diskFile string

func (p diskFile) ReadAt(b []byte, off int64) (int, error) {
	f, err := os.Open(string(p))
	if err != nil {
		return 0, errEvicted
	}
	defer f.Close()
	n, err := f.ReadAt(b, off)
	return n, noPath(err)
}

// bounded is a kept artifact's files; a file kept without its bytes
// (over the size limit) opens, and stats with its size, but reads fail
// with store.ErrTooLarge.
type bounded struct {
	fs.FS
	tooLarge map[string]bool // by name in the archive
	prefix   string          // the skill's folder in the archive
}

func (b bounded) Open(name string) (fs.File, error) {
	f, err := b.FS.Open(name)
	if err == nil && b.tooLarge[b.prefix+name] {
		return tooLarge{f}, nil
	}
	return f, err
}

type tooLarge struct{ fs.File }

func (t tooLarge) Read([]byte) (int, error) {
	return 0, fmt.Errorf("%w: kept without its bytes (over the largest file served)", store.ErrTooLarge)
}
