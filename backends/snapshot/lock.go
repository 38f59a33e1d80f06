package snapshot

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"
)

// The publish lock
//
// A publish holds the folder's lock, the object at LockKey, from before
// it lists the folder's content until it has collected: it creates the
// object only if there is none (Bucket.CreateObject), renews it every
// quarter of its lifetime while it works, checks it still holds it just
// before it moves the pointer and before it removes anything, and
// removes it when it ends, whether it succeeded, failed or was
// interrupted. A second publish that finds a live lock fails at once
// with a *LockedError. One that finds an expired lock (its holder
// crashed, or stalled past its lifetime) takes it over: it first creates
// a takeover marker named after that lock, which only one publish can
// create, then removes the expired lock and creates its own, so of two
// publishes taking over the same lock at once one goes on and the other
// finds the lock live. PublishOptions.BreakLock takes over a live lock
// too, for a holder that is known to be gone sooner than its lock
// expires; a holder that is in fact still running finds, at its next
// renewal or check, that it lost the lock, and stops before it moves the
// pointer (ErrLockLost).
//
// What the lock guarantees rests on the store: with a store that creates
// an object only if there is none as one step (S3, versitygw, GCS,
// Azure Blob Storage, gocloud's memblob, and a file:// folder through
// blobfs.PublishBucketFor, which links the lock into place), two
// publishes never both hold it. gocloud's fileblob alone checks then
// renames: two publishes starting within the same instant may both
// create it; the one whose
// object was overwritten finds that at its read-back, or at the latest
// at its check before the pointer moves, so one of them fails, unless
// the overwrite lands between the other's last check and its pointer
// write. Renewal rewrites the lock after reading it (stores offer no
// compare-and-swap through gocloud), so a holder that stalls past its
// lifetime in the middle of a renewal can overwrite the lock of the
// publish that took it over; that publish then finds it lost the lock.
// Expiry is judged by each publisher's own clock: clocks that differ by
// more than a small part of the lifetime make a live lock look expired.

// LockKey is where the publish lock of a folder is kept while a publish
// runs: a small JSON object (Lock).
const LockKey = Dir + "/lock.json"

// takeoverPrefix is where a publish taking over an expired lock
// creates its marker, named after the lock's ID.
const takeoverPrefix = Dir + "/lock-takeover/"

// DefaultLockTTL is the lifetime of a publish lock that is not renewed
// (PublishOptions.LockTTL): a crashed publish blocks others this long,
// or until one passes BreakLock.
const DefaultLockTTL = 2 * time.Minute

// lockVersion is the version of the lock object's format.
const lockVersion = 1

// maxLockBytes bounds the lock object a publish reads.
const maxLockBytes = 4 << 10

// releaseTimeout bounds removing the lock when a publish ends, also
// when its context has ended.
const releaseTimeout = time.Minute

// Lock is the content of the publish lock: which publish holds it, on
// which machine, since when and until when.
type Lock struct {
	Version int `json:"version"`
	// ID is the holding publish's random ID (16 hex digits).
	ID string `json:"id"`
	// Host is the holder's machine, as the first 12 hex digits of the
	// SHA-256 of its host name: enough to tell whether it is this machine
	// (Lock.OnThisHost), naming no machine to whoever reads the bucket.
	Host  string    `json:"host"`
	Since time.Time `json:"since"` // when the publish took the lock
	Until time.Time `json:"until"` // when it expires unless renewed
}

// OnThisHost reports whether l was taken on the machine running this
// program (by its host name).
func (l Lock) OnThisHost() bool { return l.Host == hostID() }

// String describes the holder, for messages: "publish ID on this host,
// since T" (or "on another host (HOST)"), T in UTC to the second.
func (l Lock) String() string {
	where := "on this host"
	if !l.OnThisHost() {
		where = "on another host (" + l.Host + ")"
	}
	return fmt.Sprintf("publish %s %s, since %s", l.ID, where, stamp(l.Since))
}

// stamp formats t for messages: UTC, to the second.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// hostID is this machine's Lock.Host.
var hostID = sync.OnceValue(func() string {
	name, err := os.Hostname()
	if err != nil || name == "" {
		return "unknown"
	}
	sum := sha256.Sum256([]byte("skillstore-lock\x00" + name))
	return hex.EncodeToString(sum[:6])
})

// LockedError is Publish's error when another publish holds the
// folder's lock, or is taking it over, or the lock cannot be read. Its
// message says who holds it, since when, until when, and how to break a
// lock whose publish no longer runs (publish --break-lock,
// PublishOptions.BreakLock).
type LockedError struct {
	Held Lock // the lock found; zero when Unreadable
	// TakingOver says Held has expired and another publish is taking it
	// over.
	TakingOver bool
	// Unreadable says the lock object is not a lock this program reads
	// (another format version, or not JSON).
	Unreadable bool
}

func (e *LockedError) Error() string {
	const breakIt = "if it no longer runs (its process was killed), publish with --break-lock"
	switch {
	case e.Unreadable:
		return "the folder holds a publish lock (" + LockKey + ") this version of skillstore cannot read: another publish may be under way; " +
			"wait for it to end and publish again; if none runs, publish with --break-lock"
	case e.TakingOver:
		return fmt.Sprintf("the folder's publish lock, held by %s, expired at %s and another publish is taking it over: publish again once that one ends; "+
			"if none runs, publish with --break-lock", e.Held.String(), stamp(e.Held.Until))
	}
	return fmt.Sprintf("another publish is writing to this folder: %s, its lock expiring at %s unless renewed; wait for it to end and publish again; %s",
		e.Held.String(), stamp(e.Held.Until), breakIt)
}

// ErrLockLost is matched by Publish's error when the publish lost the
// folder's lock while it worked: another publish broke it
// (PublishOptions.BreakLock) or took it over after it expired (this
// publish stalled, or could not renew it). The publish stops before it
// moves the pointer, or, when it lost the lock later, before it removes
// anything.
var ErrLockLost = errors.New("this publish lost the folder's publish lock")

// LockObserver is an Observer that is also told when Publish takes over
// another publish's lock: expired is true when that lock had expired,
// false when it was live and PublishOptions.BreakLock broke it. Publish
// tells any Observer that implements it.
type LockObserver interface {
	LockTakenOver(held Lock, expired bool)
}

// heldLock is the lock one publish holds. A nil *heldLock (a dry run)
// holds nothing and checks nothing.
type heldLock struct {
	dst    Bucket
	me     Lock
	ttl    time.Duration
	parent context.Context         // the publish's own context
	ctx    context.Context         // parent, ended with the loss of the lock
	cancel context.CancelCauseFunc // ends ctx
	stop   chan struct{}           // closed to stop renewing
	done   chan struct{}           // closed when renewing has stopped

	mu     sync.Mutex
	until  time.Time // the expiry last written
	moving bool      // the pointer is about to move
}

// lockFolder takes dst's publish lock for a publish with opts (none for
// a dry run) and renews it until unlock. The context it returns ends
// when the lock is lost, with ErrLockLost as its cause.
func lockFolder(ctx context.Context, dst Bucket, opts PublishOptions) (context.Context, *heldLock, error) {
	if opts.DryRun {
		return ctx, nil, nil
	}
	ttl := opts.LockTTL
	if ttl <= 0 {
		ttl = DefaultLockTTL
	}
	var id [8]byte
	rand.Read(id[:]) // never fails (crypto/rand)
	me := Lock{Version: lockVersion, ID: hex.EncodeToString(id[:]), Host: hostID()}
	obs, _ := opts.Observer.(LockObserver)
	if err := acquire(ctx, dst, &me, ttl, opts.BreakLock, obs); err != nil {
		return ctx, nil, err
	}
	l := &heldLock{dst: dst, me: me, ttl: ttl, parent: ctx, until: me.Until, stop: make(chan struct{}), done: make(chan struct{})}
	l.ctx, l.cancel = context.WithCancelCause(ctx)
	go l.renew()
	return l.ctx, l, nil
}

// acquire creates dst's lock as me, taking over an expired one (any,
// when breaking), and tells obs of a takeover.
func acquire(ctx context.Context, dst Bucket, me *Lock, ttl time.Duration, breaking bool, obs LockObserver) error {
	var took *Lock // the lock taken over, if any
	var expired bool
	for range 3 {
		now := time.Now().UTC()
		me.Since, me.Until = now, now.Add(ttl)
		err := writeLock(ctx, dst, LockKey, *me, true)
		if err == nil {
			if err := confirm(ctx, dst, *me); err != nil {
				return err
			}
			if took != nil && obs != nil {
				obs.LockTakenOver(*took, expired)
			}
			return nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("taking the folder's publish lock: %w", err)
		}
		held, err := readLock(ctx, dst, LockKey)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // released meanwhile
		case errors.Is(err, errBadLock) && !breaking:
			return &LockedError{Unreadable: true}
		case err != nil && !errors.Is(err, errBadLock):
			return fmt.Errorf("reading the folder's publish lock: %w", err)
		case !breaking && now.Before(held.Until):
			return &LockedError{Held: held}
		}
		removed, err := takeOver(ctx, dst, held, *me, breaking)
		if err != nil {
			return err
		}
		if removed {
			took, expired = &held, held.ID != "" && !now.Before(held.Until)
		}
	}
	return errors.New("the folder's publish lock changed hands three times while this publish tried to take it: other publishes are starting; publish again")
}

// confirm reads the lock just created back: a store that checks then
// writes (fileblob) may have let another publish overwrite it.
func confirm(ctx context.Context, dst Bucket, me Lock) error {
	got, err := readLock(ctx, dst, LockKey)
	switch {
	case err != nil && !errors.Is(err, errBadLock):
		return fmt.Errorf("reading back the folder's publish lock: %w", err)
	case err != nil:
		return &LockedError{Unreadable: true}
	case got.ID != me.ID:
		return &LockedError{Held: got}
	}
	return nil
}

// takeOver removes held, an expired lock (or any, when breaking), so
// that the caller can create its own, and reports whether it did: only
// the publish that creates held's takeover marker does, and only if the
// lock is still held, and still expired, once it has. It fails with a
// *LockedError when another publish is taking held over or held's
// publish renewed it meanwhile. A lock that is gone or changed hands is
// left for the caller to find.
func takeOver(ctx context.Context, dst Bucket, held, me Lock, breaking bool) (removed bool, err error) {
	marker := takeoverPrefix + markerName(held.ID)
	err = writeLock(ctx, dst, marker, me, true)
	if errors.Is(err, fs.ErrExist) && breaking {
		// The operator says no other publish runs: a marker left by a
		// publish that crashed taking over.
		if err = dst.DeleteObject(ctx, marker); err == nil {
			err = writeLock(ctx, dst, marker, me, true)
		}
	}
	if errors.Is(err, fs.ErrExist) {
		return false, &LockedError{Held: held, TakingOver: true}
	}
	if err != nil {
		return false, fmt.Errorf("taking over the folder's publish lock: %w", err)
	}
	defer dst.DeleteObject(context.WithoutCancel(ctx), marker)
	cur, err := readLock(ctx, dst, LockKey)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case errors.Is(err, errBadLock) && breaking:
	case err != nil:
		return false, fmt.Errorf("reading the folder's publish lock: %w", err)
	case cur.ID != held.ID:
		return false, nil
	case !breaking && time.Now().Before(cur.Until):
		return false, &LockedError{Held: cur} // renewed meanwhile: alive
	}
	if err := dst.DeleteObject(ctx, LockKey); err != nil {
		return false, fmt.Errorf("removing the folder's publish lock: %w", err)
	}
	return true, nil
}

// markerName is the takeover marker's name for a lock of id: id itself
// when it is one this package makes (hex), else "unreadable".
func markerName(id string) string {
	if len(id) == 16 && strings.Trim(id, "0123456789abcdef") == "" {
		return id
	}
	return "unreadable"
}

// errBadLock is readLock's error for an object that is not a lock of
// this version.
var errBadLock = errors.New("not a publish lock")

// readLock reads the lock at key.
func readLock(ctx context.Context, dst Bucket, key string) (Lock, error) {
	data, err := dst.ReadObject(ctx, key, maxLockBytes)
	if errors.Is(err, ErrTooLarge) {
		return Lock{}, errBadLock
	}
	if err != nil {
		return Lock{}, err
	}
	var l Lock
	if json.Unmarshal(data, &l) != nil || l.Version != lockVersion || l.ID == "" {
		return Lock{}, errBadLock
	}
	return l, nil
}

// writeLock writes l at key; create only if there is no object there.
func writeLock(ctx context.Context, dst Bucket, key string, l Lock, create bool) error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if create {
		return createAll(ctx, dst, key, data, ObjectAttrs{ContentType: "application/json"})
	}
	return writeAll(ctx, dst, key, data, ObjectAttrs{ContentType: "application/json"})
}

// createAll is writeAll for a key that must hold no object
// (Bucket.CreateObject).
func createAll(ctx context.Context, dst Bucket, key string, data []byte, attrs ObjectAttrs) error {
	sum := md5.Sum(data)
	attrs.ContentMD5 = sum[:]
	return dst.CreateObject(ctx, key, bytes.NewReader(data), attrs)
}

// renew rewrites the lock with a later expiry every quarter of its
// lifetime, until stopped or until the lock is lost, which ends l.ctx.
func (l *heldLock) renew() {
	defer close(l.done)
	tick := time.NewTicker(l.ttl / 4)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-l.ctx.Done():
			return
		case <-tick.C:
		}
		if err := l.renewOnce(); err != nil {
			l.cancel(err)
			return
		}
	}
}

// renewOnce extends the lock if this publish still holds it. A failed
// request is tried again at the next tick while the lock has time left.
func (l *heldLock) renewOnce() error {
	cur, err := readLock(l.ctx, l.dst, LockKey)
	if err == nil && cur.ID != l.me.ID || errors.Is(err, fs.ErrNotExist) || errors.Is(err, errBadLock) {
		return lost(cur, err)
	}
	if err == nil {
		next := l.me
		next.Until = time.Now().UTC().Add(l.ttl)
		if err = writeLock(l.ctx, l.dst, LockKey, next, false); err == nil {
			l.mu.Lock()
			l.until = next.Until
			l.mu.Unlock()
			return nil
		}
	}
	if l.ctx.Err() != nil {
		return nil // the publish is ending
	}
	if until := l.expiry(); time.Now().After(until.Add(-l.ttl / 4)) {
		return fmt.Errorf("%w: it could not be renewed before it expires at %s: %w", ErrLockLost, stamp(until), err)
	}
	return nil
}

// expiry is when the lock expires unless renewed.
func (l *heldLock) expiry() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.until
}

// lost is ErrLockLost, saying what readLock found instead of this
// publish's lock (cur, or err).
func lost(cur Lock, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: it was removed (by publish --break-lock?)", ErrLockLost)
	case err != nil:
		return fmt.Errorf("%w: it was replaced by an object this version of skillstore cannot read", ErrLockLost)
	}
	return fmt.Errorf("%w: %s holds it now (it broke it with --break-lock, or took it over after this publish's lock expired)", ErrLockLost, cur.String())
}

// check reports whether the publish still holds its lock, with time to
// spare, reading it (one request); a nil l (a dry run) always does. Its
// error matches ErrLockLost when the lock is lost.
func (l *heldLock) check(ctx context.Context) error {
	if l == nil {
		return nil
	}
	if err := context.Cause(l.ctx); errors.Is(err, ErrLockLost) {
		return err
	}
	cur, err := readLock(ctx, l.dst, LockKey)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, errBadLock) || err == nil && cur.ID != l.me.ID:
		return lost(cur, err)
	case err != nil:
		return fmt.Errorf("checking the folder's publish lock: %w", err)
	}
	if until := l.expiry(); time.Now().After(until.Add(-l.ttl / 4)) {
		return fmt.Errorf("%w: it expires at %s and could not be renewed in time", ErrLockLost, stamp(until))
	}
	return nil
}

// checkMoving is check just before the pointer moves: from then on, a
// failure no longer says the folder serves what it served before.
func (l *heldLock) checkMoving(ctx context.Context) error {
	err := l.check(ctx)
	if err == nil && l != nil {
		l.mu.Lock()
		l.moving = true
		l.mu.Unlock()
	}
	return err
}

// unlock stops renewing and removes the lock if the publish still holds
// it, even when ctx has ended. It rewrites *err, the publish's error, to
// say the publish lost the lock or was interrupted, and what the folder
// serves then; when the lock cannot be removed it says so in *err.
func (l *heldLock) unlock(err *error) {
	if l == nil {
		return
	}
	cause := context.Cause(l.ctx)
	l.cancel(nil) // ends a renewal under way
	close(l.stop)
	<-l.done
	l.mu.Lock()
	moving := l.moving
	l.mu.Unlock()
	const unchanged = "; it stopped before moving the pointer: the folder still serves the snapshot it served before, and the next publish uploads only the content still missing"
	if errors.Is(*err, context.Canceled) && errors.Is(cause, ErrLockLost) && l.parent.Err() == nil {
		*err = cause // the loss of the lock ended the request that failed
	}
	switch {
	case *err == nil:
	case errors.Is(*err, ErrLockLost) && !moving:
		*err = fmt.Errorf("%w%s", *err, unchanged)
	case l.parent.Err() != nil && !moving:
		*err = fmt.Errorf("the publish was interrupted (%w)%s", *err, unchanged)
	case l.parent.Err() != nil:
		*err = fmt.Errorf("the publish was interrupted as or after it moved the pointer: %w", *err)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(l.parent), releaseTimeout)
	defer cancel()
	if rerr := l.release(ctx); rerr != nil {
		msg := fmt.Sprintf("the folder's publish lock could not be removed (%v): other publishes are refused until it expires at %s, unless they pass --break-lock", rerr, stamp(l.expiry()))
		if *err == nil {
			*err = errors.New("the snapshot is published, but " + msg)
		} else {
			*err = fmt.Errorf("%w; and %s", *err, msg)
		}
	}
}

// release removes the lock if it is still this publish's.
func (l *heldLock) release(ctx context.Context) error {
	cur, err := readLock(ctx, l.dst, LockKey)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, errBadLock) || err == nil && cur.ID != l.me.ID:
		return nil // not ours (any more)
	case err != nil:
		return err
	}
	return l.dst.DeleteObject(ctx, LockKey)
}
