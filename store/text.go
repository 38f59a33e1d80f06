package store

import "github.com/skillstore/skillstore/internal/textenc"

// Encodings reported by DecodeText.
const (
	EncodingUTF8        = textenc.EncodingUTF8
	EncodingUTF16LE     = textenc.EncodingUTF16LE
	EncodingUTF16BE     = textenc.EncodingUTF16BE
	EncodingWindows1252 = textenc.EncodingWindows1252
)

// DecodeText turns file bytes into text and names the encoding it used:
// UTF-8 (a byte order mark is dropped), UTF-16 when the data starts with a
// byte order mark, or, for other data that is not UTF-8 but looks like text,
// Windows-1252 (a superset of ISO-8859-1 in its printable range).
// It reports ok=false for binary data: NUL bytes outside UTF-16, other C0
// control characters beyond white space, or malformed UTF-16
// (internal/textenc, which skilldiff shares).
//
// The returned string shares no memory with data.
func DecodeText(data []byte) (text, encoding string, ok bool) {
	return textenc.Decode(data)
}

// decodeOwned is DecodeText for a buffer the caller gives up: UTF-8 text is
// returned without a copy. data must never be written again.
func decodeOwned(data []byte) (text, encoding string, ok bool) {
	return textenc.DecodeOwned(data)
}

// decodeUTF8Strict returns data as a string if it is UTF-8 (BOM dropped) or
// UTF-16 with a BOM, the encodings SKILL.md may use.
func decodeUTF8Strict(data []byte) (string, bool) {
	return textenc.DecodeStrict(data)
}

// ownedString returns b as a string without copying; b must not change afterwards.
func ownedString(b []byte) string { return textenc.OwnedString(b) }
