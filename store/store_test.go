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
	"time"

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

// calculatorFS is the tree the seed examples use.
func calculatorFS() fstest.MapFS {
	return mapFS(
		"calculator/SKILL.md="+doc("calculator", "Basic arithmetic."),
		"calculator/examples/basic.py=\ndef add(a, b):\n    return a + b\n",
		"calculator/empty.txt=",
		"calculator/docs/advanced/deep.md=# Deep\n",
		"calculator/config.json={\"timeout\": 30}",
		"calculator/unicode.md=héllo wörld — ✓ 日本語",
		"calculator/image.png=\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"weather/SKILL.md="+doc("weather", "Forecasts."),
		"weather/docs/api_reference.md=# Weather API Reference\n",
		"nodoc/README.md=no skill here",
		"secret.txt=outside every skill",
	)
}

func TestDocumentErrors(t *testing.T) {
	s := newStore(t, store.Options{}, calculatorFS())
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

func TestDocument(t *testing.T) {
	s := newStore(t, store.Options{}, calculatorFS())
	d, err := s.Document(context.Background(), "calculator")
	if err != nil {
		t.Fatal(err)
	}
	if d.Text != doc("calculator", "Basic arithmetic.") {
		t.Errorf("text = %q", d.Text)
	}
	if d.Skill.Description != "Basic arithmetic." || d.Skill.Source.Label != "project" {
		t.Errorf("skill = %+v", d.Skill)
	}
}

func TestReadFile(t *testing.T) {
	s := newStore(t, store.Options{}, calculatorFS())
	ctx := context.Background()
	tests := []struct {
		path, want, clean string
	}{
		{"examples/basic.py", "\ndef add(a, b):\n    return a + b\n", "examples/basic.py"},
		{"docs/advanced/deep.md", "# Deep\n", "docs/advanced/deep.md"},
		{"config.json", `{"timeout": 30}`, "config.json"},
		{"empty.txt", "", "empty.txt"},
		{"unicode.md", "héllo wörld — ✓ 日本語", "unicode.md"},
		{"SKILL.md", doc("calculator", "Basic arithmetic."), "SKILL.md"},
	}
	for _, tt := range tests {
		f, err := s.ReadText(ctx, "calculator", tt.path)
		if err != nil {
			t.Errorf("ReadText(%q): %v", tt.path, err)
			continue
		}
		if f.Text != tt.want || f.Path != tt.clean || f.Encoding != "utf-8" || f.Size != int64(len(tt.want)) {
			t.Errorf("ReadText(%q) = %+v", tt.path, f)
		}
	}
}

func TestReadBinary(t *testing.T) {
	s := newStore(t, store.Options{}, calculatorFS())
	f, err := s.ReadFile(context.Background(), "calculator", "image.png")
	if err != nil {
		t.Fatal(err)
	}
	if !f.Binary || f.Data != "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" || f.Text != "" || f.Encoding != "" {
		t.Errorf("got %+v", f)
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
		if err != nil || f.Text != tt.text || f.Encoding != tt.enc {
			t.Errorf("%s: %+v %v", tt.path, f, err)
		}
	}
	if _, err := s.ReadText(ctx, "enc", "nul.bin"); !errors.Is(err, store.ErrNotText) {
		t.Errorf("nul.bin: %v", err)
	}
	d, err := s.Document(ctx, "enc")
	if err != nil || strings.HasPrefix(d.Text, "\uFEFF") {
		t.Errorf("BOM SKILL.md: %q %v", d.Text, err)
	}
	if _, err := s.Document(ctx, "latin"); !errors.Is(err, store.ErrSkillInvalid) {
		t.Errorf("latin-1 SKILL.md: %v", err)
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
	var names []string
	for _, sk := range c.Skills {
		names = append(names, sk.Name)
	}
	if got, want := strings.Join(names, ","), "Bad_Name,crlf,good,lower,mismatch,upper"; got != want {
		t.Errorf("skills = %s, want %s", got, want)
	}
	byName := map[string]*store.Skill{}
	for _, sk := range c.Skills {
		byName[sk.Name] = sk
	}
	if !byName["good"].Valid() || byName["mismatch"].Valid() || byName["Bad_Name"].Valid() {
		t.Errorf("validity wrong: %+v", c.Skills)
	}
	if byName["upper"].DocPath != "SKILL.MD" || byName["lower"].DocPath != "skill.md" {
		t.Errorf("doc paths: %q %q", byName["upper"].DocPath, byName["lower"].DocPath)
	}
	if cr := byName["crlf"]; cr.Description != "Windows line endings." || !cr.Valid() || len(cr.Extra) != 1 || !strings.Contains(cr.Raw, "x-custom: kept") {
		t.Errorf("crlf: %+v", cr)
	}
	problems := map[string]string{}
	for _, p := range c.Problems {
		problems[p.Skill] = p.Message
	}
	for _, name := range []string{"broken-yaml", "no-desc", "no-frontmatter", "unclosed", "list-yaml", "empty-folder"} {
		if problems[name] == "" {
			t.Errorf("no problem reported for %s; problems: %v", name, problems)
		}
	}
	ctx := context.Background()
	if _, err := s.Document(ctx, "broken-yaml"); !errors.Is(err, store.ErrSkillInvalid) || !strings.Contains(err.Error(), "does not parse") {
		t.Errorf("broken-yaml: %v", err)
	}
	if _, err := s.Document(ctx, "empty-folder"); !errors.Is(err, store.ErrNoSkillDoc) {
		t.Errorf("empty-folder: %v", err)
	}
	if d, err := s.Document(ctx, "upper"); err != nil || !strings.Contains(d.Text, "Upper-case") {
		t.Errorf("upper: %v", err)
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
	if err != nil || len(list) != 1 || list[0].Name != "good" {
		t.Fatalf("list = %v, %v", list, err)
	}
	_, err = s.Document(ctx, "mismatch")
	if !errors.Is(err, store.ErrSkillInvalid) || !strings.Contains(err.Error(), "does not match the folder name") {
		t.Errorf("mismatch: %v", err)
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
	if len(c.Skills) != 4 {
		t.Fatalf("skills = %d", len(c.Skills))
	}
	sk, _ := s.Skill(ctx, "shared")
	if sk.Description != "Project copy." || sk.Source.Label != "project" || len(sk.Shadows) != 2 || sk.Shadows[0].Label != "personal" || sk.Shadows[1].Label != "org" {
		t.Errorf("shared = %+v", sk)
	}
	if len(c.Shadowed) != 2 {
		t.Errorf("shadowed = %+v", c.Shadowed)
	}
	// A broken copy does not hide a working one, and is still reported.
	if sk, err := s.Skill(ctx, "broken"); err != nil || sk.Source.Label != "org" {
		t.Errorf("broken = %+v, %v", sk, err)
	}
	if p, ok := c.Problem("broken"); !ok || p.Source.Label != "personal" {
		t.Errorf("problem for broken = %+v", p)
	}
	d, _ := s.Document(ctx, "shared")
	if !strings.Contains(d.Text, "Project copy.") {
		t.Errorf("served %q", d.Text)
	}
}

func TestSourceFailures(t *testing.T) {
	missing := failFS{fs.ErrNotExist}
	denied := failFS{fs.ErrPermission}
	good := mapFS("a/SKILL.md=" + doc("a", "A."))
	ctx := context.Background()

	s := newStore(t, store.Options{}, missing, good)
	if list, err := s.List(ctx); err != nil || len(list) != 1 {
		t.Errorf("one missing source must not hide the other: %v %v", list, err)
	}
	if _, err := newStore(t, store.Options{}, missing).List(ctx); !errors.Is(err, store.ErrSourceNotFound) || contract(err) != "Skills folder not found at path: ./project" {
		t.Errorf("missing: %v", err)
	}
	if _, err := newStore(t, store.Options{}, denied).List(ctx); !errors.Is(err, store.ErrSourcePermission) || contract(err) != "Permission denied reading skills folder" {
		t.Errorf("denied: %v", err)
	}
	if _, err := newStore(t, store.Options{}, failFS{errors.New("dial tcp 10.0.0.1:443: secret-host")}).List(ctx); !errors.Is(err, store.ErrUnavailable) || strings.Contains(err.Error(), "secret-host") {
		t.Errorf("unavailable: %v", err)
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
	f, _ := s.ReadText(ctx, "a", "notes.txt")
	if f.Text != "v1" {
		t.Fatal(f.Text)
	}
	fsys["a/notes.txt"] = &fstest.MapFile{Data: []byte("v2!"), ModTime: time.Unix(100, 0)}
	if f, _ = s.ReadText(ctx, "a", "notes.txt"); f.Text != "v2!" {
		t.Errorf("stale content served: %q", f.Text)
	}
	st := s.Stats()
	if st.BackendReads != 2 || st.Revalidations == 0 {
		t.Errorf("stats = %+v", st)
	}

	// With revalidation off, cached content stands until Invalidate.
	s = newStore(t, store.Options{RevalidateAfter: -1}, fsys)
	s.ReadText(ctx, "a", "notes.txt")
	fsys["a/notes.txt"] = &fstest.MapFile{Data: []byte("v3"), ModTime: time.Unix(200, 0)}
	if f, _ = s.ReadText(ctx, "a", "notes.txt"); f.Text != "v2!" {
		t.Errorf("expected cached v2!, got %q", f.Text)
	}
	s.Invalidate()
	if f, _ = s.ReadText(ctx, "a", "notes.txt"); f.Text != "v3" {
		t.Errorf("after Invalidate got %q", f.Text)
	}
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
	if strings.Join(ch.Added, ",") != "c" || strings.Join(ch.Removed, ",") != "b" || strings.Join(ch.Updated, ",") != "a" {
		t.Errorf("changes = %+v", ch)
	}
}

func TestFiles(t *testing.T) {
	s := newStore(t, store.Options{}, calculatorFS())
	files, err := s.Files(context.Background(), "calculator")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	want := "SKILL.md,config.json,docs/advanced/deep.md,empty.txt,examples/basic.py,image.png,unicode.md"
	if strings.Join(paths, ",") != want {
		t.Errorf("files = %v", paths)
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
	got := s.Sources()
	if got[0].Label != "team" || got[1].Label != "skills" {
		t.Errorf("labels %+v", got)
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
