package hidden

import "strings"

// region is text[start:end], a fenced code block or an inline code span.
type region struct{ start, end int }

// scanComments finds the HTML comments of Markdown text[start:] outside
// code: the first MaxFindings+1 of them, and how many there are.
func scanComments(text string, start int) (found []raw, total int) {
	code := codeRegions(text, start)
	k := 0
	for i := start; ; {
		j := strings.Index(text[i:], "<!--")
		if j < 0 {
			break
		}
		o := i + j
		for k < len(code) && code[k].end <= o {
			k++
		}
		if k < len(code) && code[k].start <= o {
			i = code[k].end // in code: shown as it is
			continue
		}
		body, end := commentAt(text, o)
		i = end
		body = strings.TrimSpace(body)
		if body == "" {
			continue // hides nothing
		}
		total++
		if len(found) <= MaxFindings {
			found = append(found, raw{off: o, end: end, kind: HTMLComment, body: body})
		}
	}
	return found, total
}

// commentAt returns the text of the comment that starts at text[o:] with
// "<!--", and where it ends: after its "-->", or at the end of the text
// for a comment never closed. "<!-->" and "<!--->" are empty comments.
func commentAt(text string, o int) (body string, end int) {
	rest := text[o+len("<!--"):]
	switch {
	case strings.HasPrefix(rest, ">"):
		return "", o + len("<!-->")
	case strings.HasPrefix(rest, "->"):
		return "", o + len("<!--->")
	}
	k := strings.Index(rest, "-->")
	if k < 0 {
		return rest, len(text)
	}
	return rest[:k], o + len("<!--") + k + len("-->")
}

// codeRegions returns the fenced code blocks and inline code spans of
// Markdown text[start:], in order. Paragraphs (for code spans) are runs
// of lines that are not blank and not in a fence.
func codeRegions(text string, start int) []region {
	var out []region
	var fence struct {
		open  bool
		char  byte
		n     int
		start int
	}
	para := -1 // where the current paragraph starts, if in one
	breaks := newLineBreaks(text)
	for ls := start; ls < len(text); {
		le, next := breaks.after(ls)
		line := strings.TrimLeft(text[ls:le], " \t")
		if fence.open {
			if c, n, info := fenceOf(line); c == fence.char && n >= fence.n && strings.TrimSpace(info) == "" {
				out = append(out, region{fence.start, next})
				fence.open = false
			}
			ls = next
			continue
		}
		c, n, info := fenceOf(line)
		switch {
		case n > 0 && !(c == '`' && strings.IndexByte(info, '`') >= 0):
			if para >= 0 {
				out, para = codeSpans(text, para, ls, out), -1
			}
			fence.open, fence.char, fence.n, fence.start = true, c, n, ls
		case strings.TrimSpace(line) == "":
			if para >= 0 {
				out, para = codeSpans(text, para, ls, out), -1
			}
		case para < 0:
			para = ls
		}
		ls = next
	}
	if fence.open {
		out = append(out, region{fence.start, len(text)})
	}
	if para >= 0 {
		out = codeSpans(text, para, len(text), out)
	}
	return out
}

// fenceOf reports whether line (its indentation removed) starts with a
// code fence: three or more '`' or '~'. It returns the character, how
// many there are (0 for no fence) and the rest of the line.
func fenceOf(line string) (c byte, n int, info string) {
	if len(line) < 3 || line[0] != '`' && line[0] != '~' {
		return 0, 0, ""
	}
	c = line[0]
	for n < len(line) && line[n] == c {
		n++
	}
	if n < 3 {
		return 0, 0, ""
	}
	return c, n, line[n:]
}

// codeSpans appends the inline code spans of the paragraph text[ps:pe]
// to out: a run of backticks opens a span that the next run of as many
// backticks closes; a run that no later run matches is plain text.
func codeSpans(text string, ps, pe int, out []region) []region {
	type run struct{ at, n int }
	var runs []run
	for i := ps; i < pe; {
		j := strings.IndexByte(text[i:pe], '`')
		if j < 0 {
			break
		}
		a := i + j
		b := a
		for b < pe && text[b] == '`' {
			b++
		}
		runs = append(runs, run{a, b - a})
		i = b
	}
	if len(runs) < 2 {
		return out
	}
	// next[k] is the first run after run k as long as it, or -1.
	next := make([]int, len(runs))
	last := map[int]int{}
	for k := len(runs) - 1; k >= 0; k-- {
		next[k] = -1
		if m, ok := last[runs[k].n]; ok {
			next[k] = m
		}
		last[runs[k].n] = k
	}
	for k := 0; k < len(runs); {
		m := next[k]
		if m < 0 {
			k++
			continue
		}
		out = append(out, region{runs[k].at, runs[m].at + runs[m].n})
		k = m + 1
	}
	return out
}
