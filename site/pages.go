package mcpserver

import (
	"net/http"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/ui"
)

// The catalog pages (package ui) are served at / behind the guard /mcp
// has, so a page shows what an MCP client with the same credentials
// sees: the same token or identity provider, the same Origin and Host
// checks, the caller's view under the access policy, and an audit line
// for each read of skill content. A request the guard refuses for its
// credentials gets the page that asks for the token, not JSON.

// uiHandler returns the pages, guarded, and their assets (public: they
// hold nothing of the catalog).
func (s *Server) uiHandler(opts HTTPOptions) (pages, assets http.Handler) {
	u := ui.New(ui.Options{
		View:          func(r *http.Request) *store.View { return s.viewOf(s.httpCaller(r)) },
		TokenRequired: opts.AuthToken != "" || opts.Auth != nil,
		Audit:         s.auditPage,
		Resource:      opts.Resource,
		Logger:        s.log,
		Timeout:       s.timeout,
		Version:       s.impl.Version,
		Archives:      s.wk.artifacts, // one bound on the archives the server builds
		ShowLocations: opts.ShowLocations,
	})
	return s.guardWith(opts, u, u.SignIn), u.Assets()
}

// auditPage logs the decision on a page's read of skill content (file
// empty: the skill's page or zip).
func (s *Server) auditPage(r *http.Request, skill, file string) {
	if s.audit != nil {
		s.auditHTTP(r, s.httpCaller(r), skill, file)
	}
}
