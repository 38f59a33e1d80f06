package mcpserver_test

import (
	"context"
	"fmt"
	"github.com/skillstore/skillstore/mcpserver/mcpgoclient"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/mcpserver"
)

// TestListsPaginate: resources/list and prompts/list give at most
// ListPageSize items a page, with a cursor that leads through every skill
// exactly once; list_skills keeps its text within the budget.
func TestListsPaginate(t *testing.T) {
	const n = 2*mcpserver.ListPageSize + 500
	m := fstest.MapFS{}
	for i := range n {
		name := fmt.Sprintf("skill-%05d", i)
		m[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: Does task " + name + " with a description long enough to matter.\n---\n")}
	}
	c := mcpgoclient.New(newServer(t, m))
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION}}); err != nil {
		t.Fatal(err)
	}
	type page struct {
		names []string
		next  mcp.Cursor
	}
	for what, list := range map[string]func(mcp.Cursor) (page, error){
		"resources/list": func(cur mcp.Cursor) (page, error) {
			req := mcp.ListResourcesRequest{}
			req.Params.Cursor = cur
			res, err := c.ListResourcesByPage(ctx, req)
			if err != nil {
				return page{}, err
			}
			p := page{next: res.NextCursor}
			for _, r := range res.Resources {
				p.names = append(p.names, r.Name)
			}
			return p, nil
		},
		"prompts/list": func(cur mcp.Cursor) (page, error) {
			req := mcp.ListPromptsRequest{}
			req.Params.Cursor = cur
			res, err := c.ListPromptsByPage(ctx, req)
			if err != nil {
				return page{}, err
			}
			p := page{next: res.NextCursor}
			for _, r := range res.Prompts {
				p.names = append(p.names, r.Name)
			}
			return p, nil
		},
	} {
		var all, sizes []string
		var cur mcp.Cursor
		for range 10 {
			p, err := list(cur)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			sizes = append(sizes, fmt.Sprint(len(p.names)))
			all = append(all, p.names...)
			if cur = p.next; cur == "" {
				break
			}
		}
		if strings.Join(sizes, ",") != "1000,1000,500" || len(all) != n || all[0] != "skill-00000" || all[n-1] != fmt.Sprintf("skill-%05d", n-1) {
			t.Errorf("%s: pages of %s, %d items", what, strings.Join(sizes, ","), len(all))
		}
		for i := 1; i < len(all); i++ {
			if all[i] <= all[i-1] {
				t.Fatalf("%s: %s after %s", what, all[i], all[i-1])
			}
		}
	}
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "list_skills"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(mcp.TextContent).Text
	if len(text) > 64<<10 || !strings.Contains(text, "Call search_skills") {
		t.Errorf("list_skills text: %d bytes: %.100s", len(text), text)
	}
}
