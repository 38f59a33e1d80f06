package ui_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/ui"
	"github.com/skillstore/skillstore/usage"
)

var nameRe = regexp.MustCompile(`class="name" href="[^"]*">([^<]*)<`)

// names lists the skills of an index page, in order.
func names(body string) []string {
	var out []string
	for _, m := range nameRe.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestIndexUsage: with usage counts the index shows each skill's loads,
// marks the unused, and sorts by loads with ?sort=usage (a search keeps
// its ranking); without them it shows none of it.
func TestIndexUsage(t *testing.T) {
	counts := usage.New(usage.Options{})
	for _, s := range []string{"weather", "calculator", "weather", "weather", "calculator", "xss"} {
		counts.Record(s, "alice")
	}
	h := newPages(t, ui.Options{Usage: counts})

	byName := get(t, h, "/")
	if !strings.Contains(byName.body, `<a href="/?sort=usage">Sort by usage</a>`) {
		t.Errorf("no link to sort by usage:\n%s", byName.body)
	}
	for _, want := range []string{`<span class="usage">3 loads, last `, `<span class="usage">0 loads</span>`, `>unused 30d</span>`} {
		if !strings.Contains(byName.body, want) {
			t.Errorf("the index lacks %q", want)
		}
	}
	all := names(byName.body)
	byUsage := get(t, h, "/?sort=usage")
	got := names(byUsage.body)
	if len(got) != len(all) || len(got) < 4 {
		t.Fatalf("sorted by usage: %v, by name: %v", got, all)
	}
	if diff := cmp.Diff([]string{"weather", "calculator", "xss"}, got[:3]); diff != "" {
		t.Errorf("most used first (-want +got)\n%s", diff)
	}
	if !strings.Contains(byUsage.body, `<a href="/">Sort by name</a>`) {
		t.Errorf("no link back to the order by name")
	}
	safeHTML(t, "/?sort=usage", byUsage.body)

	search := get(t, h, "/?q=calculator&sort=usage")
	if strings.Contains(search.body, "Sort by") || len(names(search.body)) == 0 || names(search.body)[0] != "calculator" {
		t.Errorf("a search sorted by usage: %v", names(search.body))
	}

	plain := get(t, newPages(t, ui.Options{}), "/?sort=usage")
	if strings.Contains(plain.body, "loads") || strings.Contains(plain.body, "Sort by") || strings.Contains(plain.body, "unused 30d") {
		t.Errorf("usage shown without counts")
	}
	if diff := cmp.Diff(all, names(plain.body)); diff != "" {
		t.Errorf("without counts ?sort=usage changed the order (-want +got)\n%s", diff)
	}
}
