package ui

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/skillstore/skillstore/internal/connect"
	"github.com/skillstore/skillstore/store"
)

// sourcesData is the sources page's.
type sourcesData struct {
	Sources  []sourceRow
	Plugins  []store.FoundGroup
	Problems []store.Problem
	Built    time.Time
	Skills   int
}

// sourceRow is one source as the page shows it.
type sourceRow struct {
	store.SourceStatus
	Skills int    // of its skills the caller sees, served
	State  string // "ok", "stale", "failing"
}

// sources serves each source the caller may know of, its state, its
// snapshot, when it last answered, and the skill folders left out.
func (u *UI) sources(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := u.bounded(r)
	defer cancel()
	v := u.opts.View(r)
	c, err := v.Catalog(ctx)
	if err != nil {
		u.failed(w, r, err)
		return
	}
	list := c.Skills
	status, err := v.Status(ctx)
	if err != nil {
		u.failed(w, r, err)
		return
	}
	counts := map[store.SourceRef]int{} // the caller's skills by source
	for _, sk := range list {
		counts[*sk.Source]++
	}
	d := sourcesData{Skills: len(list), Built: c.Built}
	for _, s := range status {
		row := sourceRow{SourceStatus: s, Skills: counts[s.Source], State: "ok"}
		switch {
		case s.Failing && s.Listed:
			row.State = "stale"
		case s.Failing || !s.Listed:
			row.State = "failing"
		}
		row.Err = nil // never rendered: it may name hosts
		if row.Detail == store.UnavailableDetail {
			row.Detail = "it did not answer" // the page says what to do next
		}
		d.Sources = append(d.Sources, row)
	}
	d.Plugins = c.ServedGroups()
	d.Problems = slices.Clone(c.Problems) // the catalog's are shared: the messages are reworded below
	for i, p := range d.Problems {
		d.Problems[i].Message = strings.ReplaceAll(p.Message, store.UnavailableDetail, "it did not answer (the sources table above says what to do)")
	}
	u.render(w, r, http.StatusOK, "sources", "Sources", "sources", d)
}

// connectData is the connect page's.
type connectData struct {
	URL     string
	Token   bool
	Clients []connect.Client
}

// connect serves what to paste into MCP clients to use this server: the
// entries `skillstore connect --url` prints (package connect).
func (u *UI) connect(w http.ResponseWriter, r *http.Request) {
	endpoint := u.opts.Resource
	if endpoint == "" {
		scheme := "http"
		if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
			scheme = "https"
		}
		endpoint = scheme + "://" + r.Host + u.opts.MCPPath
	}
	tok := u.opts.TokenRequired
	d := connectData{URL: endpoint, Token: tok, Clients: connect.Clients(connect.Server{URL: endpoint, Token: tok})}
	u.render(w, r, http.StatusOK, "connect", "Connect", "connect", d)
}
