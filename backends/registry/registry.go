// Package registry keeps skills and their immutable versions in object
// storage, for the Skills API (skillsapi.Registry) and as a store source.
//
// The storage is the truth: any number of replicas open one folder and
// each accepts writes. A folder (a bucket prefix, or a directory on a
// shared disk) holds, under .skillstore/:
//
//	registry/log/EPOCH/SEQ.json      one entry per write, created once, never rewritten
//	registry/checkpoints/SEQ.gob.gz every skill (gob, gzipped) and version after entry SEQ
//	blobs/AB/ABCDEF….                each file's content, once, under its SHA-256 (as snapshots)
//
// A write uploads the version's new blobs, then creates the next log
// entry with a conditional create (S3 If-None-Match: *, GCS generation
// 0, Azure If-None-Match, a hard link on a shared disk): of two replicas
// writing at once, one creates entry N and the other, refused, reads it,
// checks its own write again (a name taken meanwhile is a 409) and
// creates N+1. So a write costs a few small objects whatever the number
// of skills, and nothing is lost. Open refuses a store that does not
// honour the condition, since there two writers would overwrite each
// other.
//
// A replica follows the log: a refresh reads the entry after the last it
// applied (one request when nothing is new). Open reads the newest
// checkpoint and the entries after it. Every CheckpointEvery entries the
// writer of that entry writes a checkpoint, so a cold start reads one
// object and at most a few thousand small ones.
//
// Review and channels (skillsapi.Reviewer). A skill Options.NeedsReview
// names has each version pending until a "review" entry approves it:
// the entry names the version, its digest (which must be the version's,
// its files intact), the reviewer (never the uploader), the time the
// reviewer decided and, optionally, their SSHSIG of skillsapi.Statement.
// A later decision replaces it (a reject withdraws an approval); one no
// later than the version's last, or recorded more than
// skillsapi.MaxDecisionAge from its time, does not apply (a replay).
// Each replica decides whether an approval counts when it serves: under
// Options.Reviewers, the reviewer's signature by a key listed for them;
// under Trust, the entry's signature by a trusted key; with neither,
// every approval. A "promote" entry points a channel of a skill at one
// of its versions; ChannelSource serves it while that version may be
// served (and, under Trust, the promote is signed), else the default (Pins, else the latest version that may be
// served), and reports the pointer (Problems). Whether a version may be
// served is decided when a view is made: once per log position, and
// again when Reviewers returns another list; a changed NeedsReview
// takes effect at the next entry. Nothing in the log (an entry edited
// or copied by hand) makes an unapproved version served.
// Every replica of a folder must know review entries: an older one
// skips them and serves pending versions.
//
// Limits: deleting a skill or a version removes it from the log's
// state; its blobs stay (no collection yet). A log entry edited by hand
// into something unreadable is skipped and reported (Problems); a
// missing blob fails the reads of that file only. An entry deleted by
// hand is skipped by a replica that lists a later one: at Open, and
// before each write (one LIST of the next hundred keys), so no writer
// creates its number again; a replica behind it that only refreshes
// stays behind it until it is opened again.
package registry

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/sshsig"
	"golang.org/x/crypto/ssh"
)

// Paths of the layout, relative to the folder.
const (
	Dir            = snapshot.Dir + "/registry"
	logPrefix      = snapshot.RegistryDir + "log/"
	checkpointsDir = Dir + "/checkpoints/"
	probePrefix    = Dir + "/probe/"
)

// DefaultCheckpointEvery is how many log entries separate two
// checkpoints by default.
const DefaultCheckpointEvery = 1000

// entriesPerEpoch is how many entries share a log folder, so a cold start
// lists one folder of at most this many keys past its checkpoint.
const entriesPerEpoch = 1000

// Bounds of the objects a replica reads.
const (
	maxEntryBytes      = 4 << 20
	maxCheckpointBytes = 1 << 30
)

// Options tune a Registry.
type Options struct {
	// Location names the folder in logs and errors; it carries no credential.
	Location string
	// Logger receives what a replica skips or fails to read. Default slog.Default().
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Signer, if set, signs each log entry this replica writes: an SSHSIG
	// in namespace EntryNamespace over the entry's body, kept in the entry.
	Signer ssh.Signer
	// CheckpointEvery is how many log entries separate two checkpoints
	// (default DefaultCheckpointEvery): the writer of entry N writes one
	// when N is a multiple of it.
	CheckpointEvery uint64
	// Trust, if set, serves only versions whose entry carries a valid
	// signature by one of the keys it returns; others are listed to
	// writers through the API but never served to agents.
	Trust func() *sshsig.AllowedSigners
	// Pins, if set, names the version of a skill to serve in place of
	// its latest (serve --lock): the version of that ID, when the skill
	// has it and, under Trust, it is signed; else the latest, as without
	// a pin (a store that checks pins then withholds it). It is called
	// once per skill each time the served view is made, under the
	// registry's lock: it must be quick and must not call the registry.
	Pins func(name string) (versionID string, ok bool)
	// NeedsReview, if set, says which skills need review: a version of
	// such a skill is pending until a review entry approves its digest,
	// and only approved versions are served. nil: none needs review. It
	// is called under the registry's lock each time the served view is
	// made (once per log position and channel): it must be quick and
	// must not call the registry.
	NeedsReview func(name string) bool
	// Reviewers, if set, returns the allowed signers of reviewers' keys:
	// an approval then counts when its reviewer signature verifies, in
	// namespace skillsapi.ReviewNamespace, over skillsapi.Statement
	// (approve, the skill's name, the version's ID, its digest, the
	// reviewer, the time) by a key listed for the reviewer's principal
	// (one of the line's comma-separated principals, exactly). An
	// approval also counts, under Trust, when its entry verifies by a
	// trusted key; with neither, every approval counts. It is called each
	// time the served view or a version is asked for, under the
	// registry's lock: it must be quick, must not call the registry, and
	// must return the same list (pointer) until the list changes, as
	// reload.File's Current does: a list returned anew has the served
	// view made again and every approval checked again, and one that no
	// longer lists a reviewer withdraws their approvals.
	Reviewers func() *sshsig.AllowedSigners
}

// Registry is a folder of skills and versions. It implements
// skillsapi.Registry and is safe for concurrent use.
type Registry struct {
	b    snapshot.Bucket
	opts Options

	write sync.Mutex // one write at a time on this replica
	sync  sync.Mutex // one catch-up at a time
	mu    sync.RWMutex
	st    *state

	views   viewCache
	counts  counts
	refresh refreshFlight
	zips    zipBudget
}

// ErrNotConditional is Open's error on a store that overwrote an object
// a conditional create should have refused.
var ErrNotConditional = errors.New("this store does not honour conditional writes (If-None-Match), so two writers could overwrite each other; the registry needs a store that does: S3 (AWS, versitygw, MinIO), GCS, Azure Blob Storage, or file://")

// ErrSnapshotFolder is Open's error for a folder holding published
// snapshots: a publish there would remove the registry's content.
var ErrSnapshotFolder = errors.New("the folder holds published snapshots (skillstore publish): a registry needs a folder of its own, since a publish removes content its snapshots do not use")

// Open opens the registry in b, creating nothing until the first write.
// It checks that b honours conditional creates (two creates of one
// probe key: the second must fail; three requests, then a delete), then
// reads the newest checkpoint and the log after it.
func Open(ctx context.Context, b snapshot.Bucket, opts Options) (*Registry, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.CheckpointEvery == 0 {
		opts.CheckpointEvery = DefaultCheckpointEvery
	}
	if ok, err := b.Accessible(ctx); err != nil {
		return nil, fmt.Errorf("reaching the registry %s: %w", opts.Location, err)
	} else if !ok {
		return nil, fmt.Errorf("the registry %s: no such bucket", opts.Location)
	}
	switch _, err := b.ReadObject(ctx, snapshot.PointerKey, 1<<20); {
	case err == nil:
		return nil, ErrSnapshotFolder
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, snapshot.ErrTooLarge):
		return nil, fmt.Errorf("reaching the registry %s: %w", opts.Location, err)
	}
	if err := probe(ctx, b); err != nil {
		return nil, err
	}
	r := &Registry{b: b, opts: opts, st: newState()}
	if err := r.load(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// probe creates one key twice: the second create must be refused.
func probe(ctx context.Context, b snapshot.Bucket) error {
	key := probePrefix + rand.Text()
	if err := create(ctx, b, key, []byte("probe\n")); err != nil {
		return fmt.Errorf("checking that the registry's store takes conditional writes: %w", err)
	}
	defer b.DeleteObject(context.WithoutCancel(ctx), key)
	err := create(ctx, b, key, []byte("probe again\n"))
	switch {
	case errors.Is(err, fs.ErrExist):
		return nil
	case err == nil:
		return ErrNotConditional
	}
	return fmt.Errorf("checking that the registry's store takes conditional writes: %w", err)
}

// newID is prefix and a ULID-like text: 10 characters of milliseconds,
// then 16 random, in an alphabet whose order is the byte order, so IDs
// sort by creation time (to the millisecond).
func newID(prefix string, t time.Time) string {
	const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ" // Crockford's base32
	var b strings.Builder
	b.WriteString(prefix)
	ms := uint64(t.UnixMilli())
	var ts [10]byte
	for i := 9; i >= 0; i-- {
		ts[i] = alphabet[ms&31]
		ms >>= 5
	}
	b.Write(ts[:])
	b.WriteString(rand.Text()[:16])
	return b.String()
}

// Prefixes of the IDs, as Anthropic's API spells them.
const (
	skillPrefix   = "skill_"
	versionPrefix = "skver_"
)
