package mcpserver

import (
	"context"
	"io/fs"
)

// ServeStdioForTest is serveStdio (stdio_test.go), for the external tests.
var ServeStdioForTest = serveStdio

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
