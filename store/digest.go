package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/skillstore/skillstore/internal/lru"
)

// Digest describes a file's bytes as stored (File.Raw): what SEP-2640's
// digests, downloads and archives cover, whatever its encoding.
type Digest struct {
	// SHA256 is the bytes' SHA-256, as lowercase hex.
	SHA256 string
	// Size is their length.
	Size int64
}

// digestBudget bounds the digests a Store remembers: about 80,000 files.
const digestBudget = lru.StoreDigests

// digestKey identifies one version of one file: its size and time, and
// the revision of a versioned source (two commits' files may share both).
type digestKey struct {
	source, skill, path, revision string
	size, modTime                 int64
}

// digest is View.Digest.
func (s *Store) digest(ctx context.Context, sk *Skill, f FileInfo) (Digest, error) {
	if f.SHA256 != "" { // from a published manifest: no read
		return Digest{SHA256: f.SHA256, Size: f.Size}, nil
	}
	memo := s.digests
	key := digestKey{sk.Source.Label, sk.Folder(), f.Path, sk.Revision(), f.Size, f.ModTime.UnixNano()}
	if d, ok := memo.Get(key); ok {
		return d, nil
	}
	file, err := s.readFileOf(ctx, sk, f.Path, false) // from sk's snapshot; do not evict hot content
	if err != nil {
		return Digest{}, err
	}
	sum := sha256.Sum256([]byte(file.Raw))
	d := Digest{SHA256: hex.EncodeToString(sum[:]), Size: int64(len(file.Raw))}
	memo.Add(key, d, int64(len(key.skill)+len(key.path)+len(d.SHA256)+64))
	return d, nil
}
