package gitfs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/skillstore/skillstore/store"
)

// Sizes of a storage's object cache, and of the objects read whole into
// memory when read (larger ones are streamed from their pack).
const (
	objectCache = 32 << 20
	largeObject = 1 << 20
)

// storage is where a Repo keeps a repository's objects: go-git's
// filesystem storage over memory (memfs) or the cache folder. It holds a
// fetch's pack as it came, compressed, with an index, and inflates an
// object only when it is read: objects outside the skills path cost their
// packed size, not their size. Every pack a fetch brings is spooled and
// checked (checkPack) before go-git indexes it, since indexing inflates
// each object in turn.
type storage struct {
	*filesystem.Storage
	fs    billy.Filesystem
	limit int64 // on a pack's size, and on the sizes its objects declare
}

func newStorage(fsys billy.Filesystem, limit int64, exclusive bool) *storage {
	return &storage{
		Storage: filesystem.NewStorageWithOptions(fsys, cache.NewObjectLRU(objectCache),
			filesystem.Options{LargeObjectThreshold: largeObject, ExclusiveAccess: exclusive}),
		fs:    fsys,
		limit: limit,
	}
}

// ErrCorrupt reports an object whose content does not hash to the name it
// is stored under: a damaged or forged cache folder.
var ErrCorrupt = errors.New("an object does not match its hash")

// EncodedObject returns the object stored as h, checked as it is read:
// its reader fails at the end with ErrCorrupt if what it gave does not
// hash to h (commits and trees are read to the end as they are decoded;
// a file, as it is served). The index and objects of a cache folder are
// files that something else could have written.
func (s *storage) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, err := s.Storage.EncodedObject(t, h)
	if err != nil {
		return nil, err
	}
	return &verified{EncodedObject: o, want: h}, nil
}

type verified struct {
	plumbing.EncodedObject
	want plumbing.Hash
}

func (v *verified) Reader() (io.ReadCloser, error) {
	r, err := v.EncodedObject.Reader()
	if err != nil {
		return nil, err
	}
	return &hashReader{ReadCloser: r, h: plumbing.NewHasher(v.Type(), v.Size()), want: v.want}, nil
}

type hashReader struct {
	io.ReadCloser
	h    plumbing.Hasher
	want plumbing.Hash
}

func (r *hashReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	r.h.Write(p[:n])
	if err == io.EOF && r.h.Sum() != r.want {
		return n, ErrCorrupt
	}
	return n, err
}

// PackfileWriter takes the pack a fetch downloads (go-git hands a
// storer.PackfileWriter the pack as it came), refusing one over the limit.
func (s *storage) PackfileWriter() (io.WriteCloser, error) {
	f, err := s.fs.TempFile("", "incoming-pack-")
	if err != nil {
		return nil, err
	}
	return &packSpool{s: s, f: f}, nil
}

// packSpool holds an incoming pack until it is complete; Close checks it
// and only then hands it to go-git's storage.
type packSpool struct {
	s      *storage
	f      billy.File
	n      int64
	failed bool
}

func (p *packSpool) Write(b []byte) (int, error) {
	if p.n += int64(len(b)); p.n > p.s.limit {
		p.failed = true
		return 0, &overBudget{limit: p.s.limit}
	}
	n, err := p.f.Write(b)
	if err != nil {
		p.failed = true
	}
	return n, err
}

func (p *packSpool) Close() error {
	defer p.s.fs.Remove(p.f.Name())
	defer p.f.Close()
	if p.failed || p.n == 0 {
		return nil // the fetch fails with the write's error; or there was nothing to take
	}
	if _, err := p.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := checkPack(p.f, p.s.limit); err != nil {
		return err
	}
	if _, err := p.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	w, err := p.s.Storage.PackfileWriter()
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, p.f); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// checkPack reads a pack's object headers and refuses it (overBudget) as
// soon as the sizes they declare add up to more than limit — a delta
// counts its own size and its target's, read from its first bytes — so
// no object is ever inflated into memory past the limit. Objects are
// inflated only into a discarding writer, to find where the next begins
// (go-git's scanner refuses one longer than it declares).
func checkPack(r io.Reader, limit int64) error {
	sc := packfile.NewScanner(r)
	_, count, err := sc.Header()
	if err != nil {
		return err
	}
	left := limit
	for range count {
		h, err := sc.NextObjectHeader()
		if err != nil {
			return err
		}
		if left -= h.Length; left < 0 {
			return &overBudget{limit: limit}
		}
		if !h.Type.IsDelta() {
			continue // the next header's read discards it
		}
		var head deltaHead
		if _, _, err := sc.NextObject(&head); err != nil {
			return err
		}
		if left -= head.target(); left < 0 {
			return &overBudget{limit: limit}
		}
	}
	return nil
}

// deltaHead keeps a delta's first bytes (its base's size and its
// target's, as varints) and discards the rest.
type deltaHead struct {
	b [20]byte
	n int
}

func (d *deltaHead) Write(p []byte) (int, error) {
	d.n += copy(d.b[d.n:], p)
	return len(p), nil
}

// target is the size the delta declares for the object it makes.
func (d *deltaHead) target() int64 {
	_, rest := varint(d.b[:d.n])
	size, _ := varint(rest)
	return size
}

// varint decodes a delta header's size: 7 bits a byte, least significant
// first. A size too large for an int64 is math.MaxInt64.
func varint(b []byte) (int64, []byte) {
	var v int64
	for i, c := range b {
		if 7*i > 56 {
			return math.MaxInt64, nil
		}
		v |= int64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, b[i+1:]
		}
	}
	return v, nil
}

// Bounds on a commit's headers (all but its message), signature and
// merged tags included: a commit past either is refused before it is
// decoded, since go-git joins a header's continuation lines one string
// concatenation a line, in time that grows with lines × bytes (80,000
// lines of 3 bytes: 11 s). A 16 KiB SSH signature takes 240 lines.
const (
	MaxCommitHeaders     = 64 << 10
	MaxCommitHeaderLines = 1024
)

// checkHeaders refuses commit h if its headers pass MaxCommitHeaders or
// MaxCommitHeaderLines: a *store.VerifyError ("malformed") under a
// signer policy, else an *Error. A commit it cannot read is left for
// go-git to report.
func (r *Repo) checkHeaders(s storer.EncodedObjectStorer, h plumbing.Hash) error {
	obj, err := s.EncodedObject(plumbing.CommitObject, h)
	if err != nil {
		return nil
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil
	}
	defer rd.Close()
	head := make([]byte, MaxCommitHeaders+1)
	n, _ := io.ReadFull(rd, head)
	end := bytes.Index(head[:n], []byte("\n\n"))
	if end < 0 && n < len(head) {
		end = n // no message
	}
	if end >= 0 && bytes.Count(head[:end], []byte("\n")) < MaxCommitHeaderLines {
		return nil
	}
	why := fmt.Sprintf("its headers (signature, merged tags) are over %d bytes or %d lines, the limits", MaxCommitHeaders, MaxCommitHeaderLines)
	if r.verify == nil {
		return &Error{Location: r.shown, Detail: fmt.Sprintf("commit %s is refused: %s; fix the repository", short(h), why), public: true}
	}
	return &store.VerifyError{Reason: "malformed", Err: &Error{Location: r.shown,
		Detail: fmt.Sprintf("commit %s is not served: %s", short(h), why), public: true}}
}
