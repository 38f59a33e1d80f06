package main

import (
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

// TestDocFiles: an archive carries README.md, BENCHMARKS.md and every
// file under docs/ in path order, and no hidden file; a folder that is not
// the repository's root is refused.
func TestDocFiles(t *testing.T) {
	repo := fstest.MapFS{
		"README.md":               {Data: []byte("# skillstore\n")},
		"BENCHMARKS.md":           {Data: []byte("# Benchmarks\n")},
		"docs/trust.md":           {Data: []byte("# Trust\n")},
		"docs/access.md":          {Data: []byte("# Access\n")},
		"docs/img/flow.svg":       {Data: []byte("<svg/>")},
		"docs/.draft.md":          {Data: []byte("not ready")},
		"docs/.notes/a.md":        {Data: []byte("not ready")},
		"go.mod":                  {Data: []byte("module x\n")},
		"internal/release/doc.md": {Data: []byte("not a page")},
	}
	got, err := docFiles(repo)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got {
		if e.mode != 0o644 || string(e.data) != string(repo[e.name].Data) {
			t.Errorf("%s: mode %o, data %q; want 644 and the file's bytes", e.name, e.mode, e.data)
		}
		names = append(names, e.name)
	}
	want := []string{"README.md", "BENCHMARKS.md", "docs/access.md", "docs/img/flow.svg", "docs/trust.md"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}

	for _, drop := range []string{"README.md", "BENCHMARKS.md"} {
		less := fstest.MapFS{}
		for k, v := range repo {
			if k != drop {
				less[k] = v
			}
		}
		if _, err := docFiles(less); err == nil {
			t.Errorf("without %s: no error", drop)
		}
	}
	if _, err := docFiles(fstest.MapFS{"README.md": {}, "BENCHMARKS.md": {}, "docs/.draft.md": {}}); err == nil || !strings.Contains(err.Error(), "docs/ holds no file") {
		t.Errorf("docs/ with only a hidden file: %v, want an error saying it holds no file", err)
	}
}

// linkPattern is a Markdown inline link or image: [text](target);
// codeSpan is inline code, where such text is no link.
var (
	linkPattern = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpan    = regexp.MustCompile("`[^`]*`")
)

// TestDocLinks: every relative link in the documentation a release carries
// (README.md, BENCHMARKS.md, docs/) points at a file of that same set, so
// it resolves both in the repository and in an unpacked archive; a link
// with #anchor names a heading of its target, as GitHub makes anchors.
func TestDocLinks(t *testing.T) {
	root, err := os.OpenRoot("../..")
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	files, err := docFiles(root.FS())
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f.name, ".md") {
			anchors[f.name] = headingAnchors(string(f.data))
		}
	}
	carried := map[string]bool{}
	for _, f := range files {
		carried[f.name] = true
	}
	links := 0
	for _, f := range files {
		if !strings.HasSuffix(f.name, ".md") {
			continue
		}
		for i, line := range proseLines(string(f.data)) {
			for _, m := range linkPattern.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				file, anchor, _ := strings.Cut(target, "#")
				where := fmt.Sprintf("%s:%d: link %q", f.name, i+1, target)
				if file == "" {
					file = f.name
				} else {
					file = path.Join(path.Dir(f.name), file)
				}
				if !carried[file] {
					if _, err := root.Stat(file); err != nil {
						t.Errorf("%s: %s does not exist", where, file)
					} else {
						t.Errorf("%s: %s is not carried in the release archives (docFiles)", where, file)
					}
					continue
				}
				if anchor != "" && !anchors[file][anchor] {
					t.Errorf("%s: %s has no heading whose anchor is #%s", where, file, anchor)
				}
			}
		}
	}
	if links < 20 {
		t.Errorf("found %d relative links; the link pattern no longer matches the documentation", links)
	}
}

// proseLines are the lines of a Markdown document, with those inside
// fenced code blocks blanked (line numbers kept).
func proseLines(doc string) []string {
	lines := strings.Split(doc, "\n")
	code := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			code = !code
			lines[i] = ""
		} else if code {
			lines[i] = ""
		}
	}
	return lines
}

// headingAnchors are the anchors GitHub gives a document's ATX headings:
// the text lowercased, links reduced to their text, spaces made hyphens,
// every character but letters, digits, '-' and '_' dropped; a repeated
// anchor takes -1, -2, … .
func headingAnchors(doc string) map[string]bool {
	link := regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	seen := map[string]int{}
	out := map[string]bool{}
	for _, l := range proseLines(doc) {
		text, ok := strings.CutPrefix(strings.TrimLeft(l, "#"), " ")
		if !ok || !strings.HasPrefix(l, "#") || len(l)-len(strings.TrimLeft(l, "#")) > 6 {
			continue
		}
		text = link.ReplaceAllString(strings.TrimSpace(text), "$1")
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestHeadingAnchors: anchors are made as GitHub makes them.
func TestHeadingAnchors(t *testing.T) {
	doc := "# Sources\n\n## Fleet: git, .well-known, OCI\n\n```sh\n# not a heading\n```\n\n" +
		"### The store (`store/bench_test.go`)\n\n#### See [trust.md](trust.md) — signed\n\n## Sources\n\n#Not a heading\n"
	got := headingAnchors(doc)
	want := map[string]bool{"sources": true, "fleet-git-well-known-oci": true, "the-store-storebench_testgo": true,
		"see-trustmd--signed": true, "sources-1": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("anchors (-want +got):\n%s", diff)
	}
}
