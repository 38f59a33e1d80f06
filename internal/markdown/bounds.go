package markdown

import (
	"iter"
	"strconv"
	"strings"
)

// Bounds of what is parsed. goldmark's time grows with the square or
// faster of some inputs (yuin/goldmark#555): matching emphasis
// delimiters searches back through every earlier delimiter of the
// paragraph for each closing one (4,000 of "*a_" in one paragraph took
// 40 ms, 6,000 took 60 ms, 32,000 1.6 s); an unmatched run of backticks
// scans the rest of its paragraph, one node a line, for a run as long;
// brackets are searched back through the same way, and so are the
// lines of a paragraph of link reference definitions. Each bound
// below is on what goldmark does, not on the document's size alone, and
// each was set where a document at the bound renders in about 50 ms
// (BenchmarkRender in package ui; BENCHMARKS.md). Within them, a
// document's time grows with its size: 512 KiB of the costliest
// constructs takes about a second.
const (
	// MaxBytes bounds a document's size.
	MaxBytes = 512 << 10
	// MaxNesting bounds block quotes and lists, one in another.
	MaxNesting = 64
	// MaxBracketWork bounds the sum, over the paragraphs, of the square
	// of the "[" each holds (links, images, link reference definitions):
	// one paragraph of 3,000, or 9 of 1,000.
	MaxBracketWork = 3000 * 3000
	// MaxEmphasisWork bounds the sum, over the document's paragraphs, of
	// the square of the emphasis delimiters ("*", "_", "~") each holds:
	// one paragraph of 4,000, or 16 of 1,000.
	MaxEmphasisWork = 4000 * 4000
	// MaxCodeSpanWork bounds the sum, over the paragraphs, of the number
	// of different lengths of the runs of backticks each holds (each
	// length may be a run no later one closes) times its bytes.
	MaxCodeSpanWork = 2 << 20
	// MaxTableCells bounds the sum, over the paragraphs, of the columns of
	// a table's delimiter row ("|-|-|") times the paragraph's lines: GFM
	// gives every row as many cells as its header, written or not, so a
	// header of 1,000 columns over 10,000 rows of "a" is ten million
	// cells from 22 KB (seconds and gigabytes). 512 KiB of written-out
	// cells ("|a|b|" rows) is about 175,000.
	MaxTableCells = 1 << 18
)

// TooCostly returns "" when goldmark parses src within the bounds above,
// or why not: which bound src is past, in words a page can show ("This
// document has …", without a full stop). It reads src once, and allocates
// only a set of backtick run lengths.
//
// Paragraphs are counted as runs of lines between blank lines and fenced
// code blocks: one such run holds one or more of goldmark's inline blocks
// (paragraphs, headings, list items, table cells), so the sums of squares
// above are never less than goldmark's. Lines in fenced code blocks are
// not counted.
func TooCostly(src string) (why string) {
	if len(src) > MaxBytes {
		return "This document is over " + strconv.Itoa(MaxBytes>>10) + " KiB"
	}
	var (
		emph, brackets, code, cells int // the work so far
		delims, open, chunkSize     int // the current paragraph's
		lines, cols                 int
		runs                        map[int]bool
	)
	endChunk := func() {
		emph += delims * delims
		brackets += open * open
		code += len(runs) * chunkSize
		cells += cols * lines
		delims, open, chunkSize, lines, cols = 0, 0, 0, 0, 0
		clear(runs)
	}
	for line, afterFence := range Unfenced(src) {
		if afterFence {
			endChunk()
		}
		if strings.TrimSpace(line) == "" {
			endChunk()
			continue
		}
		if nestsDeep(line) {
			return "This document nests block quotes or lists over " + strconv.Itoa(MaxNesting) + " levels deep"
		}
		chunkSize += len(line) + 1
		lines++
		cols = max(cols, delimiterColumns(line))
		for i := 0; i < len(line); i++ {
			switch line[i] {
			case '*', '_', '~':
				delims++
			case '[':
				open++
			case '`':
				j := i
				for j < len(line) && line[j] == '`' {
					j++
				}
				if runs == nil {
					runs = map[int]bool{}
				}
				runs[j-i] = true
				i = j - 1
			}
		}
		if emph+delims*delims > MaxEmphasisWork {
			return "This document has too many emphasis marks (*, _ or ~) in its paragraphs (at most 4,000 in one)"
		}
		if brackets+open*open > MaxBracketWork {
			return "This document has too many square brackets in its paragraphs (at most 3,000 in one)"
		}
		if code+len(runs)*chunkSize > MaxCodeSpanWork {
			return "This document has runs of backticks of too many lengths in its long paragraphs"
		}
		if cells+cols*lines > MaxTableCells {
			return "This document has tables of too many cells (columns times rows)"
		}
	}
	return ""
}

// delimiterColumns returns how many columns line has if it may be a
// table's delimiter row (only "|", "-", ":", ">", spaces and tabs, and a
// "|"): its runs of "-", or 0.
func delimiterColumns(line string) int {
	if strings.IndexByte(line, '|') < 0 {
		return 0
	}
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '-':
			if i == 0 || line[i-1] != '-' {
				n++
			}
		case '|', ':', '>', ' ', '\t':
		default:
			return 0
		}
	}
	return n
}

// nestsDeep reports whether line's block nesting (">" markers, list
// markers — "-", "*", "+" or a number and "." or ")" — followed by a
// space, and indentation, two columns a level) exceeds MaxNesting.
func nestsDeep(line string) bool {
	depth, cols := 0, 0
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '>':
			depth++
		case c == ' ':
			cols++
		case c == '\t':
			cols += 4
		case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && line[i+1] == ' ':
			depth++
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j+1 >= len(line) || line[j] != '.' && line[j] != ')' || line[j+1] != ' ' {
				return false
			}
			depth, i = depth+1, j
		default:
			return false
		}
		if depth+cols/2 > MaxNesting {
			return true
		}
	}
	return false
}

// fenceOf reports whether line starts a code fence, as CommonMark has it
// outside containers: indented under four spaces, three or more '`' or
// '~'. It returns the character, how many there are (0 for no fence) and
// the rest of the line.
func fenceOf(line string) (c byte, n int, info string) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) >= 4 || len(t) < 3 || t[0] != '`' && t[0] != '~' {
		return 0, 0, ""
	}
	c = t[0]
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 {
		return 0, 0, ""
	}
	return c, n, t[n:]
}

// Unfenced yields the lines of src (without their line feeds) that are
// not in a fenced code block nor one of its fences, each with whether a
// fenced block came before it since the line yielded before. Fences are
// found as CommonMark has them outside containers (fenceOf; a backtick
// fence's info holds no backtick, a fence closes at a line of its
// character at least as long, with nothing else): the lines of a fenced
// block in a block quote or a list item are yielded.
//
// A fence is skipped only where goldmark surely opens it at the top
// level: its opening line is not indented (an indented one may belong to
// a list item, which an unindented line ends, and the fence with it) and
// no HTML block may be open (raw HTML holds a fence line as text; a
// comment, a <script> or a <pre> even across blank lines). From the first
// fence line that fails this, every later line is yielded, fences too:
// Unfenced never leaves out a line goldmark reads as text, whatever the
// document, at the cost of counting some code.
func Unfenced(src string) iter.Seq2[string, bool] {
	return func(yield func(string, bool) bool) {
		var fenceC byte // the open fence's character
		fenceN := 0     // and how many (0: none is open)
		after := false
		html := ""      // what ends an HTML block that may be open ("\n": a blank line)
		unsure := false // a fence line was met that goldmark may not read as one
		for len(src) > 0 {
			line := src
			if i := strings.IndexByte(src, '\n'); i >= 0 {
				line, src = src[:i], src[i+1:]
			} else {
				src = ""
			}
			if !unsure {
				if c, n, info := fenceOf(line); n > 0 {
					switch {
					case fenceN == 0 && (c == '~' || strings.IndexByte(info, '`') < 0):
						if html != "" || line[0] == ' ' {
							unsure = true
							break
						}
						fenceC, fenceN, after = c, n, true
						continue
					case fenceN > 0 && c == fenceC && n >= fenceN && strings.TrimSpace(info) == "":
						fenceN = 0
						continue
					}
				}
			}
			if fenceN > 0 {
				continue
			}
			if !unsure {
				html = htmlBlockState(html, line)
			}
			if !yield(line, after) {
				return
			}
			after = false
		}
	}
}

// htmlBlockState returns what ends an HTML block that may be open after
// line, given end, what ended one that may have been open before it:
// "" for none, "\n" for a blank line (CommonMark's HTML blocks 6 and 7),
// or what a line must hold to end it (blocks 1 to 5; "|" between
// choices). It errs towards an open block: a line of under four spaces
// and "<" starts one.
func htmlBlockState(end, line string) string {
	if end != "" {
		switch {
		case end == "\n":
			if strings.TrimSpace(line) == "" {
				return ""
			}
			return end
		case endsHTML(strings.ToLower(line), end):
			return ""
		}
		return end
	}
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) >= 4 || !strings.HasPrefix(t, "<") {
		return ""
	}
	lower := strings.ToLower(t)
	for _, b := range []struct{ start, end string }{
		{"<!--", "-->"}, {"<![cdata[", "]]>"}, {"<?", "?>"}, {"<!", ">"},
		{"<script", rawEnd}, {"<pre", rawEnd}, {"<style", rawEnd}, {"<textarea", rawEnd},
	} {
		if strings.HasPrefix(lower, b.start) {
			if endsHTML(lower[len(b.start):], b.end) {
				return ""
			}
			return b.end
		}
	}
	return "\n"
}

// rawEnd ends CommonMark's HTML block 1 (<script>, <pre>, <style>,
// <textarea>): any of their closing tags.
const rawEnd = "</script>|</pre>|</style>|</textarea>"

// endsHTML reports whether lower holds one of end's choices.
func endsHTML(lower, end string) bool {
	for e := range strings.SplitSeq(end, "|") {
		if strings.Contains(lower, e) {
			return true
		}
	}
	return false
}
