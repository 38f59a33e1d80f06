package registry

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/binary"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/readall"
	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/store"
)

// The operations a log entry records.
const (
	opCreate        = "create"         // a new skill and its first version
	opVersion       = "version"        // a new version
	opDeleteVersion = "delete_version" // one version gone
	opDeleteSkill   = "delete_skill"   // a skill and all its versions gone
	opReview        = "review"         // a decision on a version: approve or reject
	opPromote       = "promote"        // a channel pointed at a version
)

// EntryNamespace is the SSHSIG namespace log entries are signed in.
const EntryNamespace = "skillstore-registry"

// entry is one write. Its object is an envelope: the entry's JSON as
// "body", and, when signed, "sig", an armored SSHSIG of body's exact
// bytes.
type entry struct {
	Seq         uint64    `json:"seq"`
	Op          string    `json:"op"`
	Time        time.Time `json:"time"`
	By          string    `json:"by,omitempty"`
	Skill       string    `json:"skill"`
	Name        string    `json:"name,omitempty"`
	DisplayName string    `json:"display_name,omitempty"`
	Version     *version  `json:"version,omitempty"`
	VersionID   string    `json:"version_id,omitempty"`
	// A review's: the decision, why, the digest decided on, when the
	// reviewer decided and their armored SSHSIG of skillsapi.Statement.
	Approve      bool      `json:"approve,omitempty"`
	Reason       string    `json:"reason,omitempty"`
	Digest       string    `json:"digest,omitempty"`
	ReviewerTime time.Time `json:"reviewer_time,omitzero"`
	ReviewerSig  string    `json:"reviewer_sig,omitempty"`
	// A promote's channel.
	Channel string `json:"channel,omitempty"`
	// signed is whether a trust list verified the entry's signature, and
	// signer its key (never in the JSON: each replica checks).
	signed bool
	signer store.Signer
}

type envelope struct {
	Body json.RawMessage `json:"body"`
	Sig  string          `json:"sig,omitempty"`
}

// entryKey is where entry seq is stored: its epoch's folder, then seq,
// both zero-padded so keys sort as numbers.
func entryKey(seq uint64) string {
	return fmt.Sprintf("%s%010d/%020d.json", logPrefix, seq/entriesPerEpoch, seq)
}

func epochPrefix(epoch uint64) string { return fmt.Sprintf("%s%010d/", logPrefix, epoch) }

func checkpointKey(seq uint64) string { return fmt.Sprintf("%s%020d.gob.gz", checkpointsDir, seq) }

// seqOf parses the sequence number of an entry or checkpoint key.
func seqOf(key, suffix string) (uint64, bool) {
	base, ok := strings.CutSuffix(path.Base(key), suffix)
	if !ok || len(base) != 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(base, 10, 64)
	return n, err == nil
}

// encode makes e's object, signed when the registry has a signer.
func (r *Registry) encode(e *entry) ([]byte, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	env := envelope{Body: body}
	if r.opts.Signer != nil {
		sig, err := sshsig.Sign(r.opts.Signer, body, EntryNamespace)
		if err != nil {
			return nil, fmt.Errorf("signing the registry entry: %w", err)
		}
		env.Sig = string(sig)
	}
	return json.Marshal(env)
}

// decode reads an entry object: its seq must be the one its key names.
// Under a trust list, the signature of an entry making a version, a
// review or a promote is checked: one that does not verify leaves the
// version unsigned (never served), the review or the channel's pointer
// uncounted, not the entry unread.
func (r *Registry) decode(data []byte, seq uint64) (*entry, error) {
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil || len(env.Body) == 0 {
		return nil, badEntry("not a registry entry")
	}
	var e entry
	if err := json.Unmarshal(env.Body, &e); err != nil {
		return nil, badEntry("not a registry entry")
	}
	if e.Seq != seq {
		return nil, badEntry(fmt.Sprintf("it says it is entry %d", e.Seq))
	}
	if e.Version != nil {
		e.Version.Seq = seq
		e.Version.intact = digestOf(e.Version.Files) == e.Version.Digest
	}
	if (e.Version != nil || e.Op == opReview || e.Op == opPromote) && r.opts.Trust != nil && env.Sig != "" {
		if a := r.opts.Trust(); a != nil {
			if s, err := a.Verify(env.Body, []byte(env.Sig), EntryNamespace, e.Time); err == nil {
				e.signer, e.signed = store.Signer{Fingerprint: s.Fingerprint, Principal: s.Principal}, true
			}
		}
	}
	if e.Version != nil {
		e.Version.Signer, e.Version.signed = e.signer, e.signed
	}
	return &e, nil
}

// readEntry reads entry seq: fs.ErrNotExist when there is none yet.
func (r *Registry) readEntry(ctx context.Context, seq uint64) (*entry, error) {
	r.counts.get.Add(1)
	data, err := r.b.ReadObject(ctx, entryKey(seq), maxEntryBytes)
	if err != nil {
		return nil, err
	}
	return r.decode(data, seq)
}

// load reads the newest checkpoint that reads whole, then the log after it.
func (r *Registry) load(ctx context.Context) error {
	var seqs []uint64
	r.counts.list.Add(1)
	err := r.b.WalkObjects(ctx, checkpointsDir, func(o snapshot.ObjectInfo) error {
		if n, ok := seqOf(o.Key, ".gob.gz"); ok {
			seqs = append(seqs, n)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("listing the registry's checkpoints: %w", err)
	}
	slices.Sort(seqs)
	for i := len(seqs) - 1; i >= 0; i-- {
		st, err := r.readCheckpoint(ctx, seqs[i])
		if err == nil {
			r.st = st
			break
		}
		r.opts.Logger.Warn("registry checkpoint skipped", "registry", r.opts.Location, "checkpoint", seqs[i], "error", err)
	}
	if err := r.replay(ctx); err != nil {
		return err
	}
	_, err = r.catchUp(ctx)
	return err
}

// replay reads the entries of the state's epoch and the next ones, listed
// and read on 16 workers, and applies those after the state in order.
// It stops at the first epoch that lists nothing new or at a gap.
func (r *Registry) replay(ctx context.Context) error {
	for epoch := (r.st.Seq + 1) / entriesPerEpoch; ; epoch++ {
		var want []uint64
		r.counts.list.Add(1)
		err := r.b.WalkObjects(ctx, epochPrefix(epoch), func(o snapshot.ObjectInfo) error {
			if n, ok := seqOf(o.Key, ".json"); ok && n > r.st.Seq && n/entriesPerEpoch == epoch {
				want = append(want, n)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("listing the registry's log: %w", err)
		}
		if len(want) == 0 {
			return nil
		}
		slices.Sort(want)
		got := make([]*entry, len(want))
		errs := make([]error, len(want))
		var wg sync.WaitGroup
		next := make(chan int)
		for range min(16, len(want)) {
			wg.Go(func() {
				for i := range next {
					got[i], errs[i] = r.readEntry(ctx, want[i])
				}
			})
		}
		for i := range want {
			next <- i
		}
		close(next)
		wg.Wait()
		for i, seq := range want {
			// Entry seq is there, so the ones before it were created
			// before it: those not listed were deleted by hand. Skipped
			// and reported, so the log goes on past them.
			for gone := r.st.Seq + 1; gone < seq; gone++ {
				r.applyRead(gone, nil, missingEntry(seq))
			}
			if errs[i] != nil && !isBad(errs[i]) {
				return fmt.Errorf("reading the registry's log: %w", errs[i])
			}
			r.applyRead(seq, got[i], errs[i])
		}
	}
}

// missingEntry is why an entry is skipped that is not there while a
// later one, later, is: a writer creates an entry only after reading
// the one before, so it was deleted.
func missingEntry(later uint64) error {
	return badEntry(fmt.Sprintf("missing, while entry %d is there: deleted by hand", later))
}

// laterEntry returns the first entry after seq listed among the hundred
// keys from seq+1 (one LIST), or 0.
func (r *Registry) laterEntry(ctx context.Context, seq uint64) (uint64, error) {
	next := seq + 1
	prefix := fmt.Sprintf("%s%018d", epochPrefix(next/entriesPerEpoch), next/100)
	var first uint64
	r.counts.list.Add(1)
	err := r.b.WalkObjects(ctx, prefix, func(o snapshot.ObjectInfo) error {
		if n, ok := seqOf(o.Key, ".json"); ok && n > seq && (first == 0 || n < first) {
			first = n
		}
		return nil
	})
	return first, err
}

// badEntry is the error of an entry that is there but cannot be used.
type badEntry string

func (e badEntry) Error() string { return string(e) }

// isBad reports whether err is an entry's own fault (unreadable or too
// large), so it is skipped, not retried.
func isBad(err error) bool {
	var b badEntry
	return errors.As(err, &b) || errors.Is(err, snapshot.ErrTooLarge)
}

// applyRead applies entry seq as read (e) or records why it cannot
// (readErr, or the entry's own conflict). r.mu is taken here.
func (r *Registry) applyRead(seq uint64, e *entry, readErr error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	why := ""
	if readErr != nil {
		why = readErr.Error()
	} else {
		why = r.st.apply(e)
	}
	if why != "" {
		r.st.problems[seq] = why
		r.opts.Logger.Warn("registry entry skipped", "registry", r.opts.Location, "entry", seq, "reason", why)
	}
	r.st.Seq = seq
}

// catchUp reads the entries after the state, one GET each, until one is
// not there yet, and reports whether any was applied. One at a time.
func (r *Registry) catchUp(ctx context.Context) (bool, error) {
	r.sync.Lock()
	defer r.sync.Unlock()
	moved := false
	for {
		seq := r.seq() + 1
		e, err := r.readEntry(ctx, seq)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return moved, nil
		case err != nil && !isBad(err):
			return moved, fmt.Errorf("reading the registry's log: %w", err)
		}
		r.applyRead(seq, e, err)
		moved = true
	}
}

func (r *Registry) seq() uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.st.Seq
}

// errRaced is commit's error when another replica took every sequence
// number tried.
var errRaced = errors.New("the registry is busy: other writers took every turn; try again")

// maxTurns bounds how many sequence numbers one write tries.
const maxTurns = 64

// commit appends the entry make gives, checked against the state it is
// made from, as the next log entry. make runs under the read lock, on a
// state caught up with the log; it returns a refusal (*skillsapi.Error)
// when the write cannot apply. When another writer takes the number,
// commit catches up and asks make again.
func (r *Registry) commit(ctx context.Context, make func(st *state) (*entry, error)) (*entry, error) {
	r.write.Lock()
	defer r.write.Unlock()
	for range maxTurns {
		if _, err := r.catchUp(ctx); err != nil {
			return nil, err
		}
		r.mu.RLock()
		seq := r.st.Seq + 1
		e, err := make(r.st)
		r.mu.RUnlock()
		if err != nil {
			return nil, err
		}
		e.Seq = seq
		data, err := r.encode(e)
		if err != nil {
			return nil, err
		}
		// Never create a number below one listed: entry seq missing while
		// a later one is there was deleted by hand, and writing it again
		// would give replicas that read the first one another history.
		later, err := r.laterEntry(ctx, seq)
		if err != nil {
			return nil, fmt.Errorf("listing the registry's log: %w", err)
		}
		if later != 0 {
			if err := r.skipMissing(ctx, seq, later); err != nil {
				return nil, err
			}
			continue
		}
		err = create(ctx, r.b, entryKey(seq), data)
		if errors.Is(err, fs.ErrExist) {
			continue // another replica wrote seq: read it, then try again
		}
		if err != nil {
			return nil, fmt.Errorf("writing the registry's log: %w", err)
		}
		e, err = r.decode(data, seq) // as a replica reads it (signature checked)
		if err != nil {
			return nil, err
		}
		r.sync.Lock()
		if r.seq() == seq-1 {
			r.applyRead(seq, e, nil)
		}
		r.sync.Unlock()
		if seq%r.opts.CheckpointEvery == 0 {
			r.writeCheckpoint(context.WithoutCancel(ctx), seq)
		}
		return e, nil
	}
	return nil, errRaced
}

// skipMissing skips entry seq, not found while entry later is listed,
// unless a read finds it now (written meanwhile: catchUp applies it).
func (r *Registry) skipMissing(ctx context.Context, seq, later uint64) error {
	r.sync.Lock()
	defer r.sync.Unlock()
	if r.seq() != seq-1 {
		return nil // read meanwhile
	}
	switch _, err := r.readEntry(ctx, seq); {
	case errors.Is(err, fs.ErrNotExist):
		r.applyRead(seq, nil, missingEntry(later))
	case err != nil && !isBad(err):
		return fmt.Errorf("reading the registry's log: %w", err)
	}
	return nil
}

// create writes data at key unless an object is there (fs.ErrExist).
func create(ctx context.Context, b snapshot.Bucket, key string, data []byte) error {
	sum := md5.Sum(data)
	return b.CreateObject(ctx, key, bytes.NewReader(data), snapshot.ObjectAttrs{ContentType: "application/json", ContentMD5: sum[:]})
}

// writeCheckpoint writes the state as of seq, if it still is at seq, and
// removes checkpoints older than the previous one. Failures are logged:
// a checkpoint only makes cold starts faster.
func (r *Registry) writeCheckpoint(ctx context.Context, seq uint64) {
	r.mu.RLock()
	if r.st.Seq != seq {
		r.mu.RUnlock()
		return
	}
	// Skills are never changed once in the state (a change puts a new
	// one): the list is taken under the lock, encoded outside it.
	c := r.st.checkpoint()
	r.mu.RUnlock()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	err := gob.NewEncoder(zw).Encode(c)
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		sum := md5.Sum(buf.Bytes())
		err = r.b.WriteObject(ctx, checkpointKey(seq), bytes.NewReader(buf.Bytes()), snapshot.ObjectAttrs{ContentType: "application/gzip", ContentMD5: sum[:]})
	}
	if err != nil {
		r.opts.Logger.Warn("registry checkpoint not written", "registry", r.opts.Location, "checkpoint", seq, "error", err)
		return
	}
	var old []string
	r.b.WalkObjects(ctx, checkpointsDir, func(o snapshot.ObjectInfo) error {
		if n, ok := seqOf(o.Key, ".gob.gz"); ok && n+r.opts.CheckpointEvery < seq {
			old = append(old, o.Key)
		}
		return nil
	})
	for _, k := range old {
		r.b.DeleteObject(ctx, k)
	}
}

// readCheckpoint reads checkpoint seq whole.
func (r *Registry) readCheckpoint(ctx context.Context, seq uint64) (*state, error) {
	r.counts.get.Add(1)
	data, err := r.b.ReadObject(ctx, checkpointKey(seq), maxCheckpointBytes)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil || len(data) < 18 {
		return nil, errors.New("not a gzip checkpoint")
	}
	// The gzip trailer gives the size (mod 4 GiB): one allocation. A
	// truncated or hostile object's trailer is any number, so the guess
	// is at most 32 times the compressed size; a larger one grows. A
	// checkpoint inflates a few times (gob of IDs, names and digests): a
	// bomb stops at 64 times its size.
	hint := min(int64(binary.LittleEndian.Uint32(data[len(data)-4:])), 32*int64(len(data)))
	raw, err := readall.Read(zr, hint, min(4*maxCheckpointBytes, 64*int64(len(data))+1<<20))
	if err != nil {
		return nil, fmt.Errorf("not a checkpoint: %w", err)
	}
	var c checkpoint
	if err := gob.NewDecoder(bytes.NewReader(raw)).Decode(&c); err != nil {
		return nil, fmt.Errorf("not a checkpoint: %w", err)
	}
	if c.Format != checkpointFormat || c.Seq != seq {
		return nil, errors.New("a checkpoint of another format or number")
	}
	st := stateOf(&c)
	if r.opts.Trust != nil || r.opts.Reviewers != nil {
		// A checkpoint carries no signatures: under a trust list, each
		// version's, review's and channel's entry is read to check its own; under
		// reviewer keys, each review's entry, for the reviewer's
		// signature. Until then none of them counts.
		return st, r.verifyAll(ctx, st)
	}
	return st, nil
}

// verifyAll checks the signatures of st's versions (under a trust list)
// and reviews by reading the entry that made each (16 at a time).
func (r *Registry) verifyAll(ctx context.Context, st *state) error {
	type job struct {
		seq uint64
		got func(e *entry) // called with the entry read
	}
	var jobs []job
	for _, sk := range st.skills {
		if r.opts.Trust != nil {
			for _, v := range sk.Versions {
				jobs = append(jobs, job{v.Seq, func(e *entry) {
					// The checkpoint's copy must be the signed one: same ID, and
					// files whose digest is the signed digest.
					if e.Version != nil && e.Version.ID == v.ID && e.Version.Digest == v.Digest && v.intact {
						v.Signer, v.signed = e.Version.Signer, e.Version.signed
					}
				}})
			}
		}
		if r.opts.Trust != nil {
			for name, c := range sk.Channels {
				jobs = append(jobs, job{c.Seq, func(e *entry) {
					if e.Op == opPromote && e.Skill == sk.ID && e.Channel == name && e.VersionID == c.Version {
						c.signed = e.signed
					}
				}})
			}
		}
		for id, rv := range sk.Reviews {
			jobs = append(jobs, job{rv.Seq, func(e *entry) {
				// The checkpoint's copy must be the entry's decision.
				if e.Op == opReview && e.Skill == sk.ID && e.VersionID == id && e.Approve == rv.Approve && e.By == rv.By &&
					e.Digest == rv.Digest && e.ReviewerTime.UTC().Truncate(time.Second).Equal(rv.ReviewerTime) {
					rv.sig, rv.signed, rv.signer = e.ReviewerSig, e.signed, e.signer
				}
			}})
		}
	}
	var wg sync.WaitGroup
	next := make(chan job)
	for range min(16, len(jobs)) {
		wg.Go(func() {
			for j := range next {
				if e, err := r.readEntry(ctx, j.seq); err == nil {
					j.got(e)
				}
			}
		})
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	return nil
}
