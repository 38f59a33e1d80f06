package store_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/storetest"
	"github.com/skillstore/skillstore/store"
)

func TestDocument(t *testing.T) {
	s := storetest.New(t, store.Options{}, fixture.MapFS())
	d, err := s.View(nil).Document(context.Background(), "calculator", nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fixture.CalculatorDoc, d.Text); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	if d.Size != int64(len(fixture.CalculatorDoc)) {
		t.Errorf("size = %d; want %d", d.Size, len(fixture.CalculatorDoc))
	}
	want := storetest.SkillView{Name: "calculator", DocPath: "SKILL.md", Description: "Basic arithmetic operations.", Source: storetest.ProjectRef, Valid: true}
	if diff := cmp.Diff(want, storetest.ViewOf(d.Skill)); diff != "" {
		t.Errorf("skill (-want +got):\n%s", diff)
	}
}

// ignoreSkill leaves out a File's *Skill (compared where it matters).
var ignoreSkill = cmpopts.IgnoreFields(store.File{}, "Skill")

func TestReadFile(t *testing.T) {
	s := storetest.New(t, store.Options{}, fixture.MapFS())
	ctx := context.Background()
	tests := []struct {
		path, want, clean string
	}{
		{"examples/basic.py", fixture.BasicPy, "examples/basic.py"},
		{"docs/deep/notes.md", fixture.Notes, "docs/deep/notes.md"},
		{"config.json", fixture.ConfigJSON, "config.json"},
		{"empty.txt", "", "empty.txt"},
		{"unicode.md", fixture.Unicode, "unicode.md"},
		{"SKILL.md", fixture.CalculatorDoc, "SKILL.md"},
	}
	for _, tt := range tests {
		f, err := s.View(nil).ReadFile(ctx, "calculator", tt.path, &store.ReadOptions{Text: true})
		if err != nil {
			t.Errorf("ReadText(%q): %v", tt.path, err)
			continue
		}
		want := store.File{Path: tt.clean, Size: int64(len(tt.want)), Text: tt.want, Encoding: "utf-8", Raw: tt.want}
		if diff := cmp.Diff(want, f, ignoreSkill); diff != "" {
			t.Errorf("ReadText(%q) (-want +got):\n%s", tt.path, diff)
		}
		if f.Skill == nil || f.Skill.Name != "calculator" {
			t.Errorf("ReadText(%q): skill %+v", tt.path, f.Skill)
		}
	}
}

func TestReadBinary(t *testing.T) {
	s := storetest.New(t, store.Options{}, fixture.MapFS())
	f, err := s.View(nil).ReadFile(context.Background(), "calculator", "assets/logo.png", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := store.File{Path: "assets/logo.png", Size: int64(len(fixture.Binary)), Binary: true, Data: fixture.Binary, Raw: fixture.Binary}
	if diff := cmp.Diff(want, f, ignoreSkill); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestLayering(t *testing.T) {
	project := storetest.MapFS("shared/SKILL.md="+storetest.Doc("shared", "Project copy."), "only-project/SKILL.md="+storetest.Doc("only-project", "P."))
	personal := storetest.MapFS("shared/SKILL.md="+storetest.Doc("shared", "Personal copy."), "only-personal/SKILL.md="+storetest.Doc("only-personal", "Q."), "broken/SKILL.md=nope")
	org := storetest.MapFS("shared/SKILL.md="+storetest.Doc("shared", "Org copy."), "broken/SKILL.md="+storetest.Doc("broken", "Org's working copy."))
	s := storetest.New(t, store.Options{}, project, personal, org)
	ctx := context.Background()
	c, err := s.View(nil).Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	personalRef := store.SourceRef{Label: "personal", Location: "./personal"}
	orgRef := store.SourceRef{Label: "org", Location: "./org"}
	var got []storetest.SkillView
	for _, sk := range c.Skills {
		got = append(got, storetest.ViewOf(sk))
	}
	// A broken copy does not hide a working one, and is still reported.
	want := []storetest.SkillView{
		{Name: "broken", DocPath: "SKILL.md", Description: "Org's working copy.", Source: orgRef, Valid: true},
		{Name: "only-personal", DocPath: "SKILL.md", Description: "Q.", Source: personalRef, Valid: true},
		{Name: "only-project", DocPath: "SKILL.md", Description: "P.", Source: storetest.ProjectRef, Valid: true},
		{Name: "shared", DocPath: "SKILL.md", Description: "Project copy.", Source: storetest.ProjectRef, Shadows: []store.SourceRef{personalRef, orgRef}, Valid: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	wantShadowed := []store.Shadowed{
		{Name: "shared", Hidden: personalRef, WinnerIn: storetest.ProjectRef},
		{Name: "shared", Hidden: orgRef, WinnerIn: storetest.ProjectRef},
	}
	if diff := cmp.Diff(wantShadowed, c.Shadowed); diff != "" {
		t.Errorf("shadowed (-want +got):\n%s", diff)
	}
	if p, ok := c.Problem("broken"); !ok || p.Source != personalRef || p.Message != "skill is invalid: SKILL.md must start with a YAML frontmatter block between '---' lines" {
		t.Errorf("problem for broken = %+v", p)
	}
	if d, err := s.View(nil).Document(ctx, "shared", nil); err != nil || d.Text != storetest.Doc("shared", "Project copy.") {
		t.Errorf("served %q %v", d.Text, err)
	}
}

func TestRevalidation(t *testing.T) {
	fsys := storetest.MapFS("a/SKILL.md="+storetest.Doc("a", "A."), "a/notes.txt=v1")
	s := storetest.New(t, store.Options{RevalidateAfter: time.Nanosecond}, fsys)
	ctx := context.Background()
	read := func(want string) {
		t.Helper()
		if f, err := s.View(nil).ReadFile(ctx, "a", "notes.txt", &store.ReadOptions{Text: true}); err != nil || f.Text != want {
			t.Errorf("notes.txt = %q, %v; want %q", f.Text, err, want)
		}
	}
	read("v1")
	fsys["a/notes.txt"] = &fstest.MapFile{Data: []byte("v2!"), ModTime: time.Unix(100, 0)}
	read("v2!")
	st := s.Stats()
	if st.BackendReads != 2 || st.Revalidations == 0 {
		t.Errorf("stats = %+v", st)
	}

	// With revalidation off, cached content stands until Invalidate.
	s = storetest.New(t, store.Options{RevalidateAfter: -1}, fsys)
	read("v2!")
	fsys["a/notes.txt"] = &fstest.MapFile{Data: []byte("v3"), ModTime: time.Unix(200, 0)}
	read("v2!")
	s.Invalidate()
	read("v3")
}

func TestRefresh(t *testing.T) {
	fsys := storetest.MapFS("a/SKILL.md="+storetest.Doc("a", "A."), "b/SKILL.md="+storetest.Doc("b", "B."))
	s := storetest.New(t, store.Options{}, fsys)
	ctx := context.Background()
	if _, err := s.View(nil).List(ctx); err != nil {
		t.Fatal(err)
	}
	delete(fsys, "b/SKILL.md")
	delete(fsys, "b")
	fsys["c/SKILL.md"] = &fstest.MapFile{Data: []byte(storetest.Doc("c", "C."))}
	fsys["a/SKILL.md"] = &fstest.MapFile{Data: []byte(storetest.Doc("a", "A, changed."))}
	ch, err := s.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := store.Changes{Added: []string{"c"}, Removed: []string{"b"}, Updated: []string{"a"}}
	if diff := cmp.Diff(want, ch); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

func TestFiles(t *testing.T) {
	s := storetest.New(t, store.Options{}, fixture.MapFS())
	files, err := s.View(nil).Files(context.Background(), "calculator", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Every file of the folder but the hidden ones, sorted, with its size.
	type pathSize struct {
		Path string
		Size int64
	}
	var got, want []pathSize
	for _, f := range files {
		got = append(got, pathSize{f.Path, f.Size})
	}
	tree := fixture.Skills()
	for _, p := range fixture.CalculatorFiles() {
		want = append(want, pathSize{p, int64(len(tree["calculator/"+p]))})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

// TestHiddenPaths: a path with a hidden segment is neither listed nor
// served (reads of hidden paths are internal/hostile's cases); AllowHidden
// names exceptions.
func TestHiddenPaths(t *testing.T) {
	fsys := storetest.MapFS(
		"s/SKILL.md="+storetest.Doc("s", "Has hidden files."),
		"s/.env=KEY=1",
		"s/.git/config=token",
		"s/.github/workflow.yml=on: push",
		"s/docs/.draft.md=draft",
		"s/docs/guide.md=guide",
	)
	ctx := context.Background()
	s := storetest.New(t, store.Options{}, fsys)
	files, err := s.View(nil).Files(ctx, "s", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	if strings.Join(got, ",") != "SKILL.md,docs/guide.md" {
		t.Errorf("Files = %v", got)
	}
	allowed := storetest.New(t, store.Options{AllowHidden: []string{".github"}}, fsys)
	if f, err := allowed.View(nil).ReadFile(ctx, "s", ".github/workflow.yml", &store.ReadOptions{Text: true}); err != nil || f.Text != "on: push" {
		t.Errorf("allowed .github: %q %v", f.Text, err)
	}
	if _, err := allowed.View(nil).ReadFile(ctx, "s", ".env", &store.ReadOptions{Text: true}); !errors.Is(err, store.ErrFileNotFound) {
		t.Errorf(".env with .github allowed: %v", err)
	}
	for _, c := range []struct {
		s    *store.Store
		path string
		want string // the text served, or "" for not found
	}{
		{s, "docs/.draft.md", ""},
		{s, ".git/config", ""},
		{allowed, "docs/.draft.md", ""},
		{allowed, ".github/workflow.yml", "on: push"},
		{s, "docs/guide.md", "guide"},
	} {
		f, err := c.s.View(nil).ReadFile(ctx, "s", c.path, nil)
		if c.want == "" && !errors.Is(err, store.ErrFileNotFound) || c.want != "" && (err != nil || f.Text != c.want) {
			t.Errorf("%s: %q, %v; want %q", c.path, f.Text, err, c.want)
		}
	}
}

// TestNewKeepsCallerSources: New neither changes the caller's slice nor
// drops its labels; an empty label is shown as "skills".
func TestNewKeepsCallerSources(t *testing.T) {
	fsys := storetest.MapFS("a/SKILL.md=" + storetest.Doc("a", "A."))
	sources := []store.Source{{Label: "team", Location: "x", FS: fsys}, {Location: "y", FS: fsys}}
	before := fmt.Sprint(sources)
	s, err := store.New(sources, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if after := fmt.Sprint(sources); after != before {
		t.Errorf("the caller's slice changed: %s, was %s", after, before)
	}
	var labels []string
	for _, src := range s.Sources() {
		labels = append(labels, src.Label)
	}
	if diff := cmp.Diff([]string{"team", "skills"}, labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
}

// outageFS serves files until told to fail, then fails every call with
// err (an outage, or the file being gone).
type outageFS struct {
	files fstest.MapFS
	err   atomic.Pointer[error]
}

func (o *outageFS) Open(name string) (fs.File, error) {
	if e := o.err.Load(); e != nil && name != "." {
		return nil, &fs.PathError{Op: "open", Path: name, Err: *e}
	}
	return o.files.Open(name)
}

// TestStaleIfError: while a source fails, a cached file checked within
// MaxStale is served; past MaxStale, or when the source says the file is
// gone, the error is returned.
func TestStaleIfError(t *testing.T) {
	outage := errors.New("dial tcp: connection refused")
	for _, tc := range []struct {
		name     string
		maxStale time.Duration
		err      error
		served   bool
	}{
		{"outage within max-stale", time.Hour, outage, true},
		{"outage with stale serving off", -1, outage, false},
		{"outage past max-stale", time.Nanosecond, outage, false},
		{"file gone", time.Hour, fs.ErrNotExist, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fsys := &outageFS{files: storetest.MapFS("s/SKILL.md="+storetest.Doc("s", "S."), "s/a.md=cached")}
				s := storetest.New(t, store.Options{RevalidateAfter: time.Millisecond, MaxStale: tc.maxStale}, fsys)
				ctx := context.Background()
				if _, err := s.View(nil).ReadFile(ctx, "s", "a.md", &store.ReadOptions{Text: true}); err != nil {
					t.Fatal(err)
				}
				fsys.err.Store(&tc.err)
				time.Sleep(5 * time.Millisecond) // fake time: past RevalidateAfter
				f, err := s.View(nil).ReadFile(ctx, "s", "a.md", &store.ReadOptions{Text: true})
				if served := err == nil && f.Text == "cached"; served != tc.served {
					t.Errorf("served %v (%q, %v); want %v", served, f.Text, err, tc.served)
				}
				if tc.served && s.Stats().ServedStale != 1 {
					t.Errorf("ServedStale = %d", s.Stats().ServedStale)
				}
			})
		})
	}
}
