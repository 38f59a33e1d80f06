package store

import (
	"reflect"
	"strings"
	"testing"
)

var frontmatterCorpus = []string{
	"name: a\ndescription: b\n",
	"name: pdf\ndescription: Extract text from PDFs. Use when the user mentions PDFs.\nlicense: MIT\nmetadata:\n  author: x\n  version: \"1.0\"\n",
	"name: a\ndescription: it's C# code, a:b and 50% done\nallowed-tools: Bash(git:*) Read\nx-custom: kept\n",
	"name: a\nmetadata:\n  version: 1.0\n  enabled: true\n  n: 0x1F\ndescription: d\n",
	"name: a\ndescription: multi\n  line\n",
	"name: a\ndescription: >-\n  folded\n",
	"name: a\ndescription: 'quoted: yes'\n",
	"name: a\ndescription: x # comment\n",
	"name: ~\ndescription: null\n",
	"name: a\nname: b\ndescription: c\n",
	"name: a\nmetadata:\ndescription: c\n",
	"name: a\nmetadata:\n  a: b\n   c: d\n",
	"name: [a, b]\ndescription: x\n",
	"name: a\r\ndescription: b\r\n",
	"name: a\ndescription: ✓ unicode first\n",
	"name: a\ndescription: has\u2028separator\n",
	"name: a\ndescription: has\u0085nel\n",
	"name:a\n",
	"- a\n- b\n",
	"name: a\n\ndescription: blank line above\n",
	"name: true\ndescription: 123\n",
	"key with space: x\n",
	"metadata:\n  k: v\n",
	"description: ends with colon:\n",
	"description: -leading dash\n",
	"description: a  \n",
	"name: 'single'\ndescription: \"double: with colon # and hash\"\nmetadata:\n  version: \"1.0\"\n",
	"description: \"esc\\\"aped\"\n",
	"description: 'it''s'\n",
	"description: \" padded \"\n",
	"description: \"\"\n",
}

// TestParseSimpleAgrees checks the fast path against the YAML parser.
func TestParseSimpleAgrees(t *testing.T) {
	simple := 0
	for _, h := range frontmatterCorpus {
		if checkAgree(t, h) {
			simple++
		}
	}
	if simple < 8 {
		t.Errorf("fast path took only %d of the corpus", simple)
	}
}

// checkAgree reports whether parseSimple answered, failing if its answer
// differs from the YAML parser's.
func checkAgree(t *testing.T, header string) bool {
	fast, ok := parseSimple(header)
	if !ok {
		return false
	}
	slow, diags, err := parseYAML(header)
	if err != nil || len(diags) > 0 {
		t.Fatalf("header %q: fast path accepted; YAML says %v %v", header, err, diags)
	}
	if len(fast.Metadata) == 0 && len(slow.Metadata) == 0 {
		fast.Metadata, slow.Metadata = nil, nil
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("header %q:\nfast %#v\nyaml %#v", header, fast, slow)
	}
	return true
}

func FuzzFrontmatter(f *testing.F) {
	for _, h := range frontmatterCorpus {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, header string) {
		if strings.Contains(header, "\n---") || strings.HasPrefix(header, "---") {
			return
		}
		checkAgree(t, header)
	})
}

// TestFrontmatterLimits: aliases, oversized headers and too many nodes are
// refused with a message that says what to do.
func TestFrontmatterLimits(t *testing.T) {
	for name, tc := range map[string]struct{ doc, want string }{
		"alias":    {"---\nname: a\ndescription: d\nx: &a [1, 2]\ny: *a\n---\n", "the YAML frontmatter uses an alias (*a), which skillstore does not expand: write the value out"},
		"oversize": {"---\nname: a\ndescription: d\npad: '" + strings.Repeat("p", MaxFrontmatterBytes) + "'\n---\n", "the YAML frontmatter is 65567B; the limit is 64KB: move long content into the Markdown body"},
		"nodes":    {"---\nname: a\ndescription: d\nlist: [" + strings.Repeat("1,", 12000) + "1]\n---\n", "the YAML frontmatter has more than 10000 keys and values: keep it to the fields skills use"},
	} {
		_, _, err := ParseFrontmatter(tc.doc)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v; want %q", name, err, tc.want)
		}
	}
	m, err := RenderFrontmatter("name: a\ndescription: d\n1: one\nmetadata:\n  k: v\n")
	if err != nil || m["1"] != "one" || m["metadata"].(map[string]any)["k"] != "v" {
		t.Errorf("RenderFrontmatter = %v, %v", m, err)
	}
	if _, err := RenderFrontmatter("x: &a 1\ny: *a\n"); err == nil {
		t.Error("RenderFrontmatter expanded an alias")
	}
}

// TestNonFiniteValues: .nan and .inf parse, but validate flags them, since
// no JSON host can be served them.
func TestNonFiniteValues(t *testing.T) {
	for _, v := range []string{".nan", ".inf", "-.Inf", "[1, .NaN]"} {
		_, diags, err := ParseFrontmatter("---\nname: a\ndescription: d\nscore: " + v + "\n---\n")
		if err != nil || len(diags) != 1 || diags[0].Field != "score" {
			t.Errorf("%s: %v %v", v, diags, err)
		}
	}
	if _, diags, _ := ParseFrontmatter("---\nname: a\ndescription: d\nscore: \".nan\"\n---\n"); len(diags) != 0 {
		t.Errorf("a quoted .nan: %v", diags)
	}
}

// FuzzPublishedHeader: the header taken from a published listing's
// frontmatter is the one SplitDocument finds in the document it stands
// for ("---\n" + frontmatter + "---\n"), whatever the listing holds.
func FuzzPublishedHeader(f *testing.F) {
	for _, h := range frontmatterCorpus {
		f.Add(h)
	}
	for _, h := range []string{"", "a: b", "a: b\n---\nc: d\n", "a: b\r\n...  \r\nc\n", "a\n---", "a\n--", "a\r", "a\n---x\n"} {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, frontmatter string) {
		got, gotErr := publishedHeader(frontmatter)
		want, _, wantErr := SplitDocument("---\n" + frontmatter + "---\n")
		if got != want || (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("frontmatter %q: header %q, %v; the document's is %q, %v", frontmatter, got, gotErr, want, wantErr)
		}
	})
}
