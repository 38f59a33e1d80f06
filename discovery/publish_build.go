package mcpserver

import (
	"github.com/skillstore/skillstore/internal/artifact"
	"github.com/skillstore/skillstore/internal/flight"
	"github.com/skillstore/skillstore/store"
)

// wellKnown is the .well-known publication's state: the artifacts built
// and kept (a Cache the pages' zips share, so one bound holds for every
// archive the server builds), the index builds in flight and the index.
type wellKnown struct {
	artifacts *artifact.Cache
	indexes   flight.Group[*store.Catalog, indexBody]
	index     wellKnownIndex
}

func newWellKnown(artifacts *artifact.Cache, logPanic func(string, any)) *wellKnown {
	wk := &wellKnown{artifacts: artifacts}
	wk.indexes.Recover = artifact.Recover(func(p *flight.Panic) { logPanic("the .well-known index", p) })
	wk.indexes.Timeout = artifact.BuildLimit
	return wk
}
