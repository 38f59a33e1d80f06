package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/jsonshape"
	"github.com/skillstore/skillstore/internal/logtext"
)

// ArgumentError is a tool call whose arguments do not fit the tool's schema:
// not a JSON object, an unknown or missing argument, a value of the wrong
// type, or arguments that contradict each other. Its message says what to
// send instead; Hint, if set, says where to find it.
type ArgumentError struct {
	Tool    string
	Message string
	Hint    string
	Err     error // the cause, if any (a *store.Error for a bad skill URI)
}

func (e *ArgumentError) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *ArgumentError) Unwrap() error { return e.Err }

// UnknownToolError is a call of a tool this package does not have.
type UnknownToolError struct {
	Name string
}

func (e *UnknownToolError) Error() string {
	return fmt.Sprintf("Unknown tool '%s'; available tools: %s", clip(e.Name), strings.Join(Names(), ", "))
}

// fieldsOf returns the JSON members of one of the package's own argument
// or result types.
func fieldsOf(t reflect.Type) []jsonshape.Field {
	fields, ok := jsonshape.Fields(t)
	if !ok {
		panic("tools: " + t.String() + " has a shape jsonshape does not read")
	}
	return fields
}

// schemaFor derives the JSON Schema of t: objects list their properties,
// with the members not marked omitempty required; argument objects
// (closed) refuse other properties.
func schemaFor(t reflect.Type, closed bool) json.RawMessage {
	b, err := json.Marshal(schemaOf(t, closed))
	if err != nil {
		panic(err) // only the package's own types are described
	}
	return b
}

func schemaOf(t reflect.Type, closed bool) map[string]any {
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int32, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Pointer: // an optional argument whose absence and zero differ
		return schemaOf(t.Elem(), closed)
	case reflect.Slice:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), closed)}
	case reflect.Struct:
		props := map[string]any{}
		required := []string{}
		for _, f := range fieldsOf(t) {
			p := schemaOf(f.Type, closed)
			if f.Description != "" {
				p["description"] = f.Description
			}
			props[f.Name] = p
			if !f.OmitEmpty {
				required = append(required, f.Name)
			}
		}
		s := map[string]any{"type": "object", "properties": props, "required": required}
		if closed {
			s["additionalProperties"] = false
		}
		return s
	}
	panic("tools: no JSON Schema for " + t.String())
}

// decodeArgs reads a tool's arguments, a JSON object (empty input means
// {}), into the struct v points to, refusing with an *ArgumentError
// anything its schema does not allow: another JSON type, an unknown
// member, a value of the wrong type, a missing required member.
func decodeArgs(tool string, raw []byte, v any) error {
	rv := reflect.ValueOf(v).Elem()
	fields := fieldsOf(rv.Type())
	accepted := make([]string, len(fields))
	for i, f := range fields {
		accepted[i] = f.Name
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
		return bad("Invalid arguments for tool '%s': arguments must be a JSON object (%s)", tool, acceptedText)
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		i := -1
		for j, f := range fields {
			if f.Name == k {
				i = j
			}
		}
		if i < 0 {
			return bad("Unknown argument '%s' for tool '%s'; %s", clip(k), tool, acceptedText)
		}
		f, value := fields[i], obj[k]
		dst, typ := rv.Field(f.Index), f.Type
		if typ.Kind() == reflect.Pointer {
			dst.Set(reflect.New(typ.Elem()))
			dst, typ = dst.Elem(), typ.Elem()
		}
		switch typ.Kind() {
		case reflect.String:
			var s string
			if JSONKind(value) != "a string" || json.Unmarshal(value, &s) != nil {
				return bad("Argument '%s' of tool '%s' must be a string, got %s", k, tool, JSONKind(value))
			}
			dst.SetString(s)
		case reflect.Int, reflect.Int64:
			var n int64
			if JSONKind(value) != "a number" || json.Unmarshal(value, &n) != nil {
				return bad("Argument '%s' of tool '%s' must be an integer, got %s", k, tool, describeNumber(value))
			}
			dst.SetInt(n)
		default:
			panic("tools: no argument decoder for " + typ.String())
		}
	}
	for _, f := range fields {
		if _, ok := obj[f.Name]; !f.OmitEmpty && !ok {
			return bad("Missing required argument '%s' for tool '%s'", f.Name, tool)
		}
	}
	return nil
}

// describeNumber names what was sent where an integer was expected.
func describeNumber(v json.RawMessage) string {
	if kind := JSONKind(v); kind != "a number" {
		return kind
	}
	return "the number " + clip(string(bytes.TrimSpace(v)))
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
func clip(s string) string { return logtext.Clip(s, 100) }
