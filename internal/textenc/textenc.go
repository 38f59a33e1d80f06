// Package textenc decides whether file bytes are text and decodes them:
// UTF-8, UTF-16 with a byte order mark, or Windows-1252. The store and
// skilldiff share it, so a file is text to both or to neither.
package textenc

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/encoding/charmap"
)

// Encodings reported by Decode.
const (
	EncodingUTF8        = "utf-8"
	EncodingUTF16LE     = "utf-16le"
	EncodingUTF16BE     = "utf-16be"
	EncodingWindows1252 = "windows-1252"
)

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

// Decode turns file bytes into text and names the encoding it used:
// UTF-8 (a byte order mark is dropped), UTF-16 when the data starts with a
// byte order mark, or, for other data that is not UTF-8 but looks like text,
// Windows-1252 (a superset of ISO-8859-1 in its printable range).
// It reports ok=false for binary data: NUL bytes outside UTF-16, other C0
// control characters beyond white space, or malformed UTF-16.
//
// The returned string shares no memory with data.
func Decode(data []byte) (text, encoding string, ok bool) {
	return decodeText(data, func(b []byte) string { return string(b) })
}

// DecodeOwned is Decode for a buffer the caller gives up: UTF-8 text is
// returned without a copy. data must never be written again.
func DecodeOwned(data []byte) (text, encoding string, ok bool) {
	return decodeText(data, OwnedString)
}

// OwnedString returns b as a string without copying; b must not change afterwards.
func OwnedString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func decodeText(data []byte, str func([]byte) string) (text, encoding string, ok bool) {
	switch {
	case bytes.HasPrefix(data, bomUTF8):
		data = data[len(bomUTF8):]
	case bytes.HasPrefix(data, bomUTF16LE):
		return decodeUTF16(data[2:], false, EncodingUTF16LE)
	case bytes.HasPrefix(data, bomUTF16BE):
		return decodeUTF16(data[2:], true, EncodingUTF16BE)
	}
	if looksBinary(data) {
		return "", "", false
	}
	if utf8.Valid(data) {
		return str(data), EncodingUTF8, true
	}
	out, err := charmap.Windows1252.NewDecoder().Bytes(data)
	if err != nil {
		return "", "", false
	}
	return string(out), EncodingWindows1252, true
}

// DecodeStrict returns data as a string if it is UTF-8 (BOM dropped) or
// UTF-16 with a BOM, the encodings SKILL.md may use.
func DecodeStrict(data []byte) (string, bool) {
	if bytes.HasPrefix(data, bomUTF16LE) || bytes.HasPrefix(data, bomUTF16BE) {
		text, _, ok := decodeUTF16(data[2:], data[0] == 0xFE, "")
		return text, ok
	}
	data = bytes.TrimPrefix(data, bomUTF8)
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return "", false
	}
	return string(data), true
}

func decodeUTF16(data []byte, bigEndian bool, name string) (string, string, bool) {
	if len(data)%2 != 0 {
		return "", "", false
	}
	units := make([]uint16, len(data)/2)
	for i := range units {
		lo, hi := data[2*i], data[2*i+1]
		if bigEndian {
			lo, hi = hi, lo
		}
		units[i] = uint16(lo) | uint16(hi)<<8
	}
	var b []byte
	for i := 0; i < len(units); i++ {
		u := units[i]
		var r rune
		switch {
		case utf16.IsSurrogate(rune(u)):
			if i+1 >= len(units) {
				return "", "", false
			}
			r = utf16.DecodeRune(rune(u), rune(units[i+1]))
			if r == utf8.RuneError {
				return "", "", false
			}
			i++
		case u == 0:
			return "", "", false
		default:
			r = rune(u)
		}
		b = utf8.AppendRune(b, r)
	}
	return string(b), name, true
}

// looksBinary reports NUL bytes or C0 control characters other than tab,
// line feed, vertical tab, form feed, carriage return and escape.
func looksBinary(data []byte) bool {
	for _, c := range data {
		if c < 0x20 {
			switch c {
			case '\t', '\n', '\v', '\f', '\r', 0x1b:
				continue
			}
			return true
		}
	}
	return false
}
