package tools

import (
	"context"
	"encoding/json"
	"reflect"
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
// Schemas of its arguments and of its structured result, derived from the
// Go types of its typed method (GetSkillArgs and GetSkillResult for
// get_skill, and so on).
type Spec struct {
	Name         string
	Title        string
	Description  string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	// Args and Result are the Go types the schemas come from: the
	// arguments of the tool's typed method and the structured result it
	// returns (a Result's Structured holds one on success).
	Args, Result reflect.Type
}

// Specs returns the tools, in the order they are offered. The Skill tool's
// description lists the available skills, so it is read from the store.
func (t *Tools) Specs(ctx context.Context) []Spec {
	specs := make([]Spec, len(toolList))
	for i, tl := range toolList {
		specs[i] = Spec{Name: tl.name, Title: tl.title, Description: tl.description, InputSchema: tl.inSchema, OutputSchema: tl.outSchema, Args: tl.in, Result: tl.out}
		if tl.describe != nil {
			specs[i].Description = tl.describe(t, ctx)
		}
	}
	return specs
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
