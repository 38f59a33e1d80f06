package unpack_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/unpack"
)

// entry is one entry of a test archive: a file (kind 0), a folder ('d'),
// a symbolic link ('s'), a hard link ('h') or a device ('c').
type entry struct {
	name, body string
	kind       byte
}

func file(name, body string) entry { return entry{name: name, body: body} }

func makeZip(t *testing.T, es []entry) ([]byte, bool) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range es {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		switch e.kind {
		case 'd':
			h.Name = strings.TrimSuffix(e.name, "/") + "/"
		case 's':
			h.SetMode(fs.ModeSymlink | 0o777)
		case 'h', 'c':
			return nil, false // no such entry in a zip
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, e.body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), true
}

func makeTarGz(t *testing.T, es []entry) ([]byte, bool) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range es {
		h := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), Typeflag: tar.TypeReg}
		switch e.kind {
		case 'd':
			h.Typeflag, h.Size = tar.TypeDir, 0
		case 's', 'h':
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.body, 0
			if e.kind == 'h' {
				h.Typeflag = tar.TypeLink
			}
		case 'c':
			h.Typeflag, h.Size = tar.TypeChar, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			io.WriteString(tw, e.body)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	return buf.Bytes(), true
}

// readZip checks a zip with Zip and reads every file, as a source does.
func readZip(b []byte, o unpack.Options) ([]string, error) {
	zr, err := unpack.Zip(bytes.NewReader(b), int64(len(b)), o)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		names = append(names, f.Name)
	}
	return names, nil
}

// readTarGz reads a .tar.gz with Gunzip and Tar, every file's bytes.
func readTarGz(b []byte, o unpack.Options) ([]string, error) {
	r, err := unpack.Gunzip(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	var names []string
	_, err = unpack.Tar(r, o, func(e unpack.Entry) error {
		if e.Dir {
			names = append(names, e.Name+"/")
			return nil
		}
		n, err := io.Copy(io.Discard, e.R)
		if err == nil && n != e.Size {
			err = io.ErrUnexpectedEOF
		}
		names = append(names, e.Name)
		return err
	})
	return names, err
}

// TestHostileArchives: the rules hold alike for zip and tar.gz: bombs,
// too many files, names that leave the archive, are absolute, repeat or
// are not UTF-8, links out, devices and truncated archives are refused
// with an error naming the entry (unsafe ones wrapping ErrUnsafe); a
// plain archive is read whole.
func TestHostileArchives(t *testing.T) {
	zeros := strings.Repeat("\x00", 8<<20) // deflates to about 8 KiB: a ratio of 1,000
	deep := strings.Repeat("d/", 65) + "x"
	base := unpack.Options{MaxEntries: 100, MaxBytes: 1 << 20}
	few := unpack.Options{MaxEntries: 3, MaxBytes: 1 << 20}
	cases := []struct {
		name    string
		entries []entry
		opts    unpack.Options
		cut     func([]byte) []byte // alters the archive's bytes
		zip     string              // in Zip's error; "" if read
		tar     string              // in Tar's error; "" if read
		unsafe  bool                // the error wraps ErrUnsafe
	}{
		{name: "a plain archive", entries: []entry{{name: "a", kind: 'd'}, file("a/SKILL.md", "x"), file("a/b/c.txt", "y")}, opts: base},
		{name: "a bomb: one file's ratio", entries: []entry{file("a/SKILL.md", "x"), file("a/zeros", zeros)}, opts: base,
			zip: "uncompressed size exceeds 1048576 bytes", tar: "uncompressed size exceeds 1048576 bytes", unsafe: true},
		{name: "a bomb: the total size", entries: []entry{file("a/1", zeros[:600<<10]), file("a/2", zeros[:600<<10])}, opts: base,
			zip: "uncompressed size exceeds 1048576 bytes", tar: "uncompressed size exceeds 1048576 bytes", unsafe: true},
		{name: "too many files", entries: []entry{file("1", ""), file("2", ""), file("3", ""), file("4", "")}, opts: few,
			zip: "4 entries (limit 3)", tar: "over 3 entries", unsafe: true},
		{name: "too many folders", entries: []entry{file("a/b/c/1", "")}, opts: few,
			zip: "more than 3 entries, folders included", tar: "", unsafe: true},
		{name: "a parent folder", entries: []entry{file("../evil", "x")}, opts: base,
			zip: `entry "../evil" leaves the archive`, tar: `entry "../evil" leaves the archive`, unsafe: true},
		{name: "a parent folder inside", entries: []entry{file("a/../../evil", "x")}, opts: base,
			zip: `entry "a/../../evil" leaves the archive`, tar: `entry "a/../../evil" leaves the archive`, unsafe: true},
		{name: "a parent folder that comes back", entries: []entry{file("a/../a/x", "x")}, opts: base,
			zip: `entry "a/../a/x" leaves the archive`, tar: `entry "a/../a/x" leaves the archive`, unsafe: true},
		{name: "an absolute name", entries: []entry{file("/etc/passwd", "x")}, opts: base,
			zip: `entry "/etc/passwd" is absolute`, tar: `entry "/etc/passwd" is absolute`, unsafe: true},
		{name: "a drive letter", entries: []entry{file("C:/x", "x")}, opts: base,
			zip: `entry "C:/x" is absolute`, tar: `entry "C:/x" is absolute`, unsafe: true},
		{name: "a backslash", entries: []entry{file(`a\..\..\evil`, "x")}, opts: base,
			zip: `has a backslash`, tar: `has a backslash`, unsafe: true},
		{name: "an unclean name", entries: []entry{file("a//b", "x")}, opts: base,
			zip: `entry "a//b" is not a clean relative path`, tar: `entry "a//b" is not a clean relative path`, unsafe: true},
		{name: "a name that is not UTF-8", entries: []entry{file("a/\xff.md", "x")}, opts: base,
			zip: `entry "a/\\xff.md" is not a clean relative path`, tar: `entry "a/\\xff.md" is not a clean relative path`, unsafe: true},
		{name: "too deep", entries: []entry{file(deep, "x")}, opts: base,
			zip: "nests folders deeper than 64", tar: "nests folders deeper than 64", unsafe: true},
		{name: "a name twice", entries: []entry{file("a/x.md", "1"), file("a/x.md", "2")}, opts: base,
			zip: `entry "a/x.md" appears twice`, tar: `entry "a/x.md" appears twice`, unsafe: true},
		{name: "a file and a folder", entries: []entry{file("a/x", "1"), file("a/x/y", "2")}, opts: base,
			zip: `"a/x" is both a file and a folder`, tar: `"a/x" is both a file and a folder`, unsafe: true},
		{name: "a symbolic link out", entries: []entry{file("a/SKILL.md", "x"), {name: "a/secret", body: "/etc/passwd", kind: 's'}}, opts: base,
			zip: `entry "a/secret" is a symbolic link`, tar: `entry "a/secret" is a link (to "/etc/passwd"): links are refused`, unsafe: true},
		{name: "a hard link out", entries: []entry{file("a/SKILL.md", "x"), {name: "a/secret", body: "../../etc/passwd", kind: 'h'}}, opts: base,
			tar: `entry "a/secret" is a link (to "../../etc/passwd"): links are refused`, unsafe: true},
		{name: "a device", entries: []entry{{name: "a/null", kind: 'c'}}, opts: base,
			tar: `entry "a/null" is not a regular file or a folder (tar type '3'): refused`, unsafe: true},
		{name: "truncated", entries: []entry{file("a/SKILL.md", strings.Repeat("skill text ", 1000))}, opts: base,
			cut: func(b []byte) []byte { return b[:len(b)/2] }, zip: "not a readable zip archive", tar: "unexpected EOF"},
		{name: "data after the end", entries: []entry{file("a/SKILL.md", "x")}, opts: base,
			cut: func(b []byte) []byte { return append(b, "more"...) }, tar: "data follows the end of the gzip stream"},
	}
	formats := []struct {
		name string
		make func(*testing.T, []entry) ([]byte, bool)
		read func([]byte, unpack.Options) ([]string, error)
		want func(i int) string
	}{
		{"zip", makeZip, readZip, func(i int) string { return cases[i].zip }},
		{"tar.gz", makeTarGz, readTarGz, func(i int) string { return cases[i].tar }},
	}
	for _, f := range formats {
		for i, c := range cases {
			t.Run(f.name+"/"+c.name, func(t *testing.T) {
				b, ok := f.make(t, c.entries)
				if !ok {
					t.Skip("no such entry in a " + f.name)
				}
				if c.cut != nil {
					b = c.cut(b)
				}
				names, err := f.read(b, c.opts)
				want := f.want(i)
				switch {
				case want == "" && err != nil:
					t.Fatalf("refused: %v", err)
				case want == "" && len(names) < len(c.entries):
					t.Errorf("read %q of %d entries", names, len(c.entries))
				case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
					t.Errorf("err = %v; want %q", err, want)
				case want != "" && errors.Is(err, unpack.ErrUnsafe) != c.unsafe:
					t.Errorf("err = %v; wraps ErrUnsafe: %v, want %v", err, !c.unsafe, c.unsafe)
				}
			})
		}
	}
}

// TestName: the one check of an entry's name.
func TestName(t *testing.T) {
	for raw, want := range map[string]string{
		"a/b.md":    "a/b.md",
		"a/b/":      "a/b",
		"a/.hidden": "a/.hidden",
		"..a/b":     "..a/b",
	} {
		if got, err := unpack.Name(raw); got != want || err != nil {
			t.Errorf("Name(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for raw, why := range map[string]string{
		"..":     "leaves the archive",
		"a/..":   "leaves the archive",
		"/a":     "is absolute",
		"a\x00b": "is not a clean relative path",
		"./a":    "is not a clean relative path",
		"":       "is not a clean relative path",
	} {
		_, err := unpack.Name(raw)
		var ue *unpack.Error
		if !errors.As(err, &ue) || ue.Reason != why || ue.Entry != raw {
			t.Errorf("Name(%q): %v; want %q", raw, err, why)
		}
	}
}
