package skillgen

import (
	"io/fs"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/skillstore/skillstore/backends"
)

var validName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// catalog10k is Catalog(10_000), made once for the tests that read it.
var catalog10k = sync.OnceValue(func() []Skill { return Catalog(10_000) })

func examples(t testing.TB) []Skill {
	t.Helper()
	ex, err := ReadTree(backends.Examples())
	if err != nil {
		t.Fatal(err)
	}
	if len(ex) == 0 {
		t.Fatal("no built-in examples")
	}
	return ex
}

func TestCatalogNamesAndSizes(t *testing.T) {
	skills := catalog10k()
	if len(skills) != 10_000 {
		t.Fatalf("Catalog(10000) has %d skills", len(skills))
	}
	seen := map[string]bool{}
	for _, s := range skills {
		if !validName.MatchString(s.Name) || len(s.Name) > 64 {
			t.Errorf("invalid name %q", s.Name)
		}
		if seen[s.Name] {
			t.Errorf("name %q twice", s.Name)
		}
		seen[s.Name] = true
		if n := len(s.Description); n == 0 || n > 1024 {
			t.Errorf("%s: description of %d bytes", s.Name, n)
		}
		if strings.ContainsAny(s.Description, "{}\n") {
			t.Errorf("%s: description has a stray brace or newline: %q", s.Name, s.Description)
		}
		if w := len(strings.Fields(s.Body)); w < 150 || w > 1700 {
			t.Errorf("%s: body of %d words", s.Name, w)
		}
		if !strings.HasPrefix(s.Body, "# ") {
			t.Errorf("%s: body does not start with a heading", s.Name)
		}
	}
	for _, e := range examples(t) {
		if seen[e.Name] {
			t.Errorf("a generated skill takes the built-in example's name %q", e.Name)
		}
	}
}

// TestCatalogDeterministic: the same n gives the same skills, and a
// smaller catalog is the start of a larger one.
func TestCatalogDeterministic(t *testing.T) {
	a, b, c := Catalog(6_000), Catalog(6_000), catalog10k()
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description || a[i].Body != b[i].Body || a[i].ref != b[i].ref {
			t.Fatalf("skill %d differs between two runs: %s, %s", i, a[i].Name, b[i].Name)
		}
		if a[i].Name != c[i].Name || a[i].Body != c[i].Body {
			t.Fatalf("skill %d of Catalog(6000) is not that of Catalog(10000): %s, %s", i, a[i].Name, c[i].Name)
		}
	}
	d := CatalogSeed(6_000, 1)
	same := 0
	for i := range a {
		if d[i].Name == a[i].Name {
			same++
		}
	}
	if same > len(a)/10 {
		t.Errorf("CatalogSeed(6000, 1) shares %d of %d names, in place, with seed 0", same, len(a))
	}
	if len(Catalog(0)) != 0 {
		t.Error("Catalog(0) is not empty")
	}
}

// TestCatalogCoversUniverse: from 10,000 skills on, every concept appears.
func TestCatalogCoversUniverse(t *testing.T) {
	u := universe()
	if len(u) > 10_000 {
		t.Fatalf("%d concepts: more than 10,000", len(u))
	}
	seen := map[*concept]int{}
	for _, s := range catalog10k() {
		seen[s.concept]++
	}
	if len(seen) != len(u) {
		t.Errorf("Catalog(10000) has %d of %d concepts", len(seen), len(u))
	}
}

func TestQuerySpecs(t *testing.T) {
	texts := map[string]bool{}
	for _, q := range queryList {
		if _, err := parseSpec(q.want); err != nil {
			t.Error(err)
		}
		if texts[q.text] {
			t.Errorf("query %q twice", q.text)
		}
		texts[q.text] = true
	}
}

func TestQueries(t *testing.T) {
	skills := WithExamples(catalog10k(), examples(t))
	names := map[string]bool{}
	for _, s := range skills {
		names[s.Name] = true
	}
	qs := Queries(skills)
	if len(qs) != len(queryList) {
		t.Errorf("%d of %d queries have an answer in Catalog(10000) and the examples", len(qs), len(queryList))
	}
	if len(qs) < 200 {
		t.Errorf("only %d queries", len(qs))
	}
	for _, q := range qs {
		if len(q.Want) == 0 {
			t.Errorf("%q: no answer", q.Text)
		}
		for _, w := range q.Want {
			if !names[w] {
				t.Errorf("%q: wants %q, not in the catalog", q.Text, w)
			}
		}
	}
	// Without the examples, their queries drop out rather than want nothing.
	if n := len(Queries(catalog10k())); n >= len(qs) {
		t.Errorf("without the examples %d queries; want fewer than %d", n, len(qs))
	}
}

func TestWriteTreeRoundTrip(t *testing.T) {
	dir := t.TempDir()
	skills := Catalog(300)
	skills[0].Description = `Quotes "like this", a colon: here, a backslash \ and a # hash — ünïcode.`
	if err := WriteTree(dir, skills); err != nil {
		t.Fatal(err)
	}
	back, err := ReadTree(osDirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(skills) {
		t.Fatalf("read %d skills; wrote %d", len(back), len(skills))
	}
	byName := map[string]Skill{}
	for _, s := range back {
		byName[s.Name] = s
	}
	refs := 0
	for _, s := range skills {
		b := byName[s.Name]
		if b.Description != s.Description || strings.TrimSpace(b.Body) != strings.TrimSpace(s.Body) {
			t.Errorf("%s: read back differs", s.Name)
		}
		if s.ref != "" {
			refs++
		}
	}
	if refs == 0 || refs == len(skills) {
		t.Errorf("%d of %d skills have a reference.md; want some", refs, len(skills))
	}
}

func osDirFS(dir string) fs.FS { return os.DirFS(dir) }
