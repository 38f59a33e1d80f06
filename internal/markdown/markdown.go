// Package markdown is the project's one reading of Markdown: the goldmark
// configuration the pages render with (CommonMark and GitHub's tables,
// strikethrough, task lists and autolinks), and the bounds within which a
// document is parsed at all. The pages (package ui) render with New; the
// hidden-text scanner (internal/hidden) parses with Parse, so what it
// reports as hidden is what the pages hide.
//
// goldmark's time grows faster than a document's size for some inputs
// (TooCostly says which, and bounds them): a caller parses a document
// only when TooCostly returns "".
package markdown

import (
	"path"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// New returns goldmark as the pages use it: CommonMark with GitHub's
// extensions (extension.GFM), then opts. Its renderer writes no raw HTML
// (goldmark's default: an HTML comment stands in for each piece).
func New(opts ...goldmark.Option) goldmark.Markdown {
	return goldmark.New(append([]goldmark.Option{goldmark.WithExtensions(extension.GFM)}, opts...)...)
}

// std parses for Parse.
var std = New()

// Parse parses src as the pages do, before their link rules (which change
// where links point, not what text is shown). Call it only on a document
// TooCostly accepts.
func Parse(src []byte, opts ...parser.ParseOption) ast.Node {
	return std.Parser().Parse(text.NewReader(src), opts...)
}

// IsPath reports whether the file at p is Markdown to the pages: its name
// ends in ".md" or ".markdown", in any case.
func IsPath(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown":
		return true
	}
	return false
}
