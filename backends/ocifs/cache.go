package ocifs

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/skillstore/skillstore/internal/readall"
)

// CacheEnv names the environment variable that gives the registered
// opener's Options.CacheDir (the command's --oci-cache).
const CacheEnv = "SKILLSTORE_OCI_CACHE"

// The layer cache (Options.CacheDir): each verified layer is kept in
// DIR/blobs/sha256/HEX (mode 0600 in folders of 0700), written to a
// temporary file and renamed, so a reader sees a whole blob or none. A
// blob read back is verified against its digest again before use (a file
// altered on disk is discarded and fetched anew), and its time set to the
// read's. After each blob written, the oldest blobs (by that time) are
// removed until the folder holds at most Options.CacheMax bytes (default
// 1 GiB); the blob just written is kept whatever its size. A layer a
// server serves is held in memory: evicting its copy costs only a fetch
// at the next start. Processes sharing the folder each evict by the same
// rule.

// CacheMaxEnv names the environment variable that gives the registered
// opener's Options.CacheMax, in bytes (the command's --oci-cache-max).
const CacheMaxEnv = "SKILLSTORE_OCI_CACHE_MAX"

// DefaultCacheMax is the layer cache's bound when Options.CacheMax is 0.
const DefaultCacheMax = 1 << 30

// cached returns the cached bytes of layer l, verified, if the cache
// holds them.
func cached(dir string, l ocispec.Descriptor) ([]byte, bool) {
	if dir == "" || l.Digest.Validate() != nil {
		return nil, false
	}
	p := blobPath(dir, l)
	f, err := os.OpenFile(p, os.O_RDONLY|cacheOpenFlags, 0) // a FIFO or a link put there is not followed nor waited on (on Unix)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() != l.Size {
		return nil, false
	}
	data, err := readall.Read(f, l.Size, l.Size) // no further than its size, should it grow
	if err != nil {
		return nil, false
	}
	if _, err := content.ReadAll(bytes.NewReader(data), l); err != nil {
		os.Remove(p) // altered on disk: fetched again
		return nil, false
	}
	now := time.Now()
	os.Chtimes(p, now, now) // used: the last to be evicted
	return data, true
}

// keep writes data, layer l's verified bytes, to the cache, then evicts
// the oldest blobs over max bytes (none when max is negative); a failure
// costs only the next fetch.
func keep(dir string, max int64, l ocispec.Descriptor, data []byte) error {
	if dir == "" || l.Digest.Validate() != nil {
		return nil
	}
	p := blobPath(dir, l)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".blob-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if max >= 0 {
		evict(filepath.Dir(p), max, filepath.Base(p))
	}
	return nil
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
