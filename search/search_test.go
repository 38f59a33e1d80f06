package search_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/search"
)

// TestTokens: texts people write alike give the same terms, and texts
// that differ in a telling word do not.
func TestTokens(t *testing.T) {
	same := [][2]string{
		{"Fill PDF-forms", "fill pdf forms"},
		{"pdf_forms, PDF forms!", "pdf form pdf form"},
		{"How do I write the policies?", "write policy"},
		{"deploying deployments", "deploy deploy"},
		{"boxes, matches", "box match"},
		{"TypeScript snake_case", "typescript snake case"},
		{"PDFs, PRs and APIs", "pdf pr api"},
		{"classify classification", "classify classify"},
		{"verification", "verify"},
		{"the and of", ""},
		{"\xff\xfeinvalid utf8", "invalid utf8"},
		{"Résumé writing", "résumé write"},
		{"K8s", "k8s"},
		{strings.Repeat("x", 65) + " kept", "kept"},
	}
	for _, c := range same {
		if got, want := strings.Join(search.Tokens(c[0]), " "), strings.Join(search.Tokens(c[1]), " "); got != want {
			t.Errorf("Tokens(%q) = %q; want %q, as for %q", c[0], got, want, c[1])
		}
	}
	for _, c := range [][2]string{{"access", "acceptance"}, {"status", "state"}, {"gcp", "aws"}, {"python", "pythons2"}, {"java", "javascript"}, {"bibtex", "bib tex"}} {
		if got, other := strings.Join(search.Tokens(c[0]), " "), strings.Join(search.Tokens(c[1]), " "); got == other {
			t.Errorf("Tokens(%q) = Tokens(%q) = %q", c[0], c[1], got)
		}
	}
}

func skill(id, name, desc, headings, body string) search.Doc {
	return search.Doc{ID: id, Fields: [4]string{name, desc, headings, body}}
}

// rankFirst indexes docs and checks which ranks first for each query.
func rankFirst(t *testing.T, docs []search.Doc, want map[string]string) *search.Index {
	t.Helper()
	x := search.New()
	for _, d := range docs {
		x.Put(d)
	}
	for query, first := range want {
		if hits := x.Search(query, 3); len(hits) == 0 || hits[0].ID != first {
			t.Errorf("%q: %v; want %s first", query, hits, first)
		}
	}
	return x
}

func TestSearchRanks(t *testing.T) {
	x := rankFirst(t, []search.Doc{
		skill("pdf-forms", "pdf-forms", "Fill and flatten PDF forms.", "Filling forms", "Use pypdf to fill fields."),
		skill("commit-messages", "commit-messages", "Write conventional commit messages.", "Types", "feat, fix, docs."),
		skill("code-review", "code-review", "Review a pull request for correctness and security.", "Checklist", "Look for SQL injection."),
	}, map[string]string{
		"how do I fill a PDF form":    "pdf-forms",
		"writing commit message":      "commit-messages",
		"review my pull requests":     "code-review",
		"sql injection":               "code-review",
		"Commit_Messages":             "commit-messages",
		"check a PR for security bug": "code-review",
	})
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

// TestSynonyms: a query in the words people use finds a skill written in
// other words, and a skill using the query's own word ranks first.
func TestSynonyms(t *testing.T) {
	rankFirst(t, []search.Doc{
		skill("k8s-rollout", "k8s-rollout", "Roll out a service on Kubernetes.", "", ""),
		skill("pr-review", "pr-review", "Review a pull request.", "", ""),
		skill("db-tuning", "db-tuning", "Tune a slow database query.", "", ""),
		skill("k8s-notes", "k8s-notes", "Notes about k8s.", "", ""),
	}, map[string]string{
		"kubernetes rollout":      "k8s-rollout",
		"review my merge request": "pr-review",
		"slow db":                 "db-tuning",
		"k8s notes":               "k8s-notes",
	})
}

// TestMaxTerms: a document keeps its name's and description's terms and
// its text's most frequent ones, within MaxTerms.
func TestMaxTerms(t *testing.T) {
	var body strings.Builder
	for i := range 3 * search.MaxTerms {
		fmt.Fprintf(&body, "word%d ", i)
	}
	body.WriteString(strings.Repeat("frequent ", 5))
	x := search.New()
	x.Put(skill("big", "big-skill", "Handles lighthouse audits.", "", body.String()))
	for _, q := range []string{"lighthouse", "frequent", "word0"} {
		if hits := x.Search(q, 1); len(hits) != 1 {
			t.Errorf("%q not found", q)
		}
	}
	if hits := x.Search(fmt.Sprintf("word%d", 3*search.MaxTerms-1), 1); len(hits) != 0 {
		t.Errorf("a term past the cap was indexed: %v", hits)
	}
}

// TestChurn: after many replacements and removals (and the sweeps they
// cause), the index answers as a fresh one holding the same documents.
func TestChurn(t *testing.T) {
	x, fresh := search.New(), search.New()
	docs := corpus(500)
	for round := range 4 {
		for i, d := range docs {
			if (i+round)%3 == 0 {
				x.Remove(d.ID)
				continue
			}
			d.Fields[search.Body] += fmt.Sprintf(" round%d", round)
			x.Put(d)
		}
	}
	x.Retain(func(id string) bool { return !strings.HasPrefix(id, "pdf") })
	for i, d := range docs {
		if (i+3)%3 == 0 || strings.HasPrefix(d.ID, "pdf") {
			continue
		}
		d.Fields[search.Body] += " round3"
		fresh.Put(d)
	}
	if x.Len() != fresh.Len() {
		t.Fatalf("Len %d; a fresh index has %d", x.Len(), fresh.Len())
	}
	for _, q := range []string{"pdf form", "kubernetes deploy", "round3", "security audit report"} {
		got, want := x.Search(q, 20), fresh.Search(q, 20)
		if len(got) != len(want) {
			t.Fatalf("%q: %d hits; fresh %d", q, len(got), len(want))
		}
		for i := range got {
			if got[i].ID != want[i].ID {
				t.Errorf("%q #%d: %s; fresh %s", q, i, got[i].ID, want[i].ID)
			}
		}
	}
}

// TestVersion: a Put at the version already indexed changes nothing.
func TestVersion(t *testing.T) {
	x := search.New()
	x.Put(search.Doc{ID: "a", Version: 7, Fields: [4]string{"alpha", "gardening"}})
	x.Put(search.Doc{ID: "a", Version: 7, Fields: [4]string{"alpha", "cooking"}})
	if hits := x.Search("gardening", 1); len(hits) != 1 {
		t.Errorf("the same version replaced the document")
	}
	x.Put(search.Doc{ID: "a", Version: 8, Fields: [4]string{"alpha", "cooking"}})
	if hits := x.Search("gardening", 1); len(hits) != 0 {
		t.Errorf("a new version did not replace the document")
	}
}

// TestConcurrent: searches run while documents change (run with -race).
func TestConcurrent(t *testing.T) {
	x := search.New()
	docs := corpus(200)
	done := make(chan bool)
	go func() {
		for i := range 2000 {
			x.Put(docs[i%len(docs)])
			if i%5 == 0 {
				x.Remove(docs[(i*7)%len(docs)].ID)
			}
		}
		close(done)
	}()
	for {
		select {
		case <-done:
			return
		default:
			x.Search("pdf invoice report", 5)
		}
	}
}

// TestSkillDoc: a SKILL.md body splits into its headings and its text;
// fenced code and "#hashtags" are text.
func TestSkillDoc(t *testing.T) {
	d := search.SkillDoc("x", "x", "d", "# Title\n\nIntro.\n\n## Steps\n\n1. Run it.\n\n```bash\n# a comment, not a heading\nls\n```\n#hashtag is text\n")
	want := [4]string{"x", "d", "Title\nSteps\n", "\nIntro.\n\n\n1. Run it.\n\n```bash\n# a comment, not a heading\nls\n```\n#hashtag is text\n"}
	if diff := cmp.Diff(want, d.Fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}
