package wellknown_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/wellknown"
	"github.com/skillstore/skillstore/discovery"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/mcpserver"
	skillsite "github.com/skillstore/skillstore/site"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

func doc(name, desc string) []byte {
	return []byte("---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\n")
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

func tarGz(t *testing.T, entries ...*tar.Header) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, h := range entries {
		data := []byte(h.Linkname)
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(data))
			h.Linkname = ""
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(data); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// reg is a regular tar entry; its content rides in Linkname until tarGz.
func reg(name, content string) *tar.Header {
	return &tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Linkname: content}
}

// site writes a hand-made .well-known tree and serves it with a plain
// static file server; it counts requests for the index.
func site(t *testing.T) (*httptest.Server, *atomic.Int64) {
	dir := t.TempDir()
	wk := filepath.Join(dir, ".well-known", "agent-skills")
	if err := os.MkdirAll(filepath.Join(wk, "plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		if err := os.WriteFile(filepath.Join(wk, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		return sum(data)
	}
	plain := write("plain/SKILL.md", doc("plain", "Only a document."))
	zipped := write("zipped.zip", testutil.Zip(t, map[string][]byte{"SKILL.md": doc("zipped", "A zip."), "ref/guide.md": []byte("# Guide\n")}))
	tarred := write("tarred.tar.gz", tarGz(t, reg("./SKILL.md", string(doc("tarred", "A tarball."))), reg("scripts/run.sh", "echo hi\n")))
	gitarch := write("gitarch.tar.gz", tarGz(t, &tar.Header{Name: "pax_global_header", Typeflag: tar.TypeXGlobalHeader, PAXRecords: map[string]string{"comment": "0123abcd"}},
		reg("SKILL.md", string(doc("gitarch", "Made by git archive.")))))
	tampered := sum([]byte("what the index promised"))
	write("tampered.zip", testutil.Zip(t, map[string][]byte{"SKILL.md": doc("tampered", "Changed after indexing.")}))
	escape := write("escape.tar.gz", tarGz(t, reg("SKILL.md", string(doc("escape", "Escapes."))), reg("../../etc/evil", "x")))
	linked := write("linked.tar.gz", tarGz(t, reg("SKILL.md", string(doc("linked", "Links."))), &tar.Header{Name: "passwd", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}))
	idx := map[string]any{"$schema": discovery.Schema, "skills": []map[string]string{
		{"name": "plain", "type": "skill-md", "description": "Only a document.", "url": "/.well-known/agent-skills/plain/SKILL.md", "digest": plain},
		{"name": "zipped", "type": "archive", "description": "A zip.", "url": "zipped.zip", "digest": zipped},
		{"name": "tarred", "type": "archive", "description": "A tarball.", "url": "tarred.tar.gz", "digest": tarred},
		{"name": "gitarch", "type": "archive", "description": "Made by git archive.", "url": "gitarch.tar.gz", "digest": gitarch},
		{"name": "tampered", "type": "archive", "description": "Tampered.", "url": "tampered.zip", "digest": tampered},
		{"name": "escape", "type": "archive", "description": "Escapes.", "url": "escape.tar.gz", "digest": escape},
		{"name": "linked", "type": "archive", "description": "Links.", "url": "linked.tar.gz", "digest": linked},
		{"name": "Bad_Name", "type": "skill-md", "description": "x", "url": "plain/SKILL.md", "digest": plain},
		{"name": "cdn", "type": "skill-md", "description": "x", "url": "https://cdn.example/x/SKILL.md", "digest": plain},
		{"name": "future", "type": "plugin", "description": "x", "url": "plain/SKILL.md", "digest": plain},
	}}
	b, err := json.Marshal(idx)
	if err != nil {
		t.Fatal(err)
	}
	write("index.json", b)
	var hits atomic.Int64
	files := http.FileServer(http.Dir(dir))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/index.json") {
			hits.Add(1)
			w.Header().Set("ETag", `"v1"`)
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		if strings.HasSuffix(r.URL.Path, ".tar.gz") {
			w.Header().Set("Content-Type", "application/gzip")
		}
		if strings.HasPrefix(r.URL.Path, "/moved/") {
			http.Redirect(w, r, "http://localhost/.well-known/agent-skills/index.json", http.StatusFound)
			return
		}
		if r.URL.Path == "/bad/.well-known/agent-skills/index.json" {
			w.Write([]byte(`{"$schema": "` + discovery.Schema + `", "skills": [`))
			return
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts, &hits
}

// TestStaticSite: a hand-made .well-known tree on a static file server.
// Good skills are served (SKILL.md, zip and tar.gz); a tampered, an
// escaping and a linking archive are refused alone with a clear error;
// entries that break the RFC are left out; the index is revalidated with
// its ETag.
func TestStaticSite(t *testing.T) {
	ts, hits := site(t)
	ctx := context.Background()
	src, err := backends.Open(ctx, ts.URL+"/.well-known/agent-skills/")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	st, err := store.New([]store.Source{src}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := wantServed(ctx, t, st, "gitarch,plain,tarred,zipped")
	problems := map[string]string{}
	for _, p := range c.Problems {
		problems[p.Skill] = p.Message
	}
	// Entries that break the RFC are left out without a problem; each
	// refused archive is one.
	promised, downloaded := sum([]byte("what the index promised")), sum(testutil.Get(t, ts.URL+"/.well-known/agent-skills/tampered.zip"))
	wantProblems := map[string]string{
		"tampered": "source unavailable: the published skills: skill tampered: its artifact does not match the index's digest (" +
			promised[:len("sha256:")+12] + "…, downloaded " + downloaded[:len("sha256:")+12] + "…); refusing it",
		"escape": `source unavailable: the published skills: skill escape: its archive: unsafe archive: entry "../../etc/evil" leaves the archive`,
		"linked": `source unavailable: the published skills: skill linked: its archive: unsafe archive: entry "passwd" is a link (to "/etc/passwd"): links are refused`,
	}
	if diff := cmp.Diff(wantProblems, problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	for file, want := range map[string]string{"zipped/ref/guide.md": "# Guide\n", "tarred/scripts/run.sh": "echo hi\n"} {
		f, err := st.View(nil).ReadFile(ctx, strings.Split(file, "/")[0], strings.SplitN(file, "/", 2)[1], nil)
		if err != nil || f.Text != want {
			t.Errorf("%s: %q %v", file, f.Text, err)
		}
	}
	before := hits.Load()
	if _, err := st.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if hits.Load() != before+1 {
		t.Errorf("a refresh fetched the index %d times", hits.Load()-before)
	}
	wantServed(ctx, t, st, "gitarch,plain,tarred,zipped") // after a 304

	for url, want := range map[string]string{
		ts.URL + "/bad/.well-known/agent-skills/index.json":   "source " + ts.URL + "/bad/.well-known/agent-skills/index.json: the index is not valid JSON: unexpected end of JSON input",
		ts.URL + "/moved/.well-known/agent-skills/index.json": "source " + ts.URL + "/moved/.well-known/agent-skills/index.json: the index redirects to another host; refusing it (allow the host to follow it)",
		ts.URL + "/none/.well-known/agent-skills/":            "source " + ts.URL + "/none/.well-known/agent-skills/index.json: fetching the index answered 404 Not Found",
	} {
		s, err := wellknown.Open(url, wellknown.Options{})
		if err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		if _, err := s.Snapshot(ctx); err == nil || err.Error() != want {
			t.Errorf("%s: %v; want %q", url, err, want)
		}
	}
	if _, err := wellknown.Open(ts.URL+"/skills/", wellknown.Options{}); err == nil {
		t.Error("a URL outside .well-known/agent-skills was accepted")
	}
}

// TestSkillstoreToSkillstore: one skillstore publishes .well-known, and a
// second serves it as a source, both over HTTP on 127.0.0.1; the second
// serves the same bytes.
func TestSkillstoreToSkillstore(t *testing.T) {
	ctx := context.Background()
	// The shared fixture, and a skill that is a document alone (the index
	// lists it as skill-md, not as an archive).
	tree := fixture.MapFS()
	tree["notes/SKILL.md"] = &fstest.MapFile{Data: doc("notes", "A document alone.")}
	first, err := store.New([]store.Source{{Label: "project", FS: tree}}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(ctx, tools.New(first, tools.Options{}), mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(skillsite.New(srv, skillsite.Options{OpenWellKnown: true}))
	defer ts.Close()
	src, err := backends.Open(ctx, ts.URL+discovery.WellKnownPath+"index.json")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	second, err := store.New([]store.Source{src}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantServed(ctx, t, second, "calculator,notes,weather")
	for _, name := range []string{"calculator", "notes", "weather"} {
		files, err := first.View(nil).Files(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, f := range files {
			paths = append(paths, f.Path)
		}
		got, err := second.View(nil).Files(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		var gotPaths []string
		for _, f := range got {
			gotPaths = append(gotPaths, f.Path)
		}
		if diff := cmp.Diff(paths, gotPaths); diff != "" {
			t.Errorf("%s files (-first +second):\n%s", name, diff)
		}
		for _, p := range paths {
			a, errA := first.View(nil).ReadFile(ctx, name, p, nil)
			b, errB := second.View(nil).ReadFile(ctx, name, p, nil)
			if errA != nil || errB != nil {
				t.Errorf("%s/%s: %v %v", name, p, errA, errB)
				continue
			}
			if diff := cmp.Diff(a, b, cmpopts.IgnoreFields(store.File{}, "Skill")); diff != "" {
				t.Errorf("%s/%s differs (-first +second):\n%s", name, p, diff)
			}
		}
	}
	if _, err := fs.Stat(src.FS, "nope/SKILL.md"); err == nil {
		t.Error("a skill the index does not list")
	}
}

// wantServed builds st's catalog and checks that it serves the skills
// want names (comma-separated, sorted); it returns the catalog.
func wantServed(ctx context.Context, t *testing.T, st *store.Store, want string) *store.Catalog {
	t.Helper()
	c, err := st.View(nil).Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sk := range c.Skills {
		names = append(names, sk.Name)
	}
	if got := strings.Join(names, ","); got != want {
		t.Errorf("served %s, want %s", got, want)
	}
	return c
}
