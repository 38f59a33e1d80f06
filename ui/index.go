package ui

import (
	"cmp"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// Index paging and search bounds.
const (
	pageSize      = 50
	searchResults = 100 // the best matches a search shows
	maxSummary    = 300 // characters of a description shown in a list
)

// indexData is the index page's.
type indexData struct {
	Query    string
	Items    []item
	Total    int // skills the caller sees (matches, for a search)
	Page     int // 1-based
	Pages    int
	Prev     string // the previous and next pages' URLs, if any
	Next     string
	FirstURL string // the first and last pages', when they are not next to this one
	LastURL  string
	First    int // the 1-based number of the page's first item
	Problems int // folders and sources left out that the caller may know of
	Capped   bool
	MaxQuery int // the longest query kept, in bytes
	// Usage is set when the server counts loads: each item then has its
	// own; ByUsage says the list is sorted by them, SortURL is the link
	// to the other order.
	Usage   bool
	ByUsage bool
	SortURL string
}

// item is one skill in a list.
type item struct {
	Name, Description, Source, Location string
	Badges                              []badge
	Loads                               int    // with indexData.Usage
	LastUsed                            string // the last load's day, "" for none
}

// badge marks something a person should know about a skill.
type badge struct{ Text, Class, Title string }

// index serves the list of skills: all of them a page at a time, or the
// best matches of a search (the index search_skills uses). With the
// header X-Skillstore-Part: results it answers the list alone, which the
// script swaps in as the person types.
func (u *UI) index(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := u.bounded(r)
	defer cancel()
	v := u.opts.View(r)
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if len(q) > tools.MaxQueryBytes {
		q = strings.ToValidUTF8(q[:tools.MaxQueryBytes], "")
	}
	d := indexData{Query: q, Page: 1, MaxQuery: tools.MaxQueryBytes, Usage: u.opts.Usage != nil}
	d.ByUsage = d.Usage && q == "" && r.URL.Query().Get("sort") == "usage" // a search keeps its ranking
	var list []*store.Skill
	var err error
	if q != "" {
		list, err = v.Search(ctx, q, searchResults+1)
		if len(list) > searchResults {
			list, d.Capped = list[:searchResults], true
		}
	} else {
		list, err = v.List(ctx)
	}
	if err != nil {
		u.failed(w, r, err)
		return
	}
	if d.ByUsage {
		list = u.byUsage(list)
	}
	if d.Usage && q == "" {
		d.SortURL = pageURL(q, !d.ByUsage, 1)
	}
	d.Total = len(list)
	d.Pages = max(1, (len(list)+pageSize-1)/pageSize)
	if p, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil && p > 1 {
		d.Page = min(p, d.Pages)
	}
	from := (d.Page - 1) * pageSize
	to := min(from+pageSize, len(list))
	d.First = from + 1
	d.Items = make([]item, 0, to-from)
	for _, sk := range list[from:to] {
		d.Items = append(d.Items, u.withUsage(itemOf(v, sk)))
	}
	if d.Page > 1 {
		d.Prev = pageURL(q, d.ByUsage, d.Page-1)
	}
	if d.Page < d.Pages {
		d.Next = pageURL(q, d.ByUsage, d.Page+1)
	}
	if d.Page > 2 {
		d.FirstURL = pageURL(q, d.ByUsage, 1)
	}
	if d.Page < d.Pages-1 {
		d.LastURL = pageURL(q, d.ByUsage, d.Pages)
	}
	if c, err := v.Catalog(ctx); err == nil {
		d.Problems = len(c.Problems)
	}
	if r.Header.Get("X-Skillstore-Part") == "results" {
		u.renderBlock(w, r, http.StatusOK, "index", "results", d)
		return
	}
	title := "Skills"
	if q != "" {
		title = "Search: " + q
	}
	u.render(w, r, http.StatusOK, "index", title, "skills", d)
}

// unusedFor is how long without a load marks a skill unused.
const unusedFor = 30 * 24 * time.Hour

// byUsage returns list sorted most loaded first; ties keep their order.
func (u *UI) byUsage(list []*store.Skill) []*store.Skill {
	loads := make(map[string]uint64, len(list))
	for _, sk := range list {
		st, _ := u.opts.Usage.Stat(sk.Name)
		loads[sk.Name] = st.Loads
	}
	out := slices.Clone(list)
	slices.SortStableFunc(out, func(a, b *store.Skill) int { return cmp.Compare(loads[b.Name], loads[a.Name]) })
	return out
}

// withUsage adds its loads and an "unused 30d" badge, when loads are
// counted.
func (u *UI) withUsage(it item) item {
	if u.opts.Usage == nil {
		return it
	}
	st, _ := u.opts.Usage.Stat(it.Name)
	it.Loads = int(min(st.Loads, math.MaxInt32))
	if !st.LastUsed.IsZero() {
		it.LastUsed = st.LastUsed.UTC().Format("2006-01-02")
	}
	if st.LastUsed.IsZero() || time.Since(st.LastUsed) > unusedFor {
		it.Badges = append(it.Badges, badge{"unused 30d", "info", "not loaded in the last 30 days"})
	}
	return it
}

// pageURL is the index's page p for search q, sorted by usage or not.
func pageURL(q string, byUsage bool, p int) string {
	v := make([]string, 0, 3)
	if q != "" {
		v = append(v, "q="+url.QueryEscape(q))
	}
	if byUsage {
		v = append(v, "sort=usage")
	}
	if p > 1 {
		v = append(v, "page="+strconv.Itoa(p))
	}
	if len(v) == 0 {
		return "/"
	}
	return "/?" + strings.Join(v, "&")
}

// itemOf is sk as a list shows it, through view v.
func itemOf(v *store.View, sk *store.Skill) item {
	it := item{Name: sk.Name, Description: clip(sk.Description, maxSummary), Source: sk.Source.Label, Location: sk.Source.Location}
	if n := len(sk.Diagnostics); n > 0 {
		it.Badges = append(it.Badges, badge{"invalid", "warn", plural(n, "way it breaks", "ways it breaks") + " the specification"})
	}
	if n := len(sk.Findings); n > 0 {
		it.Badges = append(it.Badges, badge{"hidden text", "danger", plural(n, "place holds", "places hold") + " text a model reads and a person does not see"})
	}
	if n := len(v.Shadows(sk)); n > 0 {
		it.Badges = append(it.Badges, badge{"shadows " + strconv.Itoa(n), "info", "hides " + plural(n, "copy", "copies") + " in lower-priority sources"})
	}
	if sk.Provenance != nil && sk.Provenance.Signer.Fingerprint != "" {
		it.Badges = append(it.Badges, badge{"signed", "ok", "signed by " + sk.Provenance.Signer.Principal})
	}
	return it
}

// clip shortens s to n bytes at most (logtext.Cut), at a space when one
// is near, and marks it.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := logtext.Cut(s, n)
	if sp := strings.LastIndexByte(cut, ' '); sp > len(cut)*3/4 {
		cut = cut[:sp]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}
