package backends_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/backendtest"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

var writeTree = testutil.WriteTree

func TestLocal(t *testing.T) {
	backendtest.Run(t, backendtest.Harness{
		Make: func(t *testing.T, files map[string][]byte) backendtest.Backend {
			dir := t.TempDir()
			writeTree(t, dir, files)
			l, err := backends.OpenLocal(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			return backendtest.Backend{FS: l, Update: func(next map[string][]byte) {
				replaceTree(t, dir, files, next)
				files = next
			}}
		},
		Upgrades: backendtest.Upgrades{Watcher: true},
	})
}

// replaceTree changes dir from holding files to holding next: files next
// lacks are removed, with the folders they leave empty.
func replaceTree(t *testing.T, dir string, files, next map[string][]byte) {
	t.Helper()
	for name := range files {
		if _, kept := next[name]; kept {
			continue
		}
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			if os.Remove(filepath.Join(dir, filepath.FromSlash(d))) != nil {
				break // not empty
			}
		}
	}
	writeTree(t, dir, next)
}

// TestLocalSymlinks checks that links inside the root work and links that
// leave it, or leave a skill's folder, fail as traversal.
func TestLocalSymlinks(t *testing.T) {
	outside := t.TempDir()
	writeTree(t, outside, map[string][]byte{"secret.txt": []byte("secret")})
	dir := t.TempDir()
	writeTree(t, dir, map[string][]byte{
		"a/SKILL.md":     []byte("a"),
		"a/real.md":      []byte("real"),
		"b/SKILL.md":     []byte("b"),
		"skills-sibling": []byte("x"),
	})
	links := map[string]string{
		"a/inside.md":  "real.md",
		"a/escape.txt": filepath.Join(outside, "secret.txt"),
		"a/up.txt":     "../../" + filepath.Base(outside) + "/secret.txt",
		"a/sibling.md": "../b/SKILL.md",
		"a/dirlink":    "../b",
		"linked-skill": "a",
		"a/loop":       "loop",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	l, err := backends.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got, err := fs.ReadFile(l, "a/inside.md"); err != nil || string(got) != "real" {
		t.Errorf("link inside root: %q %v", got, err)
	}
	if got, err := fs.ReadFile(l, "linked-skill/real.md"); err != nil || string(got) != "real" {
		t.Errorf("linked skill folder: %q %v", got, err)
	}
	if _, err := fs.ReadFile(l, "a/escape.txt"); err == nil || !strings.Contains(err.Error(), "escapes") {
		t.Errorf("absolute link out of root: %v", err)
	}
	if _, err := fs.ReadFile(l, "a/up.txt"); err == nil || !strings.Contains(err.Error(), "escapes") {
		t.Errorf("relative link out of root: %v", err)
	}
	// Within the root, a link from one skill into another is allowed...
	if _, err := fs.ReadFile(l, "a/sibling.md"); err != nil {
		t.Errorf("link to sibling through root: %v", err)
	}
	// ...but not through the skill's own sub-tree.
	sub, _ := fs.Sub(l, "a")
	for _, name := range []string{"sibling.md", "dirlink/SKILL.md", "escape.txt", "up.txt"} {
		if _, err := fs.ReadFile(sub, name); err == nil || !strings.Contains(err.Error(), "escapes") {
			t.Errorf("sub-tree link %s: %v", name, err)
		}
	}
	if got, err := fs.ReadFile(sub, "inside.md"); err != nil || string(got) != "real" {
		t.Errorf("sub-tree inner link: %q %v", got, err)
	}
	if _, err := fs.ReadFile(sub, "loop"); err == nil {
		t.Error("symlink loop read succeeded")
	}
	// The error names the relative path, never the host directory.
	_, err = fs.ReadFile(sub, "escape.txt")
	if err != nil && (strings.Contains(err.Error(), dir) || strings.Contains(err.Error(), outside)) {
		t.Errorf("error leaks a host path: %v", err)
	}
}

// zipEntries makes an archive with the named entries in order, repeats
// allowed; a name ending in "/" is a folder entry.
func zipEntries(t testing.TB, names ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range names {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(name, "/") {
			io.WriteString(w, "content of "+name)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestZip(t *testing.T) {
	backendtest.Run(t, backendtest.Harness{Make: func(t *testing.T, files map[string][]byte) backendtest.Backend {
		data := testutil.Zip(t, files)
		a, err := backends.NewArchive(bytes.NewReader(data), int64(len(data)), backends.ArchiveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return backendtest.Backend{FS: a} // an archive never changes
	}, Upgrades: backendtest.Upgrades{RevisionFS: true}})
}

// TestArchiveRevision: an archive's revision is the SHA-256 of its bytes,
// from NewArchive (on first use) and from OpenArchive (as it opens the
// file), so two archives that differ by a byte have two revisions; an
// archive whose bytes cannot be read whole is refused when opened.
func TestArchiveRevision(t *testing.T) {
	sum := func(b []byte) string { return fmt.Sprintf("sha256:%x", sha256.Sum256(b)) }
	one := testutil.Zip(t, map[string][]byte{"pdf/SKILL.md": []byte("---\nname: pdf\ndescription: one\n---\n")})
	two := testutil.Zip(t, map[string][]byte{"pdf/SKILL.md": []byte("---\nname: pdf\ndescription: two\n---\n")})
	for _, data := range [][]byte{one, two} {
		a, err := backends.NewArchive(bytes.NewReader(data), int64(len(data)), backends.ArchiveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := a.Revision(), sum(data); got != want {
			t.Errorf("NewArchive: Revision() = %q; want %q", got, want)
		}
	}
	file := filepath.Join(t.TempDir(), "pack.zip")
	if err := os.WriteFile(file, two, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := backends.Open(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if got, want := src.FS.(store.RevisionFS).Revision(), sum(two); got != want {
		t.Errorf("Open: Revision() = %q; want %q", got, want)
	}
	// A failed read (once the zip's directory, at its end, was read)
	// leaves the revision empty, and the next call reads again.
	r := &flakyReaderAt{data: one}
	a, err := backends.NewArchive(r, int64(len(one)), backends.ArchiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.failing = true
	if got := a.Revision(); got != "" {
		t.Errorf("while reads fail: Revision() = %q; want none", got)
	}
	r.failing = false
	if got := a.Revision(); got != sum(one) {
		t.Errorf("once reads work again: Revision() = %q; want %q", got, sum(one))
	}
}

// flakyReaderAt reads data, or fails every read while failing is set.
type flakyReaderAt struct {
	data    []byte
	failing bool
}

func (r *flakyReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if r.failing {
		return 0, errors.New("read failed")
	}
	return bytes.NewReader(r.data).ReadAt(p, off)
}

func TestZipRefusesUnsafeArchives(t *testing.T) {
	ok := map[string][]byte{"a/SKILL.md": []byte("x")}
	tests := map[string][]byte{
		"dotdot":                testutil.Zip(t, map[string][]byte{"a/SKILL.md": nil, "../evil.sh": nil}),
		"inner":                 testutil.Zip(t, map[string][]byte{"a/../../evil.sh": nil}),
		"absolute":              testutil.Zip(t, map[string][]byte{"/etc/cron.d/evil": nil}),
		"backslash":             testutil.Zip(t, map[string][]byte{`a\..\..\evil`: nil}),
		"drive":                 testutil.Zip(t, map[string][]byte{"C:/evil": nil}),
		"symlink":               testutil.Zip(t, ok, "a/link"),
		"too big":               testutil.Zip(t, map[string][]byte{"a/SKILL.md": bytes.Repeat([]byte("z"), 2048)}),
		"duplicate":             zipEntries(t, "a/SKILL.md", "a/x.md", "a/x.md"),
		"file and folder":       zipEntries(t, "a/SKILL.md", "a/x", "a/x/y.md"),
		"folder and file":       zipEntries(t, "a/SKILL.md", "a/x/y.md", "a/x"),
		"folder entry and file": zipEntries(t, "a/SKILL.md", "a/x/", "a/x"),
	}
	for name, data := range tests {
		_, err := backends.NewArchive(bytes.NewReader(data), int64(len(data)), backends.ArchiveOptions{MaxBytes: 1024})
		if !errors.Is(err, backends.ErrUnsafeArchive) {
			t.Errorf("%s: err = %v; want ErrUnsafeArchive", name, err)
		}
	}
	if _, err := backends.NewArchive(bytes.NewReader([]byte("not a zip")), 9, backends.ArchiveOptions{}); err == nil {
		t.Error("garbage accepted as a zip")
	}
}

// TestSingleSkillArchive serves a .skill file (SKILL.md at the root) as one folder.
func TestSingleSkillArchive(t *testing.T) {
	data := testutil.Zip(t, map[string][]byte{"SKILL.md": []byte("doc"), "references/a.md": []byte("a")})
	file := filepath.Join(t.TempDir(), "pdf-forms.skill")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := backends.Open(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if err := fstest.TestFS(src.FS, "pdf-forms/SKILL.md", "pdf-forms/references/a.md"); err != nil {
		t.Fatal(err)
	}
	if src.Kind != "archive" {
		t.Errorf("kind = %s", src.Kind)
	}
}

func TestAfero(t *testing.T) {
	backendtest.Run(t, backendtest.Harness{Make: func(t *testing.T, files map[string][]byte) backendtest.Backend {
		m := afero.NewMemMapFs()
		write := func(files map[string][]byte) {
			for name, data := range files {
				if err := afero.WriteFile(m, name, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		write(files)
		return backendtest.Backend{FS: backends.NewAfero(m), Update: func(next map[string][]byte) {
			for name := range files {
				if _, kept := next[name]; !kept {
					if err := m.Remove(name); err != nil {
						t.Fatal(err)
					}
				}
			}
			write(next)
			files = next
		}}
	}})
}

func TestEmbedded(t *testing.T) {
	backendtest.Run(t, backendtest.Harness{Make: func(t *testing.T, files map[string][]byte) backendtest.Backend {
		m := fstest.MapFS{}
		for name, data := range files {
			m[name] = &fstest.MapFile{Data: data, Mode: 0o444}
		}
		return backendtest.Backend{FS: backends.NewEmbedded(m)} // compiled in: it never changes
	}})
}

func TestExamples(t *testing.T) {
	ex := backends.Examples()
	ents, err := fs.ReadDir(ex, ".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"code-review", "commit-messages", "writing-skills"}, names); diff != "" {
		t.Errorf("examples (-want +got):\n%s", diff)
	}
	for _, e := range ents {
		if err := fstest.TestFS(ex, e.Name()+"/SKILL.md"); err != nil {
			t.Error(err)
		}
		sub, err := fs.ReadDir(ex, e.Name())
		if err != nil {
			t.Fatal(err)
		}
		nested := false
		for _, s := range sub {
			nested = nested || s.IsDir()
		}
		if !nested {
			t.Errorf("%s has no supporting-file folder", e.Name())
		}
	}
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeTree(t, dir, map[string][]byte{"a/SKILL.md": []byte("x")})
	for _, src := range []string{dir, "file://" + dir, "builtin://"} {
		s, err := backends.Open(ctx, src)
		if err != nil {
			t.Errorf("Open(%q): %v", src, err)
			continue
		}
		if _, err := fs.ReadDir(s.FS, "."); err != nil {
			t.Errorf("Open(%q): ReadDir: %v", src, err)
		}
		s.Close()
	}
	missing, file := filepath.Join(dir, "missing"), filepath.Join(dir, "a", "SKILL.md")
	for _, tc := range []struct{ src, want string }{
		{missing, "skills folder " + missing + " does not exist: file does not exist"},
		{"ftp://host/x", `source ftp://host/x: unknown scheme "ftp"; supported: builtin, file, or a directory or .zip path`},
		{"", "empty source: give a directory, an archive or a URL such as s3://bucket?prefix=skills/"},
		{file, "source " + file + " is a file; give a directory of skill folders or a .zip/.skill archive"},
		{"file://remote-host/x", "file URL file://remote-host/x: only local files are supported (write file:///path)"},
	} {
		if _, err := backends.Open(ctx, tc.src); err == nil || err.Error() != tc.want {
			t.Errorf("Open(%q): %v; want %q", tc.src, err, tc.want)
		}
	}
	if _, err := backends.Open(ctx, missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing dir: %v", err)
	}
}

func TestRedact(t *testing.T) {
	tests := map[string]string{
		"s3://AKIAEXAMPLE:s3cr3t@bucket?region=us-east-1":                        "s3://REDACTED@bucket?region=us-east-1",
		"azblob://c?sig=abc%2Fdef&sv=2020&prefix=skills/":                        "azblob://c?prefix=skills%2F&sig=REDACTED&sv=2020",
		"s3://b?access_key_id=AKIA&secret_access_key=shh&endpoint=http://x:1":    "s3://b?access_key_id=REDACTED&endpoint=http%3A%2F%2Fx%3A1&secret_access_key=REDACTED",
		"s3://b?endpoint=http://minio:s3cr3t@127.0.0.1:9000&use_path_style=true": "s3://b?endpoint=http%3A%2F%2FREDACTED%40127.0.0.1%3A9000&use_path_style=true",
		"./skills":    "./skills",
		"gs://bucket": "gs://bucket",
	}
	for in, want := range tests {
		if got := backends.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestLocalWatch checks that edits to a skill's folder and new skill
// folders are reported.
func TestLocalWatch(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string][]byte{"a/SKILL.md": []byte("v1")})
	l, err := backends.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	changes, err := l.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	expect := func(what string) { t.Helper(); expectChange(t, changes, what) }
	os.WriteFile(filepath.Join(dir, "a", "SKILL.md"), []byte("v2"), 0o644)
	expect("editing a/SKILL.md")
	writeTree(t, dir, map[string][]byte{"b/SKILL.md": []byte("new")})
	expect("adding skill b")
	os.WriteFile(filepath.Join(dir, "b", "SKILL.md"), []byte("edited"), 0o644)
	expect("editing the new skill b")
	cancel()
	for range changes { // closes when ctx ends
	}
}

// expectChange fails t unless changes delivers within 10 seconds.
func expectChange(t *testing.T, changes <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-changes:
	case <-time.After(10 * time.Second):
		t.Fatalf("no change reported after %s", what)
	}
}

// TestLocalWatchPlugins: the skills of plugins are watched, whether the
// plugin is the directory or one of its folders, and when a plugin or a
// skill of one is added after the watch began.
func TestLocalWatchPlugins(t *testing.T) {
	manifest := []byte(`{"$schema": "` + backends.PluginSchema + `", "name": "p"}`)
	for _, root := range []string{"", "plug/"} {
		dir := t.TempDir()
		writeTree(t, dir, map[string][]byte{root + "plugin.json": manifest, root + "skills/a/SKILL.md": []byte("v1")})
		l, err := backends.OpenLocal(dir)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		changes, err := l.Watch(ctx)
		if err != nil {
			t.Fatal(err)
		}
		expect := func(what string) { t.Helper(); expectChange(t, changes, root+": "+what) }
		// burst lets the debounce pass, so that the next change is a burst
		// of its own.
		burst := func() {
			time.Sleep(300 * time.Millisecond) // real time: the OS's file events (fsnotify) arrive on no fake clock
		}
		os.WriteFile(filepath.Join(dir, root+"skills/a/SKILL.md"), []byte("v2"), 0o644)
		expect("editing a plugin's skill")
		writeTree(t, dir, map[string][]byte{root + "skills/b/SKILL.md": []byte("new")})
		expect("adding a skill to a plugin")
		burst()
		os.WriteFile(filepath.Join(dir, root+"skills/b/SKILL.md"), []byte("edited"), 0o644)
		expect("editing the plugin's new skill")
		if root != "" {
			writeTree(t, dir, map[string][]byte{"late/plugin.json": manifest})
			expect("adding a plugin")
			burst()
			writeTree(t, dir, map[string][]byte{"late/skills/c/SKILL.md": []byte("new")})
			expect("adding the new plugin's skills")
			burst()
			os.WriteFile(filepath.Join(dir, "late/skills/c/SKILL.md"), []byte("edited"), 0o644)
			expect("editing the new plugin's skill")
		}
		cancel()
		for range changes {
		}
		l.Close()
	}
}

// TestLocalWatchTooMany: the folders a watch would take count those of
// plugins' skills: over MaxWatchedFolders, Watch says so.
func TestLocalWatchTooMany(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string][]byte{"plug/plugin.json": []byte(`{"$schema": "` + backends.PluginSchema + `", "name": "p"}`)})
	for i := range backends.MaxWatchedFolders {
		if err := os.MkdirAll(filepath.Join(dir, "plug", "skills", fmt.Sprint(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	l, err := backends.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Watch(context.Background()); !errors.Is(err, backends.ErrTooManyToWatch) {
		t.Errorf("Watch: %v", err)
	}
}

// FuzzZip: any bytes opened as a zip archive either fail with an error or
// give a filesystem whose every file can be walked and read, within the
// archive's size limit.
func FuzzZip(f *testing.F) {
	f.Add(testutil.Zip(f, map[string][]byte{"a/SKILL.md": []byte("---\nname: a\n---\n"), "a/x.md": []byte("x")}))
	f.Add(zipEntries(f, "a/SKILL.md", "a/x", "a/x/y"))
	f.Add(testutil.Zip(f, map[string][]byte{"SKILL.md": []byte("doc")}))
	f.Add([]byte("PK\x03\x04 not really"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := backends.NewArchive(bytes.NewReader(data), int64(len(data)), backends.ArchiveOptions{MaxBytes: 1 << 20})
		if err != nil {
			return
		}
		var total int
		fs.WalkDir(a, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if !fs.ValidPath(p) {
				t.Fatalf("invalid path %q", p)
			}
			b, _ := fs.ReadFile(a, p)
			total += len(b)
			return nil
		})
		if total > 1<<20 {
			t.Fatalf("read %d bytes past the limit", total)
		}
	})
}

// TestArchiveFolderBounds: what opening an archive costs is bounded by
// its entries, whatever its paths: a path nested past
// backends.MaxArchiveDepth folders is refused (archive/zip's file system
// lists every folder of every path, each costing its path's length), and
// the folders its paths imply count against MaxEntries beside its files.
func TestArchiveFolderBounds(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("d/", n) + "x.md" }
	nested := map[string][]byte{"a/SKILL.md": nil}
	for i := range 4 {
		nested[fmt.Sprintf("a/f%d/d/x.md", i)] = nil // 4 files, 9 folders
	}
	for _, tc := range []struct {
		name       string
		zip        []byte
		maxEntries int
		want       string // in the error; "" if opened
	}{
		{"a path 64 folders deep", testutil.Zip(t, map[string][]byte{"a/SKILL.md": nil, deep(64): nil}), 0, ""},
		{"a path 65 folders deep", testutil.Zip(t, map[string][]byte{"a/SKILL.md": nil, deep(65): nil}), 0, `nests folders deeper than 64`},
		{"a path 1,000 folders deep", testutil.Zip(t, map[string][]byte{"a/SKILL.md": nil, deep(1000): nil}), 0, `nests folders deeper than 64`},
		{"5 files in 9 folders, 14 entries allowed", testutil.Zip(t, nested), 14, ""},
		{"5 files in 9 folders, 13 entries allowed", testutil.Zip(t, nested), 13, "more than 13 entries, folders included"},
	} {
		_, err := backends.NewArchive(bytes.NewReader(tc.zip), int64(len(tc.zip)), backends.ArchiveOptions{MaxEntries: tc.maxEntries})
		if tc.want == "" && err != nil || tc.want != "" && (!errors.Is(err, backends.ErrUnsafeArchive) || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
}
