package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/gittest"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/mcpserver/mcptest"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// binary is the skillstore binary built once for the subprocess tests.
var binary string

func TestMain(m *testing.M) { os.Exit(testutil.MainWithBinary(m, ".", &binary)) }

// writeFixture writes files under a new temporary folder.
func writeFixture(t testing.TB, files map[string][]byte) string { return testutil.TempTree(t, files) }

// TestStdio drives the built binary over its stdin and stdout with the
// whole MCP surface suite.
func TestStdio(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	// A link out of the skill folder must fail like any traversal.
	os.Symlink(filepath.Join(dir, "weather", "secret.md"), filepath.Join(dir, "calculator", "link.md"))
	// 2025-06-18 takes the dispatcher's fast path for tools/call; the
	// latest version goes through mcp-go for everything.
	for _, version := range []string{"2025-06-18", ""} {
		t.Run("protocol="+version, func(t *testing.T) {
			c, err := client.NewStdioMCPClient(binary, []string{"HOME=" + t.TempDir()}, "serve", "--source", "project="+dir, "--log-level", "warn")
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			mcptest.Run(t, c, mcptest.Options{Forbidden: []string{dir}, ProtocolVersion: version, WeatherPath: filepath.Join(dir, "weather")})
		})
	}
}

// run runs the binary and returns stdout, stderr and the exit code.
func run(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang fails, not blocks
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatalf("skillstore %v did not finish within a minute", args)
	}
	return out.String(), errb.String(), code
}

// TestCLI runs each command and compares its whole stdout and stderr.
func TestCLI(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	bad := writeFixture(t, map[string][]byte{
		"Bad_Name/SKILL.md": []byte("---\nname: Bad_Name\ndescription: breaks the naming rule\n---\n"),
		"good/SKILL.md":     []byte("---\nname: good\ndescription: fine\n---\n"),
		"broken/SKILL.md":   []byte("---\nname: [\n---\n"),
	})
	const brokenYAML = "Skill 'broken' is invalid: the YAML frontmatter does not parse: line 1: did not find expected node content"
	var files strings.Builder
	for _, p := range fixture.CalculatorFiles() {
		fmt.Fprintf(&files, "%10d  %s\n", len(fixture.Skills()["calculator/"+p]), p)
	}
	openai, mcpTools := toolDefinitions(t, dir)
	endpoint := "s3://bucket?region=us-east-1&endpoint=http://minio:hunter2@127.0.0.1:1&use_path_style=true&timeout=2s"
	redactedEndpoint := "s3://bucket?endpoint=http%3A%2F%2FREDACTED%40127.0.0.1%3A1&region=us-east-1&timeout=2s&use_path_style=true"
	tests := []struct {
		name     string
		env      []string
		args     []string
		code     int
		out, err string
	}{
		{"list", nil, []string{"list", "-s", dir}, 0,
			"NAME        SOURCE   DESCRIPTION\ncalculator  project  Basic arithmetic operations.\nweather     project  Weather forecasts by location.\n",
			"skillstore: not served: broken [project]: " + brokenYAML + "\nskillstore: not served: nodoc [project]: SKILL.MD not found for skill 'nodoc'\n"},
		{"list env", []string{"SKILLSTORE_SOURCES=org=" + dir}, []string{"list"}, 0,
			"NAME        SOURCE  DESCRIPTION\ncalculator  org     Basic arithmetic operations.\nweather     org     Weather forecasts by location.\n",
			"skillstore: not served: broken [org]: " + brokenYAML + "\nskillstore: not served: nodoc [org]: SKILL.MD not found for skill 'nodoc'\n"},
		{"list builtin", nil, []string{"list"}, 0,
			"NAME             SOURCE   DESCRIPTION\n" +
				"code-review      builtin  Review a code change (a diff, pull request or set of files) for correctness, se…\n" +
				"commit-messages  builtin  Write clear git commit messages in the Conventional Commits style and check the…\n" +
				"writing-skills   builtin  Author, structure and validate Agent Skills (a folder with a SKILL.md and suppo…\n",
			"skillstore: no skills folder found (./.agents/skills, ./.claude/skills, ~/.agents/skills, ~/.claude/skills); serving the built-in example skills. Give --source DIR|URL to serve your own.\n"},
		{"get", nil, []string{"get", "calculator", "-s", dir}, 0, fixture.CalculatorDoc, ""},
		{"get uri", nil, []string{"get", "skill://weather/SKILL.md", "-s", dir}, 0, fixture.WeatherDoc, ""},
		{"get missing", nil, []string{"get", "nope", "-s", dir}, 1, "", "skillstore: Skill 'nope' not found in skills folder\nRun `skillstore list` to see every skill served.\n"},
		{"read", nil, []string{"read", "calculator", "examples/basic.py", "-s", dir}, 0, fixture.BasicPy, ""},
		{"files", nil, []string{"files", "calculator", "-s", dir}, 0, files.String(), ""},
		{"search", nil, []string{"search", "forecast", "for", "Paris", "-s", dir}, 0,
			"Skills matching \"forecast for Paris\", best first. Print one with `skillstore get NAME`.\n\n1. weather: Weather forecasts by location.\n", ""},
		{"search json", nil, []string{"search", "--json", "-n", "1", "arithmetic", "-s", dir}, 0, `{
  "skills": [
    "calculator"
  ],
  "details": [
    {
      "name": "calculator",
      "description": "Basic arithmetic operations.",
      "uri": "skill://calculator/SKILL.md",
      "source": "project"
    }
  ]
}
`, ""},
		{"search stop words", nil, []string{"search", "how", "do", "I", "-s", dir}, 1, "",
			"skillstore: The query 'how do I' has no words to search for: only punctuation, common words such as 'the' and 'how', or words over 64 characters\n\n" +
				"Name the task or its subject in a few words, e.g. \"fill a PDF form\" or \"review a pull request\".\n"},
		{"search bad limit", nil, []string{"search", "-n", "51", "weather", "-s", dir}, 1, "",
			"skillstore: Argument 'limit' of tool 'search_skills' must be between 1 and 50, got 51\n\nLeave limit out for the 10 best matches.\n"},
		{"validate ok", nil, []string{"validate", filepath.Join(dir, "weather")}, 0, "ok    weather\n\n1 valid, 0 invalid\n", ""},
		{"validate bad", nil, []string{"validate", bad}, 1,
			"FAIL  Bad_Name\n" +
				"      name: \"Bad_Name\" must use only lowercase letters, digits and single hyphens, and must not start or end with a hyphen\n" +
				"      fix: rename it to bad-name\n" +
				"ok    good\n" +
				"FAIL  broken: " + brokenYAML + "\n\n1 valid, 2 invalid\n", ""},
		{"tools openai", nil, []string{"tools", "-s", dir}, 0, openai, ""},
		{"tools mcp", nil, []string{"tools", "--format", "mcp", "-s", dir}, 0, mcpTools, ""},
		{"version", nil, []string{"version"}, 0, "skillstore dev\n", ""},
		{"--version", nil, []string{"--version"}, 0, "skillstore dev\n", ""},
		{"allow-host given a URL", nil, []string{"serve", "--http", "127.0.0.1:0", "--allow-host", "https://skills.example.com/", "-s", dir}, 1, "",
			"skillstore: --allow-host \"https://skills.example.com/\": give the Host header clients send through the proxy, a name or address with an optional :PORT (e.g. skills.example.com or skills.example.com:443), not a URL\n"},
		{"missing source", nil, []string{"list", "-s", filepath.Join(dir, "nope")}, 1, "",
			"skillstore: source " + filepath.Join(dir, "nope") + ": skills folder " + filepath.Join(dir, "nope") + " does not exist: file does not exist\n"},
		{"unknown scheme", nil, []string{"list", "-s", "ftp://x"}, 1, "",
			`skillstore: source ftp://x: source ftp://x: unknown scheme "ftp"; supported: azblob, builtin, file, git+http, git+https, git+ssh, gs, http, https, mem, oci, s3, or a directory or .zip path` + "\n"},
		{"credential never echoed", nil, []string{"list", "-s", "s3://AKIA:hunter2@bucket?bogus=1"}, 1, "",
			`skillstore: source s3://REDACTED@bucket?bogus=1: open s3://REDACTED@bucket?bogus=1: open bucket s3://REDACTED@bucket?bogus=1: unknown query parameter "bogus"` + "\n"},
		{"credential in endpoint never echoed", nil, []string{"list", "-s", endpoint}, 1, "",
			"skillstore: Permission denied reading skills folder\nskillstore: check the credentials for " + redactedEndpoint +
				" (AWS_*, GOOGLE_APPLICATION_CREDENTIALS or AZURE_STORAGE_* for object storage; file permissions for a folder)\n"},
		{"public bind needs token", nil, []string{"serve", "--http", "0.0.0.0:0", "-s", dir}, 1, "",
			"skillstore: --http 0.0.0.0:0 listens beyond this machine; set --auth-token-file FILE or SKILLSTORE_AUTH_TOKEN, or --oauth-issuer or --token-file (or pass --insecure-no-auth to accept the risk)\n"},
	}
	// Before its last lines, the endpoint row's stderr holds the cloud SDK's
	// log of the machine's credential chain (environment, EC2 metadata),
	// which differs from machine to machine: its last lines are compared.
	suffix := map[string]bool{"credential in endpoint never echoed": true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, tt.env, tt.args...)
			if strings.Contains(out+errOut, "hunter2") {
				t.Error("credential in output")
			}
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			if diff := cmp.Diff(tt.out, out); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if suffix[tt.name] && strings.HasSuffix(errOut, tt.err) {
				return
			}
			if diff := cmp.Diff(tt.err, errOut); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

// toolDefinitions are what `skillstore tools` prints for dir, in each
// format: the library's definitions, as the CLI writes JSON.
func toolDefinitions(t *testing.T, dir string) (openai, mcpTools string) {
	t.Helper()
	ctx := context.Background()
	s, err := store.New([]store.Source{{Label: "project", Location: dir, FS: os.DirFS(dir)}}, store.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	tl := tools.New(s, tools.Options{})
	var a, b bytes.Buffer
	if err := writeJSON(&a, tl.Definitions(ctx)); err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(ctx, tl, mcpserver.Options{Version: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(&b, map[string]any{"tools": srv.Tools()}); err != nil {
		t.Fatal(err)
	}
	return a.String(), b.String()
}

func TestValidateJSON(t *testing.T) {
	bad := writeFixture(t, map[string][]byte{"x/SKILL.md": []byte("---\nname: y\ndescription: d\n---\n")})
	out, _, code := run(t, nil, "validate", "--json", bad)
	var res catalogOut
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 1 {
		t.Fatalf("code %d, %v\n%s", code, err, out)
	}
	if res.Valid || len(res.Skills) != 1 {
		t.Fatalf("%+v", res)
	}
	want := []store.Diagnostic{{Field: "name", Message: `"y" does not match the folder name "x"`, Fix: "rename the folder or set `name: x`"}}
	if diff := cmp.Diff(want, res.Skills[0].Diagnostics); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

func TestParseSourceSpec(t *testing.T) {
	for in, want := range map[string]sourceSpec{
		"./skills":                  {"", "./skills"},
		"personal=~/.agents/skills": {"personal", "~/.agents/skills"},
		"ORG=s3://b?prefix=a/&x=y":  {"org", "s3://b?prefix=a/&x=y"},
		"s3://b?prefix=a=b":         {"", "s3://b?prefix=a=b"},
		"C:=x":                      {"", "C:=x"},
		" team = ./x":               {"", "team = ./x"},
	} {
		if got := parseSourceSpec(in); got != want {
			t.Errorf("parseSourceSpec(%q) = %+v; want %+v", in, got, want)
		}
	}
}

// TestServeHTTPBinary walks every surface of the built binary over HTTP
// — the MCP suite at two protocol versions, the pages, the .well-known
// index and archives, the probes — and checks that no answer holds where
// its sources are on disk: an HTTP caller is shown a folder's label, an
// archive's too (its copy of weather, shadowed, on the pages), and a
// source whose folder went away is "not found" without its path.
func TestServeHTTPBinary(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	gone := t.TempDir() // a source whose folder goes away (empty: a failing source's skills stay served)
	zip := filepath.Join(t.TempDir(), "pack.zip")
	if err := os.WriteFile(zip, testutil.Zip(t, map[string][]byte{"weather/SKILL.md": []byte(fixture.WeatherDoc)}), 0o644); err != nil { // a copy dir's weather shadows
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "serve", "--http", "127.0.0.1:0", "-s", dir, "-s", "gone="+gone, "-s", zip, "--refresh", "100ms")
	var errb testutil.SyncBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	url := testutil.WaitForMCPURL(t, &errb)
	wire := mcptest.NewWire()
	web := wire.Client()
	fetch := func(path string) string {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(url, "/mcp")+path, nil)
		resp, err := web.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if body := fetch("/skills/weather"); !strings.Contains(body, "Shadowed copies") {
		t.Fatalf("weather's page names no shadowed copy: %s", body)
	}
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the removed folder reported", func() bool { return strings.Contains(fetch("/sources"), "not found") })
	for _, version := range []string{"2025-06-18", ""} {
		c, err := client.NewStreamableHttpClient(url, transport.WithHTTPBasicClient(web))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		mcptest.Run(t, c, mcptest.Options{Forbidden: []string{dir, gone, zip}, ProtocolVersion: version, WeatherPath: "project/weather"})
		c.Close()
	}
	for _, p := range []string{"/", "/?q=weather", "/skills/weather", "/skills/calculator", "/skills/calculator/files/docs/deep/notes.md",
		"/skills/x", "/skills/no-such", "/sources", "/connect", "/.well-known/agent-skills/index.json",
		"/.well-known/agent-skills/weather.zip", "/.well-known/agent-skills/no-such.zip", "/readyz", "/metrics", "/healthz"} {
		fetch(p)
	}
	wire.Forbid(t, dir, gone, zip)
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Errorf("graceful shutdown: %v\n%s", err, errb.String())
	}
}

// TestWatchLocalFolder: with periodic rescans off, a skill added to a
// watched folder appears in list_skills and clients are told the lists changed.
func TestWatchLocalFolder(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	c, err := client.NewStdioMCPClient(binary, []string{"HOME=" + t.TempDir()}, "serve", "--source", dir, "--refresh", "0", "--log-level", "error")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	notified := make(chan string, 16)
	c.OnNotification(func(n mcp.JSONRPCNotification) { notified <- n.Method })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil { // installs the notification handler
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: "2025-06-18"}}); err != nil {
		t.Fatal(err)
	}
	// The lists the client has seen (initialize is answered before the
	// first catalog is listed; the lists wait for it).
	if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "fresh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fresh", "SKILL.md"), []byte("---\nname: fresh\ndescription: Added while serving.\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !testutil.Within(10*time.Second, func() bool {
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "list_skills", Arguments: map[string]any{}}})
		return err == nil && strings.Contains(res.Content[0].(mcp.TextContent).Text, "- fresh: Added while serving.")
	}) {
		t.Fatal("the new skill never appeared")
	}
	select {
	case m := <-notified:
		if m != "notifications/tools/list_changed" && m != "notifications/resources/list_changed" && m != "notifications/prompts/list_changed" {
			t.Errorf("notification %s", m)
		}
	case <-time.After(5 * time.Second):
		t.Error("no list_changed notification")
	}
}

// TestHiddenFiles: hidden files in a skill folder (a git clone's .git,
// .env) are neither listed nor served by the CLI, unless allowed by name.
func TestHiddenFiles(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	out, errOut, code := run(t, nil, "files", "calculator", "-s", dir)
	if code != 0 || strings.Contains(out, ".env") || strings.Contains(out, ".git") || strings.Contains(out, ".draft") || !strings.Contains(out, "examples/basic.py") {
		t.Errorf("files: exit %d\n%s%s", code, out, errOut)
	}
	for _, p := range []string{".env", ".git/config", "docs/.draft.md"} {
		out, errOut, code := run(t, nil, "read", "calculator", p, "-s", dir)
		if code != 1 || !strings.Contains(errOut, "File '"+p+"' not found in skill 'calculator'") || strings.Contains(out+errOut, fixture.HiddenSecret) {
			t.Errorf("read %s: exit %d\n%s%s", p, code, out, errOut)
		}
	}
	out, errOut, code = run(t, nil, "read", "calculator", ".env", "--allow-hidden", ".env", "-s", dir)
	if code != 0 || !strings.Contains(out, fixture.HiddenSecret) {
		t.Errorf("read .env with --allow-hidden .env: exit %d\n%s%s", code, out, errOut)
	}
	if out, _, _ := run(t, nil, "files", "calculator", "--allow-hidden", ".git", "-s", dir); !strings.Contains(out, ".git/config") || strings.Contains(out, ".env") {
		t.Errorf("files with --allow-hidden .git:\n%s", out)
	}
}

// TestSpecialFiles: FIFOs in a skills folder — as a supporting file, behind
// a symbolic link, and as a SKILL.md — never block a command: they are not
// listed, reading one fails as not found, and the other skills are served.
func TestSpecialFiles(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	if err := os.MkdirAll(filepath.Join(dir, "piped"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"calculator/pipe.txt", "piped/SKILL.md"} {
		if err := syscall.Mkfifo(filepath.Join(dir, p), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	if err := os.Symlink("pipe.txt", filepath.Join(dir, "calculator", "link-to-pipe.txt")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, errOut, code := run(t, nil, "files", "calculator", "-s", dir)
	var want strings.Builder
	for _, p := range fixture.CalculatorFiles() {
		fmt.Fprintf(&want, "%10d  %s\n", len(fixture.Skills()["calculator/"+p]), p)
	}
	if code != 0 || out != want.String() {
		t.Errorf("files: exit %d\n%s%s", code, out, errOut)
	}
	for _, p := range []string{"pipe.txt", "link-to-pipe.txt"} {
		want := "skillstore: File '" + p + "' not found in skill 'calculator'\n"
		if _, errOut, code := run(t, nil, "read", "calculator", p, "-s", dir); code != 1 || errOut != want {
			t.Errorf("read %s: exit %d\n%s", p, code, errOut)
		}
	}
	if out, errOut, code := run(t, nil, "list", "-s", dir); code != 0 ||
		out != "NAME        SOURCE   DESCRIPTION\ncalculator  project  Basic arithmetic operations.\nweather     project  Weather forecasts by location.\n" {
		t.Errorf("list: exit %d\n%s%s", code, out, errOut)
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("commands took %v", time.Since(start))
	}
	// A server over the folder answers initialize and serves the others.
	c, ctx := serveStdio(t, t.TempDir(), "--source", "project="+dir)
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "read_file_in_skill", Arguments: map[string]any{"skill_name": "calculator", "file_path": "pipe.txt"}}})
	if err != nil || !res.IsError {
		t.Fatalf("read pipe.txt: %v %+v", err, res)
	}
	res, err = c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "get_skill", Arguments: map[string]any{"skill_name": "weather"}}})
	if err != nil || res.IsError {
		t.Fatalf("get_skill weather: %v %+v", err, res)
	}
}

// TestValidateFlagsUnservable: validate reports what the server cannot
// serve — YAML aliases, and values JSON cannot carry — while the other
// skills stay valid.
func TestValidateFlagsUnservable(t *testing.T) {
	dir := writeFixture(t, map[string][]byte{
		"good/SKILL.md":  []byte("---\nname: good\ndescription: Fine.\n---\nbody"),
		"alias/SKILL.md": []byte("---\nname: alias\ndescription: d\nx: &a [1]\ny: *a\n---\nbody"),
		"nan/SKILL.md":   []byte("---\nname: nan\ndescription: d\nscore: .nan\n---\nbody"),
	})
	out, errOut, code := run(t, nil, "validate", dir)
	want := "ok    good\nFAIL  nan\n" +
		"      score: holds .nan or .inf, which JSON cannot carry, so hosts that read the frontmatter are not served this skill\n" +
		"      fix: quote the value, e.g. score: \".nan\"\n" +
		"FAIL  alias: Skill 'alias' is invalid: the YAML frontmatter uses an alias (*a), which skillstore does not expand: write the value out\n\n" +
		"1 valid, 2 invalid\n"
	if code != 1 || out != want || errOut != "" {
		t.Errorf("validate: exit %d\n%s%s", code, out, errOut)
	}
	// Lenient listing serves nan (the skills extension leaves it out).
	if out, errOut, code := run(t, nil, "list", "-s", dir); code != 0 || out != "NAME  SOURCE   DESCRIPTION\ngood  project  Fine.\nnan   project  d\n" ||
		errOut != "skillstore: not served: alias [project]: Skill 'alias' is invalid: the YAML frontmatter uses an alias (*a), which skillstore does not expand: write the value out\n" {
		t.Errorf("list: exit %d\n%s%s", code, out, errOut)
	}
}

// TestAmbiguousArchive: a zip with two entries for one path is refused
// when it is opened, naming the archive and the path.
func TestAmbiguousArchive(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range []string{"a/SKILL.md", "a/x.md", "a/x.md"} {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte("---\nname: a\ndescription: d\n---\n")); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	pack := filepath.Join(dir, "pack.zip")
	if err := os.WriteFile(pack, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := run(t, nil, "list", "--source", pack)
	if code != 1 || errOut != "skillstore: source "+pack+`: archive pack.zip: unsafe archive: entry "a/x.md" appears twice`+"\n" {
		t.Errorf("exit %d\n%s", code, errOut)
	}
}

// TestSkillPathFromHome: the Skill tool shows a skill in a personal folder
// from "~", never the absolute home path.
func TestSkillPathFromHome(t *testing.T) {
	home := t.TempDir()
	testutil.WriteTree(t, filepath.Join(home, ".agents", "skills"), map[string][]byte{
		"pdf/SKILL.md": []byte("---\nname: pdf\ndescription: PDFs.\n---\nbody"),
	})
	c, ctx := serveStdio(t, home)
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "Skill", Arguments: map[string]any{"skill_name": "pdf"}}})
	if err != nil || res.IsError {
		t.Fatalf("Skill: %v %+v", err, res)
	}
	text := res.Content[0].(mcp.TextContent).Text
	if text != "Skill: pdf (Type: personal)\nPath: ~/.agents/skills/pdf\n\n---\nname: pdf\ndescription: PDFs.\n---\nbody" {
		t.Errorf("Skill output:\n%s", text)
	}
}

// TestDeepFolders: a chain of nested folders deeper than the store's
// bound is neither listed nor served, and costs a listing nothing.
func TestDeepFolders(t *testing.T) {
	deep := strings.Repeat("d/", 40) + "bottom.md"
	dir := writeFixture(t, map[string][]byte{
		"s/SKILL.md":       []byte("---\nname: s\ndescription: Deep.\n---\nbody"),
		"s/" + deep:        []byte("deep"),
		"s/a/b/shallow.md": []byte("shallow"),
	})
	out, errOut, code := run(t, nil, "files", "s", "-s", dir)
	if code != 0 || out != "        39  SKILL.md\n         7  a/b/shallow.md\n" {
		t.Errorf("files: exit %d\n%s%s", code, out, errOut)
	}
	if _, errOut, code := run(t, nil, "read", "s", deep, "-s", dir); code != 1 || withoutLogs(errOut) != "skillstore: File '"+deep+"' not found in skill 's'\n" {
		t.Errorf("read deep: exit %d\n%s", code, errOut)
	}
}

// withoutLogs is stderr without its log lines (time=…): what a user reads.
func withoutLogs(stderr string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(stderr, "\n") {
		if !strings.HasPrefix(line, "time=") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// serveStdio starts "skillstore serve" with HOME set to home and the given
// flags, connects an mcp-go client over its stdio and initializes it; the
// context bounds the test's calls.
func serveStdio(t *testing.T, home string, flags ...string) (*client.Client, context.Context) {
	t.Helper()
	c, err := client.NewStdioMCPClient(binary, []string{"HOME=" + home}, append([]string{"serve", "--log-level", "error"}, flags...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: "2025-11-25"}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c, ctx
}

// stdioServer is the binary serving MCP over stdio, driven a line at a time.
type stdioServer struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.Writer
	answers chan map[string]any
	stderr  testutil.SyncBuffer
}

// startStdio starts `skillstore serve ARGS...` with env added to a bare
// environment (a fresh HOME, PATH).
func startStdio(t *testing.T, env []string, args ...string) *stdioServer {
	t.Helper()
	s := &stdioServer{t: t, answers: make(chan map[string]any, 64)}
	s.cmd = exec.Command(binary, append([]string{"serve"}, args...)...)
	s.cmd.Env = append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, env...)
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.cmd.Stderr = &s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("the server wrote %q to stdout: %v", sc.Bytes(), err)
				continue
			}
			if m["id"] != nil {
				s.answers <- m
			}
		}
		close(s.answers)
	}()
	return s
}

// send writes one message.
func (s *stdioServer) send(msg string) {
	if _, err := io.WriteString(s.stdin, msg+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// await returns the next answer.
func (s *stdioServer) await(what string) map[string]any {
	s.t.Helper()
	select {
	case m, ok := <-s.answers:
		if !ok {
			s.t.Fatalf("%s: the server closed stdout\n%s", what, s.stderr.String())
		}
		return m
	case <-time.After(20 * time.Second):
		s.t.Fatalf("%s: no answer\n%s", what, s.stderr.String())
	}
	return nil
}

// initialize starts a 2025-11-25 session.
func (s *stdioServer) initialize() {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := s.await("initialize"); m["result"] == nil {
		s.t.Fatalf("initialize: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// blackhole accepts TCP connections on 127.0.0.1 and never answers: a
// store that hangs. The connections close when the test ends.
func blackhole(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go io.Copy(io.Discard, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// TestStuckSource: with one source that never answers, the server over
// stdio still answers initialize and ping; tool calls that need the
// sources fail within --request-timeout with a message saying so; and
// SIGTERM ends the process at once, with status 0.
func TestStuckSource(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	stuck := "s3://skills?region=us-east-1&use_path_style=true&endpoint=http://" + blackhole(t)
	srv := startStdio(t, []string{"AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "AWS_EC2_METADATA_DISABLED=true"},
		"--request-timeout", "1s", "--log-level", "error", "-s", "project="+dir, "-s", "stuck="+stuck)
	srv.initialize()
	srv.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"calculator"}}}`)
	srv.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	got := map[float64]string{}
	var order []float64
	for range 2 {
		m := srv.await("tools/call and ping")
		b, err := json.Marshal(m["result"])
		if err != nil {
			t.Fatal(err)
		}
		got[m["id"].(float64)] = string(b)
		order = append(order, m["id"].(float64))
	}
	if got[3] != "{}" || order[0] != 3 {
		t.Errorf("ping: %s; answers in order %v (ping must not wait for the stuck call)", got[3], order)
	}
	if got[2] != `{"content":[{"text":"The skill source did not answer within the server's time limit\n\n`+
		`Try again; if it persists, ask the operator to check the skill source and the server log.","type":"text"}],"isError":true}` {
		t.Errorf("get_skill over a stuck source: %s", got[2])
	}
	start := time.Now()
	srv.cmd.Process.Signal(syscall.SIGTERM)
	if err := srv.cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v\n%s", err, srv.stderr.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("SIGTERM took %v to end the process", d)
	}
}

// TestExtensionLimits: skills over the skills extension's limits (SEP-2640:
// 512 files, 16 MiB) are reported by validate, left out of skills/list with
// one log line each however often it is asked, and still served by tools.
func TestExtensionLimits(t *testing.T) {
	files := map[string][]byte{
		"small/SKILL.md": []byte("---\nname: small\ndescription: Small.\n---\nbody"),
		"many/SKILL.md":  []byte("---\nname: many\ndescription: Many files.\n---\nbody"),
		"big/SKILL.md":   []byte("---\nname: big\ndescription: Big files.\n---\nbody"),
	}
	for i := range 512 {
		files[fmt.Sprintf("many/refs/%03d.md", i)] = []byte("x")
	}
	dir := writeFixture(t, files)
	f, err := os.Create(filepath.Join(dir, "big", "data.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(17 << 20); err != nil { // sparse
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	out, errOut, code := run(t, nil, "validate", dir)
	want := "ok    big\n" +
		"      warning: not published through MCP's skills extension (SEP-2640): its files hold 17825838 bytes; the skills extension's limit is 16777216 (16 MiB) per skill\n" +
		"ok    many\n" +
		"      warning: not published through MCP's skills extension (SEP-2640): it has 513 files; the skills extension's limit is 512 per skill\n" +
		"ok    small\n\n3 valid, 0 invalid\n"
	if code != 0 || out != want {
		t.Errorf("validate: exit %d\n%s%s", code, out, errOut)
	}

	srv := startStdio(t, nil, "--source", dir)
	srv.initialize()
	for id := 2; id < 4; id++ {
		srv.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"skills/list"}`, id))
		var uris []any
		res, _ := srv.await("skills/list")["result"].(map[string]any)
		list, _ := res["skills"].([]any)
		for _, e := range list {
			uris = append(uris, e.(map[string]any)["uri"])
		}
		if diff := cmp.Diff([]any{"skill://small/SKILL.md"}, uris); diff != "" {
			t.Errorf("skills/list (-want +got):\n%s", diff)
		}
	}
	srv.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"read_file_in_skill","arguments":{"skill_name":"many","file_path":"refs/511.md"}}}`)
	if res, _ := srv.await("read_file_in_skill")["result"].(map[string]any); res == nil || res["isError"] == true || res["content"].([]any)[0].(map[string]any)["text"] != "x" {
		t.Errorf("read_file_in_skill many: %v", res)
	}
	logs := srv.stderr.String()
	for _, name := range []string{"many", "big"} {
		if n := strings.Count(logs, "skill left out of the skills extension"); n != 2 || !strings.Contains(logs, "skill="+name) {
			t.Errorf("log lines for %s (want one each):\n%s", name, logs)
		}
	}
}

// TestStuckSourceHTTP: SIGTERM ends an HTTP server at once, with status 0,
// even while a request waits for a store that never answers.
func TestStuckSourceHTTP(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	stuck := "s3://skills?region=us-east-1&use_path_style=true&endpoint=http://" + blackhole(t)
	cmd := exec.Command(binary, "serve", "--http", "127.0.0.1:0", "--stateless", "--request-timeout", "1m", "-s", "project="+dir, "-s", "stuck="+stuck)
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "AWS_EC2_METADATA_DISABLED=true"}
	var errb testutil.SyncBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	url := testutil.WaitForMCPURL(t, &errb)
	answered := make(chan string, 1)
	go func() {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"calculator"}}}`))
		if err != nil {
			answered <- err.Error()
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered <- string(b)
	}()
	time.Sleep(500 * time.Millisecond) // the call is waiting for the catalog (real time: nothing outside the process shows a call waiting in it)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v\n%s", err, errb.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("SIGTERM took %v to end the process", d)
	}
	select {
	case a := <-answered:
		t.Logf("the waiting call got: %.200s", a)
	case <-time.After(5 * time.Second):
		t.Error("the waiting call never ended")
	}
}

// TestGitSourceCLI: list reads a git repository with no server, shows the
// commit each skill comes from, and a bad ref is a clear error.
func TestGitSourceCLI(t *testing.T) {
	s := gittest.NewServer(t)
	r := s.Repo(t, "org/skills")
	sha := r.Commit("main", map[string][]byte{"skills/weather/SKILL.md": []byte("---\nname: weather\ndescription: Forecasts.\n---\n# Weather\n")})
	out, errOut, code := run(t, nil, "list", "--source", r.URL+"?path=skills/")
	if code != 0 || out != "NAME     SOURCE            DESCRIPTION\nweather  org@"+sha[:12]+"  Forecasts.\n" {
		t.Errorf("list: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = run(t, nil, "list", "--json", "--source", r.URL+"?path=skills/")
	var listed struct {
		Skills []struct {
			Name     string `json:"name"`
			Revision string `json:"revision"`
		} `json:"skills"`
	}
	if err := json.Unmarshal([]byte(out), &listed); err != nil || code != 0 || len(listed.Skills) != 1 || listed.Skills[0].Name != "weather" || listed.Skills[0].Revision != sha {
		t.Errorf("list --json: exit %d\n%s%s", code, out, errOut)
	}
	cache := t.TempDir()
	out, errOut, code = run(t, nil, "list", "--git-cache", cache, "--source", r.URL+"?path=skills/")
	if ents, err := os.ReadDir(cache); err != nil || code != 0 || out != "NAME     SOURCE            DESCRIPTION\nweather  org@"+sha[:12]+"  Forecasts.\n" || len(ents) != 1 {
		t.Errorf("list --git-cache: exit %d, %d folders\n%s%s", code, len(ents), out, errOut)
	}
	_, errOut, code = run(t, nil, "list", "--source", r.URL+"?ref=nope")
	bad := r.URL + "?ref=nope"
	if code != 1 || withoutLogs(errOut) != `skillstore: Cannot read skills folder: the git source: no branch, tag or commit "nope" in the repository`+"\n"+
		"skillstore: check that "+bad+" is reachable; the log line above has the driver's error\n" {
		t.Errorf("a bad ref: exit %d: %s", code, errOut)
	}
	local := writeFixture(t, fixture.Skills())
	out, errOut, code = run(t, nil, "list", "-s", local, "-s", r.URL+"?ref=nope")
	if code != 0 || out != "NAME        SOURCE   DESCRIPTION\ncalculator  project  Basic arithmetic operations.\nweather     project  Weather forecasts by location.\n" ||
		withoutLogs(errOut) != "skillstore: not served: broken [project]: Skill 'broken' is invalid: the YAML frontmatter does not parse: line 1: did not find expected node content\n"+
			"skillstore: not served: nodoc [project]: SKILL.MD not found for skill 'nodoc'\n"+
			"skillstore: not served: (source "+bad+`) [org]: Cannot read skills folder: the git source: no branch, tag or commit "nope" in the repository`+"\n" {
		t.Errorf("a bad git source beside a good one: exit %d\n%s%s", code, out, errOut)
	}
}

// TestWellKnownBetweenServers: one skillstore publishes its catalog under
// /.well-known/agent-skills/ (the token required, then --open-well-known),
// and a second one lists it as a source, both on 127.0.0.1.
func TestWellKnownBetweenServers(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, open := range []bool{false, true} {
		args := []string{"serve", "--http", "127.0.0.1:0", "--auth-token-file", tokenFile, "-s", dir}
		if open {
			args = append(args, "--open-well-known")
		}
		ctx, cancel := context.WithCancel(context.Background())
		cmd := exec.CommandContext(ctx, binary, args...)
		var errb testutil.SyncBuffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		mcpURL := testutil.WaitForMCPURL(t, &errb)
		source := strings.TrimSuffix(mcpURL, "/mcp") + "/.well-known/agent-skills/"
		out, errOut, code := run(t, nil, "list", "--source", source)
		switch {
		case open && (code != 0 || out != "NAME        SOURCE  DESCRIPTION\ncalculator  org     Basic arithmetic operations.\nweather     org     Weather forecasts by location.\n"):
			t.Errorf("open: exit %d\n%s%s", code, out, errOut)
		case !open && (code != 1 || withoutLogs(errOut) != "skillstore: Cannot read skills folder: the published skills: fetching the index answered 401 Unauthorized\n"+
			"skillstore: check that "+source+"index.json is reachable; the log line above has the driver's error\n"):
			t.Errorf("with the token required: exit %d\n%s%s", code, out, errOut)
		}
		if open {
			out, _, code = run(t, nil, "read", "--source", source, "calculator", "examples/basic.py")
			if code != 0 || out != fixture.BasicPy {
				t.Errorf("read through .well-known: exit %d %q", code, out)
			}
		}
		cancel()
		cmd.Wait()
	}
}
