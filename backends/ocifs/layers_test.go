package ocifs

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillstore/skillstore/internal/testutil"
)

// sparseTar is a tar holding a/SKILL.md and a/holes, a sparse file of
// size bytes of which 512 are stored, in GNU's format of the given kind:
// "0.1" and "1.0" (PAX records), "old" (type 'S'). archive/tar writes
// neither, so the records are written under another prefix and renamed.
func sparseTar(t *testing.T, kind string, size int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	doc := skillDoc("a")
	tw.WriteHeader(&tar.Header{Name: "a/SKILL.md", Mode: 0o644, Size: int64(len(doc))})
	tw.Write([]byte(doc))
	data := bytes.Repeat([]byte("x"), 512)
	h := &tar.Header{Name: "a/holes", Mode: 0o644, Typeflag: tar.TypeReg, Size: 512}
	switch kind {
	case "0.1":
		h.PAXRecords = map[string]string{"XNU.sparse.size": strconv.FormatInt(size, 10), "XNU.sparse.numblocks": "1", "XNU.sparse.map": "0,512"}
	case "1.0":
		h.PAXRecords = map[string]string{"XNU.sparse.major": "1", "XNU.sparse.minor": "0", "XNU.sparse.name": "a/holes", "XNU.sparse.realsize": strconv.FormatInt(size, 10)}
		h.Size = 1024 // the map, in a block of its own, then the data
		data = append(append([]byte("1\n0\n512\n"), make([]byte, 512-8)...), data...)
	case "old":
		h.Format = tar.FormatGNU
	}
	if err := tw.WriteHeader(h); err != nil {
		t.Fatal(err)
	}
	tw.Write(data)
	tw.Close()
	b := bytes.ReplaceAll(buf.Bytes(), []byte("XNU.sparse."), []byte("GNU.sparse."))
	if kind == "old" { // type 'S', one entry of the map (offset 0, 512 bytes), the real size; then the header's checksum again
		at := bytes.Index(b, []byte("a/holes"))
		blk := b[at : at+512]
		blk[156] = tar.TypeGNUSparse
		copy(blk[386:], "00000000000\x00"+"00000001000\x00")
		copy(blk[483:], []byte(strconv.FormatInt(size, 8)+"\x00"))
		copy(blk[148:156], "        ")
		var sum int64
		for _, c := range blk {
			sum += int64(c)
		}
		copy(blk[148:], fmt.Sprintf("%06o\x00 ", sum))
	}
	// The archive reads back as a file of size bytes: what a layer of it
	// would inflate to without the check.
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if h.Name == "a/holes" {
			if n, err := io.Copy(io.Discard, tr); err != nil || n != size {
				t.Fatalf("%s: reads back as %d bytes, %v", kind, n, err)
			}
			return b
		}
	}
}

// TestTarEntryTypes: a layer's entries are regular files and folders
// (whiteouts aside); a sparse file of any of GNU's formats, which
// archive/tar would expand past what the stream holds, is refused like a
// link or a device; a PAX global header, which names no file, is passed
// over.
func TestTarEntryTypes(t *testing.T) {
	r := newReg(t)
	ctx := context.Background()
	withA := func(h ...tar.Header) []byte {
		return tarLayer(t, false, append([]tar.Header{{Name: "a/SKILL.md"}}, h...), map[string]string{"a/SKILL.md": skillDoc("a")})
	}
	for i, c := range []struct {
		name  string
		layer []byte
		want  string // in the public error; "" if served
	}{
		{"a sparse file (PAX 0.1)", sparseTar(t, "0.1", 900<<10), `layer 1: unsafe archive: entry "a/holes" is a sparse file: refused`},
		{"a sparse file (PAX 1.0)", sparseTar(t, "1.0", 900<<10), `layer 1: unsafe archive: entry "a/holes" is a sparse file: refused`},
		{"a sparse file (old GNU)", sparseTar(t, "old", 900<<10), `layer 1: unsafe archive: entry "a/holes" is a sparse file: refused`},
		{"a hard link", withA(tar.Header{Name: "a/b", Typeflag: tar.TypeLink, Linkname: "a/SKILL.md"}), "links are refused"},
		{"a symbolic link", withA(tar.Header{Name: "a/b", Typeflag: tar.TypeSymlink, Linkname: "SKILL.md"}), "links are refused"},
		{"a block device", withA(tar.Header{Name: "a/b", Typeflag: tar.TypeBlock}), "not a regular file"},
		{"a character device", withA(tar.Header{Name: "a/b", Typeflag: tar.TypeChar}), "not a regular file"},
		{"a FIFO", withA(tar.Header{Name: "a/b", Typeflag: tar.TypeFifo}), "not a regular file"},
		{"a contiguous file", withA(tar.Header{Name: "a/b", Typeflag: tar.TypeCont}), "not a regular file"},
		{"a PAX global header", withA(tar.Header{Typeflag: tar.TypeXGlobalHeader, PAXRecords: map[string]string{"comment": "made by git archive"}}), ""},
	} {
		ref := pushManifest(t, r, "types/t"+strconv.Itoa(i), "1", "application/x.other", nil, layerSpec{ocispec.MediaTypeImageLayer, c.layer})
		snap, err := open(t, ref, Options{MaxBytes: 1 << 20}).Snapshot(ctx)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			} else if got := files(t, snap); len(got) != 1 || got["a/SKILL.md"] == "" {
				t.Errorf("%s: %v", c.name, got)
			}
			continue
		}
		var pe *Error
		if !errors.As(err, &pe) || !strings.Contains(pe.Public(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestRepeatedLayers: a layer the manifest lists again is fetched once and
// counts again against the bounds each time: a small layer holding a
// sparse file, listed 64 times, would write 64 times what may be held
// (it is refused); one of 400 KiB listed 6 times under a bound of 2 MiB
// inflated is refused; listed 4 times, it is served.
func TestRepeatedLayers(t *testing.T) {
	r := newReg(t)
	ctx := context.Background()
	repeat := func(l layerSpec, n int) []layerSpec {
		var ls []layerSpec
		for range n {
			ls = append(ls, l)
		}
		return ls
	}
	holes := layerSpec{ocispec.MediaTypeImageLayerGzip, gzipped(sparseTar(t, "0.1", 900<<10))}
	ref := pushManifest(t, r, "rep/holes", "1", "application/x.other", nil, repeat(holes, 64)...)
	if _, err := open(t, ref, Options{MaxBytes: 1 << 20}).Snapshot(ctx); err == nil || !strings.Contains(err.Error(), "sparse file: refused") {
		t.Errorf("a sparse file listed 64 times: %v", err)
	}

	big := layerSpec{ocispec.MediaTypeImageLayerGzip, tarLayer(t, true, []tar.Header{{Name: "a/SKILL.md"}, {Name: "a/zeros"}},
		map[string]string{"a/SKILL.md": skillDoc("a"), "a/zeros": strings.Repeat("\x00", 400<<10)})}
	var gets atomic.Int64
	h := func(w http.ResponseWriter, req *http.Request) bool {
		if req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/blobs/") {
			gets.Add(1)
		}
		return false
	}
	r.hook.Store(&h)
	defer r.hook.Store(nil)
	for _, c := range []struct {
		times int
		want  string
	}{{6, "layer 6: the layers inflate to over 2097152 bytes"}, {4, ""}} {
		ref := pushManifest(t, r, "rep/big"+strconv.Itoa(c.times), "1", "application/x.other", nil, repeat(big, c.times)...)
		gets.Store(0)
		snap, err := open(t, ref, Options{MaxBytes: 1 << 20}).Snapshot(ctx)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("listed %d times: %v, want %q", c.times, err, c.want)
		}
		if err == nil && len(files(t, snap)["a/zeros"]) != 400<<10 {
			t.Errorf("listed %d times: the file is not served whole", c.times)
		}
		if n := gets.Load(); n != 1 {
			t.Errorf("listed %d times: fetched %d times", c.times, n)
		}
	}
}

// sendBlobs makes r send the blobs (digest → bytes) from the map, as it
// is when asked: the in-process registry copies a blob before it sends
// it, and what a test counts must be the fetch's allocations alone.
func (r *reg) sendBlobs(blobs map[string][]byte) {
	h := func(w http.ResponseWriter, req *http.Request) bool {
		_, d, found := strings.Cut(req.URL.Path, "/blobs/")
		b, ok := blobs[d]
		if !found || !ok || req.Method != http.MethodGet {
			return false
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b)
		return true
	}
	r.hook.Store(&h)
}

// gzipped is b as one gzip member.
func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// TestLayersStreamed: a layer is read as it arrives, never held whole: a
// layer padded to 32 MiB after its archive's end costs the fetch far less
// than 32 MiB of allocations, served (a tar's zeros) or refused (bytes
// after the gzip stream); what follows a tar's end is zeros counted as
// inflated, or refused; a gzip stream of several members is read whole;
// the layers' sizes are bounded in all.
func TestLayersStreamed(t *testing.T) {
	r := newReg(t)
	ctx := context.Background()
	const pad = 32 << 20
	small := tarLayer(t, false, []tar.Header{{Name: "a/SKILL.md"}}, map[string]string{"a/SKILL.md": skillDoc("a")})
	smallGz := tarLayer(t, true, []tar.Header{{Name: "a/SKILL.md"}}, map[string]string{"a/SKILL.md": skillDoc("a")})
	padded := func(b []byte, with byte, n int) []byte {
		return append(bytes.Clone(b), bytes.Repeat([]byte{with}, n)...)
	}
	zeros := gzipped(padded(small, 0, 4<<20)) // a tar followed by 4 MiB of zeros

	blobs := map[string][]byte{}
	r.sendBlobs(blobs)

	for i, c := range []struct {
		name   string
		opts   Options
		layers []layerSpec
		want   string // in the public error; "" if served
		alloc  uint64 // at most, if not 0
	}{
		{"a tar padded with 32 MiB of zeros", Options{}, []layerSpec{{ocispec.MediaTypeImageLayer, padded(small, 0, pad)}}, "", 8 << 20},
		{"a tar+gzip padded with 32 MiB", Options{}, []layerSpec{{ocispec.MediaTypeImageLayerGzip, padded(smallGz, 0xff, pad)}}, "layer 1: data follows the end of the gzip stream: refused", 8 << 20},
		{"a tar+gzip padded with zeros", Options{}, []layerSpec{{ocispec.MediaTypeImageLayerGzip, padded(smallGz, 0, 4096)}}, "layer 1: data follows the end of the gzip stream: refused", 0},
		{"a tar+gzip followed by 8 bytes", Options{}, []layerSpec{{ocispec.MediaTypeImageLayerGzip, append(bytes.Clone(smallGz), "trailing"...)}}, "layer 1: data follows the end of the gzip stream: refused", 0},
		{"a tar in two gzip members (as eStargz writes)", Options{}, []layerSpec{{ocispec.MediaTypeImageLayerGzip, append(gzipped(small[:512]), gzipped(small[512:])...)}}, "", 0},
		{"a tar followed by data", Options{}, []layerSpec{{ocispec.MediaTypeImageLayer, append(bytes.Clone(small), "PK\x03\x04"...)}}, "layer 1: data follows the end of the tar archive: refused", 0},
		{"a tar followed by 4 MiB of zeros, gzipped", Options{MaxBytes: 1 << 20}, []layerSpec{{ocispec.MediaTypeImageLayerGzip, zeros}}, "layer 1: the layers inflate to over 2097152 bytes", 0},
		{"three layers of 800 KiB", Options{MaxBytes: 1 << 20}, []layerSpec{
			{ocispec.MediaTypeImageLayer, padded(small, 0, 800<<10)},
			{ocispec.MediaTypeImageLayer, padded(small, 0, 800<<10+512)},
			{ocispec.MediaTypeImageLayer, padded(small, 0, 800<<10+1024)}}, "the layers are 2465280 bytes in all (the limit is 2097152)", 0},
	} {
		for _, l := range c.layers {
			blobs[digest.FromBytes(l.data).String()] = l.data
		}
		ref := pushManifest(t, r, "stream/s"+strconv.Itoa(i), "1", "application/x.other", nil, c.layers...)
		var snap fs.FS
		var err error
		n := testutil.Allocated(func() { snap, err = open(t, ref, c.opts).Snapshot(ctx) })
		if c.alloc != 0 && n > c.alloc {
			t.Errorf("%s: the fetch allocated %d bytes (at most %d)", c.name, n, c.alloc)
		}
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			} else if got := files(t, snap); got["a/SKILL.md"] != skillDoc("a") {
				t.Errorf("%s: %v", c.name, got)
			}
			continue
		}
		var pe *Error
		if !errors.As(err, &pe) || !strings.Contains(pe.Public(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestNamesHeld: what a layer holds counts its entries' names beside
// their bytes, for files (three times, as the snapshot holds them) and
// whiteouts alike: empty files or whiteouts of long names, a gzip layer
// of a few KiB, are refused past MaxBytes as files of that size would
// be; below it they are served. A path nested past
// backends.MaxArchiveDepth folders is refused, as in any archive.
func TestNamesHeld(t *testing.T) {
	r := newReg(t)
	ctx := context.Background()
	long := strings.Repeat("d", 4000)
	layer := func(n int, name func(i int) string) []byte {
		hs := []tar.Header{{Name: "a/SKILL.md"}}
		for i := range n {
			hs = append(hs, tar.Header{Name: name(i)})
		}
		return tarLayer(t, true, hs, map[string]string{"a/SKILL.md": skillDoc("a")})
	}
	file := func(i int) string { return "a/" + long + "/" + strconv.Itoa(i) }
	whiteout := func(i int) string { return "a/.wh." + long + strconv.Itoa(i) }
	for i, c := range []struct {
		name  string
		layer []byte
		want  string // in the public error; "" if served
	}{
		{"300 empty files of 4,000-byte names", layer(300, file), "layer 1: the files and their names add up to over 1048576 bytes"},
		{"300 whiteouts of 4,000-byte names", layer(300, whiteout), "layer 1: the files and their names add up to over 1048576 bytes"},
		{"100 empty files of 4,000-byte names", layer(100, file), "layer 1: the files and their names add up to over 1048576 bytes"},
		{"80 empty files of 4,000-byte names", layer(80, file), ""},
		{"a file 100 folders deep", layer(1, func(int) string { return "a/" + strings.Repeat("d/", 99) + "x" }), "nests folders deeper than 64"},
		{"200 whiteouts of 4,000-byte names", layer(200, whiteout), ""},
	} {
		ref := pushManifest(t, r, "names/n"+strconv.Itoa(i), "1", "application/x.other", nil, layerSpec{ocispec.MediaTypeImageLayerGzip, c.layer})
		snap, err := open(t, ref, Options{MaxBytes: 1 << 20}).Snapshot(ctx)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			} else if got := files(t, snap); got["a/SKILL.md"] != skillDoc("a") {
				t.Errorf("%s: %d files, no a/SKILL.md", c.name, len(got))
			}
			continue
		}
		var pe *Error
		if !errors.As(err, &pe) || !strings.Contains(pe.Public(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
