package skilldiff

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// contextLines is the lines of context around a change, as diff -u.
const contextLines = 3

// splitLines cuts text into lines, each with its "\n" (a "\r" before it
// is part of the line); the last may have none. The lines share text's
// memory.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := make([]string, 0, strings.Count(text, "\n")+1)
	for text != "" {
		i := strings.IndexByte(text, '\n') + 1
		if i == 0 {
			i = len(text)
		}
		lines = append(lines, text[:i])
		text = text[i:]
	}
	return lines
}

// intern gives every distinct line of a and b one ID.
func intern(a, b []string) ([]int32, []int32) {
	ids := make(map[string]int32, min(len(a), 1024)) // grown as lines differ: a hint of len(a) costs repetitive text dearly
	conv := func(lines []string) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	return conv(a), conv(b)
}

// unified is the unified diff of text a to text b under the headers
// "--- aName" and "+++ bName", 3 lines of context, at most max bytes
// (cut at a line: truncated true). Lines are compared byte for byte: a
// line ending or a byte order mark changed is a change. A file's last
// line without "\n" is followed by "\ No newline at end of file", as
// diff -u writes it.
func unified(aName, bName, a, b string, maxEdits, max int) (out string, truncated bool) {
	al, bl := splitLines(a), splitLines(b)
	ai, bi := intern(al, bl)
	ops, _ := lineDiff(ai, bi, maxEdits)
	w := &capped{max: max}
	w.line("--- " + aName + "\n")
	w.line("+++ " + bName + "\n")
	for _, h := range hunks(ops) {
		w.line(h.header())
		x, y := h.a, h.b
		for i := h.start; i < h.end && !w.full; {
			if ops[i] == opEq {
				w.text(" ", al[x])
				x, y, i = x+1, y+1, i+1
				continue
			}
			// A change: its deletions, then its insertions, as diff -u.
			j, dels := i, 0
			for ; j < h.end && ops[j] != opEq; j++ {
				if ops[j] == opDel {
					dels++
				}
			}
			ins := j - i - dels
			for _, l := range al[x : x+dels] {
				w.text("-", l)
			}
			for _, l := range bl[y : y+ins] {
				w.text("+", l)
			}
			x, y, i = x+dels, y+ins, j
		}
	}
	return w.b.String(), w.full
}

// hunk is a run of ops [start, end) shown together, which starts at
// line a (0-based) of the old text and b of the new, and spans na and
// nb lines of each.
type hunk struct {
	start, end int
	a, b       int
	na, nb     int
}

// header is the hunk's "@@ -a,na +b,nb @@" line, as diff -u writes it:
// a count of 1 is left out, and an empty range names the line before it.
func (h hunk) header() string {
	return "@@ -" + hunkRange(h.a, h.na) + " +" + hunkRange(h.b, h.nb) + " @@\n"
}

func hunkRange(start, n int) string {
	switch n {
	case 0:
		return strconv.Itoa(start) + ",0"
	case 1:
		return strconv.Itoa(start + 1)
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(n)
}

// hunks groups the changes of ops with contextLines of equal lines
// around each: changes fewer than 2*contextLines+1 equal lines apart
// share a hunk.
func hunks(ops []op) []hunk {
	var out []hunk
	x, y := 0, 0     // lines of a and b before ops[i]
	var cur *hunk    // the hunk being grown
	lastChange := -1 // the op after the last change of cur
	for i, o := range ops {
		if o == opEq {
			x, y = x+1, y+1
			continue
		}
		if cur != nil && i-lastChange > 2*contextLines {
			cur.close(ops, lastChange)
			out = append(out, *cur)
			cur = nil
		}
		if cur == nil {
			pre := 0
			for pre < contextLines && i-pre-1 >= 0 && ops[i-pre-1] == opEq {
				pre++
			}
			cur = &hunk{start: i - pre, a: x - pre, b: y - pre}
		}
		if o == opDel {
			x++
		} else {
			y++
		}
		lastChange = i + 1
	}
	if cur != nil {
		cur.close(ops, lastChange)
		out = append(out, *cur)
	}
	return out
}

// close ends h with up to contextLines equal lines after the op
// lastChange-1, and counts its lines.
func (h *hunk) close(ops []op, lastChange int) {
	h.end = min(lastChange+contextLines, len(ops))
	for _, o := range ops[h.start:h.end] {
		if o != opIns {
			h.na++
		}
		if o != opDel {
			h.nb++
		}
	}
}

// capped builds a text of at most max bytes, whole lines only.
type capped struct {
	b    strings.Builder
	max  int
	full bool // a line did not fit: nothing more is written
}

func (c *capped) line(s string) { c.write("", s, "") }

// write writes prefix, s and suffix if they fit.
func (c *capped) write(prefix, s, suffix string) {
	if c.full {
		return
	}
	if c.b.Len()+len(prefix)+len(s)+len(suffix) > c.max {
		c.full = true
		return
	}
	c.b.WriteString(prefix)
	c.b.WriteString(s)
	c.b.WriteString(suffix)
}

// text writes one line of a file after its prefix (" ", "-" or "+"),
// and diff -u's marker when the line has no "\n".
func (c *capped) text(prefix, l string) {
	if strings.HasSuffix(l, "\n") {
		c.write(prefix, l, "")
		return
	}
	c.write(prefix, l, "\n\\ No newline at end of file\n")
}

// quotePath is a path as a header shows it: as it is, or quoted as Go
// (and git) quote a string when it holds a control character, a quote
// or a backslash, so a path never breaks a header line.
func quotePath(prefix, p string) string {
	if strings.IndexFunc(p, func(r rune) bool { return r < ' ' || r == 0x7f || r == '"' || r == '\\' }) >= 0 {
		return strconv.Quote(prefix + p)
	}
	return prefix + p
}

// names are a change's two header names: "a/PATH" and "b/PATH", or
// "/dev/null" for the side the file is not in.
func (c *Change) names() (string, string) {
	a, b := quotePath("a/", c.Path), quotePath("b/", c.Path)
	switch c.Kind {
	case Added:
		a = "/dev/null"
	case Removed:
		b = "/dev/null"
	}
	return a, b
}

// WriteUnified writes d as one text, as git diff does: each change's
// Unified in path order; for a binary file "Binary files a/PATH and
// b/PATH differ"; for a file not compared (over Options.MaxFileBytes,
// or past MaxTotalBytes) "Files a/PATH and b/PATH differ (not
// compared: …)"; a diff cut at a bound ends in a line "\ diff cut: …".
// Unchanged files are not written.
func (d *Diff) WriteUnified(w io.Writer) error {
	for i := range d.Changes {
		c := &d.Changes[i]
		a, b := c.names()
		var err error
		switch {
		case c.Binary:
			_, err = fmt.Fprintf(w, "Binary files %s and %s differ\n", a, b)
		case c.Unified == "" && c.Truncated:
			_, err = fmt.Fprintf(w, "Files %s and %s differ (not compared: %d and %d bytes, or past the diff's bounds)\n", a, b, c.FromSize, c.ToSize)
		default:
			_, err = io.WriteString(w, c.Unified)
			if err == nil && c.Truncated {
				_, err = io.WriteString(w, "\\ diff cut: the rest of this file's diff is not shown\n")
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}
