package mcpserver

import (
	"context"
	"io"
	"io/fs"
	"os"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// ServeStdio serves the skills in fsys over MCP on the process's stdin and
// stdout, until ctx ends or stdin closes: one call from a filesystem, such
// as an embed.FS compiled into the program, to a running MCP server.
//
// fsys holds skill folders at its root (NAME/SKILL.md), or is one skill's
// folder (SKILL.md at its root). An embed.FS holds the folder it embeds:
// for //go:embed skills, pass fs.Sub(fsys, "skills") (without it the
// catalog is empty, and the log says so). Skills that are left out or
// break the specification are logged (slog's default logger; stdout
// carries the protocol). fsys is not rescanned: an embed.FS never changes.
//
// It uses the defaults of store.New, tools.New and New; a program that
// wants several sources, access rules or HTTP builds those itself.
func ServeStdio(ctx context.Context, fsys fs.FS) error {
	return serveFS(ctx, fsys, os.Stdin, os.Stdout)
}

// serveFS is ServeStdio over in and out.
func serveFS(ctx context.Context, fsys fs.FS, in io.Reader, out io.Writer) error {
	s, err := store.New([]store.Source{{Label: "builtin", Location: "embedded", Kind: "embedded", FS: fsys}}, store.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	srv, err := New(ctx, tools.New(s, tools.Options{}), Options{})
	if err != nil {
		return err
	}
	return srv.ServeStdio(ctx, in, out)
}
