package snapshot

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"sort"
	"strings"
	"sync"
	"time"
)

// listed is what a listing says of an object.
type listed struct {
	size    int64
	modTime time.Time
}

// listKeys lists the keys under prefix.
func listKeys(ctx context.Context, b Bucket, prefix string) (map[string]listed, error) {
	keys := map[string]listed{}
	err := b.WalkObjects(ctx, prefix, func(o ObjectInfo) error {
		keys[o.Key] = listed{o.Size, o.ModTime}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the bucket: %w", err)
	}
	return keys, nil
}

// blobsPrefix is the prefix of every blob's key.
const blobsPrefix = Dir + "/blobs/"

// digest is a SHA-256, the name of a blob.
type digest [32]byte

// blob is what a publish knows of a blob.
type blob struct {
	size     int64
	modTime  int64 // Unix nanoseconds: when it was written
	used     bool  // by a snapshot kept
	previous bool  // by the previous snapshot (see blobSet.usePrevious)
	uploaded bool  // by this publish
	told     bool  // and a file of it told of as uploaded
}

// blobSet is the blobs of a bucket, as listed when a publish began, and
// those it uploaded since: what need not be uploaded, and what to
// collect. It holds about 60 bytes a blob.
type blobSet struct {
	mu       sync.Mutex
	blobs    map[digest]blob
	others   map[string]int64 // keys under blobsPrefix that name no digest, and their times
	previous string           // the ID of the snapshot whose blobs are marked previous
	keepPrev bool             // that snapshot is kept: its blobs are used
}

func newBlobSet(size int) *blobSet {
	return &blobSet{blobs: make(map[digest]blob, size), others: map[string]int64{}}
}

// parseDigest returns the digest sum names (64 lower-case hex digits).
func parseDigest(sum string) (digest, bool) {
	var d digest
	if len(sum) != 64 || strings.ToLower(sum) != sum {
		return d, false
	}
	_, err := hex.Decode(d[:], []byte(sum))
	return d, err == nil
}

// add records a listed object.
func (s *blobSet) add(o ObjectInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sum := strings.TrimPrefix(o.Key, blobsPrefix)
	if d, ok := parseDigest(sum[min(3, len(sum)):]); ok && o.Key == BlobKey(sum[3:]) {
		s.blobs[d] = blob{size: o.Size, modTime: o.ModTime.UnixNano()}
		return
	}
	s.others[o.Key] = o.ModTime.UnixNano()
}

// has reports whether the bucket holds the blob sum, of size bytes.
func (s *blobSet) has(sum string, size int64) bool {
	d, ok := parseDigest(sum)
	if !ok {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.blobs[d]
	return ok && b.size == size
}

// claim reports whether blob sum, of size bytes, is to be uploaded: the
// bucket lacks it (or holds one of another size), and no transfer has
// claimed it yet. A claimed blob counts as held from then on.
func (s *blobSet) claim(sum string, size int64) bool {
	d, ok := parseDigest(sum)
	if !ok {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.blobs[d]; ok && b.size == size {
		return false
	}
	s.blobs[d] = blob{size: size, modTime: time.Now().UnixNano(), uploaded: true}
	return true
}

// outcome says what became of a file read whose content is blob sum:
// FileUploaded for the first file of content this publish uploaded that
// it is asked about, FileStored for the others. Asked in the order of
// the files, it names the same file uploaded whichever transfer
// uploaded it.
func (s *blobSet) outcome(sum string) FileOutcome {
	d, ok := parseDigest(sum)
	if !ok {
		return FileUploaded
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.blobs[d]
	if !b.uploaded || b.told {
		return FileStored
	}
	b.told = true
	s.blobs[d] = b
	return FileUploaded
}

// use marks the blobs of the digests given as used.
func (s *blobSet) use(digests iter.Seq[digest]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mark(digests, func(b *blob) { b.used = true })
}

// mark calls set for each listed blob of the digests given (s.mu held).
func (s *blobSet) mark(digests iter.Seq[digest], set func(*blob)) {
	for d := range digests {
		if b, ok := s.blobs[d]; ok {
			set(&b)
			s.blobs[d] = b
		}
	}
}

// usePrevious marks the blobs of p, the previous snapshot, so that
// collecting needs not read its manifest again: they are used if it is
// kept.
func (s *blobSet) usePrevious(p *previous) {
	if p == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.previous = p.id
	s.mark(p.c.digests(), func(b *blob) { b.previous = true })
}

// fileDigests yields the digests of sk's files (those that parse).
func fileDigests(sk *Skill) iter.Seq[digest] {
	return func(yield func(digest) bool) {
		for _, f := range sk.Files {
			if d, ok := parseDigest(f.SHA256); ok && !yield(d) {
				return
			}
		}
	}
}

// shardAbove is the number of blobs above which a listing goes shard by
// shard: one listing of each of the 16 prefixes of blobs/ (the first
// digit of the digest), or above shard256 of each of its 256 folders
// (the first two), several at once. Listing a whole folder with
// gocloud's fileblob walks it again for each page of 1,000 keys, which
// takes minutes at 300,000 blobs; and one listing goes one page at a
// time, where shards go several at once.
var (
	shardAbove = 10_000
	shard256   = 64_000
)

// listBlobs lists the bucket's blobs, with up to workers listings at
// once. expect is how many blobs the bucket is thought to hold (the
// files of the previous snapshot): above shardAbove, the listing goes
// shard by shard, and it does so too when a whole listing finds more
// than that. A sharded listing misses keys under blobs/ outside the
// 256 folders, which no publish writes, so they are never collected.
func listBlobs(ctx context.Context, b Bucket, workers, expect int) (*blobSet, error) {
	errMany := errors.New("many blobs")
	if expect <= shardAbove {
		s := newBlobSet(expect)
		err := b.WalkObjects(ctx, blobsPrefix, func(o ObjectInfo) error {
			if len(s.blobs)+len(s.others) >= shardAbove {
				return errMany
			}
			s.add(o)
			return nil
		})
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, errMany) {
			return nil, fmt.Errorf("listing the bucket: %w", err)
		}
		expect = 2 * shardAbove
	}
	s := newBlobSet(expect)
	digits := 1
	if expect > shard256 {
		digits = 2
	}
	err := forEach(ctx, workers, 1<<(4*digits), func(ctx context.Context, i int) error {
		prefix := fmt.Sprintf("%s%0*x", blobsPrefix, digits, i)
		if digits == 2 {
			prefix += "/"
		}
		return b.WalkObjects(ctx, prefix, func(o ObjectInfo) error {
			s.add(o)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("listing the bucket: %w", err)
	}
	return s, nil
}

// collect removes the snapshots beyond opts.Keep, newest first, and the
// content no kept snapshot uses, among blobs (the listing the publish
// began with, and what it uploaded: content uploaded since by another
// publish is left alone), current's blobs marked used; with
// opts.DeleteOutside, also every object outside Dir. It never removes
// the snapshot the pointer names now (another publish may have moved
// it), one newer than current, or anything younger than opts.Grace.
// Blobs are removed opts.Transfers at once. It removes no content at all
// while a snapshot it keeps has a manifest it cannot read (of a newer
// format, or broken): it cannot tell what that one uses.
//
// held reports whether this publish still holds the folder's lock; it is
// asked just before anything is removed, and collect removes nothing if
// it does not. That, not collect, is what protects a publish under way:
// it may skip uploading content the bucket holds, older than Grace and
// used by no manifest yet, which only its own manifest, not yet written,
// will name. Without the lock (a store whose create-if-absent is not one
// step, or a lock broken under a running publish) that content can still
// be removed between that publish's listing and its manifest.
func collect(ctx context.Context, b Bucket, current string, opts PublishOptions, r *Report, obs Observer, blobs *blobSet, held func(context.Context) error) error {
	gone, listed, unsure, err := plan(ctx, b, current, opts, r, blobs)
	if err != nil {
		return err
	}
	if err := held(ctx); err != nil {
		return fmt.Errorf("snapshot %s is published, but nothing was removed: %w", current, err)
	}
	for _, id := range gone {
		obs.RemovingSnapshot(id)
		key := listedManifest(listed, id)
		if err := b.DeleteObject(ctx, key); err != nil {
			return fmt.Errorf("removing snapshot %s: %w", id, err)
		}
		if _, signed := listed[signatureKey(key)]; signed {
			if err := b.DeleteObject(ctx, signatureKey(key)); err != nil {
				return fmt.Errorf("removing the signature of snapshot %s: %w", id, err)
			}
		}
		r.Removed++
	}
	if unsure {
		return nil // a kept snapshot's blobs are unknown: none is removed
	}
	before := time.Now().Add(-opts.Grace).UnixNano()
	var unused []string
	for d, o := range blobs.blobs {
		if !o.used && !(o.previous && blobs.keepPrev) && o.modTime <= before {
			unused = append(unused, BlobKey(hex.EncodeToString(d[:])))
		}
	}
	for key, modTime := range blobs.others {
		if modTime <= before {
			unused = append(unused, key)
		}
	}
	err = forEach(ctx, opts.Transfers, len(unused), func(ctx context.Context, i int) error {
		if err := b.DeleteObject(ctx, unused[i]); err != nil {
			return fmt.Errorf("removing %s: %w", unused[i], err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if opts.DeleteOutside {
		return deleteOutside(ctx, b, r, obs)
	}
	return nil
}

// plan reads the bucket's snapshots, one at a time, and returns those to
// remove, newest first, and the keys listed under snapshots/ (manifests
// and signatures); it marks the blobs the kept ones use, and sets
// r.Kept. unsure says a kept snapshot's manifest could not be read, so
// the blobs it uses are unknown.
func plan(ctx context.Context, b Bucket, current string, opts PublishOptions, r *Report, blobs *blobSet) (gone []string, manifests map[string]listed, unsure bool, err error) {
	manifests, err = listKeys(ctx, b, Dir+"/snapshots/")
	if err != nil {
		return nil, nil, false, err
	}
	live := current
	if ptr, err := readPointer(ctx, b); err == nil && ptr != nil && ptr.Snapshot != "" {
		live = ptr.Snapshot
	}
	var ids []string
	for key := range manifests {
		if id, _, ok := manifestID(key); ok {
			ids = append(ids, id)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(ids))) // IDs start with their time: newest first
	kept := 1                                      // the current snapshot
	for _, id := range ids {
		if id == current {
			continue
		}
		key := listedManifest(manifests, id)
		young := time.Since(manifests[key].modTime) < opts.Grace
		if kept >= opts.Keep && id != live && id < current && !young {
			gone = append(gone, id)
			continue
		}
		if id == blobs.previous { // read as the publish began
			blobs.keepPrev = true
			kept++
			continue
		}
		err := useSnapshot(ctx, b, key, id, blobs)
		var fe *formatError
		switch {
		case errors.As(err, &fe) && !errors.Is(err, errOtherVersion) && id != live && !young:
			gone = append(gone, id) // unreadable: of no use to a reader
			continue
		case errors.As(err, &fe):
			unsure = true // a newer publish's, or one a newer reader reads
			continue
		case err != nil:
			return nil, nil, false, err
		}
		kept++
	}
	r.Kept = kept
	return gone, manifests, unsure, nil
}

// formatError is useSnapshot's error for a manifest that does not decode.
type formatError struct{ err error }

func (e *formatError) Error() string { return e.err.Error() }
func (e *formatError) Unwrap() error { return e.err }

// useSnapshot reads snapshot id's manifest, at key, and marks the blobs
// it uses; a *formatError if it does not decode. Nothing of it is kept.
func useSnapshot(ctx context.Context, b Bucket, key, id string, blobs *blobSet) error {
	data, err := b.ReadObject(ctx, key, maxManifestBytes)
	if err != nil {
		return fmt.Errorf("reading snapshot %s: %w", id, err)
	}
	c, err := compactFrom(data) // not decoded: 100,000 skills' files as values are twice its size
	if err != nil {
		return &formatError{err}
	}
	blobs.use(c.digests())
	return nil
}

// listedManifest returns the key of snapshot id's manifest among the
// keys listed under snapshots/: of the format version it was written in.
func listedManifest(listed map[string]listed, id string) string {
	if _, ok := listed[manifestKey(id, 1)]; ok {
		return manifestKey(id, 1)
	}
	return ManifestKey(id)
}

// deleteOutside deletes every object outside Dir.
func deleteOutside(ctx context.Context, b Bucket, r *Report, obs Observer) error {
	all, err := listKeys(ctx, b, "")
	if err != nil {
		return err
	}
	for key := range all {
		if !strings.HasPrefix(key, Dir+"/") {
			obs.DeletingObject(key)
			if err := b.DeleteObject(ctx, key); err != nil {
				return fmt.Errorf("deleting %s: %w", key, err)
			}
			r.Deleted++
		}
	}
	return nil
}
