package discovery_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skillstore/skillstore/discovery"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

var quiet = slog.New(slog.DiscardHandler)

// wellKnownSite serves skills from a real folder over HTTP, with the
// given request timeout, and returns the .well-known base URL.
func wellKnownSite(t *testing.T, dir string, timeout time.Duration) (*discovery.Publisher, string) {
	t.Helper()
	s, err := store.New([]store.Source{{Label: "project", Location: "./skills", FS: os.DirFS(dir)}}, store.Options{Logger: quiet, MaxFileSize: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	pub, ts := publish(t, s, timeout)
	return pub, ts.URL + discovery.WellKnownPath
}

// publish serves s's publication, open, as package site mounts it.
func publish(t *testing.T, s *store.Store, timeout time.Duration) (*discovery.Publisher, *httptest.Server) {
	t.Helper()
	pub := discovery.NewPublisher(discovery.PublishOptions{Store: s, View: func(*http.Request) *store.View { return s.View(nil) }, Logger: quiet, Timeout: timeout})
	mux := http.NewServeMux()
	mux.Handle(discovery.WellKnownPath, pub.Handler(true))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return pub, ts
}

// writeSkill writes a skill of SKILL.md and, if size > 0, a file of size
// incompressible bytes (seeded by name), so its archive costs a real build.
func writeSkill(t *testing.T, dir, name string, size int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	doc := "---\nname: " + name + "\ndescription: A skill of " + name + ".\n---\n# " + name + "\n"
	if err := os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if size > 0 {
		var seed [32]byte
		copy(seed[:], name)
		data := make([]byte, size)
		rand.NewChaCha8(seed).Read(data)
		if err := os.WriteFile(filepath.Join(dir, name, "data.bin"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWellKnownConcurrentBuild: concurrent cold GETs of an archive share
// one build, and all get the bytes the index names.
func TestWellKnownConcurrentBuild(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "big", 256<<10)
	pub, base := wellKnownSite(t, dir, 0)
	bodies := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range bodies {
		wg.Go(func() {
			res, body := testutil.Request(t, http.MethodGet, base+"big.zip")
			if res.StatusCode != 200 {
				t.Errorf("GET %d: %d %s", i, res.StatusCode, body)
			}
			bodies[i] = body
		})
	}
	wg.Wait()
	if n := discovery.Builds(pub); n != 1 {
		t.Errorf("8 concurrent cold GETs built the archive %d times; want once", n)
	}
	_, body := testutil.Request(t, http.MethodGet, base+"index.json")
	var idx discovery.Index
	if err := json.Unmarshal(body, &idx); err != nil || len(idx.Skills) != 1 {
		t.Fatalf("index: %s %v", body, err)
	}
	for i, b := range bodies {
		if testutil.Digest(b) != idx.Skills[0].Digest {
			t.Errorf("GET %d: digest %s; index says %s", i, testutil.Digest(b), idx.Skills[0].Digest)
		}
	}
	if n := discovery.Builds(pub); n != 1 {
		t.Errorf("the index built the archive again: %d builds", n)
	}
}

// TestWellKnownKeepsWhatItBuilt: archives too large for the memory kept
// are still not rebuilt when GETs alternate between them; once their
// bodies are let go, HEAD answers from the digest and size kept.
func TestWellKnownKeepsWhatItBuilt(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "one", 128<<10)
	writeSkill(t, dir, "two", 128<<10)
	pub, base := wellKnownSite(t, dir, 0)
	discovery.LimitCachesForTest(pub, 192<<10, 1<<30) // one archive in memory at most
	var first [2][]byte
	for i := range 6 {
		name := []string{"one", "two"}[i%2]
		res, body := testutil.Request(t, http.MethodGet, base+name+".zip")
		if res.StatusCode != 200 || res.ContentLength != int64(len(body)) {
			t.Fatalf("GET %s: %d, %d bytes of %d", name, res.StatusCode, len(body), res.ContentLength)
		}
		if i < 2 {
			first[i] = body
		} else if !bytes.Equal(body, first[i%2]) {
			t.Fatalf("GET %s: the bytes changed", name)
		}
	}
	if n := discovery.Builds(pub); n != 2 {
		t.Errorf("6 alternating GETs of two archives built %d times; want 2", n)
	}
	if n := spilledFiles(t); n != 2 && n != -1 {
		t.Errorf("%d temporary files open; want the 2 archives'", n)
	}

	// Nothing kept but digests and sizes: HEAD does not build.
	discovery.LimitCachesForTest(pub, 1, 1)
	for i, name := range []string{"one", "two"} {
		res, _ := testutil.Request(t, http.MethodHead, base+name+".zip")
		if res.StatusCode != 200 || res.ContentLength != int64(len(first[i])) || res.Header.Get("ETag") == "" {
			t.Errorf("HEAD %s: %d, length %d; want %d", name, res.StatusCode, res.ContentLength, len(first[i]))
		}
	}
	if n := discovery.Builds(pub); n != 2 {
		t.Errorf("HEAD built archives: %d builds; want 2", n)
	}
	// A GET of a body let go builds it again, once, with the same bytes.
	if res, body := testutil.Request(t, http.MethodGet, base+"one.zip"); res.StatusCode != 200 || !bytes.Equal(body, first[0]) {
		t.Errorf("GET after the body was let go: %d, same bytes %v", res.StatusCode, bytes.Equal(body, first[0]))
	}
	if n := discovery.Builds(pub); n != 3 {
		t.Errorf("%d builds; want 3", n)
	}
	// (the last response lets go of its file once it is sent, as the client reads)
	testutil.Within(5*time.Second, func() bool { return spilledFiles(t) <= 0 })
	if n := spilledFiles(t); n > 0 {
		t.Errorf("%d temporary files still open after their archives were let go", n)
	}
}

// spilledFiles counts the temporary files of .well-known artifacts this
// process holds open (-1 where /proc/self/fd cannot tell).
func spilledFiles(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.Contains(target, "skillstore-artifact-") {
			n++
		}
	}
	return n
}

// TestWellKnownIndexOutlivesRequest: an index whose build takes longer
// than the request timeout is answered 503 once, its build goes on, and
// the next request is served from it without building again.
func TestWellKnownIndexOutlivesRequest(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "slow-a", 1<<20)
	writeSkill(t, dir, "slow-b", 1<<20)
	writeSkill(t, dir, "quick", 0)
	pub, base := wellKnownSite(t, dir, 5*time.Millisecond)
	res, body := testutil.Request(t, http.MethodGet, base+"index.json")
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Fatalf("first GET: %d %q (Retry-After %q); want 503 while the index builds", res.StatusCode, body, res.Header.Get("Retry-After"))
	}
	discovery.WaitForTest(t, pub)
	res, body = testutil.Request(t, http.MethodGet, base+"index.json")
	var idx discovery.Index
	if err := json.Unmarshal(body, &idx); err != nil || res.StatusCode != 200 || len(idx.Skills) != 3 {
		t.Fatalf("after the build: %d %s %v", res.StatusCode, body, err)
	}
	if n := discovery.Builds(pub); n != 3 {
		t.Errorf("%d builds; want 3 (each skill once)", n)
	}
}

// TestWellKnownDigestsKept: a new index after one skill's file changed
// builds that skill's archive alone, even when no body was kept.
func TestWellKnownDigestsKept(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"alpha", "beta", "gamma"} {
		writeSkill(t, dir, name, 64<<10)
	}
	pub, base := wellKnownSite(t, dir, 0)
	discovery.LimitCachesForTest(pub, 1, 1)
	index := func() map[string]string {
		t.Helper()
		res, body := testutil.Request(t, http.MethodGet, base+"index.json")
		var idx discovery.Index
		if err := json.Unmarshal(body, &idx); err != nil || res.StatusCode != 200 {
			t.Fatalf("index: %d %s %v", res.StatusCode, body, err)
		}
		m := map[string]string{}
		for _, e := range idx.Skills {
			m[e.Name] = e.Digest
		}
		return m
	}
	before := index()
	if n := discovery.Builds(pub); n != 3 || len(before) != 3 {
		t.Fatalf("%d builds for %v; want 3", n, before)
	}
	writeSkill(t, dir, "beta", 65<<10)
	discovery.ExpireIndexForTest(pub)
	after := index()
	if n := discovery.Builds(pub); n != 4 {
		t.Errorf("%d builds after one skill changed; want 4 (the changed one alone)", n)
	}
	if after["alpha"] != before["alpha"] || after["gamma"] != before["gamma"] || after["beta"] == before["beta"] {
		t.Errorf("digests before %v, after %v", before, after)
	}
}

// TestWellKnownIfNoneMatch: a weak tag, a list holding the tag and *
// are answered 304 (RFC 9110 §13.1.2), on the index and on artifacts;
// another tag gets the body.
func TestWellKnownIfNoneMatch(t *testing.T) {
	s, err := store.New([]store.Source{{Label: "project", Location: "./skills", Kind: "local", FS: fixture.MapFS()}}, store.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	_, ts := publish(t, s, 0)
	for _, path := range []string{"index.json", "calculator.zip", "weather.zip"} {
		url := ts.URL + discovery.WellKnownPath + path
		res, body := testutil.Request(t, http.MethodGet, url)
		etag := res.Header.Get("ETag")
		if res.StatusCode != 200 || etag == "" {
			t.Fatalf("%s: %d, ETag %q", path, res.StatusCode, etag)
		}
		for _, inm := range []string{etag, "W/" + etag, `"a", ` + etag, `W/"a",` + "W/" + etag + `, "b"`, "*"} {
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				if res, b := testutil.Request(t, method, url, "If-None-Match", inm); res.StatusCode != http.StatusNotModified || len(b) != 0 {
					t.Errorf("%s %s If-None-Match %s: %d, %d bytes; want 304", method, path, inm, res.StatusCode, len(b))
				}
			}
		}
		for _, inm := range []string{`"other"`, `W/"other", "a"`} {
			if res, b := testutil.Request(t, http.MethodGet, url, "If-None-Match", inm); res.StatusCode != 200 || !bytes.Equal(b, body) {
				t.Errorf("%s If-None-Match %s: %d; want the body", path, inm, res.StatusCode)
			}
		}
	}
}

// versionedSource serves one snapshot at a time (store.SnapshotFS); each
// names its revision, and, if digested, knows its files' SHA-256 as a
// published snapshot does (store.ContentFS).
type versionedSource struct {
	cur      atomic.Pointer[versionedView]
	digested bool
}

func (s *versionedSource) Open(name string) (fs.File, error) { return s.cur.Load().Open(name) }

func (s *versionedSource) Snapshot(context.Context) (fs.FS, error) {
	if v := s.cur.Load(); s.digested {
		return digestedView{v}, nil
	}
	return s.cur.Load(), nil
}

type versionedView struct {
	fstest.MapFS
	rev string
}

func (v *versionedView) Revision() string { return v.rev }

type digestedView struct{ *versionedView }

func (v digestedView) ContentSHA256(name string) (string, string, int64, bool) {
	f, ok := v.MapFS[name]
	if !ok {
		return "", "", 0, false
	}
	sum := sha256.Sum256(f.Data)
	return hex.EncodeToString(sum[:]), "", 0, true
}

// TestWellKnownArtifactAcrossRevisions: a skill's archive is built once
// per version of its files. When each file's digest is known (a published
// snapshot), a new revision holding the same files is the same archive,
// not built again; without digests (a git commit), a new revision is a
// new version, whatever the files' sizes and times; a changed file is a
// new archive either way.
func TestWellKnownArtifactAcrossRevisions(t *testing.T) {
	files := func(notes string) fstest.MapFS {
		return fstest.MapFS{
			"pdf/SKILL.md": {Data: []byte("---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n")},
			"pdf/notes.md": {Data: []byte(notes)},
		}
	}
	for _, tc := range []struct {
		digested bool
		builds   [3]int64 // after the first revision, a second with the same files, a third with a changed file
	}{{true, [3]int64{1, 1, 2}}, {false, [3]int64{1, 2, 3}}} {
		src := &versionedSource{digested: tc.digested}
		src.cur.Store(&versionedView{files("Notes A."), "r1"})
		s, err := store.New([]store.Source{{Label: "org", Location: "published", FS: src}}, store.Options{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		pub, ts := publish(t, s, 0)
		var bodies [3][]byte
		for i, v := range []*versionedView{nil, {files("Notes A."), "r2"}, {files("Notes B."), "r3"}} {
			if v != nil {
				src.cur.Store(v)
				if _, err := s.Refresh(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			res, body := testutil.Request(t, http.MethodGet, ts.URL+discovery.WellKnownPath+"pdf.zip")
			if res.StatusCode != 200 {
				t.Fatalf("digested=%v, revision %d: %d %s", tc.digested, i+1, res.StatusCode, body)
			}
			bodies[i] = body
			if n := discovery.Builds(pub); n != tc.builds[i] {
				t.Errorf("digested=%v: after revision %d, %d builds; want %d", tc.digested, i+1, n, tc.builds[i])
			}
		}
		if !bytes.Equal(bodies[0], bodies[1]) || bytes.Equal(bodies[1], bodies[2]) {
			t.Errorf("digested=%v: the same files gave two archives, or a changed file the same one", tc.digested)
		}
	}
}
