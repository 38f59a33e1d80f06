// Package store serves Agent Skills from one or more fs.FS sources: it
// discovers skill folders, parses and validates their SKILL.md frontmatter,
// layers labelled sources, confines every read to the skill's own folder and
// keeps hot content in a byte-bounded LRU cache.
//
// The store knows only io/fs. Opening a directory, bucket or archive as an
// fs.FS is the job of package backends. Confinement to a source root is the
// backend's job (os.Root for local disk); confinement to one skill's folder
// is done here, by validating every caller path and by reading through
// fs.Sub(source, skill), which backends that can follow symbolic links
// implement with a root of their own.
package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/skillstore/skillstore/internal/flight"
	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/internal/lru"
	"github.com/skillstore/skillstore/internal/readall"
	"github.com/skillstore/skillstore/search"
)

// Defaults for Options.
const (
	DefaultMaxFileSize     = 1 << 20
	DefaultCacheBytes      = 64 << 20
	DefaultRevalidateAfter = 2 * time.Second
	DefaultConcurrency     = 16
	// DefaultMaxStale is Options.MaxStale's default: skills change rarely,
	// and a copy a day old beats no skill during an outage, while a store
	// that stays broken longer still surfaces.
	DefaultMaxStale = 24 * time.Hour
	// DefaultSourceTimeout is Options.SourceTimeout's default: long
	// enough for a healthy remote source's listing, short enough that
	// one stuck source does not keep the others unserved for long.
	DefaultSourceTimeout = 10 * time.Second
	// MaxFilesPerSkill bounds the file list of one skill.
	MaxFilesPerSkill = 10000
)

// DocName is the canonical file name of a skill's document; DocNames
// lists every spelling accepted.
const DocName = "SKILL.md"

// docName is DocName, for the package's own use.
const docName = DocName

var docNames = [...]string{docName, "SKILL.MD", "skill.md"}

// DocNames returns the file names accepted for a skill's document, in the
// order a folder is searched: SKILL.md, then SKILL.MD and skill.md, which
// older tools write. Every package takes the spellings from here.
func DocNames() []string { return slices.Clone(docNames[:]) }

// IsDocName reports whether name is one of DocNames.
func IsDocName(name string) bool {
	for _, n := range docNames {
		if name == n {
			return true
		}
	}
	return false
}

// Source is one place skills are read from.
//
// Package backends opens sources from paths and URLs (backends.Open returns
// a Source); any fs.FS that confines reads to itself will do.
type Source struct {
	// Label says what kind of source this is: "project", "personal", "org"
	// or any word the user chose. It is shown to models and users. The
	// store shows an empty one as "skills".
	Label string
	// Location says where the source is, as shown to users: a path as the
	// user wrote it or a URL with credentials removed. Never a secret.
	Location string
	// Kind names the backend ("local", "archive", "embedded", "s3"…), for
	// messages and metrics; it may be empty.
	Kind string
	// Grouper, if set, finds groups of skills in the source (Agent Plugins
	// plugins: backends.Plugins), whose skills are named GROUP:FOLDER.
	Grouper Grouper
	// FS is the source's root. It must confine reads to itself, and report
	// a path that would leave it with an error wrapping ErrPathEscapes
	// (callers then get the traversal message). For a directory use
	// backends.OpenLocal: os.Root's own FS refuses such paths too, but with an
	// error the os package does not export, so they read as unavailable.
	FS fs.FS
}

// Close releases what the source holds open (a directory, an archive, a
// bucket): it closes FS if FS is an io.Closer.
func (s Source) Close() error {
	if c, ok := s.FS.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// String returns Location.
func (s Source) String() string { return s.Location }

// SourceRef names a source in results without exposing its filesystem.
type SourceRef struct {
	Label    string `json:"label"`
	Location string `json:"location"`
}

// Options tune a Store. The zero value means the defaults.
type Options struct {
	// Strict refuses to serve skills that break the Agent Skills
	// specification, and skills that hide text in any of their text files
	// (Skill.Findings: discovery then reads every text file of each skill).
	// By default such skills are served and carry Diagnostics or Findings.
	Strict bool
	// MaxFileSize is the largest file served, in bytes (default 1 MiB). It is
	// checked against the file's size before the body is read.
	MaxFileSize int64
	// CacheBytes is the content cache budget in bytes (default 64 MiB).
	// A negative value disables the content cache.
	CacheBytes int64
	// RevalidateAfter is how long a cached file is served before its version
	// (size and modification time) is checked against the backend again
	// (default 2s). A negative value trusts cached content until Invalidate.
	RevalidateAfter time.Duration
	// MaxStale bounds stale-if-error: while a source fails (unreachable,
	// timing out), a cached file whose last successful check is at most
	// this old is served instead of the error (default DefaultMaxStale;
	// negative: never). A file the source reports gone is never served.
	MaxStale time.Duration
	// NoSearch builds no search index: for a store that lists and
	// validates skills and never searches them (publish), which would
	// otherwise analyse every document it reads. Search then fails.
	NoSearch bool
	// Concurrency is how many skill folders discovery reads at once in
	// each source (default 16), so a slow source's reads never queue
	// another's.
	Concurrency int
	// SourceTimeout bounds how long a catalog build waits for one source
	// (its refresh, snapshot and discovery) while another source has
	// skills to serve (default DefaultSourceTimeout; negative: wait as
	// long as the source takes). A source past it is left out of that
	// catalog like a source that fails, with a Problem and in Failing,
	// except that the skills its last finished listing held stay served
	// (stale, rather than gone); its load goes on in the background, one
	// at a time per source, and when it ends Changed delivers, so the next
	// Refresh serves what it found. Builds do not wait for a source whose
	// last load outlasted the bound until one finishes within it. When no
	// other source has anything to serve, builds wait for it.
	SourceTimeout time.Duration
	// AllowHidden names the hidden files and folders (names starting with
	// ".", such as ".github") that are listed and served anyway. By
	// default a path with any hidden segment is neither listed nor served
	// (a skill folder that is a git clone holds .git/config, which can carry
	// a token, and perhaps .env), and reading one fails as not found.
	AllowHidden []string
	// Logger receives backend failures in full; callers only ever see
	// sanitized messages. Default: slog.Default().
	Logger *slog.Logger
	// ReportsProblems says the caller shows each catalog's Problems and
	// invalid skills itself (a command that lists them): the store then
	// does not log them. By default each skill folder left out, and each
	// skill served although it breaks the specification, is logged once
	// per change (not at every refresh).
	ReportsProblems bool
	// Pins, if set, serves only the skills it pins, each only when its
	// copy is the one pinned (serve --lock): a copy that is not is left
	// out with a Problem (ErrNotPinned), logged once per change like
	// every folder left out, and a lower-priority copy that is the one
	// pinned is served instead. Each pinned copy is verified while the
	// catalog is built, once per version of it (its source's revision and
	// snapshot, its registry version, the size and time of every file);
	// a copy is never served before it is verified. A local folder is
	// read live: a file edited after the catalog was built is served
	// until the next refresh (which a watched folder's change triggers)
	// withholds it.
	Pins Pins
}

func (o Options) withDefaults() Options {
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = DefaultMaxFileSize
	}
	if o.CacheBytes == 0 {
		o.CacheBytes = DefaultCacheBytes
	}
	if o.CacheBytes < 0 {
		o.CacheBytes = 0
	}
	if o.RevalidateAfter == 0 {
		o.RevalidateAfter = DefaultRevalidateAfter
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.MaxStale == 0 {
		o.MaxStale = DefaultMaxStale
	}
	if o.SourceTimeout == 0 {
		o.SourceTimeout = DefaultSourceTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Store serves skills from layered sources. It is safe for concurrent use.
// Every method that may do I/O takes a context first; fs.FS has no context,
// so cancellation is observed between backend operations.
type Store struct {
	sources []Source
	refs    []SourceRef // per source: its Skill.Source
	opts    Options
	cache   *lru.Cache[fileKey, *entry]

	reads     flight.Group[string, *entry]      // file loads
	stats     flight.Group[string, fs.FileInfo] // revalidations of cached files
	walks     flight.Group[string, []FileInfo]  // skill folder listings
	first     flight.Group[string, *Catalog]    // the catalog's first build
	refreshes flight.Group[string, Changes]     // rebuilds
	cat       atomic.Pointer[Catalog]
	catMu     sync.Mutex    // serializes catalog swaps
	search    *search.Index // every skill discovery read (see search.go)
	indexing  indexer       // its background work

	failing   []atomic.Pointer[sourceFailure] // per source: its last refresh failed
	answered  []atomic.Int64                  // per source: when it last answered (unix nanoseconds; status.go)
	loads     []sourceLoads                   // per source: its loads (see load.go)
	snapshots atomic.Uint64                   // the newest snapshot generation given (snapshotGen)
	late      chan struct{}                   // a load no build waited for has ended (see Changed)

	provenances []atomic.Pointer[Provenance]  // per source: the provenance its skills were last given (provenance.go)
	digests     *lru.Cache[digestKey, Digest] // file digests (digest.go)
	views       *viewCache                    // restricted views' states, by filter key (view.go)
	pinned      pinVerdicts                   // Options.Pins's verdicts of the last build (pins.go)
	all         View                          // the unrestricted view

	backendReads  atomic.Uint64
	revalidations atomic.Uint64
	servedStale   atomic.Uint64
	warned        warnedSet   // file versions whose hidden text was logged (findings.go)
	closed        atomic.Bool // Close was called: the sources are being closed, and failures are not news
	noScan        bool        // tests only: discovery scans nothing (BenchmarkDiscoverHidden's baseline)

	// readHook, when set (by tests only), runs as a read of a skill's
	// file starts, after the skill was resolved: between a listing and
	// the reads an answer builds on it.
	readHook func(sk *Skill, p string)
}

// New returns a Store over sources, in priority order: when two sources hold
// a skill of the same name, the earlier one wins and the later copy is
// reported as shadowed. New does no I/O; the catalog is built on first use.
func New(sources []Source, opts Options) (*Store, error) {
	if len(sources) == 0 {
		return nil, errors.New("store: at least one source is required")
	}
	own := append([]Source(nil), sources...) // the caller's slice is left as it is
	for i, s := range own {
		if s.FS == nil {
			return nil, errors.New("store: source " + s.Label + " has no filesystem")
		}
		if s.Label == "" {
			own[i].Label = "skills"
		}
	}
	opts = opts.withDefaults()
	refs := make([]SourceRef, len(own))
	for i, src := range own {
		refs[i] = ref(src)
	}
	s := &Store{
		refs:     refs,
		failing:  make([]atomic.Pointer[sourceFailure], len(own)),
		answered: make([]atomic.Int64, len(own)),
		loads:    make([]sourceLoads, len(own)),
		late:     make(chan struct{}, 1),
		sources:  own,
		opts:     opts,
		cache:    lru.New[fileKey, *entry](opts.CacheBytes),
		digests:  lru.New[digestKey, Digest](digestBudget),
		search:   newIndex(opts.NoSearch),

		provenances: make([]atomic.Pointer[Provenance], len(own)),
		views:       newViewCache(),
	}
	s.all = View{store: s, all: true}
	return s, nil
}

// Close tells the store that its sources are about to be closed, as a
// program that stops does: from then on a failure to read or watch them
// is not logged, since a shutdown is no outage (a listing under way when
// a local folder is closed fails with "file already closed"). It neither
// closes the sources (whoever opened them does, after Close) nor waits for
// loads under way; the store still answers from what it holds.
func (s *Store) Close() { s.closed.Store(true) }

// Sources returns the configured sources, in priority order.
func (s *Store) Sources() []SourceRef { return slices.Clone(s.refs) }

// Stats returns the store's counters.
func (s *Store) Stats() Stats {
	c := s.cache.Stats()
	return Stats{Search: s.searchStats(), Requests: s.requests(),
		Hits: c.Hits, Misses: c.Misses, Evictions: c.Evictions, Bytes: c.Bytes, Entries: c.Entries, BudgetBytes: c.Budget,
		BackendReads: s.backendReads.Load(), Revalidations: s.revalidations.Load(), ServedStale: s.servedStale.Load(),
	}
}

// Invalidate drops the cached catalog and all cached content; the next call
// reads the sources again.
func (s *Store) Invalidate() {
	s.catMu.Lock()
	s.cat.Store(nil)
	s.catMu.Unlock()
	for i := range s.loads {
		s.loads[i].forget()
	}
	s.cache.Purge()
}

// catalog returns the current catalog, building it on first use. A caller
// whose ctx ends stops waiting; the build goes on, and serves the next.
func (s *Store) catalog(ctx context.Context) (*Catalog, error) {
	if c := s.cat.Load(); c != nil {
		return c, nil
	}
	return s.first.Do(ctx, "", false, func(ctx context.Context) (*Catalog, error) {
		if c := s.cat.Load(); c != nil {
			return c, nil
		}
		c, err := s.build(ctx, nil, false)
		if err != nil {
			return nil, err
		}
		if !s.cat.CompareAndSwap(nil, c) {
			// A Refresh stored a newer catalog meanwhile (unless an
			// Invalidate has dropped it again since).
			if cur := s.cat.Load(); cur != nil {
				return cur, nil
			}
		}
		return c, nil
	})
}

// Refresh rebuilds the catalog from the sources, replaces the cached one and
// reports which skills were added, removed or changed. Backends that keep a
// listing snapshot (object storage) are asked to refresh it first. Callers
// during a rebuild share it; one whose ctx ends stops waiting, and the
// rebuild goes on (a source that hangs holds one rebuild, not one per call).
// A source slower than Options.SourceTimeout does not hold the rebuild.
func (s *Store) Refresh(ctx context.Context) (Changes, error) {
	return s.refreshes.Do(ctx, "", false, func(ctx context.Context) (Changes, error) {
		c, err := s.build(ctx, s.cat.Load(), true)
		if err != nil {
			return Changes{}, err
		}
		s.catMu.Lock()
		old := s.cat.Swap(c)
		s.catMu.Unlock()
		return diffCatalogs(old, c), nil
	})
}

// SourceHealth describes a source whose last refresh or listing failed.
// Meanwhile the store serves the source's last good listing (and cached
// content, within MaxStale) when only a refresh failed and the source
// kept one, and nothing from the source when it could not be listed.
type SourceHealth struct {
	Source SourceRef
	Err    error     // the last failure; it may name hosts: for logs
	Since  time.Time // when the failures began
}

type sourceFailure struct {
	err   error
	since time.Time
}

// Failing returns the sources whose last refresh or listing failed.
func (s *Store) Failing() []SourceHealth {
	var out []SourceHealth
	for i := range s.sources {
		if f := s.failing[i].Load(); f != nil {
			out = append(out, SourceHealth{Source: ref(s.sources[i]), Err: f.err, Since: f.since})
		}
	}
	return out
}

// noteSource records the outcome of refreshing or listing source i, logs
// when the source answers again after failing, and reports whether err
// begins a failure, which the caller logs with logFailing (once an
// outage, not at every refresh of it).
func (s *Store) noteSource(i int, err error) (began bool) {
	src := s.sources[i]
	prev := s.failing[i].Load()
	if err == nil {
		s.answered[i].Store(time.Now().UnixNano())
		if prev != nil && s.failing[i].CompareAndSwap(prev, nil) {
			s.opts.Logger.Info("the skill source answers again", "source", src.Label, "location", src.Location, "failing for", time.Since(prev.since).Round(time.Second))
		}
		return false
	}
	since := time.Now()
	if prev != nil {
		since = prev.since
	}
	return s.failing[i].CompareAndSwap(prev, &sourceFailure{err: err, since: since}) && prev == nil
}

// logFailing logs that source i began failing: what failed ("refreshing"
// or "listing") and what is served from the source meanwhile: its last
// good listing when it could still be listed (a Refresher keeps its last
// good snapshot), else nothing.
func (s *Store) logFailing(i int, what string, err error, listed bool) {
	if s.closed.Load() {
		return // the source was closed under it
	}
	src := s.sources[i]
	serving := "serving nothing from it until it answers"
	if listed {
		serving = "serving its last good listing and cached files until it answers"
	}
	s.opts.Logger.Warn(what+" the skill source failed; "+serving, "source", src.Label, "location", src.Location, "err", logtext.Of(err))
}

// skill returns the served skill called name, or why none is.
func (s *Store) skill(ctx context.Context, name string) (*Skill, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	c, err := s.catalog(ctx)
	if err != nil {
		return nil, err
	}
	return c.lookup(name)
}

// Document is a skill's SKILL.md.
type Document struct {
	Skill *Skill
	// Text is the whole file, frontmatter included, decoded to UTF-8 with
	// any byte order mark removed.
	Text string
	// Raw is the file's bytes exactly as stored (byte order mark, line
	// endings and encoding untouched), as an immutable string: what a
	// download, an archive or a digest carries.
	Raw string
	// Encoding names the encoding Text was decoded from ("utf-8",
	// "utf-16le" or "utf-16be").
	Encoding string
	// Size is the file's size in bytes as stored.
	Size int64
}

// document reads sk's SKILL.md from the snapshot of its source sk was
// read from, whatever catalog is current now (see ReadOptions.Skill).
func (s *Store) document(ctx context.Context, sk *Skill, keep bool) (Document, error) {
	e, err := s.read(ctx, sk, sk.DocPath, sk.Name, keep)
	if err == nil {
		err = s.refuseHidden(sk, e)
	}
	if err != nil {
		return Document{}, err
	}
	if e.binary || e.encoding == EncodingWindows1252 {
		return Document{}, &Error{Kind: ErrInvalidUTF8, Skill: sk.Name}
	}
	if sk.published {
		if header, _, err := SplitDocument(e.text); err != nil || header != sk.Raw {
			// The catalog took the frontmatter from the snapshot's manifest;
			// what is served must be the document's own.
			s.opts.Logger.Warn("a published snapshot's frontmatter does not match its SKILL.md; publish the skills again", "source", sk.Source.Label, "skill", sk.Name)
			return Document{}, &Error{Kind: ErrSkillInvalid, Skill: sk.Name, Detail: "its SKILL.md does not match the frontmatter its published snapshot gives; publish the skills again"}
		}
	}
	return Document{Skill: sk, Text: e.text, Raw: e.raw, Encoding: e.encoding, Size: e.size}, nil
}

// File is the content of one file in a skill's folder.
type File struct {
	Skill *Skill
	// Path is the cleaned path relative to the skill folder.
	Path string
	// Size is the file's size in bytes as stored.
	Size int64
	// Binary reports content that is not text; Data holds it and Text is empty.
	Binary bool
	// Text is the decoded content of a text file.
	Text string
	// Encoding names the encoding Text was decoded from ("utf-8", "utf-16le",
	// "utf-16be" or "windows-1252"); empty for binary files.
	Encoding string
	// Data is the raw content of a binary file, as an immutable string.
	Data string
	// Raw is the file's bytes exactly as stored, text or binary (a byte
	// order mark, line endings and the encoding untouched), as an
	// immutable string: what a download, an archive or a digest carries.
	// It shares memory with Text for UTF-8 text and with Data for binary.
	Raw string
}

// Content is the file as text tools serve it: Data for a binary file,
// else the decoded Text. Surfaces that hand the file out as bytes
// (downloads, archives, digests) serve Raw instead.
func (f File) Content() string {
	if f.Binary {
		return f.Data
	}
	return f.Text
}

// checkFile checks a caller's skill name and file path before the
// catalog is consulted, and returns the cleaned path, or the error a
// read gives (ErrInvalidName, ErrInvalidPath, ErrPathEscapes, or
// ErrFileNotFound for a hidden path or one too deep) whether or not the
// skill exists: a skill the caller may not see fails as a missing one
// does, after the same checks.
func (s *Store) checkFile(name, filePath string) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	return s.cleanFilePath(name, filePath)
}

// cleanFilePath cleans a caller's path in the named skill's folder; a
// hidden path or one deeper than MaxFolderDepth reads as not found.
func (s *Store) cleanFilePath(name, filePath string) (string, error) {
	clean, err := CleanPath(name, filePath)
	if err != nil {
		return "", err
	}
	if s.hiddenPath(clean) || strings.Count(clean, "/") >= MaxFolderDepth {
		return "", &Error{Kind: ErrFileNotFound, Skill: name, Path: filePath} // no hint that it exists
	}
	return clean, nil
}

// readFileOf reads a file of sk from sk's snapshot.
func (s *Store) readFileOf(ctx context.Context, sk *Skill, filePath string, keep bool) (File, error) {
	clean, err := s.cleanFilePath(sk.Name, filePath)
	if err != nil {
		return File{}, err
	}
	return s.fileAt(ctx, sk, clean, filePath, keep)
}

// fileAt reads sk's file at clean, the cleaned filePath.
func (s *Store) fileAt(ctx context.Context, sk *Skill, clean, filePath string, keep bool) (File, error) {
	e, err := s.read(ctx, sk, clean, sk.Name, keep)
	if err == nil {
		err = s.refuseHidden(sk, e)
	}
	if err != nil {
		if se := (*Error)(nil); errors.As(err, &se) && se.Path == clean && clean != filePath {
			se.Path = filePath // name the path as the caller wrote it
		}
		return File{}, err
	}
	f := File{Skill: sk, Path: clean, Size: e.size, Binary: e.binary, Encoding: e.encoding, Raw: e.raw}
	if e.binary {
		f.Data = e.text
	} else {
		f.Text = e.text
	}
	return f, nil
}

// MaxFolderDepth bounds how deep in a skill's folder files are listed and
// served: a path has at most MaxFolderDepth segments, so a hostile chain of
// thousands of nested folders costs a listing nothing.
const MaxFolderDepth = 16

// hiddenPath reports whether a path inside a skill folder is hidden, and
// so neither listed nor served: one of its segments starts with "." and
// is not in Options.AllowHidden.
func (s *Store) hiddenPath(p string) bool {
	for len(p) > 0 {
		seg, rest, _ := strings.Cut(p, "/")
		if s.hiddenName(seg) {
			return true
		}
		p = rest
	}
	return false
}

func (s *Store) hiddenName(name string) bool {
	return strings.HasPrefix(name, ".") && name != "." && name != ".." && !slices.Contains(s.opts.AllowHidden, name)
}

// FileInfo describes one file in a skill's folder.
type FileInfo struct {
	Path    string    `json:"path"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"-"`
	// SHA256 is the lower-case hex SHA-256 of the file's bytes as stored,
	// when the source knows it without reading the file (ContentFS);
	// empty otherwise (View.Digest reads the file for it).
	SHA256 string `json:"-"`
	// Executable reports a file its source marks executable (any of the
	// mode's execute bits: a folder's file, a git blob of mode 100755);
	// false when the source keeps no modes.
	Executable bool `json:"-"`
}

// files lists sk's folder from the snapshot of its source sk was read
// from (see View.Files).
func (s *Store) files(ctx context.Context, sk *Skill) ([]FileInfo, error) {
	name := sk.Name
	_, cancellable := sk.fsys.(ContextFS)
	files, err := s.walks.Do(ctx, s.flightKey(sk, "")+fmt.Sprintf("\x00%p", sk.fsys), cancellable, func(ctx context.Context) ([]FileInfo, error) {
		return s.walk(ctx, sk)
	})
	if err != nil {
		return nil, s.fail(err, name, "", "")
	}
	return files, nil
}

// walk lists sk's folder for Files.
func (s *Store) walk(ctx context.Context, sk *Skill) ([]FileInfo, error) {
	sub, err := sk.folderFS(withContext(ctx, sk.fsys))
	if err != nil {
		return nil, err
	}
	var files []FileInfo
	deep := false
	err = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil // an unreadable sub-folder does not hide the rest
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if p != "." && s.hiddenName(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() && strings.Count(p, "/")+1 >= MaxFolderDepth {
			if !deep {
				deep = true
				s.opts.Logger.Warn("skill folder nested too deep: deeper folders are neither listed nor served", "skill", sk.Name, "limit", MaxFolderDepth)
			}
			return fs.SkipDir
		}
		if d.IsDir() || !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		info, err := d.Info()
		if d.Type()&fs.ModeSymlink != 0 {
			info, err = fs.Stat(sub, p) // follows links the backend allows
		}
		if err != nil || !info.Mode().IsRegular() {
			return nil // a folder, or a link to a FIFO, device or socket
		}
		if len(files) == MaxFilesPerSkill {
			return fs.SkipAll
		}
		fi := FileInfo{Path: p, Size: info.Size(), ModTime: info.ModTime(), Executable: info.Mode().Perm()&0o111 != 0}
		if cf, ok := sk.fsys.(ContentFS); ok && info.Size() <= s.opts.MaxFileSize {
			// (a file over the limit is not served: no digest is given for it)
			if raw, _, _, ok := cf.ContentSHA256(path.Join(sk.Folder(), p)); ok {
				fi.SHA256 = raw
			}
		}
		files = append(files, fi)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// fileKey identifies a cached file: a skill folder in one source, and a
// path, in one revision of a versioned source, so a read pinned to one
// commit is never served another's copy, though both have one size and
// time.
type fileKey struct {
	src      int
	skill    string
	path     string
	revision string // Skill.Revision (a commit, a snapshot's ID), unless the digest is known
	gen      uint64 // the snapshot generation of a snapshot with no revision
	digest   string // the content's SHA-256 when the source knows it (ContentFS): such content never changes
}

// entry is a cached file. raw holds its bytes as stored; text holds
// decoded text, or the raw bytes when binary is set (UTF-8 text shares
// raw's memory: only UTF-16 and Windows-1252 text is held twice);
// strings are immutable, so callers cannot alter the cache.
type entry struct {
	raw      string
	text     string
	encoding string
	size     int64
	binary   bool
	ver      version
	findings []Finding    // hidden text found in it when it was read (findings.go)
	checked  atomic.Int64 // unix nanoseconds of the last version check
}

// version identifies one state of a file; a change of either field means
// the cached content is stale.
type version struct {
	size    int64
	modTime int64
}

func versionOf(fi fs.FileInfo) version {
	return version{fi.Size(), unixNano(fi.ModTime())}
}

// read returns the cached entry for a file of sk, loading it if absent
// (and caching it if keep) and checking its version once RevalidateAfter
// has passed. name is the skill name as the caller gave it, for messages.
func (s *Store) read(ctx context.Context, sk *Skill, p, name string, keep bool) (*entry, error) {
	if s.readHook != nil {
		s.readHook(sk, p)
	}
	key := fileKey{src: int(sk.src), skill: sk.Folder(), path: p, revision: sk.Revision(), gen: sk.gen}
	if cf, ok := sk.fsys.(ContentFS); ok {
		key.digest, _, _, _ = cf.ContentSHA256(path.Join(sk.Folder(), p))
	}
	if key.digest != "" {
		key.revision = "" // the digest names the content: one copy serves every snapshot that holds it
	}
	cached, ok := s.cache.Get(key)
	if ok && (key.digest != "" || s.fresh(ctx, sk, p, cached)) {
		return cached, nil
	}
	e, err := s.readMiss(ctx, sk, p, name, keep, key)
	if err != nil && ok && s.staleAllowed(cached, err) {
		s.servedStale.Add(1)
		s.opts.Logger.Warn("serving a cached copy: the source is unavailable", "source", sk.Source.Label, "skill", sk.Name, "path", p,
			"checked", time.Unix(0, cached.checked.Load()).UTC().Format(time.RFC3339), "err", logtext.Of(err))
		return cached, nil
	}
	return e, err
}

// staleAllowed reports whether e may be served in place of err: the
// source failed (it did not say the file is gone or forbidden) and e was
// last checked within MaxStale.
func (s *Store) staleAllowed(e *entry, err error) bool {
	if s.opts.MaxStale < 0 || !(errors.Is(err, ErrUnavailable) || errors.Is(err, context.DeadlineExceeded)) {
		return false
	}
	return time.Since(time.Unix(0, e.checked.Load())) <= s.opts.MaxStale
}

// readMiss loads a file that is not cached, or whose cached copy is stale,
// in a "skillstore.cache.miss" span when ctx's span records.
func (s *Store) readMiss(ctx context.Context, sk *Skill, p, name string, keep bool, key fileKey) (e *entry, err error) {
	ctx, span := startSpan(ctx, "skillstore.cache.miss", sk)
	defer func() { endSpan(span, e, err) }()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	flight := s.flightKey(sk, p) + "\x00" + key.digest
	if !keep {
		flight += "\x00uncached"
	}
	_, cancellable := sk.fsys.(ContextFS)
	return s.reads.Do(ctx, flight, cancellable, func(ctx context.Context) (*entry, error) {
		// A reader that missed the cache while another load was running may
		// get here after that load finished: use what it cached.
		if e, ok := s.cache.Get(key); ok && s.recent(e, time.Now().UnixNano()) {
			return e, nil
		}
		e, err := s.load(ctx, sk, p, name)
		if err != nil {
			return nil, err
		}
		if keep {
			s.cache.Add(key, e, e.cost())
		}
		return e, nil
	})
}

// flightKey names a file of sk (p == "" for its folder) among flights,
// in sk's revision or snapshot: reads of two commits never share a load.
func (s *Store) flightKey(sk *Skill, p string) string {
	return strconv.Itoa(int(sk.src)) + "\x00" + sk.Revision() + "\x00" + strconv.FormatUint(sk.gen, 10) + "\x00" + sk.Folder() + "\x00" + p
}

// entryOverhead approximates the bookkeeping bytes of one cache entry.
const entryOverhead = 160

// cost is e's size in the cache: its bytes, and its decoded text when
// that is a copy of its own (UTF-16, Windows-1252).
func (e *entry) cost() int64 {
	n := int64(len(e.raw)) + entryOverhead
	if !e.binary && e.encoding != EncodingUTF8 {
		n += int64(len(e.text))
	}
	return n
}

// fresh reports whether a cached entry may be served, checking its version
// against the backend when it is due.
func (s *Store) fresh(ctx context.Context, sk *Skill, p string, e *entry) bool {
	now := time.Now().UnixNano()
	if s.recent(e, now) {
		return true
	}
	if ctx.Err() != nil {
		return true // serve what we have; the caller is leaving anyway
	}
	s.revalidations.Add(1)
	_, cancellable := sk.fsys.(ContextFS)
	fi, err := s.stats.Do(ctx, s.flightKey(sk, p), cancellable, func(ctx context.Context) (fs.FileInfo, error) {
		// Stat from the source's root (or, for a plugin's skill on local
		// disk, from within its plugin: see skillDir.at): an fs.Sub view has
		// no Stat method, so fs.Stat would open the file — a GET on object
		// storage, where the root's Stat answers from the listing.
		at, dir, err := sk.at(withContext(ctx, sk.fsys))
		if err != nil {
			return nil, err
		}
		return fs.Stat(at, path.Join(dir, p))
	})
	if ctx.Err() != nil {
		return true // the source did not answer in time: serve what we have
	}
	if err != nil || versionOf(fi) != e.ver {
		return false
	}
	e.checked.Store(now)
	return true
}

// recent reports whether e was checked within RevalidateAfter of now (or
// revalidation is off).
func (s *Store) recent(e *entry, now int64) bool {
	return s.opts.RevalidateAfter < 0 || now-e.checked.Load() < int64(s.opts.RevalidateAfter)
}

// load reads a file from the backend, under ctx when the backend can be
// cancelled (ContextFS): size checked before the body is read, then
// decoded; in a "skillstore.backend.read" span when ctx's span records.
func (s *Store) load(ctx context.Context, sk *Skill, p, name string) (e *entry, err error) {
	ctx, span := startSpan(ctx, "skillstore.backend.read", sk)
	defer func() { endSpan(span, e, err) }()
	s.backendReads.Add(1)
	sub, err := sk.folderFS(withContext(ctx, sk.fsys))
	if err != nil {
		return nil, s.fail(err, name, p, sk.DocPath)
	}
	data, fi, err := s.readBounded(sub, p)
	switch {
	case errors.Is(err, ErrIsDir):
		return nil, &Error{Kind: ErrIsDir, Skill: name, Path: p}
	case errors.Is(err, ErrTooLarge):
		return nil, &Error{Kind: ErrTooLarge, Skill: name, Path: p, Limit: s.opts.MaxFileSize}
	case err != nil:
		return nil, s.fail(err, name, p, sk.DocPath)
	}
	e = &entry{size: int64(len(data)), ver: versionOf(fi)}
	e.checked.Store(time.Now().UnixNano())
	// data is ours alone and is never written again: keep it without a
	// copy, and UTF-8 text as a part of it.
	e.raw = ownedString(data)
	if text, enc, ok := decodeOwned(data); ok {
		e.text, e.encoding = text, enc
	} else {
		e.text, e.binary = e.raw, true
	}
	e.findings = s.readFindings(sk, p, e)
	return e, nil
}

// readBounded reads a whole file that is not a directory (ErrIsDir) and
// not over MaxFileSize (ErrTooLarge): its size is checked before the body
// is read, and the read stops if the file grew past the limit since.
func (s *Store) readBounded(fsys fs.FS, name string) ([]byte, fs.FileInfo, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, nil, err
	case fi.IsDir():
		return nil, nil, ErrIsDir
	case !fi.Mode().IsRegular():
		// A FIFO, device or socket: never read (backends should refuse to
		// open one; this covers those that do not).
		return nil, nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	case fi.Size() > s.opts.MaxFileSize:
		return nil, nil, ErrTooLarge
	}
	data, err := readall.Read(f, fi.Size(), s.opts.MaxFileSize) // a file may grow after its Stat
	if errors.Is(err, readall.ErrTooLarge) {
		return nil, nil, ErrTooLarge
	}
	if err != nil {
		return nil, nil, err
	}
	return data, fi, nil
}

// fail turns a backend error into an *Error that names only what the
// caller gave. docPath is the skill's document name, so a missing document
// reports ErrNoSkillDoc.
func (s *Store) fail(err error, name, p, docPath string) error {
	var se *Error
	switch {
	case errors.As(err, &se):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case isEscape(err):
		return &Error{Kind: ErrPathEscapes, Skill: name, Path: p, cause: err}
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, fs.ErrInvalid),
		errors.Is(err, syscall.ENAMETOOLONG): // no file has a name the disk refuses as too long
		if p == "" {
			return &Error{Kind: ErrSkillNotFound, Skill: name, cause: err}
		}
		if p == docPath {
			return &Error{Kind: ErrNoSkillDoc, Skill: name, cause: err}
		}
		return &Error{Kind: ErrFileNotFound, Skill: name, Path: p, cause: err}
	case errors.Is(err, fs.ErrPermission):
		return &Error{Kind: ErrPermission, Skill: name, Path: p, cause: err}
	case errors.Is(err, syscall.ELOOP):
		return &Error{Kind: ErrUnavailable, Skill: name, Path: p, Detail: "too many levels of symbolic links", cause: err}
	}
	if !s.closed.Load() {
		s.opts.Logger.Warn("backend read failed", "skill", name, "path", p, "err", logtext.Of(err))
	}
	return &Error{Kind: ErrUnavailable, Skill: name, Path: p, Detail: publicDetail(err), cause: err}
}
