package mcpserver

import (
	"context"
	"io/fs"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/testutil"
)

// ServeStdioForTest is serveStdio (stdio_test.go), for the external tests.
var ServeStdioForTest = serveStdio

// WellKnownBuilds is how many .well-known artifact builds s started.
func WellKnownBuilds(s *Server) int64 { return s.wk.artifacts.Builds() }

// LimitWellKnownCachesForTest empties s's .well-known body caches and
// bounds them: mem bytes in memory (bodies up to a quarter of it each),
// disk bytes on disk. The kinds, digests and sizes built are kept.
func LimitWellKnownCachesForTest(s *Server, mem, disk int64) { s.wk.artifacts.Limit(mem, mem/4, disk) }

// WaitWellKnownForTest waits until no .well-known build is running.
func WaitWellKnownForTest(t testing.TB, s *Server) {
	testutil.Eventually(t, "the .well-known builds ended", func() bool { return !s.wk.indexes.Running() && !s.wk.artifacts.Running() })
}

// ExpireWellKnownIndexForTest makes s build its next index afresh.
func ExpireWellKnownIndexForTest(s *Server) {
	s.wk.index.mu.Lock()
	s.wk.index.built = time.Time{}
	s.wk.index.mu.Unlock()
}

// handle answers one message as a transport would, with nothing to stream to.
func (s *Server) handle(ctx context.Context, src source, msg []byte) answer {
	return s.accept(ctx, src, msg).run(nil)
}

// StallFS is stallFS (stdio_test.go), for the external tests.
type StallFS = stallFS

// NewStallFS is base's files, where a read of stall.txt lasts until its
// context ends.
func NewStallFS(base fs.FS) *StallFS {
	return &stallFS{m: base, started: make(chan struct{}, 16), ended: make(chan error, 16)}
}

// Started and Ended report each read of stall.txt starting and ending.
func (s *stallFS) Started() <-chan struct{} { return s.started }
func (s *stallFS) Ended() <-chan error      { return s.ended }
