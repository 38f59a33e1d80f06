// Package unpack reads zip and tar archives within bounds: the one
// implementation of the rules every archive skillstore opens gets (a
// zip or .skill source, a bundle, an OCI image's layers, a published
// skill's .well-known artifact). One check says which entry names are
// safe (Name); Zip checks a whole zip archive before it is served; Tar
// streams a tar archive's files to its caller. Errors name the entry,
// never a host path.
package unpack

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/skillstore/skillstore/store"
)

// MaxDepth bounds how many folders deep an entry's path nests: four
// times what the store serves in a skill's folder (store.MaxFolderDepth).
// Opening a zip archive (archive/zip's file system) lists every folder of
// every path, at a cost of the path's length each.
const MaxDepth = 64

// ErrUnsafe reports an archive refused as a whole because one of its
// entries could escape it or because it is too large to serve.
var ErrUnsafe = errors.New("unsafe archive")

// Error is an archive refused for one entry: its name (as the archive
// spells it) and why. It wraps ErrUnsafe.
type Error struct {
	Entry, Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%v: entry %q %s", ErrUnsafe, store.Echo(e.Entry), e.Reason)
}

func (e *Error) Unwrap() error { return ErrUnsafe }

// Options bound what Zip and Tar read. A bound of zero or less is none.
type Options struct {
	// MaxEntries bounds the entries: a zip's entries and the folders
	// their paths imply; a tar's headers, folders and global headers
	// included.
	MaxEntries int
	// MaxBytes bounds the sizes the files declare, added up (archive/zip
	// and archive/tar fail a read past a declared size, so it bounds
	// what can be read).
	MaxBytes int64
}

// Name is a safe entry name: raw without a trailing "/", else an error
// saying why not, in this order: it has a backslash, is absolute (a
// leading "/" or a drive letter), leaves the archive (".." as an
// element), nests folders deeper than MaxDepth, or is otherwise not a
// clean relative path (fs.ValidPath: no empty or "." element, UTF-8;
// nor a NUL byte).
func Name(raw string) (string, error) {
	name := strings.TrimSuffix(raw, "/")
	bad := ""
	switch {
	case strings.Contains(raw, `\`):
		bad = "has a backslash"
	case strings.HasPrefix(raw, "/") || len(name) >= 2 && name[1] == ':':
		bad = "is absolute"
	case name == ".." || strings.HasPrefix(name, "../") || strings.Contains(name, "/../") || strings.HasSuffix(name, "/.."):
		bad = "leaves the archive"
	case strings.Count(name, "/") > MaxDepth:
		bad = fmt.Sprintf("nests folders deeper than %d", MaxDepth)
	case !fs.ValidPath(name) || strings.Contains(name, "\x00"):
		bad = "is not a clean relative path"
	}
	if bad != "" {
		return "", &Error{Entry: raw, Reason: bad}
	}
	return name, nil
}

// names tracks the paths an archive holds, so that no path names two
// things: two entries for one file (tools disagree on which one wins),
// or a file and a folder of one name.
type names struct {
	files, dirs map[string]bool
}

func newNames() *names { return &names{files: map[string]bool{}, dirs: map[string]bool{}} }

// count is how many paths are known: files and folders.
func (n *names) count() int { return len(n.files) + len(n.dirs) }

// add records name (checked by Name), a folder if dir.
func (n *names) add(name string, dir bool) error {
	switch {
	case !dir && n.files[name]:
		return &Error{Entry: name, Reason: "appears twice"}
	case !dir && n.dirs[name], dir && n.files[name]:
		return fmt.Errorf("%w: %q is both a file and a folder", ErrUnsafe, store.Echo(name))
	}
	if dir {
		n.dirs[name] = true
	} else {
		n.files[name] = true
	}
	for d := path.Dir(name); d != "." && !n.dirs[d]; d = path.Dir(d) { // a folder seen before: its own were seen then
		if n.files[d] {
			return fmt.Errorf("%w: %q is both a file and a folder", ErrUnsafe, store.Echo(d))
		}
		n.dirs[d] = true
	}
	return nil
}

// Zip opens the zip archive in r and checks it whole: it is refused, with
// an error wrapping ErrUnsafe, if an entry's name is not safe (Name), an
// entry is a symbolic link, one path names two things, its entries and
// the folders their paths imply are more than o.MaxEntries, or the sizes
// its files declare add up to more than o.MaxBytes.
func Zip(r io.ReaderAt, size int64, o Options) (*zip.Reader, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("not a readable zip archive: %w", err)
	}
	if o.MaxEntries > 0 && len(zr.File) > o.MaxEntries {
		return nil, fmt.Errorf("%w: %d entries (limit %d)", ErrUnsafe, len(zr.File), o.MaxEntries)
	}
	var total uint64
	seen := newNames()
	for _, f := range zr.File {
		name, err := Name(f.Name)
		if err != nil {
			return nil, err
		}
		if f.Mode()&fs.ModeSymlink != 0 {
			return nil, &Error{Entry: f.Name, Reason: "is a symbolic link"}
		}
		if err := seen.add(name, strings.HasSuffix(f.Name, "/")); err != nil {
			return nil, err
		}
		if o.MaxEntries > 0 && seen.count() > o.MaxEntries {
			return nil, fmt.Errorf("%w: more than %d entries, folders included", ErrUnsafe, o.MaxEntries)
		}
		total += f.UncompressedSize64
		if o.MaxBytes > 0 && total > uint64(o.MaxBytes) {
			return nil, fmt.Errorf("%w: uncompressed size exceeds %d bytes", ErrUnsafe, o.MaxBytes)
		}
	}
	return zr, nil
}

// Entry is one file or folder of a tar archive, as Tar gives it.
type Entry struct {
	Name    string // checked by Name; "./" removed
	Dir     bool
	Size    int64 // a file's declared size
	ModTime time.Time
	// R reads a file's bytes, until the next entry: archive/tar fails a
	// read that ends before Size bytes.
	R io.Reader
}

// Tar reads the tar archive r to its end, calling each for its folders
// and files in order; it stops at each's first error, which it returns,
// and returns how many entries it read. An entry is refused, and the
// archive with it (an error wrapping ErrUnsafe), if its name is not safe
// (Name, after a leading "./"), it is a link (symbolic or hard), a
// device, a FIFO or a sparse file (archive/tar would expand its holes:
// bytes the stream does not hold), a file where the root folder is, if
// one path names two things, or if the entries pass o.MaxEntries or the
// files' declared sizes o.MaxBytes. The root folder and PAX global
// headers (git archive's commit) are passed over, counted as entries.
// What follows the archive's end must be zeros (a tar's padding), read
// from r: anything else is refused. Whatever r fails with is wrapped,
// "not a readable tar archive".
func Tar(r io.Reader, o Options, each func(Entry) error) (entries int, err error) {
	tr := tar.NewReader(r)
	seen := newNames()
	var total int64
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return entries, padding(r)
		}
		if err != nil {
			return entries, fmt.Errorf("not a readable tar archive: %w", err)
		}
		if entries++; o.MaxEntries > 0 && entries > o.MaxEntries {
			return entries, fmt.Errorf("%w: over %d entries", ErrUnsafe, o.MaxEntries)
		}
		if h.Typeflag == tar.TypeXGlobalHeader { // metadata, no file
			continue
		}
		raw := strings.TrimPrefix(h.Name, "./")
		if raw == "" || raw == "." {
			if h.Typeflag == tar.TypeDir {
				continue
			}
			return entries, &Error{Entry: h.Name, Reason: "is a file where the archive's root folder is"}
		}
		name, err := Name(raw)
		if err != nil {
			return entries, &Error{Entry: h.Name, Reason: err.(*Error).Reason}
		}
		switch {
		case h.Typeflag == tar.TypeSymlink || h.Typeflag == tar.TypeLink:
			return entries, &Error{Entry: h.Name, Reason: fmt.Sprintf("is a link (to %q): links are refused", store.Echo(h.Linkname))}
		case sparse(h):
			return entries, &Error{Entry: h.Name, Reason: "is a sparse file: refused"}
		case h.Typeflag != tar.TypeReg && h.Typeflag != tar.TypeDir:
			return entries, &Error{Entry: h.Name, Reason: fmt.Sprintf("is not a regular file or a folder (tar type %q): refused", h.Typeflag)}
		}
		dir := h.Typeflag == tar.TypeDir
		if err := seen.add(name, dir); err != nil {
			return entries, err
		}
		if !dir {
			if total += h.Size; o.MaxBytes > 0 && total > o.MaxBytes {
				return entries, fmt.Errorf("%w: uncompressed size exceeds %d bytes", ErrUnsafe, o.MaxBytes)
			}
		}
		if err := each(Entry{Name: name, Dir: dir, Size: h.Size, ModTime: h.ModTime, R: tr}); err != nil {
			return entries, err
		}
	}
}

// ErrTrailingTar is a tar archive followed by what is not its padding.
var ErrTrailingTar = errors.New("data follows the end of the tar archive: refused")

// padding reads what follows a tar archive's end to the end of r: zeros
// (a tar is padded to its record size) or nothing.
func padding(r io.Reader) error {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		for _, b := range buf[:n] {
			if b != 0 {
				return ErrTrailingTar
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("not a readable tar archive: %w", err)
		}
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

// ErrTrailingGzip is a gzip stream followed by bytes that do not start
// another member.
var ErrTrailingGzip = errors.New("data follows the end of the gzip stream: refused")

// Gunzip reads a gzip stream of one member or more (eStargz writes one a
// file); what follows a member must start another, else the read fails
// with ErrTrailingGzip.
func Gunzip(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, err
	}
	zr.Multistream(false)
	return &gunzip{br: br, zr: zr}, nil
}

type gunzip struct {
	br *bufio.Reader
	zr *gzip.Reader
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
			return 0, ErrTrailingGzip
		case err != nil:
			return 0, err
		}
		g.zr.Multistream(false)
	}
}
