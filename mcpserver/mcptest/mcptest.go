// Package mcptest is the suite that checks skillstore's whole MCP surface
// through a connected mcp-go client, whatever the transport: in process,
// over a real HTTP listener, or over the stdio of the built binary. The
// server under test must serve fixture.Skills (internal/fixture).
package mcptest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/store"
)

// Options tell the suite about the server's setting.
type Options struct {
	// Forbidden are strings no error message may contain: host paths, tokens.
	// (A successful Skill call names the skill's location, as its contract says.)
	Forbidden []string
	// ProtocolVersion is the version the client asks for (default: mcp-go's latest).
	ProtocolVersion string
	// WeatherPath is where the Skill tool says the weather skill is (its
	// Path line): the server's source location with the skill's folder,
	// as tools.SkillLocation writes it. Required.
	WeatherPath string
	// Provenance is what every answer that serves a fixture skill's
	// content must carry under mcpserver.ProvenanceMetaKey. If nil, the
	// suite takes it from get_skill's answer and checks that it names the
	// source "project" and a location, and that every other answer
	// carries the same.
	Provenance *store.Provenance
}

// Run checks every tool, resource, template and prompt through c, which
// must be started and not yet initialized.
func Run(t *testing.T, c *client.Client, opts Options) {
	ctx := context.Background()
	init := initialize(t, c, opts)
	if opts.WeatherPath == "" {
		t.Fatal("mcptest.Options.WeatherPath is required")
	}
	h := &harness{t: t, c: c, ctx: ctx, forbidden: opts.Forbidden, weatherPath: opts.WeatherPath}
	h.prov = h.learnProvenance(t, opts.Provenance)
	t.Run("ToolsList", h.toolsList)
	t.Run("ListSkills", h.listSkills)
	t.Run("SearchSkills", h.searchSkills)
	t.Run("GetSkill", h.getSkill)
	t.Run("ReadFileInSkill", h.readFile)
	t.Run("Skill", h.skill)
	t.Run("Resources", h.resources)
	t.Run("Prompts", h.prompts)
	t.Run("Hostile", h.hostile)
	t.Run("HostileTable", h.hostileTable)
	if ext, ok := init.Capabilities.Extensions["io.modelcontextprotocol/skills"].(map[string]any); !ok || ext["directoryRead"] != true {
		t.Errorf("capabilities do not declare the skills extension with directoryRead: %+v", init.Capabilities.Extensions)
	}
	t.Run("SkillsExtension", h.skillsExtension)
	t.Run("DirectoryRead", h.directoryRead)
	t.Run("StillServing", func(t *testing.T) {
		res := h.call(t, "list_skills", map[string]any{})
		if res.IsError {
			t.Fatal("server stopped serving after hostile input")
		}
	})
}

// RunHidden checks the hostile-input table's column "hidden by the
// view" (hostile.Case.Hiding) through c, which must be started and not
// yet initialized: the server serves fixture.Skills to a caller whose
// view hides hostile.HiddenSkills (an access policy, say), and must
// answer every case as it answers for a skill that does not exist, word
// for word. Options.WeatherPath and Provenance are not used: no answer
// serves content.
func RunHidden(t *testing.T, c *client.Client, opts Options) {
	initialize(t, c, opts)
	h := &harness{t: t, c: c, ctx: context.Background(), forbidden: opts.Forbidden}
	t.Run("HostileTable", func(t *testing.T) { h.hostileColumn(t, true) })
}

// initialize initializes c with the protocol version opts ask for and
// checks the server's identity and capabilities.
func initialize(t *testing.T, c *client.Client, opts Options) *mcp.InitializeResult {
	version := opts.ProtocolVersion
	if version == "" {
		version = mcp.LATEST_PROTOCOL_VERSION
	}
	init, err := c.Initialize(context.Background(), mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: version,
		ClientInfo:      mcp.Implementation{Name: "mcptest", Version: "1"},
	}})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if init.ServerInfo.Name != "skillstore" || init.Instructions != mcpserver.Instructions ||
		init.Capabilities.Tools == nil || init.Capabilities.Resources == nil || init.Capabilities.Prompts == nil {
		t.Errorf("initialize result: %+v", init)
	}
	return init
}

type harness struct {
	t           *testing.T
	c           *client.Client
	ctx         context.Context
	forbidden   []string
	weatherPath string
	prov        any // the fixture's provenance, as JSON decodes it
}

// learnProvenance returns the provenance of the fixture's skills as
// get_skill gives it, checked against want (or, if nil, for a source
// labelled "project" with a location), as JSON decodes it.
func (h *harness) learnProvenance(t *testing.T, want *store.Provenance) any {
	res := h.call(t, "get_skill", map[string]any{"skill_name": "calculator"})
	got := provenanceOf(res.Meta)
	if want != nil {
		if diff := cmp.Diff(asJSON(t, want), got); diff != "" {
			t.Errorf("get_skill's provenance (-want +got):\n%s", diff)
		}
		return asJSON(t, want)
	}
	m, _ := got.(map[string]any)
	if loc, _ := m["location"].(string); m["source"] != "project" || loc == "" {
		t.Errorf("get_skill's _meta %v; want a provenance naming the source project and its location", res.Meta)
	}
	return got
}

// provenanceOf is the provenance member of a result's _meta, or nil.
func provenanceOf(m *mcp.Meta) any {
	if m == nil {
		return nil
	}
	return m.AdditionalFields[mcpserver.ProvenanceMetaKey]
}

// checkProvenance fails unless res carries the fixture's provenance in
// its _meta (want) or none (a failure).
func (h *harness) checkProvenance(t *testing.T, what string, m *mcp.Meta, want bool) {
	t.Helper()
	var w any
	if want {
		w = h.prov
	}
	if diff := cmp.Diff(w, provenanceOf(m)); diff != "" {
		t.Errorf("%s: provenance in _meta (-want +got):\n%s", what, diff)
	}
}

// metaWithProvenance is the _meta of an item that carries the fixture's
// provenance and nothing else.
func (h *harness) metaWithProvenance() map[string]any {
	return map[string]any{mcpserver.ProvenanceMetaKey: h.prov}
}

func (h *harness) call(t *testing.T, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := h.c.CallTool(h.ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		t.Fatalf("%s: protocol error %v; want a tool result", name, err)
	}
	if res.IsError {
		h.clean(t, name, text(res))
	}
	return res
}

// clean fails if a message carries a forbidden string.
func (h *harness) clean(t *testing.T, what, msg string) {
	t.Helper()
	for _, f := range h.forbidden {
		if f != "" && strings.Contains(msg, f) {
			t.Errorf("%s: message leaks %q: %s", what, f, msg)
		}
	}
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured decodes a result's structured content.
func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatalf("structured content %+v: %v", res.StructuredContent, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return m
}

func (h *harness) toolsList(t *testing.T) {
	list, err := h.c.ListTools(h.ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		a := tool.Annotations
		if a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint ||
			a.IdempotentHint == nil || !*a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: annotations not all set explicitly: %+v", tool.Name, a)
		}
		raw, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			t.Fatal(err)
		}
		if _, ok := fields["outputSchema"]; !ok {
			t.Errorf("%s has no outputSchema: %s", tool.Name, raw)
		}
	}
	if diff := cmp.Diff([]string{"Skill", "get_skill", "list_skills", "read_file_in_skill", "search_skills"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	for _, tool := range list.Tools {
		if tool.Name == "Skill" && tool.Description != skillDescription {
			t.Errorf("Skill description:\n%s\nwant:\n%s", tool.Description, skillDescription)
		}
	}
}

// skillDescription is the Skill tool's description over the fixture.
const skillDescription = "Invoke a skill to apply specialized expertise and capabilities. Call it with the skill's name when a task matches a skill's description; " +
	"the result is the skill's instructions (SKILL.md), to follow step by step.\n\nAvailable skills:\n" +
	"- calculator: Basic arithmetic operations.\n- weather: Weather forecasts by location."

// details are list_skills' and search_skills' structured entries for the
// fixture's skills.
var details = map[string]any{
	"calculator": map[string]any{"name": "calculator", "description": "Basic arithmetic operations.", "uri": "skill://calculator/SKILL.md", "source": "project"},
	"weather":    map[string]any{"name": "weather", "description": "Weather forecasts by location.", "uri": "skill://weather/SKILL.md", "source": "project"},
}

func (h *harness) listSkills(t *testing.T) {
	res := h.call(t, "list_skills", map[string]any{})
	if res.IsError {
		t.Fatal(text(res))
	}
	want := map[string]any{"skills": []any{"calculator", "weather"}, "details": []any{details["calculator"], details["weather"]}}
	if diff := cmp.Diff(want, structured(t, res)); diff != "" {
		t.Errorf("structured (-want +got):\n%s", diff)
	}
	if got := text(res); got != "2 skills available. Load one with get_skill (skill_name) or read its URI as a resource.\n\n"+
		"- calculator: Basic arithmetic operations. (skill://calculator/SKILL.md)\n- weather: Weather forecasts by location. (skill://weather/SKILL.md)" {
		t.Errorf("text = %q", got)
	}
}

func (h *harness) searchSkills(t *testing.T) {
	for _, tc := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"query": "what's the forecast for tomorrow"}, []string{"weather"}},
		{map[string]any{"query": "do some arithmetic", "limit": 1}, []string{"calculator"}},
		{map[string]any{"query": "quantum chromodynamics"}, nil},
	} {
		res := h.call(t, "search_skills", tc.args)
		if res.IsError {
			t.Errorf("%v: %s", tc.args, text(res))
			continue
		}
		want := map[string]any{"skills": []any{}, "details": []any{}}
		for _, name := range tc.want {
			want["skills"] = append(want["skills"].([]any), name)
			want["details"] = append(want["details"].([]any), details[name])
		}
		if diff := cmp.Diff(want, structured(t, res)); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tc.args, diff)
		}
	}
}

func (h *harness) getSkill(t *testing.T) {
	for _, args := range []map[string]any{{"skill_name": "calculator"}, {"uri": " skill://calculator/SKILL.md "}} {
		res := h.call(t, "get_skill", args)
		if res.IsError || text(res) != fixture.CalculatorDoc {
			t.Errorf("get_skill %v: %q", args, text(res))
			continue
		}
		want := map[string]any{"uri": "skill://calculator/SKILL.md", "mimeType": "text/markdown", "documentation": fixture.CalculatorDoc, "skill_name": "calculator"}
		if diff := cmp.Diff(want, structured(t, res)); diff != "" {
			t.Errorf("get_skill %v structured (-want +got):\n%s", args, diff)
		}
		h.checkProvenance(t, fmt.Sprintf("get_skill %v", args), res.Meta, true)
	}
	h.checkProvenance(t, "a failed get_skill", h.call(t, "get_skill", map[string]any{"skill_name": "nope"}).Meta, false)
	h.checkProvenance(t, "list_skills", h.call(t, "list_skills", map[string]any{}).Meta, false)
	// Parity: byte-identical to resources/read of the same URI.
	for _, name := range []string{"calculator", "weather"} {
		res := h.call(t, "get_skill", map[string]any{"uri": "skill://" + name + "/SKILL.md"})
		if got := h.readText(t, "skill://"+name+"/SKILL.md"); got != text(res) {
			t.Errorf("%s: get_skill and resources/read differ", name)
		}
	}
}

func (h *harness) readFile(t *testing.T) {
	res := h.call(t, "read_file_in_skill", map[string]any{"skill_name": "calculator", "file_path": "examples/basic.py"})
	if res.IsError || text(res) != fixture.BasicPy {
		t.Fatalf("read: %q", text(res))
	}
	want := map[string]any{"success": true, "skill_name": "calculator", "file_path": "examples/basic.py", "content": fixture.BasicPy,
		"size_bytes": float64(len(fixture.BasicPy)), "encoding": "utf-8"}
	if diff := cmp.Diff(want, structured(t, res)); diff != "" {
		t.Errorf("structured (-want +got):\n%s", diff)
	}
	h.checkProvenance(t, "read_file_in_skill", res.Meta, true)
	res = h.call(t, "read_file_in_skill", map[string]any{"skill_name": "calculator", "file_path": "empty.txt"})
	if res.IsError || text(res) != "" {
		t.Errorf("empty file: %q", text(res))
	}
}

func (h *harness) skill(t *testing.T) {
	res := h.call(t, "Skill", map[string]any{"skill_name": "weather"})
	if want := "Skill: weather (Type: project)\nPath: " + h.weatherPath + "\n\n" + fixture.WeatherDoc; res.IsError || text(res) != want {
		t.Errorf("Skill:\n%s\nwant:\n%s", text(res), want)
	}
	h.checkProvenance(t, "Skill", res.Meta, true)
	res = h.call(t, "Skill", map[string]any{"skill_name": "nope"})
	want := "Skill 'nope' not found.\n\nAvailable skills:\n- calculator: Basic arithmetic operations.\n- weather: Weather forecasts by location.\n\n" +
		"To create this skill:\n1. Create directory ~/.agents/skills/nope/\n2. Add SKILL.md file with proper YAML frontmatter"
	if !res.IsError || text(res) != want {
		t.Errorf("Skill nope:\n%s\nwant:\n%s", text(res), want)
	}
}

func (h *harness) readContents(t *testing.T, uri string) (mcp.ResourceContents, error) {
	t.Helper()
	res, err := h.c.ReadResource(h.ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
	if err != nil {
		h.clean(t, uri, err.Error())
		return nil, err
	}
	if len(res.Contents) != 1 {
		t.Fatalf("%s: %d contents", uri, len(res.Contents))
	}
	return res.Contents[0], nil
}

func (h *harness) readText(t *testing.T, uri string) string {
	t.Helper()
	c, err := h.readContents(t, uri)
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	tc, ok := c.(mcp.TextResourceContents)
	if !ok {
		t.Fatalf("%s: not text: %T", uri, c)
	}
	return tc.Text
}

func (h *harness) resources(t *testing.T) {
	list, err := h.c.ListResources(h.ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	type resource struct{ URI, Name, Description, MIMEType string }
	var got []resource
	for _, r := range list.Resources {
		got = append(got, resource{r.URI, r.Name, r.Description, r.MIMEType})
	}
	want := []resource{
		{"skill://calculator/SKILL.md", "calculator", "Basic arithmetic operations.", "text/markdown"},
		{"skill://weather/SKILL.md", "weather", "Weather forecasts by location.", "text/markdown"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
	tpl, err := h.c.ListResourceTemplates(h.ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil || len(tpl.ResourceTemplates) != 1 || tpl.ResourceTemplates[0].URITemplate.Raw() != "skill://{name}/{+path}" {
		t.Errorf("templates = %+v, %v", tpl, err)
	}
	for path, want := range map[string]string{"docs/deep/notes.md": fixture.Notes, "config.json": fixture.ConfigJSON, "unicode.md": fixture.Unicode, "empty.txt": ""} {
		if got := h.readText(t, "skill://calculator/"+path); got != want {
			t.Errorf("%s = %q; want %q", path, got, want)
		}
	}
	c, err := h.readContents(t, "skill://calculator/assets/logo.png")
	if err != nil {
		t.Fatal(err)
	}
	blob, ok := c.(mcp.BlobResourceContents)
	if !ok {
		t.Fatalf("binary file as %T; want a blob", c)
	}
	if data, err := base64.StdEncoding.DecodeString(blob.Blob); err != nil || string(data) != fixture.Binary || blob.MIMEType != "image/png" {
		t.Errorf("blob = %+v", blob)
	}
	if diff := cmp.Diff(h.metaWithProvenance(), blob.Meta); diff != "" {
		t.Errorf("the blob's _meta (-want +got):\n%s", diff)
	}
	if c, err = h.readContents(t, "skill://weather/SKILL.md"); err != nil {
		t.Fatal(err)
	}
	if tc, ok := c.(mcp.TextResourceContents); !ok || !cmp.Equal(h.metaWithProvenance(), tc.Meta) {
		t.Errorf("SKILL.md's contents = %+v; want _meta %v", c, h.metaWithProvenance())
	}
}

func (h *harness) prompts(t *testing.T) {
	list, err := h.c.ListPrompts(h.ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range list.Prompts {
		names = append(names, p.Name+": "+p.Description)
	}
	if diff := cmp.Diff([]string{"calculator: Basic arithmetic operations.", "weather: Weather forecasts by location."}, names); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	p, err := h.c.GetPrompt(h.ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "weather"}})
	if err != nil || len(p.Messages) != 1 {
		t.Fatalf("prompt: %+v %v", p, err)
	}
	want := "Use the skill \"weather\". Its instructions (SKILL.md) follow; read supporting files it mentions with read_file_in_skill.\n\n" + fixture.WeatherDoc
	if tc, ok := p.Messages[0].Content.(mcp.TextContent); !ok || p.Messages[0].Role != mcp.RoleUser || tc.Text != want {
		t.Errorf("prompt message: %+v; want the user's text %q", p.Messages[0], want)
	}
	h.checkProvenance(t, "prompts/get", p.Meta, true)
}

// hostile sends arguments of the wrong shape and hostile queries to the
// tools and checks each answer is the contract's error. Hostile names,
// paths and URIs are hostileTable's (hostile.go).
func (h *harness) hostile(t *testing.T) {
	toolCases := []struct {
		tool string
		args any
		want string
	}{
		{"get_skill", map[string]any{"uri": ""}, "non-empty 'uri'"},
		{"get_skill", map[string]any{"skill_name": 42}, "Argument 'skill_name' of tool 'get_skill' must be a string, got a number"},
		{"get_skill", map[string]any{"skill_name": nil}, "must be a string, got null"},
		{"get_skill", map[string]any{"skill_name": []string{"a"}}, "must be a string, got an array"},
		{"get_skill", map[string]any{"skill_name": "weather", "uri": "skill://weather/SKILL.md"}, "not both"},
		{"read_file_in_skill", map[string]any{"skill_name": "calculator"}, "Missing required argument 'file_path'"},
		{"list_skills", map[string]any{"x": 1}, "Unknown argument 'x'"},
		{"search_skills", map[string]any{}, "Missing required argument 'query'"},
		{"search_skills", map[string]any{"query": "  "}, "Missing or empty 'query'"},
		{"search_skills", map[string]any{"query": "?!... --"}, "has no words to search for"},
		{"search_skills", map[string]any{"query": "how do I do the thing"}, "has no words to search for"},
		{"search_skills", map[string]any{"query": strings.Repeat("weather ", 200)}, "The query is too long (1599 bytes; the limit is 1000)"},
		{"search_skills", map[string]any{"query": "weather\ufffd"}, "not valid UTF-8"},
		{"search_skills", map[string]any{"query": 7}, "Argument 'query' of tool 'search_skills' must be a string, got a number"},
		{"search_skills", map[string]any{"query": "weather", "limit": 0}, "Argument 'limit' of tool 'search_skills' must be between 1 and 50, got 0"},
		{"search_skills", map[string]any{"query": "weather", "limit": -3}, "must be between 1 and 50, got -3"},
		{"search_skills", map[string]any{"query": "weather", "limit": 51}, "must be between 1 and 50, got 51"},
		{"search_skills", map[string]any{"query": "weather", "limit": 2.5}, "Argument 'limit' of tool 'search_skills' must be an integer, got the number 2.5"},
		{"search_skills", map[string]any{"query": "weather", "limit": "10"}, "must be an integer, got a string"},
	}
	for _, tc := range toolCases {
		res := h.call(t, tc.tool, tc.args)
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%s %v: isError=%v %q; want %q", tc.tool, clipArgs(tc.args), res.IsError, clipText(text(res)), tc.want)
		}
		if strings.Contains(text(res), "weather's private notes") || strings.Contains(text(res), "root:") || strings.Contains(text(res), fixture.HiddenSecret) {
			t.Errorf("%s %v read outside the skill folder", tc.tool, tc.args)
		}
	}
}

func clipArgs(a any) string { return clipText(fmt.Sprint(a)) }

// isHidden reports a path with a segment starting with ".".
func isHidden(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

func clipText(s string) string { return logtext.Clip(s, 200) }

// rpcIDs numbers the suite's own requests; JSON-RPC ids must not repeat
// (mcp-go's client can drop a response to a reused id).
var rpcIDs atomic.Int64

// rpc sends a request the mcp-go client has no method for.
// On 2026-07-28 it adds the _meta every request carries, as the client does
// for the methods it knows.
func (h *harness) rpc(t *testing.T, method string, params map[string]any) (json.RawMessage, *mcp.JSONRPCErrorDetails) {
	t.Helper()
	var header http.Header
	if v := h.c.ProtocolVersion(); mcp.IsModernProtocol(v) {
		withMeta := map[string]any{"_meta": map[string]any{
			mcp.MetaKeyProtocolVersion:    v,
			mcp.MetaKeyClientCapabilities: map[string]any{},
			mcp.MetaKeyClientInfo:         map[string]any{"name": "mcptest", "version": "1"},
		}}
		for k, v := range params {
			withMeta[k] = v
		}
		params = withMeta
		encoded, _ := json.Marshal(params)
		header = http.Header{} // what the client adds on HTTP: Mcp-Method, and Mcp-Name for resources/read
		for k, val := range mcp.StandardHeaders(v, mcp.MCPMethod(method), encoded) {
			header.Set(k, val)
		}
	}
	id := 1_000_000 + rpcIDs.Add(1)
	resp, err := h.c.GetTransport().SendRequest(h.ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(id), Method: method, Params: params, Header: header})
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return resp.Result, resp.Error
}

func sha(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

type skillEntry struct {
	URI         string         `json:"uri"`
	Frontmatter map[string]any `json:"frontmatter"`
	Resources   []struct {
		URI    string `json:"uri"`
		Digest string `json:"digest"`
		Size   int64  `json:"size"`
	} `json:"resources"`
	Meta map[string]any `json:"_meta"`
}

// skillsExtension checks skills/list and skills/get against the fixture.
func (h *harness) skillsExtension(t *testing.T) {
	raw, rerr := h.rpc(t, "skills/list", map[string]any{})
	if rerr != nil {
		t.Fatalf("skills/list: %+v", rerr)
	}
	var list struct {
		ResultType string       `json:"resultType"`
		Skills     []skillEntry `json:"skills"`
		TTLMs      *int         `json:"ttlMs"`
		CacheScope string       `json:"cacheScope"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatalf("skills/list = %s: %v", raw, err)
	}
	if list.ResultType != "complete" || list.TTLMs == nil || *list.TTLMs != 0 || list.CacheScope != "private" || len(list.Skills) != 2 {
		t.Fatalf("skills/list = %s", raw)
	}
	calc := list.Skills[0]
	fm := map[string]any{"name": "calculator", "description": "Basic arithmetic operations."}
	if calc.URI != "skill://calculator/SKILL.md" || !cmp.Equal(calc.Frontmatter, fm) {
		t.Errorf("entry = %+v", calc)
	}
	if w := list.Skills[1]; w.URI != "skill://weather/SKILL.md" || !cmp.Equal(w.Frontmatter, map[string]any{"name": "weather", "description": "Weather forecasts by location."}) {
		t.Errorf("entry = %+v", w)
	}
	for _, e := range list.Skills {
		if diff := cmp.Diff(h.metaWithProvenance(), e.Meta); diff != "" {
			t.Errorf("skills/list entry %s: _meta (-want +got):\n%s", e.URI, diff)
		}
	}
	want := map[string][]byte{}
	for name, data := range fixture.Skills() {
		if rest, ok := strings.CutPrefix(name, "calculator/"); ok && !isHidden(rest) {
			want["skill://calculator/"+rest] = data
		}
	}
	if len(calc.Resources) != len(want) {
		t.Errorf("manifest has %d files; want %d: %+v", len(calc.Resources), len(want), calc.Resources)
	}
	for _, r := range calc.Resources {
		data, ok := want[r.URI]
		if !ok || r.Digest != sha(data) || r.Size != int64(len(data)) {
			t.Errorf("manifest entry %+v; want digest %s size %d", r, sha(data), len(data))
		}
	}
	raw, rerr = h.rpc(t, "skills/get", map[string]any{"uri": "skill://calculator/SKILL.md"})
	var got struct {
		ResultType string     `json:"resultType"`
		Skill      skillEntry `json:"skill"`
	}
	if rerr != nil {
		t.Fatalf("skills/get: %+v", rerr)
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("skills/get = %s: %v", raw, err)
	}
	if got.ResultType != "complete" {
		t.Errorf("skills/get = %s", raw)
	}
	if diff := cmp.Diff(calc, got.Skill); diff != "" {
		t.Errorf("skills/get's entry differs from skills/list's (-list +get):\n%s", diff)
	}
	for _, uri := range []string{"skill://calculator/docs/deep/notes.md", ""} {
		_, rerr = h.rpc(t, "skills/get", map[string]any{"uri": uri})
		if rerr == nil || rerr.Code != -32602 {
			t.Errorf("skills/get %q: %+v; want -32602", uri, rerr)
		} else {
			h.clean(t, uri, rerr.Message)
		}
	}
	if _, rerr = h.rpc(t, "skills/list", map[string]any{"cursor": "!!not a cursor"}); rerr == nil || rerr.Code != -32602 {
		t.Errorf("bad cursor: %+v", rerr)
	}
}

// directoryRead checks resources/directory/read (SEP-2640, directoryRead):
// a skill folder's direct children, folders as inode/directory, and
// -32602 for a URI that is a file.
func (h *harness) directoryRead(t *testing.T) {
	type entry struct {
		URI      string `json:"uri"`
		Name     string `json:"name"`
		MIMEType string `json:"mimeType"`
		Size     *int64 `json:"size"`
	}
	read := func(uri string) []entry {
		t.Helper()
		raw, rerr := h.rpc(t, "resources/directory/read", map[string]any{"uri": uri})
		if rerr != nil {
			t.Fatalf("resources/directory/read %s: %+v", uri, rerr)
		}
		var res struct {
			Resources  []entry `json:"resources"`
			NextCursor string  `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatalf("%s: %s: %v", uri, raw, err)
		}
		if res.NextCursor != "" {
			t.Errorf("%s: one page expected: %s", uri, raw)
		}
		return res.Resources
	}
	// Files have a size, folders none; hidden ones are left out.
	size := func(data string) *int64 { n := int64(len(data)); return &n }
	want := []entry{
		{"skill://calculator/SKILL.md", "SKILL.md", "text/markdown", size(fixture.CalculatorDoc)},
		{"skill://calculator/assets", "assets", "inode/directory", nil},
		{"skill://calculator/config.json", "config.json", "application/json", size(fixture.ConfigJSON)},
		{"skill://calculator/docs", "docs", "inode/directory", nil},
		{"skill://calculator/empty.txt", "empty.txt", "text/plain; charset=utf-8", size("")},
		{"skill://calculator/examples", "examples", "inode/directory", nil},
		{"skill://calculator/unicode.md", "unicode.md", "text/markdown", size(fixture.Unicode)},
	}
	if diff := cmp.Diff(want, read("skill://calculator")); diff != "" {
		t.Errorf("skill://calculator children (-want +got):\n%s", diff)
	}
	want = []entry{{"skill://calculator/docs/deep/notes.md", "notes.md", "text/markdown", size(fixture.Notes)}}
	if diff := cmp.Diff(want, read("skill://calculator/docs/deep")); diff != "" {
		t.Errorf("skill://calculator/docs/deep (-want +got):\n%s", diff)
	}
}
