// Package jsonshape reads the JSON shape of a Go struct type the way
// encoding/json does — member names from json tags, omitempty — plus a
// description from the jsonschema tag. Package tools derives its tools'
// JSON Schemas and argument decoding from it, and package mcpserver its
// result encoder, so the shape of every tool is read in one place.
package jsonshape

import (
	"reflect"
	"strings"
	"sync"
)

// Field is one member of a struct as JSON sees it.
type Field struct {
	Index       int          // the struct field's index
	Name        string       // the member's name: the json tag's, else the field's
	OmitEmpty   bool         // the json tag says omitempty: the member may be left out
	Description string       // the jsonschema tag
	Type        reflect.Type // the field's type
}

var cache sync.Map // reflect.Type -> []Field

// Fields returns the JSON members of struct type t in declaration order,
// leaving out unexported fields and those tagged json:"-". ok is false
// for shapes this package does not read (embedded fields), which callers
// leave to encoding/json.
func Fields(t reflect.Type) (fields []Field, ok bool) {
	if f, found := cache.Load(t); found {
		fields = f.([]Field)
		return fields, fields != nil
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			cache.Store(t, []Field(nil))
			return nil, false
		}
		tag := sf.Tag.Get("json")
		if !sf.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		fields = append(fields, Field{Index: i, Name: name, OmitEmpty: strings.Contains(","+opts+",", ",omitempty,"),
			Description: sf.Tag.Get("jsonschema"), Type: sf.Type})
	}
	if fields == nil {
		fields = []Field{}
	}
	cache.Store(t, fields)
	return fields, true
}
