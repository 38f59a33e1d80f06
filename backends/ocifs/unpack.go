package ocifs

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/readall"
	"github.com/skillstore/skillstore/store"
)

// unpacker lays a manifest's layers one over the other, within bounds.
type unpacker struct {
	files    map[string][]byte
	bytes    int64 // held in files: their names and bytes (cost)
	entries  int   // read from every layer
	inflated int64 // bytes read out of every layer's archive
	maxBytes int64
	maxEnt   int
}

func newUnpacker(maxBytes int64, maxEntries int) *unpacker {
	return &unpacker{files: map[string][]byte{}, maxBytes: maxBytes, maxEnt: maxEntries}
}

// layer is what one layer holds: its files, and what its whiteouts take
// away from the layers below it (a file or folder; a folder made opaque);
// and what reading it cost, counted against the bounds each time it is
// laid (a layer the manifest lists again is read once, counted again).
type layer struct {
	files        map[string][]byte
	gone, opaque map[string]bool
	opaqueRoot   bool
	entries      int   // tar entries
	inflated     int64 // bytes of the tar stream
}

// read reads one layer from r, a tar archive (gzipped if gz), within what
// the bounds leave, to the end of r: what follows the archive's end must
// be a tar's zero padding, counted as inflated, and nothing may follow
// the gzip stream. A sparse file, a link or a device is refused; a PAX
// global header is passed over. Its whiteouts are for the layers below
// it (OCI image spec, "Whiteouts"): add lays it over them. Errors about
// the layer's content are *LayerError; r's own are returned as they are.
func (u *unpacker) read(r io.Reader, gz bool) (*layer, error) {
	if gz {
		g, err := newGunzip(r)
		if err != nil {
			return nil, &LayerError{Msg: "not a gzip stream: " + err.Error()}
		}
		r = g
	}
	// What the archives inflate to is bounded, the bytes skipped over
	// (a whiteout's, a folder's, the padding's) included: twice what may
	// be held.
	lr := &capped{r: r, left: 2*u.maxBytes - u.inflated}
	l := &layer{files: map[string][]byte{}, gone: map[string]bool{}, opaque: map[string]bool{}}
	err := u.readTar(l, lr)
	if err == nil {
		err = padding(lr)
	}
	l.inflated = lr.read
	if err != nil {
		return nil, readErr(err, u.maxBytes)
	}
	return l, nil
}

// readErr says what a layer's read failed on: the bound, or an archive
// that cannot be read; a *LayerError as it is.
func readErr(err error, maxBytes int64) error {
	var le *LayerError
	switch {
	case errors.As(err, &le):
		return err
	case errors.Is(err, errInflated):
		return &LayerError{Msg: fmt.Sprintf("the layers inflate to over %d bytes", 2*maxBytes)}
	}
	return &LayerError{Msg: "not a readable tar archive: " + err.Error()}
}

// readTar reads the tar archive r into l.
func (u *unpacker) readTar(l *layer, r *capped) error {
	tr := tar.NewReader(r)
	var held int64 // this layer's files and whiteouts, names included (cost)
	tooMuch := &LayerError{Msg: fmt.Sprintf("the files and their names add up to over %d bytes", u.maxBytes)}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if l.entries++; u.entries+l.entries > u.maxEnt {
			return &LayerError{Msg: fmt.Sprintf("over %d entries", u.maxEnt)}
		}
		if h.Typeflag == tar.TypeXGlobalHeader { // metadata (git archive's commit), no file
			continue
		}
		name, err := entryName(h.Name)
		if err != nil {
			return err
		}
		if sparse(h) { // archive/tar would expand its holes: bytes the stream does not hold
			return &LayerError{Msg: fmt.Sprintf("%q is a sparse file: refused", name)}
		}
		dir, base := path.Split(name)
		dir = strings.TrimSuffix(dir, "/")
		if dir == "" {
			dir = "."
		}
		if strings.HasPrefix(base, ".wh.") { // a whiteout: its name is held until the layer is laid
			if held += int64(len(name)); held > u.maxBytes {
				return tooMuch
			}
		}
		switch {
		case base == ".wh..wh..opq": // an opaque folder: what lower layers put in it is gone
			if dir == "." {
				l.opaqueRoot = true
			} else {
				l.opaque[dir] = true
			}
			continue
		case strings.HasPrefix(base, ".wh."):
			target := strings.TrimPrefix(base, ".wh.")
			if target == "" || target == "." || target == ".." || strings.HasPrefix(target, ".wh.") {
				return &LayerError{Msg: fmt.Sprintf("the whiteout %q names no file", h.Name)}
			}
			l.gone[path.Join(dir, target)] = true
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			continue
		case tar.TypeReg:
		case tar.TypeSymlink, tar.TypeLink:
			return &LayerError{Msg: fmt.Sprintf("%q is a link (to %q): links are refused", name, h.Linkname)}
		default:
			return &LayerError{Msg: fmt.Sprintf("%q is not a regular file or a folder (tar type %q): refused", name, h.Typeflag)}
		}
		if name == "." {
			return &LayerError{Msg: fmt.Sprintf("the entry %q is a file at the archive's root folder", h.Name)}
		}
		if h.Size < 0 || cost(name, h.Size) > u.maxBytes-held {
			return tooMuch
		}
		if h.Size > r.left { // its bytes are the stream's: they would pass the bound
			return errInflated
		}
		data, err := readall.Read(tr, h.Size, h.Size)
		if errors.Is(err, errInflated) {
			return err
		}
		if err != nil || int64(len(data)) != h.Size {
			return &LayerError{Msg: fmt.Sprintf("%q ends before its %d bytes", name, h.Size)}
		}
		if old, ok := l.files[name]; ok {
			held -= cost(name, int64(len(old)))
		}
		held += cost(name, h.Size)
		l.files[name] = data
	}
}

// sparse reports a sparse file: GNU's old type, or GNU's PAX records
// (formats 0.0, 0.1 and 1.0), which archive/tar reads as a regular file
// of its full size, holes filled with zeros.
func sparse(h *tar.Header) bool {
	if h.Typeflag == tar.TypeGNUSparse {
		return true
	}
	for k := range h.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

// gunzip reads a gzip stream of one member or more (eStargz writes one a
// file), and fails with a *LayerError if what follows a member does not
// start another.
type gunzip struct {
	br *bufio.Reader
	zr *gzip.Reader
}

func newGunzip(r io.Reader) (*gunzip, error) {
	br := bufio.NewReader(r)
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, err
	}
	zr.Multistream(false)
	return &gunzip{br: br, zr: zr}, nil
}

func (g *gunzip) Read(p []byte) (int, error) {
	for {
		n, err := g.zr.Read(p)
		if err != io.EOF || n > 0 {
			return n, err
		}
		// A member ended: so does the stream, or another member starts.
		if _, err := g.br.Peek(1); err != nil {
			return 0, err // io.EOF: the stream's end
		}
		switch err := g.zr.Reset(g.br); {
		case errors.Is(err, gzip.ErrHeader), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
			return 0, &LayerError{Msg: "data follows the end of the gzip stream: refused"}
		case err != nil:
			return 0, err
		}
		g.zr.Multistream(false)
	}
}

// padding reads what follows a tar archive's end to the end of r: zeros
// (a tar is padded to its record size) or nothing.
func padding(r io.Reader) error {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		for _, b := range buf[:n] {
			if b != 0 {
				return &LayerError{Msg: "data follows the end of the tar archive: refused"}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// add lays l over the files below it, counting its entries and what it
// inflated to against the bounds: a layer listed again counts again.
func (u *unpacker) add(l *layer) error {
	if u.entries += l.entries; u.entries > u.maxEnt {
		return &LayerError{Msg: fmt.Sprintf("over %d entries", u.maxEnt)}
	}
	if u.inflated += l.inflated; u.inflated > 2*u.maxBytes {
		return &LayerError{Msg: fmt.Sprintf("the layers inflate to over %d bytes", 2*u.maxBytes)}
	}
	u.apply(l)
	if u.bytes > u.maxBytes {
		return &LayerError{Msg: fmt.Sprintf("the files and their names add up to over %d bytes", u.maxBytes)}
	}
	return nil
}

// cost is what a file of size bytes called name counts against
// MaxBytes: its bytes, and its name three times, as the snapshot served
// holds it (twice in its archive, once in the archive's index). Without
// its name, a layer of empty files of long names would cost many times
// the bound.
func cost(name string, size int64) int64 { return 3*int64(len(name)) + size }

// apply lays l over the files below it: its whiteouts first, each file
// below checked once against them (its path and its folders), then its
// files.
func (u *unpacker) apply(l *layer) {
	if l.opaqueRoot {
		clear(u.files)
		u.bytes = 0
	} else if len(l.gone) > 0 || len(l.opaque) > 0 {
		for name, data := range u.files {
			if l.gone[name] || covered(name, l) {
				u.bytes -= cost(name, int64(len(data)))
				delete(u.files, name)
			}
		}
	}
	for name, data := range l.files {
		if old, ok := u.files[name]; ok {
			u.bytes -= cost(name, int64(len(old)))
		}
		u.bytes += cost(name, int64(len(data)))
		u.files[name] = data
	}
}

// covered reports whether a folder of name is deleted or made opaque by l.
func covered(name string, l *layer) bool {
	for d := path.Dir(name); d != "."; d = path.Dir(d) {
		if l.gone[d] || l.opaque[d] {
			return true
		}
	}
	return false
}

// errInflated is capped's error past its bound.
var errInflated = errors.New("inflated past the bound")

// capped reads at most left bytes from r, then fails with errInflated.
type capped struct {
	r          io.Reader
	left, read int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errInflated
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	c.read += int64(n)
	return n, err
}

// entryName is a tar entry's name as a path in the tree: "./" removed;
// an absolute name, one with "..", a backslash or a NUL is refused.
func entryName(raw string) (string, error) {
	name := strings.TrimPrefix(raw, "./")
	name = strings.TrimSuffix(name, "/")
	if name == "" || name == "." {
		return ".", nil
	}
	if strings.HasPrefix(name, "/") || strings.ContainsAny(name, "\\\x00") || !fs.ValidPath(name) {
		return "", &LayerError{Msg: fmt.Sprintf("the entry %q leaves the archive or is not a clean path: refused", raw)}
	}
	return name, nil
}

// tree returns what the layers hold as a source: a folder of skills, or
// one skill, found at the root or under folders that hold nothing else
// (an image's /skills/…). One skill is served as a folder named by its
// SKILL.md's name if that is a valid skill name, else called name. It is
// served as an archive, with the rules every archive gets.
func (u *unpacker) tree(name string) (fs.FS, error) {
	names := make([]string, 0, len(u.files))
	for p := range u.files {
		names = append(names, p)
	}
	sort.Strings(names)
	prefix := skillsRoot(names)
	if n := u.docName(prefix); n != "" {
		name = n
	}
	size := 22 // the archive's end record; then each file, its name twice and its headers
	for _, p := range names {
		if rel, ok := strings.CutPrefix(p, prefix); ok {
			size += len(u.files[p]) + 2*len(rel) + 200
		}
	}
	var buf bytes.Buffer
	buf.Grow(size) // one allocation
	zw := zip.NewWriter(&buf)
	for _, p := range names {
		rel, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: rel, Method: zip.Store})
		if err != nil {
			return nil, err
		}
		w.Write(u.files[p])
		delete(u.files, p) // held once: in the archive now
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	a, err := backends.NewArchive(bytes.NewReader(buf.Bytes()), int64(buf.Len()), backends.ArchiveOptions{MaxBytes: u.maxBytes, MaxEntries: u.maxEnt, Name: name})
	if err != nil {
		return nil, &LayerError{Msg: err.Error()}
	}
	return a, nil
}

// docName is the name the SKILL.md in folder prefix gives in its
// frontmatter, if it has one the Agent Skills specification allows;
// else "". Only its frontmatter's first bytes are read.
func (u *unpacker) docName(prefix string) string {
	for _, d := range store.DocNames() {
		doc, ok := u.files[prefix+d]
		if !ok {
			continue
		}
		doc = doc[:min(len(doc), store.MaxFrontmatterBytes+1<<10)] // room for the '---' lines: a longer header is refused anyway
		if fm, _, err := store.ParseFrontmatter(string(doc)); err == nil && store.SpecName(fm.Name) {
			return fm.Name
		}
		return ""
	}
	return ""
}

// skillsRoot is the folder of names that holds the skills: the root if
// it holds a SKILL.md or a skill folder, else the one folder the root
// holds, and so on, four levels down at most ("" for the root, else the
// folder and a slash).
func skillsRoot(names []string) string {
	prefix := ""
	for depth := 0; depth < 4; depth++ {
		top := ""
		holds := false
		for _, p := range names {
			rel, ok := strings.CutPrefix(p, prefix)
			if !ok {
				continue
			}
			first, rest, nested := strings.Cut(rel, "/")
			if store.IsDocName(rel) || nested && !strings.Contains(rest, "/") && store.IsDocName(rest) {
				holds = true
				break
			}
			if !nested || top != "" && first != top {
				return prefix // files, or two folders, at this level: no single folder to descend into
			}
			top = first
		}
		if holds || top == "" {
			return prefix
		}
		prefix += top + "/"
	}
	return prefix
}
