// Package backendtest is the conformance suite every skillstore backend
// runs, shaped like gocloud's blob/drivertest: a backend's test supplies a
// Harness that builds the backend holding given files, changes it when it
// can, and says which of the store's optional upgrades it offers (as
// drivertest's Harness says SupportsCopy).
//
// Run checks, on every filesystem the store reads (the source, its
// snapshot if it is a store.SnapshotFS, its view under a context if it is
// a store.ContextFS), io/fs's contract (fstest.TestFS) and skillstore's
// own needs: traversal is refused, missing files are fs.ErrNotExist,
// listings are sorted, and empty, 1 MiB, binary and UTF-16 files read back
// byte for byte. It then fails a backend whose upgrades differ from the
// Harness's claims, and checks the contract of each one claimed (see
// Upgrades). The contracts that need the backend to change are checked
// only when Backend.Update is given; without it they are skipped, and the
// skip names them.
package backendtest

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/store"
)

// Harness builds backends for the suite and says what they offer.
type Harness struct {
	// Make returns a backend holding exactly files (path → content).
	// Paths use "/" and name only files; folders are implied. Run calls
	// it once for the io/fs checks and once more for each upgrade's
	// contract, with files of its own; each call makes a new backend.
	Make func(t *testing.T, files map[string][]byte) Backend
	// SkillsOnly says the backend holds skill folders only (a published
	// snapshot, a .well-known index): Run leaves out the fixture's files
	// at the root and its folder without a SKILL.md.
	SkillsOnly bool
	// Upgrades are the store's optional interfaces the backend implements.
	Upgrades Upgrades
}

// Backend is a backend under test.
type Backend struct {
	// FS is the backend, as a store.Source's FS.
	FS fs.FS
	// Update, for a backend that can change, replaces its contents with
	// files, the way its origin changes: files written to disk, objects
	// to a bucket, a commit pushed, a snapshot or an index published.
	// Content the origin's format keeps (a snapshot's blobs, a commit's
	// objects, an artifact at its own URL) stays where it was, so a
	// snapshot taken before stays readable. A Refresher's Refresh is
	// called by the suite, not by Update. Nil for a backend that cannot
	// change (an archive, a compiled-in tree).
	Update func(files map[string][]byte)
}

// Fixture returns the files the suite stores: two skills with nested
// folders, an empty file, a 1 MiB file, binary content of every byte
// value, UTF-16 text, a folder without a SKILL.md and a file at the root.
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
		"beta/utf16.txt":              {0xFF, 0xFE, 'h', 0, 'i', 0, ' ', 0, 0x13, 0x27}, // "hi ✓", UTF-16LE with a byte order mark
		"zeta-not-a-skill/readme.txt": []byte("no SKILL.md here"),
		"top-level.txt":               []byte("a file at the root"),
	}
}

// skillsOnly returns the files of files inside a top-level folder that
// holds a SKILL.md.
func skillsOnly(files map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for name, data := range files {
		dir, _, nested := strings.Cut(name, "/")
		if _, skill := files[dir+"/"+store.DocName]; nested && skill {
			out[name] = data
		}
	}
	return out
}

// surface is one filesystem the store reads a backend through.
type surface struct {
	name string
	fsys fs.FS
}

// Run runs the conformance suite against the backends h makes.
func Run(t *testing.T, h Harness) {
	files := Fixture()
	if h.SkillsOnly {
		files = skillsOnly(files)
	}
	b := h.Make(t, files)
	if !t.Run("Upgrades", func(t *testing.T) { checkClaims(t, b.FS, h.Upgrades) }) {
		return // the checks below trust the claims
	}
	surfaces := []surface{{"Source", b.FS}}
	view := b.FS
	if h.Upgrades.SnapshotFS {
		view = snapshot(t, b.FS)
		surfaces = append(surfaces, surface{"Snapshot", view})
	}
	if h.Upgrades.ContextFS {
		surfaces = append(surfaces, surface{"WithContext", view.(store.ContextFS).WithContext(context.Background())})
	}
	for _, s := range surfaces {
		t.Run(s.name, func(t *testing.T) { checkFS(t, s.fsys, files) })
	}
	t.Run("Hostile", func(t *testing.T) { runHostile(t, h) })
	runUpgrades(t, h, view, files)
}

// checkFS checks fsys, holding files, against io/fs's contract and the
// store's needs.
func checkFS(t *testing.T, fsys fs.FS, files map[string][]byte) {
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
	t.Run("Missing", func(t *testing.T) { checkMissing(t, fsys) })
	t.Run("SortedListings", func(t *testing.T) { checkSorted(t, fsys, files) })
	t.Run("Sub", func(t *testing.T) { checkSub(t, fsys) })
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
	if _, err := fs.ReadFile(fsys, "alpha/SKILL.md/x"); err == nil {
		t.Error(`ReadFile("alpha/SKILL.md/x") succeeded`)
	}
}

func errOf[T any](_ T, err error) error { return err }

// dirEntry is what a listing says of one entry.
type dirEntry struct {
	Name string
	Dir  bool
}

// listings returns every folder of files (the root is ".") with its
// entries, sorted by name.
func listings(files map[string][]byte) map[string][]dirEntry {
	dirs := map[string]map[string]bool{".": {}}
	for name := range files {
		dir, rest := ".", name
		for {
			first, more, nested := strings.Cut(rest, "/")
			if dirs[dir] == nil {
				dirs[dir] = map[string]bool{}
			}
			dirs[dir][first] = nested
			if !nested {
				break
			}
			dir, rest = path.Join(dir, first), more
		}
	}
	out := map[string][]dirEntry{}
	for dir, ents := range dirs {
		for name, isDir := range ents {
			out[dir] = append(out[dir], dirEntry{name, isDir})
		}
		slices.SortFunc(out[dir], func(a, b dirEntry) int { return strings.Compare(a.Name, b.Name) })
	}
	return out
}

// checkSorted checks that every folder lists its entries, sorted by name.
func checkSorted(t *testing.T, fsys fs.FS, files map[string][]byte) {
	for dir, want := range listings(files) {
		ents, err := fs.ReadDir(fsys, dir)
		if err != nil {
			t.Errorf("ReadDir(%q): %v", dir, err)
			continue
		}
		got := []dirEntry{}
		for _, e := range ents {
			got = append(got, dirEntry{e.Name(), e.IsDir()})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ReadDir(%q) (-want +got):\n%s", dir, diff)
		}
	}
}

// checkSub reads through fs.Sub, as the store does for one skill (that
// the sub-tree cannot reach its siblings is among the hostile cases).
func checkSub(t *testing.T, fsys fs.FS) {
	sub, err := fs.Sub(fsys, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := fs.ReadFile(sub, "docs/deep/nested.txt"); err != nil || string(got) != "nested" {
		t.Errorf("sub ReadFile = %q, %v", got, err)
	}
	if err := fstest.TestFS(sub, "SKILL.md", "docs/guide.md", "scripts/run.sh"); err != nil {
		t.Error(err)
	}
}
