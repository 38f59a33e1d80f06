package mcpserver_test

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/servertest"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/mcpserver/mcpgoclient"
	"github.com/skillstore/skillstore/mcpserver/mcptest"
	"github.com/skillstore/skillstore/site"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// fixtureProvenance is the provenance of newServer's skills, and
// remoteProvenance the same as an HTTP caller is shown it: the folder's
// label, not its path.
var (
	fixtureProvenance = &store.Provenance{Source: "project", Kind: "local", Location: "./skills"}
	remoteProvenance  = &store.Provenance{Source: "project", Kind: "local", Location: "project"}
)

func TestInProcess(t *testing.T) {
	c := mcpgoclient.New(servertest.New(t, fixture.MapFS()))
	defer c.Close()
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	mcptest.Run(t, c, mcptest.Options{WeatherPath: "./skills/weather", Provenance: fixtureProvenance})
}

// TestHTTP runs the whole surface over HTTP, stateful and stateless, with
// a shared token: no answer holds the token, nor the folder's path (an
// HTTP caller is shown the source's label) unless the operator asks for
// it with ShowLocations.
func TestHTTP(t *testing.T) {
	for _, tc := range []struct {
		name          string
		stateless     bool
		showLocations bool
	}{{"stateful", false, false}, {"stateless", true, false}, {"locations shown", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := servertest.New(t, fixture.MapFS())
			ts := httptest.NewServer(site.New(srv, site.Options{Stateless: tc.stateless, AuthToken: "s3cret-token", ShowLocations: tc.showLocations}))
			defer ts.Close()
			weather, prov, forbidden := "project/weather", remoteProvenance, []string{"s3cret-token", "./skills"}
			if tc.showLocations {
				weather, prov, forbidden = "./skills/weather", fixtureProvenance, forbidden[:1]
			}
			// 2025-06-18 lets the stateless fast path answer tools/call; the
			// latest version goes through mcp-go for everything.
			for _, version := range []string{"2025-06-18", ""} {
				wire := mcptest.NewWire()
				c, err := client.NewStreamableHttpClient(ts.URL+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer s3cret-token"}),
					transport.WithHTTPBasicClient(wire.Client()))
				if err != nil {
					t.Fatal(err)
				}
				if err := c.Start(context.Background()); err != nil {
					t.Fatal(err)
				}
				mcptest.Run(t, c, mcptest.Options{Forbidden: forbidden, ProtocolVersion: version, WeatherPath: weather, Provenance: prov})
				c.Close()
				wire.Forbid(t, forbidden...)
			}
		})
	}
}

// TestParityEmbedded checks, for every built-in example, that get_skill's
// Markdown is byte-identical to resources/read of the same URI.
func TestParityEmbedded(t *testing.T) {
	s, err := store.New([]store.Source{{Label: "builtin", Location: "builtin://", FS: backends.Examples()}}, store.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(context.Background(), tools.New(s, tools.Options{}), mcpserver.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	c := mcpgoclient.New(srv)
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION}}); err != nil {
		t.Fatal(err)
	}
	list, err := s.View(nil).List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sk := range list {
		names = append(names, sk.Name)
	}
	if diff := cmp.Diff([]string{"code-review", "commit-messages", "writing-skills"}, names); diff != "" {
		t.Fatalf("examples (-want +got):\n%s", diff)
	}
	for _, sk := range list {
		uri := tools.SkillURI(sk.Name)
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "get_skill", Arguments: map[string]any{"uri": uri}}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", uri, err, res)
		}
		rr, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Content[0].(mcp.TextContent).Text
		read := rr.Contents[0].(mcp.TextResourceContents).Text
		doc, err := fs.ReadFile(backends.Examples(), sk.Name+"/SKILL.md")
		if err != nil {
			t.Fatal(err)
		}
		if got != read || got != string(doc) {
			t.Errorf("%s: get_skill (%d bytes), resources/read (%d bytes) and the file (%d bytes) differ", uri, len(got), len(read), len(doc))
		}
	}
}

// TestHTTPGuards checks auth, Origin, body limits, health and readiness.
func TestHTTPGuards(t *testing.T) {
	srv := servertest.New(t, fixture.MapFS())
	ts := httptest.NewServer(site.New(srv, site.Options{AuthToken: "tok", MaxBodyBytes: 1024, AllowedOrigins: []string{"https://app.example"}}))
	defer ts.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	tests := []struct {
		name, path, auth, origin, body string
		want                           int
		host                           string
	}{
		{name: "no token", path: "/mcp", body: body, want: http.StatusUnauthorized},
		{name: "wrong token", path: "/mcp", auth: "Bearer nope", body: body, want: http.StatusUnauthorized},
		{name: "token without scheme", path: "/mcp", auth: "tok", body: body, want: http.StatusUnauthorized},
		{name: "other scheme", path: "/mcp", auth: "Basic tok", body: body, want: http.StatusUnauthorized},
		{name: "bearer in lower case", path: "/mcp", auth: "bearer tok", body: initialize, want: http.StatusOK},
		{name: "BEARER in upper case", path: "/mcp", auth: "BEARER tok", body: initialize, want: http.StatusOK},
		{name: "metrics rebinding", path: "/metrics", host: "evil.example", want: http.StatusForbidden},
		{name: "readyz rebinding", path: "/readyz", host: "evil.example:80", want: http.StatusForbidden},
		{name: "healthz rebinding", path: "/healthz", host: "evil.example", want: http.StatusForbidden},
		{name: "mcp rebinding", path: "/mcp", auth: "Bearer tok", body: body, host: "evil.example", want: http.StatusForbidden},
		{name: "metrics from loopback", path: "/metrics", host: "localhost", want: http.StatusOK},
		{name: "foreign origin", path: "/mcp", auth: "Bearer tok", origin: "https://evil.example", body: body, want: http.StatusForbidden},
		{name: "huge body", path: "/mcp", auth: "Bearer tok", body: `{"x":"` + strings.Repeat("a", 4096) + `"}`, want: http.StatusRequestEntityTooLarge},
		{name: "healthz open", path: "/healthz", want: http.StatusOK},
		{name: "readyz open", path: "/readyz", want: http.StatusOK},
		{name: "unknown path", path: "/nope", want: http.StatusNotFound},
	}
	for _, tt := range tests {
		method := http.MethodPost
		if tt.body == "" {
			method = http.MethodGet
		}
		req, err := http.NewRequest(method, ts.URL+tt.path, strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		if tt.origin != "" {
			req.Header.Set("Origin", tt.origin)
		}
		if tt.host != "" {
			req.Host = tt.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != tt.want {
			t.Errorf("%s: status %d (%s); want %d", tt.name, resp.StatusCode, b, tt.want)
		}
		if strings.Contains(string(b), "tok\"") {
			t.Errorf("%s: response echoes the token", tt.name)
		}
	}
	// Allowed and loopback origins pass.
	for _, origin := range []string{"https://app.example", "http://localhost:3000", "http://127.0.0.1:9"} {
		req, err := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer tok")
		req.Header.Set("Origin", origin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("origin %s: status %d", origin, resp.StatusCode)
		}
	}
}

// TestReadyzUnavailable: a source that cannot be listed makes /readyz
// answer 503 without naming the source.
func TestReadyzUnavailable(t *testing.T) {
	s, err := store.New([]store.Source{{Label: "org", Location: "s3://secret-bucket-name", FS: missingRoot{}}}, store.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(context.Background(), tools.New(s, tools.Options{}), mcpserver.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(site.New(srv, site.Options{}))
	defer ts.Close()
	resp, b := testutil.Request(t, http.MethodGet, ts.URL+"/readyz")
	if resp.StatusCode != http.StatusServiceUnavailable || string(b) != `{"error":"the skill sources cannot be listed; see the server log","status":"unavailable"}`+"\n" {
		t.Errorf("readyz: %d %s", resp.StatusCode, b)
	}
}

// missingRoot is a source whose root cannot be listed.
type missingRoot struct{}

func (missingRoot) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// TestPanicBecomesError checks that a panicking backend yields error
// answers over HTTP and the server keeps serving.
func TestPanicBecomesError(t *testing.T) {
	fsys := fixture.MapFS()
	s, err := store.New([]store.Source{{Label: "project", FS: panicFS{fsys}}}, store.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(context.Background(), tools.New(s, tools.Options{}), mcpserver.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(site.New(srv, site.Options{}))
	defer ts.Close()
	c, err := client.NewStreamableHttpClient(ts.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION}}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "read_file_in_skill", Arguments: map[string]any{"skill_name": "calculator", "file_path": "boom.txt"}}})
		if err != nil || !res.IsError || res.Content[0].(mcp.TextContent).Text != "Internal error in tool 'read_file_in_skill'; the server logged the details. Try again, or report it to the operator." {
			t.Fatalf("panicking tool: %+v %v", res, err)
		}
		if _, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "skill://calculator/boom.txt"}}); err == nil || err.Error() != "internal error: Internal error while answering resources/read; the server logged the details. Try again, or report it to the operator." {
			t.Fatalf("panicking resource: %v", err)
		}
	}
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "list_skills", Arguments: map[string]any{}}})
	if err != nil || res.IsError {
		t.Fatalf("server stopped serving: %v", err)
	}
}

// panicFS panics when asked for boom.txt.
type panicFS struct{ m fstest.MapFS }

func (p panicFS) Open(name string) (fs.File, error) {
	if strings.HasSuffix(name, "boom.txt") {
		panic("backend exploded")
	}
	return p.m.Open(name)
}

// hidingPolicy shows every caller the fixture's skills but those
// hostile.HiddenSkills names: weather, and the broken folder's problem.
// Stdio serves a principal of its own, so the policy applies there too.
const hidingPolicy = `default: deny
rules:
  - sources: [project]
    skills: [weather, broken]
stdio:
  subject: viewer
`

// staticPolicy is a PolicySource that never changes.
type staticPolicy struct{ p *access.Policy }

func (s staticPolicy) Policy() *access.Policy { return s.p }

// hidingServer serves the fixture under hidingPolicy.
func hidingServer(t *testing.T) *mcpserver.Server {
	t.Helper()
	pol, err := access.Parse("policy.yaml", []byte(hidingPolicy))
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.New([]store.Source{{Label: "project", Location: "./skills", Kind: "local", FS: fixture.MapFS()}}, store.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(context.Background(), tools.New(s, tools.Options{}), mcpserver.Options{Logger: quiet, Access: staticPolicy{pol}})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// TestHTTPHidden runs the hostile-input table's hidden column over HTTP,
// stateful and stateless, on both protocol versions: the anonymous
// caller's view (an access policy) hides the skills the cases name, and
// every answer must be a missing skill's.
func TestHTTPHidden(t *testing.T) {
	srv := hidingServer(t)
	for _, stateless := range []bool{false, true} {
		ts := httptest.NewServer(site.New(srv, site.Options{Stateless: stateless}))
		for _, version := range []string{"2025-06-18", mcp.LATEST_PROTOCOL_VERSION} {
			t.Run(fmt.Sprintf("stateless=%v/%s", stateless, version), func(t *testing.T) {
				c, err := client.NewStreamableHttpClient(ts.URL + "/mcp")
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if err := c.Start(context.Background()); err != nil {
					t.Fatal(err)
				}
				mcptest.RunHidden(t, c, mcptest.Options{Forbidden: []string{"./skills"}, ProtocolVersion: version})
			})
		}
		ts.Close()
	}
}

// TestStdioHidden runs the hostile-input table's hidden column over
// stdio, on both protocol versions: the policy's stdio principal does
// not see the skills the cases name.
func TestStdioHidden(t *testing.T) {
	srv := hidingServer(t)
	for _, version := range []string{"2025-06-18", mcp.LATEST_PROTOCOL_VERSION} {
		t.Run(version, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			served := make(chan struct{})
			go func() {
				srv.ServeStdio(context.Background(), inR, outW)
				outW.Close()
				close(served)
			}()
			c := client.NewClient(transport.NewIO(outR, inW, nil))
			defer func() { c.Close(); inW.Close(); <-served }()
			if err := c.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			mcptest.RunHidden(t, c, mcptest.Options{ProtocolVersion: version})
		})
	}
}
