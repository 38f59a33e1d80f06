package backends_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/store"
)

// program is an executable's stand-in: bytes that hold no bundle.
var program = bytes.Repeat([]byte("\x7fELF program bytes PK\x05\x06 "), 4096)

// bundleFiles are the served files of the fixture's calculator and
// weather skills, as bundle writes them.
func bundleFiles() (map[string][]byte, []backends.BundleFile) {
	want := map[string][]byte{}
	var files []backends.BundleFile
	for p, b := range fixture.Skills() {
		if !strings.HasPrefix(p, "calculator/") && !strings.HasPrefix(p, "weather/") || strings.Contains(p, "/.") {
			continue
		}
		want[p] = b
		files = append(files, backends.BundleFile{Path: p, Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }})
	}
	slices.SortFunc(files, func(a, b backends.BundleFile) int { return strings.Compare(a.Path, b.Path) })
	return want, files
}

func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// makeBundle writes a bundle of exe and files, and returns its path.
func makeBundle(t *testing.T, exe string, files []backends.BundleFile) string {
	t.Helper()
	var buf bytes.Buffer
	n, err := backends.WriteBundle(&buf, exe, files)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteBundle: %d bytes, %v (wrote %d)", n, err, buf.Len())
	}
	return writeFile(t, "bundle", buf.Bytes())
}

// TestBundle: a bundle serves exactly the files given, byte for byte; a
// program that carries none says so; bundling a bundle replaces what it
// carries.
func TestBundle(t *testing.T) {
	exe := writeFile(t, "program", program)
	if _, ok, err := backends.OpenBundle(exe, backends.ArchiveOptions{}); ok || err != nil {
		t.Fatalf("a plain program: %v %v", ok, err)
	}
	want, files := bundleFiles()
	b := makeBundle(t, exe, files)
	data, _ := os.ReadFile(b)
	if !bytes.HasPrefix(data, program) {
		t.Fatal("the bundle does not start with the program")
	}
	src, ok, err := backends.OpenBundle(b, backends.ArchiveOptions{})
	if !ok || err != nil {
		t.Fatalf("OpenBundle: %v %v", ok, err)
	}
	defer src.Close()
	if src.Kind != "bundle" || src.Label != "bundle" || !strings.HasPrefix(src.FS.(store.RevisionFS).Revision(), "sha256:") {
		t.Errorf("source %+v", src)
	}
	got := map[string][]byte{}
	err = fs.WalkDir(src.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		got[p], err = fs.ReadFile(src.FS, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("%d files, want %d", len(got), len(want))
	}
	for p, w := range want {
		if !bytes.Equal(got[p], w) {
			t.Errorf("%s: %q, want %q", p, got[p], w)
		}
	}

	// Bundling a bundle: the program once, the new files alone.
	again := makeBundle(t, b, files[:1])
	data2, _ := os.ReadFile(again)
	if !bytes.HasPrefix(data2, program) || bytes.Count(data2, program) != 1 {
		t.Error("a bundle of a bundle does not hold the program once")
	}
	src2, ok, err := backends.OpenBundle(again, backends.ArchiveOptions{})
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	defer src2.Close()
	if entries, _ := fs.Glob(src2.FS, "*/*"); len(entries) != 1 {
		t.Errorf("a bundle of a bundle holds %v", entries)
	}
}

// TestBundleDamaged: a bundle altered after it was made fails to open,
// saying so, wherever the damage is.
func TestBundleDamaged(t *testing.T) {
	exe := writeFile(t, "program", program)
	_, files := bundleFiles()
	good, _ := os.ReadFile(makeBundle(t, exe, files))
	start := len(program)
	for _, c := range []struct {
		name string
		edit func([]byte) []byte
	}{
		{"a byte of a file's data", func(b []byte) []byte {
			zr, err := zip.NewReader(bytes.NewReader(b[start:]), int64(len(b)-start))
			if err != nil {
				t.Fatal(err)
			}
			off, _ := zr.File[len(zr.File)-1].DataOffset()
			b[start+int(off)+3] ^= 0xff
			return b
		}},
		{"the central directory", func(b []byte) []byte {
			i := bytes.LastIndex(b, []byte("PK\x01\x02"))
			b[i+1] = 'X'
			return b
		}},
		{"the program's length in the end record", func(b []byte) []byte {
			return bytes.Replace(b, []byte("binary="), []byte("binary=9"), 1)
		}},
		{"bytes removed before the archive", func(b []byte) []byte { return append(b[:100:100], b[200:]...) }},
	} {
		b := c.edit(bytes.Clone(good))
		_, ok, err := backends.OpenBundle(writeFile(t, "bad", b), backends.ArchiveOptions{})
		if !ok || !errors.Is(err, backends.ErrDamagedBundle) {
			t.Errorf("%s: %v %v", c.name, ok, err)
		}
	}
	// Cut short, it loses the end record: a program that carries nothing.
	if _, ok, err := backends.OpenBundle(writeFile(t, "cut", good[:len(good)-10]), backends.ArchiveOptions{}); ok || err != nil {
		t.Errorf("cut short: %v %v", ok, err)
	}
}

// TestBundleArchiveRules: what a bundle carries follows the rules of
// every archive: a path that leaves it is refused when written, and the
// size bound applies when it is opened.
func TestBundleArchiveRules(t *testing.T) {
	exe := writeFile(t, "program", program)
	var buf bytes.Buffer
	if _, err := backends.WriteBundle(&buf, exe, []backends.BundleFile{{Path: "../x/SKILL.md", Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("x")), nil }}}); err == nil {
		t.Error("a path out of the archive was written")
	}
	_, files := bundleFiles()
	b := makeBundle(t, exe, files)
	if _, ok, err := backends.OpenBundle(b, backends.ArchiveOptions{MaxBytes: 10}); !ok || !errors.Is(err, backends.ErrDamagedBundle) || !errors.Is(err, backends.ErrUnsafeArchive) {
		t.Errorf("over the size bound: %v %v", ok, err)
	}
}
