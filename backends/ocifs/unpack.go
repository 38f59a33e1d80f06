package ocifs

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/readall"
	"github.com/skillstore/skillstore/internal/unpack"
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
// the bounds leave, to the end of r, with the rules every archive gets
// (unpack.Tar: what follows the archive's end must be a tar's zero
// padding, counted as inflated, and nothing may follow the gzip stream;
// a sparse file, a link or a device is refused; a PAX global header is
// passed over). Its whiteouts are for the layers below it (OCI image
// spec, "Whiteouts"): add lays it over them. Errors are *LayerError.
func (u *unpacker) read(r io.Reader, gz bool) (*layer, error) {
	if gz {
		g, err := unpack.Gunzip(r)
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
	l.inflated = lr.read
	if err != nil {
		return nil, readErr(err, u.maxBytes)
	}
	return l, nil
}

// readErr says what a layer's read failed on: the bound, or what
// unpack.Tar says (an unsafe entry, an archive that cannot be read);
// a *LayerError as it is.
func readErr(err error, maxBytes int64) error {
	var le *LayerError
	switch {
	case errors.As(err, &le):
		return err
	case errors.Is(err, errInflated):
		return &LayerError{Msg: fmt.Sprintf("the layers inflate to over %d bytes", 2*maxBytes)}
	case errors.Is(err, unpack.ErrTrailingGzip):
		return &LayerError{Msg: unpack.ErrTrailingGzip.Error()}
	}
	return &LayerError{Msg: err.Error()}
}

// readTar reads the tar archive r into l.
func (u *unpacker) readTar(l *layer, r *capped) error {
	var held int64 // this layer's files and whiteouts, names included (cost)
	tooMuch := &LayerError{Msg: fmt.Sprintf("the files and their names add up to over %d bytes", u.maxBytes)}
	read := 0 // entries given to the callback
	n, err := unpack.Tar(r, unpack.Options{}, func(e unpack.Entry) error {
		if read++; u.entries+read > u.maxEnt {
			return &LayerError{Msg: fmt.Sprintf("over %d entries", u.maxEnt)}
		}
		name := e.Name
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
			return nil
		case strings.HasPrefix(base, ".wh."):
			target := strings.TrimPrefix(base, ".wh.")
			if target == "" || target == "." || target == ".." || strings.HasPrefix(target, ".wh.") {
				return &LayerError{Msg: fmt.Sprintf("the whiteout %q names no file", name)}
			}
			l.gone[path.Join(dir, target)] = true
			return nil
		case e.Dir:
			return nil
		}
		if e.Size < 0 || cost(name, e.Size) > u.maxBytes-held {
			return tooMuch
		}
		if e.Size > r.left { // its bytes are the stream's: they would pass the bound
			return errInflated
		}
		data, err := readall.Read(e.R, e.Size, e.Size)
		if errors.Is(err, errInflated) {
			return err
		}
		if err != nil || int64(len(data)) != e.Size {
			return &LayerError{Msg: fmt.Sprintf("%q ends before its %d bytes", name, e.Size)}
		}
		held += cost(name, e.Size) // unpack.Tar refuses a name twice: no file is replaced
		l.files[name] = data
		return nil
	})
	l.entries = n
	return err
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
