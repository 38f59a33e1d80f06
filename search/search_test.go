package search_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/search"
)

func TestTokens(t *testing.T) {
	for in, want := range map[string]string{
		"Fill PDF-forms":                "fill pdf form",
		"pdf_forms, PDF forms!":         "pdf form pdf form",
		"How do I write the policies?":  "write policy",
		"boxes, matches, access status": "box match access status",
		"the and of":                    "",
		"\xff\xfeinvalid utf8":          "invalid utf8",
		"Résumé writing":                "résumé writing",
	} {
		if got := strings.Join(search.Tokens(in), " "); got != want {
			t.Errorf("Tokens(%q) = %q; want %q", in, got, want)
		}
	}
}

func skill(id, name, desc, headings, body string) search.Doc {
	return search.Doc{ID: id, Fields: [4]string{name, desc, headings, body}}
}

func TestSearchRanks(t *testing.T) {
	x := search.New()
	x.Put(skill("pdf-forms", "pdf-forms", "Fill and flatten PDF forms.", "Filling forms", "Use pypdf to fill fields."))
	x.Put(skill("commit-messages", "commit-messages", "Write conventional commit messages.", "Types", "feat, fix, docs."))
	x.Put(skill("code-review", "code-review", "Review a pull request for correctness and security.", "Checklist", "Look for SQL injection."))
	for query, want := range map[string]string{
		"how do I fill a PDF form":    "pdf-forms",
		"writing commit message":      "commit-messages",
		"review my pull requests":     "code-review",
		"sql injection":               "code-review",
		"Commit_Messages":             "commit-messages",
		"check a PR for security bug": "code-review",
	} {
		hits := x.Search(query, 3)
		if len(hits) == 0 || hits[0].ID != want {
			t.Errorf("%q: %v; want %s first", query, hits, want)
		}
	}
	if hits := x.Search("the and of", 5); len(hits) != 0 {
		t.Errorf("stop words only: %v", hits)
	}
	if hits := x.Search("pdf", 0); hits != nil {
		t.Errorf("limit 0: %v", hits)
	}
}

// TestPutReplacesAndRemove: a document is indexed once whatever the
// number of Puts, and Remove takes it out of every posting.
func TestPutReplacesAndRemove(t *testing.T) {
	x := search.New()
	for i := range 3 {
		x.Put(skill("a", "alpha", fmt.Sprintf("version %d of the gardening skill", i), "", ""))
	}
	x.Put(skill("b", "beta", "cooking recipes", "", ""))
	if x.Len() != 2 {
		t.Fatalf("Len = %d", x.Len())
	}
	if hits := x.Search("gardening", 5); len(hits) != 1 || hits[0].ID != "a" {
		t.Errorf("after replacing: %v", hits)
	}
	x.Remove("a")
	if hits := x.Search("gardening alpha", 5); len(hits) != 0 {
		t.Errorf("after removing: %v", hits)
	}
	x.Put(skill("c", "gamma", "gardening again", "", ""))
	if hits := x.Search("gardening", 5); len(hits) != 1 || hits[0].ID != "c" || x.Len() != 2 {
		t.Errorf("a number reused: %v, Len %d", hits, x.Len())
	}
}
