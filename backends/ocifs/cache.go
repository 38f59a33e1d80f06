package ocifs

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// CacheEnv names the environment variable that gives the registered
// opener's Options.CacheDir (the command's --oci-cache).
const CacheEnv = "SKILLSTORE_OCI_CACHE"

// The layer cache (Options.CacheDir): each verified layer is kept in
// DIR/blobs/sha256/HEX (mode 0600 in folders of 0700), written to a
// temporary file as it is fetched and renamed once all of it matched its
// digest, so a reader sees a whole blob or none. A blob read back is
// verified against its digest again as it is read (a file altered on
// disk is removed and fetched anew), and its time set to the read's.
// After each blob written, the oldest blobs (by that time) are removed
// until the folder holds at most Options.CacheMax bytes (default 1 GiB);
// the blob just written is kept whatever its size. Evicting a blob costs
// only a fetch at the next start. Processes sharing the folder each
// evict by the same rule.

// CacheMaxEnv names the environment variable that gives the registered
// opener's Options.CacheMax, in bytes (the command's --oci-cache-max).
const CacheMaxEnv = "SKILLSTORE_OCI_CACHE_MAX"

// DefaultCacheMax is the layer cache's bound when Options.CacheMax is 0.
const DefaultCacheMax = 1 << 30

// cached opens the cache's copy of layer l, if it holds one of l's
// size; the caller verifies it as it reads it.
func cached(dir string, l ocispec.Descriptor) *os.File {
	if dir == "" || l.Digest.Validate() != nil {
		return nil
	}
	f, err := os.OpenFile(blobPath(dir, l), os.O_RDONLY|cacheOpenFlags, 0) // a FIFO or a link put there is not followed nor waited on (on Unix)
	if err != nil {
		return nil
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() != l.Size {
		f.Close()
		return nil
	}
	return f
}

// touch marks a cached blob used: the last to be evicted.
func touch(p string) {
	now := time.Now()
	os.Chtimes(p, now, now)
}

// spool writes a layer to the cache as it is read. A failure to write
// stops the copy, never the read: it costs the next start a fetch.
type spool struct {
	tmp  *os.File
	path string
	max  int64
	err  error
}

// newSpool starts layer l's copy in the cache folder dir, which then
// holds at most max bytes (no bound if negative); nil if dir is "" or
// the copy cannot be started. A nil *spool takes writes and keeps nothing.
func newSpool(dir string, max int64, l ocispec.Descriptor) *spool {
	if dir == "" || l.Digest.Validate() != nil {
		return nil
	}
	p := blobPath(dir, l)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".blob-*")
	if err != nil {
		return nil
	}
	return &spool{tmp: tmp, path: p, max: max}
}

func (s *spool) Write(p []byte) (int, error) {
	if s != nil && s.err == nil {
		_, s.err = s.tmp.Write(p)
	}
	return len(p), nil
}

// done keeps the copy under the layer's digest if ok (all of it was
// read and verified) and it was written whole, then evicts the oldest
// blobs over the bound; else it removes the copy.
func (s *spool) done(ok bool) {
	if s == nil {
		return
	}
	err := s.tmp.Close()
	if s.err == nil {
		s.err = err
	}
	if ok && s.err == nil && os.Rename(s.tmp.Name(), s.path) == nil {
		if s.max >= 0 {
			evict(filepath.Dir(s.path), s.max, filepath.Base(s.path))
		}
		return
	}
	os.Remove(s.tmp.Name())
}

// evict removes the oldest regular files of folder (its blobs; temporary
// files of other writers are left alone) until they hold at most max
// bytes, sparing keep.
func evict(folder string, max int64, spare string) {
	ents, err := os.ReadDir(folder)
	if err != nil {
		return
	}
	type blob struct {
		name string
		size int64
		time time.Time
	}
	var blobs []blob
	var total int64
	for _, e := range ents {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		total += fi.Size()
		if e.Name() != spare {
			blobs = append(blobs, blob{e.Name(), fi.Size(), fi.ModTime()})
		}
	}
	sort.Slice(blobs, func(i, j int) bool { return blobs[i].time.Before(blobs[j].time) })
	for _, b := range blobs {
		if total <= max {
			return
		}
		if os.Remove(filepath.Join(folder, b.name)) == nil {
			total -= b.size
		}
	}
}

func blobPath(dir string, l ocispec.Descriptor) string {
	return filepath.Join(dir, "blobs", string(l.Digest.Algorithm()), l.Digest.Encoded())
}
