package tools

import (
	"context"
	"encoding/json"
)

// Definition is an OpenAI-style function definition, as sent in a chat
// completion request's "tools" array.
type Definition struct {
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function is the function part of a Definition.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	// Strict asks providers that support it to enforce the schema.
	Strict bool `json:"strict,omitempty"`
}

// Spec describes one tool: its name, title, description and the JSON
// Schemas of its arguments and of its structured result.
type Spec struct {
	Name         string
	Title        string
	Description  string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
}

// Specs returns the four tools. The Skill tool's description lists the
// available skills, so it is read from the store.
func (t *Tools) Specs(ctx context.Context) []Spec {
	return []Spec{
		{
			Name:         ListSkills,
			Title:        "List skills",
			Description:  "List all available skills in the skills folder. Returns skill names as a JSON array (\"skills\"), sorted, and for each skill its description and skill:// URI (\"details\") so you can choose one.",
			InputSchema:  schema(listSkillsArgs),
			OutputSchema: listSkillsOutput,
		},
		{
			Name:         GetSkill,
			Title:        "Get skill",
			Description:  "Read the SKILL.MD documentation for a specific skill. Returns the full text content of the documentation file. Give skill_name (the folder name), or uri (skill://NAME/SKILL.md) if you have the skill's resource URI; not both.",
			InputSchema:  schema(getSkillArgs),
			OutputSchema: getSkillOutput,
		},
		{
			Name:         ReadFileInSkill,
			Title:        "Read file in skill",
			Description:  "Read any file within a skill's folder. Use this when SKILL.MD references additional documentation, examples, or configuration files. Path must be relative to skill folder.",
			InputSchema:  schema(readFileArgs),
			OutputSchema: readFileOutput,
		},
		{
			Name:         SkillTool,
			Title:        "Skill",
			Description:  t.SkillDescription(ctx),
			InputSchema:  schema(skillArgs),
			OutputSchema: skillOutput,
		},
	}
}

// Definitions returns the tools as OpenAI-style function definitions.
func (t *Tools) Definitions(ctx context.Context) []Definition {
	specs := t.Specs(ctx)
	defs := make([]Definition, len(specs))
	for i, s := range specs {
		defs[i] = Definition{Type: "function", Function: Function{Name: s.Name, Description: s.Description, Parameters: s.InputSchema}}
	}
	return defs
}

func objectSchema(props map[string]string, required ...string) json.RawMessage {
	p := map[string]any{}
	for name, typ := range props {
		p[name] = map[string]string{"type": typ}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": p, "required": required})
	return b
}

var (
	listSkillsOutput = func() json.RawMessage {
		b, _ := json.Marshal(map[string]any{
			"type": "object",
			"properties": map[string]any{
				"skills": map[string]any{"type": "array", "items": map[string]string{"type": "string"}},
				"details": map[string]any{"type": "array", "items": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"name": map[string]string{"type": "string"}, "description": map[string]string{"type": "string"},
						"uri": map[string]string{"type": "string"}, "source": map[string]string{"type": "string"},
					},
					"required": []string{"name", "description", "uri", "source"},
				}},
			},
			"required": []string{"skills", "details"},
		})
		return b
	}()
	getSkillOutput = objectSchema(map[string]string{"skill_name": "string", "documentation": "string", "uri": "string", "mimeType": "string"},
		"skill_name", "documentation", "uri", "mimeType")
	readFileOutput = objectSchema(map[string]string{"success": "boolean", "skill_name": "string", "file_path": "string", "content": "string", "size_bytes": "integer", "encoding": "string"},
		"success", "skill_name", "file_path", "content", "size_bytes", "encoding")
	skillOutput = objectSchema(map[string]string{"skill_name": "string", "type": "string", "path": "string", "description": "string", "content": "string", "shortResult": "string"},
		"skill_name", "type", "path", "description", "content", "shortResult")
)
