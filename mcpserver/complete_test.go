package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
)

// completionFS is the shared fixture (calculator has hidden files: .env,
// .git/config, docs/.draft.md), 150 skills named bulk-000 to bulk-149,
// calcium beside calculator, a skill whose document is spelt skill.md, and
// one with more files than a page of completions holds.
func completionFS() fstest.MapFS {
	m := fstest.MapFS{}
	for name, data := range fixture.Skills() {
		m[name] = &fstest.MapFile{Data: data}
	}
	doc := func(name string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: For completion.\n---\nbody\n")}
	}
	for i := range 150 {
		m[fmt.Sprintf("bulk-%03d/SKILL.md", i)] = doc(fmt.Sprintf("bulk-%03d", i))
	}
	m["calcium/SKILL.md"] = doc("calcium")
	m["lower/skill.md"] = doc("lower")
	m["lower/notes.txt"] = &fstest.MapFile{Data: []byte("notes")}
	m["many/SKILL.md"] = doc("many")
	for i := range 120 {
		m[fmt.Sprintf("many/f/%03d.txt", i)] = &fstest.MapFile{Data: []byte("x")}
	}
	return m
}

// completion is the completion member of a completion/complete result.
type completion struct {
	Values  []string `json:"values"`
	Total   int      `json:"total"`
	HasMore bool     `json:"hasMore"`
}

// names formats the numbers from to to-1 with format.
func names(format string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf(format, i))
	}
	return out
}

// completeParams is the params of a completion/complete request.
func completeParams(ref, arg, value, context string) string {
	p := `{"ref":` + ref + `,"argument":{"name":"` + arg + `","value":"` + value + `"}`
	if context != "" {
		p += `,"context":{"arguments":` + context + `}`
	}
	return p + "}"
}

const (
	templateRef = `{"type":"ref/resource","uri":"skill://{name}/{+path}"}`
	promptRef   = `{"type":"ref/prompt","name":"calculator"}`
)

// completeCase is a completion/complete request and what answers it.
type completeCase struct {
	name   string
	params string
	want   *completion // nil: an error
	code   int
}

// completeCases are the requests TestComplete sends to completionFS.
func completeCases() []completeCase {
	allSkills := append(append([]string(nil), names("bulk-%03d", 0, 150)...), "calcium", "calculator", "lower", "many", "weather")
	return []completeCase{
		{"every name, a page of 100", completeParams(templateRef, "name", "", ""),
			&completion{Values: allSkills[:100], Total: len(allSkills), HasMore: true}, 0},
		{"150 names by prefix", completeParams(templateRef, "name", "bulk-", ""),
			&completion{Values: names("bulk-%03d", 0, 100), Total: 150, HasMore: true}, 0},
		{"exactly 100 names", completeParams(templateRef, "name", "bulk-0", ""),
			&completion{Values: names("bulk-%03d", 0, 100), Total: 100}, 0},
		{"50 names", completeParams(templateRef, "name", "bulk-1", ""),
			&completion{Values: names("bulk-%03d", 100, 150), Total: 50}, 0},
		{"names sharing a prefix", completeParams(templateRef, "name", "calc", ""),
			&completion{Values: []string{"calcium", "calculator"}, Total: 2}, 0},
		{"one name", completeParams(templateRef, "name", "calculator", ""),
			&completion{Values: []string{"calculator"}, Total: 1}, 0},
		{"no name", completeParams(templateRef, "name", "zz", ""), &completion{Values: []string{}}, 0},
		{"name prefixes are case-sensitive", completeParams(templateRef, "name", "Calc", ""), &completion{Values: []string{}}, 0},
		{"name ignores the context", completeParams(templateRef, "name", "weat", `{"name":"calculator"}`),
			&completion{Values: []string{"weather"}, Total: 1}, 0},

		{"every path, hidden files left out", completeParams(templateRef, "path", "", `{"name":"calculator"}`),
			&completion{Values: fixture.CalculatorFiles(), Total: len(fixture.CalculatorFiles())}, 0},
		{"paths in a folder", completeParams(templateRef, "path", "docs/", `{"name":"calculator"}`),
			&completion{Values: []string{"docs/deep/notes.md"}, Total: 1}, 0},
		{"a hidden file's prefix", completeParams(templateRef, "path", ".", `{"name":"calculator"}`), &completion{Values: []string{}}, 0},
		{"a hidden folder's prefix", completeParams(templateRef, "path", ".git/", `{"name":"calculator"}`), &completion{Values: []string{}}, 0},
		{"a hidden file in a folder", completeParams(templateRef, "path", "docs/.", `{"name":"calculator"}`), &completion{Values: []string{}}, 0},
		{"the document as SKILL.md", completeParams(templateRef, "path", "S", `{"name":"calculator"}`),
			&completion{Values: []string{"SKILL.md"}, Total: 1}, 0},
		{"skill.md offered as SKILL.md", completeParams(templateRef, "path", "", `{"name":"lower"}`),
			&completion{Values: []string{"SKILL.md", "notes.txt"}, Total: 2}, 0},
		{"another skill's paths", completeParams(templateRef, "path", "", `{"name":"weather"}`),
			&completion{Values: fixture.WeatherFiles(), Total: len(fixture.WeatherFiles())}, 0},
		{"121 paths, a page of 100", completeParams(templateRef, "path", "", `{"name":"many"}`),
			&completion{Values: append([]string{"SKILL.md"}, names("f/%03d.txt", 0, 99)...), Total: 121, HasMore: true}, 0},
		{"paths of an unknown skill", completeParams(templateRef, "path", "", `{"name":"nope"}`), &completion{Values: []string{}}, 0},
		{"paths of no skill", completeParams(templateRef, "path", "", ""), &completion{Values: []string{}}, 0},
		{"paths of an empty name", completeParams(templateRef, "path", "", `{"name":""}`), &completion{Values: []string{}}, 0},
		{"paths of an escaping name", completeParams(templateRef, "path", "", `{"name":"../calculator"}`), &completion{Values: []string{}}, 0},
		{"paths of a hidden name", completeParams(templateRef, "path", "", `{"name":".git"}`), &completion{Values: []string{}}, 0},

		{"a known prompt", completeParams(promptRef, "anything", "", ""), &completion{Values: []string{}}, 0},
		{"an unknown prompt", completeParams(`{"type":"ref/prompt","name":"nope"}`, "x", "", ""), nil, codeInvalidParams},
		{"an unknown argument", completeParams(templateRef, "skill", "", ""), nil, codeInvalidParams},
		{"an unknown template", completeParams(`{"type":"ref/resource","uri":"skill://{name}"}`, "name", "", ""), nil, codeInvalidParams},
		{"a resource URI, not a template", completeParams(`{"type":"ref/resource","uri":"skill://calculator/SKILL.md"}`, "name", "", ""), nil, codeInvalidParams},
		{"a wrong ref type", completeParams(`{"type":"ref/tool","name":"get_skill"}`, "name", "", ""), nil, codeInvalidParams},
		{"no ref", `{"argument":{"name":"name","value":""}}`, nil, codeInvalidParams},
		{"ref a string", `{"ref":"ref/prompt","argument":{"name":"name","value":""}}`, nil, codeInvalidParams},
		{"ref type a number", `{"ref":{"type":7},"argument":{"name":"name","value":""}}`, nil, codeInvalidParams},
		{"argument value a number", `{"ref":` + templateRef + `,"argument":{"name":"name","value":5}}`, nil, codeInvalidParams},
		{"argument an array", `{"ref":` + templateRef + `,"argument":[]}`, nil, codeInvalidParams},
		{"context arguments not strings", completeParams(templateRef, "path", "", `{"name":1}`), nil, codeInvalidParams},
		{"no params", "", nil, codeInvalidParams},
		{"empty params", "{}", nil, codeInvalidParams},
	}
}

// completeErrors are the messages of completeCases' errors, by case; a
// case whose message differs on 2026-07-28 has it under "NAME/modern".
var completeErrors = map[string]string{
	"an unknown prompt":              "Prompt 'nope' not found; call prompts/list to see the prompts this server offers",
	"an unknown argument":            `Argument "skill" not found: skill://{name}/{+path} takes 'name' and 'path'`,
	"an unknown template":            `Resource template "skill://{name}" not found: this server completes skill://{name}/{+path} only`,
	"a resource URI, not a template": `Resource template "skill://calculator/SKILL.md" not found: this server completes skill://{name}/{+path} only`,
	"a wrong ref type":               `Invalid params for completion/complete: ref.type must be "ref/resource" or "ref/prompt", not "ref/tool"`,
	"no ref":                         `Invalid params for completion/complete: ref.type must be "ref/resource" or "ref/prompt", not ""`,
	"ref a string": "Invalid params for completion/complete: json: cannot unmarshal string into Go struct field .ref of type " +
		`struct { Type string "json:\"type\""; URI string "json:\"uri\""; Name string "json:\"name\"" }`,
	"ref type a number":       "Invalid params for completion/complete: json: cannot unmarshal number into Go struct field .ref.type of type string",
	"argument value a number": "Invalid params for completion/complete: json: cannot unmarshal number into Go struct field .argument.value of type string",
	"argument an array": "Invalid params for completion/complete: json: cannot unmarshal array into Go struct field .argument of type " +
		`struct { Name string "json:\"name\""; Value string "json:\"value\"" }`,
	"context arguments not strings": "Invalid params for completion/complete: json: cannot unmarshal number into Go struct field .context.arguments of type string",
	"no params":                     "Invalid params for completion/complete: params must hold ref and argument",
	"no params/modern":              `Invalid params for completion/complete: ref.type must be "ref/resource" or "ref/prompt", not ""`, // params hold _meta alone
	"empty params":                  `Invalid params for completion/complete: ref.type must be "ref/resource" or "ref/prompt", not ""`,
}

// completeError is the message case name's error has.
func completeError(name string, modern bool) string {
	if msg, ok := completeErrors[name+"/modern"]; ok && modern {
		return msg
	}
	return completeErrors[name]
}

// TestComplete: completion/complete of the skill file template's name and
// path arguments, and of prompts, through the dispatcher, on the handshake
// and on 2026-07-28; errors for what cannot be completed.
func TestComplete(t *testing.T) {
	srv := serverOver(t, completionFS())
	for _, tt := range completeCases() {
		for _, modern := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/modern=%v", tt.name, modern), func(t *testing.T) {
				got, e := complete(t, srv, tt.params, modern)
				switch {
				case tt.want == nil && e == nil:
					t.Fatalf("completion %+v; want error %d", got, tt.code)
				case tt.want == nil && (e.Code != tt.code || e.Message != completeError(tt.name, modern)):
					t.Fatalf("error %d %q; want %d %q", e.Code, e.Message, tt.code, completeError(tt.name, modern))
				case tt.want == nil:
					return
				case e != nil:
					t.Fatalf("error %d %q", e.Code, e.Message)
				}
				if diff := cmp.Diff(*tt.want, got); diff != "" {
					t.Errorf("completion (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// complete sends completion/complete through the dispatcher, as a
// handshake-era request or a 2026-07-28 one, and returns its completion
// or its error. A 2026-07-28 result must be shaped as that era's.
func complete(t *testing.T, srv *Server, params string, modern bool) (completion, *rpcError) {
	t.Helper()
	switch {
	case modern && params == "":
		params = "{" + modernMeta + "}"
	case modern:
		params = withMeta(params)
	}
	msg := `{"jsonrpc":"2.0","id":"c","method":"completion/complete"`
	if params != "" {
		msg += `,"params":` + params
	}
	a := srv.handle(context.Background(), source{}, []byte(msg+"}"))
	var resp struct {
		ID     string
		Result *struct {
			Completion *completion     `json:"completion"`
			Meta       map[string]any  `json:"_meta"`
			Type       string          `json:"resultType"`
			TTL        json.RawMessage `json:"ttlMs"`
		}
		Error *rpcError
	}
	if err := json.Unmarshal(a.body, &resp); err != nil || resp.ID != "c" || (resp.Result == nil) == (resp.Error == nil) {
		t.Fatalf("answer %s", clip(a.body))
	}
	if resp.Error != nil {
		return completion{}, resp.Error
	}
	r := resp.Result
	if r.Completion == nil || r.Completion.Values == nil {
		t.Fatalf("no completion values in %s", clip(a.body))
	}
	if modern != (r.Type == "complete") || modern != (r.Meta["io.modelcontextprotocol/serverInfo"] != nil) || r.TTL != nil {
		t.Errorf("result shape of a modern=%v request: %s", modern, clip(a.body))
	}
	return *r.Completion, nil
}

// TestCompleteHTTP: completion/complete over Streamable HTTP, in a
// handshake session and on 2026-07-28, where an error maps to 400.
func TestCompleteHTTP(t *testing.T) {
	srv := serverOver(t, completionFS())
	ts := httptest.NewServer(srv.HTTPHandler(HTTPOptions{}))
	defer ts.Close()
	url := ts.URL + "/mcp"
	legacy := legacyHeader(startSession(t, url))
	modern := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "completion/complete"}
	good := completeParams(templateRef, "path", "ex", `{"name":"calculator"}`)
	bad := completeParams(templateRef, "nope", "", "")
	badAnswer := `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Argument \"nope\" not found: skill://{name}/{+path} takes 'name' and 'path'"}}`
	serverInfo := `{"name":"skillstore","version":"dev","title":"skillstore","description":"Agent Skills over MCP: SKILL.md documents and their supporting files, read-only and sandboxed."}`
	for _, tt := range []struct {
		name, params string
		header       map[string]string
		status       int
		want         string
	}{
		{"legacy", good, legacy, http.StatusOK, `{"jsonrpc":"2.0","id":1,"result":{"completion":{"hasMore":false,"total":1,"values":["examples/basic.py"]}}}`},
		{"legacy error", bad, legacy, http.StatusOK, badAnswer},
		{"modern", withMeta(good), modern, http.StatusOK, `{"jsonrpc":"2.0","id":1,"result":{"completion":{"hasMore":false,"total":1,"values":["examples/basic.py"]},` +
			`"_meta":{"io.modelcontextprotocol/serverInfo":` + serverInfo + `},"resultType":"complete"}}`},
		{"modern error", withMeta(bad), modern, http.StatusBadRequest, badAnswer},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := testutil.SendMCP(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":`+tt.params+`}`, tt.header)
			if resp.StatusCode != tt.status || body != tt.want+"\n" {
				t.Errorf("%d %s; want %d with %s", resp.StatusCode, clip([]byte(body)), tt.status, tt.want)
			}
		})
	}
}

// TestCompletionsCapability: initialize and server/discover declare the
// completions capability.
func TestCompletionsCapability(t *testing.T) {
	srv := testServer(t)
	for _, tt := range []struct{ name, msg string }{
		{"initialize", initMsg},
		{"server/discover", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := srv.handle(context.Background(), source{}, []byte(tt.msg))
			var resp struct {
				Result struct {
					Capabilities map[string]json.RawMessage
				}
			}
			if err := json.Unmarshal(a.body, &resp); err != nil {
				t.Fatal(err)
			}
			if got := string(resp.Result.Capabilities["completions"]); got != "{}" {
				t.Errorf("capabilities.completions = %q in %s", got, clip(a.body))
			}
		})
	}
}
