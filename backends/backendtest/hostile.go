package backendtest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"syscall"
	"testing"

	"github.com/skillstore/skillstore/internal/hostile"
	"github.com/skillstore/skillstore/store"
)

// runHostile runs the fs-level cases of the hostile-input table
// (internal/hostile: names fs.ValidPath refuses, "..", absolute names,
// backslashes, NUL, trailing slashes) against a backend holding the
// fixture's files (hidden ones left out: a git tree cannot hold
// ".git/config"). Each name is asked for as a caller sends it, unchecked
// and uncleaned, through Open, Stat, ReadFile and ReadDir, at the root
// and, for calculator's files, through fs.Sub as the store reads a skill.
// A hostile skill name must make fs.Sub fail.
func runHostile(t *testing.T, h Harness) {
	files := hostile.VisibleFiles()
	if h.SkillsOnly {
		files = skillsOnly(files)
	}
	b := h.Make(t, files)
	surfaces := []surface{{"Source", b.FS}}
	if h.Upgrades.SnapshotFS {
		surfaces = append(surfaces, surface{"Snapshot", snapshot(t, b.FS)})
	}
	if h.Upgrades.ContextFS {
		view := surfaces[len(surfaces)-1].fsys
		surfaces = append(surfaces, surface{"WithContext", view.(store.ContextFS).WithContext(context.Background())})
	}
	for _, s := range surfaces {
		t.Run(s.name, func(t *testing.T) { runHostileOn(t, s.fsys) })
	}
}

// runHostileOn runs the cases against fsys, one surface of a backend.
func runHostileOn(t *testing.T, fsys fs.FS) {
	root := &hostileView{fsys: fsys}
	sub, err := fs.Sub(fsys, "calculator")
	if err != nil {
		t.Fatal(err)
	}
	calculator := &hostileView{fsys: sub}
	for _, c := range hostile.Cases() {
		if c.FS == 0 || c.URIOnly {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			root.check(t, c.FSName(), c.FSName(), c.FS)
			switch {
			case c.Skill == "calculator":
				calculator.check(t, c.File(), "calculator/"+c.File(), c.FS)
			case !fs.ValidPath(c.Skill):
				if _, err := fs.Sub(fsys, c.Skill); !errors.Is(err, fs.ErrInvalid) {
					t.Errorf("Sub(%q) = %v; want fs.ErrInvalid", c.Skill, err)
				}
			}
		})
	}
}

// hostileView is a filesystem the cases read: the root or a sub-tree.
type hostileView struct {
	fsys fs.FS
	// invalid is how this view refuses a name fs.ValidPath refuses
	// (fs.ErrInvalid or fs.ErrNotExist, as io/fs allows), learned at its
	// first refusal: every later one must be the same.
	invalid error
}

// check asks v for name, whose content (if served) is the fixture's
// fixturePath, and checks the answer is want.
func (v *hostileView) check(t *testing.T, name, fixturePath string, want hostile.FSOutcome) {
	t.Helper()
	if want == hostile.FSServed {
		v.served(t, name, fixturePath)
		return
	}
	f, err := v.fsys.Open(name)
	if err == nil {
		f.Close()
	}
	v.refused(t, "Open", name, err, want)
	_, err = fs.Stat(v.fsys, name)
	v.refused(t, "Stat", name, err, want)
	_, err = fs.ReadFile(v.fsys, name)
	v.refused(t, "ReadFile", name, err, want)
	_, err = fs.ReadDir(v.fsys, name)
	v.refused(t, "ReadDir", name, err, want)
}

// served checks name reads back as the fixture's file, byte for byte.
func (v *hostileView) served(t *testing.T, name, fixturePath string) {
	t.Helper()
	data := []byte(hostile.Content(fixturePath))
	if got, err := fs.ReadFile(v.fsys, name); err != nil || !bytes.Equal(got, data) {
		t.Errorf("ReadFile(%q) = %d bytes, %v; want the %d bytes stored", name, len(got), err, len(data))
	}
	if fi, err := fs.Stat(v.fsys, name); err != nil || fi.IsDir() || fi.Size() != int64(len(data)) {
		t.Errorf("Stat(%q) = %v, %v; want a file of %d bytes", name, fi, err, len(data))
	}
	f, err := v.fsys.Open(name)
	if err != nil {
		t.Errorf("Open(%q): %v", name, err)
		return
	}
	defer f.Close()
	if got, err := io.ReadAll(f); err != nil || !bytes.Equal(got, data) {
		t.Errorf("Open(%q) reads %d bytes, %v; want the %d bytes stored", name, len(got), err, len(data))
	}
}

// refused checks one operation's refusal of name: an *fs.PathError naming
// name, wrapping what want allows.
func (v *hostileView) refused(t *testing.T, op, name string, err error, want hostile.FSOutcome) {
	t.Helper()
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != name {
		t.Errorf("%s(%q) = %v; want an *fs.PathError naming %q", op, name, err, name)
		return
	}
	var ok bool
	switch want {
	case hostile.FSInvalid:
		if v.invalid == nil {
			for _, e := range []error{fs.ErrInvalid, fs.ErrNotExist} {
				if errors.Is(err, e) {
					v.invalid = e
				}
			}
		}
		ok = v.invalid != nil && errors.Is(err, v.invalid)
	case hostile.FSMissing:
		ok = errors.Is(err, fs.ErrNotExist)
	case hostile.FSThroughFile:
		ok = errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
	case hostile.FSNoSuchName:
		ok = errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EINVAL)
	}
	if !ok {
		t.Errorf("%s(%q) = %v; want %s", op, name, err, fsWant(want, v.invalid))
	}
}

func fsWant(want hostile.FSOutcome, invalid error) string {
	switch want {
	case hostile.FSInvalid:
		if invalid != nil {
			return invalid.Error() + ", as this filesystem refuses every invalid name"
		}
		return "fs.ErrInvalid or fs.ErrNotExist (io/fs's refusal of an invalid name)"
	case hostile.FSThroughFile:
		return "fs.ErrNotExist (or ENOTDIR)"
	case hostile.FSNoSuchName:
		return "fs.ErrNotExist (or EINVAL)"
	}
	return "fs.ErrNotExist"
}
