package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/tools"
)

// modernMeta is the _meta a 2026-07-28 request carries.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`

// withMeta adds the 2026-07-28 _meta to a params object.
func withMeta(params string) string {
	if params == "{}" {
		return "{" + modernMeta + "}"
	}
	return "{" + modernMeta + "," + params[1:]
}

// layerErrors are TestLayerErrors' messages, by case.
var layerErrors = map[string]string{
	"not JSON":                         "Parse error: the message is not valid JSON",
	"wrong jsonrpc":                    `Invalid Request: "jsonrpc" must be "2.0"`,
	"method and result":                `Invalid Request: a message cannot carry both "method" and "result" or "error"`,
	"method and error":                 `Invalid Request: a message cannot carry both "method" and "result" or "error"`,
	"object id":                        "Invalid Request: an id must be a string or an integer",
	"array id":                         "Invalid Request: an id must be a string or an integer",
	"boolean id":                       "Invalid Request: an id must be a string or an integer",
	"null id":                          "Invalid Request: an id must be a string or an integer",
	"fractional id":                    "Invalid Request: an id must be a string or an integer",
	"number method":                    `Invalid Request: "method" must be a non-empty string`,
	"nothing":                          `Invalid Request: a message needs a "method", or an "id" with a "result" or an "error"`,
	"array params":                     "Invalid params: skills/list params must be an object, not an array",
	"string params":                    "Invalid params: tools/list params must be an object, not a string",
	"array params to ping":             "Invalid params: ping params must be an object, not an array",
	"batch":                            "Invalid Request: a batch cannot hold a batch",
	"unknown method":                   "Method tools/frobnicate not found",
	"initialize on 2026-07-28":         `"initialize" was removed in protocol version 2026-07-28`,
	"server/discover on the handshake": `"server/discover" requires protocol version 2026-07-28 or later`,
	"unknown tool":                     "Tool 'get_skil' not found: call tools/list to see the tools this server offers",
	"cursor of the wrong type":         "Invalid params for skills/list: 'cursor' must be a string, not a number",
	"bad cursor":                       `Invalid cursor "%%%": pass back the nextCursor of a previous result unchanged`,
	"uri of the wrong type":            "Invalid params for skills/get: 'uri' must be a string, not an array",
	"meta of the wrong type":           "Invalid params: _meta must be an object, not a string",
	"modern without capabilities":      "missing or invalid _meta field io.modelcontextprotocol/clientCapabilities",
	"unknown modern version":           `unsupported protocol version: "2099-01-01" (supported: [2026-07-28 2025-11-25 2025-06-18 2025-03-26 2024-11-05])`,
	"unknown skill in skills/get":      "Skill 'nope' not found in skills folder; call skills/list to discover the skills this server serves",
	"file uri in directory read":       "'skill://calc/SKILL.md' is a file, not a directory: read it with resources/read",
	"missing folder in directory read": "File 'nope' not found in skill 'calc'. Paths are relative to the skill folder; SKILL.md names the files it references.",
	"unknown scheme":                   "Resource not found: this server serves skill:// URIs only, such as skill://NAME/SKILL.md. Call resources/list or skills/list to see what it serves",
}

// TestLayerErrors checks what the dispatcher refuses before any method
// runs, and what no method can answer.
func TestLayerErrors(t *testing.T) {
	srv := testServer(t)
	for _, tt := range []struct {
		name, msg string
		code      int
		id        any // the id the answer carries
	}{
		{"not JSON", `{"jsonrpc":"2.0","id":1,"method":`, -32700, nil},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"skills/list"}`, -32600, float64(1)},
		{"method and result", `{"jsonrpc":"2.0","id":1,"method":"tools/call","result":{}}`, -32600, float64(1)},
		{"method and error", `{"jsonrpc":"2.0","id":1,"method":"ping","error":{"code":1,"message":"x"}}`, -32600, float64(1)},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, nil},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, nil},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, nil},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, nil},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, nil},
		{"number method", `{"jsonrpc":"2.0","id":"a","method":7}`, -32600, "a"},
		{"nothing", `{"jsonrpc":"2.0","id":"a"}`, -32600, "a"},
		{"array params", `{"jsonrpc":"2.0","id":2,"method":"skills/list","params":[1]}`, -32602, float64(2)},
		{"string params", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":"x"}`, -32602, float64(2)},
		{"array params to ping", `{"jsonrpc":"2.0","id":2,"method":"ping","params":[]}`, -32602, float64(2)},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600, nil},
		{"unknown method", `{"jsonrpc":"2.0","id":8,"method":"tools/frobnicate"}`, -32601, float64(8)},
		{"initialize on 2026-07-28", `{"jsonrpc":"2.0","id":8,"method":"initialize","params":{` + modernMeta + `}}`, -32601, float64(8)},
		{"server/discover on the handshake", `{"jsonrpc":"2.0","id":8,"method":"server/discover"}`, -32601, float64(8)},
		{"unknown tool", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"get_skil"}}`, -32602, float64(8)},
		{"cursor of the wrong type", `{"jsonrpc":"2.0","id":3,"method":"skills/list","params":{"cursor":5}}`, -32602, float64(3)},
		{"bad cursor", `{"jsonrpc":"2.0","id":3,"method":"skills/list","params":{"cursor":"%%%"}}`, -32602, float64(3)},
		{"uri of the wrong type", `{"jsonrpc":"2.0","id":3,"method":"skills/get","params":{"uri":[]}}`, -32602, float64(3)},
		{"meta of the wrong type", `{"jsonrpc":"2.0","id":3,"method":"skills/get","params":{"_meta":"x"}}`, -32602, float64(3)},
		{"modern without capabilities", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_skills","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, -32602, float64(4)},
		{"unknown modern version", `{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"skill://calc/SKILL.md","_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`, mcp.UNSUPPORTED_PROTOCOL_VERSION, float64(4)},
		{"unknown skill in skills/get", `{"jsonrpc":"2.0","id":5,"method":"skills/get","params":{"uri":"skill://nope/SKILL.md"}}`, -32602, float64(5)},
		{"file uri in directory read", `{"jsonrpc":"2.0","id":6,"method":"resources/directory/read","params":{"uri":"skill://calc/SKILL.md"}}`, -32602, float64(6)},
		{"missing folder in directory read", `{"jsonrpc":"2.0","id":6,"method":"resources/directory/read","params":{"uri":"skill://calc/nope"}}`, -32002, float64(6)},
		{"unknown scheme", `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}`, -32002, float64(7)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := srv.handle(context.Background(), source{}, []byte(tt.msg))
			if a.body == nil {
				t.Fatalf("not answered: %+v", a)
			}
			got := decode(t, a.body).(map[string]any)
			if code := errorField(got, "code"); code != float64(tt.code) || a.code != tt.code {
				t.Errorf("code %v (answer %d), want %d: %s", code, a.code, tt.code, a.body)
			}
			if got["id"] != tt.id {
				t.Errorf("id %v, want %v", got["id"], tt.id)
			}
			if msg, _ := errorField(got, "message").(string); msg != layerErrors[tt.name] {
				t.Errorf("message %q, want %q", msg, layerErrors[tt.name])
			}
		})
	}
	// Notifications and responses get no answer, whatever is wrong with them.
	for _, msg := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":9,"result":{}}`,
	} {
		if a := srv.handle(context.Background(), source{}, []byte(msg)); a.body != nil {
			t.Errorf("%s: %s", msg, a.body)
		}
	}
}

// TestExtensionShape checks that the extension's results carry, on every
// version, the decorations of a cacheable result on 2026-07-28
// (resultType, ttlMs, cacheScope), and on 2026-07-28 also its _meta, as
// resources/templates/list does.
func TestExtensionShape(t *testing.T) {
	srv := testServer(t)
	ctx := context.Background()
	ref := decode(t, srv.handle(ctx, source{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"resources/templates/list","params":{`+modernMeta+`}}`)).body).(map[string]any)["result"].(map[string]any)
	if ref["resultType"] != "complete" || ref["cacheScope"] != "private" || ref["ttlMs"] != float64(0) || ref["_meta"].(map[string]any)[mcp.MetaKeyServerInfo] == nil {
		t.Fatalf("resources/templates/list on 2026-07-28: %v", ref)
	}
	for _, modern := range []bool{false, true} {
		for _, m := range []struct{ method, params string }{
			{"skills/list", `{}`},
			{"skills/get", `{"uri":"skill://calc/SKILL.md"}`},
			{"resources/directory/read", `{"uri":"skill://calc"}`},
		} {
			params := m.params
			if modern {
				params = withMeta(params)
			}
			a := srv.handle(ctx, source{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+m.method+`","params":`+params+`}`))
			res, _ := decode(t, a.body).(map[string]any)["result"].(map[string]any)
			if res == nil {
				t.Fatalf("%s: %s", m.method, a.body)
			}
			keys := []string{"resultType", "ttlMs", "cacheScope"}
			if modern {
				keys = append(keys, "_meta")
			} else if res["_meta"] != nil {
				t.Errorf("%s: legacy result carries _meta", m.method)
			}
			for _, k := range keys {
				if diff := cmp.Diff(ref[k], res[k]); diff != "" {
					t.Errorf("%s modern=%v %s (-mcp-go +layer):\n%s", m.method, modern, k, diff)
				}
			}
		}
	}
}

// TestDirectoryRead checks resources/directory/read: direct children,
// folders as inode/directory, files with their size, pages.
func TestDirectoryRead(t *testing.T) {
	srv := testServer(t)
	ctx := context.Background()
	read := func(uri, cursor string) readDirectoryResult {
		t.Helper()
		res, err := srv.readDirectory(ctx, srv.tools.View(), uri, cursor, false)
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		return res.(readDirectoryResult)
	}
	got := read("skill://calc", "")
	var names []string
	for _, e := range got.Resources {
		names = append(names, e.Name+"="+e.MIMEType)
	}
	txt := "text/plain; charset=utf-8"
	want := []string{"SKILL.md=text/markdown", "big.txt=" + txt, "bin.dat=", "docs=inode/directory", "empty.txt=" + txt, "huge.txt=" + txt, "latin1.txt=" + txt}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("skill://calc (-want +got):\n%s", diff)
	}
	if got.NextCursor != "" {
		t.Errorf("one page expected, got cursor %q", got.NextCursor)
	}
	for _, e := range got.Resources {
		if e.Name == "docs" {
			if e.URI != "skill://calc/docs" || e.Size != nil {
				t.Errorf("folder entry %+v", e)
			}
			sub := read(e.URI, "")
			if len(sub.Resources) != 1 || sub.Resources[0].URI != "skill://calc/docs/nested.md" || *sub.Resources[0].Size != 6 {
				t.Errorf("skill://calc/docs: %+v", sub.Resources)
			}
		}
	}
	if again := read("skill://calc/", ""); len(again.Resources) != len(got.Resources) {
		t.Errorf("a trailing slash on a folder lists it too: %+v", again)
	}
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %q: %v", clip(b), err)
	}
	return v
}

func errorField(v any, field string) any {
	m, _ := v.(map[string]any)
	e, _ := m["error"].(map[string]any)
	return e[field]
}

func setError(v any, field string, x any) {
	m, _ := v.(map[string]any)
	if e, ok := m["error"].(map[string]any); ok {
		if x == nil {
			delete(e, field)
		} else {
			e[field] = x
		}
	}
}

func clipString(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// BenchmarkHandle measures the layer's own cost for a cached 4 KB get_skill
// at each protocol era (no transport).
func BenchmarkHandle(b *testing.B) {
	srv := testServer(b)
	params := `{"name":"get_skill","arguments":{"skill_name":"calc"}}`
	for _, era := range []struct{ name, params string }{{"2025-11-25", params}, {"2026-07-28", withMeta(params)}} {
		msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + era.params + `}`)
		b.Run(era.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				a := srv.handle(context.Background(), source{}, msg)
				putBuffer(a.body)
			}
		})
	}
}

// FuzzEnvelope checks the layer's member splitting against encoding/json:
// for any valid JSON object, readEnvelope and readParams find the same
// members encoding/json decodes into the same fields.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"a"},"_meta":{"x":[1,{"y":"}"}]}}}`,
		`{ "ID" : "a\"b" , "Method":"x", "params" : { "URI" : "skill://a/b" , "cursor":null } }`,
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping","params":{"na\u006de":"n","task":{}}}`,
		`{"result":{"a":"\\"},"error":[1,2,"]"],"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{}`, `{"params":{}}`, `{"a":{"b":{"c":[[[]]]}},"method":"\u00e9"}`,
	} {
		f.Add(s)
	}
	type ref struct {
		JSONRPC, ID, Method, Params, Result, Error json.RawMessage
	}
	type refParams struct {
		Name, Arguments, URI, Cursor, Level, Notifications json.RawMessage
		Meta                                               json.RawMessage `json:"_meta"`
	}
	compact := func(b []byte) string {
		var out strings.Builder
		if len(b) > 0 {
			var c bytes.Buffer
			json.Compact(&c, b)
			out.Write(c.Bytes())
		}
		return out.String()
	}
	f.Fuzz(func(t *testing.T, s string) {
		msg := []byte(s)
		if !json.Valid(msg) || len(bytes.TrimSpace(msg)) == 0 || bytes.TrimSpace(msg)[0] != '{' {
			return
		}
		var want ref
		if json.Unmarshal(msg, &want) != nil {
			return
		}
		got := readEnvelope(bytes.TrimSpace(msg))
		for _, pair := range [][2][]byte{{got.JSONRPC, want.JSONRPC}, {got.ID, want.ID}, {got.Method, want.Method}, {got.Params, want.Params}, {got.Result, want.Result}, {got.Error, want.Error}} {
			if compact(pair[0]) != compact(pair[1]) {
				t.Fatalf("%s: member %q, encoding/json %q", s, pair[0], pair[1])
			}
		}
		if p := bytes.TrimSpace(want.Params); len(p) > 0 && p[0] == '{' {
			var wp refParams
			if json.Unmarshal(p, &wp) != nil {
				return
			}
			gp := readParams(p)
			for _, pair := range [][2][]byte{{gp.Name, wp.Name}, {gp.Arguments, wp.Arguments}, {gp.URI, wp.URI}, {gp.Cursor, wp.Cursor}, {gp.Meta, wp.Meta},
				{gp.Level, wp.Level}, {gp.Notifications, wp.Notifications}} {
				if compact(pair[0]) != compact(pair[1]) {
					t.Fatalf("%s: params member %q, encoding/json %q", s, pair[0], pair[1])
				}
			}
		}
	})
}

// BenchmarkHandle1MiB measures the layer's cost for a cached 1 MiB
// read_file_in_skill (escape memo warm) and resources/read of it.
func BenchmarkHandle1MiB(b *testing.B) {
	srv := testServer(b)
	for _, c := range []struct{ name, msg string }{
		{"tools-call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file_in_skill","arguments":{"skill_name":"calc","file_path":"huge.txt"}}}`},
		{"resources-read", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://calc/huge.txt"}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(1 << 20)
			for b.Loop() {
				a := srv.handle(context.Background(), source{}, []byte(c.msg))
				putBuffer(a.body)
			}
		})
	}
}

// FuzzHandle: any message gets a well-formed JSON-RPC answer (or none, or
// is forwarded), and never panics the layer.
func FuzzHandle(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"calc"}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"resources/read","params":{"uri":"skill://calc/../x"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"skills/list","params":{"cursor":"!"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/directory/read","params":{"uri":"skill://calc","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`[1,2]`, `{"id":{}}`, `"x"`, ``,
	} {
		f.Add(s)
	}
	srv := testServer(f)
	f.Fuzz(func(t *testing.T, msg string) {
		a := srv.handle(context.Background(), source{sess: srv.newSession(nil)}, []byte(msg))
		if a.body == nil {
			return
		}
		var resp struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   *rpcError       `json:"error"`
		}
		if err := json.Unmarshal(a.body, &resp); err != nil || resp.JSONRPC != "2.0" || (resp.Result == nil) == (resp.Error == nil) {
			t.Fatalf("%q: answer %s", msg, a.body)
		}
	})
}

// TestEncoderMatchesEncodingJSON: the encoder derived from the tools'
// result types writes what encoding/json writes for them.
func TestEncoderMatchesEncodingJSON(t *testing.T) {
	odd := "quote \" backslash \\ newline \n tab \t nul \x00 bad \xff line-sep \u2028 <html> & é"
	type extra struct {
		Name  string   `json:"name,omitempty"`
		Count int      `json:"count,omitempty"`
		On    bool     `json:"on,omitempty"`
		List  []string `json:"list,omitempty"`
		Nil   []string `json:"nil"`
		Inner struct {
			X string `json:"x"`
		} `json:"inner,omitempty"`
		Any  any `json:"any"`
		skip string
	}
	for _, v := range []any{
		tools.ListSkillsResult{Skills: []string{"a", odd}, Details: []tools.SkillSummary{{Name: "a", Description: odd, URI: "skill://a/SKILL.md", Source: "project"}}},
		tools.ListSkillsResult{Skills: []string{}, Details: []tools.SkillSummary{}},
		tools.ListSkillsResult{},
		tools.GetSkillResult{SkillName: "a", Documentation: odd, URI: "skill://a/SKILL.md", MimeType: "text/markdown"},
		tools.ReadFileResult{Success: true, SkillName: "a", FilePath: "x/y.md", Content: odd, SizeBytes: 1 << 40, Encoding: "utf-8"},
		tools.ReadFileError{SkillName: "a", FilePath: odd, Error: odd},
		tools.SkillResult{SkillName: "a", Type: "project", Path: "~/x/a", Description: odd, Content: odd, ShortResult: odd},
		tools.ErrorResult{Error: odd},
		extra{Any: map[string]int{"k": 1}},
		extra{Name: odd, Count: -3, On: true, List: []string{odd}, Any: []any{1, "x"}},
	} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		// encoding/json escapes <, > and & for HTML; the protocol does not.
		want = bytes.ReplaceAll(want, []byte(`\u003c`), []byte("<"))
		want = bytes.ReplaceAll(want, []byte(`\u003e`), []byte(">"))
		want = bytes.ReplaceAll(want, []byte(`\u0026`), []byte("&"))
		if got := appendStructured(nil, v, "", nil); !bytes.Equal(got, want) {
			t.Errorf("%T:\n got %s\nwant %s", v, got, want)
		}
	}
}
