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

// spooled is one file as read once: its digests, and its bytes (in memory
// or in a temporary file) for the upload.
type spooled struct {
	file File
	md5  []byte   // of the bytes, for the store to check the upload
	data []byte   // the bytes, when small
	temp *os.File // the bytes, when large
}

// errNotRegular is the error of a name that is not a regular file (a
// FIFO, device or socket), in the words of backends.ErrNotRegular.
var errNotRegular = fmt.Errorf("not a regular file: %w", fs.ErrNotExist)

// spool reads name from fsys once, computing its size, SHA-256 and MD5
// and keeping its bytes for the upload. It checks that name is a regular
// file before opening it (opening a FIFO blocks until a writer comes),
// and again once it is open, in case it was replaced meanwhile.
func spool(fsys fs.FS, name string) (*spooled, error) {
	if fi, err := fs.Stat(fsys, name); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errNotRegular}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errNotRegular}
	}
	sha, sum := sha256.New(), md5.New()
	sp := &spooled{}
	var w io.Writer
	var buf bytes.Buffer
	if fi.Size() <= spoolLimit {
		w = &buf
	} else {
		if sp.temp, err = os.CreateTemp("", "skillstore-publish-*"); err != nil {
			return nil, err
		}
		w = sp.temp
	}
	n, err := io.Copy(io.MultiWriter(w, sha, sum), f)
	if err != nil {
		sp.close()
		return nil, err
	}
	sp.data = buf.Bytes()
	sp.file = File{Size: n, ModTime: fi.ModTime().UTC(), SHA256: hexOf(sha)}
	sp.md5 = sum.Sum(nil)
	return sp, nil
}

func hexOf(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// reader returns the spooled bytes from their start.
func (sp *spooled) reader() (io.Reader, error) {
	if sp.temp == nil {
		return bytes.NewReader(sp.data), nil
	}
	_, err := sp.temp.Seek(0, io.SeekStart)
	return sp.temp, err
}

// bytes returns the spooled bytes, read back from the temporary file
// when they were spooled to disk (a file over spoolLimit).
func (sp *spooled) bytes() ([]byte, error) {
	if sp.temp == nil {
		return sp.data, nil
	}
	return os.ReadFile(sp.temp.Name())
}

// close removes the temporary file, if any.
func (sp *spooled) close() {
	if sp.temp != nil {
		sp.temp.Close()
		os.Remove(sp.temp.Name())
	}
}
