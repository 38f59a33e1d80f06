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
	fmt.Println(t.Call(ctx, "list_skills", `{}`))
	fmt.Println(t.Call(ctx, "read_file_in_skill", `{"skill_name": "pdf", "file_path": "references/forms.md"}`))
	fmt.Println(t.Call(ctx, "read_file_in_skill", `{"skill_name": "pdf", "file_path": "../../etc/passwd"}`))
	// Output:
	// function list_skills
	// function get_skill
	// function read_file_in_skill
	// function Skill
	// {"skills":["pdf"],"details":[{"name":"pdf","description":"Fill PDF forms.","uri":"skill://pdf/SKILL.md","source":"project"}]}
	// Use pypdf.
	//
	// ERROR: Path traversal detected: cannot access files outside skill folder
}
