package logtext_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/logtext"
)

// stackError formats as a dependency's error does that keeps its caller's
// frame (gocloud.dev's, golang.org/x/xerrors'): its message with %v, and
// with %+v the frame too.
type stackError struct{ msg string }

func (e stackError) Error() string { return e.msg }

func (e stackError) Format(s fmt.State, verb rune) {
	io.WriteString(s, e.msg)
	if verb == 'v' && s.Flag('+') {
		io.WriteString(s, "\n    example.com/dep.(*Client).Get\n        /root/go/pkg/mod/example.com/dep@v1.0.0/client.go:42")
	}
}

// TestOf: slog's text handler writes an error given as itself with its
// stack frame, and one given as logtext.Of(err) by its message alone.
func TestOf(t *testing.T) {
	err := fmt.Errorf("reading: %w", errors.New("x"))
	for _, tc := range []struct {
		name     string
		err      error
		raw, got string // the line's err attribute given err, and given logtext.Of(err)
	}{
		{"a dependency's error", stackError{"GET notes.md: connection reset by peer"},
			`err="GET notes.md: connection reset by peer\n    example.com/dep.(*Client).Get\n        /root/go/pkg/mod/example.com/dep@v1.0.0/client.go:42"`,
			`err="GET notes.md: connection reset by peer"`},
		{"a wrapped error", err, `err="reading: x"`, `err="reading: x"`},
		{"no error", nil, `err=<nil>`, `err=""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.raw, attrText(tc.err)); diff != "" {
				t.Errorf("the error itself (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.got, attrText(logtext.Of(tc.err))); diff != "" {
				t.Errorf("logtext.Of (-want +got):\n%s", diff)
			}
		})
	}
}

// attrText is how slog's text handler writes v as the attribute "err".
func attrText(v any) string {
	var buf bytes.Buffer
	h := slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key != "err" {
			return slog.Attr{}
		}
		return a
	}})
	slog.New(h).Info("", "err", v)
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// TestClip: a string over the limit is cut at a rune boundary at or
// before it, and marked.
func TestClip(t *testing.T) {
	for _, tc := range []struct {
		name, s string
		n       int
		want    string
	}{
		{"short", "abc", 5, "abc"},
		{"at the limit", "abcde", 5, "abcde"},
		{"over the limit", "abcdef", 5, "abcde…"},
		{"inside a rune", "abcdé", 5, "abcd…"},     // é is 2 bytes: bytes 4 and 5
		{"inside a wide rune", "ab€cd", 4, "ab…"},  // € is 3 bytes: 2 to 4
		{"on a rune boundary", "ab€cd", 5, "ab€…"}, // the cut falls after €
		{"no room", "€", 1, "…"},                   // nothing fits
		{"empty", "", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := logtext.Clip(tc.s, tc.n); got != tc.want {
				t.Errorf("Clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
			}
		})
	}
}

// TestClipEveryCut: multi-byte text clipped at every length is a valid
// UTF-8 start of the text, as long as fits, and marked when shortened.
func TestClipEveryCut(t *testing.T) {
	const s = "aé€𝄞b\u00e9\u20ac\U0001d11ez" // runes of 1, 2, 3 and 4 bytes, twice
	for n := 0; n <= len(s)+1; n++ {
		got := logtext.Clip(s, n)
		cut := logtext.Cut(s, n)
		if n >= len(s) {
			if got != s || cut != s {
				t.Errorf("n=%d: Clip %q, Cut %q; want the text whole", n, got, cut)
			}
			continue
		}
		if got != cut+"…" {
			t.Errorf("n=%d: Clip %q is not Cut %q and a mark", n, got, cut)
		}
		if !utf8.ValidString(cut) || !strings.HasPrefix(s, cut) || len(cut) > n {
			t.Errorf("n=%d: Cut %q is not a valid start of at most %d bytes", n, cut, n)
		}
		if next := s[len(cut):]; n > len(cut) {
			if _, size := utf8.DecodeRuneInString(next); len(cut)+size <= n {
				t.Errorf("n=%d: Cut %q stops short: %q would fit", n, cut, s[:len(cut)+size])
			}
		}
	}
}
