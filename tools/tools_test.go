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

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

const calculatorDoc = "# Calculator Skill\n\nProvides basic arithmetic operations.\n\n## Usage\n\n```python\nresult = 2 + 2\nprint(result)\n```"

// seedFS holds the skills the seed documents use in their examples.
func seedFS() fstest.MapFS {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	return fstest.MapFS{
		// Seed 000 shows documentation without frontmatter; the store needs
		// a description to list a skill, so this copy has a header and the
		// seed's exact body is checked on the "plain" skill below.
		"calculator/SKILL.md":             file("---\nname: calculator\ndescription: Basic arithmetic operations.\n---\n" + calculatorDoc),
		"calculator/examples/basic.py":    file("\ndef add(a, b):\n    return a + b\n\ndef subtract(a, b):\n    return a - b\n"),
		"weather/SKILL.md":                file("---\nname: weather\ndescription: Weather forecasts by location.\n---\n# Weather\n"),
		"weather/docs/api_reference.md":   file("# Weather API Reference\n\n## get_forecast(location)\n..."),
		"web_search/SKILL.md":             file("---\nname: web_search\ndescription: Search the web.\n---\n# Web search\n"),
		"data_processor/SKILL.md":         file("---\nname: data-processor\ndescription: Process data.\n---\n"),
		"data_processor/config.json":      file(`{"api_endpoint": "https://example.com", "timeout": 30}`),
		"ml_model/SKILL.md":               file("---\nname: ml-model\ndescription: A model.\n---\n"),
		"ml_model/data/samples/input.txt": file("sample1\nsample2\nsample3"),
		"nodoc/readme.txt":                file("no SKILL.md"),
		"broken/SKILL.md":                 file("---\nname: broken\ndescription: [oops\n---\n"),
	}
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
		{"000 ex1", "get_skill", `{"skill_name": "calculator"}`, `{"skill_name":"calculator","documentation":"---\nname: calculator\ndescription: Basic arithmetic operations.\n---\n` + jsonEscape(calculatorDoc) + `","uri":"skill://calculator/SKILL.md","mimeType":"text/markdown"}`},
		{"000 ex2", "get_skill", `{"skill_name": "nodoc"}`, `{"error":"SKILL.MD not found for skill 'nodoc'","hint":"The folder has no SKILL.md; add one with YAML frontmatter (name, description)."}`},
		{"000 ex4", "get_skill", `{"skill_name": "nonexistent"}`, `{"error":"Skill 'nonexistent' not found in skills folder","hint":"Call list_skills to see the available skill names."}`},
		// Seed 001: read_file_in_skill.
		{"001 ex1", "read_file_in_skill", `{"skill_name": "calculator", "file_path": "examples/basic.py"}`, "\ndef add(a, b):\n    return a + b\n\ndef subtract(a, b):\n    return a - b\n"},
		{"001 ex2", "read_file_in_skill", `{"skill_name": "weather", "file_path": "docs/api_reference.md"}`, "# Weather API Reference\n\n## get_forecast(location)\n..."},
		{"001 ex3", "read_file_in_skill", `{"skill_name": "calculator", "file_path": "examples/missing.py"}`, "ERROR: File 'examples/missing.py' not found in skill 'calculator'"},
		{"001 ex5", "read_file_in_skill", `{"skill_name": "nonexistent", "file_path": "README.md"}`, "ERROR: Skill 'nonexistent' not found in skills folder"},
		{"001 ex6", "read_file_in_skill", `{"skill_name": "data_processor", "file_path": "config.json"}`, `{"api_endpoint": "https://example.com", "timeout": 30}`},
		{"001 ex7", "read_file_in_skill", `{"skill_name": "ml_model", "file_path": "data/samples/input.txt"}`, "sample1\nsample2\nsample3"},
		// Seed 004: list_skills.
		{"004 ex1", "list_skills", `{}`, ""},
		// Seed 002: get_skill by URI.
		{"002 uri", "get_skill", `{"uri": "  skill://weather/SKILL.md\n"}`, `{"skill_name":"weather","documentation":"---\nname: weather\ndescription: Weather forecasts by location.\n---\n# Weather\n","uri":"skill://weather/SKILL.md","mimeType":"text/markdown"}`},
		{"002 empty", "get_skill", `{"uri": "  "}`, `{"error":"Missing or empty 'uri': provide a non-empty skill:// URI such as skill://NAME/SKILL.md","hint":"Call list_skills (or resources/list) to discover supported skill URIs."}`},
		{"002 unknown", "get_skill", `{"uri": "skill://engage-red-hat-support/SKILL.md"}`, `{"error":"Unsupported skill URI 'skill://engage-red-hat-support/SKILL.md': no skill named 'engage-red-hat-support' is registered","hint":"Call list_skills (or resources/list) to discover supported skill URIs."}`},
		{"002 scheme", "get_skill", `{"uri": "https://example.com/SKILL.md"}`, `{"error":"Unsupported URI 'https://example.com/SKILL.md': only skill:// URIs are supported, such as skill://NAME/SKILL.md","hint":"Call list_skills (or resources/list) to discover supported skill URIs."}`},
		{"002 other file", "get_skill", `{"uri": "skill://weather/docs/api_reference.md"}`, `{"error":"Unsupported URI 'skill://weather/docs/api_reference.md': get_skill reads only skill://NAME/SKILL.md; read other files with read_file_in_skill or resources/read","hint":"Call list_skills (or resources/list) to discover supported skill URIs."}`},
		// Seed 003: Skill.
		{"003 ok", "Skill", `{"skill_name": "weather"}`, "Skill: weather (Type: project)\nPath: ./skills/weather\n\n---\nname: weather\ndescription: Weather forecasts by location.\n---\n# Weather\n"},
	}
	for _, tt := range tests {
		t.Run(tt.seed, func(t *testing.T) {
			got, _ := tl.Call(ctx, tt.tool, tt.args)
			switch {
			case tt.seed == "004 ex1":
				var res tools.ListSkillsResult
				if err := json.Unmarshal([]byte(got), &res); err != nil {
					t.Fatal(err)
				}
				if strings.Join(res.Skills, ",") != "calculator,data_processor,ml_model,weather,web_search" {
					t.Errorf("skills = %v", res.Skills)
				}
				if res.Details[3].Description != "Weather forecasts by location." || res.Details[3].URI != "skill://weather/SKILL.md" {
					t.Errorf("details = %+v", res.Details[3])
				}
			case strings.HasPrefix(tt.want, "{"):
				if !jsonEqual(got, tt.want) {
					t.Errorf("got  %s\nwant %s", got, tt.want)
				}
			default:
				if got != tt.want {
					t.Errorf("got  %q\nwant %q", got, tt.want)
				}
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
	got, _ := tl.Call(ctx, "Skill", `{"skill_name": "nope"}`)
	want := "Skill 'nope' not found.\n\nAvailable skills:\n- calculator: Basic arithmetic operations.\n- data_processor: Process data.\n- ml_model: A model.\n- weather: Weather forecasts by location.\n- web_search: Search the web.\n\nTo create this skill:\n1. Create directory ~/.agents/skills/nope/\n2. Add SKILL.md file with proper YAML frontmatter"
	if got != want {
		t.Errorf("not found:\n%s\nwant:\n%s", got, want)
	}
	got, _ = tl.Call(ctx, "Skill", `{"skill_name": "broken"}`)
	if !strings.HasPrefix(got, "Skill 'broken' is invalid: the YAML frontmatter does not parse") || !strings.Contains(got, "\n\nFix by:\n- ") || !strings.HasSuffix(got, "Skill will be available after fixing these issues.") {
		t.Errorf("invalid:\n%s", got)
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
	if len(d) > 8<<10 || !strings.Contains(d, "(3000 in all); call search_skills") || !strings.Contains(d, "- skill-0000: word") {
		t.Errorf("description (%d bytes) ends %q", len(d), d[max(0, len(d)-200):])
	}
	small := newTools(t, seedFS()).SkillDescription(context.Background())
	if !strings.Contains(small, "- weather: Weather forecasts by location.") || strings.Contains(small, "more skills") {
		t.Errorf("small description: %s", small)
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
		got := res.Content()
		var e tools.ErrorResult
		if json.Unmarshal([]byte(got), &e) == nil && e.Error != "" {
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
	b, _ := json.Marshal(defs[2])
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

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
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
	for args, want := range map[string]string{
		`{}`:                                             "Missing required argument 'query' for tool 'search_skills'",
		`{"query": ""}`:                                  "Missing or empty 'query': say what you need a skill for",
		`{"query": "the, and how?"}`:                     "The query 'the, and how?' has no words to search for: only punctuation, common words such as 'the' and 'how', or words over 64 characters",
		`{"query": "a", "limit": 0}`:                     "Argument 'limit' of tool 'search_skills' must be between 1 and 50, got 0",
		`{"query": "a", "limit": 1e3}`:                   "Argument 'limit' of tool 'search_skills' must be an integer, got the number 1e3",
		`{"query": "a", "limit": null}`:                  "Argument 'limit' of tool 'search_skills' must be an integer, got null",
		"{\"query\": \"\xff\xfe weather\"}":              "The query is not valid UTF-8 text",
		`{"query": "weather", "top": 3}`:                 "Unknown argument 'top' for tool 'search_skills'; accepted arguments: limit, query",
		`{"query": "` + strings.Repeat("x", 1001) + `"}`: "The query is too long (1001 bytes; the limit is 1000)",
	} {
		got, err := tl.Call(ctx, "search_skills", args)
		var e tools.ErrorResult
		ownCheck := !strings.Contains(want, "argument '") && !strings.Contains(want, "must be an integer") // the decoder's messages have no hint
		if json.Unmarshal([]byte(got), &e); err == nil || e.Error != want || ownCheck && e.Hint == "" {
			t.Errorf("%.60s: %s (Go error %v); want %q, with a hint if the tool's own", args, got, err, want)
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
	for _, tc := range []struct{ budget int }{{0}, {4096}, {64 << 10}} {
		res, err := tools.New(s, tools.Options{TextBudget: tc.budget}).Run(ctx, "list_skills", nil)
		if err != nil || res.IsError {
			t.Fatal(res.Display)
		}
		budget := cmp.Or(tc.budget, tools.DefaultTextBudget)
		got := res.Structured.(tools.ListSkillsResult)
		if len(res.Display) > budget || len(got.Skills) != 3000 || got.Skills[2999] != "skill-2999" {
			t.Errorf("budget %d: text %d bytes, %d names", budget, len(res.Display), len(got.Skills))
		}
		if !strings.HasPrefix(res.Display, "3000 skills available: too many to describe here. Call search_skills") ||
			!strings.Contains(res.Display, "\nskill-0000\nskill-0001\n") || strings.Contains(res.Display, "word word") || len(got.Details) != 0 {
			t.Errorf("budget %d: text %.300q…; %d details", budget, res.Display, len(got.Details))
		}
		if budget < 64<<10 && !strings.HasSuffix(res.Display, " more.") {
			t.Errorf("budget %d: text ends %q", budget, res.Display[len(res.Display)-40:])
		}
		var content struct {
			Skills    []string `json:"skills"`
			Count     int      `json:"count"`
			Truncated bool     `json:"truncated"`
			Hint      string   `json:"hint"`
		}
		c := res.Content()
		if err := json.Unmarshal([]byte(c), &content); err != nil || len(c) > budget || content.Count != 3000 ||
			content.Truncated != (len(content.Skills) < 3000) || content.Skills[0] != "skill-0000" || !strings.Contains(content.Hint, "search_skills") {
			t.Errorf("budget %d: function-calling content (%d bytes): %d names, %+v", budget, len(c), len(content.Skills), content.Count)
		}
		if budget == 4096 && !content.Truncated {
			t.Errorf("budget 4096: all %d names fit", len(content.Skills))
		}
	}
	// Under the budget: every skill with its description, as before.
	res, _ := tools.New(s, tools.Options{TextBudget: 1 << 20}).Run(ctx, "list_skills", nil)
	if got := res.Structured.(tools.ListSkillsResult); len(got.Details) != 3000 || !strings.Contains(res.Display, "- skill-2999: word word") {
		t.Errorf("a large budget: %d details", len(got.Details))
	}
}
