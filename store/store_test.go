package store_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// doc returns a SKILL.md with the given name and description.
func doc(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n\n# " + name + "\n\nInstructions.\n"
}

// mapFS builds a MapFS from "path=content" pairs; a path ending in "/" is a folder.
func mapFS(files ...string) fstest.MapFS {
	m := fstest.MapFS{}
	for _, f := range files {
		p, content, _ := strings.Cut(f, "=")
		if strings.HasSuffix(p, "/") {
			m[strings.TrimSuffix(p, "/")] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
			continue
		}
		m[p] = &fstest.MapFile{Data: []byte(content), Mode: 0o644}
	}
	return m
}

func newStore(t testing.TB, opts store.Options, fsys ...fs.FS) *store.Store {
	t.Helper()
	labels := []string{"project", "personal", "org"}
	var srcs []store.Source
	for i, f := range fsys {
		srcs = append(srcs, store.Source{Label: labels[i], Location: "./" + labels[i], FS: f})
	}
	s, err := store.New(srcs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDocumentErrors(t *testing.T) {
	s := newStore(t, store.Options{}, fixture.MapFS())
	ctx := context.Background()
	tests := []struct {
		name    string
		skill   string
		kind    error
		message string
	}{
		{"file not folder", "secret.txt", store.ErrSkillNotFound, "Skill 'secret.txt' not found in skills folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Document(ctx, tt.skill)
			if !errors.Is(err, tt.kind) {
				t.Fatalf("err = %v, want %v", err, tt.kind)
			}
			if contract(err) != tt.message {
				t.Errorf("message:\n got %q\nwant %q", contract(err), tt.message)
			}
		})
	}
}

// skillView is what a test compares of a *store.Skill: Skill has
// unexported fields, and times that differ run to run.
type skillView struct {
	Name, DocPath, Description string
	Source                     store.SourceRef
	Shadows                    []store.SourceRef
	Valid                      bool
}

func viewOf(sk *store.Skill) skillView {
	return skillView{Name: sk.Name, DocPath: sk.DocPath, Description: sk.Description, Source: *sk.Source, Shadows: sk.Shadows, Valid: sk.Valid()}
}

var projectRef = store.SourceRef{Label: "project", Location: "./project"}

func TestDocument(t *testing.T) {
	s := newStore(t, store.Options{}, fixture.MapFS())
	d, err := s.Document(context.Background(), "calculator")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fixture.CalculatorDoc, d.Text); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	if d.Size != int64(len(fixture.CalculatorDoc)) {
		t.Errorf("size = %d; want %d", d.Size, len(fixture.CalculatorDoc))
	}
	want := skillView{Name: "calculator", DocPath: "SKILL.md", Description: "Basic arithmetic operations.", Source: projectRef, Valid: true}
	if diff := cmp.Diff(want, viewOf(d.Skill)); diff != "" {
		t.Errorf("skill (-want +got):\n%s", diff)
	}
}

// ignoreSkill leaves out a File's *Skill (compared where it matters).
var ignoreSkill = cmpopts.IgnoreFields(store.File{}, "Skill")

func TestReadFile(t *testing.T) {
	s := newStore(t, store.Options{}, fixture.MapFS())
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
		f, err := s.ReadText(ctx, "calculator", tt.path)
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
	s := newStore(t, store.Options{}, fixture.MapFS())
	f, err := s.ReadFile(context.Background(), "calculator", "assets/logo.png")
	if err != nil {
		t.Fatal(err)
	}
	want := store.File{Path: "assets/logo.png", Size: int64(len(fixture.Binary)), Binary: true, Data: fixture.Binary, Raw: fixture.Binary}
	if diff := cmp.Diff(want, f, ignoreSkill); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSizeLimit(t *testing.T) {
	big := strings.Repeat("a", 2000)
	fsys := mapFS(
		"big/SKILL.md="+doc("big", "Big.")+big,
		"small/SKILL.md="+doc("small", "Small."),
		"small/large.txt="+big,
		"small/exact.txt="+strings.Repeat("b", 1024),
	)
	s := newStore(t, store.Options{MaxFileSize: 1024}, fsys)
	ctx := context.Background()
	if _, err := s.Document(ctx, "big"); !errors.Is(err, store.ErrTooLarge) || contract(err) != "SKILL.MD too large (>1KB) for skill 'big'" {
		t.Errorf("big SKILL.md: %v", err)
	}
	if _, err := s.ReadText(ctx, "small", "large.txt"); !errors.Is(err, store.ErrTooLarge) || contract(err) != "Cannot read file 'large.txt': file is too large (>1KB)" {
		t.Errorf("large file: %v", err)
	}
	if _, err := s.ReadText(ctx, "small", "exact.txt"); err != nil {
		t.Errorf("file at the limit: %v", err)
	}
	// The default limit is the seed's 1MB.
	fsys["huge/SKILL.md"] = &fstest.MapFile{Data: []byte(doc("huge", "Huge.") + strings.Repeat("x", 1<<20))}
	s = newStore(t, store.Options{}, fsys)
	if _, err := s.Document(ctx, "huge"); err == nil || contract(err) != "SKILL.MD too large (>1MB) for skill 'huge'" {
		t.Errorf("huge: %v", err)
	}
	if _, err := s.Document(ctx, "big"); err != nil {
		t.Errorf("big under default limit: %v", err)
	}
}

func TestEncodings(t *testing.T) {
	utf16le := []byte{0xFF, 0xFE}
	for _, r := range "hé✓" {
		utf16le = append(utf16le, byte(r), byte(r>>8))
	}
	fsys := mapFS(
		"enc/SKILL.md=\uFEFF"+doc("enc", "Encodings."),
		"enc/bom.txt=\uFEFFbom",
		"enc/latin1.txt=caf\xe9 \x80",
		"enc/utf16.txt="+string(utf16le),
		"enc/nul.bin=a\x00b",
		"latin/SKILL.md="+doc("latin", "caf\xe9"),
	)
	s := newStore(t, store.Options{}, fsys)
	ctx := context.Background()
	for _, tt := range []struct{ path, text, enc string }{
		{"bom.txt", "bom", "utf-8"},
		{"latin1.txt", "café €", "windows-1252"},
		{"utf16.txt", "hé✓", "utf-16le"},
	} {
		f, err := s.ReadText(ctx, "enc", tt.path)
		if err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		raw := fsys["enc/"+tt.path].Data
		want := store.File{Path: tt.path, Size: int64(len(raw)), Text: tt.text, Encoding: tt.enc, Raw: string(raw)}
		if diff := cmp.Diff(want, f, ignoreSkill); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.path, diff)
		}
	}
	if _, err := s.ReadText(ctx, "enc", "nul.bin"); !errors.Is(err, store.ErrNotText) ||
		contract(err) != "Cannot read file 'nul.bin': binary content cannot be returned as text; read it as the resource skill://enc/nul.bin" {
		t.Errorf("nul.bin: %v", err)
	}
	// The document is served without its byte order mark.
	d, err := s.Document(ctx, "enc")
	if err != nil || d.Text != doc("enc", "Encodings.") {
		t.Errorf("BOM SKILL.md: %q %v", d.Text, err)
	}
	if _, err := s.Document(ctx, "latin"); !errors.Is(err, store.ErrSkillInvalid) || contract(err) != "Skill 'latin' is invalid: SKILL.md is not valid UTF-8 text" {
		t.Errorf("latin-1 SKILL.md: %q", contract(err))
	}
}

func TestDiscoveryLenient(t *testing.T) {
	fsys := mapFS(
		"good/SKILL.md="+doc("good", "Good."),
		"upper/SKILL.MD="+doc("upper", "Upper-case file name."),
		"lower/skill.md="+doc("lower", "Lower-case file name."),
		"mismatch/SKILL.md="+doc("other-name", "Name differs from folder."),
		"Bad_Name/SKILL.md="+doc("Bad_Name", "Breaks naming rules."),
		"crlf/SKILL.md=---\r\nname: crlf\r\ndescription: Windows line endings.\r\nx-custom: kept\r\n---\r\nBody\r\n",
		"broken-yaml/SKILL.md=---\nname: broken-yaml\ndescription: [unclosed\n---\n",
		"no-desc/SKILL.md=---\nname: no-desc\n---\n",
		"no-frontmatter/SKILL.md=# Just markdown\n",
		"unclosed/SKILL.md=---\nname: unclosed\ndescription: x\n",
		"list-yaml/SKILL.md=---\n- a\n- b\n---\n",
		"empty-folder/",
		".hidden/SKILL.md="+doc("hidden", "Hidden folders are skipped."),
		"README.md=not a skill",
	)
	s := newStore(t, store.Options{}, fsys)
	c, err := s.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []skillView
	for _, sk := range c.Skills {
		got = append(got, viewOf(sk))
	}
	want := []skillView{
		{Name: "Bad_Name", DocPath: "SKILL.md", Description: "Breaks naming rules.", Source: projectRef},
		{Name: "crlf", DocPath: "SKILL.md", Description: "Windows line endings.", Source: projectRef, Valid: true},
		{Name: "good", DocPath: "SKILL.md", Description: "Good.", Source: projectRef, Valid: true},
		{Name: "lower", DocPath: "skill.md", Description: "Lower-case file name.", Source: projectRef, Valid: true},
		{Name: "mismatch", DocPath: "SKILL.md", Description: "Name differs from folder.", Source: projectRef},
		{Name: "upper", DocPath: "SKILL.MD", Description: "Upper-case file name.", Source: projectRef, Valid: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	for _, sk := range c.Skills {
		if sk.Name == "crlf" && (sk.Raw != "name: crlf\r\ndescription: Windows line endings.\r\nx-custom: kept\r\n" || !slices.Equal(sk.Extra, []string{"x-custom"})) {
			t.Errorf("crlf: raw %q, extra %q", sk.Raw, sk.Extra)
		}
	}
	problems := map[string]string{}
	for _, p := range c.Problems {
		problems[p.Skill] = p.Message
	}
	wantProblems := map[string]string{
		"broken-yaml":    "skill is invalid: the YAML frontmatter does not parse: line 1: did not find expected ',' or ']'",
		"no-desc":        "skill is invalid: the frontmatter has no description; add one that says what the skill does and when to use it",
		"no-frontmatter": "skill is invalid: SKILL.md must start with a YAML frontmatter block between '---' lines",
		"unclosed":       "skill is invalid: the YAML frontmatter block has no closing '---' line",
		"list-yaml":      "skill is invalid: the YAML frontmatter must be a mapping of keys to values",
		"empty-folder":   "skill document not found",
	}
	if diff := cmp.Diff(wantProblems, problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	ctx := context.Background()
	if _, err := s.Document(ctx, "broken-yaml"); !errors.Is(err, store.ErrSkillInvalid) || contract(err) != "Skill 'broken-yaml' is invalid: the YAML frontmatter does not parse: line 1: did not find expected ',' or ']'" {
		t.Errorf("broken-yaml: %q", contract(err))
	}
	if _, err := s.Document(ctx, "empty-folder"); !errors.Is(err, store.ErrNoSkillDoc) || contract(err) != "SKILL.MD not found for skill 'empty-folder'" {
		t.Errorf("empty-folder: %q", contract(err))
	}
	if d, err := s.Document(ctx, "upper"); err != nil || d.Text != doc("upper", "Upper-case file name.") {
		t.Errorf("upper: %q %v", d.Text, err)
	}
}

func TestDiscoveryStrict(t *testing.T) {
	fsys := mapFS(
		"good/SKILL.md="+doc("good", "Good."),
		"mismatch/SKILL.md="+doc("other-name", "Name differs."),
	)
	s := newStore(t, store.Options{Strict: true}, fsys)
	ctx := context.Background()
	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []skillView
	for _, sk := range list {
		got = append(got, viewOf(sk))
	}
	if diff := cmp.Diff([]skillView{{Name: "good", DocPath: "SKILL.md", Description: "Good.", Source: projectRef, Valid: true}}, got); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	_, err = s.Document(ctx, "mismatch")
	if !errors.Is(err, store.ErrSkillInvalid) || contract(err) != `Skill 'mismatch' is invalid: it breaks the Agent Skills specification: name: "other-name" does not match the folder name "mismatch"` {
		t.Errorf("mismatch: %q", contract(err))
	}
}

func TestLayering(t *testing.T) {
	project := mapFS("shared/SKILL.md="+doc("shared", "Project copy."), "only-project/SKILL.md="+doc("only-project", "P."))
	personal := mapFS("shared/SKILL.md="+doc("shared", "Personal copy."), "only-personal/SKILL.md="+doc("only-personal", "Q."), "broken/SKILL.md=nope")
	org := mapFS("shared/SKILL.md="+doc("shared", "Org copy."), "broken/SKILL.md="+doc("broken", "Org's working copy."))
	s := newStore(t, store.Options{}, project, personal, org)
	ctx := context.Background()
	c, err := s.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	personalRef := store.SourceRef{Label: "personal", Location: "./personal"}
	orgRef := store.SourceRef{Label: "org", Location: "./org"}
	var got []skillView
	for _, sk := range c.Skills {
		got = append(got, viewOf(sk))
	}
	// A broken copy does not hide a working one, and is still reported.
	want := []skillView{
		{Name: "broken", DocPath: "SKILL.md", Description: "Org's working copy.", Source: orgRef, Valid: true},
		{Name: "only-personal", DocPath: "SKILL.md", Description: "Q.", Source: personalRef, Valid: true},
		{Name: "only-project", DocPath: "SKILL.md", Description: "P.", Source: projectRef, Valid: true},
		{Name: "shared", DocPath: "SKILL.md", Description: "Project copy.", Source: projectRef, Shadows: []store.SourceRef{personalRef, orgRef}, Valid: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	wantShadowed := []store.Shadowed{
		{Name: "shared", Hidden: personalRef, WinnerIn: projectRef},
		{Name: "shared", Hidden: orgRef, WinnerIn: projectRef},
	}
	if diff := cmp.Diff(wantShadowed, c.Shadowed); diff != "" {
		t.Errorf("shadowed (-want +got):\n%s", diff)
	}
	if p, ok := c.Problem("broken"); !ok || p.Source != personalRef || p.Message != "skill is invalid: SKILL.md must start with a YAML frontmatter block between '---' lines" {
		t.Errorf("problem for broken = %+v", p)
	}
	if d, err := s.Document(ctx, "shared"); err != nil || d.Text != doc("shared", "Project copy.") {
		t.Errorf("served %q %v", d.Text, err)
	}
}

func TestSourceFailures(t *testing.T) {
	missing := failFS{fs.ErrNotExist}
	denied := failFS{fs.ErrPermission}
	good := mapFS("a/SKILL.md=" + doc("a", "A."))
	ctx := context.Background()

	s := newStore(t, store.Options{}, missing, good)
	if list, err := s.List(ctx); err != nil || len(list) != 1 || list[0].Name != "a" {
		t.Errorf("one missing source must not hide the other: %v %v", list, err)
	}
	if _, err := newStore(t, store.Options{}, missing).List(ctx); !errors.Is(err, store.ErrSourceNotFound) || contract(err) != "Skills folder not found at path: ./project" {
		t.Errorf("missing: %v", err)
	}
	if _, err := newStore(t, store.Options{}, denied).List(ctx); !errors.Is(err, store.ErrSourcePermission) || contract(err) != "Permission denied reading skills folder" {
		t.Errorf("denied: %v", err)
	}
	if _, err := newStore(t, store.Options{}, failFS{errors.New("dial tcp 10.0.0.1:443: secret-host")}).List(ctx); !errors.Is(err, store.ErrUnavailable) ||
		strings.Contains(err.Error(), "secret-host") || contract(err) != "Cannot read skills folder: the skill source is temporarily unavailable; try again, and if it persists ask the operator to check the server log" {
		t.Errorf("unavailable: %v: %q", err, contract(err))
	}
}

type failFS struct{ err error }

func (f failFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: f.err}
}

func TestRevalidation(t *testing.T) {
	fsys := mapFS("a/SKILL.md="+doc("a", "A."), "a/notes.txt=v1")
	s := newStore(t, store.Options{RevalidateAfter: time.Nanosecond}, fsys)
	ctx := context.Background()
	read := func(want string) {
		t.Helper()
		if f, err := s.ReadText(ctx, "a", "notes.txt"); err != nil || f.Text != want {
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
	s = newStore(t, store.Options{RevalidateAfter: -1}, fsys)
	read("v2!")
	fsys["a/notes.txt"] = &fstest.MapFile{Data: []byte("v3"), ModTime: time.Unix(200, 0)}
	read("v2!")
	s.Invalidate()
	read("v3")
}

func TestRefresh(t *testing.T) {
	fsys := mapFS("a/SKILL.md="+doc("a", "A."), "b/SKILL.md="+doc("b", "B."))
	s := newStore(t, store.Options{}, fsys)
	ctx := context.Background()
	if _, err := s.List(ctx); err != nil {
		t.Fatal(err)
	}
	delete(fsys, "b/SKILL.md")
	delete(fsys, "b")
	fsys["c/SKILL.md"] = &fstest.MapFile{Data: []byte(doc("c", "C."))}
	fsys["a/SKILL.md"] = &fstest.MapFile{Data: []byte(doc("a", "A, changed."))}
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
	s := newStore(t, store.Options{}, fixture.MapFS())
	files, err := s.Files(context.Background(), "calculator")
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
	fsys := mapFS(
		"s/SKILL.md="+doc("s", "Has hidden files."),
		"s/.env=KEY=1",
		"s/.git/config=token",
		"s/.github/workflow.yml=on: push",
		"s/docs/.draft.md=draft",
		"s/docs/guide.md=guide",
	)
	ctx := context.Background()
	s := newStore(t, store.Options{}, fsys)
	files, err := s.Files(ctx, "s")
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
	allowed := newStore(t, store.Options{AllowHidden: []string{".github"}}, fsys)
	if f, err := allowed.ReadText(ctx, "s", ".github/workflow.yml"); err != nil || f.Text != "on: push" {
		t.Errorf("allowed .github: %q %v", f.Text, err)
	}
	if _, err := allowed.ReadText(ctx, "s", ".env"); !errors.Is(err, store.ErrFileNotFound) {
		t.Errorf(".env with .github allowed: %v", err)
	}
	if !s.Hidden("a/.b/c") || s.Hidden("a/b.c/d") || allowed.Hidden(".github/x") {
		t.Error("Hidden")
	}
}

// TestNewKeepsCallerSources: New neither changes the caller's slice nor
// drops its labels; an empty label is shown as "skills".
func TestNewKeepsCallerSources(t *testing.T) {
	fsys := mapFS("a/SKILL.md=" + doc("a", "A."))
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

// contract is the sentence tools show for a store error: the store gives
// the kind and fields, tools the contracts' wording.
func contract(err error) string {
	msg, _ := tools.Describe(err)
	return msg
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
			fsys := &outageFS{files: mapFS("s/SKILL.md="+doc("s", "S."), "s/a.md=cached")}
			s := newStore(t, store.Options{RevalidateAfter: time.Millisecond, MaxStale: tc.maxStale}, fsys)
			ctx := context.Background()
			if _, err := s.ReadText(ctx, "s", "a.md"); err != nil {
				t.Fatal(err)
			}
			fsys.err.Store(&tc.err)
			time.Sleep(5 * time.Millisecond)
			f, err := s.ReadText(ctx, "s", "a.md")
			if served := err == nil && f.Text == "cached"; served != tc.served {
				t.Errorf("served %v (%q, %v); want %v", served, f.Text, err, tc.served)
			}
			if tc.served && s.Stats().ServedStale != 1 {
				t.Errorf("ServedStale = %d", s.Stats().ServedStale)
			}
		})
	}
}
