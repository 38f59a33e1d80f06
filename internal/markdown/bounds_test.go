package markdown_test

import (
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/markdown"
)

// backtickRuns is n runs of backticks of lengths n, n-1, … 1, each
// followed by "a": none closes another, so each scans the rest of its
// paragraph.
func backtickRuns(n int) string {
	var b strings.Builder
	for i := n; i >= 1; i-- {
		b.WriteString(strings.Repeat("`", i) + "a")
	}
	return b.String()
}

// prose is n bytes of plain lines, one paragraph.
func prose(n int) string { return strings.Repeat("plain words on a line of prose.\n", n/32+1)[:n] }

// delims is a paragraph of n emphasis delimiters written as unit (a
// repeated pattern that holds each delimiter once per occurrence counted
// in k).
func delims(unit string, k, n int) string { return strings.Repeat(unit, n/k) }

// TestTooCostly: which documents are refused, and why — one hostile
// document of each class goldmark is slow on, just past its bound, and
// the same kind of text just within it (or spread so that goldmark's work
// stays small).
func TestTooCostly(t *testing.T) {
	const e = 4000 // emphasis delimiters in one paragraph at the bound
	for _, c := range []struct {
		name, src, why string
	}{
		{"plain Markdown", "# Title\n\n- a\n  - b\n\n1. one\n2. two\n", ""},
		{"a long rule", strings.Repeat("-", 500) + "\n", ""},
		{"a long run of stars", strings.Repeat("*", 500) + "\n", ""},
		{"deep indentation in a fenced block", "```json\n" + strings.Repeat(" ", 400) + "{}\n```\nafter\n", ""},
		{"deep indentation in a tilde fence", "~~~\n" + strings.Repeat(" ", 400) + "x\n~~~\n", ""},
		{"a line of spaces", strings.Repeat(" ", 400) + "\nx\n", ""},
		{"numbers that are not markers", strings.Repeat("1.5 ", 1000) + "\n", ""},

		// Size, nesting, brackets.
		{"size", strings.Repeat("a", markdown.MaxBytes+1), "KiB"},
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
		{"brackets", strings.Repeat("[a](", 3001), "square brackets"},
		{"brackets in many paragraphs", strings.Repeat("[a](b) [c][d]\n\n", 20000), ""},
		{"a backtick fence with a backtick in its info is none", "```a`b\n" + delims("*a_", 2, e+2) + "\n```\n", "emphasis marks"},
		{"a shorter run does not close a fence", "````\n```\n" + delims("*a_", 2, e+2) + "\n````\n", ""},
		{"a tilde fence does not close a backtick one", "```\n~~~\n" + delims("*a_", 2, e+2) + "\n```\n", ""},
		{"a fence indented four spaces is code, not a fence", "    ```\n" + delims("*a_", 2, e+2) + "\n", "emphasis marks"},

		// Tables: every row has its header's cells, written or not.
		{"a wide header over many short rows", strings.Repeat("|a", 1000) + "|\n" + strings.Repeat("|-", 1000) + "|\n" + strings.Repeat("a\n", 300), "tables"},
		{"a wide header in a block quote", "> " + strings.Repeat("|a", 1000) + "|\n> " + strings.Repeat("| :-: ", 1000) + "|\n" + strings.Repeat("> a\n", 300), "tables"},
		{"wide tables in many paragraphs", strings.Repeat(strings.Repeat("|a", 100)+"|\n"+strings.Repeat("|-", 100)+"|\n"+strings.Repeat("a\n", 100)+"\n", 30), "tables"},
		{"a long table of written cells", "|a|b|\n|-|-|\n" + strings.Repeat("|a|b|\n", 80000), ""},
		{"pipes in prose are no table", strings.Repeat("a | b | c | d\n", 30000), ""},

		// Emphasis: the square of a paragraph's delimiters.
		{"*a_ past the bound", delims("*a_", 2, e+2), "emphasis marks"},
		{"*a_ at the bound", delims("*a_", 2, e), ""},
		{"* a_ past the bound", delims("* a_ ", 2, e+2), "emphasis marks"},
		{"a*b_ past the bound", delims("a*b_", 2, e+2), "emphasis marks"},
		{"stars past the bound", delims("*a", 1, e+1), "emphasis marks"},
		{"underscores past the bound", delims("_a", 1, e+1), "emphasis marks"},
		{"snake_case past the bound", delims("a_b ", 1, e+1), "emphasis marks"},
		{"strikethrough past the bound", delims("~a", 1, e+1), "emphasis marks"},
		{"double tildes past the bound", delims("~~a", 2, e+2), "emphasis marks"},
		{"*a_ over many paragraphs", strings.Repeat(delims("*a_", 2, 1000)+"\n\n", 17), "emphasis marks"},
		{"*a_ in sixteen paragraphs", strings.Repeat(delims("*a_", 2, 1000)+"\n\n", 16), ""},
		{"*a_ in list items", strings.Repeat("- "+delims("*a_", 2, 100)+"\n", e/100+1), "emphasis marks"},
		{"*a_ in table cells", "|a|b|\n|-|-|\n" + strings.Repeat("|*a_|*a_|\n", e/4+1), "emphasis marks"},
		{"*a_ in a block quote", strings.Repeat("> "+delims("*a_", 2, 100)+"\n", e/100+1), "emphasis marks"},
		{"*a_ split by blank quote lines", strings.Repeat("> "+delims("*a_", 2, 100)+"\n>\n", e/100+1), "emphasis marks"},
		// A fence line goldmark may not read as a fence leaves nothing out:
		// a list item's fence ends with the item, raw HTML holds a fence
		// line as text (a comment or <pre> across blank lines).
		{"a fence in a list item ends with the item", "- a\n  ```\n" + delims("*a_", 2, e+2) + "\n```\n", "emphasis marks"},
		{"a fence in a list item, after a blank line", "- a\n\n   ```\n" + delims("*a_", 2, e+2) + "\n```\n", "emphasis marks"},
		{"a fence in raw HTML", "<div>\n```\n\n" + delims("*a_", 2, e+2) + "\n\n```\n", "emphasis marks"},
		{"a fence in an HTML comment", "<!--\n\n```\n-->\n" + delims("*a_", 2, e+2) + "\n```\n", "emphasis marks"},
		{"a fence in <pre> past a </div>", "<PRE>\n\n```\n</div>\n\n</pre>\n" + delims("*a_", 2, e+2) + "\n```\n", "emphasis marks"},
		{"a fence in a declaration", "<!DOCTYPE\n\n```\n>\n" + delims("*a_", 2, e+2) + "\n```\n", "emphasis marks"},
		{"fenced code after closed HTML is not counted", "<!-- c -->\n<details>\n\n```\n" + delims("*a_", 2, 2*e) + "\n```\n\n</details>\n", ""},
		{"fenced code after a comment's end is not counted", "<!--\nc\n-->\n```\n" + delims("*a_", 2, 2*e) + "\n```\n", ""},
		{"emphasis in fenced code is not counted", "```\n" + delims("*a_", 2, 2*e) + "\n```\n", ""},
		{"bold in a long document", strings.Repeat("Run **this** and *that*, then `check` the _output_.\n\n", 5000), ""},

		// Code spans: the lengths of unclosed runs times the paragraph's size.
		{"unclosed backtick runs and a long paragraph", backtickRuns(100) + "\n" + prose(30<<10), "backticks"},
		{"unclosed backtick runs, prose apart", backtickRuns(100) + "\n\n" + prose(30<<10), ""},
		{"backticks of one length", strings.Repeat("`a", 100<<10), ""},
		{"code spans in a long document", strings.Repeat("Run `tool --flag` or ``a ` b``.\n", 10000), ""},
	} {
		got := markdown.TooCostly(c.src)
		if c.why == "" && got != "" || c.why != "" && !strings.Contains(got, c.why) {
			t.Errorf("%s: %q, want %q", c.name, got, c.why)
		}
	}
}

// TestTooCostlyClasses: of each class of hostile document, the largest
// the bounds let be rendered is, and one just past them is not (their
// time is BenchmarkRender's, in package ui).
func TestTooCostlyClasses(t *testing.T) {
	for _, d := range fixture.CostlyMarkdown() {
		if got := markdown.TooCostly(d.Text); (got != "") != d.Refused {
			t.Errorf("%s (%d bytes): TooCostly = %q, want refused %v", d.Name, len(d.Text), got, d.Refused)
		}
	}
}
