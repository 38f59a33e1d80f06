package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// ArgumentError is a tool call whose arguments do not fit the tool's schema:
// not a JSON object, an unknown or missing argument, or a value of the
// wrong type. Its message says what to send instead.
type ArgumentError struct {
	Tool    string
	Message string
}

func (e *ArgumentError) Error() string { return e.Message }

// argSpec describes one string argument of a tool.
type argSpec struct {
	name        string
	description string
	required    bool
}

// decodeArgs reads a JSON object whose values are all strings, refusing
// anything else with an ArgumentError. Empty input means {}.
func decodeArgs(tool string, raw []byte, specs []argSpec) (map[string]string, error) {
	accepted := make([]string, len(specs))
	for i, s := range specs {
		accepted[i] = s.name
	}
	sort.Strings(accepted)
	acceptedText := "it takes no arguments"
	if len(accepted) > 0 {
		acceptedText = "accepted arguments: " + strings.Join(accepted, ", ")
	}
	bad := func(format string, a ...any) error {
		return &ArgumentError{Tool: tool, Message: fmt.Sprintf(format, a...)}
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	var obj map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return nil, bad("Invalid arguments for tool '%s': arguments must be a JSON object (%s)", tool, acceptedText)
	}
	out := make(map[string]string, len(obj))
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := obj[k]
		known := false
		for _, s := range specs {
			known = known || s.name == k
		}
		if !known {
			return nil, bad("Unknown argument '%s' for tool '%s'; %s", clip(k), tool, acceptedText)
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil || JSONKind(v) != "a string" {
			return nil, bad("Argument '%s' of tool '%s' must be a string, got %s", k, tool, JSONKind(v))
		}
		out[k] = s
	}
	for _, s := range specs {
		if _, ok := out[s.name]; s.required && !ok {
			return nil, bad("Missing required argument '%s' for tool '%s'", s.name, tool)
		}
	}
	return out, nil
}

// JSONKind names the JSON type of a raw value ("an object", "a string",
// "null", "nothing"…), for messages that say what a caller sent.
func JSONKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// clip shortens a caller's string for an error message.
func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}

// schema returns the JSON Schema of a tool's arguments.
func schema(specs []argSpec) json.RawMessage {
	props := map[string]any{}
	required := []string{}
	for _, s := range specs {
		props[s.name] = map[string]string{"type": "string", "description": s.description}
		if s.required {
			required = append(required, s.name)
		}
	}
	b, _ := json.Marshal(map[string]any{
		"type": "object", "properties": props, "required": required, "additionalProperties": false,
	})
	return b
}
