package site_test

import (
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/servertest"
	"github.com/skillstore/skillstore/mcpserver"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

const initMsg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// testServer is an MCP server over two skills and a broken one
// (fixture.EscapesMapFS).
func testServer(t testing.TB) *mcpserver.Server {
	t.Helper()
	return servertest.New(t, fixture.EscapesMapFS())
}

// TestMCPServerIsMCPOnly: mcpserver is the MCP server alone; the site is
// composed here. Its non-test files import none of the site's other
// parts, and ui does not import mcpserver.
func TestMCPServerIsMCPOnly(t *testing.T) {
	for _, tc := range []struct {
		dir       string
		forbidden []string
	}{
		{"../mcpserver", []string{"ui", "auth", "discovery", "site"}},
		{"../ui", []string{"mcpserver", "site"}},
	} {
		files, err := filepath.Glob(filepath.Join(tc.dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		parsed := 0
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			parsed++
			for _, imp := range f.Imports {
				path, err := strconv.Unquote(imp.Path.Value)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range tc.forbidden {
					if path == "github.com/skillstore/skillstore/"+p {
						t.Errorf("%s imports %s", name, path)
					}
				}
			}
		}
		if parsed == 0 {
			t.Errorf("%s: no Go files found", tc.dir)
		}
	}
}
