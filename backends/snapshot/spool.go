package snapshot

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
)

// spoolLimit is the largest file kept in memory between its read and its
// upload; larger ones wait in a temporary file, so memory stays bounded.
const spoolLimit = 4 << 20

// spooler reads files once, one at a time, for one transfer: their
// digests, and their bytes for the upload, in a buffer reused from file
// to file (so a transfer holds at most spoolLimit bytes of content) or
// in a temporary file.
type spooler struct {
	file     File     // the file last spooled: size, time and digests
	buf      []byte   // its bytes, when they fit in spoolLimit
	temp     *os.File // its bytes, when they do not
	copyBuf  []byte   // for copying to temp
	sha, md5 hash.Hash
	sum      []byte // the last file's MD5, for the store to check the upload
}

// errNotRegular is the error of a name that is not a regular file (a
// FIFO, device or socket), in the words of backends.ErrNotRegular.
var errNotRegular = fmt.Errorf("not a regular file: %w", fs.ErrNotExist)

// spool reads name from fsys once, computing its size, SHA-256 and MD5
// and keeping its bytes for the upload, in place of the previous file's.
// It checks that name is a regular file once it is open (the caller
// checks it before, since opening a FIFO blocks until a writer comes), in
// case it was replaced meanwhile.
func (sp *spooler) spool(fsys fs.FS, name string) error {
	sp.release()
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &fs.PathError{Op: "open", Path: name, Err: errNotRegular}
	}
	if sp.sha == nil {
		sp.sha, sp.md5 = sha256.New(), md5.New()
	}
	sp.sha.Reset()
	sp.md5.Reset()
	if want := min(fi.Size(), spoolLimit) + 1; int64(cap(sp.buf)) < want {
		sp.buf = make([]byte, 0, want) // +1: EOF is seen without growing
	}
	n, err := sp.fill(f)
	if err != nil {
		return err
	}
	if n > spoolLimit { // larger than it was, or than spoolLimit: on to disk
		if n, err = sp.overflow(f); err != nil {
			sp.release()
			return err
		}
	} else {
		sp.sha.Write(sp.buf)
		sp.md5.Write(sp.buf)
	}
	sp.file = File{Size: n, ModTime: fi.ModTime().UTC(), SHA256: hexOf(sp.sha)}
	sp.sum = sp.md5.Sum(sp.sum[:0])
	return nil
}

// fill reads r into buf until its end, or until buf holds more than
// spoolLimit bytes, and returns how many it holds.
func (sp *spooler) fill(r io.Reader) (int64, error) {
	sp.buf = sp.buf[:0]
	for len(sp.buf) <= spoolLimit {
		if len(sp.buf) == cap(sp.buf) {
			sp.buf = append(sp.buf, 0)[:len(sp.buf)] // grows it
		}
		n, err := r.Read(sp.buf[len(sp.buf):min(cap(sp.buf), spoolLimit+1)])
		sp.buf = sp.buf[:len(sp.buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	return int64(len(sp.buf)), nil
}

// overflow moves what buf holds to a new temporary file and copies the
// rest of r after it, hashing everything; it returns the size.
func (sp *spooler) overflow(r io.Reader) (int64, error) {
	var err error
	if sp.temp, err = os.CreateTemp("", "skillstore-publish-*"); err != nil {
		return 0, err
	}
	w := io.MultiWriter(sp.temp, sp.sha, sp.md5)
	if _, err := w.Write(sp.buf); err != nil {
		return 0, err
	}
	if sp.copyBuf == nil {
		sp.copyBuf = make([]byte, 32<<10)
	}
	n, err := io.CopyBuffer(w, r, sp.copyBuf)
	n += int64(len(sp.buf))
	sp.buf = sp.buf[:0]
	return n, err
}

func hexOf(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// reader returns the spooled bytes from their start.
func (sp *spooler) reader() (io.Reader, error) {
	if sp.temp == nil {
		return bytes.NewReader(sp.buf), nil
	}
	_, err := sp.temp.Seek(0, io.SeekStart)
	return sp.temp, err
}

// bytes returns the spooled bytes, read back from the temporary file
// when they were spooled to disk (a file over spoolLimit). They are the
// spooler's, until the next file is spooled.
func (sp *spooler) bytes() ([]byte, error) {
	if sp.temp == nil {
		return sp.buf, nil
	}
	return os.ReadFile(sp.temp.Name())
}

// release removes the temporary file, if any.
func (sp *spooler) release() {
	if sp.temp != nil {
		sp.temp.Close()
		os.Remove(sp.temp.Name())
		sp.temp = nil
	}
}

// close releases what the spooler holds, when its transfer ends.
func (sp *spooler) close() {
	sp.release()
	sp.buf, sp.copyBuf = nil, nil
}
