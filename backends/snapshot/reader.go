package snapshot

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/internal/readall"
	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/store"
)

// Objects is where a snapshot is read from: whole objects by key. A
// bucket (blobfs.BucketFS) reads them with one GET each and tags them with
// a HEAD; NewFSObjects adapts any fs.FS (a shared disk).
type Objects interface {
	// ReadObject reads the object at key, failing with an error wrapping
	// fs.ErrNotExist if there is none, and with one wrapping ErrTooLarge
	// if it holds more than max bytes: refused by its size before it is
	// read when the size is known, and never read past max+1 bytes.
	ReadObject(ctx context.Context, key string, max int64) ([]byte, error)
	// ObjectTag returns a tag that changes whenever the object at key
	// does (an ETag), costing at most one small request.
	ObjectTag(ctx context.Context, key string) (string, error)
}

// ErrBroken is the error of a pointer or manifest that cannot be used:
// truncated, of another version, naming a missing manifest, or not
// matching its digest.
var ErrBroken = errors.New("the published snapshot is broken")

// Lister is implemented by Objects that can list keys, so a reader whose
// pointer is broken can fall back to the newest manifest that is whole.
type Lister interface {
	ListObjects(ctx context.Context, prefix string) ([]string, error)
}

// ErrTooLarge is the error of an object over the size a reader takes
// for it (Objects.ReadObject).
var ErrTooLarge = errors.New("the object is over its size limit")

// Bounds of the objects a reader takes: the pointer (a few hundred bytes
// as publish writes it) and a manifest. A blob is bounded by the size its
// manifest gives.
const (
	maxPointerBytes  = 64 << 10
	maxManifestBytes = 256 << 20
)

// NewFSObjects reads objects as files of fsys; a file's tag is its SHA-256.
func NewFSObjects(fsys fs.FS) Objects { return fsObjects{fsys} }

type fsObjects struct{ fsys fs.FS }

// ReadObject checks the file's size (Stat) before reading it, and reads
// it through a limit in case it grows.
func (o fsObjects) ReadObject(_ context.Context, key string, limit int64) ([]byte, error) {
	f, err := o.fsys.Open(key)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: key, Err: errors.New("is a folder")}
	}
	if fi.Size() > limit {
		return nil, tooLarge(key, fi.Size(), limit)
	}
	return readLimited(f, key, fi.Size(), limit)
}

// readLimited reads r, of about size bytes, to its end, failing with an
// error wrapping ErrTooLarge (naming key) once it gives more than limit
// bytes: it allocates about limit bytes at most, whatever r holds.
func readLimited(r io.Reader, key string, size, limit int64) ([]byte, error) {
	data, err := readall.Read(r, size, limit)
	if errors.Is(err, readall.ErrTooLarge) {
		return nil, tooLarge(key, -1, limit)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: key, Err: err}
	}
	return data, nil
}

// reason is err without the *fs.PathError around it, for a message that
// names the object itself (callers that strip path errors keep it whole).
func reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// tooLarge is the error of object key, of size bytes (-1: unknown), over limit.
func tooLarge(key string, size, limit int64) error {
	if size < 0 {
		return &fs.PathError{Op: "read", Path: key, Err: fmt.Errorf("%w: it grew past the limit of %d bytes as it was read", ErrTooLarge, limit)}
	}
	return &fs.PathError{Op: "read", Path: key, Err: fmt.Errorf("%w: it is %d bytes; the limit is %d", ErrTooLarge, size, limit)}
}

func (o fsObjects) ListObjects(_ context.Context, prefix string) ([]string, error) {
	dir := strings.TrimSuffix(prefix, "/")
	ents, err := fs.ReadDir(o.fsys, dir)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(ents))
	for _, e := range ents {
		if !e.IsDir() {
			keys = append(keys, dir+"/"+e.Name())
		}
	}
	return keys, nil
}

// ObjectTag is the object's SHA-256, read through the pointer's limit: a
// pointer is small, and a size and time would miss a second publish within
// a coarse clock tick. An object over that limit is tagged, unread, by its
// size and time (the reader refuses it as broken, once for that tag).
func (o fsObjects) ObjectTag(ctx context.Context, key string) (string, error) {
	data, err := o.ReadObject(ctx, key, maxPointerBytes)
	if errors.Is(err, ErrTooLarge) {
		fi, serr := fs.Stat(o.fsys, key)
		if serr != nil {
			return "", serr
		}
		return fmt.Sprintf("over-%d-%d", fi.Size(), fi.ModTime().UnixNano()), nil
	}
	if err != nil {
		return "", err
	}
	return Sum(data), nil
}

// Options tune an FS.
type Options struct {
	// Location names the folder in errors and logs; it must carry no credential.
	Location string
	// Logger receives snapshot switches and refresh failures. Default: slog.Default().
	Logger *slog.Logger
	// Close, if set, is called by FS.Close (to close the bucket).
	Close func() error
	// Trust, if set, is the signer policy: it returns the keys trusted
	// now (an allowed-signers file, perhaps reloaded). Then a snapshot is
	// served only when its manifest carries a valid signature (at
	// SignatureKey) by one of them, and only when its Sequence is above
	// the served one's; else the FS keeps serving the last snapshot that
	// verified, or nothing when none has (see FS).
	Trust func() *sshsig.AllowedSigners
}

// FS serves the current snapshot of a published folder. It implements
// store.SnapshotFS: the store pins one snapshot for each catalog, so an
// answer never mixes two. Refresh (store.Refresher) checks the pointer
// with one conditional request and switches to a new snapshot atomically.
// It is safe for concurrent use.
//
// With a signer policy (Options.Trust), a snapshot that is unsigned,
// signed by a key not trusted, whose signature fails, or whose sequence
// is not above the served one's is refused with a *store.VerifyError:
// the FS keeps serving the snapshot it served (logged once per refused
// pointer, and Refresh keeps returning the error, so the store reports
// the source as failing). Opened cold on such a snapshot, the FS serves
// nothing: Snapshot, Open, Stat and ReadDir fail with the error until a
// Refresh finds a snapshot that verifies. Checking a signature costs one
// more request per new snapshot (its .sig object, at most
// sshsig.MaxSignatureBytes).
type FS struct {
	objs Objects
	opts Options

	mu     sync.Mutex // one refresh at a time
	tag    string     // the pointer's tag when cur was loaded
	broken string     // the tag of a pointer found broken, and why
	why    error
	// brokenTrust is the signer list a refused pointer was checked
	// against: a reloaded list looks at the same pointer again.
	brokenTrust *sshsig.AllowedSigners
	// pending is the pointer Open read, whose manifest is read when the
	// snapshot is first asked for (first).
	pending *Pointer
	cur     atomic.Pointer[View]
	cold    atomic.Pointer[error] // set while nothing (verified) is served
	// high and highID are the sequence and ID of the latest snapshot
	// served under a policy: after the one served is no longer trusted
	// (recheck), none older is served in its place.
	high   uint64
	highID string
}

var (
	_ store.SnapshotFS     = (*FS)(nil)
	_ store.Refresher      = (*FS)(nil)
	_ store.RequestCounter = (*FS)(nil)
	_ io.Closer            = (*FS)(nil)
)

// Open reads the published folder's pointer (one request) and fails with
// ErrNotPublished when there is none. The manifest it names is read (one
// request) when the snapshot is first asked for — a store's first
// catalog —, so a server answers what needs no catalog at once, whatever
// the catalog's size; until then a failure to read it is the snapshot's
// error, tried again at the next use. A Refresh costs one request while
// nothing changes. When objs cannot tell the pointer's tag with its read
// (see TaggedObjects), the first Refresh learns it: two requests, or
// three if a new snapshot came.
func Open(ctx context.Context, objs Objects, opts Options) (*FS, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	f := &FS{objs: objs, opts: opts}
	p, tag, err := f.readPointer(ctx)
	if errors.Is(err, ErrBroken) {
		nv, err := f.instead(ctx, err)
		if err != nil {
			return nil, err
		}
		f.cur.Store(nv) // the tag is learnt at the first Refresh
		return f, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotPublished
	}
	if err != nil {
		return nil, err
	}
	f.pending, f.tag = p, tag // "" when objs cannot tell it: learnt at the first Refresh
	return f, nil
}

// first loads the snapshot Open's pointer names, when it has not been
// (f.mu held). A snapshot that is broken or does not verify makes the FS
// cold (it serves nothing; Refresh looks again when the pointer or the
// signer list changes); one whose manifest cannot be read is tried again
// at the next call.
func (f *FS) first(ctx context.Context) error {
	p := f.pending
	if p == nil {
		return nil
	}
	v, err := f.follow(ctx, p, nil)
	if errors.Is(err, ErrBroken) {
		v, err = f.instead(ctx, err)
	}
	if errors.Is(err, ErrBroken) || errors.Is(err, store.ErrUnverified) {
		// Nothing to serve: the error is the source's failure (the store
		// logs it), until Refresh finds a snapshot that can be served.
		f.pending = nil
		f.broken, f.why, f.brokenTrust = f.tag, err, f.trustNow()
		f.tag = ""
		f.cold.Store(&err)
		return err
	}
	if err != nil {
		return err
	}
	f.pending = nil
	f.serve(v)
	return nil
}

// serve makes v the snapshot served (f.mu held), and notes its sequence.
func (f *FS) serve(v *View) {
	f.cur.Store(v)
	f.cold.Store(nil)
	if f.opts.Trust != nil && (v.c.header.Sequence > f.high || f.highID == "") {
		f.high, f.highID = v.c.header.Sequence, v.ID()
	}
}

// instead returns the newest whole snapshot in place of the one the
// pointer names, broken with err (logged), or err when there is none.
func (f *FS) instead(ctx context.Context, err error) (*View, error) {
	nv, nerr := f.newest(ctx)
	if nerr != nil {
		return nil, err
	}
	f.opts.Logger.Warn("the published snapshot is broken; serving the newest whole one instead; publish again", "location", f.opts.Location, "err", logtext.Of(err), "snapshot", nv.ID())
	return nv, nil
}

// readPointer reads the pointer and its tag as the read gave it ("" when
// unknown; see TaggedObjects).
func (f *FS) readPointer(ctx context.Context) (*Pointer, string, error) {
	pb, tag, err := readTagged(ctx, f.objs, PointerKey, maxPointerBytes)
	if errors.Is(err, ErrTooLarge) {
		return nil, "", fmt.Errorf("%w: the pointer %s: %w", ErrBroken, PointerKey, reason(err))
	}
	if err != nil {
		return nil, "", fmt.Errorf("reading the snapshot pointer: %w", err)
	}
	p, err := parsePointer(pb)
	if err != nil {
		return nil, "", fmt.Errorf("%w: the pointer %s is %v", ErrBroken, PointerKey, err)
	}
	if p.Version > Version {
		return nil, "", fmt.Errorf("%w: the pointer %s names a snapshot of format version %d; this skillstore reads versions 1 to %d: upgrade it", ErrBroken, PointerKey, p.Version, Version)
	}
	return p, tag, nil
}

// load reads the pointer and follows it.
func (f *FS) load(ctx context.Context, cur *View) (*View, error) {
	p, _, err := f.readPointer(ctx)
	if err != nil {
		return nil, err
	}
	return f.follow(ctx, p, cur)
}

// follow returns the snapshot p names: cur when it is cur's, else its
// manifest read and checked against p's digest (and, with a policy, the
// sequence of cur).
func (f *FS) follow(ctx context.Context, p *Pointer, cur *View) (*View, error) {
	if cur != nil && cur.ID() == p.Snapshot {
		return cur, nil
	}
	v, err := f.loadManifest(ctx, manifestKey(p.Snapshot, p.Version), p.Snapshot, p.SHA256)
	if err != nil {
		return nil, err
	}
	if f.opts.Trust == nil {
		return v, nil
	}
	seq := v.c.header.Sequence
	if cur != nil && seq <= cur.c.header.Sequence {
		return nil, &store.VerifyError{Reason: "replayed", Err: fmt.Errorf(
			"snapshot %s has sequence %d, not above the served snapshot %s's %d: an older signed snapshot was put back; publish again",
			v.ID(), seq, cur.ID(), cur.c.header.Sequence)}
	}
	if cur == nil && f.highID != "" && (seq < f.high || seq == f.high && v.ID() != f.highID) {
		return nil, &store.VerifyError{Reason: "replayed", Err: fmt.Errorf(
			"snapshot %s has sequence %d, below snapshot %s's %d, served before: an older signed snapshot was put back; publish again",
			v.ID(), seq, f.highID, f.high)}
	}
	return v, nil
}

// loadManifest reads the manifest of snapshot id at key, checking it
// against sum, its SHA-256 as the pointer gives it ("-": no pointer
// vouches for it).
func (f *FS) loadManifest(ctx context.Context, key, id, sum string) (*View, error) {
	mb, err := f.objs.ReadObject(ctx, key, maxManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: snapshot %s is missing", ErrBroken, id)
	}
	if errors.Is(err, ErrTooLarge) {
		return nil, fmt.Errorf("%w: the manifest of snapshot %s: %w", ErrBroken, id, reason(err))
	}
	if err != nil {
		return nil, fmt.Errorf("reading snapshot %s: %w", id, err)
	}
	v, err := newView(mb, key, f.objs) // its digest is checked against the pointer's, and is what the signature signs
	if err == nil && sum != "-" && hex.EncodeToString(v.digest[:]) != sum {
		err = errors.New("it does not match the digest its pointer gives")
	}
	if err == nil && v.ID() != id {
		err = fmt.Errorf("it says it is snapshot %s", v.ID())
	}
	if err != nil {
		return nil, fmt.Errorf("%w: snapshot %s: %v", ErrBroken, id, err)
	}
	if f.opts.Trust != nil {
		if err := f.verify(ctx, v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// newest loads the newest whole manifest, for a folder whose pointer is
// broken; it needs an Objects that can list.
func (f *FS) newest(ctx context.Context) (*View, error) {
	l, ok := f.objs.(Lister)
	if !ok {
		return nil, ErrBroken
	}
	keys, err := l.ListObjects(ctx, Dir+"/snapshots/")
	if err != nil {
		return nil, err
	}
	sort.Sort(sort.Reverse(sort.StringSlice(keys))) // IDs start with their time
	for _, key := range keys {
		id, _, ok := manifestID(key)
		if !ok {
			continue
		}
		if v, err := f.loadManifest(ctx, key, id, "-"); err == nil { // no pointer vouches for it: its own checks only
			return v, nil
		}
	}
	return nil, ErrBroken
}

// RequireSigners sets the signer policy (Options.Trust) of an FS opened
// without one, and checks the snapshot it serves against it (or, when
// none has been read yet, the one its first use reads): when it does not
// verify the FS serves nothing until one does (see FS). It fails only when
// the pointer or manifest cannot be read.
func (f *FS) RequireSigners(ctx context.Context, trust func() *sshsig.AllowedSigners) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opts.Trust = trust
	if f.pending != nil {
		return nil // checked when first read
	}
	tag := f.tag                         // of the pointer that named the snapshot Open loaded
	f.tag, f.broken, f.why = "", "", nil // unless it verifies, look at the pointer afresh at the next Refresh
	var v *View
	var err error
	if cur := f.cur.Load(); cur != nil {
		// The snapshot Open loaded: its signature is checked against the
		// digest kept from that read (one request), not read again.
		c := *cur // views already handed out stay as they were
		v, err = &c, f.verify(ctx, &c)
	} else {
		v, err = f.load(ctx, nil)
		tag = "" // learnt at the next Refresh
	}
	if errors.Is(err, store.ErrUnverified) {
		f.cold.Store(&err)
		f.cur.Store(nil) // what was served unverified is not kept as "last good"
		return nil
	}
	if err != nil {
		return err
	}
	f.tag = tag // the next Refresh costs one request while nothing changes
	f.serve(v)
	return nil
}

// Snapshot returns the current snapshot, or, while nothing (verified)
// is served, why. The first call reads the manifest Open's pointer names.
func (f *FS) Snapshot(ctx context.Context) (fs.FS, error) {
	v, err := f.view(ctx)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Current decodes the current snapshot's manifest whole (nil while
// nothing verified is served): for tests and tools, since at 100,000
// skills it costs a second and 100 MB.
func (f *FS) Current() *Manifest {
	if v, err := f.view(context.Background()); err == nil {
		return v.c.manifest()
	}
	return nil
}

// view returns the current snapshot, reading it first if Open has not,
// or, while nothing (verified) is served, why.
func (f *FS) view(ctx context.Context) (*View, error) {
	if f.cur.Load() == nil && f.cold.Load() == nil {
		f.mu.Lock()
		err := f.first(ctx)
		f.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	if e := f.cold.Load(); e != nil {
		return nil, *e
	}
	return f.cur.Load(), nil
}

// Refresh checks the pointer's tag (one request) and, when it changed,
// loads the snapshot it names. On failure the current snapshot stays.
func (f *FS) Refresh(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.first(ctx); err != nil && f.cold.Load() == nil {
		return err // the manifest Open's pointer names could not be read
	}
	if err := f.recheck(ctx); err != nil {
		return err
	}
	tag, err := f.objs.ObjectTag(ctx, PointerKey)
	if err != nil {
		return fmt.Errorf("checking the snapshot pointer of %s: %w", f.opts.Location, err)
	}
	if tag == f.tag {
		return nil
	}
	if tag == f.broken && f.trustNow() == f.brokenTrust {
		return f.why // still broken: the source stays degraded, nothing is read again
	}
	old := f.cur.Load()
	v, err := f.load(ctx, old) // the check's tag is kept: see TaggedObjects
	if errors.Is(err, ErrBroken) || errors.Is(err, store.ErrUnverified) {
		// Logged once for this pointer; the current snapshot stays, and
		// the error keeps the source reported as failing until a whole
		// (and, with a policy, verified) snapshot is published.
		f.broken, f.why, f.brokenTrust = tag, f.refused(err, old), f.trustNow()
		return f.why
	}
	if err != nil {
		return err
	}
	f.tag = tag
	if old == nil {
		f.serve(v)
		f.opts.Logger.Info("serving a published snapshot after serving none", "location", f.opts.Location, "snapshot", v.ID(), "signer", v.signer.Fingerprint, "skills", len(v.c.records))
		return nil
	}
	if v != old {
		f.serve(v)
		f.logSwitch(v, old)
	}
	return nil
}

// recheck verifies the snapshot served again when the signer list is not
// the one that verified it (a reloaded trusted-signers file), at a cost
// of one request (its signature); f.mu held. A snapshot that no longer
// verifies (its key was removed, or the list emptied) stops being served
// at once: the FS serves nothing, logged at ERROR, and Refresh returns
// why (a *store.VerifyError) until a snapshot that verifies is published
// or the list trusts it again; a snapshot older than it is not served
// meanwhile (see follow). A failure to read the signature keeps the
// snapshot served and is returned.
func (f *FS) recheck(ctx context.Context) error {
	cur, trust := f.cur.Load(), f.trustNow()
	if f.opts.Trust == nil || cur == nil || cur.trust == trust {
		return nil
	}
	c := *cur // views already handed out stay as they were
	err := f.verify(ctx, &c)
	var ve *store.VerifyError
	if err == nil || !errors.As(err, &ve) {
		if err == nil {
			f.cur.Store(&c) // verified under the new list, perhaps by another principal
		}
		return err
	}
	why := error(&store.VerifyError{Reason: ve.Reason, Err: fmt.Errorf("%w: the reloaded trusted signers no longer trust it; serving nothing from this source until a snapshot signed by a trusted key is published", ve.Err)})
	f.opts.Logger.Error("the snapshot served is no longer trusted by the reloaded trusted signers; serving nothing from this source", "location", f.opts.Location, "snapshot", cur.ID(), "reason", ve.Reason, "err", logtext.Of(ve.Err))
	f.cur.Store(nil)
	f.cold.Store(&why)
	f.broken, f.why, f.brokenTrust = f.tag, why, trust
	f.tag = ""
	return why
}

// trustNow is the signer list in force (nil without a policy).
func (f *FS) trustNow() *sshsig.AllowedSigners {
	if f.opts.Trust == nil {
		return nil
	}
	return f.opts.Trust()
}

// refused logs, once for the pointer that named it, a snapshot that is
// broken or does not verify, and returns the error Refresh keeps
// returning for it: err, saying what is still served.
func (f *FS) refused(err error, old *View) error {
	serving, still := "nothing", "nothing"
	if old != nil {
		serving, still = old.ID(), "snapshot "+old.ID()
	}
	var ve *store.VerifyError
	if errors.As(err, &ve) {
		msg := "the newly published snapshot is refused by the signer policy; still serving the previous one; publish a snapshot signed by a trusted key"
		if old == nil {
			msg = "the published snapshot is refused by the signer policy; serving nothing from this source until one verifies; publish a snapshot signed by a trusted key"
		}
		f.opts.Logger.Warn(msg, "location", f.opts.Location, "reason", ve.Reason, "err", logtext.Of(err), "serving", serving)
		return &store.VerifyError{Reason: ve.Reason, Err: fmt.Errorf("%w; still serving %s", ve.Err, still)}
	}
	f.opts.Logger.Warn("the newly published snapshot is broken; still serving the previous one; publish again", "location", f.opts.Location, "err", logtext.Of(err), "serving", serving)
	return fmt.Errorf("%w; still serving %s", err, still)
}

// logSwitch logs the move from snapshot old to v: at INFO when v was
// published later, at WARN when earlier (the pointer was rolled back, or
// an older snapshot republished: snapshots are not signed, so the reader
// follows it, and the operator should know). The WARN line names both
// snapshots and their times, and not the location, which may be a host
// path.
func (f *FS) logSwitch(v, old *View) {
	older := v.c.header.Published.Before(old.c.header.Published)
	if v.c.header.Sequence > 0 && old.c.header.Sequence > 0 {
		older = v.c.header.Sequence < old.c.header.Sequence // the sequence, not the clock
	}
	if older {
		f.opts.Logger.Warn("the published pointer went back in time: serving a snapshot published before the one it replaced; if nobody rolled it back on purpose, publish again",
			"snapshot", v.ID(), "published", v.c.header.Published, "replaced", old.ID(), "replacedPublished", old.c.header.Published, "skills", len(v.c.records))
		return
	}
	f.opts.Logger.Info("serving a new snapshot", "location", f.opts.Location, "snapshot", v.ID(), "previous", old.ID(), "skills", len(v.c.records))
}

// Open, Stat and ReadDir read the current snapshot.
func (f *FS) Open(name string) (fs.File, error) {
	v, err := f.view(context.Background())
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return v.Open(name)
}

func (f *FS) Stat(name string) (fs.FileInfo, error) {
	v, err := f.view(context.Background())
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return v.Stat(name)
}

func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	v, err := f.view(context.Background())
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	return v.ReadDir(name)
}

// RequestCounts passes on the request counts of what the FS reads from
// (store.RequestCounter), when it keeps them.
func (f *FS) RequestCounts() (list, get uint64) {
	if rc, ok := f.objs.(store.RequestCounter); ok {
		return rc.RequestCounts()
	}
	return 0, 0
}

// Close closes what the FS reads from (Options.Close).
func (f *FS) Close() error {
	if f.opts.Close != nil {
		return f.opts.Close()
	}
	return nil
}
