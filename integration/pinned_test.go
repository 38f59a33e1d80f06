package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skillstore/skillstore/backends/gitfs"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/backends/wellknown"
	"github.com/skillstore/skillstore/discovery"
	"github.com/skillstore/skillstore/internal/gittest"
	"github.com/skillstore/skillstore/internal/storehook"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/site"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// pinnedFiles is version v of a skill whose two files keep their sizes
// from version to version ("A" and "B" are one byte each).
func pinnedFiles(v string) map[string]string {
	return map[string]string{
		"calc/SKILL.md": "---\nname: calc\ndescription: Adds numbers.\n---\n# Calc " + v + "\n",
		"calc/notes.md": "notes " + v + "\n",
	}
}

// moving is a source, a store over it and a server over the store.
// Armed, the store's read hook moves the source to version B (same paths,
// sizes and times) as the next read of a file starts, after the answer's
// skill and listing were taken from version A; it refreshes the store and
// has another client read version B (which the store caches) before the
// read goes on.
type moving struct {
	store      *store.Store
	tools      *tools.Tools
	url        string           // the HTTP server's
	revA, revB string           // the revisions: commits, or a published folder's snapshot IDs
	prov       store.Provenance // its skills' provenance, but for the revision
	move       func()           // moves a .well-known origin (newMovingWellKnown)
	armed      atomic.Bool
}

// fixedProvenance is the provenance a fixedServer's answers carry: over
// HTTP a source that is not remote is named by its label.
const fixedProvenance = `"` + mcpserver.ProvenanceMetaKey + `":{"source":"org","kind":"","location":"org"}`

// servedAs is a fixedServer's answer as the moving source serves the
// same version, rev: with its own provenance, at that revision.
func (m *moving) servedAs(answer, rev string) string {
	p := m.prov
	p.Revision = rev
	p.Location = tools.RemoteLocation(p.Source, p.Location) // as HTTP callers are shown it
	j, err := json.Marshal(p)
	if err != nil {
		panic(err) // a Provenance always marshals
	}
	return strings.ReplaceAll(answer, fixedProvenance, `"`+mcpserver.ProvenanceMetaKey+`":`+string(j))
}

// newMoving serves src, at version A (revA), and arms move, which moves
// it to version B and returns B's revision.
func newMoving(t *testing.T, src store.Source, revA string, move func() string) *moving {
	t.Helper()
	ctx := context.Background()
	m := &moving{revA: revA, prov: store.Provenance{Source: src.Label, Kind: src.Kind, Location: src.Location}}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	var err error
	m.store, err = store.New([]store.Source{src}, store.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	storehook.SetRead(m.store, func(skill, p string) {
		if !m.armed.CompareAndSwap(true, false) {
			return
		}
		m.revB = move()
		if _, err := m.store.Refresh(ctx); err != nil {
			t.Errorf("refresh: %v", err)
		}
		for p, data := range pinnedFiles("B") {
			name, file, _ := strings.Cut(p, "/")
			if f, err := m.store.View(nil).ReadFile(ctx, name, file, nil); err != nil || f.Text != data || f.Skill.Revision() != m.revB {
				t.Errorf("reading %s by name after the move: %q, %v", p, f.Text, err)
			}
		}
	})
	m.tools = tools.New(m.store, tools.Options{})
	srv, err := mcpserver.New(ctx, m.tools, mcpserver.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(site.New(srv, site.Options{Stateless: true}))
	t.Cleanup(ts.Close)
	m.url = ts.URL
	if sk, err := m.store.View(nil).Skill(ctx, "calc"); err != nil || sk.Revision() != m.revA {
		t.Fatalf("before the move: %v", err)
	}
	return m
}

// newMovingGit is a moving branch of a repository called name on git:
// both commits at one time, every file's time.
func newMovingGit(t *testing.T, git *gittest.Server, name string) *moving {
	t.Helper()
	r := git.Repo(t, name)
	commit := func(v string) string {
		in := map[string][]byte{}
		for p, data := range pinnedFiles(v) {
			in["skills/"+p] = []byte(data)
		}
		return r.Commit("main", in)
	}
	revA := commit("A")
	repo, err := gitfs.Open(r.URL+"?path=skills", gitfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := store.Source{Label: "org", Location: "git+http://example.com/org/skills.git", Kind: "git", FS: repo}
	return newMoving(t, src, revA, func() string { return commit("B") })
}

// newMovingPublished is a published folder whose pointer moves to a new
// snapshot, written as `skillstore publish` writes one.
func newMovingPublished(t *testing.T) *moving {
	t.Helper()
	dir := t.TempDir()
	revA := publishVersion(t, dir, "A")
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	fsys, err := snapshot.Open(context.Background(), snapshot.NewFSObjects(os.DirFS(dir)), snapshot.Options{Location: "published", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	src := store.Source{Label: "org", Location: "published", Kind: "snapshot", FS: fsys}
	return newMoving(t, src, revA, func() string { return publishVersion(t, dir, "B") })
}

// newMovingWellKnown is a site's .well-known index that moves from
// version A to version B: the origin serves fixedA's publication, then
// fixedB's. Both versions' files have one size and one time, so only the
// snapshot they came from tells them apart.
func newMovingWellKnown(t *testing.T, fixedA, fixedB string) *moving {
	t.Helper()
	var moved atomic.Bool
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := fixedA
		if moved.Load() {
			base = fixedB
		}
		resp, err := http.Get(base + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(origin.Close)
	fsys, err := wellknown.Open(origin.URL+discovery.WellKnownPath, wellknown.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	src := store.Source{Label: "org", Location: "site", Kind: "well-known", FS: fsys}
	m := newMoving(t, src, "", nil)
	m.move = func() { moved.Store(true) }
	return m
}

// publishVersion publishes version v of the skill to dir and points the
// folder's pointer at it; both versions' files have one time. It returns
// the snapshot's ID, the revision of the skills read from it.
func publishVersion(t *testing.T, dir, v string) string {
	t.Helper()
	write := func(key string, data []byte) {
		p := filepath.Join(dir, filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := pinnedFiles(v)
	when := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	sk := snapshot.Skill{Dir: "calc", DocPath: "SKILL.md", Frontmatter: "name: calc\ndescription: Adds numbers.\n", Headings: "Calc " + v + "\n"}
	for _, rel := range []string{"SKILL.md", "notes.md"} { // sorted
		data := []byte(files["calc/"+rel])
		sum := snapshot.Sum(data)
		write(snapshot.BlobKey(sum), data)
		sk.Files = append(sk.Files, snapshot.File{Path: rel, Size: int64(len(data)), ModTime: when, SHA256: sum})
	}
	published := when.Add(time.Duration(v[0]-'A') * time.Second)
	m := snapshot.Manifest{Version: snapshot.Version, ID: published.Format("20060102T150405.000000000Z") + "-test", Published: published, Skills: []snapshot.Skill{sk}}
	body, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	write(snapshot.ManifestKey(m.ID), body)
	pointer, err := json.Marshal(snapshot.Pointer{Version: snapshot.Version, Snapshot: m.ID, SHA256: snapshot.Sum(body), Published: published})
	if err != nil {
		t.Fatal(err)
	}
	write(snapshot.PointerKey, pointer)
	return m.ID
}

// fixedServer serves version v of the skill from memory: what an answer
// built from that version alone is.
func fixedServer(t *testing.T, v string) string {
	t.Helper()
	m := fstest.MapFS{}
	for p, data := range pinnedFiles(v) {
		m[p] = &fstest.MapFile{Data: []byte(data)}
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := store.New([]store.Source{{Label: "org", FS: m}}, store.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(context.Background(), tools.New(s, tools.Options{}), mcpserver.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(site.New(srv, site.Options{Stateless: true}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// rpcResult posts one JSON-RPC request to base's /mcp and returns its
// result.
func rpcResult(t *testing.T, base, method, params string) json.RawMessage {
	t.Helper()
	res, body := testutil.SendMCP(t, http.MethodPost, base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`, map[string]string{"MCP-Protocol-Version": "2025-11-25"})
	var answer struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &answer); err != nil || answer.Result == nil {
		t.Fatalf("%s: %d %v %s", method, res.StatusCode, err, body)
	}
	return answer.Result
}

// show is an index as it is, an archive as its files.
func show(t *testing.T, name string, b []byte) string {
	if strings.HasSuffix(name, ".zip") {
		return fmt.Sprintf("%q", testutil.Unzip(t, b))
	}
	return string(b)
}

// TestAnswerPinnedToOneSnapshot: a git source, and a published snapshot,
// move between the listing an answer is built on and the reads of its
// files (the store's read hook moves them; no timing). skills/get,
// skills/list, the .well-known index and archive and the Skill tool each
// answer with version A alone, as a server of version A alone would; the
// next answers, built once the move is served, are version B's alone,
// though the two versions' files have the same paths, sizes and times, so
// that no memo keyed by those keeps a pairing of A's listing with B's
// bytes, or A's bytes for B.
func TestAnswerPinnedToOneSnapshot(t *testing.T) {
	t.Setenv("GIT_AUTHOR_DATE", "2024-01-01T00:00:00Z") // both commits at one time: every file's time
	t.Setenv("GIT_COMMITTER_DATE", "2024-01-01T00:00:00Z")
	git := gittest.NewServer(t)
	fixedA, fixedB := fixedServer(t, "A"), fixedServer(t, "B")
	ctx := context.Background()
	for _, kind := range []string{"git", "published"} {
		t.Run(kind, func(t *testing.T) { testPinned(t, ctx, kind, git, fixedA, fixedB) })
	}
}

// testPinned is TestAnswerPinnedToOneSnapshot for one kind of source.
func testPinned(t *testing.T, ctx context.Context, kind string, git *gittest.Server, fixedA, fixedB string) {
	n := 0
	source := func(t *testing.T) *moving {
		if kind == "published" {
			return newMovingPublished(t)
		}
		n++
		return newMovingGit(t, git, fmt.Sprint("org", n))
	}

	t.Run("skills/get", func(t *testing.T) {
		if kind == "published" {
			t.Skip("a published snapshot's digests come from its manifest: skills extension answers read no file")
		}
		m := source(t)
		const params = `{"uri":"skill://calc/SKILL.md"}`
		want := func(base, rev string) string {
			return m.servedAs(string(rpcResult(t, base, "skills/get", params)), rev)
		}
		m.armed.Store(true)
		if got := string(rpcResult(t, m.url, "skills/get", params)); got != want(fixedA, m.revA) {
			t.Errorf("skills/get while the source moved:\n%s\nwant version A's:\n%s", got, want(fixedA, m.revA))
		}
		if m.revB == "" {
			t.Fatal("the source did not move")
		}
		if got := string(rpcResult(t, m.url, "skills/get", params)); got != want(fixedB, m.revB) {
			t.Errorf("skills/get after the move:\n%s\nwant version B's:\n%s", got, want(fixedB, m.revB))
		}
	})

	t.Run("skills/list", func(t *testing.T) {
		if kind == "published" {
			t.Skip("a published snapshot's digests come from its manifest: skills extension answers read no file")
		}
		m := source(t)
		want := func(base, rev string) string { return m.servedAs(string(rpcResult(t, base, "skills/list", `{}`)), rev) }
		m.armed.Store(true)
		if got := string(rpcResult(t, m.url, "skills/list", `{}`)); got != want(fixedA, m.revA) {
			t.Errorf("skills/list while the source moved:\n%s\nwant version A's:\n%s", got, want(fixedA, m.revA))
		}
		if got := string(rpcResult(t, m.url, "skills/list", `{}`)); got != want(fixedB, m.revB) {
			t.Errorf("skills/list after the move:\n%s\nwant version B's:\n%s", got, want(fixedB, m.revB))
		}
	})

	// The first request is answered while the source moves; then the
	// source serves version B.
	for _, first := range []string{"calc.zip", "index.json"} {
		t.Run("well-known "+first, func(t *testing.T) {
			m := source(t)
			m.armed.Store(true)
			for i, p := range []string{first, "calc.zip", "index.json"} {
				fixed, v := fixedB, "B"
				if i == 0 {
					fixed, v = fixedA, "A"
				}
				url := discovery.WellKnownPath + p
				if got, want := testutil.Get(t, m.url+url), testutil.Get(t, fixed+url); !bytes.Equal(got, want) {
					t.Errorf("%s (request %d): %s; want version %s's: %s", p, i+1, show(t, p, got), v, show(t, p, want))
				}
			}
		})
	}

	t.Run("store", func(t *testing.T) {
		m := source(t)
		old, err := m.store.View(nil).Skill(ctx, "calc")
		if err != nil {
			t.Fatal(err)
		}
		m.armed.Store(true)
		doc, err := m.store.View(nil).Document(ctx, old.Name, &store.ReadOptions{Skill: old}) // the move happens here, and B is read and cached
		if err != nil || doc.Text != pinnedFiles("A")["calc/SKILL.md"] || doc.Skill != old {
			t.Errorf("DocumentOf the skill of version A: %q, %v", doc.Text, err)
		}
		for _, opts := range []*store.ReadOptions{{Skill: old}, {Skill: old, Uncached: true}} {
			f, err := m.store.View(nil).ReadFile(ctx, old.Name, "notes.md", opts)
			if err != nil || f.Text != pinnedFiles("A")["calc/notes.md"] || f.Skill != old {
				t.Errorf("a file of the skill of version A: %q, %v", f.Text, err)
			}
		}
		if f, err := m.store.View(nil).ReadFile(ctx, "calc", "notes.md", nil); err != nil || f.Text != pinnedFiles("B")["calc/notes.md"] || f.Skill.Revision() != m.revB {
			t.Errorf("the current file by name: %q, %v", f.Text, err)
		}
	})

	t.Run("Skill tool", func(t *testing.T) {
		m := source(t)
		m.armed.Store(true)
		for i, v := range []string{"A", "B"} { // while the source moves, then after
			got, err := m.tools.Call(ctx, tools.SkillTool, `{"skill_name":"calc"}`)
			doc, rev := pinnedFiles(v)["calc/SKILL.md"], []string{m.revA, m.revB}[i]
			where := " (commit " + rev[:12] + ")\n\n"
			if kind == "published" {
				where = " (revision " + rev + ")\n\n" // the snapshot's ID
			}
			want := "Skill: calc (Type: org)\nPath: " + tools.SkillLocation(m.store.Sources()[0].Location, "calc") + where + doc
			if err != nil || got != want {
				t.Errorf("the Skill tool (call %d): %v\n%s\nwant version %s's commit and SKILL.md:\n%s", i+1, err, got, v, want)
			}
		}
	})
}

// TestWellKnownSnapshotsNotMixed moves a .well-known origin whose two
// versions' files have one size and one time after the store cached
// version A: by name, the store then serves B (the copy cached from A is
// not taken for B's), while reads pinned to the skill of version A are
// still answered with A's cached copy.
func TestWellKnownSnapshotsNotMixed(t *testing.T) {
	ctx := context.Background()
	fixedA, fixedB := fixedServer(t, "A"), fixedServer(t, "B")
	m := newMovingWellKnown(t, fixedA, fixedB)
	old, err := m.store.View(nil).Skill(ctx, "calc")
	if err != nil {
		t.Fatal(err)
	}
	read := func(v string) {
		t.Helper()
		for p, want := range pinnedFiles(v) {
			name, file, _ := strings.Cut(p, "/")
			if f, err := m.store.View(nil).ReadFile(ctx, name, file, nil); err != nil || f.Text != want {
				t.Errorf("version %s: ReadFile(%s): %q, %v; want %q", v, p, f.Text, err, want)
			}
		}
	}
	read("A")
	m.move()
	if _, err := m.store.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	read("B")
	if doc, err := m.store.View(nil).Document(ctx, old.Name, &store.ReadOptions{Skill: old}); err != nil || doc.Text != pinnedFiles("A")["calc/SKILL.md"] {
		t.Errorf("DocumentOf the skill of version A after the move: %q, %v", doc.Text, err)
	}
	const params = `{"uri":"skill://calc/SKILL.md"}`
	if got, want := string(rpcResult(t, m.url, "skills/get", params)), m.servedAs(string(rpcResult(t, fixedB, "skills/get", params)), ""); got != want {
		t.Errorf("skills/get after the move:\n%s\nwant version B's:\n%s", got, want)
	}
}
