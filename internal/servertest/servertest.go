// Package servertest makes the MCP server the tests of mcpserver and
// site share. It imports mcpserver, so mcpserver's internal tests
// (package mcpserver) cannot use it; mcpserver/mcptest is the suite run
// against a server, not a maker of one.
package servertest

import (
	"context"
	"io/fs"
	"log/slog"
	"testing"

	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// New is an MCP server over fsys: one local source labelled
// project at ./skills, default options, no log.
func New(t testing.TB, fsys fs.FS) *mcpserver.Server {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	s, err := store.New([]store.Source{{Label: "project", Location: "./skills", Kind: "local", FS: fsys}}, store.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(context.Background(), tools.New(s, tools.Options{}), mcpserver.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}
