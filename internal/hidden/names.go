package hidden

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ScanPaths returns the hidden characters in the names of the files and
// folders of paths (slash-separated, relative to a skill's folder): those
// Scan finds in text (tag characters, bidirectional controls, zero-width
// and filler characters, runs of variation selectors, ESC), which make a
// name display as another ("invoice\u202Efdp.exe" shows as
// "invoiceexe.pdf"). Each Finding has Path set to the file's path, Line 0
// and Column the code point of the path where the character is; a
// folder's name is reported once, with the first path under it (in the
// order given). Findings are not capped. Paths without such characters
// cost one pass over their bytes and no allocation.
func ScanPaths(paths []string) []Finding {
	var out []Finding
	var seen map[string]bool // characters in folders' names reported, by the path up to them
	for _, p := range paths {
		if !odd(p) {
			continue
		}
		chars, _ := scanChars(p, 0)
		escapes, _ := scanEscapes(p, 0)
		for _, r := range append(chars, escapes...) {
			if strings.IndexByte(p[r.end:], '/') >= 0 { // in a folder's name
				if seen[p[:r.end]] {
					continue
				}
				if seen == nil {
					seen = map[string]bool{}
				}
				seen[p[:r.end]] = true
			}
			f := r.finding(p, 0, utf8.RuneCountInString(p[:r.off])+1)
			f.Path = p
			f.Message = "The name of this file or of a folder it is in holds " + nameWhat(r) + ", so the name may display as other text; rename it."
			out = append(out, f)
		}
	}
	return out
}

// nameWhat says what r, found in a name, is.
func nameWhat(r raw) string {
	switch r.kind {
	case TagCharacters:
		return "invisible tag characters"
	case VariationSelectors:
		return "a run of invisible variation selectors"
	case ANSIEscape:
		return "a terminal escape sequence"
	}
	return codePoint(r.r) + " " + names[r.r]
}

// odd reports whether s holds a byte that may start a character Visible
// escapes: a control byte, or one Scan's character scan looks at.
func odd(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7F || c == 0xC2 && i+1 < len(s) && s[i+1] < 0xA0 || candidate(s, i) {
			return true
		}
	}
	return false
}

// Visible returns s with each character that could make it display as
// other text written as its code point, "\u202E" or "\U000E0041": the
// characters ScanPaths finds, every variation selector, and control
// characters. A page shows a file's name through it. Other text is
// returned as it is, without allocating.
func Visible(s string) string {
	if !odd(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 0xE0000 && r <= 0xE007F, isBidi(r), isZeroWidth(r), isFiller(r), isSelector(r), unicode.IsControl(r):
			if r > 0xFFFF {
				fmt.Fprintf(&b, `\U%08X`, r)
			} else {
				fmt.Fprintf(&b, `\u%04X`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
