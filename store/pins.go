package store

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"path"
	"sync"
)

// Pins restricts a store to the skills a lock pins, with the bytes it
// names (Options.Pins; serve --lock). The store declares it, so it
// imports no lock format.
type Pins interface {
	// Pinned reports whether a skill called name may be served. A copy
	// of a skill that is not pinned is left out of the catalog silently,
	// as though no source held it: it neither serves, shadows nor is
	// reported.
	Pinned(name string) bool
	// Verify reports whether copy sk of a pinned skill is the one pinned:
	// nil, or an error saying how it differs, in words that name no host
	// path (they become the Problem's message and what a caller reading
	// the skill is told). files reads sk's files as the store serves
	// them. It runs while a catalog is built, never on a request.
	Verify(ctx context.Context, sk *Skill, files *SkillFiles) error
}

// ErrNotPinned is wrapped, beside ErrSkillInvalid, by the errors of a
// skill withheld because its copy is not the one Options.Pins pins (its
// files or its version differ).
var ErrNotPinned = errors.New("the skill is not the copy its lock pins")

// SkillFiles are the files of one copy of a skill as the store serves
// them (View.Files), for Pins.Verify.
type SkillFiles struct {
	// List is the skill's files, sorted by path (FileInfo.Path; the
	// document under Skill.DocPath).
	List []FileInfo

	s      *Store
	sk     *Skill
	mu     sync.Mutex
	failed bool // a read failed: the verdict is not remembered
}

// Read returns the bytes of file p of List as stored, read from the
// skill's snapshot without filling the cache. Its errors are the store's
// (*Error): they name no host path.
func (f *SkillFiles) Read(ctx context.Context, p string) ([]byte, error) {
	e, err := f.s.read(ctx, f.sk, p, f.sk.Name, false)
	if err != nil {
		f.mu.Lock()
		f.failed = true
		f.mu.Unlock()
		return nil, err
	}
	return []byte(e.raw), nil
}

// pinKey is one version of a copy of a skill as Pins.Verify saw it: its
// source and folder, the source's revision and snapshot, the registry
// version, and the size and time of every file.
type pinKey struct {
	src      int32
	folder   string
	revision string
	gen      uint64
	version  string // SkillVersion's ID and digest
	files    [sha256.Size]byte
}

// pinVerdicts remembers Pins.Verify's answers of the last catalog built,
// so that a rebuild verifies only the copies that changed since. It holds
// one entry per pinned copy the last build saw: bounded by the lock.
type pinVerdicts struct {
	mu sync.Mutex
	m  map[pinKey]error
}

// verifyPins returns, for every copy of a skill in results that the pins
// do not serve, the Problem it is left out with, or nil for a copy left
// out silently (not pinned). Copies are verified Concurrency at a time;
// a copy whose version was verified by the last build is not read again.
// Every copy a catalog serves is verified before the catalog is.
func (s *Store) verifyPins(ctx context.Context, results []*sourceResult) map[*Skill]*Problem {
	pins := s.opts.Pins
	var copies []*Skill
	out := map[*Skill]*Problem{}
	for _, r := range results {
		if r.problem != nil {
			continue
		}
		for _, f := range r.found {
			switch {
			case f.skill == nil:
			case !pins.Pinned(f.skill.Name):
				out[f.skill] = nil
			default:
				copies = append(copies, f.skill)
			}
		}
	}
	s.pinned.mu.Lock()
	old := s.pinned.m
	s.pinned.mu.Unlock()
	keys := make([]pinKey, len(copies))
	verdicts := make([]error, len(copies))
	keep := make([]bool, len(copies))
	s.concurrently(len(copies), func(k int) {
		sk := copies[k]
		list, err := s.files(ctx, sk)
		if err != nil {
			why := unavailableDetail
			if se := (*Error)(nil); errors.As(err, &se) {
				why = se.reason()
			}
			verdicts[k] = errors.New("its files could not be listed to check them against the lock: " + why)
			return
		}
		keys[k] = pinKeyOf(sk, list)
		if v, ok := old[keys[k]]; ok {
			verdicts[k], keep[k] = v, true
			return
		}
		files := &SkillFiles{List: list, s: s, sk: sk}
		verdicts[k] = pins.Verify(ctx, sk, files)
		keep[k] = !files.failed && ctx.Err() == nil
	})
	now := make(map[pinKey]error, len(copies))
	for k, sk := range copies {
		if keep[k] {
			now[keys[k]] = verdicts[k]
		}
		if err := verdicts[k]; err != nil {
			e := &Error{Kind: ErrSkillInvalid, Skill: sk.Name, Detail: err.Error(), cause: ErrNotPinned}
			out[sk] = &Problem{Source: *sk.Source, Skill: sk.Name, Message: e.reason(), err: e}
		}
	}
	s.pinned.mu.Lock()
	s.pinned.m = now
	s.pinned.mu.Unlock()
	return out
}

// pinKeyOf is the key of copy sk whose folder lists files.
func pinKeyOf(sk *Skill, files []FileInfo) pinKey {
	k := pinKey{src: sk.src, folder: sk.Folder(), revision: sk.Revision(), gen: sk.gen}
	if p := sk.Provenance; p != nil && p.Version != nil {
		k.version = p.Version.ID + "\x00" + p.Version.Digest
	}
	h := sha256.New()
	var n [8]byte
	for _, f := range files {
		h.Write([]byte(path.Clean(f.Path)))
		h.Write([]byte{0})
		binary.LittleEndian.PutUint64(n[:], uint64(f.Size))
		h.Write(n[:])
		binary.LittleEndian.PutUint64(n[:], uint64(unixNano(f.ModTime)))
		h.Write(n[:])
		h.Write([]byte(f.SHA256))
		h.Write([]byte{0})
	}
	h.Sum(k.files[:0])
	return k
}
