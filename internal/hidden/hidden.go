// Package hidden finds text in a skill that a model reads but a person
// looking at the file, or at its rendered Markdown, does not see: Unicode
// tag characters (which spell out ASCII invisibly), bidirectional
// controls (which reorder what is displayed), zero-width and filler
// characters, bytes smuggled in variation selectors, terminal escape
// sequences, and, in Markdown, what the renderer drops: HTML comments,
// raw HTML, unused link reference definitions. Published malicious skills
// have hidden instructions in each of these. The same characters in a
// file's or folder's name make the name display as another.
//
// Scan and ScanPaths are the API (Visible shows a name safely; EncodeTags
// writes what Scan decodes, for tests). Markdown is parsed as the pages
// parse it (internal/markdown), so the store, the publisher, the command
// and the pages share one scanner and one reading of Markdown.
package hidden

import (
	"fmt"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillstore/skillstore/internal/logtext"
)

// Kind names what a Finding found. Its values are stable words, written
// as they are in JSON (validate --json, published manifests).
type Kind string

// The kinds of Finding.
const (
	// TagCharacters is a run of Unicode tag characters (U+E0000–U+E007F);
	// Finding.Text is the ASCII text they spell.
	TagCharacters Kind = "tag-characters"
	// BidiControl is a bidirectional control: U+061C, U+200E, U+200F,
	// U+202A–U+202E or U+2066–U+2069.
	BidiControl Kind = "bidi-control"
	// ZeroWidth is an invisible character: U+200B–U+200D, U+2060–U+2064,
	// U+FEFF (except a byte order mark at the start of the text), U+180E.
	ZeroWidth Kind = "zero-width"
	// Filler is a character drawn as blank space that is no space: the
	// Hangul fillers U+115F, U+1160, U+3164 and U+FFA0.
	Filler Kind = "filler"
	// VariationSelectors is a run of two or more variation selectors
	// (U+FE00–U+FE0F, U+E0100–U+E01EF), invisible, which can carry a byte
	// each; Finding.Text is the bytes they encode (U+FE00 is 0, U+E0100
	// is 16), those outside printable ASCII written as "[1B]".
	VariationSelectors Kind = "variation-selectors"
	// ANSIEscape is a terminal escape sequence (ESC, U+001B, and what
	// follows it), which can hide or rewrite text in a terminal;
	// Finding.Text is the sequence, ESC written as "ESC".
	ANSIEscape Kind = "ansi-escape"
	// HTMLComment is an HTML comment in Markdown, outside code; Finding.Text
	// is the comment's text.
	HTMLComment Kind = "html-comment"
	// RawHTML is raw HTML in Markdown, outside code, that holds more than
	// bare tags: an HTML block (<div>…</div>, <script>, <style>), a tag
	// with attributes, a processing instruction (<?…?>), a declaration
	// (<!X…>) or CDATA; the renderer drops it. Finding.Text is the HTML.
	RawHTML Kind = "raw-html"
	// LinkDefinition is a link reference definition no link of the
	// document uses ("[//]: # (a comment)"), which the renderer drops;
	// Finding.Text is the definition.
	LinkDefinition Kind = "link-definition"
	// More ends a list cut at MaxFindings: Finding.Text is how many more
	// findings the text holds (in decimal), Line and Column are the first
	// one's.
	More Kind = "more"
)

// Version numbers what Scan and ScanPaths find: it changes when they find
// more, so that findings recorded by an earlier version (a published
// snapshot's) are found again rather than reused. Version 2 parses
// Markdown as the pages do and scans supporting Markdown files and names.
const Version = 2

// Limits of one Scan.
const (
	// MaxFindings is the most findings Scan lists for one text; a
	// finding of kind More then says how many more there are.
	MaxFindings = 100
	// MaxText is the most bytes of a Finding's Text (decoded tag text, a
	// comment's text): longer ones are cut at a rune boundary and end in
	// "…".
	MaxText = 200
)

// Finding is one piece of hidden text.
type Finding struct {
	// Path is the file the text is in, relative to the skill's folder.
	// Scan leaves it empty: its callers set it (ScanPaths sets it).
	Path string `json:"file"`
	// Line and Column are 1-based. Lines end at "\n", "\r\n" or a lone
	// "\r"; Column counts Unicode code points (not bytes, not display
	// cells) from the line's start, and a byte order mark at the start of
	// the text is not counted. Line is 0 for a finding in Path itself
	// (ScanPaths), and Column then counts code points of Path.
	Line   int `json:"line"`
	Column int `json:"column"`
	// Kind says what was found.
	Kind Kind `json:"kind"`
	// Text is what a person does not see: the decoded text of a run of tag
	// characters (characters outside printable ASCII written as
	// "[U+E007F]"), a comment's text (trimmed), or the code point found
	// ("U+200B"); at most MaxText bytes.
	Text string `json:"text"`
	// Message says what the finding is and what to do, in one sentence.
	Message string `json:"message"`
}

// Scan returns the hidden text in text, in the order it appears, at most
// MaxFindings findings and then one of kind More. markdown says text is
// Markdown (a SKILL.md, a supporting .md file): what the pages' renderer
// drops from it is a finding too — HTML comments, raw HTML, link
// reference definitions no link uses — read by the renderer's own parser
// (internal/markdown), so that code blocks and spans, escapes and
// indentation are what they are to the renderer. A comment holding only
// white space (`<!-- -->`, which separates two lists) and bare tags
// (<details>, </div>) hide nothing and are not findings. A document past
// the renderer's bounds (markdown.TooCostly: the pages show it as plain
// text) is not parsed: its HTML comments are findings wherever they are.
//
// These are not findings, since text in scripts that need them uses them:
// a zero-width joiner between two emoji or symbols (the previous one may
// carry a variation selector or a skin tone), a zero-width joiner or
// non-joiner between letters (or marks) of a script that joins or
// conjoins (Arabic, Syriac, N'Ko, Mongolian, the Brahmic scripts of South
// and South-East Asia, Tibetan), the tag characters of an emoji
// subdivision flag (U+1F3F4, 1 to 6 tag lower-case letters or digits,
// U+E007F), and a single variation selector (an emoji's U+FE0F, an
// ideographic variation sequence).
//
// Text without these characters and ESC costs one pass over its bytes
// (eight at a time where they are ASCII, and one search for ESC) and no
// allocation; Markdown is parsed only when it holds "<" before a letter,
// "!", "?" or "/", or "]:", outside fenced code blocks. Invalid UTF-8 is
// skipped over, not reported.
func Scan(text string, markdown bool) []Finding {
	start := 0
	if strings.HasPrefix(text, "\uFEFF") {
		start = len("\uFEFF")
	}
	chars, nChars := scanChars(text, start)
	escapes, nEscapes := scanEscapes(text, start)
	var dropped []raw
	nDropped := 0
	if markdown && mayHide(text[start:]) {
		dropped, nDropped = scanMarkdown(text, start)
	}
	if nChars+nEscapes+nDropped == 0 {
		return nil
	}
	all := append(append(chars, escapes...), dropped...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].off < all[j].off })
	total := nChars + nEscapes + nDropped
	all = all[:min(len(all), MaxFindings+1)]
	out := make([]Finding, 0, len(all))
	loc := locator{text: text, breaks: newLineBreaks(text), off: start, colOff: start, line: 1, col: 1}
	for k, r := range all {
		line, col := loc.at(r.off)
		if k == MaxFindings {
			n := strconv.Itoa(total - MaxFindings)
			out = append(out, Finding{Line: line, Column: col, Kind: More, Text: n,
				Message: n + " more findings in this file are not listed (at most " + strconv.Itoa(MaxFindings) + " are); remove the ones listed and check again."})
			break
		}
		out = append(out, r.finding(text, line, col))
	}
	return out
}

// raw is a finding before its position is worked out: the bytes
// text[off:end] and what they are.
type raw struct {
	off, end int
	kind     Kind
	r        rune   // the code point, for BidiControl, ZeroWidth and Filler
	body     string // a comment's text, raw HTML, a definition
}

// finding turns r into a Finding at line and col.
func (r raw) finding(text string, line, col int) Finding {
	f := Finding{Line: line, Column: col, Kind: r.kind}
	switch r.kind {
	case TagCharacters:
		f.Text = decodeTags(text[r.off:r.end])
		f.Message = "Invisible Unicode tag characters spell out text a model reads and a person does not see; remove them."
	case HTMLComment:
		f.Text = logtext.Clip(r.body, MaxText)
		f.Message = "An HTML comment is not shown when the Markdown is rendered, yet a model reads it; remove it or make its text visible."
	case RawHTML:
		f.Text = logtext.Clip(r.body, MaxText)
		f.Message = "Raw HTML is dropped when the Markdown is rendered, yet a model reads it; remove it or write its text as Markdown."
	case LinkDefinition:
		f.Text = logtext.Clip(r.body, MaxText)
		f.Message = "A link reference definition that no link uses is not shown when the Markdown is rendered, yet a model reads it; remove it."
	case VariationSelectors:
		f.Text = decodeSelectors(text[r.off:r.end])
		f.Message = "A run of variation selectors is invisible and can carry bytes a model may decode; remove it."
	case ANSIEscape:
		q := strconv.QuoteToASCII(text[r.off:r.end])
		f.Text = logtext.Clip(strings.ReplaceAll(q[1:len(q)-1], `\x1b`, "ESC"), MaxText)
		f.Message = "A terminal escape sequence can hide or rewrite text where the file is shown in a terminal; remove it."
	case Filler:
		f.Text = codePoint(r.r)
		f.Message = f.Text + " " + names[r.r] + " shows as blank space and is no space, so it can stand for words a person does not see; remove it."
	case BidiControl:
		f.Text = codePoint(r.r)
		f.Message = f.Text + " " + names[r.r] + " changes the order in which the text around it is displayed, so a person may read other words than a model does; remove it."
	case ZeroWidth:
		f.Text = codePoint(r.r)
		f.Message = f.Text + " " + names[r.r] + " is invisible, and can hide or split words where a person sees nothing; remove it."
	}
	return f
}

// names are the Unicode names of the bidirectional controls and
// zero-width characters.
var names = map[rune]string{
	0x061C: "ARABIC LETTER MARK", 0x200E: "LEFT-TO-RIGHT MARK", 0x200F: "RIGHT-TO-LEFT MARK",
	0x202A: "LEFT-TO-RIGHT EMBEDDING", 0x202B: "RIGHT-TO-LEFT EMBEDDING", 0x202C: "POP DIRECTIONAL FORMATTING",
	0x202D: "LEFT-TO-RIGHT OVERRIDE", 0x202E: "RIGHT-TO-LEFT OVERRIDE", 0x2066: "LEFT-TO-RIGHT ISOLATE",
	0x2067: "RIGHT-TO-LEFT ISOLATE", 0x2068: "FIRST STRONG ISOLATE", 0x2069: "POP DIRECTIONAL ISOLATE",
	0x200B: "ZERO WIDTH SPACE", 0x200C: "ZERO WIDTH NON-JOINER", 0x200D: "ZERO WIDTH JOINER",
	0x2060: "WORD JOINER", 0x2061: "FUNCTION APPLICATION", 0x2062: "INVISIBLE TIMES",
	0x2063: "INVISIBLE SEPARATOR", 0x2064: "INVISIBLE PLUS", 0xFEFF: "ZERO WIDTH NO-BREAK SPACE",
	0x180E: "MONGOLIAN VOWEL SEPARATOR",
	0x115F: "HANGUL CHOSEONG FILLER", 0x1160: "HANGUL JUNGSEONG FILLER", 0x3164: "HANGUL FILLER",
	0xFFA0: "HALFWIDTH HANGUL FILLER",
}

// scanChars finds the tag characters, bidirectional controls,
// zero-width and filler characters and runs of variation selectors of
// text[start:]: the first MaxFindings+1 of
// them, and how many there are. It reads eight ASCII bytes at a time, and
// other characters by their first two or three bytes (candidate); only a
// character Scan looks for is decoded.
func scanChars(text string, start int) (found []raw, total int) {
	n := len(text)
	n0 := n
	for i := start; ; {
		if i = skipASCII(text, i); i >= n {
			break
		}
		if !candidate(text, i) {
			i++
			for i < n && text[i]&0xC0 == 0x80 { // the character's other bytes
				i++
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		f := raw{off: i, end: i + size, r: r}
		switch {
		case r >= 0xE0000 && r <= 0xE007F:
			f.kind = TagCharacters
			for f.end < n {
				r2, s2 := utf8.DecodeRuneInString(text[f.end:])
				if r2 < 0xE0000 || r2 > 0xE007F {
					break
				}
				f.end += s2
			}
			if isFlag(text, f.off, f.end) {
				f.kind = ""
			}
		case isSelector(r):
			n := 1
			for f.end < n0 {
				r2, s2 := utf8.DecodeRuneInString(text[f.end:])
				if !isSelector(r2) {
					break
				}
				f.end += s2
				n++
			}
			if n >= 2 {
				f.kind = VariationSelectors
			}
		case isBidi(r):
			f.kind = BidiControl
		case isZeroWidth(r) && !joins(text, i, size, r):
			f.kind = ZeroWidth
		case isFiller(r):
			f.kind = Filler
		}
		i = f.end
		if f.kind == "" {
			continue
		}
		total++
		if len(found) <= MaxFindings {
			found = append(found, f)
		}
	}
	return found, total
}

// skipASCII returns the index of the first byte of text[i:] that is not
// ASCII, or len(text), reading eight bytes at a time.
func skipASCII(text string, i int) int {
	for ; i+8 <= len(text); i += 8 {
		b := text[i : i+8]
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		if w &= 0x8080808080808080; w != 0 {
			return i + bits.TrailingZeros64(w)>>3
		}
	}
	for i < len(text) && text[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// candidate reports whether the UTF-8 at text[i:] may encode a character
// Scan looks for, from its first bytes: U+061C (D8 9C), U+115F and
// U+1160 (E1 85), U+180E (E1 A0), U+200B–U+200F and U+202A–U+202E
// (E2 80), U+2060–U+2069 (E2 81), U+3164 (E3 85 A4), U+FE00–U+FE0F
// (EF B8), U+FEFF (EF BB), U+FFA0 (EF BE), and tag characters and
// U+E0100–U+E01EF (F3 A0). None of these first bytes is a continuation
// byte, so the scan may step over any other byte alone.
func candidate(text string, i int) bool {
	if i+1 >= len(text) {
		return false
	}
	switch b := text[i+1]; text[i] {
	case 0xD8:
		return b == 0x9C
	case 0xE1:
		return b == 0xA0 || b == 0x85
	case 0xE2:
		if i+2 >= len(text) {
			return false
		}
		c := text[i+2]
		return b == 0x80 && (c >= 0x8B && c <= 0x8F || c >= 0xAA && c <= 0xAE) || b == 0x81 && c >= 0xA0 && c <= 0xA9
	case 0xE3:
		return b == 0x85 && i+2 < len(text) && text[i+2] == 0xA4
	case 0xEF:
		return b == 0xBB || b == 0xB8 || b == 0xBE
	case 0xF3:
		return b == 0xA0
	}
	return false
}

func isFiller(r rune) bool { return r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0 }

func isSelector(r rune) bool { return r >= 0xFE00 && r <= 0xFE0F || r >= 0xE0100 && r <= 0xE01EF }

// decodeSelectors returns the bytes a run of variation selectors
// encodes: U+FE00–U+FE0F as 0–15, U+E0100–U+E01EF as 16–255; printable
// ASCII as it is, other bytes as "[1B]"; at most MaxText bytes.
func decodeSelectors(run string) string {
	var b strings.Builder
	for _, r := range run {
		if b.Len() > MaxText {
			break
		}
		c := byte(r - 0xFE00)
		if r >= 0xE0100 {
			c = byte(r - 0xE0100 + 16)
		}
		if c >= 0x20 && c < 0x7F {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "[%02X]", c)
		}
	}
	return logtext.Clip(b.String(), MaxText)
}

// scanEscapes finds the terminal escape sequences of text[start:]: ESC
// and, after it, a CSI sequence ("[", parameters, a final byte), an OSC
// one ("]" up to BEL or ESC \, at most 256 bytes) or one character.
func scanEscapes(text string, start int) (found []raw, total int) {
	for i := start; ; {
		j := strings.IndexByte(text[i:], 0x1B)
		if j < 0 {
			break
		}
		o := i + j
		e := o + 1
		switch {
		case e < len(text) && text[e] == '[':
			e++
			for e < len(text) && text[e] >= 0x20 && text[e] <= 0x3F {
				e++
			}
			if e < len(text) && text[e] >= 0x40 && text[e] <= 0x7E {
				e++
			}
		case e < len(text) && text[e] == ']':
			for e < len(text) && e-o < 256 && text[e] != 0x07 && text[e] != '\n' && !(text[e] == 0x1B && e > o+1) {
				e++
			}
			if e < len(text) && text[e] == 0x07 {
				e++
			} else if e+1 < len(text) && text[e] == 0x1B && text[e+1] == '\\' {
				e += 2
			}
		case e < len(text) && text[e] >= 0x20 && text[e] < 0x7F:
			e++
		}
		i = e
		total++
		if len(found) <= MaxFindings {
			found = append(found, raw{off: o, end: e, kind: ANSIEscape})
		}
	}
	return found, total
}

func isBidi(r rune) bool {
	return r == 0x061C || r == 0x200E || r == 0x200F || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

func isZeroWidth(r rune) bool {
	return r >= 0x200B && r <= 0x200D || r >= 0x2060 && r <= 0x2064 || r == 0xFEFF || r == 0x180E
}

// isFlag reports whether the tag characters text[off:end] end an emoji
// subdivision flag: they follow U+1F3F4 and are 1 to 6 tag lower-case
// letters or digits, then U+E007F CANCEL TAG.
func isFlag(text string, off, end int) bool {
	if !strings.HasSuffix(text[:off], "\U0001F3F4") || !strings.HasSuffix(text[:end], "\U000E007F") {
		return false
	}
	n := 0
	for _, r := range text[off : end-4] {
		if !(r >= 0xE0030 && r <= 0xE0039 || r >= 0xE0061 && r <= 0xE007A) {
			return false
		}
		n++
	}
	return n >= 1 && n <= 6
}

// joins reports whether the zero-width joiner or non-joiner r at
// text[i:i+size] does a job a reader needs: joining two emoji (a joiner
// only), or shaping letters of a script that uses it.
func joins(text string, i, size int, r rune) bool {
	if r != 0x200C && r != 0x200D {
		return false
	}
	before := baseBefore(text[:i])
	after, _ := utf8.DecodeRuneInString(text[i+size:])
	if r == 0x200D && emojiLike(before) && emojiLike(after) {
		return true
	}
	return joiningLetter(before) && joiningLetter(after)
}

// baseBefore returns the code point that text ends in, skipping back
// over up to four combining marks (a variation selector, Arabic vowel
// signs), or utf8.RuneError.
func baseBefore(text string) rune {
	for range 5 {
		r, size := utf8.DecodeLastRuneInString(text)
		if size == 0 || !unicode.IsMark(r) {
			return r
		}
		text = text[:len(text)-size]
	}
	return utf8.RuneError
}

// emojiLike reports emoji and other symbols (So) and the emoji skin tone
// modifiers (U+1F3FB–U+1F3FF); not U+FFFD, which stands for no text or
// invalid UTF-8.
func emojiLike(r rune) bool {
	return r >= 0x1F3FB && r <= 0x1F3FF || r != utf8.RuneError && unicode.Is(unicode.So, r)
}

// joiningScripts are the scripts whose text uses the zero-width joiner
// and non-joiner between letters.
var joiningScripts = []*unicode.RangeTable{
	unicode.Arabic, unicode.Syriac, unicode.Nko, unicode.Mongolian, unicode.Tibetan,
	unicode.Devanagari, unicode.Bengali, unicode.Gurmukhi, unicode.Gujarati, unicode.Oriya,
	unicode.Tamil, unicode.Telugu, unicode.Kannada, unicode.Malayalam, unicode.Sinhala,
	unicode.Myanmar, unicode.Khmer,
}

func joiningLetter(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsMark(r)) && unicode.IsOneOf(joiningScripts, r)
}

// EncodeTags writes ASCII text s in Unicode tag characters (each byte b as
// U+E0000+b), invisible to a reader: what decodeTags reads back, for
// tests and examples of what Scan finds. Bytes over 0x7F are dropped.
func EncodeTags(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c < 0x80 {
			b.WriteRune(0xE0000 + rune(c))
		}
	}
	return b.String()
}

// decodeTags returns the text a run of tag characters spells: U+E0020–
// U+E007E as the ASCII character 0xE0000 below them, others as
// "[U+E007F]"; at most MaxText bytes.
func decodeTags(run string) string {
	var b strings.Builder
	for _, r := range run {
		if b.Len() > MaxText {
			break
		}
		if r >= 0xE0020 && r <= 0xE007E {
			b.WriteByte(byte(r - 0xE0000))
		} else {
			b.WriteString("[" + codePoint(r) + "]")
		}
	}
	return logtext.Clip(b.String(), MaxText)
}

// codePoint writes r as "U+200B".
func codePoint(r rune) string { return fmt.Sprintf("U+%04X", r) }

// locator turns byte offsets, given in increasing order, into lines and
// columns, reading each byte of the text about once.
type locator struct {
	text   string
	breaks lineBreaks
	off    int // line breaks before off have been counted
	line   int // the line off is on
	colOff int // an offset on that line whose column is col
	col    int
}

// at returns the line and column of offset o, o ≥ every offset before.
func (l *locator) at(o int) (line, col int) {
	for {
		brk, next := l.breaks.after(l.off)
		if brk >= o {
			break
		}
		l.line++
		l.off, l.colOff, l.col = next, next, 1
	}
	l.off = o
	l.col += utf8.RuneCountInString(l.text[l.colOff:o])
	l.colOff = o
	return l.line, l.col
}

// lineBreaks finds the line breaks of text ("\n", "\r\n", a lone "\r"),
// asked in increasing order, searching each byte about once.
type lineBreaks struct {
	text   string
	nl, cr int // the next '\n' and '\r' found, or len(text); -1 before the first search
}

func newLineBreaks(text string) lineBreaks { return lineBreaks{text: text, nl: -1, cr: -1} }

// after returns where the first line break at or after i starts and
// where the line after it starts: (len(text), len(text)) if there is none.
func (b *lineBreaks) after(i int) (brk, next int) {
	if b.nl < i {
		b.nl = indexFrom(b.text, i, '\n')
	}
	if b.cr < i {
		b.cr = indexFrom(b.text, i, '\r')
	}
	switch {
	case b.cr < b.nl && b.cr+1 == b.nl:
		return b.cr, b.nl + 1
	case b.cr < b.nl:
		return b.cr, b.cr + 1
	case b.nl < len(b.text):
		return b.nl, b.nl + 1
	}
	return len(b.text), len(b.text)
}

// indexFrom returns the index of the first c in text[i:], or len(text).
func indexFrom(text string, i int, c byte) int {
	if k := strings.IndexByte(text[i:], c); k >= 0 {
		return i + k
	}
	return len(text)
}
