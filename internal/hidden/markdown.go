package hidden

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/util"

	"github.com/skillstore/skillstore/internal/markdown"
)

// mayHide reports whether Markdown text may hold something the renderer
// drops: a "<" that may start HTML (a letter, "!", "?" or "/" after it)
// or "]:" (a link reference definition). Only such text is looked at
// further (scanMarkdown). It costs two searches.
func mayHide(text string) bool { return mayStartHTML(text) || strings.Contains(text, "]:") }

// unfencedMayHide is mayHide of the lines of text outside fenced code
// blocks (markdown.Unfenced): only a document that holds such a line is
// parsed. It costs a pass over its lines.
func unfencedMayHide(text string) bool {
	for line := range markdown.Unfenced(text) {
		if mayHide(line) {
			return true
		}
	}
	return false
}

// mayStartHTML reports whether text holds a "<" before a letter, "!",
// "?" or "/".
func mayStartHTML(text string) bool {
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '<')
		if j < 0 {
			return false
		}
		i += j + 1
		if i < len(text) {
			if c := text[i] | 0x20; c >= 'a' && c <= 'z' || text[i] == '!' || text[i] == '?' || text[i] == '/' {
				return true
			}
		}
	}
}

// usedRefs is a parser context that records the link references links
// use.
type usedRefs struct {
	parser.Context
	used map[string]bool
}

func (u *usedRefs) Reference(label string) (parser.Reference, bool) {
	r, ok := u.Context.Reference(label)
	if ok {
		u.used[label] = true
	}
	return r, ok
}

// scanMarkdown finds what the pages' renderer (internal/markdown's
// parse) drops from Markdown text[start:], which mayHide: the first
// MaxFindings+1 of them, and how many there are. It parses only a
// document where that may be outside fenced code blocks. A document past markdown.TooCostly's
// bounds is not parsed (the pages show it as plain text): each of its
// HTML comments is a finding, wherever it is.
func scanMarkdown(text string, start int) (found []raw, total int) {
	add := func(r raw) {
		total++
		if len(found) <= MaxFindings {
			found = append(found, r)
		}
	}
	src := text[start:]
	if !unfencedMayHide(src) && (!strings.Contains(src, "<!--") || markdown.TooCostly(src) == "") {
		return nil, 0 // what may hide is in fenced code, shown as it is
	}
	if markdown.TooCostly(src) != "" {
		htmlIn(text, start, len(text), true, add)
		return found, total
	}
	pc := &usedRefs{Context: parser.NewContext(), used: map[string]bool{}}
	doc := markdown.Parse([]byte(src), parser.WithContext(pc))
	var defs []*ast.LinkReferenceDefinition
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.HTMLBlock:
			lines := n.Lines()
			a, b := -1, -1
			if lines.Len() > 0 {
				a, b = lines.At(0).Start, lines.At(lines.Len()-1).Stop
			}
			if n.HasClosure() {
				if a < 0 {
					a = n.ClosureLine.Start
				}
				b = n.ClosureLine.Stop
			}
			if a >= 0 {
				htmlIn(text, start+a, start+b, false, add)
			}
		case *ast.RawHTML:
			if n.Segments.Len() > 0 {
				htmlIn(text, start+n.Segments.At(0).Start, start+n.Segments.At(n.Segments.Len()-1).Stop, false, add)
			}
		case *ast.LinkReferenceDefinition:
			defs = append(defs, n) // used or not, known once the inlines are parsed
		}
		return ast.WalkContinue, nil
	})
	for _, d := range defs {
		if pc.used[util.ToLinkReference(d.Label)] || d.Lines().Len() == 0 {
			continue
		}
		lines := d.Lines()
		a, b := start+lines.At(0).Start, start+lines.At(lines.Len()-1).Stop
		add(raw{off: a, end: b, kind: LinkDefinition, body: strings.TrimSpace(text[a:b])})
	}
	return found, total
}

// bareTag matches an HTML tag with no attributes: "<div>", "</div>",
// "<br/>". The renderer drops it, and with it nothing a person would read.
var bareTag = regexp.MustCompile(`</?[A-Za-z][A-Za-z0-9-]*\s*/?>`)

// htmlIn adds the findings of raw HTML text[a:b], which the renderer
// drops: each HTML comment that is not blank, and the rest, if it holds
// more than bare tags and characters that show nothing (white space,
// format characters), as one RawHTML finding (where it starts).
// With commentsOnly, only the comments.
func htmlIn(text string, a, b int, commentsOnly bool, add func(raw)) {
	var rest strings.Builder
	restAt := -1
	note := func(from, to int) {
		s := text[from:to]
		if t := strings.TrimLeft(s, " \t\r\n"); t != "" && restAt < 0 {
			restAt = from + len(s) - len(t)
		}
		rest.WriteString(s)
	}
	for i := a; i < b; {
		j := strings.Index(text[i:b], "<!--")
		if j < 0 {
			note(i, b)
			break
		}
		o := i + j
		note(i, o)
		body, end := commentAt(text[:b], o)
		if body = strings.TrimSpace(body); body != "" {
			add(raw{off: o, end: end, kind: HTMLComment, body: body})
		}
		i = end
	}
	if commentsOnly || restAt < 0 {
		return
	}
	shown := strings.TrimSpace(rest.String())
	if strings.IndexFunc(bareTag.ReplaceAllString(shown, ""), visible) < 0 {
		return // bare tags, and characters no one sees anyway (each a finding of its own)
	}
	add(raw{off: restAt, end: b, kind: RawHTML, body: shown})
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

// visible reports whether r shows as something: a graphic character that
// is not a space.
func visible(r rune) bool { return unicode.IsGraphic(r) && !unicode.IsSpace(r) }
