package ocifs

import (
	"bytes"
	"os"
	"path/filepath"

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
// altered on disk is discarded and fetched anew). Nothing is evicted: the
// folder grows with the layers fetched, as git's cache does with commits.

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
	return data, true
}

// keep writes data, layer l's verified bytes, to the cache; a failure
// costs only the next fetch.
func keep(dir string, l ocispec.Descriptor, data []byte) error {
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
	}
	return err
}

func blobPath(dir string, l ocispec.Descriptor) string {
	return filepath.Join(dir, "blobs", string(l.Digest.Algorithm()), l.Digest.Encoded())
}
