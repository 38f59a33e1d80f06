package textenc

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecode(t *testing.T) {
	type result struct {
		Text, Encoding string
		OK             bool
	}
	tests := []struct {
		name string
		data string
		want result
	}{
		{"empty", "", result{"", EncodingUTF8, true}},
		{"UTF-8", "héllo\r\n\tx\x1b[0m\f\v", result{"héllo\r\n\tx\x1b[0m\f\v", EncodingUTF8, true}},
		{"UTF-8 BOM dropped", "\xef\xbb\xbfhi", result{"hi", EncodingUTF8, true}},
		{"UTF-16LE", "\xff\xfeh\x00\xe9\x00", result{"hé", EncodingUTF16LE, true}},
		{"UTF-16BE with a surrogate pair", "\xfe\xff\xd8\x3d\xde\x00", result{"😀", EncodingUTF16BE, true}},
		{"UTF-16 of odd length", "\xff\xfeh", result{}},
		{"UTF-16 with NUL", "\xff\xfe\x00\x00", result{}},
		{"UTF-16 lone surrogate", "\xff\xfe\x3d\xd8", result{}},
		{"Windows-1252", "caf\xe9 \x80", result{"café €", EncodingWindows1252, true}},
		{"NUL is binary", "a\x00b", result{}},
		{"a C0 control is binary", "a\x01b", result{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got result
			got.Text, got.Encoding, got.OK = Decode([]byte(tt.data))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decode (-want +got):\n%s", diff)
			}
			got.Text, got.Encoding, got.OK = DecodeOwned([]byte(tt.data))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DecodeOwned (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeStrict(t *testing.T) {
	tests := []struct {
		data, want string
		ok         bool
	}{
		{"\xef\xbb\xbfname", "name", true},
		{"\xff\xfen\x00", "n", true},
		{"caf\xe9", "", false}, // not UTF-8: no Windows-1252 for SKILL.md
		{"a\x00", "", false},
	}
	for _, tt := range tests {
		if got, ok := DecodeStrict([]byte(tt.data)); got != tt.want || ok != tt.ok {
			t.Errorf("DecodeStrict(%q) = %q, %v; want %q, %v", tt.data, got, ok, tt.want, tt.ok)
		}
	}
}
