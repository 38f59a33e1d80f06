package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
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
	doc4K, big mcp.CallToolParams
}

func peers(b *testing.B, dir string) []peer {
	ps := []peer{{
		name: "skillstore", command: binary, args: []string{"serve", "--source", dir, "--log-level", "error"},
		doc4K: mcp.CallToolParams{Name: "get_skill", Arguments: map[string]any{"skill_name": "bench"}},
		big:   mcp.CallToolParams{Name: "read_file_in_skill", Arguments: map[string]any{"skill_name": "bench", "file_path": "big.txt"}},
	}}
	if sfs := os.Getenv(peerEnv); sfs != "" {
		ps = append(ps, peer{
			name: "server-filesystem", command: sfs, args: []string{dir},
			doc4K: mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": filepath.Join(dir, "bench", "SKILL.md")}},
			big:   mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": filepath.Join(dir, "bench", "big.txt")}},
		})
	}
	return ps
}

func startPeer(b *testing.B, p peer) *client.Client {
	c, err := client.NewStdioMCPClient(p.command, os.Environ(), p.args...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	if _, err := c.Initialize(context.Background(), mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION}}); err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkStdio measures full MCP round trips over a stdio subprocess, with
// 1 and 16 requests in flight, for skillstore and, when present, the peer.
// Compare calls per second (1e9 / ns/op) within one run.
func BenchmarkStdio(b *testing.B) {
	dir := benchTree(b)
	for _, p := range peers(b, dir) {
		c := startPeer(b, p)
		for _, tc := range []struct {
			name   string
			params mcp.CallToolParams
			size   int64
		}{{"doc4K", p.doc4K, 4096}, {"file1MiB", p.big, 1 << 20}} {
			for _, inflight := range []int{1, 16} {
				b.Run(fmt.Sprintf("%s/inflight=%d/%s", tc.name, inflight, p.name), func(b *testing.B) {
					callLoad(b, c, tc.params, tc.size, inflight)
				})
			}
		}
	}
}

func callLoad(b *testing.B, c *client.Client, params mcp.CallToolParams, size int64, inflight int) {
	ctx := context.Background()
	req := mcp.CallToolRequest{Params: params}
	call := func() {
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError {
			b.Fatalf("%v %+v", err, res)
		}
	}
	call() // warm
	b.SetBytes(size)
	if inflight == 1 {
		for b.Loop() {
			call()
		}
		return
	}
	b.SetParallelism((inflight + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			call()
		}
	})
}

// BenchmarkStartup measures the time from starting the server process to
// reading its initialize response.
func BenchmarkStartup(b *testing.B) {
	dir := benchTree(b)
	for _, p := range peers(b, dir) {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				startToInitialize(b, p)
			}
		})
	}
}

const initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n"

func startToInitialize(b *testing.B, p peer) {
	cmd := exec.Command(p.command, p.args...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	io.WriteString(in, initializeRequest)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, `"serverInfo"`) {
		b.Fatalf("initialize: %q %v", line, err)
	}
	in.Close()
	cmd.Process.Kill()
	cmd.Wait()
}

