package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// ArgumentError is a tool call whose arguments do not fit the tool's schema:
// not a JSON object, an unknown or missing argument, a value of the wrong
// type, or arguments that contradict each other. Its message says what to
// send instead; Hint, if set, says where to find it.
type ArgumentError struct {
	Tool    string
	Message string
	Hint    string
}

func (e *ArgumentError) Error() string { return e.Message }

// UnknownToolError is a call of a tool this package does not have.
type UnknownToolError struct {
	Name string
}

func (e *UnknownToolError) Error() string {
	return fmt.Sprintf("Unknown tool '%s'; available tools: %s", clip(e.Name), strings.Join(Names(), ", "))
}

// field is one member of a struct as JSON sees it: its name from the json
// tag, whether it may be left out (omitempty), and its description from
// the jsonschema tag.
type field struct {
	index       int
	name        string
	optional    bool
	description string
	typ         reflect.Type
}

var fieldCache sync.Map // reflect.Type -> []field

// fieldsOf returns the JSON members of struct type t, in declaration order.
// Unexported fields and fields tagged json:"-" are left out.
func fieldsOf(t reflect.Type) []field {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]field)
	}
	var fields []field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if !sf.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		fields = append(fields, field{index: i, name: name, optional: strings.Contains(","+opts+",", ",omitempty,"),
			description: sf.Tag.Get("jsonschema"), typ: sf.Type})
	}
	fieldCache.Store(t, fields)
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
	case reflect.Slice:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), closed)}
	case reflect.Struct:
		props := map[string]any{}
		required := []string{}
		for _, f := range fieldsOf(t) {
			p := schemaOf(f.typ, closed)
			if f.description != "" {
				p["description"] = f.description
			}
			props[f.name] = p
			if !f.optional {
				required = append(required, f.name)
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
		accepted[i] = f.name
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
			if f.name == k {
				i = j
			}
		}
		if i < 0 {
			return bad("Unknown argument '%s' for tool '%s'; %s", clip(k), tool, acceptedText)
		}
		f, value := fields[i], obj[k]
		dst := rv.Field(f.index)
		switch f.typ.Kind() {
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
			panic("tools: no argument decoder for " + f.typ.String())
		}
	}
	for _, f := range fields {
		if _, ok := obj[f.name]; !f.optional && !ok {
			return bad("Missing required argument '%s' for tool '%s'", f.name, tool)
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
func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}
