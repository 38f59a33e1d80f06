package snapshot

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/skillstore/skillstore/internal/hidden"
	"github.com/skillstore/skillstore/internal/skillcheck"
	"github.com/skillstore/skillstore/internal/sshsig"
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
	// DryRun reads and hashes every file (but those unchanged since the
	// previous snapshot: see Checksum) and reports what would be
	// uploaded, and changes nothing: no content, manifest or pointer is
	// written and nothing is removed (Report.Kept stays 0).
	DryRun bool
	// MaxFileSize is the servers' file size limit, in bytes (0: none). A
	// larger file is still published, and reported to
	// Observer.OverLimit, since servers will refuse to read it.
	MaxFileSize int64
	// Observer is told of the publish's progress; nil tells nobody.
	Observer Observer
	// Transfers is how many files are read, hashed and uploaded at once
	// (0: DefaultTransfers). Each transfer holds at most 4 MiB of its file
	// in memory (more waits in a temporary file), so memory grows with
	// Transfers, not with the number of files.
	Transfers int
	// Checksum reads every file. Without it, a file whose size and
	// modification time equal those the previous snapshot (the one the
	// pointer names, if its manifest reads and matches the pointer's
	// digest; for a signed publish, the newest one whose signature
	// verifies against Signer's key or Trusted) lists for the same skill
	// and path, the skill's document
	// being the same file, and whose content the bucket still holds, is
	// not opened: its entry is taken from that snapshot, with, for a
	// document, its frontmatter and headings, and the hidden text found
	// in it. Set it when a file may have changed
	// without its size or time changing, or when the previous snapshot
	// was made with a lower MaxFileSize (a file over that limit has no
	// served digest nor findings in it) or by an older skillstore.
	Checksum bool
	// Signer, if set, signs the manifest (SSHSIG, namespace
	// SignatureNamespace), stored at SignatureKey before the pointer
	// moves. Its key must be Ed25519, ECDSA or RSA of 2048 bits or more.
	// A signed publish then reuses entries from, and numbers its
	// sequence after, only a snapshot signed by that key or one Trusted
	// lists, never the unsigned pointer's word (see Checksum).
	Signer ssh.Signer
	// Trusted, with Signer, lists keys besides Signer's whose snapshots
	// a signed publish takes entries and its sequence from: the
	// replicas' allowed signers, so that a publish with a new key follows
	// the old key's snapshots. nil: Signer's key only.
	Trusted *sshsig.AllowedSigners
	// LockTTL is how long the folder's publish lock (LockKey) lasts
	// unless renewed; the publish renews it every quarter of that, and a
	// publish that finds it expired takes it over. 0 is DefaultLockTTL.
	LockTTL time.Duration
	// BreakLock takes the folder's publish lock even from a publish that
	// holds it still, for one known to be gone (its process killed): if
	// it runs after all, it fails before it moves the pointer.
	BreakLock bool
}

// DefaultTransfers is PublishOptions.Transfers when it is 0. rclone's
// --transfers defaults to 4, for files that are mostly large, where
// bandwidth is the limit; skill files are mostly a few KB, where a
// transfer's time is a request's round trip, so more at once pay, and 8
// keep the spools under 32 MiB (8 × 4 MiB) whatever the files.
const DefaultTransfers = 8

// DefaultGrace is a PublishOptions.Grace long enough for replicas that
// refresh every few minutes to move on before their snapshot is removed;
// the command's --grace defaults to it.
const DefaultGrace = 15 * time.Minute

// Observer is told what Publish does, as it does it: to show progress
// and warnings. Its methods are called one at a time, from the goroutine
// that called Publish, whatever PublishOptions.Transfers.
type Observer interface {
	// Start is called once before the first file is read, with the
	// number and total size of the files to publish.
	Start(Totals)
	// File is called once for each file, when it is done: read and, if
	// its content was new to the bucket, uploaded (unless DryRun is set);
	// or reused unread. Its calls come in the manifest's order of the
	// skills (by folder name) and, within a skill, in the order of its
	// files as Publish was given them, whichever transfer finished first;
	// of files with the same new content the first in that order is the
	// one uploaded; size is the file's.
	File(name string, size int64, how FileOutcome)
	// OverLimit is called, before File, for a file over
	// PublishOptions.MaxFileSize.
	OverLimit(name string, size int64)
	// FilesDone is called once every file is done, before the manifest is
	// written; not when reading or uploading a file failed.
	FilesDone()
	// RemovingSnapshot is called before snapshot id is removed.
	RemovingSnapshot(id string)
	// DeletingObject is called before key, an object outside Dir, is
	// deleted (PublishOptions.DeleteOutside).
	DeletingObject(key string)
}

// SurveyObserver is an Observer that is also told, before Start, that
// Publish is looking at the skills' files: each one's size and time, the
// snapshot the pointer names and the blobs the bucket holds, which at
// 100,000 skills takes seconds. Publish tells any Observer that
// implements it.
type SurveyObserver interface {
	Surveying(skills, files int)
}

// Totals are the size of a publish, known before a file is read.
type Totals struct {
	Files int   // to publish
	Bytes int64 // their size
	// Reused and ReusedBytes count those of Files that will not be read
	// (their entries come from the previous snapshot: see
	// PublishOptions.Checksum), and their size.
	Reused      int
	ReusedBytes int64
}

// FileOutcome says what Publish did with a file (Observer.File).
type FileOutcome int

const (
	// FileUploaded is a file read whose content was new to the bucket:
	// uploaded, unless DryRun is set.
	FileUploaded FileOutcome = iota + 1
	// FileStored is a file read whose content the bucket already held.
	FileStored
	// FileReused is a file not read: its size and modification time
	// equal the previous snapshot's entry, whose content the bucket holds.
	FileReused
)

// String is "uploaded", "stored" or "reused".
func (o FileOutcome) String() string {
	switch o {
	case FileUploaded:
		return "uploaded"
	case FileStored:
		return "stored"
	case FileReused:
		return "reused"
	}
	return fmt.Sprintf("FileOutcome(%d)", int(o))
}

// Report says what a publish did (or, with DryRun, would do).
type Report struct {
	Snapshot      string // the new snapshot's ID
	Skills, Files int    // published
	Uploaded      int    // files read whose content was new to the bucket
	UploadedBytes int64  // their size
	Unchanged     int    // files read whose content the bucket already held
	Reused        int    // files not read, their entries reused (see PublishOptions.Checksum)
	Kept          int    // snapshots left readable, the new one included
	Removed       int    // older snapshots removed
	Deleted       int    // objects outside Dir deleted (DeleteOutside)
	Sequence      uint64 // the new snapshot's sequence
	Signed        bool   // its signature was written (PublishOptions.Signer)
}

// RegistryDir is where a registry (backends/registry) keeps its log in
// a folder. Publish refuses such a folder: it removes the content its
// snapshots do not use, which would be the registry's.
const RegistryDir = Dir + "/registry/"

// ErrRegistryFolder is Publish's error for a folder holding a registry.
var ErrRegistryFolder = errors.New("the folder holds a skill registry (serve --registry): publish removes content its snapshots do not use, which would be the registry's; publish to a folder of its own")

// checkNoRegistry refuses a folder holding a registry's log (one LIST).
func checkNoRegistry(ctx context.Context, dst Bucket) error {
	errFound := errors.New("found")
	err := dst.WalkObjects(ctx, RegistryDir, func(ObjectInfo) error { return errFound })
	switch {
	case errors.Is(err, errFound):
		return ErrRegistryFolder
	case err != nil:
		return &UnreachableError{Err: err}
	}
	return nil
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
// matches the content whatever changes in src meanwhile; or, for a file
// whose size and modification time have not changed since the previous
// snapshot, from that snapshot, without reading it (see opts.Checksum).
// A document is read as servers read it, in UTF-8 or in UTF-16 with a
// byte order mark; one in another encoding, or whose frontmatter does not
// parse, fails the publish, with the reason (Publish cannot tell one that
// never parsed from one that changed since the caller validated it).
// opts.Transfers files are read and uploaded at once, each to its end
// (ctx ends requests to dst, not a read under way), through memory up to
// 4 MiB and through a temporary file beyond (a document, or a text file
// within opts.MaxFileSize, over 4 MiB is read back whole to be inspected,
// one such file at a time); the manifest is the same whatever their
// number. Only regular files are read: a name that is a
// FIFO, device or socket (checked before it is opened, so a FIFO never
// blocks) fails the publish, as does any file src cannot read; src should
// refuse links that leave it (backends.LocalFS does).
//
// Publish does not validate skills against the specification (the
// command does, with a store.Catalog). It refuses, before reading a file,
// skills a reader would refuse: a Dir that is not one clean top-level
// folder name, repeated or hidden; a path that is not clean and inside its
// folder, or repeated; a DocPath not among Files. It fails with
// ErrNoBucket or an *UnreachableError before anything else when dst cannot
// be written. A failure (the first: it stops the other transfers) or ctx
// ending leaves the current snapshot in place; content already uploaded
// stays, and the next publish uploads only what is still missing.
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
	if byDir := func(a, b SkillFiles) int { return strings.Compare(a.Dir, b.Dir) }; !slices.IsSortedFunc(skills, byDir) {
		skills = slices.Clone(skills) // in the manifest's order: each skill is encoded when its files are done
		slices.SortFunc(skills, byDir)
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
	if err := checkNoRegistry(ctx, dst); err != nil {
		return r, err
	}
	if opts.Signer != nil {
		if err := sshsig.CheckKey(opts.Signer.PublicKey()); err != nil {
			return r, fmt.Errorf("the signing key: %w", err)
		}
	}
	return r, publish(ctx, src, skills, dst, opts, &r, lock)
}

// publish is Publish once its arguments are checked and sorted.
func publish(ctx context.Context, src fs.FS, skills []SkillFiles, dst Bucket, opts PublishOptions, r *Report, lock *heldLock) error {
	if opts.Transfers <= 0 {
		opts.Transfers = DefaultTransfers
	}
	w := &writer{src: src, dst: dst, opts: opts, obs: opts.Observer, r: r, skills: skills, bigFile: make(chan struct{}, 1), lock: lock}
	if w.obs == nil {
		w.obs = nopObserver{}
	}
	ptr, err := readPointer(ctx, dst)
	if err != nil {
		return err
	}
	m := &Manifest{Published: time.Now().UTC()} // its header: the records are w.records
	if err := w.writeFiles(ctx, ptr); err != nil {
		return err
	}
	// The previous snapshot is garbage now (54 MB at 100,000 skills), and
	// the manifest is uploaded through the store's part buffers; then the
	// manifest is garbage, and collect reads the older manifests it
	// keeps, each as large. Collected at each step, they are never in the
	// heap together: a publish's peak is the new manifest and the blob set.
	runtime.GC()
	m.Sequence = w.seq + 1 // base refuses a sequence that would wrap
	id, err := w.writeManifest(ctx, m)
	w.records = records{}
	if err != nil || opts.DryRun {
		return err
	}
	runtime.GC()
	return collect(ctx, dst, id, opts, r, w.obs, w.blobs, lock.check)
}

// writeManifest seals the manifest (m's header, w.records) and writes its
// signature (PublishOptions.Signer), the manifest and, last, the pointer;
// with DryRun, it writes nothing. It returns m's ID.
func (w *writer) writeManifest(ctx context.Context, m *Manifest) (string, error) {
	body, sum, pointer, err := seal(m, &w.records)
	if err != nil {
		return "", err
	}
	w.r.Snapshot, w.r.Sequence = m.ID, m.Sequence
	var sig []byte
	if w.opts.Signer != nil {
		// Over the manifest's SHA-256, which replicas compute anyway to
		// check it against the pointer: verifying costs them no second
		// pass over a manifest of 100,000 skills.
		if sig, err = sshsig.SignSHA256(w.opts.Signer, sum, SignatureNamespace); err != nil {
			return "", err
		}
	}
	if w.opts.DryRun {
		return m.ID, nil
	}
	if sig != nil {
		if err := writeAll(ctx, w.dst, SignatureKey(m.ID), sig, ObjectAttrs{ContentType: "text/plain"}); err != nil {
			return "", fmt.Errorf("writing the manifest's signature: %w", err)
		}
		w.r.Signed = true
	}
	if err := writePieces(ctx, w.dst, ManifestKey(m.ID), body, ObjectAttrs{ContentType: "application/octet-stream"}); err != nil {
		return "", fmt.Errorf("writing the manifest: %w", err)
	}
	if err := w.lock.checkMoving(ctx); err != nil {
		return "", err
	}
	// The pointer last: readers switch to a snapshot whose content is all there.
	if err := writeAll(ctx, w.dst, PointerKey, pointer, ObjectAttrs{ContentType: "application/json", CacheControl: "no-cache"}); err != nil {
		return "", fmt.Errorf("writing the snapshot pointer: %w", err)
	}
	return m.ID, nil
}

// checkSkills refuses skills, sorted by Dir, whose manifest a reader
// would refuse (Manifest.check), before a file is read.
func checkSkills(skills []SkillFiles) error {
	anyDigest := strings.Repeat("0", 64)
	var ms Skill
	for i, sk := range skills {
		if !slices.Contains(sk.Files, sk.DocPath) {
			return fmt.Errorf("the skills cannot be published: skill %s: its document %s is not one of its files", sk.Dir, sk.DocPath)
		}
		ms = Skill{Dir: sk.Dir, DocPath: sk.DocPath, Files: ms.Files[:0]}
		for _, p := range sk.Files {
			ms.Files = append(ms.Files, File{Path: p, SHA256: anyDigest})
		}
		err := ms.check()
		if err == nil && i > 0 && skills[i-1].Dir == sk.Dir {
			err = errBadFolder
		}
		if err != nil {
			return fmt.Errorf("the skills cannot be published: %w", err)
		}
	}
	return nil
}

// writeAll writes data as the object at key, with its MD5 for the store
// to check.
func writeAll(ctx context.Context, dst Bucket, key string, data []byte, attrs ObjectAttrs) error {
	return writePieces(ctx, dst, key, [][]byte{data}, attrs)
}

// writePieces writes the pieces, joined, as the object at key, with
// their MD5 for the store to check.
func writePieces(ctx context.Context, dst Bucket, key string, pieces [][]byte, attrs ObjectAttrs) error {
	h := md5.New()
	rs := make([]io.Reader, len(pieces))
	for i, p := range pieces {
		h.Write(p)
		rs[i] = bytes.NewReader(p)
	}
	attrs.ContentMD5 = h.Sum(nil)
	return dst.WriteObject(ctx, key, io.MultiReader(rs...), attrs)
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

// document sets ms's frontmatter and headings from its document's bytes,
// read as a server reads a document it serves (skillcheck.Document: UTF-8,
// or UTF-16 with a byte order mark), so the frontmatter matches the one
// the server finds in the document. It fails for any other encoding (a
// server refuses to serve the document) and when the frontmatter does
// not parse.
func document(ms *Skill, data []byte) (err error) {
	ms.Frontmatter, ms.Headings, err = DescribeDocument(data)
	return err
}

// DescribeDocument returns what a manifest records of a skill's
// document: its frontmatter verbatim and its headings (Skill.Frontmatter,
// Skill.Headings), read as a server reads a document it serves
// (skillcheck.Document). It fails for a document a server refuses.
func DescribeDocument(data []byte) (frontmatter, headings string, err error) {
	text, fm, _, err := skillcheck.Document(data)
	if err != nil {
		return "", "", err
	}
	return fm.Raw, docHeadings(text), nil
}

// seal gives m its ID (the time it was published, then the start of the
// SHA-256 of its encoding without the ID) and returns its encoding
// (format Version: m's header, then recs) as pieces, that encoding's
// SHA-256 and the pointer's encoding.
func seal(m *Manifest, recs *records) (body [][]byte, sum [sha256.Size]byte, pointer []byte, err error) {
	m.Scanner = hidden.Version
	h := header2{Version: Version, Published: m.Published, Sequence: m.Sequence, Scanner: m.Scanner, Skills: recs.n}
	if body, err = recs.pieces(h); err != nil {
		return nil, sum, nil, err
	}
	sum = sumPieces(body)
	m.Version, m.ID = Version, m.Published.Format("20060102T150405.000000000Z")+"-"+hex.EncodeToString(sum[:])[:12]
	h.ID = m.ID
	if body, err = recs.pieces(h); err != nil { // with its ID
		return nil, sum, nil, err
	}
	sum = sumPieces(body)
	pointer, err = json.Marshal(Pointer{Version: Version, Snapshot: m.ID, SHA256: hex.EncodeToString(sum[:]), Published: m.Published, Sequence: m.Sequence})
	return body, sum, pointer, err
}

// sumPieces is the SHA-256 of the pieces joined.
func sumPieces(pieces [][]byte) (sum [sha256.Size]byte) {
	h := sha256.New()
	for _, p := range pieces {
		h.Write(p)
	}
	h.Sum(sum[:0])
	return sum
}

// readPointer reads dst's pointer: nil when there is none, or it is
// too large or not JSON (a broken one is replaced).
func readPointer(ctx context.Context, dst Bucket) (*Pointer, error) {
	data, err := dst.ReadObject(ctx, PointerKey, maxPointerBytes)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrTooLarge) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the snapshot pointer: %w", err)
	}
	p, err := parsePointer(data)
	if err != nil {
		return nil, nil // broken: as if there were none
	}
	return p, nil
}

// lastSequence returns the sequence of the snapshot dst serves: the
// pointer's, else (a pointer written before sequences, or broken) the
// newest manifest's that reads. 0 when dst holds no snapshot.
func lastSequence(ctx context.Context, dst Bucket, p *Pointer) (uint64, error) {
	if p != nil && p.Sequence > 0 {
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
	data, err := dst.ReadObject(ctx, listedManifest(keys, newest), maxManifestBytes)
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

func (nopObserver) Start(Totals)                    {}
func (nopObserver) File(string, int64, FileOutcome) {}
func (nopObserver) OverLimit(string, int64)         {}
func (nopObserver) FilesDone()                      {}
func (nopObserver) RemovingSnapshot(string)         {}
func (nopObserver) DeletingObject(string)           {}
