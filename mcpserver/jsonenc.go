package mcpserver

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
	"unsafe"

	"github.com/skillstore/skillstore/internal/jsonshape"
	"github.com/skillstore/skillstore/internal/jsonstr"
	"github.com/skillstore/skillstore/internal/lru"
	"github.com/skillstore/skillstore/tools"
)

// appendToolResult appends the members of a tools/call result object —
// content, then structuredContent or isError — as mcp-go writes them.
// Text that appears both in the text block and in the structured content
// is escaped once.
func appendToolResult(b []byte, r tools.Result, m *escapeMemo) []byte {
	b = append(b, `"content":[{"type":"text","text":`...)
	start := len(b)
	b = m.appendString(b, r.Display)
	display := b[start:len(b):len(b)]
	b = append(b, "}]"...)
	if r.IsError {
		b = append(b, `,"isError":true`...)
	} else if r.Structured != nil {
		b = append(b, `,"structuredContent":`...)
		b = appendStructured(b, r.Structured, r.Display, display)
	}
	return b
}

// appendStructured appends a tool's structured result. A string member
// holding the very string shown in the text block reuses its escaped form.
func appendStructured(b []byte, v any, display string, escaped []byte) []byte {
	str := func(b []byte, s string) []byte {
		if len(s) == len(display) && len(s) > 0 && unsafe.StringData(s) == unsafe.StringData(display) {
			return append(b, escaped...)
		}
		return jsonstr.Append(b, s)
	}
	return encoderFor(reflect.TypeOf(v))(b, reflect.ValueOf(v), str)
}

// encoderFunc appends v as JSON; str appends a string member.
type encoderFunc func(b []byte, v reflect.Value, str func([]byte, string) []byte) []byte

var encoders sync.Map // reflect.Type -> encoderFunc

// encoderFor returns the encoder of t, derived once from the type's shape
// as package jsonshape reads it — the reading that gives the tools' output
// schemas (tools.Spec.Result is the type) — so it writes what
// encoding/json writes for them: members in declaration order named by
// their json tags, omitempty honoured, nil slices as null. Kinds the
// tools' results do not use fall back to encoding/json.
func encoderFor(t reflect.Type) encoderFunc {
	if e, ok := encoders.Load(t); ok {
		return e.(encoderFunc)
	}
	e := makeEncoder(t)
	encoders.Store(t, e)
	return e
}

func makeEncoder(t reflect.Type) encoderFunc {
	switch t.Kind() {
	case reflect.String:
		return func(b []byte, v reflect.Value, str func([]byte, string) []byte) []byte { return str(b, v.String()) }
	case reflect.Bool:
		return func(b []byte, v reflect.Value, _ func([]byte, string) []byte) []byte {
			return strconv.AppendBool(b, v.Bool())
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(b []byte, v reflect.Value, _ func([]byte, string) []byte) []byte {
			return strconv.AppendInt(b, v.Int(), 10)
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			break // []byte is base64 in encoding/json
		}
		elem := encoderFor(t.Elem())
		return func(b []byte, v reflect.Value, str func([]byte, string) []byte) []byte {
			if v.IsNil() {
				return append(b, "null"...)
			}
			b = append(b, '[')
			for i := range v.Len() {
				if i > 0 {
					b = append(b, ',')
				}
				b = elem(b, v.Index(i), str)
			}
			return append(b, ']')
		}
	case reflect.Struct:
		fields, ok := jsonshape.Fields(t)
		if !ok {
			break // embedded fields: leave them to encoding/json
		}
		type member struct {
			index     int
			key       []byte // `"name":`
			omitEmpty bool
			enc       encoderFunc
		}
		members := make([]member, len(fields))
		for i, f := range fields {
			members[i] = member{index: f.Index, key: append(jsonstr.Append(nil, f.Name), ':'), omitEmpty: f.OmitEmpty, enc: encoderFor(f.Type)}
		}
		return func(b []byte, v reflect.Value, str func([]byte, string) []byte) []byte {
			b = append(b, '{')
			first := true
			for _, m := range members {
				fv := v.Field(m.index)
				if m.omitEmpty && isEmpty(fv) {
					continue
				}
				if !first {
					b = append(b, ',')
				}
				first = false
				b = append(b, m.key...)
				b = m.enc(b, fv, str)
			}
			return append(b, '}')
		}
	}
	return marshalEncoder
}

// isEmpty is encoding/json's test for omitempty: false, 0, "", and a nil or
// empty slice (structs are never empty).
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Pointer, reflect.Interface:
		return v.IsZero()
	}
	return false
}

// marshalEncoder writes v with encoding/json.
func marshalEncoder(b []byte, v reflect.Value, _ func([]byte, string) []byte) []byte {
	j, err := json.Marshal(v.Interface())
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, j...)
}

// memoMinBytes is the smallest text whose escaped form is remembered.
const memoMinBytes = 64 << 10

// escapeMemo remembers the JSON-escaped form of large texts, which the
// store serves as immutable strings, so a hot 1 MiB file is escaped once.
// An entry keeps the text it was made from alive, so while the entry lives
// no other string can occupy that address: the text's address and length
// are a sound key. A nil memo escapes every time.
type escapeMemo struct {
	c *lru.Cache[memoKey, memoEntry]
}

type memoKey struct {
	p *byte
	n int
}

type memoEntry struct {
	src string
	esc []byte
}

func newEscapeMemo(budget int64) *escapeMemo {
	return &escapeMemo{c: lru.New[memoKey, memoEntry](budget)}
}

// appendString appends s as a JSON string, from the memo when it can.
func (m *escapeMemo) appendString(b []byte, s string) []byte {
	if m == nil || len(s) < memoMinBytes {
		return jsonstr.Append(b, s)
	}
	k := memoKey{unsafe.StringData(s), len(s)}
	if e, ok := m.c.Get(k); ok && unsafe.StringData(e.src) == k.p && len(e.src) == k.n {
		return append(b, e.esc...)
	}
	start := len(b)
	b = jsonstr.Append(b, s)
	esc := bytes.Clone(b[start:])
	m.c.Add(k, memoEntry{src: s, esc: esc}, int64(len(esc)+len(s)))
	return b
}

// buffers holds answer buffers for every transport; an answer's buffer
// goes back once written.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

func getBuffer() []byte { return (*buffers.Get().(*[]byte))[:0] }

func putBuffer(b []byte) {
	if cap(b) <= 4<<20 { // do not pin huge buffers
		buffers.Put(&b)
	}
}
