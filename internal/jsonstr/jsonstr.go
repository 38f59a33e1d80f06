// Package jsonstr appends Go strings to a buffer as JSON strings: the one
// string escaper of the hand-written JSON encoders (the MCP answers'
// encoder in mcpserver, the audit log's lines in audit). Both write valid
// JSON that encoding/json decodes to the same string, with invalid UTF-8
// replaced by U+FFFD; they differ only in which further runes they escape.
package jsonstr

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// Append appends s as a JSON string, as encoding/json does without HTML
// escaping: quotes, backslashes and control characters below U+0020 are
// escaped, U+2028 and U+2029 too, and invalid UTF-8 becomes U+FFFD. It is
// on the hot path of every MCP answer: ASCII text is copied in runs.
func Append(b []byte, s string) []byte { return appendString(b, s, &jsonPlain, lineSeparator) }

// AppendForLog appends s as a JSON string for a line a person or a log
// tool reads: besides what Append escapes, it escapes DEL and the C1
// controls and the bidirectional controls (which reorder the text shown).
// A value can therefore never end the line, forge another field, or hide
// text.
func AppendForLog(b []byte, s string) []byte { return appendString(b, s, &logPlain, logRune) }

// jsonPlain and logPlain mark the bytes each form copies as they are.
var jsonPlain, logPlain = func() (j, l [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		j[c] = c != '"' && c != '\\'
		l[c] = j[c] && c != 0x7f
	}
	return j, l
}()

// lineSeparator reports the runes JavaScript takes for line ends.
func lineSeparator(r rune) bool { return r == 0x2028 || r == 0x2029 }

// logRune reports the non-ASCII runes AppendForLog escapes.
func logRune(r rune) bool {
	switch {
	case r >= 0x80 && r < 0xa0: // C1 controls
		return true
	case lineSeparator(r):
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f: // bidi marks
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi embeddings, overrides, isolates
		return true
	}
	return false
}

// appendString appends s quoted, copying the bytes plain marks and the
// valid non-ASCII runes escape does not pick as they are.
func appendString(b []byte, s string, plain *[256]bool, escape func(rune) bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case escape(r):
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
