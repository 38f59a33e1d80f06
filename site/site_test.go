package site_test

import (
	"context"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

const initMsg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// newServer is an MCP server over fsys, one local source.
func newServer(t testing.TB, fsys fstest.MapFS) *mcpserver.Server {
	t.Helper()
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

// testServer is an MCP server over two skills and a broken one.
func testServer(t testing.TB) *mcpserver.Server {
	t.Helper()
	return newServer(t, fstest.MapFS{
		"calc/SKILL.md":       {Data: []byte("---\nname: calc\ndescription: Arithmetic <&> \"quoted\".\n---\n# Calc\n\u2028line sep\ttab \x1b esc ünï ✓\n")},
		"calc/big.txt":        {Data: []byte(strings.Repeat("line with \"quotes\" and \\ backslash\n", 3000))},
		"calc/latin1.txt":     {Data: []byte("caf\xe9")},
		"calc/bin.dat":        {Data: []byte{0, 1, 2}},
		"calc/empty.txt":      {Data: nil},
		"calc/huge.txt":       {Data: []byte(strings.Repeat("0123456789abcde\n", 1<<16))},
		"other/SKILL.md":      {Data: []byte("---\nname: other\ndescription: Other.\n---\nbody")},
		"broken/SKILL.md":     {Data: []byte("---\nname: [\n---\n")},
		"calc/docs/nested.md": {Data: []byte("nested")},
	})
}

// send makes one request to the site.
func send(t *testing.T, method, url, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, b := testutil.Do(t, req)
	return resp, string(b)
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
