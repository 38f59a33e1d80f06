package backends_test

import (
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/backendtest"
)

// onDisk is an afero filesystem over a new folder on disk holding files
// (afero.BasePathFs over afero.OsFs), whose own errors name the folder's
// host path, and that folder.
func onDisk(t *testing.T, files map[string][]byte) (afero.Fs, string) {
	dir := t.TempDir()
	writeTree(t, dir, files)
	return afero.NewBasePathFs(afero.NewOsFs(), dir), dir
}

// TestAferoOnDisk runs the conformance suite on an afero filesystem over
// a folder on disk: its hostile cases check that every refusal is an
// *fs.PathError naming the path asked for, not the host path afero's
// error names.
func TestAferoOnDisk(t *testing.T) {
	backendtest.Run(t, backendtest.Harness{Make: func(t *testing.T, files map[string][]byte) backendtest.Backend {
		afs, dir := onDisk(t, files)
		return backendtest.Backend{FS: backends.NewAfero(afs), Update: func(next map[string][]byte) {
			replaceTree(t, dir, files, next)
			files = next
		}}
	}})
}

// TestAferoErrors: every operation's error, on the filesystem and on a
// file it opened, directly and through fs.Sub, names the path in the
// source, never the host path of the folder an afero filesystem on disk
// serves, and still matches what it wraps.
func TestAferoErrors(t *testing.T) {
	afs, dir := onDisk(t, map[string][]byte{"alpha/SKILL.md": []byte("---\nname: alpha\n---\n")})
	fsys := backends.NewAfero(afs)
	sub, err := fs.Sub(fsys, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	open := func(fsys fs.FS, name string) fs.File {
		t.Helper()
		f, err := fsys.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
		is   error // what the error must still match
	}{
		{"Open of a missing file", errOf(fsys.Open("alpha/nope.md")), "open alpha/nope.md: no such file or directory", fs.ErrNotExist},
		{"Stat of a missing file", errOf(fs.Stat(fsys, "alpha/nope.md")), "stat alpha/nope.md: no such file or directory", fs.ErrNotExist},
		{"ReadFile of a missing file", errOf(fs.ReadFile(fsys, "alpha/nope.md")), "open alpha/nope.md: no such file or directory", fs.ErrNotExist},
		{"ReadDir of a missing folder", errOf(fs.ReadDir(fsys, "nope")), "open nope: no such file or directory", fs.ErrNotExist},
		{"ReadDir of a file", errOf(fs.ReadDir(fsys, "alpha/SKILL.md")), "readdirent alpha/SKILL.md: not a directory", nil},
		{"Read of a folder", errOf(open(fsys, "alpha").Read(make([]byte, 8))), "read alpha: is a directory", nil},
		{"ReadAt of a folder", errOf(open(fsys, "alpha").(io.ReaderAt).ReadAt(make([]byte, 8), 0)), "read alpha: is a directory", nil},
		{"Open through fs.Sub", errOf(sub.Open("nope.md")), "open nope.md: no such file or directory", fs.ErrNotExist},
		{"ReadFile through fs.Sub", errOf(fs.ReadFile(sub, "nope.md")), "open nope.md: no such file or directory", fs.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tc.want, tc.err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if strings.Contains(tc.err.Error(), dir) {
				t.Errorf("the error names the host path %s", dir)
			}
			if tc.is != nil && !errors.Is(tc.err, tc.is) {
				t.Errorf("the error does not match %v", tc.is)
			}
		})
	}
}

func errOf[T any](_ T, err error) error { return err }
