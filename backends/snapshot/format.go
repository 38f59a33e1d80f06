package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"path"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/skillstore/skillstore/internal/hidden"
)

// The manifest of format version 2, which Publish writes, is compact and
// binary, so a replica indexes a catalog of 100,000 skills in
// milliseconds and keeps it in about the bytes it read. It is:
//
//	magic2                          "skillstore snapshot 2\n"
//	uvarint n, header               n bytes of JSON: version, id, published, sequence, scanner, skills
//	one record per skill, sorted by folder name (each name once):
//	  uvarint n, record             n bytes:
//	    str dir, str docPath, str frontmatter, str headings,
//	    str findings                (a JSON array of hidden.Finding, or empty)
//	    uvarint files, then per file, sorted by path (each path once):
//	      str path, uvarint size, byte flags,
//	      [varint modTime]          UnixNano, when flags&flagModTime
//	      [32]byte sha256
//	      [[32]byte served, uvarint servedSize]  when flags&flagServed
//
// where str is a uvarint length and that many bytes. Nothing follows the
// last record. A reader checks the framing and every record at load (a
// clean, sorted, unique folder and file names; a document among the
// files; findings naming listed files) and then answers from the bytes:
// a skill's file list is decoded when it is asked for, never kept. MD5s,
// needed only to upload, are not recorded.
const magic2 = "skillstore snapshot 2\n"

const (
	flagServed  = 1 << 0
	flagModTime = 1 << 1
)

// header2 is a version 2 manifest's header.
type header2 struct {
	Version   int       `json:"version"`
	ID        string    `json:"id"`
	Published time.Time `json:"published"`
	Sequence  uint64    `json:"sequence,omitempty"`
	Scanner   int       `json:"scanner,omitempty"`
	Skills    int       `json:"skills"`
}

// encode2 returns the manifest whose header is h and whose records are
// m's skills, which must be sorted by Dir, each with its Files sorted by
// path, in one buffer sized from m. It is Manifest.Encode's (tools,
// tests, and readers converting a version 1 manifest): Publish encodes
// its manifest a skill at a time (records).
func encode2(h header2, m *Manifest) ([]byte, error) {
	head, err := header(h)
	if err != nil {
		return nil, err
	}
	size := len(head)
	for _, sk := range m.Skills {
		size += 7*binary.MaxVarintLen64 + len(sk.Dir) + len(sk.DocPath) + len(sk.Frontmatter) + len(sk.Headings) + 128*len(sk.Findings)
		for _, f := range sk.Files {
			size += len(f.Path) + 4*binary.MaxVarintLen64 + 1 + 2*sha256.Size
		}
	}
	r := records{chunks: [][]byte{append(make([]byte, 0, size), head...)}}
	for i := range m.Skills {
		if err := r.add(&m.Skills[i]); err != nil {
			return nil, err
		}
	}
	if len(r.chunks) == 1 {
		return r.chunks[0], nil
	}
	return bytes.Join(r.chunks, nil), nil // findings took more than the estimate
}

// header returns the magic line and header h, as a manifest starts.
func header(h header2) ([]byte, error) {
	hj, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	head := make([]byte, 0, len(magic2)+binary.MaxVarintLen64+len(hj))
	head = append(head, magic2...)
	head = binary.AppendUvarint(head, uint64(len(hj)))
	return append(head, hj...), nil
}

// records are the records of a version 2 manifest, encoded one skill at
// a time as a publish finishes each, in chunks of about recordChunk
// bytes, a record never split: a manifest of 100,000 skills (54 MB) is
// held once, as its bytes, never as Go values of every skill and file
// beside them, and it grows without copies.
type records struct {
	chunks [][]byte
	n      int    // records added
	rec    []byte // scratch: the record being encoded
}

// recordChunk is the size of a records chunk (a variable for tests).
var recordChunk = 4 << 20

// add encodes sk as the next record. The caller keeps the format's
// order (skills by Dir, each skill's Files by path) and Manifest.check's
// rules.
func (r *records) add(sk *Skill) error {
	rec, err := appendRecord(r.rec[:0], sk)
	if err != nil {
		return err
	}
	r.rec = rec
	need := binary.MaxVarintLen64 + len(rec)
	if n := len(r.chunks); n == 0 || cap(r.chunks[n-1])-len(r.chunks[n-1]) < need {
		r.chunks = append(r.chunks, make([]byte, 0, max(recordChunk, need)))
	}
	c := &r.chunks[len(r.chunks)-1]
	*c = binary.AppendUvarint(*c, uint64(len(rec)))
	*c = append(*c, rec...)
	r.n++
	return nil
}

// pieces returns the manifest whose header is h as the pieces that,
// joined, are its bytes: the magic line and header, then the records'
// chunks (shared, not copied).
func (r *records) pieces(h header2) ([][]byte, error) {
	head, err := header(h)
	if err != nil {
		return nil, err
	}
	return append([][]byte{head}, r.chunks...), nil
}

// appendRecord appends sk's record, without its length, to rec.
func appendRecord(rec []byte, sk *Skill) ([]byte, error) {
	rec = appendStr(rec, sk.Dir)
	rec = appendStr(rec, sk.DocPath)
	rec = appendStr(rec, sk.Frontmatter)
	rec = appendStr(rec, sk.Headings)
	var findings []byte
	if len(sk.Findings) > 0 {
		var err error
		if findings, err = json.Marshal(sk.Findings); err != nil {
			return nil, err
		}
	}
	rec = appendStr(rec, string(findings))
	rec = binary.AppendUvarint(rec, uint64(len(sk.Files)))
	for _, f := range sk.Files {
		if f.Size < 0 || f.ServedSize < 0 {
			return nil, fmt.Errorf("file %s of skill %s has a negative size", f.Path, sk.Dir)
		}
		sum, ok := parseDigest(f.SHA256)
		if !ok {
			return nil, fmt.Errorf("file %s of skill %s: its digest is not a lower-case hex SHA-256", f.Path, sk.Dir)
		}
		rec = appendStr(rec, f.Path)
		rec = binary.AppendUvarint(rec, uint64(f.Size))
		var flags byte
		if f.Served != "" {
			flags |= flagServed
		}
		if !f.ModTime.IsZero() {
			flags |= flagModTime
		}
		rec = append(rec, flags)
		if flags&flagModTime != 0 {
			rec = binary.AppendVarint(rec, f.ModTime.UnixNano())
		}
		rec = append(rec, sum[:]...)
		if flags&flagServed != 0 {
			served, ok := parseDigest(f.Served)
			if !ok {
				return nil, fmt.Errorf("file %s of skill %s: its served digest is not a lower-case hex SHA-256", f.Path, sk.Dir)
			}
			rec = append(rec, served[:]...)
			rec = binary.AppendUvarint(rec, uint64(f.ServedSize))
		}
	}
	return rec, nil
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// errFormat is the error of a version 2 manifest whose bytes do not
// follow the format.
var errFormat = errors.New("the manifest is truncated or malformed")

// decoder reads the fields of a version 2 manifest. Strings it returns
// share the manifest's bytes, which must never be modified.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.err = errFormat
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b[d.off:])
	if n <= 0 {
		d.err = errFormat
		return 0
	}
	d.off += n
	return v
}

// bytes returns the next n bytes.
func (d *decoder) bytes(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)-d.off) {
		d.err = errFormat
		return nil
	}
	b := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return b
}

// str returns the next string, sharing the manifest's bytes.
func (d *decoder) str() string {
	b := d.bytes(d.uvarint())
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func (d *decoder) byte() byte {
	b := d.bytes(1)
	if b == nil {
		return 0
	}
	return b[0]
}

// record is one skill's record: its fields, and where its file list
// starts in the manifest's bytes.
type record struct {
	dir, docPath, frontmatter, headings, findings string
	files                                         int // the number of files
	filesAt                                       int // the offset of the first
	end                                           int // the offset after the last
}

// readRecord decodes the record at d's offset, up to its file list.
func (d *decoder) readRecord() record {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)-d.off) {
		d.err = errFormat
	}
	if d.err != nil {
		return record{}
	}
	end := d.off + int(n)
	r := record{dir: d.str(), docPath: d.str(), frontmatter: d.str(), headings: d.str(), findings: d.str()}
	nf := d.uvarint()
	if nf > uint64(end-d.off) { // each file takes more than a byte
		d.err = errFormat
	}
	r.files, r.filesAt, r.end = int(nf), d.off, end
	return r
}

// readEntry decodes the file entry at d's offset, with its digests or,
// when a caller needs only the path, size and time, without.
func (d *decoder) readEntry(digests bool) File {
	f := File{Path: strings.Clone(d.str()), Size: int64(d.uvarint())} // a copy: callers keep it
	flags := d.byte()
	if flags&flagModTime != 0 {
		f.ModTime = time.Unix(0, d.varint()).UTC()
	}
	if sum := d.bytes(sha256.Size); digests {
		f.SHA256 = hex.EncodeToString(sum)
	}
	if flags&flagServed != 0 {
		if sum := d.bytes(sha256.Size); digests {
			f.Served = hex.EncodeToString(sum)
		}
		f.ServedSize = int64(d.uvarint())
	}
	if f.Size < 0 || f.ServedSize < 0 || flags&^(flagServed|flagModTime) != 0 {
		d.err = errFormat
	}
	return f
}

// skipFile steps over the file entry at d's offset, checking its framing
// as readEntry does, and returns its path and raw SHA-256 (sharing the
// manifest's bytes).
func (d *decoder) skipFile() (p string, sum []byte) {
	p = d.str()
	if size := d.uvarint(); size > math.MaxInt64 {
		d.err = errFormat
	}
	flags := d.byte()
	if flags&^(flagServed|flagModTime) != 0 {
		d.err = errFormat
	}
	if flags&flagModTime != 0 {
		d.varint()
	}
	sum = d.bytes(sha256.Size)
	if flags&flagServed != 0 {
		d.bytes(sha256.Size)
		if size := d.uvarint(); size > math.MaxInt64 {
			d.err = errFormat
		}
	}
	return p, sum
}

// compact is a version 2 manifest as a reader keeps it: its bytes, its
// header, and where each skill's record starts.
type compact struct {
	data    []byte
	header  header2
	records []uint32 // offsets of the records, in folder order (a manifest is under maxManifestBytes)
}

// parseCompact checks a version 2 manifest whole and indexes its records.
func parseCompact(data []byte) (*compact, error) {
	if !bytes.HasPrefix(data, []byte(magic2)) {
		return nil, errors.New("not a format 2 manifest")
	}
	d := &decoder{b: data, off: len(magic2)}
	hb := d.bytes(d.uvarint())
	if d.err != nil {
		return nil, errFormat
	}
	c := &compact{data: data}
	if err := json.Unmarshal(hb, &c.header); err != nil {
		return nil, fmt.Errorf("the manifest's header: %v", err)
	}
	if c.header.Version != 2 {
		return nil, fmt.Errorf("%w (%d)", errOtherVersion, c.header.Version)
	}
	if c.header.Skills < 0 || c.header.Skills > len(data) {
		return nil, errFormat
	}
	if len(data) > maxManifestBytes {
		return nil, fmt.Errorf("the manifest is over %d MiB", maxManifestBytes>>20)
	}
	c.records = make([]uint32, 0, c.header.Skills)
	var paths []string // one skill's, reused
	last := ""         // the previous record's folder
	for d.off < len(data) {
		at := d.off
		r := d.readRecord()
		if d.err != nil {
			return nil, d.err
		}
		if err := c.checkRecord(d, r, last, &paths); err != nil {
			return nil, err
		}
		c.records = append(c.records, uint32(at))
		last = r.dir
	}
	if len(c.records) != c.header.Skills {
		return nil, fmt.Errorf("the manifest lists %d skills; its header says %d: it is truncated", len(c.records), c.header.Skills)
	}
	return c, nil
}

// checkRecord checks one record as Manifest.check checks a skill, and
// that it follows the previous one, in folder last ("" for none), in
// folder order, leaving d after it.
func (c *compact) checkRecord(d *decoder, r record, last string, paths *[]string) error {
	if r.dir == "" || r.dir[0] == '.' || !validPath(r.dir) || path.Base(r.dir) != r.dir {
		return errors.New("manifest names a bad skill folder")
	}
	if len(c.records) > 0 && last >= r.dir {
		return errors.New("manifest lists skill " + r.dir + " out of order or twice")
	}
	if r.docPath != path.Base(r.docPath) || !validPath(r.docPath) {
		return errors.New("manifest names a bad document in skill " + r.dir)
	}
	*paths = (*paths)[:0]
	for range r.files {
		p, _ := d.skipFile() // checks the entry's framing without decoding it
		if d.err != nil {
			return d.err
		}
		if !validPath(p) {
			return errors.New("manifest names a bad file path in skill " + r.dir)
		}
		if n := len(*paths); n > 0 && (*paths)[n-1] >= p {
			return errors.New("manifest lists a file out of order or twice in skill " + r.dir)
		}
		*paths = append(*paths, p)
	}
	if d.off != r.end {
		return errFormat
	}
	has := func(p string) bool {
		i := sort.SearchStrings(*paths, p)
		return i < len(*paths) && (*paths)[i] == p
	}
	for _, p := range *paths { // a name is a file or a folder, not both
		for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
			if has(dir) {
				return errors.New("manifest names " + dir + " as both a file and a folder in skill " + r.dir)
			}
		}
	}
	if r.findings != "" {
		var fs []hidden.Finding
		if err := json.Unmarshal([]byte(r.findings), &fs); err != nil {
			return errors.New("manifest has unreadable findings in skill " + r.dir)
		}
		for _, f := range fs {
			if !has(f.Path) {
				return errors.New("manifest names hidden text in a file it does not list in skill " + r.dir)
			}
		}
	}
	return nil
}

// record returns skill i's record.
func (c *compact) record(i int) record {
	d := &decoder{b: c.data, off: int(c.records[i])}
	return d.readRecord() // checked at parse
}

// dir returns skill i's folder name (sharing the manifest's bytes): the
// string after the record's length, both checked at parse. It is on the
// path of every lookup (a binary search probes 17 names at 100,000
// skills), so it reads the two lengths directly.
func (c *compact) dir(i int) string {
	b := c.data[c.records[i]:]
	_, n := binary.Uvarint(b)
	l, m := binary.Uvarint(b[n:])
	if l == 0 {
		return ""
	}
	return unsafe.String(&b[n+m], int(l))
}

// skill returns the index of the skill in folder dir.
func (c *compact) skill(dir string) (int, bool) {
	lo, hi := 0, len(c.records)
	for lo < hi {
		if mid := int(uint(lo+hi) >> 1); c.dir(mid) < dir {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(c.records) && c.dir(lo) == dir
}

// files calls fn for each file of record r, in path order, until fn
// returns false.
func (c *compact) files(r record, fn func(File) bool) {
	d := &decoder{b: c.data, off: r.filesAt}
	for range r.files {
		if !fn(d.readEntry(true)) {
			return
		}
	}
}

// digests yields the SHA-256 of every file of every skill, in order.
func (c *compact) digests() iter.Seq[digest] {
	return func(yield func(digest) bool) {
		for i := range c.records {
			r := c.record(i)
			d := &decoder{b: c.data, off: r.filesAt}
			for range r.files {
				if _, sum := d.skipFile(); len(sum) != sha256.Size || !yield(digest(sum)) {
					return // (checked at parse)
				}
			}
		}
	}
}

// file returns the file at path p of record r, with its digests if asked.
func (c *compact) file(r record, p string, digests bool) (File, bool) {
	d := &decoder{b: c.data, off: r.filesAt}
	for range r.files {
		at := d.off
		if name, _ := d.skipFile(); name == p {
			d.off = at
			return d.readEntry(digests), true
		} else if name > p {
			break // sorted
		}
	}
	return File{}, false
}

// findingList decodes record r's findings.
func (r record) findingList() []hidden.Finding {
	if r.findings == "" {
		return nil
	}
	var fs []hidden.Finding
	json.Unmarshal([]byte(r.findings), &fs) // checked at parse
	return fs
}

// manifest decodes c whole, as a Manifest.
func (c *compact) manifest() *Manifest {
	m := &Manifest{Version: c.header.Version, ID: c.header.ID, Published: c.header.Published, Sequence: c.header.Sequence, Scanner: c.header.Scanner, Skills: make([]Skill, 0, len(c.records))}
	for i := range c.records {
		r := c.record(i)
		sk := Skill{Dir: strings.Clone(r.dir), DocPath: strings.Clone(r.docPath), Frontmatter: strings.Clone(r.frontmatter), Headings: strings.Clone(r.headings), Findings: r.findingList()}
		c.files(r, func(f File) bool {
			sk.Files = append(sk.Files, f)
			return true
		})
		m.Skills = append(m.Skills, sk)
	}
	return m
}
