// Package blobfs serves object storage as skill sources: BucketFS presents
// a gocloud.dev/blob bucket as a read-only fs.FS that costs one LIST per
// 1,000 keys and one GET per file read, FS serves a bucket's published
// snapshot when it has one and its listing (a BucketFS) otherwise, and
// Register adds a bucket URL scheme to backends.Open, which opens such
// URLs as an FS; PublishBucket is a bucket as snapshot.Publish's
// destination. Importing it registers mem:// (in-memory
// buckets); the drivers for real stores are the packages
// backends/s3blob, backends/gcsblob and backends/azureblob, which register
// s3://, gs:// and azblob://. Only those link a store's SDK; blobfs links
// gocloud's portable core (with its gRPC, OpenTelemetry and Google API
// error packages), which backends, store and tools do not.
package blobfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob" // file:// publish destinations
	_ "gocloud.dev/blob/memblob"  // mem://
	"gocloud.dev/gcerrors"

	"github.com/skillstore/skillstore/backends"
	published "github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/fsdir"
	"github.com/skillstore/skillstore/internal/readall"
	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/store"
)

// Defaults for BucketOptions.
const (
	DefaultListingTTL = time.Minute
	DefaultOpTimeout  = 15 * time.Second
	listPageSize      = 1000
)

// BucketOptions tune a BucketFS. The zero value means the defaults.
type BucketOptions struct {
	// ListingTTL is how long a listing snapshot is used before it is
	// reloaded in the background (default 1 minute). Until then, new and
	// deleted keys are visible to reads but not to listings.
	ListingTTL time.Duration
	// OpTimeout bounds each request, since fs.FS methods carry no context
	// (default 15s; the "timeout" URL parameter sets it, e.g. timeout=5s).
	OpTimeout time.Duration
	// Location names the bucket in errors and logs; it must carry no credential.
	Location string
	// Logger receives background refresh failures. Default: slog.Default().
	Logger *slog.Logger
	// AuthError, if set, recognizes the driver's refusals of credentials
	// that carry neither a known error code nor an HTTPStatusCode method
	// (Azure's *azcore.ResponseError), so they are reported as such.
	AuthError func(error) bool
}

// BucketFS presents a gocloud *blob.Bucket as a read-only fs.FS that is
// cheap on object storage: the whole key space is listed once, in pages of
// 1,000 keys, into a snapshot that answers ReadDir and Stat without further
// requests; reading a file costs one GET. Directories are implied by key
// names ("a/b.md" makes "a"); keys that are not valid fs paths ("a//b",
// "/x", "a/../b") are never served.
//
// Apply a key prefix when opening the bucket (the "?prefix=" URL parameter),
// not with fs.Sub: gocloud's Bucket.Sub closes the bucket it came from.
// BucketFS is safe for concurrent use. Close closes the bucket.
type BucketFS struct {
	bucket *blob.Bucket
	opts   BucketOptions

	life context.Context // ends at Close, and with it every request in flight
	stop context.CancelFunc

	snap       atomic.Pointer[snapshot]
	loadMu     sync.Mutex // one synchronous load at a time
	refreshing atomic.Bool

	lists, gets, heads atomic.Uint64
}

var (
	_ fs.StatFS     = (*BucketFS)(nil)
	_ fs.ReadDirFS  = (*BucketFS)(nil)
	_ fs.ReadFileFS = (*BucketFS)(nil)
	_ io.Closer     = (*BucketFS)(nil)

	_ store.Refresher      = (*BucketFS)(nil)
	_ store.ContextFS      = (*BucketFS)(nil)
	_ store.RequestCounter = (*BucketFS)(nil)
)

// NewBucketFS returns b as a BucketFS. The BucketFS owns b: Close closes it.
func NewBucketFS(b *blob.Bucket, opts BucketOptions) *BucketFS {
	if opts.ListingTTL <= 0 {
		opts.ListingTTL = DefaultListingTTL
	}
	if opts.OpTimeout <= 0 {
		opts.OpTimeout = DefaultOpTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	life, stop := context.WithCancel(context.Background())
	return &BucketFS{bucket: b, opts: opts, life: life, stop: stop}
}

// opContext bounds requests to the store by parent, by timeout (0: none)
// and by the BucketFS's life, so Close never waits for a store that hangs.
func (b *BucketFS) opContext(parent context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(parent, timeout)
	}
	stop := context.AfterFunc(b.life, cancel)
	return ctx, func() { stop(); cancel() }
}

// Requests counts the requests a BucketFS has made.
type Requests struct {
	List uint64 // LIST pages
	Get  uint64 // GETs (object reads)
	Head uint64 // HEADs (a published snapshot's pointer checks)
}

// Requests returns the request counters.
func (b *BucketFS) Requests() Requests {
	return Requests{List: b.lists.Load(), Get: b.gets.Load(), Head: b.heads.Load()}
}

// RequestCounts returns the LIST pages and GETs made so far (store.RequestCounter).
// HEADs count as GETs here.
func (b *BucketFS) RequestCounts() (list, get uint64) {
	return b.lists.Load(), b.gets.Load() + b.heads.Load()
}

// Close ends the requests in flight, then closes the bucket.
func (b *BucketFS) Close() error {
	b.stop()
	return b.bucket.Close()
}

// snapshot is one listing of the bucket.
type snapshot struct {
	at    time.Time
	files map[string]objInfo
	dirs  map[string][]fs.DirEntry // sorted
}

type objInfo struct {
	name    string // base name
	size    int64
	modTime time.Time
	md5     []byte // from the listing; nil when the store gives none
}

func (o objInfo) Name() string               { return o.name }
func (o objInfo) Size() int64                { return o.size }
func (o objInfo) Mode() fs.FileMode          { return 0o444 }
func (o objInfo) ModTime() time.Time         { return o.modTime }
func (o objInfo) IsDir() bool                { return false }
func (o objInfo) Sys() any                   { return nil }
func (o objInfo) Type() fs.FileMode          { return 0 }
func (o objInfo) Info() (fs.FileInfo, error) { return o, nil }

// Refresh reloads the listing snapshot now.
func (b *BucketFS) Refresh(ctx context.Context) error {
	ctx, cancel := b.opContext(ctx, 0)
	defer cancel()
	s, err := b.list(ctx)
	if err != nil {
		return err
	}
	b.snap.Store(s)
	return nil
}

// listing returns the current snapshot, loading it on first use and
// reloading it in the background once it is older than ListingTTL.
func (b *BucketFS) listing(op, name string) (*snapshot, error) {
	if s := b.snap.Load(); s != nil {
		if time.Since(s.at) > b.opts.ListingTTL && b.refreshing.CompareAndSwap(false, true) {
			go func() {
				defer b.refreshing.Store(false)
				ctx, cancel := b.opContext(context.Background(), b.opts.OpTimeout)
				defer cancel()
				if err := b.Refresh(ctx); err != nil {
					b.opts.Logger.Warn("refreshing bucket listing failed; serving the previous one", "location", b.opts.Location, "err", err.Error())
				}
			}()
		}
		return s, nil
	}
	b.loadMu.Lock()
	defer b.loadMu.Unlock()
	if s := b.snap.Load(); s != nil {
		return s, nil
	}
	ctx, cancel := b.opContext(context.Background(), b.opts.OpTimeout)
	defer cancel()
	s, err := b.list(ctx)
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	b.snap.Store(s)
	return s, nil
}

// list reads every key, one paged LIST per 1,000 keys.
func (b *BucketFS) list(ctx context.Context) (*snapshot, error) {
	s := &snapshot{at: time.Now(), files: map[string]objInfo{}}
	tree := fsdir.NewTree()
	token := blob.FirstPageToken
	for {
		b.lists.Add(1)
		objs, next, err := b.bucket.ListPage(ctx, token, listPageSize, nil)
		if err != nil {
			return nil, b.classify(err)
		}
		for _, o := range objs {
			key := o.Key
			if strings.HasSuffix(key, "/") { // a "folder" marker object
				if k := strings.TrimSuffix(key, "/"); fs.ValidPath(k) && k != "." {
					tree.AddDir(k)
				}
				continue
			}
			if !fs.ValidPath(key) {
				continue
			}
			tree.AddFile(key)
			s.files[key] = objInfo{name: path.Base(key), size: o.Size, modTime: o.ModTime, md5: o.MD5}
		}
		if len(next) == 0 {
			break
		}
		token = next
	}
	s.dirs = tree.Dirs(func(p string) fs.DirEntry { return s.files[p] })
	return s, nil
}

// Stat describes the named file or directory from the listing snapshot.
func (b *BucketFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	s, err := b.listing("stat", name)
	if err != nil {
		return nil, err
	}
	if fi, ok := s.files[name]; ok {
		return fi, nil
	}
	if _, ok := s.dirs[name]; ok {
		return fsdir.Entry(path.Base(name)).Info()
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// ReadDir lists the named directory from the listing snapshot, sorted by name.
func (b *BucketFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	s, err := b.listing("readdir", name)
	if err != nil {
		return nil, err
	}
	ents, ok := s.dirs[name]
	if !ok {
		if _, isFile := s.files[name]; isFile {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
		}
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return slices.Clone(ents), nil
}

// ReadFile reads the named object with one GET.
func (b *BucketFS) ReadFile(name string) ([]byte, error) {
	return b.readFile(context.Background(), name)
}

func (b *BucketFS) readFile(ctx context.Context, name string) ([]byte, error) {
	f, err := b.open(ctx, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, _ := f.Stat(); fi.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	return io.ReadAll(f)
}

// Open opens a directory from the snapshot, or a file with one GET. A key
// absent from the snapshot is read anyway, so a new object is served before
// the next listing.
func (b *BucketFS) Open(name string) (fs.File, error) {
	return b.open(context.Background(), name)
}

// WithContext returns a view of b whose object reads also end when ctx
// does (store.ContextFS), so a read nobody waits for any more is abandoned.
// Listings are shared by every view and keep their own timeout.
func (b *BucketFS) WithContext(ctx context.Context) fs.FS { return &bucketView{b, ctx} }

// bucketView is a BucketFS whose reads run under a caller's context.
type bucketView struct {
	b   *BucketFS
	ctx context.Context
}

var (
	_ fs.StatFS     = (*bucketView)(nil)
	_ fs.ReadDirFS  = (*bucketView)(nil)
	_ fs.ReadFileFS = (*bucketView)(nil)
)

func (v *bucketView) Open(name string) (fs.File, error)          { return v.b.open(v.ctx, name) }
func (v *bucketView) ReadFile(name string) ([]byte, error)       { return v.b.readFile(v.ctx, name) }
func (v *bucketView) Stat(name string) (fs.FileInfo, error)      { return v.b.Stat(name) }
func (v *bucketView) ReadDir(name string) ([]fs.DirEntry, error) { return v.b.ReadDir(name) }

func (b *BucketFS) open(parent context.Context, name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	s, err := b.listing("open", name)
	if err != nil {
		return nil, err
	}
	if ents, ok := s.dirs[name]; ok {
		if _, isFile := s.files[name]; !isFile {
			return fsdir.Open(path.Base(name), ents), nil
		}
	}
	if len(name) > maxKeyBytes {
		// No store holds such a key: not found, without a GET the store
		// would refuse (S3's KeyTooLongError).
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if err := parent.Err(); err != nil {
		// The caller left: no GET is started for it, whether or not the
		// driver heeds contexts (memblob and fileblob do not).
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	ctx, cancel := b.opContext(parent, b.opts.OpTimeout)
	b.gets.Add(1)
	r, err := b.bucket.NewReader(ctx, name, nil)
	if err != nil {
		cancel()
		if parent.Err() != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: parent.Err()} // the caller left; no timeout to report
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: b.classify(err)}
	}
	info := objInfo{name: path.Base(name), size: r.Size(), modTime: r.ModTime()}
	if listed, ok := s.files[name]; ok && listed.size == info.size && !listed.modTime.Before(info.modTime.Truncate(time.Second)) {
		// Unchanged since the listing: report the listed attributes, which
		// some stores give more precisely than a GET does (GCS's
		// Last-Modified header has whole seconds), so Stat and Open agree.
		info = listed
	}
	return &blobFile{r: r, cancel: cancel, info: info}, nil
}

// maxKeyBytes is the longest key S3, GCS and Azure Blob Storage hold.
const maxKeyBytes = 1024

// classify maps gocloud error codes onto fs errors. A key too long for
// the store (S3's KeyTooLongError, which versitygw also gives for a
// segment over its disk's 255 bytes, or fileblob's ENAMETOOLONG) names
// no object: not found. What classify logs, and the StorageError's
// message, carry the driver's error by its cause alone (see cause):
// never gocloud's stack frames.
func (b *BucketFS) classify(err error) error {
	switch {
	case gcerrors.Code(err) == gcerrors.NotFound, errors.Is(err, syscall.ENAMETOOLONG), storeCode(err) == "KeyTooLongError":
		return fs.ErrNotExist
	case gcerrors.Code(err) == gcerrors.PermissionDenied, IsAuthError(err), b.opts.AuthError != nil && b.opts.AuthError(err):
		b.opts.Logger.Warn("object storage refused the credentials", "location", b.opts.Location, "err", cause(err))
		return fmt.Errorf("%w: %s", fs.ErrPermission, b.opts.Location)
	}
	code := gcerrors.Code(err).String()
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		// Our own per-request deadline, not the caller's: report it as a
		// storage failure so it is not mistaken for a cancelled request.
		b.opts.Logger.Warn("object storage request timed out", "location", b.opts.Location, "timeout", b.opts.OpTimeout)
		return &StorageError{Location: b.opts.Location, Code: "Timeout"}
	}
	return &StorageError{Location: b.opts.Location, Code: code, cause: cause(err), err: err}
}

// Reason says in a few words what kind of failure a driver's error is
// ("the store refused the credentials", "it does not exist", "the store
// did not answer in time", "no connection could be made (check the
// store's address and the network)", "the connection to the store
// failed", "the store answered SlowDown"), naming no host, path or
// credential, for a program's own sentences about a bucket (the publish
// command's). It is a phrase about object storage, not a store error's
// message: tools.Describe words those, for clients. A store's answer is
// named by the store's own error code when the error carries one (AWS's
// and Azure's do), else by gocloud's ("Unknown"…). Refused credentials
// are recognized as IsAuthError does and by every registered driver's
// recognizer (see Register).
func Reason(err error) string {
	var op *net.OpError
	switch {
	case gcerrors.Code(err) == gcerrors.PermissionDenied, IsAuthError(err), registeredAuthError(err):
		return "the store refused the credentials"
	case gcerrors.Code(err) == gcerrors.NotFound:
		return "it does not exist"
	case errors.Is(err, context.DeadlineExceeded):
		return "the store did not answer in time"
	case errors.As(err, &op) && op.Op == "dial":
		return "no connection could be made (check the store's address and the network)"
	case errors.As(err, &op):
		return "the connection to the store failed"
	}
	if code := storeCode(err); code != "" {
		return "the store answered " + code
	}
	return "the store answered " + gcerrors.Code(err).String()
}

// AuthCode reports whether code is one of the error codes with which S3,
// GCS and Azure refuse credentials (gocloud reports several as Unknown).
func AuthCode(code string) bool { return authCodes[code] }

var authCodes = map[string]bool{
	"AccessDenied": true, "SignatureDoesNotMatch": true, "InvalidAccessKeyId": true, "ExpiredToken": true,
	"InvalidToken": true, "InvalidClientTokenId": true, "AuthenticationFailed": true, "AuthorizationFailure": true,
	"AuthorizationPermissionMismatch": true, "InvalidAuthenticationInfo": true,
}

// IsAuthError reports a refusal of the credentials that any driver's error
// shows: a known error code (AWS smithy errors carry one) or an HTTP 401
// or 403 status reported by an HTTPStatusCode method.
func IsAuthError(err error) bool {
	var coded interface{ ErrorCode() string }
	if errors.As(err, &coded) && authCodes[coded.ErrorCode()] {
		return true
	}
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) && (status.HTTPStatusCode() == 401 || status.HTTPStatusCode() == 403) {
		return true
	}
	return false
}

// StorageError is a failed object-storage request other than "not found"
// or "permission denied". Its message names the bucket location (without
// credentials), the gocloud error code and, on one line of at most 300
// bytes, the driver's cause: the store's error code and message, or the
// network's failure, which may name the store's host (Reason says the
// same without it). It is meant for logs and operators; the store shows
// callers only a fixed "temporarily unavailable" message. It unwraps to
// the driver's error, whose own text is not for showing (formatted with
// %+v, gocloud's adds stack frames naming files on the build machine).
type StorageError struct {
	Location string
	Code     string
	cause    string
	err      error
}

func (e *StorageError) Error() string {
	msg := "object storage request to " + e.Location + " failed (" + e.Code + ")"
	if e.cause != "" {
		msg += ": " + e.cause
	}
	return msg
}

func (e *StorageError) Unwrap() error { return e.err }

// blobFile is an object being read. A read that fails part way fails
// with the driver's error by its cause (see cause), which still unwraps
// to it (a cancelled context stays one).
type blobFile struct {
	r      *blob.Reader
	cancel context.CancelFunc
	info   objInfo
}

func (f *blobFile) Stat() (fs.FileInfo, error) { return f.info, nil }

func (f *blobFile) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err != nil && err != io.EOF {
		err = describe(err)
	}
	return n, err
}

func (f *blobFile) Close() error {
	err := f.r.Close()
	f.cancel()
	return describe(err)
}

// bucketSchemes are the registered object-storage schemes, and
// authErrors their drivers' recognizers of refused credentials.
var (
	schemesMu     sync.RWMutex
	bucketSchemes = map[string]bool{}
	authErrors    = map[string]func(error) bool{}
)

// registeredAuthError reports whether any registered driver recognizes
// err as a refusal of the credentials.
func registeredAuthError(err error) bool {
	schemesMu.RLock()
	defer schemesMu.RUnlock()
	for _, isAuth := range authErrors {
		if isAuth != nil && isAuth(err) {
			return true
		}
	}
	return false
}

// Register makes backends.Open (and OpenBucket) handle URLs of scheme as
// object storage, opened by gocloud.dev/blob: the gocloud driver for the
// scheme must be linked in. authError, if not nil, recognizes the
// driver's refusals of credentials (see BucketOptions.AuthError), for the
// scheme's buckets and for Reason. The driver packages (backends/s3blob…)
// call it when imported.
func Register(scheme string, authError func(error) bool) {
	scheme = strings.ToLower(scheme)
	backends.Register(scheme, func(ctx context.Context, u *url.URL) (store.Source, error) {
		return openBucket(ctx, u, authError)
	})
	schemesMu.Lock()
	bucketSchemes[scheme] = true
	authErrors[scheme] = authError
	schemesMu.Unlock()
}

func init() { Register("mem", nil) }

// openBucket opens a gocloud bucket URL as a read-only source.
func openBucket(ctx context.Context, u *url.URL, authError func(error) bool) (store.Source, error) {
	b, shown, timeout, err := bucketFromURL(ctx, u)
	if err != nil {
		return store.Source{}, err
	}
	bfs := NewBucketFS(b, BucketOptions{Location: shown, OpTimeout: timeout, AuthError: authError})
	return store.Source{FS: &FS{bfs: bfs}, Location: shown, Kind: strings.ToLower(u.Scheme)}, nil
}

// FS is a bucket as a skill source's filesystem (the FS of the
// store.Source backends.Open returns for a bucket URL). The first catalog built
// over it finds out whether it was published (see package
// backends/snapshot): then it serves the current snapshot — two requests
// for a cold catalog, one for a refresh that finds nothing new — and else
// it lists the bucket (BucketFS), and says once in the log that publishing
// would be cheaper. Opening it costs nothing, so an unreachable store
// fails its catalogs, not the program's start.
type FS struct {
	bfs *BucketFS

	mu    sync.Mutex
	pub   *published.FS // nil until known to be published
	fs    fs.FS         // pub, or bfs once known not to be
	trust func() *sshsig.AllowedSigners
}

// New returns b as an FS, which owns it: Close closes it. It does no I/O
// (backends.Open does this for bucket URLs).
func New(b *BucketFS) *FS { return &FS{bfs: b} }

var (
	_ store.SnapshotFS     = (*FS)(nil)
	_ store.Refresher      = (*FS)(nil)
	_ store.RequestCounter = (*FS)(nil)
	_ io.Closer            = (*FS)(nil)
)

// mode returns what the source serves, finding out on first use.
func (s *FS) mode(ctx context.Context) (fs.FS, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fs != nil {
		return s.fs, nil
	}
	pub, err := published.Open(ctx, s.bfs, s.pubOptions())
	switch {
	case err == nil:
		s.pub, s.fs = pub, pub
	case errors.Is(err, published.ErrNotPublished) && s.trust != nil:
		// Only signed snapshots are served under a signer policy; the
		// next refresh looks for one again.
		return nil, &store.VerifyError{Reason: "unsigned", Err: errors.New("the bucket holds no published snapshot, and with trusted signers only signed snapshots are served; run skillstore publish --sign KEY")}
	case errors.Is(err, published.ErrNotPublished):
		if ok, aerr := s.bfs.bucket.IsAccessible(ctx); aerr == nil && !ok {
			// No pointer because no bucket: the listing reports it, and the
			// next catalog looks again.
			return s.bfs, nil
		}
		s.bfs.opts.Logger.Info("serving a bucket that was never published by listing it: each cold start and refresh lists every key; `skillstore publish` makes them cost one or two requests", "location", s.bfs.opts.Location)
		s.fs = s.bfs
	default:
		return nil, err
	}
	return s.fs, nil
}

// Snapshot returns the current snapshot of a published bucket, or the
// bucket itself.
func (s *FS) Snapshot(ctx context.Context) (fs.FS, error) {
	m, err := s.mode(ctx)
	if err != nil {
		return nil, err
	}
	if sf, ok := m.(store.SnapshotFS); ok {
		return sf.Snapshot(ctx)
	}
	return m, nil
}

// Refresh checks for a new snapshot, or reloads the listing. A bucket
// served by listing is checked for a pointer too (one HEAD), so one
// published after the server started is served as a snapshot from then on.
func (s *FS) Refresh(ctx context.Context) error {
	m, err := s.mode(ctx)
	if err != nil {
		return err
	}
	if m == fs.FS(s.bfs) {
		if _, err := s.bfs.ObjectTag(ctx, published.PointerKey); err == nil {
			if pub, err := published.Open(ctx, s.bfs, s.pubOptions()); err == nil {
				s.mu.Lock()
				s.pub, s.fs = pub, pub
				s.mu.Unlock()
				s.bfs.opts.Logger.Info("the bucket has been published: serving its snapshots from now on", "location", s.bfs.opts.Location)
				return nil
			}
		}
	}
	return m.(store.Refresher).Refresh(ctx)
}

// pubOptions are the options of the published snapshot reader.
func (s *FS) pubOptions() published.Options {
	return published.Options{Location: s.bfs.opts.Location, Logger: s.bfs.opts.Logger, Trust: s.trust}
}

// RequireSigners serves only snapshots signed by a key trust returns
// (backends.Verifiable): a bucket that holds no published snapshot then
// serves nothing until a signed one is published.
func (s *FS) RequireSigners(ctx context.Context, trust func() *sshsig.AllowedSigners) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trust = trust
	if s.pub != nil {
		return s.pub.RequireSigners(ctx, trust)
	}
	s.fs = nil // found out again, under the policy
	return nil
}

// current returns what the source serves; before that is known (the
// store is unreachable), the bucket itself, whose reads fail alike —
// except under a signer policy, where nothing but a verified snapshot is
// read.
func (s *FS) current() (fs.FS, error) {
	m, err := s.mode(context.Background())
	if err == nil {
		return m, nil
	}
	s.mu.Lock()
	trusted := s.trust != nil
	s.mu.Unlock()
	if trusted {
		return nil, err
	}
	return s.bfs, nil
}

func (s *FS) Open(name string) (fs.File, error) {
	m, err := s.current()
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return m.Open(name)
}

func (s *FS) Stat(name string) (fs.FileInfo, error) {
	m, err := s.current()
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return fs.Stat(m, name)
}

func (s *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	m, err := s.current()
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	return fs.ReadDir(m, name)
}

// RequestCounts are the bucket's requests (store.RequestCounter).
func (s *FS) RequestCounts() (list, get uint64) { return s.bfs.RequestCounts() }

// Bucket returns the BucketFS the source reads.
func (s *FS) Bucket() *BucketFS { return s.bfs }

// Close closes the bucket.
func (s *FS) Close() error { return s.bfs.Close() }

// ReadObject reads the object at key with one GET, bypassing the listing
// (published snapshots' Objects): one over limit (or maxObjectBytes) is
// refused by the size the GET reports, before its body is read.
func (b *BucketFS) ReadObject(ctx context.Context, key string, limit int64) ([]byte, error) {
	data, _, err := b.readObject(ctx, key, limit, false)
	return data, err
}

// ReadObjectTag is ReadObject that also returns the tag ObjectTag gives
// the object while it is unchanged, taken from the GET's response by the
// driver's Tags (snapshot.TaggedObjects): S3's ETag, GCS's generation,
// Azure's ETag, a file's size and time on a shared disk (file:///). The
// tag is "" for a driver whose response shows none (memblob, mem://, and
// drivers no Tags were registered for): a published snapshot's reader
// then learns its pointer's tag at its first refresh, with one more GET.
func (b *BucketFS) ReadObjectTag(ctx context.Context, key string, limit int64) ([]byte, string, error) {
	return b.readObject(ctx, key, limit, true)
}

// readObject reads the object at key with one GET, and its tag if asked.
func (b *BucketFS) readObject(ctx context.Context, key string, limit int64, tagged bool) ([]byte, string, error) {
	limit = min(limit, maxObjectBytes)
	ctx, cancel := b.opContext(ctx, b.opts.OpTimeout)
	defer cancel()
	b.gets.Add(1)
	r, err := b.bucket.NewReader(ctx, key, nil)
	if err != nil {
		return nil, "", &fs.PathError{Op: "read", Path: key, Err: b.classify(err)}
	}
	defer r.Close()
	if r.Size() > limit {
		return nil, "", &fs.PathError{Op: "read", Path: key, Err: fmt.Errorf("%w: it is %d bytes; the limit is %d", published.ErrTooLarge, r.Size(), limit)}
	}
	var tag string
	if tagged {
		tag = readerTag(r) // before the body: a file is checked as opened
	}
	data, err := readall.Read(r, r.Size(), limit)
	if errors.Is(err, readall.ErrTooLarge) {
		return nil, "", &fs.PathError{Op: "read", Path: key, Err: fmt.Errorf("%w: it grew past the limit of %d bytes as it was read", published.ErrTooLarge, limit)}
	}
	if err != nil {
		return nil, "", &fs.PathError{Op: "read", Path: key, Err: b.classify(err)}
	}
	return data, tag, nil
}

// maxObjectBytes bounds one ReadObject: a snapshot's pointer, manifest or
// file (files over the serving limit are never fetched).
const maxObjectBytes = 1 << 30

// ListObjects lists the keys under prefix (published snapshots' Lister).
func (b *BucketFS) ListObjects(ctx context.Context, prefix string) ([]string, error) {
	ctx, cancel := b.opContext(ctx, b.opts.OpTimeout)
	defer cancel()
	var keys []string
	iter := b.bucket.List(&blob.ListOptions{Prefix: prefix})
	b.lists.Add(1)
	for {
		o, err := iter.Next(ctx)
		if errors.Is(err, io.EOF) {
			return keys, nil
		}
		if err != nil {
			return nil, &fs.PathError{Op: "list", Path: prefix, Err: b.classify(err)}
		}
		if !o.IsDir {
			keys = append(keys, o.Key)
			if len(keys)%listPageSize == 0 {
				b.lists.Add(1)
			}
		}
	}
}

// ObjectTag returns the object's tag with one HEAD request (published
// snapshots' Objects): the one the driver's Tags give (GCS's generation, a
// file's size and time), else its ETag, else its MD5, else its size and
// time.
func (b *BucketFS) ObjectTag(ctx context.Context, key string) (string, error) {
	ctx, cancel := b.opContext(ctx, b.opts.OpTimeout)
	defer cancel()
	b.heads.Add(1)
	a, err := b.bucket.Attributes(ctx, key)
	if err != nil {
		return "", &fs.PathError{Op: "stat", Path: key, Err: b.classify(err)}
	}
	if tag, ok := attributesTag(a); ok {
		return tag, nil
	}
	switch {
	case a.ETag != "":
		return a.ETag, nil
	case len(a.MD5) > 0:
		return fmt.Sprintf("%x", a.MD5), nil
	}
	return fmt.Sprintf("%d-%d", a.Size, a.ModTime.UnixNano()), nil
}

// OpenBucket opens an object-storage URL (s3://, gs://, azblob://, mem://,
// or file:///dir for a shared disk) as a gocloud bucket, for writing (see
// the publish command). The prefix is
// applied as for sources; shown is the URL with credentials removed. The
// caller closes the bucket.
func OpenBucket(ctx context.Context, rawURL string) (b *blob.Bucket, shown string, err error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || u.Scheme == "" {
		return nil, "", fmt.Errorf("destination %s is not an object storage URL such as s3://bucket?prefix=skills/", backends.Redact(rawURL))
	}
	schemesMu.RLock()
	isBucket := bucketSchemes[strings.ToLower(u.Scheme)]
	schemesMu.RUnlock()
	if strings.EqualFold(u.Scheme, "file") {
		// A shared disk or NFS: gocloud's fileblob, without its sidecar
		// metadata files, creating the folder if need be, and writing each
		// object's temporary file beside it (not in the local temporary
		// folder, which may be another file system, where renaming it
		// fails, and is one folder every write contends for).
		isBucket = true
		q := u.Query()
		if q.Get("metadata") == "" {
			q.Set("metadata", "skip")
		}
		if q.Get("create_dir") == "" {
			q.Set("create_dir", "true")
		}
		if q.Get("no_tmp_dir") == "" {
			q.Set("no_tmp_dir", "true")
		}
		u.RawQuery = q.Encode()
	}
	if !isBucket {
		if pkg, known := backends.DriverPackage(u.Scheme); known {
			return nil, "", fmt.Errorf("destination %s: this program does not include the %s:// driver; import %q", backends.Redact(rawURL), u.Scheme, pkg)
		}
		return nil, "", fmt.Errorf("destination %s: scheme %q is not object storage; use s3://, gs:// or azblob://", backends.Redact(rawURL), u.Scheme)
	}
	b, shown, _, err = bucketFromURL(ctx, u)
	if err == nil && strings.EqualFold(u.Scheme, "file") {
		shown = backends.Redact(rawURL) // without the options added above
	}
	return b, shown, err
}

// bucketPrefix is the prefix a bucket URL's query names, ending in "/"
// (a folder), or "" for none.
func bucketPrefix(q url.Values) string {
	p := q.Get("prefix")
	if p != "" && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}

// bucketFromURL opens u with gocloud. The prefix is applied at open time
// (gocloud's "prefix" parameter) and normalized to end in "/"; our own
// "timeout" parameter is taken out.
func bucketFromURL(ctx context.Context, u *url.URL) (*blob.Bucket, string, time.Duration, error) {
	shown := backends.Redact(u.String())
	q := u.Query()
	if p := bucketPrefix(q); p != "" {
		q.Set("prefix", p)
	}
	var timeout time.Duration
	if t := q.Get("timeout"); t != "" { // ours, not gocloud's
		d, err := time.ParseDuration(t)
		if err != nil || d <= 0 {
			return nil, "", 0, fmt.Errorf("open %s: timeout=%q is not a positive duration such as 10s", shown, t)
		}
		timeout = d
		q.Del("timeout")
	}
	u.RawQuery = q.Encode()
	b, err := blob.OpenBucket(ctx, u.String())
	if err != nil {
		return nil, "", 0, fmt.Errorf("open %s: %s", shown, backends.Scrub(err.Error(), u))
	}
	return b, shown, timeout, nil
}
