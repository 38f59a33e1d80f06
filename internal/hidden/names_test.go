package hidden_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/skillstore/skillstore/internal/hidden"
)

// TestScanPaths: one case per class of character that makes a name
// display as another, and the names that are left alone.
func TestScanPaths(t *testing.T) {
	at := func(p string, col int, kind hidden.Kind, text string) hidden.Finding {
		return hidden.Finding{Path: p, Line: 0, Column: col, Kind: kind, Text: text}
	}
	spoof := "invoice\u202Efdp.exe"
	tagged := "notes" + hidden.EncodeTags("run rm") + ".md"
	for _, c := range []struct {
		name  string
		paths []string
		want  []hidden.Finding
	}{
		{"plain names", []string{"SKILL.md", "scripts/run.sh", "docs/ünïcode – “quoted”.md", "👨\u200D👩.png"}, nil},
		{"a bidi override", []string{spoof}, []hidden.Finding{at(spoof, 8, hidden.BidiControl, "U+202E")}},
		{"a zero-width space", []string{"SKILL\u200B.md"}, []hidden.Finding{at("SKILL\u200B.md", 6, hidden.ZeroWidth, "U+200B")}},
		{"tag characters", []string{tagged}, []hidden.Finding{at(tagged, 6, hidden.TagCharacters, "run rm")}},
		{"a filler", []string{"a\u3164.md"}, []hidden.Finding{at("a\u3164.md", 2, hidden.Filler, "U+3164")}},
		{"variation selectors", []string{"a\uFE00\uFE01.md"}, []hidden.Finding{at("a\uFE00\uFE01.md", 2, hidden.VariationSelectors, "[00][01]")}},
		{"an escape", []string{"a\x1b[2K.md"}, []hidden.Finding{at("a\x1b[2K.md", 2, hidden.ANSIEscape, "ESC[2K")}},
		{"a folder, once", []string{"docs\u202E/a.md", "docs\u202E/b.md", "docs\u202E/sub/c.md"},
			[]hidden.Finding{at("docs\u202E/a.md", 5, hidden.BidiControl, "U+202E")}},
		{"a folder and its file", []string{"d\u200B/a\u200B.md"}, []hidden.Finding{
			at("d\u200B/a\u200B.md", 2, hidden.ZeroWidth, "U+200B"), at("d\u200B/a\u200B.md", 5, hidden.ZeroWidth, "U+200B")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := hidden.ScanPaths(c.paths)
			if diff := cmp.Diff(c.want, got, cmpopts.IgnoreFields(hidden.Finding{}, "Message")); diff != "" {
				t.Errorf("ScanPaths(%q) (-want +got):\n%s", c.paths, diff)
			}
			for _, g := range got {
				if !strings.HasSuffix(g.Message, "; rename it.") {
					t.Errorf("message %q does not say to rename", g.Message)
				}
			}
		})
	}
}

// TestVisible: a name shows each character that could make it display
// as another as its code point, and is otherwise itself.
func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"SKILL.md":                   "SKILL.md",
		"docs/ünï “x” 日本.md":         "docs/ünï “x” 日本.md",
		"invoice\u202Efdp.exe":       `invoice\u202Efdp.exe`,
		"a\u200Bb\u2066c":            `a\u200Bb\u2066c`,
		"x" + hidden.EncodeTags("A"): `x\U000E0041`,
		"a\u3164b\uFE0F":             `a\u3164b\uFE0F`,
		"a\nb\x1b[0m\u0085":          `a\u000Ab\u001B[0m\u0085`,
		"👨\u200D👩":                   `👨\u200D👩`,
	} {
		if got := hidden.Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}
