package mcptest

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/internal/hostile"
	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/tools"
)

// hostileTable drives the hostile-input table (internal/hostile) through
// every MCP operation that takes a skill name, a path or a URI: the tools
// read_file_in_skill, get_skill (by name and by URI) and Skill,
// resources/read, resources/directory/read and skills/get. Every answer
// is compared whole: a tool's text and structured content, a JSON-RPC
// error's code (the one the negotiated protocol version gives), message
// and data.
func (h *harness) hostileTable(t *testing.T) { h.hostileColumn(t, false) }

// hostileColumn drives one column of the table: the cases' Want, or with
// hiding their Hidden column (the caller's view hides the skills named).
func (h *harness) hostileColumn(t *testing.T, hiding bool) {
	for _, c := range hostile.Cases() {
		if hiding {
			c = c.Hiding()
		}
		t.Run(c.Name, func(t *testing.T) {
			if !c.URIOnly {
				h.hostileTool(t, tools.ReadFileInSkill, map[string]any{"skill_name": c.Skill, "file_path": c.File()}, hostile.ReadFileInSkill(c), readFileStructured(c))
				if c.Doc {
					h.hostileTool(t, tools.GetSkill, map[string]any{"skill_name": c.Skill}, hostile.GetSkillByName(c), getSkillStructured(c.ArgName(), c.For(hostile.GetSkill, hostile.Args)))
					h.hostileSkill(t, c)
				}
			}
			for _, uri := range c.URIs {
				h.hostileResource(t, c, uri)
				h.hostileDirectory(t, c, uri)
				if c.Doc {
					h.hostileTool(t, tools.GetSkill, map[string]any{"uri": uri}, hostile.GetSkillByURI(c, uri), getSkillStructured(c.Skill, c.For(hostile.URI)))
					h.hostileSkillsGet(t, c, uri)
				}
			}
		})
	}
}

// hostileTool calls a tool and compares its answer: the text (which
// travels as JSON: see hostile.ViaJSON), and on success the structured
// content.
func (h *harness) hostileTool(t *testing.T, tool string, args map[string]any, want hostile.ToolResult, structured any) {
	t.Helper()
	res := h.call(t, tool, args)
	got := hostile.ToolResult{IsError: res.IsError, Display: text(res)}
	want.Display, want.Content = hostile.ViaJSON(want.Display), ""
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s %s (-want +got):\n%s", tool, clipArgs(args), diff)
	}
	h.checkProvenance(t, tool+" "+clipArgs(args), res.Meta, !want.IsError)
	if want.IsError || got.IsError {
		if res.StructuredContent != nil {
			t.Errorf("%s %s: a failure with structured content %v", tool, clipArgs(args), res.StructuredContent)
		}
		return
	}
	if diff := cmp.Diff(asJSON(t, structured), asJSON(t, res.StructuredContent)); diff != "" {
		t.Errorf("%s %s structured content (-want +got):\n%s", tool, clipArgs(args), diff)
	}
}

// hostileSkill calls the Skill tool; a success names the skill's location,
// which the suite learns from the answer (the transports serve the fixture
// from different places).
func (h *harness) hostileSkill(t *testing.T, c hostile.Case) {
	res := h.call(t, tools.SkillTool, map[string]any{"skill_name": c.Skill})
	location := ""
	var st tools.SkillResult
	if !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &st); err != nil || !namesCalculator(st.Path) {
			t.Errorf("Skill %q: structured content %s (%v); want the location of calculator", c.Skill, b, err)
		}
		location = st.Path
	}
	want := hostile.SkillTool(c, location)
	got := hostile.ToolResult{IsError: res.IsError, Display: text(res)}
	h.checkProvenance(t, "Skill "+clipText(c.Skill), res.Meta, !want.IsError)
	want.Display, want.Content = hostile.ViaJSON(want.Display), ""
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Skill %q (-want +got):\n%s", clipText(c.Skill), diff)
	}
	if w := c.For(hostile.Args); w.Outcome == hostile.Served {
		wantST := tools.SkillResult{SkillName: "calculator", Type: "project", Path: location, Description: "Basic arithmetic operations.",
			Content: hostile.Content(w.File), ShortResult: "calculator: Basic arithmetic operations."}
		if diff := cmp.Diff(wantST, st); diff != "" {
			t.Errorf("Skill %q structured content (-want +got):\n%s", clipText(c.Skill), diff)
		}
	}
}

// namesCalculator reports whether a Skill tool location names the
// calculator skill: a directory path ending in it, or an object-store URL
// whose prefix parameter does (s3://skills?prefix=mcp%2Fcalculator%2F…).
func namesCalculator(location string) bool {
	if u, err := url.Parse(location); err == nil && u.Scheme != "" && u.Query().Has("prefix") {
		return path.Base(strings.TrimSuffix(u.Query().Get("prefix"), "/")) == "calculator"
	}
	return path.Base(location) == "calculator"
}

func readFileStructured(c hostile.Case) any {
	w := c.For(hostile.Args)
	if w.Outcome != hostile.Served {
		return nil
	}
	_, clean, _ := strings.Cut(w.File, "/")
	content := hostile.Content(w.File)
	return tools.ReadFileResult{Success: true, SkillName: c.ArgName(), FilePath: clean, Content: content, SizeBytes: int64(len(content)), Encoding: "utf-8"}
}

func getSkillStructured(name string, w hostile.Want) any {
	if w.Outcome != hostile.Served {
		return nil
	}
	return tools.GetSkillResult{SkillName: name, Documentation: hostile.Content(w.File), URI: tools.SkillURI(name), MimeType: "text/markdown"}
}

// rpcError is what the suite compares of a JSON-RPC error.
type rpcError struct {
	Code    int
	Message string
	Data    any
}

// gotError is e as an rpcError, or nil.
func gotError(t *testing.T, e *mcp.JSONRPCErrorDetails) *rpcError {
	if e == nil {
		return nil
	}
	return &rpcError{Code: e.Code, Message: e.Message, Data: asJSON(t, e.Data)}
}

// resourceError is the error resources/read and resources/directory/read
// answer a failure with: a request that can never name a file is invalid
// params; a resource that does not exist gets the code the protocol
// version gives for that (-32002, or -32602 from 2026-07-28) and the URI
// in data. Messages are the contract's sentence and its hint.
func (h *harness) resourceError(t *testing.T, uri string, w hostile.Want) *rpcError {
	msg := w.Msg
	if hint := hostile.Hint(w.Outcome); hint != "" {
		msg += ". " + hint
	}
	switch w.Outcome {
	case hostile.Served:
		return nil
	case hostile.InvalidName, hostile.PathEscapes, hostile.InvalidPath, hostile.BadArgument:
		return &rpcError{Code: mcp.INVALID_PARAMS, Message: hostile.ViaJSON(msg)}
	case hostile.NotAFolder:
		return &rpcError{Code: mcp.INVALID_PARAMS, Message: clipURI(uri) + " is a file, not a directory: read it with resources/read"}
	case hostile.SkillNotFound, hostile.FileNotFound, hostile.NoSkillDoc, hostile.IsDir, hostile.NoResource:
		code := mcp.RESOURCE_NOT_FOUND
		if mcp.IsModernProtocol(h.c.ProtocolVersion()) {
			code = mcp.INVALID_PARAMS
		}
		return &rpcError{Code: code, Message: hostile.ViaJSON(msg), Data: map[string]any{"uri": hostile.ViaJSON(uri)}}
	}
	t.Fatalf("%s: no resource error for %v", uri, w.Outcome)
	return nil
}

// clipURI quotes a URI as directory reads repeat it: 64 bytes at most.
func clipURI(uri string) string { return "'" + logtext.Clip(uri, 64) + "'" }

// hostileRead sends method (resources/read or resources/directory/read)
// for uri and compares its error with the one w expects; it returns the
// result and whether to compare it: w is served and no error came.
func (h *harness) hostileRead(t *testing.T, method, uri string, w hostile.Want) (json.RawMessage, bool) {
	raw, rerr := h.rpc(t, method, map[string]any{"uri": uri})
	if diff := cmp.Diff(h.resourceError(t, uri, w), gotError(t, rerr)); diff != "" {
		t.Errorf("%s %q (-want +got):\n%s", method, uri, diff)
	}
	return raw, w.Outcome == hostile.Served && rerr == nil
}

// hostileResource reads uri with resources/read.
func (h *harness) hostileResource(t *testing.T, c hostile.Case, uri string) {
	w := c.For(hostile.Resource, hostile.URI)
	raw, ok := h.hostileRead(t, "resources/read", uri, w)
	if !ok {
		return
	}
	content := hostile.Content(w.File)
	entry := map[string]any{"uri": uri, "mimeType": mimeOf(w.File), "text": content, "_meta": h.metaWithProvenance()}
	if mimeOf(w.File) == "image/png" {
		delete(entry, "text")
		entry["blob"] = base64.StdEncoding.EncodeToString([]byte(content))
	}
	if diff := cmp.Diff([]any{entry}, member(t, raw, "contents")); diff != "" {
		t.Errorf("resources/read %q (-want +got):\n%s", uri, diff)
	}
}

// mimeOf is the media type resources/read gives the fixture's files.
func mimeOf(p string) string {
	switch path.Ext(p) {
	case ".md":
		return "text/markdown"
	case ".py":
		return "text/x-python"
	case ".png":
		return "image/png"
	case ".txt":
		return "text/plain; charset=utf-8"
	case ".json":
		return "application/json"
	}
	return "application/octet-stream"
}

// hostileDirectory reads uri with resources/directory/read; a listing is
// compared with the folder's children in the fixture (hidden ones left out).
func (h *harness) hostileDirectory(t *testing.T, c hostile.Case, uri string) {
	w := c.For(hostile.Dir, hostile.URI)
	raw, ok := h.hostileRead(t, "resources/directory/read", uri, w)
	if !ok {
		return
	}
	if diff := cmp.Diff(children(w.File), member(t, raw, "resources")); diff != "" {
		t.Errorf("resources/directory/read %q (-want +got):\n%s", uri, diff)
	}
}

// children lists a fixture folder's direct children as
// resources/directory/read gives them: sorted, folders without a size.
func children(dir string) []any {
	byName := map[string]map[string]any{}
	for p, data := range hostile.VisibleFiles() {
		rest, ok := strings.CutPrefix(p, dir+"/")
		if !ok {
			continue
		}
		name, _, deeper := strings.Cut(rest, "/")
		e := map[string]any{"uri": "skill://" + dir + "/" + name, "name": name, "mimeType": mimeOf(name)}
		if !deeper {
			e["size"] = float64(len(data))
		} else {
			e["mimeType"] = "inode/directory"
		}
		byName[name] = e
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	slices.Sort(names)
	out := []any{}
	for _, n := range names {
		out = append(out, byName[n])
	}
	return out
}

// hostileSkillsGet asks skills/get for uri: the skill's entry, or invalid
// params saying why.
func (h *harness) hostileSkillsGet(t *testing.T, c hostile.Case, uri string) {
	w := c.For(hostile.URI)
	raw, rerr := h.rpc(t, "skills/get", map[string]any{"uri": uri})
	var want *rpcError
	switch w.Outcome {
	case hostile.Served:
	case hostile.SkillNotFound, hostile.NoSkillDoc:
		want = &rpcError{Code: mcp.INVALID_PARAMS, Message: hostile.ViaJSON(w.Msg) + "; call skills/list to discover the skills this server serves"}
	default:
		want = &rpcError{Code: mcp.INVALID_PARAMS, Message: hostile.ViaJSON(w.Msg)}
	}
	if diff := cmp.Diff(want, gotError(t, rerr)); diff != "" {
		t.Errorf("skills/get %q (-want +got):\n%s", uri, diff)
	}
	if want != nil || rerr != nil {
		return
	}
	var got struct {
		ResultType string     `json:"resultType"`
		Skill      skillEntry `json:"skill"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("skills/get %q: %v", uri, err)
	}
	entry := skillEntry{URI: "skill://calculator/SKILL.md", Frontmatter: map[string]any{"name": "calculator", "description": "Basic arithmetic operations."}, Meta: h.metaWithProvenance()}
	var paths []string
	for p := range hostile.VisibleFiles() {
		if strings.HasPrefix(p, "calculator/") {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		data := []byte(hostile.Content(p))
		entry.Resources = append(entry.Resources, struct {
			URI    string `json:"uri"`
			Digest string `json:"digest"`
			Size   int64  `json:"size"`
		}{"skill://" + p, sha(data), int64(len(data))})
	}
	if diff := cmp.Diff(entry, got.Skill); diff != "" || got.ResultType != "complete" {
		t.Errorf("skills/get %q: resultType %q (-want +got):\n%s", uri, got.ResultType, diff)
	}
}

// member is one member of a JSON object (results carry others, such as
// _meta, by protocol version).
func member(t *testing.T, raw json.RawMessage, name string) any {
	t.Helper()
	m, ok := asJSON(t, raw).(map[string]any)
	if !ok {
		t.Fatalf("%s: not an object", raw)
	}
	return m[name]
}

// asJSON is v as encoding/json decodes its JSON into an any.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	var b []byte
	switch v := v.(type) {
	case nil:
		return nil
	case json.RawMessage:
		b = v
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return out
}
