package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

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
// for the 4 KB document and the 1 MiB file.
type peer struct {
	name       string
	command    string
	args       []string
	doc4K, big string // tools/call params
}

func peers(dir string) []peer {
	ps := []peer{{
		name: "skillstore", command: binary, args: []string{"serve", "--source", dir, "--log-level", "error"},
		doc4K: `{"name":"get_skill","arguments":{"skill_name":"bench"}}`,
		big:   `{"name":"read_file_in_skill","arguments":{"skill_name":"bench","file_path":"big.txt"}}`,
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

// BenchmarkStdio measures full MCP round trips over a stdio subprocess, with
// 1 and 16 requests in flight, for skillstore and, when present, the peer,
// through the same lean client (internal/mcpload). Compare calls per second
// (1e9 / ns/op) within one run.
func BenchmarkStdio(b *testing.B) {
	dir := benchTree(b)
	for _, p := range peers(dir) {
		c, err := mcpload.Start(p.command, p.args...)
		if err != nil {
			b.Fatal(err)
		}
		for _, tc := range []struct {
			name   string
			params string
			size   int64
		}{{"doc4K", p.doc4K, 4096}, {"file1MiB", p.big, 1 << 20}} {
			for _, inflight := range []int{1, 16} {
				b.Run(fmt.Sprintf("%s/inflight=%d/%s", tc.name, inflight, p.name), func(b *testing.B) {
					callLoad(b, c, json.RawMessage(tc.params), tc.size, inflight)
				})
			}
		}
		c.Close()
	}
}

func callLoad(b *testing.B, c *mcpload.Conn, params json.RawMessage, size int64, inflight int) {
	if _, err := c.Call(params); err != nil { // warm
		b.Fatal(err)
	}
	b.SetBytes(size)
	if inflight == 1 {
		for b.Loop() {
			if _, err := c.Call(params); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	b.SetParallelism((inflight + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Call(params); err != nil {
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
