package integration

import (
	"context"
	"crypto/md5"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/site"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// TestPublish publishes the built-in examples to each real store with the
// CLI, lists them back from the bucket, publishes again (nothing changes),
// then publishes a smaller tree with --delete, and counts what a replica
// of it pays (replicaCosts).
func TestPublish(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			r := st.start(t)
			r.createBucket(t, "published")
			url := r.url("published", "team/")
			cli := func(args ...string) string {
				t.Helper()
				cmd := exec.Command(binary, args...)
				cmd.Env = append(os.Environ(), r.env...)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("skillstore %s: %v\n%s", args[0], err, out)
				}
				for _, s := range r.secrets {
					if strings.Contains(string(out), s) {
						t.Errorf("output carries a credential: %s", out)
					}
				}
				return string(out)
			}
			if out := cli("publish", "../backends/examples", url); !strings.Contains(out, "3 skills") || !strings.Contains(out, " 0 already stored") || strings.Contains(out, ": 0 uploaded") {
				t.Errorf("first publish:\n%s", out)
			}
			if out := cli("list", "-s", url); !strings.Contains(out, "code-review") || !strings.Contains(out, "commit-messages") || !strings.Contains(out, "writing-skills") {
				t.Errorf("list after publish:\n%s", out)
			}
			icon, err := os.ReadFile("../backends/examples/writing-skills/assets/icon.png")
			if err != nil {
				t.Fatal(err)
			}
			if out := cli("read", "-s", url, "writing-skills", "assets/icon.png"); out != string(icon) {
				t.Errorf("binary file did not survive the round trip: %d bytes, want %d", len(out), len(icon))
			}
			if out := cli("publish", "--quiet", "../backends/examples", url); out != "" {
				t.Errorf("--quiet printed:\n%s", out)
			}
			if out := cli("publish", "../backends/examples", url); !strings.Contains(out, " 0 uploaded (0B)") {
				t.Errorf("republishing unchanged files:\n%s", out)
			}
			one := testutil.TempTree(t, map[string][]byte{"solo/SKILL.md": []byte("---\nname: solo\ndescription: The only one left.\n---\n")})
			if out := cli("publish", "--keep", "1", "--grace", "0", one, url); !strings.Contains(out, "1 uploaded") || !strings.Contains(out, "remove  snapshot") {
				t.Errorf("publish --keep 1:\n%s", out)
			}
			if out := cli("list", "-s", url); !strings.Contains(out, "solo") || strings.Contains(out, "code-review") {
				t.Errorf("list after the new snapshot:\n%s", out)
			}
			replicaCosts(t, r, url, cli)
			ran(t, st.name+" publish")
		})
	}
}

// replicaCosts counts what a replica of the published bucket at url pays
// on store r: a cold catalog costs two requests, and every refresh with
// nothing new one, the first included (the GET of the pointer gives the
// tag its HEAD does); a refresh after a publish (with cli) serves it.
func replicaCosts(t *testing.T, r *runningStore, url string, cli func(args ...string) string) {
	t.Helper()
	useEnv(t, r.env)
	src, err := backends.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	s, err := store.New([]store.Source{src}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.View(nil).List(context.Background()); err != nil {
		t.Fatal(err)
	}
	bucket := src.FS.(*blobfs.FS).Bucket()
	if got := bucket.Requests(); got != (blobfs.Requests{Get: 2}) {
		t.Errorf("cold catalog cost %+v; want 2 GETs", got)
	}
	for _, which := range []string{"first", "second"} {
		if cost := refreshCost(t, s, bucket); cost != (blobfs.Requests{Head: 1}) {
			t.Errorf("the %s refresh with nothing new cost %+v; want one HEAD", which, cost)
		}
	}
	// A new snapshot changes the tag: the next refresh serves it,
	// and the one after costs one HEAD again.
	again := testutil.TempTree(t, map[string][]byte{"solo/SKILL.md": []byte("---\nname: solo\ndescription: Published again.\n---\n")})
	cli("publish", "--quiet", again, url)
	if cost := refreshCost(t, s, bucket); cost != (blobfs.Requests{Head: 1, Get: 2}) {
		t.Errorf("the refresh after a publish cost %+v; want one HEAD and 2 GETs (pointer, manifest)", cost)
	}
	if sk, err := s.View(nil).Skill(context.Background(), "solo"); err != nil || sk.Description != "Published again." {
		t.Errorf("after the refresh: %+v, %v; want the new snapshot served", sk, err)
	}
	if cost := refreshCost(t, s, bucket); cost != (blobfs.Requests{Head: 1}) {
		t.Errorf("the next refresh cost %+v; want one HEAD", cost)
	}
}

// TestPublishToSharedFolder publishes to a file:// destination (a shared
// disk, or NFS) and serves the folder as a source.
func TestPublishToSharedFolder(t *testing.T) {
	dir := t.TempDir()
	out, err := exec.Command(binary, "publish", "../backends/examples", "file://"+dir+"/team").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "3 skills") {
		t.Fatalf("publish: %v\n%s", err, out)
	}
	out, err = exec.Command(binary, "list", "-s", dir+"/team").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "code-review") || !strings.Contains(string(out), "writing-skills") {
		t.Errorf("list the shared folder: %v\n%s", err, out)
	}
	checklist, err := os.ReadFile("../backends/examples/code-review/references/checklist.md")
	if err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(binary, "read", "-s", "file://"+dir+"/team", "code-review", "references/checklist.md").CombinedOutput()
	if err != nil || string(out) != string(checklist) {
		t.Errorf("read from the shared folder: %v\n%s", err, out)
	}
}

// TestPublishedFleetCosts publishes 1,000 skills of three files each to
// real S3 (versitygw) and counts what a replica pays: a cold catalog, a
// whole skills/list walk with its digests, and refreshes with nothing new,
// the first after the cold catalog included (the pointer's ETag came with
// the cold catalog's GET).
func TestPublishedFleetCosts(t *testing.T) {
	if testing.Short() {
		t.Skip("publishes 3,000 files")
	}
	r := stores[0].start(t) // S3
	useEnv(t, r.env)
	r.createBucket(t, "fleet")
	files := map[string][]byte{}
	for i := range 1000 {
		name := fmt.Sprintf("skill-%04d", i)
		files[name+"/SKILL.md"] = []byte(fmt.Sprintf("---\nname: %s\ndescription: Generated skill number %d.\n---\n# %s\n", name, i, name))
		files[name+"/references/guide.md"] = []byte("guide of " + name)
		files[name+"/scripts/run.sh"] = []byte("#!/bin/sh\necho " + name + "\n")
	}
	dir := testutil.TempTree(t, files)
	url := r.url("fleet", "skills/")
	cmd := exec.Command(binary, "publish", "--quiet", dir, url)
	cmd.Env = append(os.Environ(), r.env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("publish: %v\n%s", err, out)
	}
	ctx := context.Background()
	src, err := backends.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	bucket := src.FS.(*blobfs.FS).Bucket()
	s, err := store.New([]store.Source{src}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(ctx, tools.New(s, tools.Options{}), mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv.Tools() // waits for the first catalog, which New does not wait for
	cold := bucket.Requests()
	ts := httptest.NewServer(site.New(srv, site.Options{Stateless: true}))
	defer ts.Close()
	listed, cursor := 0, ""
	for pages := 0; pages < 100; pages++ {
		params := `{}`
		if cursor != "" {
			params = `{"cursor":` + strconv.Quote(cursor) + `}`
		}
		var answer struct {
			Result struct {
				Skills []struct {
					Resources []struct{ Digest string } `json:"resources"`
				} `json:"skills"`
				NextCursor string `json:"nextCursor"`
			} `json:"result"`
		}
		if body := rpc(t, ts.URL+"/mcp", "skills/list", params); json.Unmarshal(body, &answer) != nil {
			t.Fatalf("skills/list: %.300s", body)
		}
		for _, sk := range answer.Result.Skills {
			if len(sk.Resources) != 3 || !sha256Digest.MatchString(sk.Resources[0].Digest) {
				t.Fatalf("skills/list entry %+v", sk)
			}
		}
		listed += len(answer.Result.Skills)
		if cursor = answer.Result.NextCursor; cursor == "" {
			break
		}
	}
	walk := bucket.Requests()
	t.Logf("1,000 published skills on S3: cold catalog %+v; skills/list walk of %d skills added %+v",
		cold, listed, blobfs.Requests{List: walk.List - cold.List, Get: walk.Get - cold.Get, Head: walk.Head - cold.Head})
	if cold != (blobfs.Requests{Get: 2}) {
		t.Errorf("cold catalog cost %+v; want 2 GETs", cold)
	}
	if listed != 1000 || walk != cold {
		t.Errorf("the skills/list walk listed %d skills and cost %+v beyond the cold catalog; want 1000 and nothing", listed, walk)
	}
	for _, which := range []string{"first", "second", "third"} {
		if cost := refreshCost(t, s, bucket); cost != (blobfs.Requests{Head: 1}) {
			t.Errorf("the %s refresh with nothing new cost %+v; want one HEAD", which, cost)
		}
	}
}

// refreshCost refreshes s and returns the requests it made to bucket.
func refreshCost(t *testing.T, s *store.Store, bucket *blobfs.BucketFS) blobfs.Requests {
	t.Helper()
	before := bucket.Requests()
	if _, err := s.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	after := bucket.Requests()
	return blobfs.Requests{List: after.List - before.List, Get: after.Get - before.Get, Head: after.Head - before.Head}
}

// TestOutageAndRecovery serves a published bucket on each real store
// (versitygw, fake-gcs-server, Azurite) over HTTP, stops the store mid-run
// and starts it again: meanwhile cached
// skills are still served, an uncached read fails with the tools' message,
// /readyz says "degraded" with 200; afterwards everything recovers without
// a restart of skillstore.
func TestOutageAndRecovery(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) { outageAndRecovery(t, st) })
	}
}

func outageAndRecovery(t *testing.T, st objectStore) {
	r := st.start(t)
	r.createBucket(t, "outage")
	url := r.url("outage", "")
	pub := exec.Command(binary, "publish", "--quiet", "../backends/examples", url)
	pub.Env = append(os.Environ(), r.env...)
	if out, err := pub.CombinedOutput(); err != nil {
		t.Fatalf("publish: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	cmd := exec.CommandContext(ctx, binary, "serve", "--http", "127.0.0.1:0", "--stateless", "--refresh", "1s", "--request-timeout", "5s", "-s", url+sep+"timeout=2s")
	cmd.Env = append(os.Environ(), r.env...)
	logs := &testutil.SyncBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	mcpURL := testutil.WaitForMCPURL(t, logs)
	base := strings.TrimSuffix(mcpURL, "/mcp")
	call := func(args string) string { return string(rpc(t, mcpURL, "tools/call", args)) }
	readyz := func() (int, string) {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	await := func(what string, ok func() bool) {
		t.Helper()
		if !testutil.Within(30*time.Second, ok) {
			_, body := readyz()
			t.Fatalf("%s never happened (readyz: %s)\n%s", what, body, logs.String())
		}
	}
	getSkill := `{"name":"get_skill","arguments":{"skill_name":"code-review"}}`
	doc, err := os.ReadFile("../backends/examples/code-review/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	if text, isError := toolText(t, call(getSkill)); isError || text != string(doc) {
		t.Fatalf("before the outage: %.300s", text)
	}

	r.stop()
	await("/readyz saying degraded", func() bool {
		code, body := readyz()
		return code == http.StatusOK && strings.Contains(body, `"status":"degraded"`)
	})
	if text, isError := toolText(t, call(getSkill)); isError || text != string(doc) {
		t.Errorf("a cached skill during the outage: %.300s", text)
	}
	out := call(`{"name":"read_file_in_skill","arguments":{"skill_name":"code-review","file_path":"references/security.md"}}`)
	// The store's own timeout (2s) ends the read before the request's (5s).
	if text, isError := toolText(t, out); !isError || text != "Cannot read file 'references/security.md': the skill source is temporarily unavailable; "+
		"try again, and if it persists ask the operator to check the server log" {
		t.Errorf("an uncached read during the outage: %s", out)
	}
	if strings.Contains(out, r.addr) {
		t.Errorf("the message names the store's address: %s", out)
	}

	r.restart(t)
	await("/readyz saying ready again", func() bool {
		_, body := readyz()
		return strings.Contains(body, `"status":"ready"`)
	})
	if out := call(`{"name":"read_file_in_skill","arguments":{"skill_name":"code-review","file_path":"references/security.md"}}`); strings.Contains(out, `"isError":true`) {
		t.Errorf("after the store came back: %s", out)
	}
}

// TestTwoReplicas runs two servers over one published bucket on real S3
// (versitygw). After a new publish both serve the new snapshot within a
// few refresh intervals, and no skills/get answer, polled throughout,
// mixes the frontmatter of one snapshot with the digests of another.
func TestTwoReplicas(t *testing.T) {
	r := stores[0].start(t) // S3
	r.createBucket(t, "replicas")
	url := r.url("replicas", "")
	version := func(v string) (doc []byte, dir string) {
		doc = []byte("---\nname: app\ndescription: Release " + v + " of the app skill.\n---\n# App " + v + "\n")
		return doc, testutil.TempTree(t, map[string][]byte{"app/SKILL.md": doc, "app/refs/notes.md": []byte("notes " + v)})
	}
	publishDir := func(dir string) {
		cmd := exec.Command(binary, "publish", "--quiet", dir, url)
		cmd.Env = append(os.Environ(), r.env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("publish: %v\n%s", err, out)
		}
	}
	doc1, dir1 := version("one")
	doc2, dir2 := version("two")
	publishDir(dir1)
	digest := map[string]string{"Release one of the app skill.": "sha256:" + snapshot.Sum(doc1), "Release two of the app skill.": "sha256:" + snapshot.Sum(doc2)}

	var urls []string
	for range 2 {
		urls = append(urls, serveHTTPEnv(t, r.env, "--stateless", "--refresh", "1s", "-s", url))
	}
	// get returns the description and SKILL.md digest of one skills/get answer.
	get := func(mcpURL string) (desc, docDigest string) {
		var answer struct {
			Result struct {
				Skill struct {
					Frontmatter struct{ Description string }   `json:"frontmatter"`
					Resources   []struct{ URI, Digest string } `json:"resources"`
				} `json:"skill"`
			} `json:"result"`
		}
		if body := rpc(t, mcpURL, "skills/get", `{"uri":"skill://app/SKILL.md"}`); json.Unmarshal(body, &answer) != nil {
			t.Fatalf("skills/get: %.300s", body)
		}
		for _, res := range answer.Result.Skill.Resources {
			if res.URI == "skill://app/SKILL.md" {
				docDigest = res.Digest
			}
		}
		return answer.Result.Skill.Frontmatter.Description, docDigest
	}
	check := func(i int) string {
		desc, d := get(urls[i])
		if want, ok := digest[desc]; !ok || d != want {
			t.Fatalf("replica %d answered %q with SKILL.md digest %s: mixed or unknown snapshot", i, desc, d)
		}
		return desc
	}
	for i := range urls {
		if desc := check(i); desc != "Release one of the app skill." {
			t.Fatalf("replica %d before the new publish: %q", i, desc)
		}
	}
	publishDir(dir2)
	start := time.Now()
	switched := make([]time.Duration, len(urls))
	testutil.Within(20*time.Second, func() bool {
		done := true
		for i := range urls {
			if check(i) == "Release two of the app skill." {
				if switched[i] == 0 {
					switched[i] = time.Since(start)
				}
			} else {
				done = false
			}
		}
		return done
	})
	for i, d := range switched {
		if d == 0 {
			t.Errorf("replica %d never served the new snapshot", i)
		}
	}
	t.Logf("replicas switched after %v (refresh interval 1s)", switched)
}

// sha256Digest is a digest as the skills extension writes it.
var sha256Digest = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// toolText decodes a tools/call answer: its text content and isError.
func toolText(t *testing.T, body string) (text string, isError bool) {
	t.Helper()
	var answer struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &answer); err != nil || len(answer.Result.Content) != 1 {
		t.Fatalf("tools/call answer %.300s: %v", body, err)
	}
	return answer.Result.Content[0].Text, answer.Result.IsError
}

// rpc posts one JSON-RPC request (protocol 2025-11-25, no session) to a
// stateless MCP endpoint and returns the answer's body.
func rpc(t *testing.T, mcpURL, method, params string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, mcpURL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	_, b := testutil.Do(t, req)
	return b
}

// TestPublishRacing runs two `skillstore publish` processes to one prefix
// of real S3 (versitygw, which honours If-None-Match on PUT) at once: the
// first is stopped (SIGSTOP) while it holds the lock, the second then
// fails with a message naming the holder and --break-lock, and the first,
// let go, publishes its snapshot whole. Then a publish is killed half way
// through its uploads: its lock stays, so the next publish fails the same
// way, the previous snapshot still served whole; with --break-lock it
// takes the lock, says so, and uploads only what the killed one did not.
func TestPublishRacing(t *testing.T) {
	r := stores[0].start(t) // S3
	useEnv(t, r.env)
	r.createBucket(t, "racing")
	url := r.url("racing", "team/")
	ctx := context.Background()
	b, err := blob.OpenBucket(ctx, r.url("racing", "team/"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tree := func(tag string) (string, map[string][]byte) {
		files := map[string][]byte{}
		for i := range 300 {
			name := fmt.Sprintf("skill-%03d", i)
			files[name+"/SKILL.md"] = []byte(fmt.Sprintf("---\nname: %s\ndescription: Skill %d of %s.\n---\n# %s\n", name, i, tag, name))
			files[name+"/references/guide.md"] = []byte("guide of " + name + " in " + tag)
		}
		return testutil.TempTree(t, files), files
	}
	start := func(args ...string) (*exec.Cmd, *testutil.SyncBuffer) {
		cmd := exec.Command(binary, args...)
		cmd.Env = append(os.Environ(), r.env...)
		out := new(testutil.SyncBuffer)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd, out
	}
	run := func(args ...string) (string, error) {
		cmd := exec.Command(binary, args...)
		cmd.Env = append(os.Environ(), r.env...)
		out, err := cmd.CombinedOutput()
		for _, s := range r.secrets {
			if strings.Contains(string(out), s) {
				t.Errorf("output carries a credential: %s", out)
			}
		}
		return string(out), err
	}
	blobs := func() map[string]bool {
		set := map[string]bool{}
		iter := b.List(&blob.ListOptions{Prefix: snapshot.Dir + "/blobs/"})
		for {
			o, err := iter.Next(ctx)
			if err == io.EOF {
				return set
			}
			if err != nil {
				t.Fatal(err)
			}
			set[o.Key] = true
		}
	}
	// poll waits until cond holds.
	poll := func(what string, cond func() bool) {
		t.Helper()
		if !testutil.Within(60*time.Second, cond) {
			t.Fatalf("%s did not happen within 60 s", what)
		}
	}
	locked := func() bool { ok, _ := b.Exists(ctx, snapshot.LockKey); return ok }
	// whole checks that the bucket serves the snapshot of files, every
	// blob its manifest names stored.
	whole := func(files map[string][]byte) {
		t.Helper()
		pub, err := snapshot.Open(ctx, blobfs.NewBucketFS(b, blobfs.BucketOptions{}), snapshot.Options{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		stored, n := blobs(), 0
		for _, sk := range pub.Current().Skills {
			for _, f := range sk.Files {
				n++
				want, ok := files[sk.Dir+"/"+f.Path]
				if !ok || f.SHA256 != snapshot.Sum(want) || !stored[snapshot.BlobKey(f.SHA256)] {
					t.Fatalf("the snapshot served names %s/%s (%s), not the published content, or its content is missing", sk.Dir, f.Path, f.SHA256)
				}
			}
		}
		if n != len(files) {
			t.Errorf("the snapshot served lists %d files; want %d", n, len(files))
		}
		if data, err := fs.ReadFile(pub, "skill-299/references/guide.md"); err != nil || string(data) != string(files["skill-299/references/guide.md"]) {
			t.Errorf("reading a file back: %q, %v", data, err)
		}
	}
	lockedOut := regexp.MustCompile(`^skillstore: publishing to s3://racing\S*: another publish is writing to this folder: publish [0-9a-f]{16} on this host, since \S+Z, its lock expiring at \S+Z unless renewed; wait for it to end and publish again; if it no longer runs \(its process was killed\), publish with --break-lock\n$`)

	// Two at once: the second finds the first's lock.
	dirA, filesA := tree("A")
	dirB, filesB := tree("B")
	first, firstOut := start("publish", "--quiet", dirA, url)
	poll("the first publish's lock", locked)
	if err := first.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if !locked() {
		t.Fatal("the first publish ended before it could be stopped holding its lock")
	}
	out, err := run("publish", dirB, url)
	if err == nil || !lockedOut.MatchString(userLines(out)) {
		t.Errorf("the second publish, while the first holds the lock: %v\n%s", err, out)
	}
	first.Process.Signal(syscall.SIGCONT)
	if err := first.Wait(); err != nil {
		t.Fatalf("the first publish: %v\n%s", err, firstOut.String())
	}
	whole(filesA)
	if locked() {
		t.Error("the first publish left its lock")
	}

	// Killed half way through its uploads: its lock stays until it
	// expires, and the next publish fails as the second did.
	before := len(blobs())
	killed, _ := start("publish", "--quiet", "--transfers", "1", dirB, url) // one at a time: still uploading when killed
	poll("half the uploads", func() bool { return len(blobs()) >= before+100 })
	killed.Process.Kill()
	killed.Wait()
	if !locked() {
		t.Fatal("a killed publish left no lock")
	}
	out, err = run("publish", dirB, url)
	if err == nil || !lockedOut.MatchString(userLines(out)) {
		t.Errorf("a publish after one was killed: %v\n%s", err, out)
	}
	whole(filesA) // still: the killed one never moved the pointer
	stored := 0
	have := blobs()
	for _, data := range filesB {
		if have[snapshot.BlobKey(snapshot.Sum(data))] {
			stored++
		}
	}
	if stored == 0 || stored == len(filesB) {
		t.Fatalf("the killed publish stored %d of %d files; want some", stored, len(filesB))
	}
	out, err = run("publish", "--break-lock", dirB, url)
	if err != nil {
		t.Fatalf("publish --break-lock: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^skillstore: warning: broke the publish lock of publish [0-9a-f]{16} on this host, since \S+Z \(--break-lock\)`).MatchString(out) {
		t.Errorf("publish --break-lock did not say whose lock it broke:\n%s", out)
	}
	if want := fmt.Sprintf("files: %d uploaded (", len(filesB)-stored); !strings.Contains(out, want) || !strings.Contains(out, fmt.Sprintf(", %d already stored,", stored)) {
		t.Errorf("publish --break-lock after a killed publish: want %q and %d already stored:\n%s", want, stored, out)
	}
	whole(filesB)
	if locked() {
		t.Error("publish --break-lock left its lock")
	}
	ran(t, "S3 (versitygw) racing publishes")
}

// TestPublishCreateIfAbsent: each real store refuses a conditional
// create (blobfs.PublishBucket.CreateObject, which the publish lock rests
// on) of a key that holds an object, as fs.ErrExist, leaving the object;
// of eight creates of one new key at once, exactly one succeeds.
func TestPublishCreateIfAbsent(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			r := st.start(t)
			useEnv(t, r.env)
			r.createBucket(t, "create")
			ctx := context.Background()
			b, err := blob.OpenBucket(ctx, r.url("create", "team/"))
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			p := blobfs.NewPublishBucket(b)
			attrs := snapshot.ObjectAttrs{ContentType: "application/json"}
			for round := range 3 {
				key := fmt.Sprintf("lock-%d.json", round)
				results := make(chan error, 8)
				for i := range 8 {
					go func() { results <- p.CreateObject(ctx, key, strings.NewReader(fmt.Sprint(i)), attrs) }()
				}
				created := 0
				for range 8 {
					switch err := <-results; {
					case err == nil:
						created++
					case !errors.Is(err, fs.ErrExist):
						t.Errorf("a create that lost: %v; want fs.ErrExist", err)
					}
				}
				if created != 1 {
					t.Errorf("round %d: %d of 8 creates of one key at once succeeded; want 1", round, created)
				}
				before, _ := b.ReadAll(ctx, key)
				if err := p.CreateObject(ctx, key, strings.NewReader("later"), attrs); !errors.Is(err, fs.ErrExist) {
					t.Errorf("creating a key that holds an object: %v; want fs.ErrExist", err)
				}
				if after, _ := b.ReadAll(ctx, key); string(after) != string(before) {
					t.Errorf("a refused create changed the object from %q to %q", before, after)
				}
			}
		})
	}
}

// TestPublishRefusedWrite: a write whose content does not match the MD5
// it is sent with is refused by every store, as an error (gocloud's
// azureblob writer panics on it; blobfs turns that into errRefused), and
// leaves no object.
func TestPublishRefusedWrite(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			r := st.start(t)
			useEnv(t, r.env)
			r.createBucket(t, "refused")
			ctx := context.Background()
			b, err := blob.OpenBucket(ctx, r.url("refused", "team/"))
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			p := blobfs.NewPublishBucket(b)
			wrong := md5.Sum([]byte("other content"))
			err = p.WriteObject(ctx, "blob", strings.NewReader("content"), snapshot.ObjectAttrs{ContentType: "application/octet-stream", ContentMD5: wrong[:]})
			if err == nil {
				t.Fatal("a write with the wrong MD5 succeeded")
			}
			if ok, _ := b.Exists(ctx, "blob"); ok {
				t.Error("a refused write left an object")
			}
		})
	}
}
