package ui

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

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
}

// item is one skill in a list.
type item struct {
	Name, Description, Source, Location string
	Badges                              []badge
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
	d := indexData{Query: q, Page: 1, MaxQuery: tools.MaxQueryBytes}
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
		d.Items = append(d.Items, itemOf(v, sk))
	}
	if d.Page > 1 {
		d.Prev = pageURL(q, d.Page-1)
	}
	if d.Page < d.Pages {
		d.Next = pageURL(q, d.Page+1)
	}
	if d.Page > 2 {
		d.FirstURL = pageURL(q, 1)
	}
	if d.Page < d.Pages-1 {
		d.LastURL = pageURL(q, d.Pages)
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

func pageURL(q string, p int) string {
	v := make([]string, 0, 2)
	if q != "" {
		v = append(v, "q="+url.QueryEscape(q))
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
