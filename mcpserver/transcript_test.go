package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/site"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// The transcript suite: testdata/transcripts/README.md describes the
// format. Each *.txtar file holds a config, a client script and the
// server's expected answers; TestTranscripts replays the script against a
// server built from the config and compares what the server sent.

var update = flag.Bool("update", false, "rewrite the server section of testdata/transcripts/*.txtar from what the server sends")

// waitLimit bounds every wait of a transcript: for an answer, a stream
// event, a backend read, a server that should stop.
const waitLimit = 5 * time.Second

// modernMetaValue is what $meta stands for in a client script: the
// per-request protocol fields of 2026-07-28.
const modernMetaValue = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"transcript","version":"1"}}`

// stallFixture is added by the config's "stall": a skill whose stall.txt
// is never read to its end (see transcriptStallFS).
var stallFixture = map[string]string{
	"slow/SKILL.md":  "---\nname: slow\ndescription: A skill whose stall.txt blocks until the read is cancelled.\n---\n# Slow\n",
	"slow/stall.txt": "never served",
}

// TestTranscripts replays every testdata/transcripts/*.txtar against the
// server its config describes; -update rewrites each server section.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "transcripts", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcripts in testdata/transcripts")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			runTranscript(t, file)
		})
	}
}

// stdioTurn is held by the stdio transcript running.
var stdioTurn sync.Mutex

// runTranscript replays one transcript file and compares (or, with
// -update, rewrites) its server section.
func runTranscript(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ar := parseArchive(data)
	cfg, err := parseConfig(ar.get("config"))
	if err != nil {
		t.Fatalf("%s: config: %v", file, err)
	}
	h := newHarness(t, cfg)
	if cfg.transport == "stdio" {
		// mcp-go keeps one stdio session per process (its client state and
		// notification channel): stdio transcripts take turns.
		stdioTurn.Lock()
		defer stdioTurn.Unlock()
		h.runStdio(ar.get("client"))
	} else {
		h.runHTTP(ar.get("client"))
	}
	got := h.result()
	if *update {
		ar.set("server", got)
		if out := ar.format(); !bytes.Equal(out, data) {
			if err := os.WriteFile(file, out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if diff := cmp.Diff(strings.Split(ar.get("server"), "\n"), strings.Split(got, "\n")); diff != "" {
		t.Errorf("%s: the server's answers differ (-want +got):\n%s\n(go test ./mcpserver -run TestTranscripts -update records them)", file, diff)
	}
}

// archive is a txtar archive: a comment, then files each introduced by a
// "-- NAME --" line.
type archive struct {
	comment string
	files   []archiveFile
}

type archiveFile struct{ name, data string }

// parseArchive reads a txtar archive.
func parseArchive(data []byte) *archive {
	ar := &archive{}
	cur := &ar.comment
	for _, line := range strings.SplitAfter(string(data), "\n") {
		trimmed := strings.TrimRight(line, "\r\n")
		if name, ok := strings.CutPrefix(trimmed, "-- "); ok && strings.HasSuffix(name, " --") && len(name) > 3 {
			ar.files = append(ar.files, archiveFile{name: strings.TrimSpace(strings.TrimSuffix(name, " --"))})
			cur = &ar.files[len(ar.files)-1].data
			continue
		}
		*cur += line
	}
	return ar
}

// get returns the named file's text, or "".
func (a *archive) get(name string) string {
	for _, f := range a.files {
		if f.name == name {
			return f.data
		}
	}
	return ""
}

// set replaces the named file's text, or appends the file.
func (a *archive) set(name, data string) {
	for i := range a.files {
		if a.files[i].name == name {
			a.files[i].data = data
			return
		}
	}
	a.files = append(a.files, archiveFile{name, data})
}

// format writes the archive back; every file ends with a newline.
func (a *archive) format() []byte {
	var b bytes.Buffer
	b.WriteString(a.comment)
	for _, f := range a.files {
		fmt.Fprintf(&b, "-- %s --\n", f.name)
		b.WriteString(f.data)
		if f.data != "" && !strings.HasSuffix(f.data, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// config is a transcript's config section.
type config struct {
	transport string // stdio, http or http-stateless
	watch     bool   // serve a folder on disk, watched, for "! change"
	stall     bool   // add the skill "slow", whose stall.txt read blocks
	token     bool   // require a bearer token ($token in scripts)
	timeout   time.Duration
	http      site.Options
}

// parseConfig reads "key value" lines; # starts a comment line.
func parseConfig(text string) (config, error) {
	cfg := config{transport: "stdio"}
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, _ := strings.Cut(line, " ")
		val = strings.TrimSpace(val)
		var err error
		switch key {
		case "transport":
			if !slices.Contains([]string{"stdio", "http", "http-stateless"}, val) {
				return cfg, fmt.Errorf("unknown transport %q", val)
			}
			cfg.transport = val
		case "watch":
			cfg.watch = true
		case "stall":
			cfg.stall = true
		case "auth-token":
			cfg.token = true
		case "request-timeout":
			cfg.timeout, err = time.ParseDuration(val)
		case "max-sessions":
			cfg.http.MaxSessions, err = strconv.Atoi(val)
		case "max-streams":
			cfg.http.MaxStreams, err = strconv.Atoi(val)
		case "max-body-bytes":
			cfg.http.MaxBodyBytes, err = strconv.ParseInt(val, 10, 64)
		default:
			return cfg, fmt.Errorf("unknown key %q", key)
		}
		if err != nil {
			return cfg, fmt.Errorf("%s: %v", key, err)
		}
	}
	return cfg, nil
}

// harness is one transcript's server and what it has recorded.
type harness struct {
	t     *testing.T
	cfg   config
	srv   *mcpserver.Server
	dir   string             // the watched folder, with watch
	stall *mcpserver.StallFS // with stall
	token string             // the bearer token, with auth-token
	out   strings.Builder    // the server section being recorded
	names map[string]string  // text replaced in the record: a session id, the token, a host, a folder
	order []string           // names' keys, in the order they were added
}

// newHarness builds the server a config describes, over the fixture.
func newHarness(t *testing.T, cfg config) *harness {
	h := &harness{t: t, cfg: cfg, names: map[string]string{}}
	files := map[string]string{}
	for name, data := range fixture.Skills() {
		files[name] = string(data)
	}
	if cfg.stall {
		maps.Copy(files, stallFixture)
	}
	var fsys fs.FS = mapFS(files)
	if cfg.watch {
		fsys = h.folder(files)
	}
	if cfg.stall {
		h.stall = mcpserver.NewStallFS(fsys)
		fsys = h.stall
	}
	if cfg.token {
		h.token = fmt.Sprintf("tok-%d", time.Now().UnixNano())
		h.rename(h.token, "$token")
	}
	s, err := store.New([]store.Source{{Label: "project", Location: "./skills", Kind: "local", FS: fsys}}, store.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	h.srv, err = mcpserver.New(context.Background(), tools.New(s, tools.Options{}), mcpserver.Options{Logger: quiet, RequestTimeout: cfg.timeout})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.watch {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		// The rescan interval catches a change made before the folder
		// watch is in place; a change is reported once either way.
		go h.srv.Watch(ctx, 250*time.Millisecond)
	}
	return h
}

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for name, data := range files {
		m[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return m
}

// folder writes files to a new folder and returns it as a local source.
func (h *harness) folder(files map[string]string) fs.FS {
	h.dir = h.t.TempDir()
	h.rename(h.dir, "$dir")
	for name, data := range files {
		p := filepath.Join(h.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			h.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			h.t.Fatal(err)
		}
	}
	local, err := backends.OpenLocal(h.dir)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { local.Close() })
	return local
}

// rename makes the record show name wherever text appears.
func (h *harness) rename(text, name string) {
	if _, ok := h.names[text]; !ok {
		h.order = append(h.order, text)
	}
	h.names[text] = name
}

// result is the record, with session ids, the token, hosts and folders
// replaced by their names.
func (h *harness) result() string {
	var pairs []string
	for _, text := range h.order {
		pairs = append(pairs, text, h.names[text])
	}
	return strings.NewReplacer(pairs...).Replace(h.out.String())
}

func (h *harness) printf(format string, a ...any) { fmt.Fprintf(&h.out, format, a...) }

// directive runs a directive every transport knows, reporting false for
// one it does not know.
func (h *harness) directive(args []string) bool {
	switch {
	case len(args) == 3 && args[0] == "change":
		h.change(args[1], args[2])
	case len(args) == 1 && args[0] == "stall-started":
		h.stallStarted()
	case len(args) == 1 && args[0] == "stall-ended":
		h.stallEnded()
	default:
		return false
	}
	return true
}

// change adds a skill to the watched folder, or edits one's SKILL.md,
// each in one rename so the watcher sees one complete change.
func (h *harness) change(kind, name string) {
	if h.dir == "" {
		h.t.Fatal("! change needs watch in the config")
	}
	stage := h.t.TempDir()
	var from, to string
	switch kind {
	case "add":
		from, to = filepath.Join(stage, name), filepath.Join(h.dir, name)
		doc := "---\nname: " + name + "\ndescription: Added by the transcript.\n---\n# " + name + "\n"
		if err := os.Mkdir(from, 0o755); err != nil {
			h.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(from, "SKILL.md"), []byte(doc), 0o644); err != nil {
			h.t.Fatal(err)
		}
	case "edit":
		from, to = filepath.Join(stage, "SKILL.md"), filepath.Join(h.dir, name, "SKILL.md")
		old, err := os.ReadFile(to)
		if err != nil {
			h.t.Fatal(err)
		}
		if err := os.WriteFile(from, append(old, "\nEdited by the transcript.\n"...), 0o644); err != nil {
			h.t.Fatal(err)
		}
	default:
		h.t.Fatalf("! change %s: want add or edit", kind)
	}
	if err := os.Rename(from, to); err != nil {
		h.t.Fatal(err)
	}
}

// stallStarted waits until a read of stall.txt has begun.
func (h *harness) stallStarted() {
	if h.stall == nil {
		h.t.Fatal("! stall-started needs stall in the config")
	}
	select {
	case <-h.stall.Started():
		h.printf("> stall-started\n")
	case <-time.After(waitLimit):
		h.t.Fatal("! stall-started: no read of stall.txt began")
	}
}

// stallEnded waits until a read of stall.txt has ended, and records why.
func (h *harness) stallEnded() {
	if h.stall == nil {
		h.t.Fatal("! stall-ended needs stall in the config")
	}
	select {
	case err := <-h.stall.Ended():
		h.printf("> stall-ended\nthe backend read of stall.txt ended: %v\n", err)
	case <-time.After(waitLimit):
		h.t.Fatal("! stall-ended: the read of stall.txt did not end")
	}
}

// scriptLines returns a script's lines without comments and blank lines,
// $meta expanded.
func scriptLines(script string) []string {
	var lines []string
	for line := range strings.Lines(script) {
		line = strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		lines = append(lines, strings.ReplaceAll(line, "$meta", modernMetaValue))
	}
	return lines
}

// canonical renders a JSON value with sorted members, indented, without
// HTML escaping; anything else is returned as it is, marked.
func canonical(raw []byte) string {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || d.More() {
		return "!! not JSON: " + strings.TrimRight(string(raw), "\r\n")
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(v); err != nil {
		return "!! not JSON: " + strings.TrimRight(string(raw), "\r\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// message is the parts of a JSON-RPC message the harness looks at.
type message struct {
	ID     json.RawMessage // absent: nil
	Method *string         // absent: nil; a method that is not a string reads as ""
}

// decodeMessage reads a message; ok is false for anything but a JSON object.
func decodeMessage(raw []byte) (m message, ok bool) {
	var members map[string]json.RawMessage
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &members) != nil {
		return message{}, false
	}
	m.ID = members["id"]
	if method, ok := members["method"]; ok {
		var s string
		if err := json.Unmarshal(method, &s); err != nil {
			s = "" // a method that is not a string (hostile input the scripts send)
		}
		m.Method = &s
	}
	return m, true
}

// idKey is how a request's id is matched with its response's: the id if
// it is a string or an integer, else "null" (the server cannot echo it).
func idKey(id json.RawMessage) string {
	id = bytes.TrimSpace(id)
	switch {
	case len(id) > 0 && id[0] == '"':
		var s string
		if json.Unmarshal(id, &s) == nil {
			return strconv.Quote(s)
		}
	case len(id) > 0 && (id[0] == '-' || id[0] >= '0' && id[0] <= '9') && !bytes.ContainsAny(id, ".eE"):
		if n, err := strconv.ParseInt(string(id), 10, 64); err == nil {
			return strconv.FormatInt(n, 10)
		}
	}
	return "null"
}

// label names a sent message in the record: its method and id, or the
// line itself, clipped.
func label(line string) string {
	m, ok := decodeMessage([]byte(line))
	if !ok || m.Method == nil {
		if len(line) > 70 {
			line = line[:70] + "…"
		}
		return line
	}
	if len(m.ID) == 0 {
		return *m.Method
	}
	return *m.Method + " #" + string(bytes.TrimSpace(m.ID))
}

// isNotification reports a message with a method and no id.
func isNotification(raw []byte) bool {
	m, ok := decodeMessage(raw)
	return ok && m.Method != nil && len(m.ID) == 0
}

// sortNotifications sorts each run of consecutive notifications in msgs,
// which a server may send in any order (the three list_changed); key
// gives a message's text.
func sortNotifications[T any](msgs []T, key func(T) []byte) {
	for i := 0; i < len(msgs); {
		j := i
		for j < len(msgs) && isNotification(key(msgs[j])) {
			j++
		}
		if j > i+1 {
			slices.SortStableFunc(msgs[i:j], func(a, b T) int { return strings.Compare(canonical(key(a)), canonical(key(b))) })
		}
		i = max(j, i+1)
	}
}

// stdioConn is one stdio connection to the harness's server.
type stdioConn struct {
	in    *io.PipeWriter
	lines chan []byte // what the server writes, a line at a time; closed at its end
	done  chan error  // ServeStdio's result
}

// connectStdio serves a new stdio connection.
func (h *harness) connectStdio() *stdioConn {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &stdioConn{in: inW, lines: make(chan []byte, 1024), done: make(chan error, 1)}
	go func() {
		err := h.srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		c.done <- err
	}()
	go func() {
		defer close(c.lines)
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				c.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	h.t.Cleanup(func() { inW.Close(); outR.Close() })
	return c
}

// next returns the server's next line, or false when it has ended or
// nothing came within waitLimit.
func (c *stdioConn) next(deadline <-chan time.Time) ([]byte, bool) {
	select {
	case line, ok := <-c.lines:
		return line, ok
	case <-deadline:
		return nil, false
	}
}

// runStdio replays a stdio script: each line is sent as one message;
// after a request the answer with its id is awaited, and every message
// that arrives meanwhile is recorded.
func (h *harness) runStdio(script string) {
	c := h.connectStdio()
	wait, nowait := "", false
	for _, line := range scriptLines(script) {
		if d, ok := strings.CutPrefix(line, "!"); ok {
			args := strings.Fields(d)
			switch {
			case len(args) == 1 && args[0] == "nowait":
				nowait = true
			case len(args) == 2 && args[0] == "wait":
				wait = idKey(json.RawMessage(args[1]))
			case len(args) == 2 && args[0] == "read":
				h.readStdio(c, args[1])
			case len(args) == 2 && args[0] == "await":
				h.awaitStdio(c, "await "+args[1], idKey(json.RawMessage(args[1])))
			case len(args) == 1 && args[0] == "reconnect":
				h.endStdio(c)
				c = h.connectStdio()
				h.printf("> reconnect\n")
			case !h.directive(args):
				h.t.Fatalf("unknown directive %q", line)
			}
			continue
		}
		if _, err := io.WriteString(c.in, line+"\n"); err != nil {
			h.t.Fatalf("sending %s: %v", label(line), err)
		}
		if wait == "" && !nowait {
			wait = awaitedID(line)
		}
		if wait != "" && !nowait {
			h.awaitStdio(c, label(line), wait)
		}
		wait, nowait = "", false
	}
	h.endStdio(c)
}

// awaitedID is the id of the answer a sent line calls for: its id, "null"
// when the server cannot echo one, "" for a notification.
func awaitedID(line string) string {
	if t := strings.TrimSpace(line); strings.HasPrefix(t, "[") && json.Valid([]byte(t)) {
		return batchAnswer // a batch: its answer is an array
	}
	m, ok := decodeMessage([]byte(line))
	switch {
	case !ok:
		return "null" // not JSON, or not an object
	case len(m.ID) == 0 && m.Method != nil:
		return "" // a notification
	}
	return idKey(m.ID)
}

// batchAnswer is the awaited id of a batch, whose answer is an array.
const batchAnswer = "[batch]"

// awaitStdio records the server's messages up to the answer whose id is
// id (an array for batchAnswer).
func (h *harness) awaitStdio(c *stdioConn, what, id string) {
	h.printf("> %s\n", what)
	deadline := time.After(waitLimit)
	for {
		line, ok := c.next(deadline)
		if !ok {
			h.t.Fatalf("%s: no answer with id %s within %v", what, id, waitLimit)
		}
		h.printf("%s\n", canonical(line))
		if m, ok := decodeMessage(line); ok && m.Method == nil && len(m.ID) > 0 && idKey(m.ID) == id {
			return
		}
		if id == batchAnswer && bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")) {
			return
		}
	}
}

// readStdio records the server's next n messages, each run of
// notifications sorted.
func (h *harness) readStdio(c *stdioConn, count string) {
	n, err := strconv.Atoi(count)
	if err != nil {
		h.t.Fatalf("! read %s: %v", count, err)
	}
	h.printf("> read %d\n", n)
	deadline := time.After(waitLimit)
	var msgs [][]byte
	for range n {
		line, ok := c.next(deadline)
		if !ok {
			h.t.Fatalf("! read %d: got %d messages within %v", n, len(msgs), waitLimit)
		}
		msgs = append(msgs, line)
	}
	sortNotifications(msgs, func(b []byte) []byte { return b })
	for _, m := range msgs {
		h.printf("%s\n", canonical(m))
	}
}

// endStdio closes the connection's input, waits for the server to stop
// and records whatever it sent meanwhile.
func (h *harness) endStdio(c *stdioConn) {
	c.in.Close()
	h.printf("> end of input\n")
	deadline := time.After(waitLimit)
	select {
	case err := <-c.done:
		if err != nil {
			h.printf("ServeStdio: %v\n", err)
		}
	case <-deadline:
		h.t.Fatalf("ServeStdio did not return within %v of the end of its input", waitLimit)
	}
	for {
		line, ok := c.next(deadline)
		if !ok {
			return
		}
		h.printf("%s\n", canonical(line))
	}
}

// httpStep is one step of an HTTP script: a directive, or a request.
type httpStep struct {
	directive []string
	method    string // POST, GET, DELETE…
	mode      string // "", "stream" or "async"
	name      string // the stream's or async request's name
	header    [][2]string
	body      string
}

// parseHTTPScript reads an HTTP script: directives ("! …"), and requests,
// each a request line (METHOD [stream|async NAME]), header lines and at
// most one body line.
func parseHTTPScript(t *testing.T, script string) []httpStep {
	var steps []httpStep
	var cur *httpStep
	for _, line := range scriptLines(script) {
		if d, ok := strings.CutPrefix(line, "!"); ok {
			steps, cur = append(steps, httpStep{directive: strings.Fields(d)}), nil
			continue
		}
		if f := strings.Fields(line); slices.Contains([]string{"POST", "GET", "DELETE", "PUT", "OPTIONS"}, f[0]) {
			st := httpStep{method: f[0]}
			switch {
			case len(f) == 3 && (f[1] == "stream" || f[1] == "async"):
				st.mode, st.name = f[1], f[2]
			case len(f) != 1:
				t.Fatalf("request line %q: want METHOD [stream|async NAME]", line)
			}
			steps = append(steps, st)
			cur = &steps[len(steps)-1]
			continue
		}
		if cur == nil || cur.body != "" {
			t.Fatalf("line %q is neither a directive, a request line, a header nor a body", line)
		}
		if k, v, ok := strings.Cut(line, ":"); ok && isHeaderName(k) {
			cur.header = append(cur.header, [2]string{k, strings.TrimSpace(v)})
			continue
		}
		cur.body = line
	}
	return steps
}

// isHeaderName reports an HTTP header name (letters, digits, hyphens).
func isHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// httpRun replays an HTTP script against the harness's server.
type httpRun struct {
	h        *harness
	ts       *httptest.Server
	client   *http.Client
	sessions []string // the session ids the server handed out, in order
	streams  map[string]*httpStream
	async    map[string]*httpAsync
}

// httpStream is an open stream: its events as they arrive.
type httpStream struct {
	cancel context.CancelFunc
	events chan sseEvent // closed when the stream ends
	open   bool          // counted by the server against its stream cap
}

// httpAsync is a request sent in the background.
type httpAsync struct {
	cancel context.CancelFunc
	done   chan struct{}
	resp   *http.Response
	body   []byte
	err    error
}

// sseEvent is one server-sent event.
type sseEvent struct{ event, id, data string }

// runHTTP replays an HTTP script.
func (h *harness) runHTTP(script string) {
	opts := h.cfg.http
	opts.Stateless = h.cfg.transport == "http-stateless"
	opts.AuthToken = h.token
	ts := httptest.NewServer(site.New(h.srv, opts))
	h.rename(ts.Listener.Addr().String(), "$host")
	r := &httpRun{h: h, ts: ts, client: ts.Client(), streams: map[string]*httpStream{}, async: map[string]*httpAsync{}}
	defer ts.Close()
	defer r.closeAll()
	for _, st := range parseHTTPScript(h.t, script) {
		if st.directive != nil {
			r.directive(st.directive)
			continue
		}
		r.do(st)
	}
}

// directive runs an HTTP script's directive.
func (r *httpRun) directive(args []string) {
	switch {
	case len(args) == 3 && args[0] == "read":
		n, err := strconv.Atoi(args[2])
		if err != nil {
			r.h.t.Fatalf("! read %s %s: %v", args[1], args[2], err)
		}
		r.read(args[1], n)
	case len(args) == 2 && args[0] == "close":
		r.close(args[1])
	case len(args) == 2 && args[0] == "await":
		r.await(args[1])
	case !r.h.directive(args):
		r.h.t.Fatalf("unknown directive ! %s", strings.Join(args, " "))
	}
}

// expand replaces $session (the last session id handed out), $sessionN
// (the Nth) and $token in a header value or body.
func (r *httpRun) expand(s string) string {
	for n := len(r.sessions); n >= 1; n-- {
		s = strings.ReplaceAll(s, "$session"+strconv.Itoa(n), r.sessions[n-1])
	}
	if strings.Contains(s, "$session") {
		if len(r.sessions) == 0 {
			r.h.t.Fatalf("%q: no session id was handed out yet", s)
		}
		s = strings.ReplaceAll(s, "$session", r.sessions[len(r.sessions)-1])
	}
	return strings.ReplaceAll(s, "$token", r.h.token)
}

// request builds st's request: the harness's default headers (Content-Type
// and Accept, and the token with auth-token), then the script's, where an
// empty value removes a header.
func (r *httpRun) request(ctx context.Context, st httpStep) *http.Request {
	body := r.expand(st.body)
	req, err := http.NewRequestWithContext(ctx, st.method, r.ts.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		r.h.t.Fatal(err)
	}
	switch st.method {
	case http.MethodPost:
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	case http.MethodGet:
		req.Header.Set("Accept", "text/event-stream")
	}
	if r.h.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.h.token)
	}
	for _, kv := range st.header {
		if kv[1] == "" {
			req.Header.Del(kv[0])
		} else {
			req.Header.Set(kv[0], r.expand(kv[1]))
		}
	}
	return req
}

// stepLabel names a request in the record: its request line, and the
// method and id of its body.
func stepLabel(st httpStep) string {
	s := st.method
	if st.mode != "" {
		s += " " + st.mode + " " + st.name
	}
	if st.body != "" {
		s += " " + label(st.body)
	}
	return s
}

// do sends one request: a plain one is answered within waitLimit and
// recorded; a stream's headers are recorded and its events read in the
// background; an async one is recorded by "! await".
func (r *httpRun) do(st httpStep) {
	r.h.printf("> %s\n", stepLabel(st))
	switch st.mode {
	case "stream":
		r.openStream(st)
	case "async":
		ctx, cancel := context.WithCancel(context.Background())
		a := &httpAsync{cancel: cancel, done: make(chan struct{})}
		r.async[st.name] = a
		req := r.request(ctx, st)
		go func() {
			defer close(a.done)
			a.resp, a.err = r.client.Do(req)
			if a.err == nil {
				a.body, a.err = io.ReadAll(a.resp.Body)
				a.resp.Body.Close()
			}
		}()
	default:
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		resp, err := r.client.Do(r.request(ctx, st))
		if err != nil {
			r.h.t.Fatalf("%s: %v", stepLabel(st), err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			r.h.t.Fatalf("%s: reading the answer: %v", stepLabel(st), err)
		}
		r.record(resp, body)
	}
}

// openStream sends a request that may open a stream. An answer that is
// not an event stream is read and recorded whole.
func (r *httpRun) openStream(st httpStep) {
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		resp *http.Response
		err  error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := r.client.Do(r.request(ctx, st))
		got <- result{resp, err}
	}()
	var res result
	select {
	case res = <-got:
	case <-time.After(waitLimit):
		cancel()
		r.h.t.Fatalf("%s: no answer within %v", stepLabel(st), waitLimit)
	}
	if res.err != nil {
		cancel()
		r.h.t.Fatalf("%s: %v", stepLabel(st), res.err)
	}
	s := &httpStream{cancel: cancel, events: make(chan sseEvent, 256)}
	r.streams[st.name] = s
	if res.resp.StatusCode != http.StatusOK || !strings.HasPrefix(res.resp.Header.Get("Content-Type"), "text/event-stream") {
		body, _ := io.ReadAll(res.resp.Body)
		res.resp.Body.Close()
		close(s.events)
		cancel()
		r.record(res.resp, body)
		return
	}
	s.open = true
	r.recordHead(res.resp)
	r.h.printf("(stream open)\n")
	go func() {
		defer close(s.events)
		defer res.resp.Body.Close()
		readEvents(res.resp.Body, func(e sseEvent) { s.events <- e })
	}()
}

// readEvents parses server-sent events from body until it ends; comment
// lines (keep-alives) are skipped.
func readEvents(body io.Reader, each func(sseEvent)) {
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 4<<20)
	var e sseEvent
	var data []string
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if data != nil || e.event != "" {
				e.data = strings.Join(data, "\n")
				each(e)
			}
			e, data = sseEvent{}, nil
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "":
		case "event":
			e.event = value
		case "id":
			e.id = value
		case "data":
			data = append(data, value)
		}
	}
	if data != nil {
		e.data = strings.Join(data, "\n")
		each(e)
	}
}

// read records a stream's next n events, each run of notifications sorted;
// a stream that ends first is recorded as ended.
func (r *httpRun) read(name string, n int) {
	s := r.streams[name]
	if s == nil {
		r.h.t.Fatalf("! read %s: no such stream", name)
	}
	r.h.printf("> read %s %d\n", name, n)
	deadline := time.After(waitLimit)
	var events []sseEvent
	ended := false
	for len(events) < n && !ended {
		select {
		case e, ok := <-s.events:
			if !ok {
				ended = true
				break
			}
			events = append(events, e)
		case <-deadline:
			r.h.t.Fatalf("! read %s %d: got %d events within %v", name, n, len(events), waitLimit)
		}
	}
	sortNotifications(events, func(e sseEvent) []byte { return []byte(e.data) })
	for _, e := range events {
		r.recordEvent(e)
	}
	if ended {
		r.h.printf("(stream ended)\n")
	}
}

// close closes a stream or cancels an async request. The events a stream
// received that no "! read" took are recorded. A stream is closed once the
// server has let go of it: its place under the stream cap is free (as
// /metrics counts it), so a later request sees it gone.
func (r *httpRun) close(name string) {
	r.h.printf("> close %s\n", name)
	if a := r.async[name]; a != nil {
		a.cancel()
		return
	}
	s := r.streams[name]
	if s == nil {
		r.h.t.Fatalf("! close %s: no such stream or request", name)
	}
	r.unread(name, s)
	s.cancel()
	for range s.events {
	}
	if s.open {
		s.open = false
		r.awaitStreams()
	}
}

// unread records the events a stream has received that were not read.
func (r *httpRun) unread(name string, s *httpStream) {
	for {
		select {
		case e, ok := <-s.events:
			if !ok {
				return
			}
			r.h.printf("(unread on %s)\n", name)
			r.recordEvent(e)
		default:
			return
		}
	}
}

// awaitStreams waits until the server counts as many open streams as the
// harness holds.
func (r *httpRun) awaitStreams() {
	want := 0
	for _, s := range r.streams {
		if s.open {
			want++
		}
	}
	line := fmt.Sprintf("skillstore_http_streams %d\n", want)
	if !testutil.Within(waitLimit, func() bool {
		resp, err := r.client.Get(r.ts.URL + "/metrics")
		if err != nil {
			r.h.t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return strings.Contains(string(b), line)
	}) {
		r.h.t.Fatalf("the server still counts a closed stream open after %v", waitLimit)
	}
}

// await records the answer to an async request.
func (r *httpRun) await(name string) {
	a := r.async[name]
	if a == nil {
		r.h.t.Fatalf("! await %s: no such request", name)
	}
	r.h.printf("> await %s\n", name)
	select {
	case <-a.done:
	case <-time.After(waitLimit):
		r.h.t.Fatalf("! await %s: no answer within %v", name, waitLimit)
	}
	switch {
	case a.err != nil && a.resp == nil:
		r.h.printf("(no answer: the client gave up: %v)\n", errorsCause(a.err))
	case a.err != nil:
		r.recordHead(a.resp)
		r.h.printf("(the answer was cut off: %v)\n", errorsCause(a.err))
	default:
		r.record(a.resp, a.body)
	}
}

// errorsCause names a client-side request error without its URL.
func errorsCause(err error) string {
	if errors.Is(err, context.Canceled) {
		return "context canceled"
	}
	return err.Error()
}

// closeAll ends the script's open streams, recording under "> end" the
// events they received that were not read, and its async requests.
func (r *httpRun) closeAll() {
	r.h.printf("> end\n")
	for _, name := range slices.Sorted(maps.Keys(r.streams)) {
		s := r.streams[name]
		if s.open {
			r.unread(name, s)
			r.h.printf("(closing %s)\n", name)
		}
		s.cancel()
		for range s.events {
		}
	}
	for _, a := range r.async {
		a.cancel()
		<-a.done
	}
}

// recordedHeaders are the response headers the record shows, in this
// order: those a client acts on. Date, Content-Length and the like are left out.
var recordedHeaders = []string{"Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version", "Allow", "Retry-After", "WWW-Authenticate", "Cache-Control", "X-Accel-Buffering", "Connection"}

// recordHead records a response's status and headers, learning the
// session id it hands out.
func (r *httpRun) recordHead(resp *http.Response) {
	r.h.printf("%s\n", resp.Status)
	for _, k := range recordedHeaders {
		for _, v := range resp.Header.Values(k) {
			if k == "Mcp-Session-Id" && !slices.Contains(r.sessions, v) {
				r.sessions = append(r.sessions, v)
				r.h.rename(v, "$session"+strconv.Itoa(len(r.sessions)))
			}
			r.h.printf("%s: %s\n", k, v)
		}
	}
}

// record records a whole response: status, headers and body, an event
// stream event by event.
func (r *httpRun) record(resp *http.Response, body []byte) {
	r.recordHead(resp)
	switch {
	case len(body) == 0:
		r.h.printf("(no body)\n")
	case strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream"):
		readEvents(bytes.NewReader(body), r.recordEvent)
	case json.Valid(body):
		r.h.printf("%s\n", canonical(body))
	default:
		r.h.printf("%s\n", strings.TrimRight(string(body), "\n"))
	}
}

// recordEvent records one server-sent event: its type and id, then its
// data, as JSON when it is.
func (r *httpRun) recordEvent(e sseEvent) {
	r.h.printf("event: %s\n", e.event)
	if e.id != "" {
		r.h.printf("id: %s\n", e.id)
	}
	if json.Valid([]byte(e.data)) {
		r.h.printf("%s\n", canonical([]byte(e.data)))
	} else {
		r.h.printf("data: %s\n", e.data)
	}
}
