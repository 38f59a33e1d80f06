package registry

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sync"

	"github.com/skillstore/skillstore/backends/snapshot"
)

// maxZipBytes bounds what one download holds in memory: a version's
// files are read and checked before the first byte is written, so a
// blob missing or changed is an error, never a truncated archive. It
// is also what all the downloads of a registry hold at once: one that
// would pass it waits for others to finish (zipBudget).
const maxZipBytes = 256 << 20

// zipBudget is the bytes of blobs the downloads of one registry hold at
// once, at most maxZipBytes: a download takes its version's size before
// it reads a blob and gives it back when written.
type zipBudget struct {
	mu   sync.Mutex
	used int64
	free chan struct{} // closed and replaced when bytes are given back
}

// take waits until n bytes fit (n <= maxZipBytes), or ctx ends.
func (z *zipBudget) take(ctx context.Context, n int64) error {
	for {
		z.mu.Lock()
		if z.used+n <= maxZipBytes {
			z.used += n
			z.mu.Unlock()
			return nil
		}
		if z.free == nil {
			z.free = make(chan struct{})
		}
		free := z.free
		z.mu.Unlock()
		select {
		case <-free:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (z *zipBudget) give(n int64) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.used -= n
	if z.free != nil {
		close(z.free)
		z.free = nil
	}
}

// WriteZip writes a version's files as one zip archive: one top folder
// named as the skill, each file's bytes exactly as uploaded (deflated),
// stamped with the version's time. Every blob is read and checked
// against its digest first.
func (r *Registry) WriteZip(ctx context.Context, w io.Writer, id, ver string, visible func(string) bool) error {
	var sk *skill
	var v *version
	err := r.read(ctx, func() (err error) {
		sk, v, err = r.version(id, ver, visible)
		return err
	})
	if err != nil {
		return err
	}
	var total int64
	for _, f := range v.Files {
		total += f.Size
	}
	if total > maxZipBytes {
		return fmt.Errorf("version %s holds %d bytes; a download holds at most %d", v.ID, total, maxZipBytes)
	}
	// A version written by hand may name paths out of its folder: such
	// an archive would unpack outside the reader's folder.
	if err := (&snapshot.Skill{Dir: sk.Name, DocPath: v.DocPath, Files: v.Files}).Check(); err != nil {
		return fmt.Errorf("version %s of skill %s is damaged in the registry: %w", v.ID, sk.ID, err)
	}
	if err := r.zips.take(ctx, total); err != nil {
		return err
	}
	defer r.zips.give(total)
	data := make([][]byte, len(v.Files))
	for i, f := range v.Files {
		if data[i], err = r.readBlob(ctx, f); err != nil {
			return err
		}
	}
	zw := zip.NewWriter(w)
	for i, f := range v.Files {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: sk.Name + "/" + f.Path, Method: zip.Deflate, Modified: v.Created})
		if err != nil {
			return err
		}
		if _, err := fw.Write(data[i]); err != nil {
			return err
		}
	}
	return zw.Close()
}

// readBlob reads a file's content and checks it against its digest.
func (r *Registry) readBlob(ctx context.Context, f snapshot.File) ([]byte, error) {
	r.counts.get.Add(1)
	b, err := r.b.ReadObject(ctx, snapshot.BlobKey(f.SHA256), f.Size)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", f.Path, err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != f.SHA256 {
		return nil, fmt.Errorf("reading %s: the stored content does not match its digest", f.Path)
	}
	return b, nil
}
