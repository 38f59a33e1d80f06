package tools_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// seedFS is the shared fixture (internal/fixture) with the three skills
// the seeds' function-calling examples name beside calculator and weather:
// seed 001's examples 6 and 7 read data_processor/config.json and
// ml_model/data/samples/input.txt, and seed 004's listing has web_search.
// Only these examples need them, so they are added here, word for word
// from the seeds, rather than to every package's tree.
func seedFS() fstest.MapFS {
	m := fixture.MapFS()
	for name, data := range map[string]string{
		"web_search/SKILL.md":             "---\nname: web_search\ndescription: Search the web.\n---\n# Web search\n",
		"data_processor/SKILL.md":         "---\nname: data-processor\ndescription: Process data.\n---\n",
		"data_processor/config.json":      `{"api_endpoint": "https://example.com", "timeout": 30}`,
		"ml_model/SKILL.md":               "---\nname: ml-model\ndescription: A model.\n---\n",
		"ml_model/data/samples/input.txt": "sample1\nsample2\nsample3",
	} {
		m[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return m
}

func newTools(t testing.TB, fsys fs.FS) *tools.Tools {
	t.Helper()
	s, err := store.New([]store.Source{{Label: "project", Location: "./skills", FS: fsys}}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tools.New(s, tools.Options{})
}

// TestSeedExamples runs every example of the seed documents through Call,
// the function-calling surface, and compares the tool-result content.
func TestSeedExamples(t *testing.T) {
	tl := newTools(t, seedFS())
	ctx := context.Background()
	tests := []struct {
		seed, tool, args string
		want             string // exact content; for JSON results compared after decoding
	}{
		// Seed 000: get_skill.
		{"000 ex1", "get_skill", `{"skill_name": "calculator"}`, `{"skill_name":"calculator","documentation":` + jsonString(t, fixture.CalculatorDoc) + `,"uri":"skill://calculator/SKILL.md","mimeType":"text/markdown"}`},
		{"000 ex2", "get_skill", `{"skill_name": "nodoc"}`, `{"error":"SKILL.MD not found for skill 'nodoc'","hint":"The folder has no SKILL.md; add one with YAML frontmatter (name, description)."}`},
		{"000 ex4", "get_skill", `{"skill_name": "nonexistent"}`, `{"error":"Skill 'nonexistent' not found in skills folder","hint":"Call list_skills to see the available skill names."}`},
		// Seed 001: read_file_in_skill.
		{"001 ex1", "read_file_in_skill", `{"skill_name": "calculator", "file_path": "examples/basic.py"}`, fixture.BasicPy},
		{"001 ex2", "read_file_in_skill", `{"skill_name": "weather", "file_path": "docs/api_reference.md"}`, fixture.APIReference},
		{"001 ex3", "read_file_in_skill", `{"skill_name": "calculator", "file_path": "examples/missing.py"}`, "ERROR: File 'examples/missing.py' not found in skill 'calculator'"},
		{"001 ex5", "read_file_in_skill", `{"skill_name": "nonexistent", "file_path": "README.md"}`, "ERROR: Skill 'nonexistent' not found in skills folder"},
		{"001 ex6", "read_file_in_skill", `{"skill_name": "data_processor", "file_path": "config.json"}`, `{"api_endpoint": "https://example.com", "timeout": 30}`},
		{"001 ex7", "read_file_in_skill", `{"skill_name": "ml_model", "file_path": "data/samples/input.txt"}`, "sample1\nsample2\nsample3"},
		// Seed 004: list_skills.
		{"004 ex1", "list_skills", `{}`, `{"skills":["calculator","data_processor","ml_model","weather","web_search"],"details":[` +
			`{"name":"calculator","description":"Basic arithmetic operations.","uri":"skill://calculator/SKILL.md","source":"project"},` +
			`{"name":"data_processor","description":"Process data.","uri":"skill://data_processor/SKILL.md","source":"project"},` +
			`{"name":"ml_model","description":"A model.","uri":"skill://ml_model/SKILL.md","source":"project"},` +
			`{"name":"weather","description":"Weather forecasts by location.","uri":"skill://weather/SKILL.md","source":"project"},` +
			`{"name":"web_search","description":"Search the web.","uri":"skill://web_search/SKILL.md","source":"project"}]}`},
		// Seed 002: get_skill by URI.
		{"002 uri", "get_skill", `{"uri": "  skill://weather/SKILL.md\n"}`, `{"skill_name":"weather","documentation":` + jsonString(t, fixture.WeatherDoc) + `,"uri":"skill://weather/SKILL.md","mimeType":"text/markdown"}`},
		{"002 empty", "get_skill", `{"uri": "  "}`, `{"error":"Missing or empty 'uri': provide a non-empty skill:// URI such as skill://NAME/SKILL.md","hint":"Call list_skills (or resources/list) to discover supported skill URIs."}`},
		{"002 unknown", "get_skill", `{"uri": "skill://engage-red-hat-support/SKILL.md"}`, `{"error":"Unsupported skill URI 'skill://engage-red-hat-support/SKILL.md': no skill named 'engage-red-hat-support' is registered","hint":"Call list_skills (or resources/list) to discover supported skill URIs."}`},
		{"002 scheme", "get_skill", `{"uri": "https://example.com/SKILL.md"}`, `{"error":"Unsupported URI 'https://example.com/SKILL.md': only skill:// URIs are supported, such as skill://NAME/SKILL.md","hint":"Call list_skills (or resources/list) to discover supported skill URIs."}`},
		{"002 other file", "get_skill", `{"uri": "skill://weather/docs/api_reference.md"}`, `{"error":"Unsupported URI 'skill://weather/docs/api_reference.md': get_skill reads only skill://NAME/SKILL.md; read other files with read_file_in_skill or resources/read","hint":"Call list_skills (or resources/list) to discover supported skill URIs."}`},
		// Seed 003: Skill.
		{"003 ok", "Skill", `{"skill_name": "weather"}`, "Skill: weather (Type: project)\nPath: ./skills/weather\n\n" + fixture.WeatherDoc},
	}
	badURI := map[string]bool{"002 empty": true, "002 scheme": true, "002 encoded traversal": true, "002 other file": true}
	for _, tt := range tests {
		t.Run(tt.seed, func(t *testing.T) {
			// A well-formed call that fails is content for the model, not
			// a Go error; a bad URI is a bad argument, and also a Go
			// *ArgumentError that says what the content says.
			got, err := tl.Call(ctx, tt.tool, tt.args)
			var argErr *tools.ArgumentError
			if badURI[tt.seed] {
				var e tools.ErrorResult
				if jerr := json.Unmarshal([]byte(got), &e); jerr != nil || !errors.As(err, &argErr) || err.Error() != e.Error {
					t.Errorf("Go error %v (%v); want an *ArgumentError saying %q", err, jerr, e.Error)
				}
			} else if err != nil {
				t.Errorf("Go error %v", err)
			}
			if strings.HasPrefix(tt.want, "{") {
				if diff := jsonDiff(t, tt.want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			} else if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestFailedCallsAreNotGoErrors: a well-formed call that fails (a missing
// skill or file, a traversal) is a result for the model, not a Go error.
func TestFailedCallsAreNotGoErrors(t *testing.T) {
	tl := newTools(t, seedFS())
	for _, c := range [][2]string{
		{"get_skill", `{"skill_name": "nonexistent"}`},
		{"Skill", `{"skill_name": "broken"}`},
		{"get_skill", `{"uri": "skill://nope/SKILL.md"}`},
	} {
		res, err := tl.Run(context.Background(), c[0], []byte(c[1]))
		if err != nil || !res.IsError {
			t.Errorf("%s %s: err %v, IsError %v", c[0], c[1], err, res.IsError)
		}
	}
	// The typed methods give the store's error, for Go callers to inspect.
	_, err := tl.GetSkill(context.Background(), tools.GetSkillArgs{SkillName: "nonexistent"})
	var se *store.Error
	if !errors.As(err, &se) || !errors.Is(err, store.ErrSkillNotFound) || se.Skill != "nonexistent" {
		t.Errorf("GetSkill: %v", err)
	}
}

func TestListSkillsEmpty(t *testing.T) {
	tl := newTools(t, fstest.MapFS{"file.txt": {Data: []byte("x")}})
	if got, err := tl.Call(context.Background(), "list_skills", "{}"); err != nil || got != `{"skills":[],"details":[]}` {
		t.Errorf("got %s", got)
	}
}

func TestSkillErrors(t *testing.T) {
	tl := newTools(t, seedFS())
	ctx := context.Background()
	got, err := tl.Call(ctx, "Skill", `{"skill_name": "nope"}`)
	if err != nil {
		t.Errorf("nope: Go error %v", err)
	}
	want := "Skill 'nope' not found.\n\nAvailable skills:\n- calculator: Basic arithmetic operations.\n- data_processor: Process data.\n- ml_model: A model.\n- weather: Weather forecasts by location.\n- web_search: Search the web.\n\nTo create this skill:\n1. Create directory ~/.agents/skills/nope/\n2. Add SKILL.md file with proper YAML frontmatter"
	if got != want {
		t.Errorf("not found:\n%s\nwant:\n%s", got, want)
	}
	got, err = tl.Call(ctx, "Skill", `{"skill_name": "broken"}`)
	want = "Skill 'broken' is invalid: the YAML frontmatter does not parse: line 1: did not find expected node content\n\n" +
		"Fix by:\n- correct the YAML frontmatter at the top of SKILL.md (between the two '---' lines)\n" +
		"- run `skillstore validate` on the skill folder to see every problem\n\n" +
		"Skill will be available after fixing these issues."
	if err != nil || got != want {
		t.Errorf("invalid (%v):\n%s\nwant:\n%s", err, got, want)
	}
}

func TestSkillDescriptionBounded(t *testing.T) {
	m := fstest.MapFS{}
	for i := range 3000 {
		name := fmt.Sprintf("skill-%04d", i)
		m[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: " + strings.Repeat("word ", 100) + "\n---\n")}
	}
	tl := newTools(t, m)
	d := tl.SkillDescription(context.Background())
	// Within 8KB: the preamble, the first skills in order, each
	// description cut short, and a line that counts the rest.
	if len(d) > 8<<10 {
		t.Errorf("description of %d bytes", len(d))
	}
	const preamble = "Invoke a skill to apply specialized expertise and capabilities. Call it with the skill's name when a task matches a skill's description; " +
		"the result is the skill's instructions (SKILL.md), to follow step by step.\n\nAvailable skills:\n"
	body, ok := strings.CutPrefix(d, preamble)
	if !ok {
		t.Fatalf("description starts %.300q", d)
	}
	lines := strings.Split(body, "\n")
	n := len(lines) - 1
	if want := fmt.Sprintf("- … and %d more skills (3000 in all); call search_skills with a few words describing the task to find the right one, or list_skills to see every skill.", 3000-n); lines[n] != want {
		t.Errorf("last line %q; want %q", lines[n], want)
	}
	for i, line := range lines[:n] {
		if want := fmt.Sprintf("- skill-%04d: %s …", i, strings.TrimSpace(strings.Repeat("word ", 32))); line != want {
			t.Fatalf("line %d: %q; want %q", i, line, want)
		}
	}
	small := newTools(t, seedFS()).SkillDescription(context.Background())
	want := "Invoke a skill to apply specialized expertise and capabilities. Call it with the skill's name when a task matches a skill's description; " +
		"the result is the skill's instructions (SKILL.md), to follow step by step.\n\nAvailable skills:\n" +
		"- calculator: Basic arithmetic operations.\n- data_processor: Process data.\n- ml_model: A model.\n" +
		"- weather: Weather forecasts by location.\n- web_search: Search the web."
	if small != want {
		t.Errorf("small description:\n%s\nwant:\n%s", small, want)
	}
}

// TestTypeConfusion sends arguments of the wrong shape to every tool.
func TestTypeConfusion(t *testing.T) {
	tl := newTools(t, seedFS())
	ctx := context.Background()
	tests := []struct{ tool, args, want string }{
		{"get_skill", `{"skill_name": 42}`, "Argument 'skill_name' of tool 'get_skill' must be a string, got a number"},
		{"get_skill", `{"skill_name": ["a"]}`, "Argument 'skill_name' of tool 'get_skill' must be a string, got an array"},
		{"get_skill", `{"skill_name": null}`, "Argument 'skill_name' of tool 'get_skill' must be a string, got null"},
		{"get_skill", `{"skill_name": {"x": 1}}`, "Argument 'skill_name' of tool 'get_skill' must be a string, got an object"},
		{"get_skill", `{"skill_name": true}`, "Argument 'skill_name' of tool 'get_skill' must be a string, got a boolean"},
		{"get_skill", `{}`, "Missing argument: give 'skill_name' (e.g. \"pdf\") or a non-empty 'uri' (e.g. \"skill://pdf/SKILL.md\")"},
		{"get_skill", `{"skill_name": "weather", "uri": "skill://weather/SKILL.md"}`, "Give either 'skill_name' or 'uri' to get_skill, not both"},
		{"get_skill", `{"name": "weather"}`, "Unknown argument 'name' for tool 'get_skill'; accepted arguments: skill_name, uri"},
		{"get_skill", `["weather"]`, "Invalid arguments for tool 'get_skill': arguments must be a JSON object (accepted arguments: skill_name, uri)"},
		{"get_skill", `"weather"`, "Invalid arguments for tool 'get_skill': arguments must be a JSON object (accepted arguments: skill_name, uri)"},
		{"get_skill", `{"skill_name": "weather"`, "Invalid arguments for tool 'get_skill': arguments must be a JSON object (accepted arguments: skill_name, uri)"},
		{"list_skills", `{"filter": "x"}`, "Unknown argument 'filter' for tool 'list_skills'; it takes no arguments"},
		{"read_file_in_skill", `{"skill_name": "weather"}`, "ERROR: Missing required argument 'file_path' for tool 'read_file_in_skill'"},
		{"read_file_in_skill", `{"skill_name": "weather", "file_path": 7}`, "ERROR: Argument 'file_path' of tool 'read_file_in_skill' must be a string, got a number"},
		{"Skill", `{"skill_name": 1}`, "Argument 'skill_name' of tool 'Skill' must be a string, got a number"},
		{"Skill", `{"skill_name": "weather", "extra": 1}`, "Unknown argument 'extra' for tool 'Skill'; accepted arguments: skill_name"},
		{"nope", `{}`, "Unknown tool 'nope'; available tools: list_skills, get_skill, read_file_in_skill, Skill, search_skills"},
	}
	for _, tt := range tests {
		res, err := tl.Run(ctx, tt.tool, []byte(tt.args))
		if !res.IsError {
			t.Errorf("%s %s: not an error", tt.tool, tt.args)
		}
		var argErr *tools.ArgumentError
		var toolErr *tools.UnknownToolError
		if !errors.As(err, &argErr) && !errors.As(err, &toolErr) {
			t.Errorf("%s %s: Go error %v; want an *ArgumentError or *UnknownToolError", tt.tool, tt.args, err)
		}
		// read_file_in_skill's and Skill's content is text; the other
		// tools' (and an unknown tool's) is a JSON error object.
		got := res.Content()
		if tt.tool != "read_file_in_skill" && tt.tool != "Skill" {
			var e tools.ErrorResult
			if err := json.Unmarshal([]byte(got), &e); err != nil {
				t.Errorf("%s %s: content %s is not JSON: %v", tt.tool, tt.args, got, err)
			}
			got = e.Error
		}
		if got != tt.want {
			t.Errorf("%s %s:\n got %q\nwant %q", tt.tool, tt.args, got, tt.want)
		}
	}
	// Empty and null arguments mean {}.
	for _, args := range []string{"", "null", "  "} {
		if res, err := tl.Run(ctx, "list_skills", []byte(args)); res.IsError || err != nil {
			t.Errorf("list_skills %q: %s", args, res.Content())
		}
	}
}

func TestDefinitions(t *testing.T) {
	tl := newTools(t, seedFS())
	defs := tl.Definitions(context.Background())
	if len(defs) != 5 {
		t.Fatalf("%d definitions", len(defs))
	}
	b, err := json.Marshal(defs[2])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"function","function":{"name":"read_file_in_skill","description":"Read any file within a skill's folder. Use this when SKILL.MD references additional documentation, examples, or configuration files. Path must be relative to skill folder.","parameters":{"additionalProperties":false,"properties":{"file_path":{"description":"Relative path to file within skill folder (e.g., 'examples/usage.py', 'docs/api.md')","type":"string"},"skill_name":{"description":"Name of the skill (folder name containing the file)","type":"string"}},"required":["skill_name","file_path"],"type":"object"}}}`
	if string(b) != want {
		t.Errorf("read_file_in_skill definition:\n%s", b)
	}
	for _, d := range defs {
		var schema map[string]any
		if err := json.Unmarshal(d.Function.Parameters, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: bad schema %s", d.Function.Name, d.Function.Parameters)
		}
	}
}

func TestSkillLocation(t *testing.T) {
	t.Setenv("HOME", "/home/ada")
	for _, tt := range []struct{ src, want string }{
		{"/home/ada/.agents/skills", "~/.agents/skills/pdf"},
		{"file:///home/ada/skills/", "~/skills/pdf"},
		{"/home/adam/skills", "/home/adam/skills/pdf"},
		{"/srv/skills", "/srv/skills/pdf"},
		{"./skills", "./skills/pdf"},
		{"~/.agents/skills/", "~/.agents/skills/pdf"},
		{"s3://corp?prefix=skills%2F&region=eu-west-1", "s3://corp?prefix=skills%2Fpdf%2F&region=eu-west-1"},
		{"gs://bucket", "gs://bucket/pdf"},
		{"https://example.com/.well-known/agent-skills/index.json", "https://example.com/.well-known/agent-skills/pdf"},
		{"git+https://git.example.com/org/skills.git?path=skills/&ref=v1", "git+https://git.example.com/org/skills.git?path=skills/pdf/&ref=v1"},
		{"git+https://git.example.com/org/skills.git", "git+https://git.example.com/org/skills.git?path=pdf/"},
		{"builtin://", "builtin:///pdf"},
	} {
		if got := tools.SkillLocation(tt.src, "pdf"); got != tt.want {
			t.Errorf("SkillLocation(%q) = %q; want %q", tt.src, got, tt.want)
		}
	}
}

// TestRemoteLocation: a remote caller is shown a source on the server's
// disk by its label, never its path, and a URL source by its URL.
func TestRemoteLocation(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"/srv/skills", "org"},
		{"./skills", "org"},
		{"~/.agents/skills", "org"},
		{"/srv/pack.zip", "org"},
		{"file:///srv/skills", "org"},
		{"FILE:///srv/skills", "org"},
		{"/srv/odd://name", "org"},
		{`C:\skills`, "org"},
		{"s3://corp?prefix=skills%2F", "s3://corp?prefix=skills%2F"},
		{"git+https://git.example.com/org/skills.git", "git+https://git.example.com/org/skills.git"},
		{"https://example.com/.well-known/agent-skills/", "https://example.com/.well-known/agent-skills/"},
		{"oci://ghcr.io/org/skills:v1", "oci://ghcr.io/org/skills:v1"},
		{"builtin://", "builtin://"},
	} {
		if got := tools.RemoteLocation("org", tt.src); got != tt.want {
			t.Errorf("RemoteLocation(org, %q) = %q; want %q", tt.src, got, tt.want)
		}
	}
}

// TestRemoteSkillPath: the Skill tool answering a remote caller keeps the
// contract's shape, with the source's label where its path was; the
// tools for local callers still name the path.
func TestRemoteSkillPath(t *testing.T) {
	s, err := store.New([]store.Source{{Label: "project", Location: "/srv/team/skills", Kind: "local", FS: fixture.MapFS()}}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	local := tools.New(s, tools.Options{})
	for _, tc := range []struct {
		name string
		t    *tools.Tools
		want string
	}{
		{"local", local, "Skill: weather (Type: project)\nPath: /srv/team/skills/weather\n\n"},
		{"remote", local.Remote(), "Skill: weather (Type: project)\nPath: project/weather\n\n"},
		{"remote, restricted", forFilter(local.Remote(), onlyWeather(t)), "Skill: weather (Type: project)\nPath: project/weather\n\n"},
	} {
		got, err := tc.t.Call(context.Background(), "Skill", `{"skill_name":"weather"}`)
		if err != nil || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, %v; want it to start %q", tc.name, got, err, tc.want)
		}
		if tc.name != "local" && strings.Contains(got, "/srv/") {
			t.Errorf("%s: the answer names the host path: %q", tc.name, got)
		}
	}
}

// onlyWeather is the view of a caller a policy shows the weather skill alone.
func onlyWeather(t *testing.T) access.Filter {
	pol, err := access.Parse("p.yaml", []byte("default: deny\nrules:\n  - {groups: [g], sources: [project], skills: [weather]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	return pol.For(&access.Principal{Subject: "x", Groups: []string{"g"}})
}

// jsonString is s as a JSON string.
func jsonString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jsonDiff compares two JSON texts as values; got must be JSON.
func jsonDiff(t *testing.T, want, got string) string {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %s: %v", want, err)
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		return fmt.Sprintf("not JSON (%v): %s", err, got)
	}
	return gocmp.Diff(w, g)
}

// TestSearchSkills: function calling gets the ranked names and summaries
// as JSON, and each bad argument a Go error whose content says what to send.
func TestSearchSkills(t *testing.T) {
	tl := newTools(t, seedFS())
	ctx := context.Background()
	for args, want := range map[string]string{
		`{"query": "forecasts for my location"}`:       `{"skills":["weather"],"details":[{"name":"weather","description":"Weather forecasts by location.","uri":"skill://weather/SKILL.md","source":"project"}]}`,
		`{"query": "web searching", "limit": 1}`:       `{"skills":["web_search"],"details":[{"name":"web_search","description":"Search the web.","uri":"skill://web_search/SKILL.md","source":"project"}]}`,
		`{"query": "process the data", "limit": 50}`:   `{"skills":["data_processor"],"details":[{"name":"data_processor","description":"Process data.","uri":"skill://data_processor/SKILL.md","source":"project"}]}`,
		`{"query": "nothing like it anywhere at all"}`: `{"skills":[],"details":[]}`,
	} {
		got, err := tl.Call(ctx, "search_skills", args)
		if err != nil || got != want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", args, got, err, want)
		}
	}
	describe := `Describe the task in a few everyday words, e.g. "fill a PDF form" or "review a pull request".`
	// The decoder's messages have no hint; the tool's own say what to send.
	for _, tc := range []struct {
		args string
		want tools.ErrorResult
	}{
		{`{}`, tools.ErrorResult{Error: "Missing required argument 'query' for tool 'search_skills'"}},
		{`{"query": ""}`, tools.ErrorResult{Error: "Missing or empty 'query': say what you need a skill for", Hint: describe + " Call list_skills to see every skill."}},
		{`{"query": "the, and how?"}`, tools.ErrorResult{
			Error: "The query 'the, and how?' has no words to search for: only punctuation, common words such as 'the' and 'how', or words over 64 characters",
			Hint:  `Name the task or its subject in a few words, e.g. "fill a PDF form" or "review a pull request".`}},
		{`{"query": "a", "limit": 0}`, tools.ErrorResult{Error: "Argument 'limit' of tool 'search_skills' must be between 1 and 50, got 0", Hint: "Leave limit out for the 10 best matches."}},
		{`{"query": "a", "limit": 1e3}`, tools.ErrorResult{Error: "Argument 'limit' of tool 'search_skills' must be an integer, got the number 1e3"}},
		{`{"query": "a", "limit": null}`, tools.ErrorResult{Error: "Argument 'limit' of tool 'search_skills' must be an integer, got null"}},
		{"{\"query\": \"\xff\xfe weather\"}", tools.ErrorResult{Error: "The query is not valid UTF-8 text", Hint: describe}},
		{`{"query": "weather", "top": 3}`, tools.ErrorResult{Error: "Unknown argument 'top' for tool 'search_skills'; accepted arguments: limit, query"}},
		{`{"query": "` + strings.Repeat("x", 1001) + `"}`, tools.ErrorResult{Error: "The query is too long (1001 bytes; the limit is 1000)", Hint: describe}},
	} {
		got, err := tl.Call(ctx, "search_skills", tc.args)
		var e tools.ErrorResult
		if jerr := json.Unmarshal([]byte(got), &e); jerr != nil {
			t.Errorf("%.60s: content %s is not JSON: %v", tc.args, got, jerr)
			continue
		}
		if diff := gocmp.Diff(tc.want, e); diff != "" {
			t.Errorf("%.60s (-want +got):\n%s", tc.args, diff)
		}
		if err == nil || err.Error() != tc.want.Error {
			t.Errorf("%.60s: Go error %v; want %q", tc.args, err, tc.want.Error)
		}
	}
}

// TestListSkillsBudget: under the text budget list_skills describes every
// skill; over it, it names them (as many as fit), counts them and points
// to search_skills, and the structured result still holds every name.
func TestListSkillsBudget(t *testing.T) {
	m := fstest.MapFS{}
	for i := range 3000 {
		name := fmt.Sprintf("skill-%04d", i)
		m[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: " + strings.Repeat("word ", 40) + "\n---\n")}
	}
	s, err := store.New([]store.Source{{Label: "project", FS: m}}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	all := make([]string, 3000)
	for i := range all {
		all[i] = fmt.Sprintf("skill-%04d", i)
	}
	const header = "3000 skills available: too many to describe here. Call search_skills with a few words describing the task to find the right one, " +
		"then load it with get_skill (skill_name). Every name is in the structured result (\"skills\"):\n\n"
	for _, tc := range []struct{ budget int }{{0}, {4096}, {64 << 10}} {
		res, err := tools.New(s, tools.Options{TextBudget: tc.budget}).Run(ctx, "list_skills", nil)
		if err != nil || res.IsError {
			t.Fatal(res.Display)
		}
		budget := cmp.Or(tc.budget, tools.DefaultTextBudget)
		got := res.Structured.(tools.ListSkillsResult)
		if diff := gocmp.Diff(all, got.Skills); diff != "" || len(got.Details) != 0 {
			t.Errorf("budget %d: structured names (-want +got):\n%s; %d details", budget, diff, len(got.Details))
		}
		// The text: the header, then the first names in order, one a line,
		// and, when not all fit, how many more there are.
		if len(res.Display) > budget {
			t.Errorf("budget %d: text of %d bytes", budget, len(res.Display))
		}
		body, ok := strings.CutPrefix(res.Display, header)
		if !ok {
			t.Fatalf("budget %d: text starts %.300q", budget, res.Display)
		}
		lines := strings.Split(body, "\n")
		if n := len(lines) - 1; lines[n] == fmt.Sprintf("… and %d more.", len(all)-n) {
			lines = lines[:n]
		} else if len(lines) != len(all) {
			t.Errorf("budget %d: %d names and no count of the rest: ends %q", budget, len(lines), lines[n])
		}
		if diff := gocmp.Diff(all[:min(len(lines), len(all))], lines); diff != "" {
			t.Errorf("budget %d: names in the text (-want +got):\n%s", budget, diff)
		}
		if budget < 64<<10 && len(lines) == len(all) {
			t.Errorf("budget %d: every name fits", budget)
		}
		var content struct {
			Skills    []string `json:"skills"`
			Count     int      `json:"count"`
			Truncated bool     `json:"truncated"`
			Hint      string   `json:"hint"`
		}
		c := res.Content()
		if err := json.Unmarshal([]byte(c), &content); err != nil {
			t.Fatalf("budget %d: function-calling content: %v", budget, err)
		}
		if len(c) > budget {
			t.Errorf("budget %d: function-calling content of %d bytes", budget, len(c))
		}
		n := len(content.Skills)
		want := struct {
			Skills    []string `json:"skills"`
			Count     int      `json:"count"`
			Truncated bool     `json:"truncated"`
			Hint      string   `json:"hint"`
		}{all[:min(n, len(all))], 3000, n < 3000, "Too many skills to describe here: call search_skills with a few words describing the task to find the right one, then get_skill."}
		if diff := gocmp.Diff(want, content); diff != "" {
			t.Errorf("budget %d: function-calling content (-want +got):\n%s", budget, diff)
		}
		if budget == 4096 && !content.Truncated {
			t.Errorf("budget 4096: all %d names fit", len(content.Skills))
		}
	}
	// Under the budget: every skill with its description, as before.
	res, err := tools.New(s, tools.Options{TextBudget: 1 << 20}).Run(ctx, "list_skills", nil)
	if err != nil {
		t.Fatal(err)
	}
	describe := "3000 skills available. Load one with get_skill (skill_name) or read its URI as a resource.\n"
	for _, name := range all {
		describe += "\n- " + name + ": " + strings.TrimSpace(strings.Repeat("word ", 40)) + " (skill://" + name + "/SKILL.md)"
	}
	if got := res.Structured.(tools.ListSkillsResult); len(got.Details) != 3000 || res.Display != describe {
		t.Errorf("a large budget: %d details; text %d bytes, want %d", len(got.Details), len(res.Display), len(describe))
	}
}

// TestHiddenTextWithheld: a skill strict mode withholds for hidden text
// is refused with a hint that says so, not one about its frontmatter.
func TestHiddenTextWithheld(t *testing.T) {
	fsys := fstest.MapFS{
		"sneaky/SKILL.md": &fstest.MapFile{Data: []byte("---\nname: sneaky\ndescription: Looks harmless.\n---\nRun it.\u200b\n")},
		"broken/SKILL.md": &fstest.MapFile{Data: []byte("---\nname: [\n---\n")},
	}
	s, err := store.New([]store.Source{{Label: "project", Location: "./skills", FS: fsys}}, store.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	tl := tools.New(s, tools.Options{})
	for name, want := range map[string]string{
		"sneaky": "The server withholds skills that hide text from readers; `skillstore validate` shows where, for the skill's author to remove it.",
		"broken": "Fix the skill's SKILL.md frontmatter; `skillstore validate` lists every problem.",
	} {
		content, err := tl.Call(context.Background(), "get_skill", `{"skill_name":"`+name+`"}`)
		if err != nil || !strings.Contains(content, want) {
			t.Errorf("get_skill %s: %q, %v; want the hint %q", name, content, err, want)
		}
	}
}
