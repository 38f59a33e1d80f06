// Package testutil holds helpers shared by skillstore's tests: building the
// binary once, writing a tree of files, watching a child's log, sending
// HTTP requests and capturing a text log.
package testutil

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BuildBinary builds the Go main package in pkgDir into a temporary folder
// and returns its path and a function that removes it. For TestMain.
func BuildBinary(pkgDir, name string) (path string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", name+"-bin-")
	if err != nil {
		return "", nil, err
	}
	path = filepath.Join(dir, name)
	build := exec.Command("go", "build", "-o", path, ".")
	build.Dir = pkgDir
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return path, func() { os.RemoveAll(dir) }, nil
}

// WriteTree writes files (slash-separated path → content) under dir.
func WriteTree(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TempTree writes files under a new temporary folder and returns it.
func TempTree(t testing.TB, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	WriteTree(t, dir, files)
	return dir
}

// SyncBuffer is a bytes.Buffer that a child process writes while a test
// reads it. Await waits for what a write brings, without polling.
type SyncBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{} // closed by the next write; nil until Await waits
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wrote != nil {
		close(s.wrote)
		s.wrote = nil
	}
	return s.b.Write(p)
}

// Await waits until ok holds of the buffer's text, checking after each
// write, and reports whether it held within limit.
func (s *SyncBuffer) Await(limit time.Duration, ok func(text string) bool) bool {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		s.mu.Lock()
		if ok(s.b.String()) {
			s.mu.Unlock()
			return true
		}
		if s.wrote == nil {
			s.wrote = make(chan struct{})
		}
		wrote := s.wrote
		s.mu.Unlock()
		select {
		case <-wrote:
		case <-timer.C:
			return ok(s.String())
		}
	}
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listening = regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/mcp)`)

// WaitForMCPURL waits for skillstore's "serving MCP over Streamable HTTP"
// log line and returns the URL it names.
func WaitForMCPURL(t testing.TB, logs *SyncBuffer) string {
	t.Helper()
	if !logs.Await(20*time.Second, listening.MatchString) {
		t.Fatalf("server did not report its address:\n%s", logs.String())
	}
	return listening.FindStringSubmatch(logs.String())[1]
}

// MainWithBinary builds the main package in pkgDir, stores its path in
// *bin, runs the tests and removes the binary. Use it as TestMain's body:
// os.Exit(testutil.MainWithBinary(m, ".", &binary)).
func MainWithBinary(m *testing.M, pkgDir string, bin *string) int {
	path, cleanup, err := BuildBinary(pkgDir, "skillstore")
	if err != nil {
		panic("building " + pkgDir + ": " + err.Error())
	}
	defer cleanup()
	*bin = path
	return m.Run()
}

// Ran records, when the test passes, that it exercised a real component
// (a server process, a client): the test command lists them at its end.
// SKILLSTORE_IT_RAN names the folder the records go to; without it Ran
// does nothing.
func Ran(t testing.TB, component string) {
	dir := os.Getenv("SKILLSTORE_IT_RAN")
	if dir == "" {
		return
	}
	t.Cleanup(func() {
		if !t.Failed() && !t.Skipped() {
			os.WriteFile(filepath.Join(dir, component), nil, 0o644)
		}
	})
}

// Zip returns a zip archive of files (path → content) and of symbolic
// links named links (pointing at ../../etc/passwd), for archive tests.
func Zip(t testing.TB, files map[string][]byte, links ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range links {
		h := &zip.FileHeader{Name: l}
		h.SetMode(fs.ModeSymlink | 0o777)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte("../../etc/passwd")); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Unzip returns a zip archive's files (name → content), in any order.
func Unzip(t testing.TB, b []byte) map[string]string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		out[f.Name] = string(data)
	}
	return out
}

// RequireBinary skips the test when a real component is not installed at
// path — unless SKILLSTORE_IT_REQUIRED is set, as the test command sets
// it, where a missing component fails the run: the test command cannot
// pass by skipping.
func RequireBinary(t testing.TB, path, what string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("SKILLSTORE_IT_REQUIRED") != "" {
			t.Fatalf("%s not installed at %s, and the test command requires every real component", what, path)
		}
		t.Skipf("%s not installed at %s; run ./scripts/test.sh, which installs it", what, path)
	}
}

// Do sends req with http.DefaultClient and returns the answer with its
// whole body read and closed; a failure to send or to read fails the test.
// Not for goroutines other than the test's (it calls t.Fatal).
func Do(t testing.TB, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// Request sends a request with no body to url, with the header's
// name and value pairs (a name without a value is left out), through Do.
func Request(t testing.TB, method, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return Do(t, req)
}

// SendMCP sends body to an MCP endpoint as a Streamable HTTP client does
// (it accepts JSON and an SSE stream; a body is sent as JSON), with the
// header's fields set last, through Do.
func SendMCP(t testing.TB, method, url, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, b := Do(t, req)
	return resp, string(b)
}

// Digest is b's digest as the .well-known index writes it: "sha256:"
// and the SHA-256 in lower-case hex.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Get GETs url and returns its body, failing the test unless the answer
// is 200 OK (the failure shows the status and the body).
func Get(t testing.TB, url string) []byte {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v %s", url, res.StatusCode, err, b)
	}
	return b
}

// SortedStrings returns the strings of the JSON array at v[path...]
// (objects decoded as map[string]any), sorted; empty, not nil, when there
// is none.
func SortedStrings(v any, path ...string) []string {
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	out := []string{}
	items, _ := v.([]any)
	for _, it := range items {
		s, _ := it.(string)
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// SortedFields returns the string values of key in the objects of the JSON
// array res[list], with prefix and suffix cut, sorted; empty, not nil,
// when there is none.
func SortedFields(res map[string]any, list, key, prefix, suffix string) []string {
	out := []string{}
	items, _ := res[list].([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		s, _ := m[key].(string)
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(s, prefix), suffix))
	}
	sort.Strings(out)
	return out
}

// TextLog returns a text logger, as the command line uses, without times,
// and the buffer it writes. Read the buffer only once the logging is done:
// it is not safe for a reader while something logs.
func TextLog() (*slog.Logger, *bytes.Buffer) {
	return textLog(false)
}

// TextLogByMessage is TextLog, except that an "err" attribute logged as
// the error itself, not its message, is marked: slog's text handler
// formats an error with %+v, which some dependencies' errors answer with
// stack frames naming files on the build machine.
func TextLogByMessage() (*slog.Logger, *bytes.Buffer) {
	return textLog(true)
}

func textLog(markErrValues bool) (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	h := slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		switch {
		case a.Key == slog.TimeKey && len(groups) == 0:
			return slog.Attr{}
		case markErrValues && a.Key == "err" && a.Value.Kind() != slog.KindString:
			return slog.String("err", "logged as a value, not its message: "+a.Value.String())
		}
		return a
	}})
	return slog.New(h), &buf
}

// Readers starts n goroutines calling read in a loop until the returned
// stop is called; stop waits for them and returns read's first error, or
// an error if no read ran at all (a test whose readers never ran proves
// nothing).
func Readers(n int, read func() error) (stop func() error) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	var reads atomic.Int64
	var readErr atomic.Value
	for range n {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if err := read(); err != nil {
					readErr.CompareAndSwap(nil, err)
				}
				reads.Add(1)
			}
		})
	}
	return func() error {
		close(done)
		wg.Wait()
		if err, _ := readErr.Load().(error); err != nil {
			return err
		}
		if reads.Load() == 0 {
			return errors.New("no reads ran")
		}
		return nil
	}
}

// Eventually polls cond until it holds, failing the test, named by what,
// after a generous deadline (20 s): for conditions another goroutine or
// process brings about, with no hook to wait on.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !Within(20*time.Second, cond) {
		t.Fatalf("%s: not within 20s", what)
	}
}

// Within polls cond until it holds or limit passes, and reports whether
// it held: for a condition another process, a real server or the OS
// brings about, with no hook to wait on. It polls every 5 ms at first,
// backing off to every 100 ms. It is the one polling loop of the tests;
// inside a synctest bubble, synctest.Wait is the better wait.
func Within(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for pause := 5 * time.Millisecond; !cond(); pause = min(2*pause, 100*time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause) // real time: what cond waits for happens outside this goroutine's hooks
	}
	return true
}

// Allocated returns the bytes the process allocates while fn runs (after
// a collection, so none of it is an earlier test's): a count of bytes,
// not a time, so a test may bound it.
func Allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Zeros reads as an endless run of zero bytes (io.LimitReader bounds it):
// a large input that is never held.
var Zeros io.Reader = zeros{}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
