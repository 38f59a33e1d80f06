package integration

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/hostile"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// TestHostile drives the hostile-input table (internal/hostile) through
// every read of the store: by name (Document, ReadFile, Files) and pinned
// to a skill a caller holds (DocumentOf, ReadFileOf, ReadFileUncachedOf,
// FilesOf; reached only when the name resolves, as a caller cannot hold a
// skill it could not look up), over an in-memory tree and over a local
// folder (os.Root).
func TestHostile(t *testing.T) {
	local, err := backends.OpenLocal(testutil.TempTree(t, fixture.Skills()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	for _, src := range []struct {
		name string
		fsys fs.FS
	}{{"memory", fixture.MapFS()}, {"local", local}} {
		t.Run(src.name, func(t *testing.T) {
			s, err := store.New([]store.Source{{Label: "project", Location: "./skills", FS: src.fsys}}, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range hostile.Cases() {
				if c.URIOnly {
					continue
				}
				t.Run(c.Name, func(t *testing.T) { hostileStoreCase(t, s, c) })
			}
		})
	}
}

func hostileStoreCase(t *testing.T, s *store.Store, c hostile.Case) {
	ctx := context.Background()
	w := c.Want
	f, err := s.View(nil).ReadFile(ctx, c.Skill, c.File(), nil)
	checkHostileFile(t, "ReadFile", f, err, w)
	sk, skErr := s.View(nil).Skill(ctx, c.Skill)
	if skErr == nil {
		f, err = s.View(nil).ReadFile(ctx, sk.Name, c.File(), &store.ReadOptions{Skill: sk})
		checkHostileFile(t, "ReadFileOf", f, err, w)
		f, err = s.View(nil).ReadFile(ctx, sk.Name, c.File(), &store.ReadOptions{Skill: sk, Uncached: true})
		checkHostileFile(t, "ReadFileUncachedOf", f, err, w)
	}
	if !c.Doc {
		return
	}
	if w.Outcome != hostile.Served {
		checkHostileErr(t, "Skill", skErr, w)
	}
	d, err := s.View(nil).Document(ctx, c.Skill, nil)
	checkHostileDoc(t, "Document", d, err, w)
	files, err := s.View(nil).Files(ctx, c.Skill, nil)
	checkHostileFiles(t, "Files", files, err, w)
	if skErr == nil {
		d, err = s.View(nil).Document(ctx, sk.Name, &store.ReadOptions{Skill: sk})
		checkHostileDoc(t, "DocumentOf", d, err, w)
		files, err = s.View(nil).Files(ctx, sk.Name, &store.ReadOptions{Skill: sk})
		checkHostileFiles(t, "FilesOf", files, err, w)
	}
}

// checkHostileErr checks a failure: the store's sentinel, and the
// contract's sentence (tools.Describe words the store's errors).
func checkHostileErr(t *testing.T, op string, err error, w hostile.Want) {
	t.Helper()
	if w.Outcome == hostile.Served {
		if err != nil {
			t.Errorf("%s: %v; want it served", op, err)
		}
		return
	}
	if !errors.Is(err, w.Outcome.Err()) {
		t.Errorf("%s: err = %v; want %v", op, err, w.Outcome.Err())
		return
	}
	if msg, _ := tools.Describe(err); msg != w.Msg {
		t.Errorf("%s: message\n got %q\nwant %q", op, msg, w.Msg)
	}
}

// hostileFile is what a test compares of a store.File.
type hostileFile struct {
	Skill, Path, Encoding, Text, Data string
	Size                              int64
	Binary                            bool
}

func checkHostileFile(t *testing.T, op string, f store.File, err error, w hostile.Want) {
	t.Helper()
	if w.Outcome != hostile.Served || err != nil {
		checkHostileErr(t, op, err, w)
		return
	}
	skill, clean, _ := strings.Cut(w.File, "/")
	content := hostile.Content(w.File)
	want := hostileFile{Skill: skill, Path: clean, Size: int64(len(content)), Encoding: "utf-8", Text: content}
	if content == fixture.Binary {
		want.Binary, want.Encoding, want.Text, want.Data = true, "", "", content
	}
	got := hostileFile{Path: f.Path, Encoding: f.Encoding, Text: f.Text, Data: f.Data, Size: f.Size, Binary: f.Binary}
	if f.Skill != nil {
		got.Skill = f.Skill.Name
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", op, diff)
	}
}

func checkHostileDoc(t *testing.T, op string, d store.Document, err error, w hostile.Want) {
	t.Helper()
	if w.Outcome != hostile.Served || err != nil {
		checkHostileErr(t, op, err, w)
		return
	}
	content := hostile.Content(w.File)
	want := hostileFile{Skill: strings.Split(w.File, "/")[0], Text: content, Size: int64(len(content))}
	got := hostileFile{Text: d.Text, Size: d.Size}
	if d.Skill != nil {
		got.Skill = d.Skill.Name
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", op, diff)
	}
}

// checkHostileFiles checks a listing: the skill's files, hidden ones left
// out, sorted, with their sizes.
func checkHostileFiles(t *testing.T, op string, files []store.FileInfo, err error, w hostile.Want) {
	t.Helper()
	if w.Outcome != hostile.Served || err != nil {
		checkHostileErr(t, op, err, w)
		return
	}
	prefix := strings.Split(w.File, "/")[0] + "/"
	var want, got []store.FileInfo
	for p, data := range hostile.VisibleFiles() {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			want = append(want, store.FileInfo{Path: rest, Size: int64(len(data))})
		}
	}
	slices.SortFunc(want, func(a, b store.FileInfo) int { return strings.Compare(a.Path, b.Path) })
	for _, f := range files {
		got = append(got, store.FileInfo{Path: f.Path, Size: f.Size})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", op, diff)
	}
}
