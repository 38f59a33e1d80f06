package mcpserver_test

import (
	"context"
	"github.com/skillstore/skillstore/mcpserver/mcpgoclient"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// benchFS holds a 4 KB SKILL.md and a 1 MiB supporting file.
func benchFS() fstest.MapFS {
	head := "---\nname: bench\ndescription: A 4 KB skill for benchmarks.\n---\n"
	return fstest.MapFS{
		"bench/SKILL.md": {Data: []byte(head + strings.Repeat("x", 4096-len(head)-1) + "\n")},
		"bench/big.txt":  {Data: []byte(strings.Repeat("0123456789abcde\n", 1<<16))},
	}
}

func benchClient(b *testing.B) *client.Client {
	c := mcpgoclient.New(newServer(b, benchFS()))
	ctx := context.Background()
	c.Start(ctx)
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION}}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

func benchCall(b *testing.B, c *client.Client, name string, args map[string]any, size int64) {
	ctx := context.Background()
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkInProcessGetSkill4K is a full MCP round trip (request and result
// objects, handler, tool layer, cache) without a transport.
func BenchmarkInProcessGetSkill4K(b *testing.B) {
	benchCall(b, benchClient(b), "get_skill", map[string]any{"skill_name": "bench"}, 4096)
}

func BenchmarkInProcessReadFile1MiB(b *testing.B) {
	benchCall(b, benchClient(b), "read_file_in_skill", map[string]any{"skill_name": "bench", "file_path": "big.txt"}, 1<<20)
}
