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
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/mcpload"
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

// peer is one server under comparison: how to start it and how to ask it
// for the 4 KB document and the 1 MiB file (tools/call params), and, for
// servers that serve them as resources, the 1 MiB file's URI.
type peer struct {
	name       string
	command    string
	args       []string
	doc4K, big string
	bigURI     string
}

func peers(dir string) []peer {
	ps := []peer{{
		name: "skillstore", command: binary, args: []string{"serve", "--source", dir, "--log-level", "error"},
		doc4K:  `{"name":"get_skill","arguments":{"skill_name":"bench"}}`,
		big:    `{"name":"read_file_in_skill","arguments":{"skill_name":"bench","file_path":"big.txt"}}`,
		bigURI: "skill://bench/big.txt",
	}}
	if sfs := os.Getenv(peerEnv); sfs != "" {
		path := func(p string) string { b, _ := json.Marshal(filepath.Join(dir, "bench", p)); return string(b) }
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

// protocols are the versions measured: the last one with the initialize
// handshake, and 2026-07-28, where every request carries its _meta.
var protocols = []string{mcpload.DefaultProtocol, mcpload.Stateless}

// BenchmarkStdio measures full MCP round trips over a stdio subprocess, with
// 1 and 16 requests in flight, at both protocol versions, for skillstore
// and, when present, the peer (which speaks only the older version),
// through the same lean client (internal/mcpload). Compare calls per second
// (1e9 / ns/op) within one run.
func BenchmarkStdio(b *testing.B) {
	dir := benchTree(b)
	for _, proto := range protocols {
		for _, p := range peers(dir) {
			c, err := mcpload.StartWith(mcpload.Options{Protocol: proto}, p.command, p.args...)
			if err != nil {
				b.Logf("%s does not serve %s over stdio: %v", p.name, proto, err)
				continue
			}
			for _, tc := range p.cases() {
				for _, inflight := range []int{1, 16} {
					b.Run(fmt.Sprintf("%s/%s/inflight=%d/%s", proto, tc.name, inflight, p.name), func(b *testing.B) {
						load(b, c, tc, inflight)
					})
				}
			}
			c.Close()
		}
	}
}

// BenchmarkHTTP measures Streamable HTTP round trips against serve --http,
// stateful (sessions, the default) and stateless, and a bare net/http
// handler that answers every call with a prepared answer of the same size:
// the cost of HTTP itself on this machine, with the same client.
func BenchmarkHTTP(b *testing.B) {
	dir := benchTree(b)
	p := peers(dir)[0]
	for _, mode := range []struct {
		name  string
		flags []string
		proto []string
	}{
		{"stateful", nil, []string{mcpload.DefaultProtocol}},
		{"stateless", []string{"--stateless"}, protocols},
	} {
		url := startHTTP(b, append(p.args, mode.flags...)...)
		for _, proto := range mode.proto {
			c, err := mcpload.DialHTTP(url, mcpload.Options{Protocol: proto})
			if err != nil {
				b.Fatal(err)
			}
			for _, tc := range p.cases() {
				for _, inflight := range []int{1, 16} {
					b.Run(fmt.Sprintf("%s/%s/%s/inflight=%d", mode.name, proto, tc.name, inflight), func(b *testing.B) {
						load(b, c, tc, inflight)
					})
				}
			}
			c.Close()
		}
	}
	// The baseline answers with the bytes skillstore sends for doc4K.
	prepared := captureAnswer(b, startHTTP(b, append(p.args, "--stateless")...), p.cases()[0])
	bare := httptest.NewServer(preparedHandler(prepared))
	defer bare.Close()
	bc, err := mcpload.DialHTTP(bare.URL, mcpload.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer bc.Close()
	for _, inflight := range []int{1, 16} {
		b.Run(fmt.Sprintf("bare-net-http/doc4K/inflight=%d", inflight), func(b *testing.B) {
			load(b, bc, p.cases()[0], inflight)
		})
	}
}

// startHTTP starts serve --http on a free loopback port and returns the
// MCP endpoint's URL once it answers.
func startHTTP(b *testing.B, args ...string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(binary, append(args, "--http", addr)...)
	cmd.Env = append(os.Environ(), "HOME="+b.TempDir())
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			return "http://" + addr + "/mcp"
		}
	}
	b.Fatal("serve --http did not start")
	return ""
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
// reading its initialize response.
func BenchmarkStartup(b *testing.B) {
	dir := benchTree(b)
	for _, p := range peers(dir) {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := mcpload.Startup(p.command, p.args...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
