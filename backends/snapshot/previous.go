package snapshot

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/skillstore/skillstore/internal/sshsig"
)

// previous is the snapshot the pointer named when a publish began: the
// entries of files unchanged since are taken from it. It is kept in the
// compact form its manifest is read in (54 MB at 100,000 skills), each
// skill decoded when the publish comes to it; decoded whole, it took
// twice that.
type previous struct {
	id string
	c  *compact
}

// readPrevious reads the manifest p names, checked against p's digest.
// It returns nil, and the publish reads every file, when there is none,
// or it cannot be read or decoded: a broken snapshot is replaced, not
// trusted. It checks no signature: it is the previous snapshot of an
// unsigned publish, whose own snapshot anyone who can write to the
// folder can forge as well (base).
func readPrevious(ctx context.Context, dst Bucket, p *Pointer) *previous {
	if p == nil || p.Snapshot == "" {
		return nil
	}
	data, err := dst.ReadObject(ctx, manifestKey(p.Snapshot, p.Version), maxManifestBytes)
	if err != nil || Sum(data) != p.SHA256 {
		return nil
	}
	return previousOf(data, p.Snapshot)
}

// previousOf decodes the manifest data of snapshot id; nil if it does
// not decode or says it is another snapshot.
func previousOf(data []byte, id string) *previous {
	c, err := compactFrom(data)
	if err != nil || c.header.ID != id {
		return nil
	}
	return &previous{id: c.header.ID, c: c}
}

// base returns what a publish takes from the snapshots already in dst,
// whose pointer is p (nil for none): the previous snapshot, whose entries
// of unchanged files it may reuse (nil: every file is read), and the
// sequence it numbers its own after.
//
// A signed publish takes both from the newest snapshot whose signature
// verifies against its own key, or a key opts.Trusted lists, and from
// nothing else: the pointer is not signed, and a manifest's entries
// (digests, served digests, frontmatter, headings, findings) and
// sequence are copied into the new signed one, so someone who can write
// to the bucket but lacks the key could otherwise have their content, or
// a sequence no later publish can follow (2^64−1), signed by the next
// publish. That snapshot is the pointer's when it verifies, else the
// newest listed one that does; a snapshot listed as newer than the
// pointer's is checked too (the pointer may have been put back to an
// older one). Only manifests with a signature listed beside them are
// read. When none verifies (the folder's first signed publish, or one
// with a new key that opts.Trusted does not list), every file is read and
// the sequence follows the unverified one (lastSequence), which then
// only replicas that trust no snapshot of the folder compare against.
//
// An unsigned publish reuses the pointer's snapshot as it is
// (readPrevious) and follows its sequence: its own snapshot is no more
// to be trusted than the folder it is written to.
//
// The sequence is never wrapped: past 2^64−1 base fails, saying why.
func base(ctx context.Context, dst Bucket, p *Pointer, opts PublishOptions) (*previous, uint64, error) {
	if opts.Signer == nil {
		var prev *previous
		if !opts.Checksum {
			prev = readPrevious(ctx, dst, p)
		}
		seq, err := lastSequence(ctx, dst, p)
		if err == nil && seq == math.MaxUint64 {
			err = errNoSequence("the snapshot the folder serves", seq)
		}
		return prev, seq, err
	}
	trust := opts.Trusted.With("this publisher", opts.Signer.PublicKey())
	prev, err := newestVerified(ctx, dst, p, trust)
	if err != nil {
		return nil, 0, err
	}
	if prev == nil {
		seq, err := lastSequence(ctx, dst, p)
		if err == nil && seq == math.MaxUint64 {
			err = errNoSequence("the snapshot the folder serves, which is signed by no key this publish trusts,", seq)
		}
		return nil, seq, err
	}
	seq := prev.c.header.Sequence
	if seq == math.MaxUint64 {
		return nil, 0, errNoSequence("snapshot "+prev.id, seq)
	}
	if opts.Checksum {
		prev = nil
	}
	return prev, seq, nil
}

// errNoSequence is base's error when the sequence to follow is the
// largest there is.
func errNoSequence(what string, seq uint64) error {
	return fmt.Errorf("%s has sequence %d, the largest there is: no later snapshot can be numbered, and replicas refuse a lower number as a replay; "+
		"if nobody you trust published it, someone else wrote to the folder: publish to a new folder (prefix), and point the replicas at it", what, seq)
}

// newestVerified returns the newest snapshot in dst whose manifest's
// signature trust verifies: the one p names, or one listed as published
// after it (all of them, newest first, when p's does not verify); nil
// when none does. It fails only when dst cannot be listed.
func newestVerified(ctx context.Context, dst Bucket, p *Pointer, trust *sshsig.AllowedSigners) (*previous, error) {
	var found *previous
	after := ""
	if p != nil && p.Snapshot != "" {
		key := manifestKey(p.Snapshot, p.Version)
		if data, err := dst.ReadObject(ctx, key, maxManifestBytes); err == nil && Sum(data) == p.SHA256 {
			if found = verifiedPrevious(ctx, dst, key, p.Snapshot, data, trust); found != nil {
				after = found.id
			}
		}
	}
	keys, err := listKeys(ctx, dst, Dir+"/snapshots/")
	if err != nil {
		return nil, err
	}
	var ids []string
	for key := range keys {
		if id, _, ok := manifestID(key); ok && id > after {
			if _, signed := keys[signatureKey(key)]; signed {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	for i := len(ids) - 1; i >= 0; i-- { // IDs start with their time: newest first
		key := listedManifest(keys, ids[i])
		data, err := dst.ReadObject(ctx, key, maxManifestBytes)
		if err != nil {
			continue
		}
		if v := verifiedPrevious(ctx, dst, key, ids[i], data, trust); v != nil {
			return v, nil
		}
	}
	return found, nil
}

// verifiedPrevious decodes data, the manifest of snapshot id read from
// key, if the signature beside it verifies against trust; else nil.
func verifiedPrevious(ctx context.Context, dst Bucket, key, id string, data []byte, trust *sshsig.AllowedSigners) *previous {
	sig, err := dst.ReadObject(ctx, signatureKey(key), sshsig.MaxSignatureBytes)
	if err != nil {
		return nil
	}
	if _, err := trust.VerifySHA256(data, sha256.Sum256(data), sig, SignatureNamespace, time.Now()); err != nil {
		return nil
	}
	return previousOf(data, id)
}

// files counts the previous snapshot's files (0 for none).
func (p *previous) files() int {
	n := 0
	if p != nil {
		for i := range p.c.records {
			n += p.c.record(i).files
		}
	}
	return n
}

// skill returns the index of skill dir, if the previous snapshot has it
// with the same document (its entries, frontmatter and findings depend
// on which file is the document); -1 if not.
func (p *previous) skill(dir, docPath string) int {
	if p == nil {
		return -1
	}
	i, ok := p.c.skill(dir)
	if !ok || p.c.record(i).docPath != docPath {
		return -1
	}
	return i
}

// record returns skill i's record (i from skill, not -1).
func (p *previous) record(i int) record { return p.c.record(i) }

// file returns the entry of path rel in skill i (an index skill gave).
func (p *previous) file(i int, rel string) (File, bool) {
	if i < 0 {
		return File{}, false
	}
	return p.c.file(p.c.record(i), rel, true)
}
