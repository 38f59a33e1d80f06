package ui

import (
	"strings"
	"testing"
)

// TestPlainReason: which documents are shown as plain text, and why.
func TestPlainReason(t *testing.T) {
	for _, c := range []struct {
		name, src, why string
	}{
		{"plain Markdown", "# Title\n\n- a\n  - b\n\n1. one\n2. two\n", ""},
		{"a long rule", strings.Repeat("-", 500) + "\n", ""},
		{"a long run of stars", strings.Repeat("*", 500) + "\n", ""},
		{"deep indentation in a fenced block", "```json\n" + strings.Repeat(" ", 400) + "{}\n```\nafter\n", ""},
		{"deep indentation in a tilde fence", "~~~\n" + strings.Repeat(" ", 400) + "x\n~~~\n", ""},
		{"a thousand quotes", strings.Repeat(">", 1000) + " q\n", "levels deep"},
		{"a thousand list markers", strings.Repeat("- ", 1000) + "x\n", "levels deep"},
		{"a thousand ordered markers", strings.Repeat("1. ", 1000) + "x\n", "levels deep"},
		{"ordered markers with )", strings.Repeat("12) ", 100) + "x\n", "levels deep"},
		{"indented lists", func() string {
			var b strings.Builder
			for i := range 200 {
				b.WriteString(strings.Repeat("  ", i) + "- x\n")
			}
			return b.String()
		}(), "levels deep"},
		{"deep indentation after a closed fence", "```\nx\n```\n" + strings.Repeat(" ", 400) + "x\n", "levels deep"},
		{"brackets", strings.Repeat("[a](", maxBrackets+1), "square brackets"},
		{"size", strings.Repeat("a", maxMarkdownBytes+1), "KiB"},
		{"numbers that are not markers", strings.Repeat("1.5 ", 1000) + "\n", ""},
	} {
		got := plainReason(c.src)
		if c.why == "" && got != "" || c.why != "" && !strings.Contains(got, c.why) {
			t.Errorf("%s: %q, want %q", c.name, got, c.why)
		}
	}
}
