package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/backends/snapshot/snapshottest"
	"github.com/skillstore/skillstore/internal/servertest"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/mcpserver/mcpgoclient"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
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
	c := mcpgoclient.New(servertest.New(b, benchFS()))
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

// BenchmarkSkillsList100k answers skills/list, 2026-07-28, over a
// published snapshot of 100,000 skills of three files each (the shape of
// cmd/skillstore's BenchmarkPublishedCatalog): the first page and a page
// from the middle, 50 entries each with their manifests, digests (from
// the snapshot's manifest: no file is read) and provenance, in process,
// so an entry's making and encoding are what is measured.
func BenchmarkSkillsList100k(b *testing.B) {
	const n = 100_000
	const id = "20261122T000000.000000000Z-bench"
	fleet := snapshottest.Fleet(n, id, time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC))
	objects := fstest.MapFS{snapshot.ManifestKey(id): {Data: fleet[snapshot.ManifestKey(id)]}, snapshot.PointerKey: {Data: fleet[snapshot.PointerKey]}} // skills/list reads no blob
	ctx := context.Background()
	pub, err := snapshot.Open(ctx, snapshot.NewFSObjects(objects), snapshot.Options{Location: "s3://fleet?prefix=skills/", Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	s, err := store.New([]store.Source{{Label: "org", Location: "s3://fleet?prefix=skills/", Kind: "s3", FS: pub}}, store.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := mcpserver.New(ctx, tools.New(s, tools.Options{}), mcpserver.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	conn := srv.Connect(nil)
	defer conn.Close()
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"b","version":"1"}}`
	mid := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("skill-%06d", n/2))) // a page boundary: the last name of the page before
	for _, page := range []struct{ name, params string }{
		{"first", `{` + meta + `}`},
		{"middle", `{` + meta + `,"cursor":"` + mid + `"}`},
	} {
		msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"skills/list","params":` + page.params + `}`)
		if res, err := conn.Call(ctx, msg); err != nil || !bytes.Contains(res, []byte(`"nextCursor"`)) {
			b.Fatalf("%s page: %v %.300s", page.name, err, res)
		}
		b.Run(page.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := conn.Call(ctx, msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
