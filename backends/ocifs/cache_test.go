package ocifs

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
)

// TestCacheEvicts: over its bound, the cache removes the least recently
// used blobs (a read counts as a use), never the one just written, and
// leaves other writers' temporary files alone; with no bound it keeps all.
func TestCacheEvicts(t *testing.T) {
	dir := t.TempDir()
	blob := func(b byte) (ocispec.Descriptor, []byte) {
		data := bytes.Repeat([]byte{b}, 100)
		return content.NewDescriptorFromBytes(ocispec.MediaTypeImageLayerGzip, data), data
	}
	held := func() (out []byte) {
		for _, b := range []byte("abcde") {
			if _, err := os.Stat(blobPath(dir, descOf(blob(b)))); err == nil {
				out = append(out, b)
			}
		}
		return out
	}
	at := time.Now().Add(-time.Hour)
	for _, b := range []byte("abc") {
		d, data := blob(b)
		if err := keep(dir, 300, d, data); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(blobPath(dir, d), at, at) // written in this order, a minute apart
		at = at.Add(time.Minute)
	}
	tmp := filepath.Join(filepath.Dir(blobPath(dir, descOf(blob('a')))), ".blob-123")
	os.WriteFile(tmp, make([]byte, 1000), 0o600)
	if got := held(); !slices.Equal(got, []byte("abc")) {
		t.Fatalf("held %q", got)
	}
	if _, ok := cached(dir, descOf(blob('a'))); !ok { // a is used: b is now the oldest
		t.Fatal("a is not cached")
	}
	d, data := blob('d')
	keep(dir, 300, d, data)
	if got := held(); !slices.Equal(got, []byte("acd")) {
		t.Errorf("after d: held %q, want acd", got)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Errorf("another writer's temporary file: %v", err)
	}
	d, data = blob('e')
	keep(dir, 50, d, data) // smaller than the blob: it alone stays
	if got := held(); !slices.Equal(got, []byte("e")) {
		t.Errorf("after e under 50 bytes: held %q", got)
	}
	d, data = blob('a')
	keep(dir, -1, d, data)
	if got := held(); !slices.Equal(got, []byte("ae")) {
		t.Errorf("unbounded: held %q", got)
	}
}

func descOf(d ocispec.Descriptor, _ []byte) ocispec.Descriptor { return d }
