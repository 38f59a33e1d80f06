package backends

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/skillstore/skillstore/store"
)

// A bundle is an executable that carries its skills: the program's bytes,
// then a zip archive of skill folders whose offsets count from the start
// of the file (so `unzip -l` reads it as it is), whose comment, the last
// bytes of the file, is "skillstore-bundle/1 binary=N", N being the
// length of the program before the archive. WriteBundle writes one;
// OpenBundle finds the archive through that comment and serves it with
// the rules every archive gets (NewArchive).

// bundleComment is the start of a bundle's archive comment.
const bundleComment = "skillstore-bundle/1 binary="

// bundleTail matches the end of a bundle: the archive's comment.
var bundleTail = regexp.MustCompile(`skillstore-bundle/1 binary=([0-9]{1,19})\z`)

// ErrDamagedBundle reports an executable whose appended skills cannot be
// read: it was truncated or altered after it was made.
var ErrDamagedBundle = errors.New("the skills appended to this executable are damaged")

// OpenBundle opens the skills appended to the executable file at path:
// a source of kind "bundle", labelled "bundle", whose revision is the
// SHA-256 of the archive alone. Every entry is read once, to check it
// against its CRC-32. It reports false, and no error, when the file
// carries no skills; a bundle that cannot be read (altered, or breaking
// the archive rules) fails with an error wrapping ErrDamagedBundle.
//
// Limits: the archive is found by its comment at the file's very end, so
// a bundle cut short loses it and reads as a program that carries
// nothing; the archive rules' bounds apply (ArchiveOptions).
func OpenBundle(path string, opts ArchiveOptions) (store.Source, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return store.Source{}, false, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return store.Source{}, false, err
	}
	size := st.Size()
	bin, found, err := bundledAt(f, size)
	if !found || err != nil {
		f.Close()
		return store.Source{}, found, err
	}
	a, err := NewArchive(io.NewSectionReader(f, bin, size-bin), size-bin, opts)
	if err == nil {
		_, err = a.digest() // now: an archive that cannot be read whole fails to open
	}
	if err == nil {
		err = verifyEntries(a.zr)
	}
	if err != nil {
		f.Close()
		return store.Source{}, true, fmt.Errorf("%w: %w; make it again with skillstore bundle", ErrDamagedBundle, err)
	}
	a.closer = f
	return store.Source{Label: "bundle", FS: a, Location: "bundle://" + filepath.Base(path), Kind: "bundle"}, true, nil
}

// verifyEntries reads every entry of zr, which checks each against its
// CRC-32 and size: a bundle altered after it was made fails when opened,
// not when a file of it is first asked for.
func verifyEntries(zr *zip.Reader) error {
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err == nil {
			_, err = io.Copy(io.Discard, rc)
			rc.Close()
		}
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return nil
}

// bundledAt returns where the skills appended to the executable f (of
// size bytes) begin, the length of the program before them, if it
// carries any.
func bundledAt(f io.ReaderAt, size int64) (bin int64, found bool, err error) {
	tail := make([]byte, min(size, 64))
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil {
		return 0, false, err
	}
	m := bundleTail.FindSubmatch(tail)
	if m == nil {
		return 0, false, nil
	}
	bin, err = strconv.ParseInt(string(m[1]), 10, 64)
	if err != nil || bin <= 0 || bin >= size {
		return 0, true, fmt.Errorf("%w: its end record names a program of %s bytes in a file of %d", ErrDamagedBundle, m[1], size)
	}
	return bin, true, nil
}

// BundleFile is one file of a bundle: its path in the archive (a skill's
// folder, then its path in it) and its content.
type BundleFile struct {
	Path string
	Open func() (io.ReadCloser, error)
}

// WriteBundle writes to w the executable at exe (without the skills it
// may carry already), then the archive of files, deflated, in the order
// given, with a fixed time, so the same program and files make the same
// bundle. It returns the bundle's length.
func WriteBundle(w io.Writer, exe string, files []BundleFile) (int64, error) {
	f, err := os.Open(exe)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	bin, found, err := bundledAt(f, st.Size())
	switch {
	case err != nil:
		return 0, err
	case !found:
		bin = st.Size() // a program that carries no skills: all of it
	}
	cw := &countWriter{w: w}
	if _, err := io.Copy(cw, io.NewSectionReader(f, 0, bin)); err != nil {
		return cw.n, err
	}
	zw := zip.NewWriter(cw)
	zw.SetOffset(bin)
	for _, bf := range files {
		if !fs.ValidPath(bf.Path) {
			return cw.n, fmt.Errorf("bundle: %q is not a valid path in an archive", bf.Path)
		}
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: bf.Path, Method: zip.Deflate, Modified: bundleTime})
		if err != nil {
			return cw.n, err
		}
		rc, err := bf.Open()
		if err != nil {
			return cw.n, err
		}
		_, err = io.Copy(fw, rc)
		rc.Close()
		if err != nil {
			return cw.n, err
		}
	}
	if err := zw.SetComment(bundleComment + strconv.FormatInt(bin, 10)); err != nil {
		return cw.n, err
	}
	err = zw.Close()
	return cw.n, err
}

// bundleTime is every bundled file's time.
var bundleTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
