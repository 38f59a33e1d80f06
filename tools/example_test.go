package tools_test

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// An agent that does not speak MCP hands Definitions to its model and
// answers each tool call with Call.
func ExampleTools_Call() {
	skills := fstest.MapFS{
		"pdf/SKILL.md":            {Data: []byte("---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\nSee references/forms.md.\n")},
		"pdf/references/forms.md": {Data: []byte("Use pypdf.\n")},
	}
	s, _ := store.New([]store.Source{{Label: "project", Location: "./skills", FS: skills}}, store.Options{})
	t := tools.New(s, tools.Options{})
	ctx := context.Background()

	for _, d := range t.Definitions(ctx) {
		fmt.Println(d.Type, d.Function.Name)
	}
	for _, call := range [][2]string{
		{"list_skills", `{}`},
		{"search_skills", `{"query": "filling in PDF forms", "limit": 3}`},
		{"read_file_in_skill", `{"skill_name": "pdf", "file_path": "references/forms.md"}`},
		{"read_file_in_skill", `{"skill_name": "pdf", "file_path": "../../etc/passwd"}`},
		{"read_file_in_skill", `{"skill_name": "pdf"}`},
	} {
		content, err := t.Call(ctx, call[0], call[1])
		if err != nil { // the call itself is wrong; content says so to the model
			fmt.Println("Go error:", err)
		}
		fmt.Println(content)
	}
	// Output:
	// function list_skills
	// function get_skill
	// function read_file_in_skill
	// function Skill
	// function search_skills
	// {"skills":["pdf"],"details":[{"name":"pdf","description":"Fill PDF forms.","uri":"skill://pdf/SKILL.md","source":"project"}]}
	// {"skills":["pdf"],"details":[{"name":"pdf","description":"Fill PDF forms.","uri":"skill://pdf/SKILL.md","source":"project"}]}
	// Use pypdf.
	//
	// ERROR: Path traversal detected: cannot access files outside skill folder
	// Go error: Missing required argument 'file_path' for tool 'read_file_in_skill'
	// ERROR: Missing required argument 'file_path' for tool 'read_file_in_skill'
}
