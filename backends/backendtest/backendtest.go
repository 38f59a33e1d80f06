// Package backendtest is the conformance suite every skillstore backend
// runs, shaped like gocloud's blob/drivertest: a backend's test supplies a
// Harness that builds a filesystem holding given files, and Run checks it
// against io/fs's contract (fstest.TestFS) and skillstore's own needs:
// traversal is refused, missing files are fs.ErrNotExist, listings are
// sorted, and empty, 1 MiB and binary files read back byte for byte.
package backendtest

import (
	"bytes"
	"errors"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
)

// Harness builds backends for the suite.
type Harness interface {
	// MakeFS returns a backend holding exactly files (path → content).
	// Paths use "/" and name only files; folders are implied.
	MakeFS(t *testing.T, files map[string][]byte) fs.FS
}

// HarnessFunc adapts a function to Harness.
type HarnessFunc func(t *testing.T, files map[string][]byte) fs.FS

// MakeFS calls f.
func (f HarnessFunc) MakeFS(t *testing.T, files map[string][]byte) fs.FS { return f(t, files) }

// Fixture returns the files the suite stores: two skills with nested
// folders, an empty file, a 1 MiB file and binary content of every byte value.
func Fixture() map[string][]byte {
	mib := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	all := make([]byte, 512)
	for i := range all {
		all[i] = byte(i)
	}
	return map[string][]byte{
		"alpha/SKILL.md":              []byte("---\nname: alpha\ndescription: First.\n---\n# Alpha\n"),
		"alpha/docs/guide.md":         []byte("# Guide\n"),
		"alpha/docs/deep/nested.txt":  []byte("nested"),
		"alpha/scripts/run.sh":        []byte("#!/bin/sh\necho hi\n"),
		"beta/SKILL.md":               []byte("---\nname: beta\ndescription: Second.\n---\n# Beta\n"),
		"beta/empty.txt":              {},
		"beta/assets/one-mib.bin":     mib,
		"beta/assets/binary.dat":      all,
		"beta/unicode-ü-名前.md":        []byte("ünïcödé ✓"),
		"zeta-not-a-skill/readme.txt": []byte("no SKILL.md here"),
		"top-level.txt":               []byte("a file at the root"),
	}
}

// Run runs the conformance suite against the backend h builds.
func Run(t *testing.T, h Harness) {
	files := Fixture()
	fsys := h.MakeFS(t, files)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)

	t.Run("TestFS", func(t *testing.T) {
		if err := fstest.TestFS(fsys, names...); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("Contents", func(t *testing.T) {
		for _, n := range names {
			got, err := fs.ReadFile(fsys, n)
			if err != nil {
				t.Errorf("ReadFile(%q): %v", n, err)
				continue
			}
			if !bytes.Equal(got, files[n]) {
				t.Errorf("ReadFile(%q): %d bytes differ from the %d stored", n, len(got), len(files[n]))
			}
			fi, err := fs.Stat(fsys, n)
			if err != nil || fi.Size() != int64(len(files[n])) || fi.IsDir() {
				t.Errorf("Stat(%q) = %v, %v; want a file of %d bytes", n, fi, err, len(files[n]))
			}
		}
	})
	t.Run("Traversal", func(t *testing.T) { checkTraversal(t, fsys) })
	t.Run("Missing", func(t *testing.T) { checkMissing(t, fsys) })
	t.Run("SortedListings", func(t *testing.T) { checkSorted(t, fsys) })
	t.Run("Sub", func(t *testing.T) { checkSub(t, fsys) })
	t.Run("Hostile", func(t *testing.T) { runHostile(t, h) })
}

// traversalNames are names no backend may resolve to content outside the
// requested tree. Some are invalid fs paths (fs.ErrInvalid is expected),
// others are valid names that simply do not exist.
var traversalNames = []string{
	"../top-level.txt",
	"../../etc/passwd",
	"/etc/passwd",
	"alpha/../beta/SKILL.md",
	"alpha/../../top-level.txt",
	"./alpha/SKILL.md",
	"alpha//SKILL.md",
	"alpha/SKILL.md/",
	"",
	"..",
	"alpha/..",
	`..\top-level.txt`,
	`alpha\..\beta\SKILL.md`,
	"C:/Windows/win.ini",
	"alpha/SKILL.md\x00.png",
	"%2e%2e/top-level.txt",
}

func checkTraversal(t *testing.T, fsys fs.FS) {
	for _, name := range traversalNames {
		if f, err := fsys.Open(name); err == nil {
			f.Close()
			t.Errorf("Open(%q) succeeded; want an error", name)
		}
		if _, err := fs.ReadFile(fsys, name); err == nil {
			t.Errorf("ReadFile(%q) succeeded; want an error", name)
		}
		if _, err := fs.Stat(fsys, name); err == nil {
			t.Errorf("Stat(%q) succeeded; want an error", name)
		}
		if !fs.ValidPath(name) {
			if _, err := fs.ReadFile(fsys, name); !errors.Is(err, fs.ErrInvalid) && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("ReadFile(%q) = %v; want fs.ErrInvalid or fs.ErrNotExist", name, err)
			}
		}
	}
}

func checkMissing(t *testing.T, fsys fs.FS) {
	for _, name := range []string{"nope", "alpha/nope.md", "alpha/docs/nope/deeper.md", "nope/SKILL.md"} {
		if _, err := fsys.Open(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%q) = %v; want fs.ErrNotExist", name, err)
		}
		if _, err := fs.Stat(fsys, name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat(%q) = %v; want fs.ErrNotExist", name, err)
		}
		if _, err := fs.ReadFile(fsys, name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("ReadFile(%q) = %v; want fs.ErrNotExist", name, err)
		}
		if err := errOf(fs.ReadDir(fsys, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("ReadDir(%q) = %v; want fs.ErrNotExist", name, err)
		}
	}
	// A path through a file is missing, not an error of another kind.
	if _, err := fs.ReadFile(fsys, "top-level.txt/x"); err == nil {
		t.Error(`ReadFile("top-level.txt/x") succeeded`)
	}
}

func errOf[T any](_ T, err error) error { return err }

func checkSorted(t *testing.T, fsys fs.FS) {
	want := map[string][]string{
		".":           {"alpha", "beta", "top-level.txt", "zeta-not-a-skill"},
		"alpha":       {"SKILL.md", "docs", "scripts"},
		"alpha/docs":  {"deep", "guide.md"},
		"beta":        {"SKILL.md", "assets", "empty.txt", "unicode-ü-名前.md"},
		"beta/assets": {"binary.dat", "one-mib.bin"},
	}
	for dir, names := range want {
		ents, err := fs.ReadDir(fsys, dir)
		if err != nil {
			t.Errorf("ReadDir(%q): %v", dir, err)
			continue
		}
		var got []string
		for _, e := range ents {
			got = append(got, e.Name())
			wantDir := !strings.Contains(e.Name(), ".")
			if e.IsDir() != wantDir {
				t.Errorf("ReadDir(%q): %s IsDir = %v", dir, e.Name(), e.IsDir())
			}
		}
		if !slices.Equal(got, names) {
			t.Errorf("ReadDir(%q) = %v; want %v", dir, got, names)
		}
	}
}

// checkSub reads through fs.Sub, as the store does for one skill, and
// checks that the sub-tree cannot reach its siblings.
func checkSub(t *testing.T, fsys fs.FS) {
	sub, err := fs.Sub(fsys, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := fs.ReadFile(sub, "docs/deep/nested.txt"); err != nil || string(got) != "nested" {
		t.Errorf("sub ReadFile = %q, %v", got, err)
	}
	for _, name := range []string{"../beta/SKILL.md", "../top-level.txt", "/beta/SKILL.md", "docs/../../beta/SKILL.md"} {
		if _, err := fs.ReadFile(sub, name); err == nil {
			t.Errorf("sub ReadFile(%q) escaped the sub-tree", name)
		}
	}
	if err := fstest.TestFS(sub, "SKILL.md", "docs/guide.md", "scripts/run.sh"); err != nil {
		t.Error(err)
	}
}
