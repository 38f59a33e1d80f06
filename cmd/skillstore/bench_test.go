package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/mcpload"
	"github.com/skillstore/skillstore/internal/skillgen"
	"github.com/skillstore/skillstore/internal/testutil"
)

// The peer server compared in the same run: @modelcontextprotocol/server-filesystem,
// found through SKILLSTORE_BENCH_SERVER_FILESYSTEM (the path of its
// mcp-server-filesystem launcher; scripts/bench.sh installs it). Without it
// only skillstore is measured.
const peerEnv = "SKILLSTORE_BENCH_SERVER_FILESYSTEM"

// benchTree writes the benchmark skill: a 4 KB SKILL.md and a 1 MiB file.
func benchTree(b *testing.B) string {
	head := "---\nname: bench\ndescription: A 4 KB skill for benchmarks.\n---\n"
	return writeFixture(b, map[string][]byte{
		"bench/SKILL.md": []byte(head + strings.Repeat("x", 4096-len(head)-1) + "\n"),
		"bench/big.txt":  []byte(strings.Repeat("0123456789abcde\n", 1<<16)),
	})
}

// binariesEnv names the skillstore binaries one run compares, as
// comma-separated NAME=PATH pairs ("before=/tmp/a,after=/tmp/b";
// scripts/bench-ab.sh sets it). Every MCP benchmark case then runs once per
// binary, in the order given, one after the other, and its name ends in
// /bin=NAME, so that benchstat can compare them (-col /bin). Without it the
// binary TestMain built is measured, under the names used before.
const binariesEnv = "SKILLSTORE_BENCH_BINARIES"

// namedBinary is one skillstore binary under comparison; name is empty for
// the one TestMain built.
type namedBinary struct{ name, path string }

// suffix is what the binary adds to a benchmark's name.
func (n namedBinary) suffix() string {
	if n.name == "" {
		return ""
	}
	return "/bin=" + n.name
}

// binaryName is what a NAME in binariesEnv may be: a benchstat key's value
// holds no slash, no equals sign and no space.
var binaryName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// parseBinaries reads binariesEnv's value: NAME=PATH pairs separated by
// commas, names unique and made of letters, digits, '.', '_' and '-'.
func parseBinaries(spec string) ([]namedBinary, error) {
	var bins []namedBinary
	seen := map[string]bool{}
	for _, pair := range strings.Split(spec, ",") {
		name, path, ok := strings.Cut(strings.TrimSpace(pair), "=")
		switch {
		case !ok || path == "":
			return nil, fmt.Errorf("%s: %q is not NAME=PATH", binariesEnv, pair)
		case !binaryName.MatchString(name):
			return nil, fmt.Errorf("%s: the name %q is not letters, digits, '.', '_' and '-'", binariesEnv, name)
		case seen[name]:
			return nil, fmt.Errorf("%s: the name %q is given twice", binariesEnv, name)
		}
		seen[name] = true
		bins = append(bins, namedBinary{name, path})
	}
	return bins, nil
}

// benchBinaries returns the skillstore binaries to measure: those
// binariesEnv names, each checked to be a regular executable file, or else
// the one TestMain built.
func benchBinaries(b *testing.B) []namedBinary {
	spec := strings.TrimSpace(os.Getenv(binariesEnv))
	if spec == "" {
		return []namedBinary{{path: binary}}
	}
	bins, err := parseBinaries(spec)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range bins {
		if fi, err := os.Stat(n.path); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			b.Fatalf("%s: the binary named %q is not an executable file", binariesEnv, n.name)
		}
	}
	return bins
}

// peer is one server under comparison: how to start it and how to ask it
// for the 4 KB document and the 1 MiB file (tools/call params), and, for
// servers that serve them as resources, the 1 MiB file's URI. skillstore
// is one peer per binary measured.
type peer struct {
	name       string
	skillstore bool
	command    string
	args       []string
	doc4K, big string
	bigURI     string
}

// peers returns a skillstore peer per binary in bins, serving dir, and the
// peer server when peerEnv names it.
func peers(dir string, bins []namedBinary) []peer {
	var ps []peer
	for _, n := range bins {
		ps = append(ps, peer{
			name: "skillstore" + n.suffix(), skillstore: true,
			command: n.path, args: []string{"serve", "--source", dir, "--log-level", "error"},
			doc4K:  `{"name":"get_skill","arguments":{"skill_name":"bench"}}`,
			big:    `{"name":"read_file_in_skill","arguments":{"skill_name":"bench","file_path":"big.txt"}}`,
			bigURI: "skill://bench/big.txt",
		})
	}
	if sfs := os.Getenv(peerEnv); sfs != "" {
		path := func(p string) string {
			b, err := json.Marshal(filepath.Join(dir, "bench", p))
			if err != nil {
				panic(err) // a string always marshals
			}
			return string(b)
		}
		ps = append(ps, peer{
			name: "server-filesystem", command: sfs, args: []string{dir},
			doc4K: `{"name":"read_text_file","arguments":{"path":` + path("SKILL.md") + `}}`,
			big:   `{"name":"read_text_file","arguments":{"path":` + path("big.txt") + `}}`,
		})
	}
	return ps
}

// loadCase is one request under load.
type loadCase struct {
	name, method, params string
	size                 int64
}

func (p peer) cases() []loadCase {
	cs := []loadCase{
		{"doc4K", "tools/call", p.doc4K, 4096},
		{"file1MiB", "tools/call", p.big, 1 << 20},
	}
	if p.bigURI != "" {
		cs = append(cs, loadCase{"read1MiB", "resources/read", `{"uri":"` + p.bigURI + `"}`, 1 << 20})
	}
	return cs
}

// caseNames are the names of every peer's cases, in the order they run.
var caseNames = []string{"doc4K", "file1MiB", "read1MiB"}

// caseNamed returns p's case called name, if p has it.
func (p peer) caseNamed(name string) (loadCase, bool) {
	for _, tc := range p.cases() {
		if tc.name == name {
			return tc, true
		}
	}
	return loadCase{}, false
}

// protocols are the versions measured: the last one with the initialize
// handshake, and 2026-07-28, where every request carries its _meta.
var protocols = []string{mcpload.DefaultProtocol, mcpload.Stateless}

// BenchmarkStdio measures full MCP round trips over a stdio subprocess, with
// 1 and 16 requests in flight, at both protocol versions, for skillstore
// (each binary of binariesEnv) and, when present, the peer (which speaks
// only the older version), through the same lean client
// (internal/mcpload). Every peer is started before the first case, and each
// case runs on every peer in turn. Compare calls per second (1e9 / ns/op)
// within one run.
func BenchmarkStdio(b *testing.B) {
	dir := benchTree(b)
	ps := peers(dir, benchBinaries(b))
	for _, proto := range protocols {
		conns := make([]*mcpload.Conn, len(ps))
		for i, p := range ps {
			c, err := mcpload.StartWith(mcpload.Options{Protocol: proto}, p.command, p.args...)
			if err != nil {
				if p.skillstore {
					b.Fatalf("%s does not serve %s over stdio: %v", p.name, proto, err)
				}
				b.Logf("%s does not serve %s over stdio: %v", p.name, proto, err)
				continue
			}
			conns[i] = c
		}
		for _, name := range caseNames {
			for _, inflight := range []int{1, 16} {
				for i, p := range ps {
					tc, ok := p.caseNamed(name)
					if conns[i] == nil || !ok {
						continue
					}
					b.Run(fmt.Sprintf("%s/%s/inflight=%d/%s", proto, name, inflight, p.name), func(b *testing.B) {
						load(b, conns[i], tc, inflight)
					})
				}
			}
		}
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}
}

// BenchmarkHTTP measures Streamable HTTP round trips against serve --http,
// stateful (sessions, the default) and stateless, and a bare net/http
// handler that answers every call with a prepared answer of the same size:
// the cost of HTTP itself on this machine, with the same client. With
// several binaries each case runs on each in turn, and each binary gets
// its own bare handler, answering with the bytes that binary sends.
func BenchmarkHTTP(b *testing.B) {
	dir := benchTree(b)
	ps := skillstoreOnly(peers(dir, benchBinaries(b))) // the peer server is measured over stdio only
	for _, mode := range []struct {
		name  string
		flags []string
		proto []string
	}{
		{"stateful", nil, []string{mcpload.DefaultProtocol}},
		{"stateless", []string{"--stateless"}, protocols},
	} {
		urls := make([]string, len(ps))
		for i, p := range ps {
			urls[i] = startHTTP(b, p.command, append(p.args, mode.flags...)...)
		}
		for _, proto := range mode.proto {
			conns := dialAll(b, urls, mcpload.Options{Protocol: proto})
			for _, tc := range ps[0].cases() {
				for _, inflight := range []int{1, 16} {
					for i, p := range ps {
						b.Run(fmt.Sprintf("%s/%s/%s/inflight=%d%s", mode.name, proto, tc.name, inflight, strings.TrimPrefix(p.name, "skillstore")), func(b *testing.B) {
							load(b, conns[i], tc, inflight)
						})
					}
				}
			}
			closeAll(conns)
		}
	}
	benchBare(b, ps)
}

// benchBare measures, for each skillstore peer, a bare net/http handler
// answering with the bytes that peer sends for doc4K (stateless).
func benchBare(b *testing.B, ps []peer) {
	urls := make([]string, len(ps))
	for i, p := range ps {
		prepared := captureAnswer(b, startHTTP(b, p.command, append(p.args, "--stateless")...), p.cases()[0])
		bare := httptest.NewServer(preparedHandler(prepared))
		b.Cleanup(bare.Close)
		urls[i] = bare.URL
	}
	conns := dialAll(b, urls, mcpload.Options{})
	defer closeAll(conns)
	for _, inflight := range []int{1, 16} {
		for i, p := range ps {
			b.Run(fmt.Sprintf("bare-net-http/doc4K/inflight=%d%s", inflight, strings.TrimPrefix(p.name, "skillstore")), func(b *testing.B) {
				load(b, conns[i], p.cases()[0], inflight)
			})
		}
	}
}

// skillstoreOnly returns the skillstore peers of ps.
func skillstoreOnly(ps []peer) []peer {
	var out []peer
	for _, p := range ps {
		if p.skillstore {
			out = append(out, p)
		}
	}
	return out
}

// dialAll opens an HTTP connection to each URL.
func dialAll(b *testing.B, urls []string, opts mcpload.Options) []*mcpload.HTTPConn {
	conns := make([]*mcpload.HTTPConn, len(urls))
	for i, u := range urls {
		c, err := mcpload.DialHTTP(u, opts)
		if err != nil {
			closeAll(conns[:i])
			b.Fatal(err)
		}
		conns[i] = c
	}
	return conns
}

// closeAll closes every connection.
func closeAll(conns []*mcpload.HTTPConn) {
	for _, c := range conns {
		c.Close()
	}
}

// startHTTP starts command (a skillstore binary) with args and --http on a
// free loopback port and returns the MCP endpoint's URL once it answers.
func startHTTP(b *testing.B, command string, args ...string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(command, append(args, "--http", addr)...)
	cmd.Env = append(os.Environ(), "HOME="+b.TempDir())
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if !testutil.Within(10*time.Second, func() bool {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	}) {
		b.Fatal("serve --http did not start")
	}
	return "http://" + addr + "/mcp"
}

// captureAnswer returns the body of one answer to tc, as a raw POST.
func captureAnswer(b *testing.B, url string, tc loadCase) []byte {
	body := `{"jsonrpc":"2.0","id":1,"method":"` + tc.method + `","params":` + tc.params + `}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if !bytes.Contains(out, []byte(`"result"`)) {
		b.Fatalf("no result: %.200s", out)
	}
	return out
}

// preparedHandler answers initialize minimally and every other request
// with answer, its id replaced by the request's: the least an HTTP server
// can do per call.
func preparedHandler(answer []byte) http.Handler {
	const idKey = `"id":1,`
	at := bytes.Index(answer, []byte(idKey))
	head, tail := answer[:at+len(`"id":`)], answer[at+len(idKey)-1:]
	init := []byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"bare","version":"1"}}}`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case bytes.Contains(body, []byte(`"initialize"`)):
			w.Write(init)
		case !bytes.Contains(body, []byte(`"id"`)):
			w.WriteHeader(http.StatusAccepted)
		default:
			id := body[bytes.Index(body, []byte(`"id":`))+5:]
			id = id[:bytes.IndexAny(id, ",}")]
			w.Header().Set("Content-Length", strconv.Itoa(len(head)+len(id)+len(tail)))
			w.Write(head)
			w.Write(id)
			w.Write(tail)
		}
	})
}

func load(b *testing.B, c mcpload.Caller, tc loadCase, inflight int) {
	req, err := c.Prepare(tc.method, json.RawMessage(tc.params))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.Do(req); err != nil { // warm
		b.Fatal(err)
	}
	b.SetBytes(tc.size)
	if inflight == 1 {
		for b.Loop() {
			if _, err := c.Do(req); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	b.SetParallelism((inflight + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Do(req); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkStartup measures the time from starting the server process to
// reading its initialize response, serving the one benchmark skill
// (skills=1, every peer) and a folder of 200 realistic skills (skills=200,
// skillstore only: serve lists them before it answers). Each binary of
// binariesEnv starts in turn for each folder.
func BenchmarkStartup(b *testing.B) {
	bins := benchBinaries(b)
	many := manySkills(b, bins, 200)
	for _, fx := range []struct {
		name string
		ps   []peer
	}{
		{"skills=1", peers(benchTree(b), bins)},
		{"skills=200", skillstoreOnly(peers(many, bins))},
	} {
		for _, p := range fx.ps {
			b.Run(fx.name+"/"+p.name, func(b *testing.B) {
				for b.Loop() {
					if _, err := mcpload.Startup(p.command, p.args...); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// manySkills writes n skills of internal/skillgen's catalog (a SKILL.md of
// 150 to 1,500 words, some with a reference.md) to a temporary folder, and
// checks that every binary lists all n as valid: a binary that skipped
// some would start faster for the wrong reason.
func manySkills(b *testing.B, bins []namedBinary, n int) string {
	dir := b.TempDir()
	if err := skillgen.WriteTree(dir, skillgen.Catalog(n)); err != nil {
		b.Fatal(err)
	}
	for _, bin := range bins {
		cmd := exec.Command(bin.path, "list", "--json", "--source", dir)
		cmd.Env = append(os.Environ(), "HOME="+b.TempDir())
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("skillstore%s list: %v", bin.suffix(), err)
		}
		var c struct {
			Valid  bool              `json:"valid"`
			Skills []json.RawMessage `json:"skills"`
		}
		if err := json.Unmarshal(out, &c); err != nil || !c.Valid || len(c.Skills) != n {
			b.Fatalf("skillstore%s lists %d skills (valid: %v, err: %v), want %d valid", bin.suffix(), len(c.Skills), c.Valid, err, n)
		}
	}
	return dir
}

// TestParseBinaries checks how SKILLSTORE_BENCH_BINARIES is read.
func TestParseBinaries(t *testing.T) {
	for _, tc := range []struct {
		spec    string
		want    []namedBinary
		wantErr string
	}{
		{spec: "before=/a/skillstore,after=/b/skillstore", want: []namedBinary{{"before", "/a/skillstore"}, {"after", "/b/skillstore"}}},
		{spec: " a=x , b.2_c-d=y=z ", want: []namedBinary{{"a", "x"}, {"b.2_c-d", "y=z"}}},
		{spec: "only=/bin/true", want: []namedBinary{{"only", "/bin/true"}}},
		{spec: "before=/a,before=/b", wantErr: `SKILLSTORE_BENCH_BINARIES: the name "before" is given twice`},
		{spec: "before", wantErr: `SKILLSTORE_BENCH_BINARIES: "before" is not NAME=PATH`},
		{spec: "before=", wantErr: `SKILLSTORE_BENCH_BINARIES: "before=" is not NAME=PATH`},
		{spec: "=/a", wantErr: `SKILLSTORE_BENCH_BINARIES: the name "" is not letters, digits, '.', '_' and '-'`},
		{spec: "a/b=/a", wantErr: `SKILLSTORE_BENCH_BINARIES: the name "a/b" is not letters, digits, '.', '_' and '-'`},
		{spec: "a b=/a", wantErr: `SKILLSTORE_BENCH_BINARIES: the name "a b" is not letters, digits, '.', '_' and '-'`},
		{spec: "before=/a,", wantErr: `SKILLSTORE_BENCH_BINARIES: "" is not NAME=PATH`},
	} {
		got, err := parseBinaries(tc.spec)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("parseBinaries(%q) = %v, %v; want the error %q", tc.spec, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseBinaries(%q): %v", tc.spec, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(namedBinary{})); diff != "" {
			t.Errorf("parseBinaries(%q) (-want +got):\n%s", tc.spec, diff)
		}
	}
}
