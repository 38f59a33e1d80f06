package mcpserver

import (
	"bytes"
	"encoding/json"
)

// A JSON-RPC message is checked with json.Valid once; after that, the
// layer splits objects into members with eachMember instead of decoding
// them again and again with encoding/json (a request's params and _meta
// would be scanned six times), and decodes only the small values it uses.

// eachMember calls fn with the key (raw, without its quotes) and the raw
// value of each member of the JSON object b, in order. b must be valid
// JSON (json.Valid) and an object.
func eachMember(b []byte, fn func(key, value []byte)) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return // '}' ends the object
		}
		kEnd := skipString(b, i)
		key := b[i+1 : kEnd-1]
		i = skipSpace(b, kEnd)
		i = skipSpace(b, i+1) // past ':'
		vEnd := skipValue(b, i)
		fn(key, b[i:vEnd])
		i = skipSpace(b, vEnd)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i++
	}
}

// keyIs reports whether a raw member key names field, as encoding/json
// matches keys to struct fields: ignoring case, after unescaping.
func keyIs(key []byte, field string) bool {
	if string(key) == field {
		return true
	}
	if bytes.IndexByte(key, '\\') < 0 {
		if len(key) != len(field) && ascii(key) {
			return false // ASCII folds to its own length
		}
		return bytes.EqualFold(key, []byte(field))
	}
	var s string
	if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &s) != nil {
		return false
	}
	return bytes.EqualFold([]byte(s), []byte(field))
}

func ascii(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}
