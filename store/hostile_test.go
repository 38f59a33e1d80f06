package store_test

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/hostile"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

// TestHostile drives the hostile-input table (internal/hostile) through
// every read of the store, as os/root_test.go drives one table through
// every method of os.Root: the view's Skill, Document, Files and ReadFile
// (also text-only), by name and pinned to the copy a caller holds
// (ReadOptions.Skill, also uncached). Each case runs in two columns:
//
//   - visible: an unrestricted view answers the case's Want;
//   - hidden: a view that hides the skill named (hostile.Filter) answers
//     the case's Hidden column, and so does a store where that skill was
//     never written, word for word: a hidden skill is a missing one.
//
// A pinned read is made with the copy an unrestricted view gives (a
// caller cannot hold a skill it could not look up); through the hiding
// view it fails as a missing skill does. The sources are an in-memory
// tree and a local folder (os.Root).
func TestHostile(t *testing.T) {
	gone := maps.Clone(fixture.Skills())
	for p := range gone {
		if dir, _, _ := strings.Cut(p, "/"); slices.Contains(hostile.HiddenSkills, dir) {
			delete(gone, p)
		}
	}
	for _, src := range []struct {
		name string
		fsys func(map[string][]byte) fs.FS
	}{{"memory", memoryFS}, {"local", func(files map[string][]byte) fs.FS { return localFS(t, files) }}} {
		t.Run(src.name, func(t *testing.T) {
			full := newHostileStore(t, src.fsys(fixture.Skills()))
			missing := newHostileStore(t, src.fsys(gone)).View(nil)
			all, hiding := full.View(nil), full.View(hostile.Filter{})
			for _, c := range hostile.Cases() {
				if c.URIOnly {
					continue
				}
				t.Run(c.Name, func(t *testing.T) {
					ctx := t.Context()
					pin, _ := all.Skill(ctx, c.Skill)
					hidden := c.Hiding()
					for _, op := range storeOps {
						if op.doc && !c.Doc || op.pinned && pin == nil {
							continue
						}
						got, err := op.read(ctx, all, c, pin)
						checkHostile(t, op.name, c, c.Want, op.text, got, err)
						got, hidErr := op.read(ctx, hiding, hidden, pin)
						checkHostile(t, op.name+" hidden", hidden, hidden.Want, op.text, got, hidErr)
						if op.pinned {
							continue // no caller holds a missing skill
						}
						got, missErr := op.read(ctx, missing, hidden, nil)
						checkHostile(t, op.name+" missing", hidden, hidden.Want, op.text, got, missErr)
						if hidErr != nil && missErr != nil && hidErr.Error() != missErr.Error() {
							t.Errorf("%s: a hidden skill's error\n%s\nis not a missing one's\n%s", op.name, hidErr, missErr)
						}
					}
				})
			}
		})
	}
}

func memoryFS(files map[string][]byte) fs.FS {
	m := fstest.MapFS{}
	for p, data := range files {
		m[p] = &fstest.MapFile{Data: data}
	}
	return m
}

// localFS writes files to a folder and opens it as os.Root does.
func localFS(t *testing.T, files map[string][]byte) fs.FS {
	root, err := os.OpenRoot(testutil.TempTree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root.FS()
}

func newHostileStore(t *testing.T, fsys fs.FS) *store.Store {
	t.Helper()
	s, err := store.New([]store.Source{{Label: "project", Location: "./skills", FS: fsys}}, store.Options{Logger: silent})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// storeOp is one read of the store. pin is the copy of the skill a
// caller holds, for a pinned read.
type storeOp struct {
	name   string
	doc    bool // a read of the skill, not of a file: Doc cases only
	pinned bool // pinned to the copy the caller holds
	text   bool // text only: a binary file is refused
	read   func(ctx context.Context, v *store.View, c hostile.Case, pin *store.Skill) (any, error)
}

// readFile is the op reading c.File() with opts, pinned to pin if pinned.
func readFile(name string, pinned bool, opts store.ReadOptions) storeOp {
	return storeOp{name: name, pinned: pinned, text: opts.Text,
		read: func(ctx context.Context, v *store.View, c hostile.Case, pin *store.Skill) (any, error) {
			o, skill := opts, c.Skill
			if pinned {
				o.Skill, skill = pin, pin.Name
			}
			f, err := v.ReadFile(ctx, skill, c.File(), &o)
			return fileAnswer(f), err
		}}
}

var storeOps = []storeOp{
	readFile("ReadFile", false, store.ReadOptions{}),
	readFile("ReadFile text", false, store.ReadOptions{Text: true}),
	readFile("ReadFile pinned", true, store.ReadOptions{}),
	readFile("ReadFile pinned uncached", true, store.ReadOptions{Uncached: true}),
	readFile("ReadFile pinned text", true, store.ReadOptions{Text: true}),
	{name: "Skill", doc: true, read: func(ctx context.Context, v *store.View, c hostile.Case, _ *store.Skill) (any, error) {
		sk, err := v.Skill(ctx, c.Skill)
		if err != nil {
			return nil, err
		}
		return sk.Name, nil
	}},
	{name: "Document", doc: true, read: func(ctx context.Context, v *store.View, c hostile.Case, _ *store.Skill) (any, error) {
		d, err := v.Document(ctx, c.Skill, nil)
		return docAnswer(d), err
	}},
	{name: "Document pinned", doc: true, pinned: true, read: func(ctx context.Context, v *store.View, c hostile.Case, pin *store.Skill) (any, error) {
		d, err := v.Document(ctx, pin.Name, &store.ReadOptions{Skill: pin})
		return docAnswer(d), err
	}},
	{name: "Files", doc: true, read: func(ctx context.Context, v *store.View, c hostile.Case, _ *store.Skill) (any, error) {
		files, err := v.Files(ctx, c.Skill, nil)
		return filesAnswer(files), err
	}},
	{name: "Files pinned", doc: true, pinned: true, read: func(ctx context.Context, v *store.View, c hostile.Case, pin *store.Skill) (any, error) {
		files, err := v.Files(ctx, pin.Name, &store.ReadOptions{Skill: pin})
		return filesAnswer(files), err
	}},
}

// hostileFile is what a test compares of a File or a Document.
type hostileFile struct {
	Skill, Path, Encoding, Text, Data string
	Size                              int64
	Binary                            bool
}

func fileAnswer(f store.File) any {
	got := hostileFile{Path: f.Path, Encoding: f.Encoding, Text: f.Text, Data: f.Data, Size: f.Size, Binary: f.Binary}
	if f.Skill != nil {
		got.Skill = f.Skill.Name
	}
	return got
}

func docAnswer(d store.Document) any {
	got := hostileFile{Text: d.Text, Size: d.Size}
	if d.Skill != nil {
		got.Skill = d.Skill.Name
	}
	return got
}

func filesAnswer(files []store.FileInfo) any {
	var got []store.FileInfo
	for _, f := range files {
		got = append(got, store.FileInfo{Path: f.Path, Size: f.Size})
	}
	return got
}

// served is what op serves for w, a success.
func served(op string, w hostile.Want) any {
	skill, clean, _ := strings.Cut(w.File, "/")
	content := hostile.Content(w.File)
	switch {
	case op == "Skill":
		return skill
	case strings.HasPrefix(op, "Document"):
		return hostileFile{Skill: skill, Text: content, Size: int64(len(content))}
	case strings.HasPrefix(op, "Files"):
		var want []store.FileInfo
		for p, data := range hostile.VisibleFiles() {
			if rest, ok := strings.CutPrefix(p, skill+"/"); ok {
				want = append(want, store.FileInfo{Path: rest, Size: int64(len(data))})
			}
		}
		slices.SortFunc(want, func(a, b store.FileInfo) int { return strings.Compare(a.Path, b.Path) })
		return want
	}
	want := hostileFile{Skill: skill, Path: clean, Size: int64(len(content)), Encoding: "utf-8", Text: content}
	if content == fixture.Binary {
		want.Binary, want.Encoding, want.Text, want.Data = true, "", "", content
	}
	return want
}

// checkHostile checks an answer against w. A failure must be the store's
// *Error of w's kind naming the skill as the caller gave it (the fields
// the contract's sentences are made of; tools.Describe words them, and
// the tools' run of the table checks those words). A text-only read
// refuses a binary file that w serves.
func checkHostile(t *testing.T, op string, c hostile.Case, w hostile.Want, text bool, got any, err error) {
	t.Helper()
	if text && w.Outcome == hostile.Served && hostile.Content(w.File) == fixture.Binary {
		w = hostile.Want{Outcome: hostile.NotText}
	}
	if w.Outcome == hostile.Served {
		if err != nil {
			t.Errorf("%s: %v; want it served", op, err)
		} else if diff := cmp.Diff(served(op, w), got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", op, diff)
		}
		return
	}
	var se *store.Error
	if !errors.As(err, &se) || !errors.Is(err, w.Outcome.Err()) {
		t.Errorf("%s: err = %v; want a *store.Error of %v", op, err, w.Outcome.Err())
		return
	}
	if se.Skill != c.Skill {
		t.Errorf("%s: the error names the skill %q; want %q as given", op, se.Skill, c.Skill)
	}
}
