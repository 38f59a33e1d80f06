package lockfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// value is a JSON value as JavaScript's JSON.parse gives it and
// JSON.stringify writes it back: objects keep their members in order, so
// a field skillstore does not know is written back where it was.
type value struct {
	kind byte // '{', '[', '"', '0' (number), 't', 'f', 'n' (null)
	str  string
	obj  []member
	arr  []value
}

type member struct {
	key string
	val value
}

func stringValue(s string) value { return value{kind: '"', str: s} }

// get returns the value of key in an object value.
func (v value) get(key string) (value, bool) {
	for _, m := range v.obj {
		if m.key == key {
			return m.val, true
		}
	}
	return value{}, false
}

// set sets key in an object value: in its place when present, else last.
func (v *value) set(key string, val value) {
	for i := range v.obj {
		if v.obj[i].key == key {
			v.obj[i].val = val
			return
		}
	}
	v.obj = append(v.obj, member{key, val})
}

// del removes key from an object value.
func (v *value) del(key string) {
	v.obj = slices.DeleteFunc(v.obj, func(m member) bool { return m.key == key })
}

// parseValue parses one JSON document. A key given twice keeps its first
// place and its last value, as JSON.parse does.
func parseValue(b []byte) (value, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := readValue(dec)
	if err != nil {
		return value{}, err
	}
	if len(bytes.TrimLeft(b[dec.InputOffset():], " \t\r\n")) != 0 {
		return value{}, errors.New("text after the JSON value")
	}
	return v, nil
}

func readValue(dec *json.Decoder) (value, error) {
	tok, err := dec.Token()
	if err != nil {
		return value{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			v := value{kind: '{'}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return value{}, err
				}
				mv, err := readValue(dec)
				if err != nil {
					return value{}, err
				}
				v.set(k.(string), mv)
			}
			_, err := dec.Token() // '}'
			return v, err
		case '[':
			v := value{kind: '['}
			for dec.More() {
				ev, err := readValue(dec)
				if err != nil {
					return value{}, err
				}
				v.arr = append(v.arr, ev)
			}
			_, err := dec.Token() // ']'
			return v, err
		}
		return value{}, fmt.Errorf("unexpected %v", t)
	case string:
		return stringValue(t), nil
	case json.Number:
		return value{kind: '0', str: string(t)}, nil
	case bool:
		if t {
			return value{kind: 't'}, nil
		}
		return value{kind: 'f'}, nil
	case nil:
		return value{kind: 'n'}, nil
	}
	return value{}, fmt.Errorf("unexpected token %v", tok)
}

// encode writes v as JSON.stringify(v, null, 2) does: two spaces a level,
// ": " after a key, empty objects and arrays as {} and [], an object's
// array-index keys ("0", "17") first in numeric order and then the others
// in their order (JavaScript's property order), strings escaped only where
// JSON requires it, numbers as JavaScript prints them.
func encode(buf *bytes.Buffer, v value, indent string) {
	switch v.kind {
	case '{':
		if len(v.obj) == 0 {
			buf.WriteString("{}")
			return
		}
		inner := indent + "  "
		buf.WriteString("{\n")
		for i, m := range jsOrder(v.obj) {
			if i > 0 {
				buf.WriteString(",\n")
			}
			buf.WriteString(inner)
			quote(buf, m.key)
			buf.WriteString(": ")
			encode(buf, m.val, inner)
		}
		buf.WriteString("\n" + indent + "}")
	case '[':
		if len(v.arr) == 0 {
			buf.WriteString("[]")
			return
		}
		inner := indent + "  "
		buf.WriteString("[\n")
		for i, e := range v.arr {
			if i > 0 {
				buf.WriteString(",\n")
			}
			buf.WriteString(inner)
			encode(buf, e, inner)
		}
		buf.WriteString("\n" + indent + "]")
	case '"':
		quote(buf, v.str)
	case '0':
		buf.WriteString(jsNumber(v.str))
	case 't':
		buf.WriteString("true")
	case 'f':
		buf.WriteString("false")
	default:
		buf.WriteString("null")
	}
}

// jsOrder returns members in JavaScript's property order: array indexes
// (canonical decimal integers below 2³²−1) ascending, then the rest as given.
func jsOrder(ms []member) []member {
	var idx, rest []member
	for _, m := range ms {
		if _, ok := arrayIndex(m.key); ok {
			idx = append(idx, m)
		} else {
			rest = append(rest, m)
		}
	}
	if len(idx) == 0 {
		return ms
	}
	slices.SortStableFunc(idx, func(a, b member) int {
		x, _ := arrayIndex(a.key)
		y, _ := arrayIndex(b.key)
		return cmpInt(x, y)
	})
	return append(idx, rest...)
}

func cmpInt(x, y uint64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// arrayIndex reports whether key is a JavaScript array index.
func arrayIndex(key string) (uint64, bool) {
	if key == "" || len(key) > 10 || (len(key) > 1 && key[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseUint(key, 10, 64)
	if err != nil || n >= math.MaxUint32 {
		return 0, false
	}
	return n, true
}

// quote writes s as JSON.stringify quotes a string.
func quote(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			buf.WriteString(`\"`)
		case '\\':
			buf.WriteString(`\\`)
		case '\b':
			buf.WriteString(`\b`)
		case '\f':
			buf.WriteString(`\f`)
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\t':
			buf.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(buf, `\u%04x`, r)
			} else {
				buf.WriteRune(r)
			}
		}
	}
	buf.WriteByte('"')
}

// jsNumber is a JSON number literal as JavaScript prints the number it
// parses to: shortest round-trip digits, an exponent from 1e21 and below
// 1e-6, -0 as 0, and null for a number too large for a double.
func jsNumber(lit string) string {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return lit
	}
	if math.IsInf(f, 0) {
		return "null"
	}
	if f == 0 {
		return "0"
	}
	if a := math.Abs(f); a >= 1e21 || a < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64) // 1e+21, 1.5e-07
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[:1]
		exp = strings.TrimLeft(exp[1:], "0")
		return mant + "e" + sign + exp
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// compareUTF16 orders strings as JavaScript's default sort does: by
// UTF-16 code units (which differs from byte order only for characters
// above U+FFFF against U+E000–U+FFFF).
func compareUTF16(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}
