package ui

import (
	"bytes"
	"html/template"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Markdown is rendered for people with goldmark: CommonMark and GitHub's
// tables, strikethrough, task lists and autolinks. A skill's text is
// untrusted, so:
//
//   - raw HTML is never passed through (goldmark's default renderer leaves
//     it out, writing an HTML comment in its place);
//   - a link keeps its target only when it is http, https or mailto, or a
//     relative path to a file of the same skill that is served (it then
//     points at that file's page); any other link (javascript:, data:,
//     file:, a path out of the skill, a hidden or missing file, a
//     protocol-relative URL) is rendered as its text alone;
//   - an image is shown only from a file of the same skill; any other image
//     is rendered as its alternative text, so a page never fetches from
//     another host (the Content-Security-Policy would refuse it anyway).
//
// Limits: goldmark's time grows with the square of some inputs (100,000
// unclosed "[a](" take it 24 s; 1,000 levels of nested lists, 1 s), so a
// document is rendered as Markdown only within these bounds, and shown as
// plain text, saying why, past them (plainReason). Within them the worst
// input measured renders in under 100 ms.
const (
	maxMarkdownBytes = 512 << 10 // a document's size
	maxNesting       = 64        // block quotes and lists, one in another
	maxBrackets      = 4096      // "[": links, images, references
)

// linkBase is what a document's relative links resolve against.
type linkBase struct {
	skill string          // the skill's name
	dir   string          // the document's folder in the skill, "." for its root
	files map[string]bool // the files the skill serves, by path
	// fingerprint hashes the paths of files, for caches of what was rendered.
	fingerprint uint64
}

var baseKey = parser.NewContextKey()

// newMarkdown returns the renderer. With token, images are written with
// data-src instead of src: the page's script fetches them with the
// token, which an <img> cannot send.
func newMarkdown(token bool) goldmark.Markdown {
	opts := []goldmark.Option{
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(linkPolicy{}, 1000))),
	}
	if token {
		opts = append(opts, goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(tokenImages{}, 100))))
	}
	return goldmark.New(opts...)
}

// tokenImages renders an image for a page whose script loads it.
type tokenImages struct{}

func (tokenImages) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindImage, func(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		n := node.(*ast.Image)
		w.WriteString(`<img data-src="`)
		w.Write(util.EscapeHTML(util.URLEscape(n.Destination, true)))
		w.WriteString(`" alt="`)
		w.WriteString(template.HTMLEscapeString(plainText(n, source)))
		w.WriteString(`">`)
		return ast.WalkSkipChildren, nil
	})
}

// plainText is the text of n's descendants (an image's alternative text).
func plainText(n ast.Node, source []byte) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(source))
			if c.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		default:
			b.WriteString(plainText(c, source))
		}
	}
	return b.String()
}

// renderMarkdown renders src as HTML under the rules above.
func renderMarkdown(md goldmark.Markdown, src string, base *linkBase) template.HTML {
	if why := plainReason(src); why != "" {
		return template.HTML("<p class=\"note\">" + template.HTMLEscapeString(why) + "; it is shown as plain text.</p><pre class=\"plain\">" +
			template.HTMLEscapeString(src) + "</pre>")
	}
	var buf bytes.Buffer
	pc := parser.NewContext()
	pc.Set(baseKey, base)
	if err := md.Convert([]byte(src), &buf, parser.WithContext(pc)); err != nil {
		return template.HTML("<pre class=\"plain\">" + template.HTMLEscapeString(src) + "</pre>")
	}
	return template.HTML(buf.String()) // goldmark escapes text and drops raw HTML; linkPolicy vets every URL
}

// plainReason says why src is not rendered as Markdown, or "" when it is.
func plainReason(src string) string {
	switch {
	case len(src) > maxMarkdownBytes:
		return "This document is over " + strconv.Itoa(maxMarkdownBytes>>10) + " KiB"
	case strings.Count(src, "[") > maxBrackets:
		return "This document has over " + strconv.Itoa(maxBrackets) + " square brackets"
	case tooDeep(src):
		return "This document nests block quotes or lists over " + strconv.Itoa(maxNesting) + " levels deep"
	}
	return ""
}

// tooDeep reports a line whose block nesting (">" markers, list markers —
// "-", "*", "+" or a number and "." or ")" — followed by a space, and
// indentation, two columns a level) exceeds maxNesting. Lines in fenced
// code blocks nest nothing and are not counted.
func tooDeep(src string) bool {
	var fence string // the open fence's marker, if any
	for len(src) > 0 {
		line := src
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = ""
		}
		if t := strings.TrimLeft(line, " "); len(line)-len(t) < 4 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
			switch {
			case fence == "":
				fence = t[:3]
			case strings.HasPrefix(t, fence):
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		depth, cols := 0, 0
	scan:
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
					break scan
				}
				depth, i = depth+1, j
			default:
				break scan
			}
			if depth+cols/2 > maxNesting {
				return true
			}
		}
	}
	return false
}

// linkPolicy is the AST transformer that applies the link and image rules.
type linkPolicy struct{}

func (linkPolicy) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	base, _ := pc.Get(baseKey).(*linkBase)
	var drop []ast.Node
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			if dest, ok := base.link(string(n.Destination), false); ok {
				n.Destination = []byte(dest)
			} else {
				drop = append(drop, n)
			}
		case *ast.Image:
			if dest, ok := base.link(string(n.Destination), true); ok {
				n.Destination = []byte(dest)
			} else {
				drop = append(drop, n)
			}
		case *ast.AutoLink:
			dest := string(n.URL(reader.Source()))
			if n.AutoLinkType == ast.AutoLinkEmail {
				dest = "mailto:" + dest // as the renderer writes it
			}
			if _, ok := base.link(dest, false); !ok {
				drop = append(drop, n)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, n := range drop {
		unwrap(n, reader.Source())
	}
}

// unwrap replaces n by its children (a link's text, an image's alternative
// text), or an autolink by its text.
func unwrap(n ast.Node, source []byte) {
	parent := n.Parent()
	if parent == nil {
		return
	}
	if al, ok := n.(*ast.AutoLink); ok {
		parent.ReplaceChild(parent, n, ast.NewString(al.Label(source)))
		return
	}
	for c := n.FirstChild(); c != nil; {
		next := c.NextSibling()
		parent.InsertBefore(parent, n, c)
		c = next
	}
	parent.RemoveChild(parent, n)
}

// link returns what dest may point to on a page, and whether it may be a
// link (an image, with image) at all.
func (b *linkBase) link(dest string, image bool) (string, bool) {
	dest = strings.TrimSpace(dest)
	if dest == "" || strings.HasPrefix(dest, "//") || strings.ContainsAny(dest, "\\\x00") {
		return "", false
	}
	u, err := url.Parse(dest)
	if err != nil {
		return "", false
	}
	if u.Scheme != "" || u.Host != "" || u.Opaque != "" {
		switch strings.ToLower(u.Scheme) {
		case "http", "https":
			return dest, !image && u.Host != ""
		case "mailto":
			return dest, !image
		}
		return "", false
	}
	if u.Path == "" { // "#section", "?x": this page
		return dest, !image && u.RawQuery == ""
	}
	if b == nil || strings.HasPrefix(u.Path, "/") {
		return "", false
	}
	p := path.Join(b.dir, u.Path)
	if p == ".." || strings.HasPrefix(p, "../") || !b.files[p] {
		return "", false // out of the skill, hidden, or not served
	}
	if image {
		return imageURL(b.skill, p), true
	}
	out := fileURL(b.skill, p)
	if u.Fragment != "" {
		out += "#" + url.PathEscape(u.Fragment)
	}
	return out, true
}
