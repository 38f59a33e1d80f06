package site

import (
	"net/http"

	"github.com/skillstore/skillstore/internal/artifact"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/skillsapi"
	"github.com/skillstore/skillstore/ui"
)

// The catalog pages (package ui) are served at / behind the guard /mcp
// has, so a page shows what an MCP client with the same credentials
// sees: the same token or identity provider, the same Origin and Host
// checks, the caller's view under the access policy, and an audit line
// for each read of skill content. A request the guard refuses for its
// credentials gets the page that asks for the token, not JSON. With a
// registry, a page of one of its skills lists the skill's versions and
// downloads each (registryVersions), under the same guard and view.

// pages returns the pages, guarded by g, and their assets (public: they
// hold nothing of the catalog).
func pages(srv *mcpserver.Server, opts Options, g *guard, archives *artifact.Cache) (pages, assets http.Handler) {
	var versions ui.VersionSource
	var reviews ui.ReviewSource
	if ro := opts.Registry; ro.Registry != nil {
		versions = registryVersions{srv: srv, reg: ro.Registry, label: ro.Label}
		if rev, ok := ro.Registry.(skillsapi.Reviewer); ok {
			reviews = registryReviews{srv: srv, rev: rev, label: ro.Label, canWrite: canWrite(srv, ro.Label)}
		}
	}
	var counts ui.UsageSource
	if c := srv.Usage(); c != nil { // a nil *usage.Counter is not a nil UsageSource
		counts = c
	}
	u := ui.New(ui.Options{
		View:          srv.ViewOf,
		TokenRequired: opts.AuthToken != "" || opts.Auth != nil,
		Audit:         srv.AuditRead,
		Resource:      opts.Resource,
		Logger:        srv.Logger(),
		Timeout:       srv.RequestTimeout(),
		Version:       srv.Version(),
		Archives:      archives, // one bound on the archives the server builds
		ShowLocations: opts.ShowLocations,
		Versions:      versions, // a registry's skills' versions, listed and downloaded
		Usage:         counts,
		Reviews:       reviews, // a registry's pending versions, to reviewers and writers
	})
	return g.wrap(u, u.SignIn), u.Assets()
}
