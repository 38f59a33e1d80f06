package ui

import (
	"bytes"
	"html/template"
	"net/url"
	"path"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/skillstore/skillstore/internal/markdown"
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
// Limits: goldmark's time grows faster than a document's size for some
// inputs, so a document is rendered only within internal/markdown's
// bounds (TooCostly) and shown as plain text, saying why, past them.
// Each version of a document is rendered once (UI.markdownOf).

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
	opts := []goldmark.Option{goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(linkPolicy{}, 1000)))}
	if token {
		opts = append(opts, goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(tokenImages{}, 100))))
	}
	return markdown.New(opts...)
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

// renderMarkdown renders src as HTML under the rules above, or as plain
// text, saying why, past markdown.TooCostly's bounds.
func renderMarkdown(md goldmark.Markdown, src string, base *linkBase) template.HTML {
	if why := markdown.TooCostly(src); why != "" {
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
