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
// leaves other writers' temporary files alone; with no bound it keeps all;
// a copy of a layer that was not verified is not kept.
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
	keep := func(max int64, d ocispec.Descriptor, data []byte) {
		t.Helper()
		sp := newSpool(dir, max, d)
		if sp == nil {
			t.Fatal("no spool")
		}
		sp.Write(data)
		sp.done(true)
	}
	at := time.Now().Add(-time.Hour)
	for _, b := range []byte("abc") {
		d, data := blob(b)
		keep(300, d, data)
		os.Chtimes(blobPath(dir, d), at, at) // written in this order, a minute apart
		at = at.Add(time.Minute)
	}
	tmp := filepath.Join(filepath.Dir(blobPath(dir, descOf(blob('a')))), ".blob-123")
	os.WriteFile(tmp, make([]byte, 1000), 0o600)
	if got := held(); !slices.Equal(got, []byte("abc")) {
		t.Fatalf("held %q", got)
	}
	c := cached(dir, descOf(blob('a')))
	if c == nil {
		t.Fatal("a is not cached")
	}
	c.Close()
	touch(c.Name()) // a is used: b is now the oldest
	d, data := blob('d')
	keep(300, d, data)
	if got := held(); !slices.Equal(got, []byte("acd")) {
		t.Errorf("after d: held %q, want acd", got)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Errorf("another writer's temporary file: %v", err)
	}
	d, data = blob('e')
	keep(50, d, data) // smaller than the blob: it alone stays
	if got := held(); !slices.Equal(got, []byte("e")) {
		t.Errorf("after e under 50 bytes: held %q", got)
	}
	d, data = blob('b') // read but not verified: not kept, and no temporary file left
	sp := newSpool(dir, -1, d)
	sp.Write(data)
	sp.done(false)
	if got := held(); !slices.Equal(got, []byte("e")) {
		t.Errorf("a copy not verified is kept: held %q", got)
	}
	if tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(blobPath(dir, d)), ".blob-*")); !slices.Equal(tmps, []string{tmp}) {
		t.Errorf("temporary files left: %v", tmps)
	}
	d, data = blob('a')
	keep(-1, d, data)
	if got := held(); !slices.Equal(got, []byte("ae")) {
		t.Errorf("unbounded: held %q", got)
	}
}

func descOf(d ocispec.Descriptor, _ []byte) ocispec.Descriptor { return d }
