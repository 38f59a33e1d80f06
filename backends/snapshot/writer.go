package snapshot

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/store"
)

// Bucket is where Publish writes a snapshot: whole objects by key, under
// whatever prefix the bucket applies. blobfs.NewPublishBucket adapts a
// gocloud.dev/blob bucket; this package links no object-storage code.
// Its errors are shown as they are, in the words of its store. Its
// methods may be called from more than one goroutine at once (the
// publish lock is renewed while files upload).
type Bucket interface {
	// Accessible reports whether the bucket exists (false, nil when it
	// does not), failing when the check cannot be made: no connection,
	// or an error answered. Publish checks it before anything else.
	Accessible(ctx context.Context) (bool, error)
	// ReadObject is Objects.ReadObject: the object at key, failing with an
	// error wrapping fs.ErrNotExist if there is none, and with one
	// wrapping ErrTooLarge if it holds more than max bytes.
	ReadObject(ctx context.Context, key string, max int64) ([]byte, error)
	// WriteObject stores everything r yields as the object at key,
	// replacing any object there, with attrs. When attrs.ContentMD5 is
	// set (Publish always sets it) the store must refuse content that
	// does not match it, so a failed or short write leaves no wrong
	// object under key.
	WriteObject(ctx context.Context, key string, r io.Reader, attrs ObjectAttrs) error
	// CreateObject is WriteObject for a key that must hold no object:
	// when one is there it fails with an error wrapping fs.ErrExist and
	// leaves it as it is. The publish lock (LockKey) rests on it: a store
	// that checks and writes as one step lets exactly one of two
	// publishes creating the key at once succeed; see lock.go for what
	// the lock guarantees over one that does not.
	CreateObject(ctx context.Context, key string, r io.Reader, attrs ObjectAttrs) error
	// WalkObjects calls fn for every object whose key starts with
	// prefix, in no particular order, and stops at fn's first error,
	// returning it. Folder placeholders are left out.
	WalkObjects(ctx context.Context, prefix string, fn func(ObjectInfo) error) error
	// DeleteObject removes the object at key.
	DeleteObject(ctx context.Context, key string) error
}

// ObjectAttrs are the attributes Bucket.WriteObject gives an object.
type ObjectAttrs struct {
	ContentType  string
	CacheControl string // "" for the store's default
	ContentMD5   []byte // the content's MD5, checked by the store; nil for none
}

// ObjectInfo is what a listing (Bucket.WalkObjects) says of an object.
type ObjectInfo struct {
	Key     string
	Size    int64
	ModTime time.Time // when it was last written
}

// SkillFiles names one skill to publish: its folder in the source tree,
// its document, and the files to publish.
type SkillFiles struct {
	Dir     string   // the skill's folder, a top-level folder of the source tree
	DocPath string   // its document's name (SKILL.md…), one of Files
	Files   []string // the files to publish, relative to Dir, document included
}

// PublishOptions tune Publish.
type PublishOptions struct {
	// Keep is how many snapshots stay readable, the new one included; it
	// must be at least 1. Older ones, and content only they use, are
	// removed.
	Keep int
	// Grace protects what is younger from removal, whatever Keep says:
	// the snapshots replicas may still be pinned to (they move on at their
	// next refresh), and content another publish may have just uploaded.
	// DefaultGrace is a good value; 0 protects nothing.
	Grace time.Duration
	// DeleteOutside also removes every object outside Dir (files of the
	// older per-path layout, or anything else under the bucket's prefix).
	DeleteOutside bool
	// DryRun reads and hashes every file and reports what would be
	// uploaded, and changes nothing: no content, manifest or pointer is
	// written and nothing is removed (Report.Kept stays 0).
	DryRun bool
	// MaxFileSize is the servers' file size limit, in bytes (0: none). A
	// larger file is still published, and reported to
	// Observer.OverLimit, since servers will refuse to read it.
	MaxFileSize int64
	// Observer is told of the publish's progress; nil tells nobody.
	Observer Observer
	// Signer, if set, signs the manifest (SSHSIG, namespace
	// SignatureNamespace), stored at SignatureKey before the pointer
	// moves. Its key must be Ed25519, ECDSA or RSA of 2048 bits or more.
	Signer ssh.Signer
	// LockTTL is how long the folder's publish lock (LockKey) lasts
	// unless renewed; the publish renews it every quarter of that, and a
	// publish that finds it expired takes it over. 0 is DefaultLockTTL.
	LockTTL time.Duration
	// BreakLock takes the folder's publish lock even from a publish that
	// holds it still, for one known to be gone (its process killed): if
	// it runs after all, it fails before it moves the pointer.
	BreakLock bool
}

// DefaultGrace is a PublishOptions.Grace long enough for replicas that
// refresh every few minutes to move on before their snapshot is removed;
// the command's --grace defaults to it.
const DefaultGrace = 15 * time.Minute

// Observer is told what Publish does, as it does it, from the goroutine
// that called Publish: to show progress and warnings.
type Observer interface {
	// Start is called once before the first file is read, with the
	// number of files to publish.
	Start(files int)
	// File is called after each file is read, with its name in the source
	// tree and its size; uploaded says its content was new to the bucket
	// (and uploaded, unless DryRun is set).
	File(name string, size int64, uploaded bool)
	// OverLimit is called, before File, for a file over
	// PublishOptions.MaxFileSize.
	OverLimit(name string, size int64)
	// FilesDone is called once every file has been read, before the
	// manifest is written; not when reading a file failed.
	FilesDone()
	// RemovingSnapshot is called before snapshot id is removed.
	RemovingSnapshot(id string)
	// DeletingObject is called before key, an object outside Dir, is
	// deleted (PublishOptions.DeleteOutside).
	DeletingObject(key string)
}

// Report says what a publish did (or, with DryRun, would do).
type Report struct {
	Snapshot      string // the new snapshot's ID
	Skills, Files int    // published
	Uploaded      int    // files whose content was new to the bucket
	UploadedBytes int64  // their size
	Unchanged     int    // files whose content the bucket already held
	Kept          int    // snapshots left readable, the new one included
	Removed       int    // older snapshots removed
	Deleted       int    // objects outside Dir deleted (DeleteOutside)
	Sequence      uint64 // the new snapshot's sequence
	Signed        bool   // its signature was written (PublishOptions.Signer)
}

// ErrNoBucket is Publish's error when the bucket or container does not
// exist: Publish never creates one.
var ErrNoBucket = errors.New("the bucket or container cannot be written: it does not exist; create it first")

// UnreachableError is Publish's error when the bucket's accessibility
// check (Bucket.Accessible) fails: no connection was made, or the store
// answered with an error (refused the credentials, failed). Its message
// says the bucket cannot be written, then Err's, which says which: Err is
// the bucket's error, in the words of its driver, which may name hosts;
// replace it with a description (blobfs.Reason) before showing it to
// anyone but the operator.
type UnreachableError struct{ Err error }

func (e *UnreachableError) Error() string {
	return "the bucket or container cannot be written: " + e.Err.Error()
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Publish reads skills from src and writes them to dst as a new snapshot:
// each file's content under its SHA-256 (skipped when dst already holds
// it), then the manifest, then the pointer, which switches readers to the
// new snapshot at once; then it removes snapshots beyond opts.Keep and
// content no kept snapshot uses. It never removes the snapshot the pointer
// names when it collects (another publish may have moved it), one newer
// than its own, or anything younger than opts.Grace.
//
// Everything about a file (its size, digests, and for a document its
// frontmatter and headings) comes from one read of it, so the manifest
// matches the content whatever changes in src meanwhile. A document is
// read as servers read it, in UTF-8 or in UTF-16 with a byte order mark;
// one in another encoding, or whose frontmatter does not parse, fails the
// publish, with the reason (Publish cannot tell one that never parsed from
// one that changed since the caller validated it). Files are read one at a
// time, each to its end (ctx ends requests to dst, not a read under way),
// through memory up to 4 MiB and through a temporary file beyond.
// Only regular files are read: a name that is a FIFO, device or socket
// (checked before it is opened, so a FIFO never blocks) fails the publish,
// as does any file src cannot read; src should refuse links that leave
// it (backends.LocalFS does).
//
// Publish does not validate skills against the specification (the
// command does, with a store.Catalog). It refuses, before reading a file,
// skills a reader would refuse: a Dir that is not one clean top-level
// folder name, repeated or hidden; a path that is not clean and inside its
// folder, or repeated; a DocPath not among Files. It fails with
// ErrNoBucket or an *UnreachableError before anything else when dst cannot
// be written. A failure leaves the current snapshot in place; content
// already uploaded stays, and the next publish uploads only what is still
// missing.
//
// Publish holds the folder's publish lock (LockKey) from after that check
// to its end, and removes it when it ends, also on failure or when ctx
// ends (lock.go says how, and what the lock guarantees on each store):
// while another publish holds it, Publish fails at once with a
// *LockedError; one that loses it (opts.BreakLock, or its lock expired
// while it stalled) fails with ErrLockLost before it moves the pointer.
// A dry run takes no lock.
func Publish(ctx context.Context, src fs.FS, skills []SkillFiles, dst Bucket, opts PublishOptions) (r Report, err error) {
	if opts.Keep < 1 {
		return r, errors.New("PublishOptions.Keep must be at least 1: the new snapshot is kept")
	}
	if err := checkSkills(skills); err != nil {
		return r, err
	}
	if err := checkWritable(ctx, dst); err != nil {
		return r, err
	}
	ctx, lock, err := lockFolder(ctx, dst, opts)
	if err != nil {
		return r, err
	}
	defer lock.unlock(&err)
	w := &writer{ctx: ctx, src: src, dst: dst, opts: opts, obs: opts.Observer, r: &r}
	if w.obs == nil {
		w.obs = nopObserver{}
	}
	if opts.Signer != nil {
		if err := sshsig.CheckKey(opts.Signer.PublicKey()); err != nil {
			return r, fmt.Errorf("the signing key: %w", err)
		}
	}
	seq, err := lastSequence(ctx, dst)
	if err != nil {
		return r, err
	}
	m, err := w.writeFiles(skills)
	if err != nil {
		return r, err
	}
	m.Sequence = seq + 1
	body, pointer, err := seal(m)
	if err != nil {
		return r, err
	}
	r.Snapshot, r.Sequence = m.ID, m.Sequence
	var sig []byte
	if opts.Signer != nil {
		// Over the manifest's SHA-256, which replicas compute anyway to
		// check it against the pointer: verifying costs them no second
		// pass over a manifest of 100,000 skills.
		if sig, err = sshsig.SignSHA256(opts.Signer, sha256.Sum256(body), SignatureNamespace); err != nil {
			return r, err
		}
	}
	if opts.DryRun {
		return r, nil
	}
	if sig != nil {
		if err := writeAll(ctx, dst, SignatureKey(m.ID), sig, ObjectAttrs{ContentType: "text/plain"}); err != nil {
			return r, fmt.Errorf("writing the manifest's signature: %w", err)
		}
		r.Signed = true
	}
	if err := writeAll(ctx, dst, ManifestKey(m.ID), body, ObjectAttrs{ContentType: "application/octet-stream"}); err != nil {
		return r, fmt.Errorf("writing the manifest: %w", err)
	}
	if err := lock.checkMoving(ctx); err != nil {
		return r, err
	}
	// The pointer last: readers switch to a snapshot whose content is all there.
	if err := writeAll(ctx, dst, PointerKey, pointer, ObjectAttrs{ContentType: "application/json", CacheControl: "no-cache"}); err != nil {
		return r, fmt.Errorf("writing the snapshot pointer: %w", err)
	}
	return r, collect(ctx, dst, m, opts, &r, w.obs, lock.check)
}

// checkSkills refuses skills whose manifest a reader would refuse
// (Manifest.check), before a file is read.
func checkSkills(skills []SkillFiles) error {
	m := Manifest{Version: Version}
	anyDigest := strings.Repeat("0", 64)
	for _, sk := range skills {
		ms := Skill{Dir: sk.Dir, DocPath: sk.DocPath}
		for _, p := range sk.Files {
			ms.Files = append(ms.Files, File{Path: p, SHA256: anyDigest})
		}
		if !slices.Contains(sk.Files, sk.DocPath) {
			return fmt.Errorf("the skills cannot be published: skill %s: its document %s is not one of its files", sk.Dir, sk.DocPath)
		}
		m.Skills = append(m.Skills, ms)
	}
	if err := m.check(); err != nil {
		return fmt.Errorf("the skills cannot be published: %w", err)
	}
	return nil
}

// writeAll writes data as the object at key, with its MD5 for the store
// to check.
func writeAll(ctx context.Context, dst Bucket, key string, data []byte, attrs ObjectAttrs) error {
	sum := md5.Sum(data)
	attrs.ContentMD5 = sum[:]
	return dst.WriteObject(ctx, key, bytes.NewReader(data), attrs)
}

// checkWritable checks that dst exists and can be reached: gocloud's
// Azure writer panics on a missing container.
func checkWritable(ctx context.Context, dst Bucket) error {
	ok, err := dst.Accessible(ctx)
	switch {
	case err != nil:
		return &UnreachableError{Err: err}
	case !ok:
		return ErrNoBucket
	}
	return nil
}

// writer is one publish under way.
type writer struct {
	ctx    context.Context
	src    fs.FS
	dst    Bucket
	opts   PublishOptions
	obs    Observer
	r      *Report
	stored map[string]listed // the bucket's blobs, and those uploaded since
}

// writeFiles reads every skill's files, uploads the content the bucket
// lacks, and returns the manifest, without its ID.
func (w *writer) writeFiles(skills []SkillFiles) (*Manifest, error) {
	var err error
	if w.stored, err = listKeys(w.ctx, w.dst, Dir+"/blobs/"); err != nil {
		return nil, err
	}
	m := &Manifest{Version: Version, Published: time.Now().UTC()}
	total := 0
	for _, sk := range skills {
		total += len(sk.Files)
	}
	w.obs.Start(total)
	for _, sk := range skills {
		ms := Skill{Dir: sk.Dir, DocPath: sk.DocPath}
		for _, rel := range sk.Files {
			f, err := w.file(sk, rel, &ms)
			if err != nil {
				return nil, err
			}
			ms.Files = append(ms.Files, f)
			w.r.Files++
		}
		sort.Slice(ms.Files, func(i, j int) bool { return ms.Files[i].Path < ms.Files[j].Path })
		sort.SliceStable(ms.Findings, func(i, j int) bool { return ms.Findings[i].Path < ms.Findings[j].Path })
		m.Skills = append(m.Skills, ms)
		w.r.Skills++
	}
	w.obs.FilesDone()
	sort.Slice(m.Skills, func(i, j int) bool { return m.Skills[i].Dir < m.Skills[j].Dir })
	return m, nil
}

// file reads file rel of skill sk once, uploads its content if the bucket
// lacks it, and returns its manifest entry; for the skill's document, it
// also sets ms's frontmatter and headings from the same bytes, and for
// any text file it adds the hidden text found in it to ms's findings.
func (w *writer) file(sk SkillFiles, rel string, ms *Skill) (File, error) {
	name := sk.Dir + "/" + rel
	sp, err := spool(w.src, name)
	if err != nil {
		return File{}, fmt.Errorf("reading %s: %w", name, reason(err))
	}
	defer sp.close()
	f := sp.file
	f.Path = rel
	servable := w.opts.MaxFileSize <= 0 || f.Size <= w.opts.MaxFileSize
	var data []byte // the bytes, read back once if spooled to disk
	if rel == sk.DocPath || servable {
		if data, err = sp.bytes(); err != nil {
			return File{}, fmt.Errorf("reading %s back from its temporary copy: %w", name, reason(err))
		}
	}
	if rel == sk.DocPath {
		if err := document(ms, data); err != nil { // from the same bytes as the digests
			return File{}, fmt.Errorf("%s cannot be published: %w", name, err)
		}
	}
	if !servable {
		w.obs.OverLimit(name, f.Size)
	} else if text, _, ok := store.DecodeText(data); ok {
		if text != string(data) {
			f.Served, f.ServedSize = Sum([]byte(text)), int64(len(text))
		}
		ms.Findings = append(ms.Findings, store.ScanFile(rel, sk.DocPath, text)...)
	}
	uploaded, err := w.store(sp, f)
	if err != nil {
		return File{}, fmt.Errorf("uploading %s: %w", name, err)
	}
	w.obs.File(name, f.Size, uploaded)
	return f, nil
}

// document sets ms's frontmatter and headings from its document's bytes,
// read as a server reads a document it serves: UTF-8, or UTF-16 with a
// byte order mark (store.DecodeText), so the frontmatter matches the one
// the server finds in the document. It fails for any other encoding (a
// server refuses to serve the document) and when the frontmatter does
// not parse.
func document(ms *Skill, data []byte) error {
	text, enc, ok := store.DecodeText(data)
	if !ok || enc == store.EncodingWindows1252 {
		return errors.New("it is not UTF-8 or UTF-16 text")
	}
	fm, _, err := store.ParseFrontmatter(text)
	if err != nil {
		return err
	}
	ms.Frontmatter = fm.Raw
	ms.Headings = headings(text)
	return nil
}

// store uploads f's content from its spool unless the bucket holds it
// already, whole (a blob of another size is replaced), and reports
// whether it was new. With DryRun it counts and uploads nothing.
func (w *writer) store(sp *spooled, f File) (uploaded bool, err error) {
	key := BlobKey(f.SHA256)
	if have, ok := w.stored[key]; ok && have.size == f.Size {
		w.r.Unchanged++
		return false, nil
	}
	w.stored[key] = listed{f.Size, time.Now()}
	w.r.Uploaded++
	w.r.UploadedBytes += f.Size
	if w.opts.DryRun {
		return true, nil
	}
	return true, upload(w.ctx, w.dst, key, sp, f)
}

// upload writes one file's content from its spool under key, with its
// MD5 for the store to check.
func upload(ctx context.Context, b Bucket, key string, sp *spooled, f File) error {
	rd, err := sp.reader()
	if err != nil {
		return err
	}
	return b.WriteObject(ctx, key, rd, ObjectAttrs{ContentMD5: sp.md5, ContentType: "application/octet-stream"})
}

// seal gives m its ID (the time it was published, then the start of the
// SHA-256 of its encoding without the ID) and returns its encoding (format
// Version) and the pointer's. m's skills must be sorted by Dir, and each
// skill's files by path.
func seal(m *Manifest) (body, pointer []byte, err error) {
	skills, err := encodeSkills(m)
	if err != nil {
		return nil, nil, err
	}
	h := header2{Version: Version, Published: m.Published, Sequence: m.Sequence, Skills: len(m.Skills)}
	if body, err = encode2(h, skills); err != nil {
		return nil, nil, err
	}
	sum := Sum(body)
	m.Version, m.ID = Version, m.Published.Format("20060102T150405.000000000Z")+"-"+sum[:12]
	h.ID = m.ID
	if body, err = encode2(h, skills); err != nil { // with its ID
		return nil, nil, err
	}
	pointer, err = json.Marshal(Pointer{Version: Version, Snapshot: m.ID, SHA256: Sum(body), Published: m.Published, Sequence: m.Sequence})
	return body, pointer, err
}

// lastSequence returns the sequence of the snapshot dst serves: the
// pointer's, else (a pointer written before sequences, or broken) the
// newest manifest's that reads. 0 when dst holds no snapshot.
func lastSequence(ctx context.Context, dst Bucket) (uint64, error) {
	data, err := dst.ReadObject(ctx, PointerKey, maxPointerBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil && !errors.Is(err, ErrTooLarge) {
		return 0, fmt.Errorf("reading the snapshot pointer: %w", err)
	}
	var p Pointer
	if err == nil && json.Unmarshal(data, &p) == nil && p.Sequence > 0 {
		return p.Sequence, nil
	}
	keys, err := listKeys(ctx, dst, Dir+"/snapshots/")
	if err != nil {
		return 0, err
	}
	var newest string
	for key := range keys {
		if id, _, ok := manifestID(key); ok && id > newest {
			newest = id // IDs start with their time
		}
	}
	if newest == "" {
		return 0, nil
	}
	data, err = dst.ReadObject(ctx, listedManifest(keys, newest), maxManifestBytes)
	if err != nil {
		return 0, fmt.Errorf("reading snapshot %s for its sequence: %w", newest, err)
	}
	m, err := DecodeManifest(data)
	if err != nil {
		return 0, nil
	}
	return m.Sequence, nil
}

// nopObserver is the Observer of a publish nobody watches.
type nopObserver struct{}

func (nopObserver) Start(int)                {}
func (nopObserver) File(string, int64, bool) {}
func (nopObserver) OverLimit(string, int64)  {}
func (nopObserver) FilesDone()               {}
func (nopObserver) RemovingSnapshot(string)  {}
func (nopObserver) DeletingObject(string)    {}
