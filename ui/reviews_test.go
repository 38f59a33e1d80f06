package ui_test

import (
	"context"
	"errors"
	"html"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/hidden"
	"github.com/skillstore/skillstore/skilldiff"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/ui"
)

// fakeReviews is a ReviewSource of fixed versions, or an error.
type fakeReviews struct {
	list []ui.PendingVersion
	more bool
	err  error
}

func (f fakeReviews) Pending(context.Context, *http.Request, int) ([]ui.PendingVersion, bool, error) {
	return f.list, f.more, f.err
}

// TestReviewsPage: the pending versions with their diffs, hidden text
// flagged and written as code points, hostile text escaped, each with
// the digest set its buttons send; each skill shown is audited.
func TestReviewsPage(t *testing.T) {
	hostile := `<script>alert(1)</script>"'`
	created := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	src := fakeReviews{list: []ui.PendingVersion{{
		SkillID: "skill_01", Name: "pdf", ID: "skver_02", Created: created, CreatedBy: hostile, Digest: "sha256:" + strings.Repeat("d", 64),
		Files: map[string]string{"SKILL.md": strings.Repeat("a", 64), "x.sh": strings.Repeat("b", 64)},
		Diff: &skilldiff.Diff{From: "skver_01", To: "skver_02", Same: 1, Changes: []skilldiff.Change{
			{Path: "SKILL.md", Kind: skilldiff.Changed, From: strings.Repeat("0", 64), To: strings.Repeat("a", 64), ToSize: 40,
				Unified:  "--- a/SKILL.md\n+++ b/SKILL.md\n@@ -1 +1 @@\n-old\n+new \U000E0041\U000E0042\t" + hostile + "\n",
				Findings: []hidden.Finding{{Path: "SKILL.md", Line: 1, Column: 5, Kind: hidden.TagCharacters, Text: "AB"}}},
			{Path: "x.sh", Kind: skilldiff.Added, To: strings.Repeat("b", 64), ToSize: 3, Binary: true},
		}},
	}, {
		SkillID: "skill_02", Name: "forms", ID: "skver_07", Digest: "sha256:" + strings.Repeat("e", 64),
		Files: map[string]string{"SKILL.md": strings.Repeat("c", 64)}, DiffErr: "the diff is too large",
	}}}
	var audited []string
	h := ui.New(ui.Options{View: func(*http.Request) *store.View { return nil }, Reviews: src,
		Audit: func(_ *http.Request, skill, file string) { audited = append(audited, skill+":"+file) }})
	a := get(t, h, "/reviews")
	if a.code != http.StatusOK {
		t.Fatalf("/reviews: %d\n%s", a.code, a.body)
	}
	for _, want := range []string{
		`<a href="/reviews" aria-current="page">Reviews</a>`,
		`2 versions wait for review`,
		`<a href="/skills/pdf">pdf</a> <code>skver_02</code>`,
		`Uploaded by &lt;script&gt;alert(1)&lt;/script&gt;&#34;&#39;`,
		`1 hidden-text finding in what this version adds or changes`,
		`Compared with <code>skver_01</code>: 2 files differ, 1 unchanged.`,
		`<span class="badge danger finding">hidden text</span>`,
		`line 1, column 5: tag-characters <code>AB</code>`,
		"&#43;new \\U000E0041\\U000E0042\t&lt;script&gt;",
		`data-skill="skill_01" data-version="skver_02" data-files="{&#34;SKILL.md&#34;:&#34;` + strings.Repeat("a", 64) + `&#34;,&#34;x.sh&#34;:&#34;` + strings.Repeat("b", 64) + `&#34;}"`,
		`binary: compare the digests`,
		`The diff cannot be shown: the diff is too large`,
		`data-skill="skill_02" data-version="skver_07"`,
	} {
		if !strings.Contains(a.body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(a.body, "<script>alert") || strings.Contains(a.body, "\U000E0041") {
		t.Error("the page carries hostile text or hidden characters as they are")
	}
	if strings.Contains(a.body, "<form") {
		t.Error("the review page has a form: decisions go by the script, with the token in a header")
	}
	if d := cmp.Diff([]string{"pdf:", "forms:"}, audited); d != "" {
		t.Errorf("audited (-want +got):\n%s", d)
	}

	// The decision's JSON, as the script reads it back from the attribute.
	i := strings.Index(a.body, `data-files="`)
	attr := a.body[i+len(`data-files="`):]
	attr = html.UnescapeString(attr[:strings.Index(attr, `"`)])
	if want := `{"SKILL.md":"` + strings.Repeat("a", 64) + `","x.sh":"` + strings.Repeat("b", 64) + `"}`; attr != want {
		t.Errorf("data-files %s, want %s", attr, want)
	}

	none := get(t, ui.New(ui.Options{View: func(*http.Request) *store.View { return nil }, Reviews: fakeReviews{}}), "/reviews")
	if none.code != http.StatusOK || !strings.Contains(none.body, "Nothing waits for your review.") {
		t.Errorf("no pending versions: %d\n%s", none.code, none.body)
	}
	failing := get(t, ui.New(ui.Options{View: func(*http.Request) *store.View { return nil }, Reviews: fakeReviews{err: errors.New("bucket /srv/x unreachable")}}), "/reviews")
	if failing.code != http.StatusOK || strings.Contains(failing.body, "/srv/x") {
		t.Errorf("a failing source: %d, the page names its path:\n%s", failing.code, failing.body)
	}
	plain := ui.New(ui.Options{View: func(*http.Request) *store.View { return nil }})
	if a := get(t, plain, "/reviews"); a.code != http.StatusNotFound || strings.Contains(a.body, `href="/reviews"`) {
		t.Errorf("without a ReviewSource: %d, or the layout links to /reviews", a.code)
	}
}
