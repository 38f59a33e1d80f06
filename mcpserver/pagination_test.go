package mcpserver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/internal/servertest"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/mcpserver/mcpgoclient"
)

// TestListsPaginate: resources/list and prompts/list give at most
// ListPageSize items a page, with a cursor that leads through every skill
// exactly once; list_skills keeps its text within the budget.
func TestListsPaginate(t *testing.T) {
	const n = 2*mcpserver.ListPageSize + 500
	m := fstest.MapFS{}
	names := make([]string, n)
	for i := range n {
		name := fmt.Sprintf("skill-%05d", i)
		names[i] = name
		m[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: Does task " + name + " with a description long enough to matter.\n---\n")}
	}
	c := mcpgoclient.New(servertest.New(t, m))
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
		if diff := cmp.Diff([]string{"1000", "1000", "500"}, sizes); diff != "" {
			t.Errorf("%s: page sizes (-want +got):\n%s", what, diff)
		}
		if diff := cmp.Diff(names, all); diff != "" {
			t.Errorf("%s: items (-want +got):\n%s", what, diff)
		}
	}
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "list_skills"}})
	if err != nil {
		t.Fatal(err)
	}
	// Within the budget: too many to describe, but every name fits.
	text := res.Content[0].(mcp.TextContent).Text
	header := fmt.Sprintf("%d skills available: too many to describe here. Call search_skills with a few words describing the task to find the right one, "+
		"then load it with get_skill (skill_name). Every name is in the structured result (\"skills\"):\n\n", n)
	body, ok := strings.CutPrefix(text, header)
	if len(text) > 64<<10 || !ok {
		t.Fatalf("list_skills text: %d bytes: %.300s", len(text), text)
	}
	if diff := cmp.Diff(names, strings.Split(body, "\n")); diff != "" {
		t.Errorf("list_skills text (-want +got):\n%s", diff)
	}
}
