package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
)

// TestStopRightAfterStart stops stdio serving at once, as a client that
// quits or a Ctrl-C does, while the first listing and the watch are still
// starting: a shutdown is no source failure, so stderr says nothing but
// that it served and the fixture's broken skills. (Sources were closed under a listing under way, which
// logged "listing the skill source failed … file already closed" in most
// runs.)
func TestStopRightAfterStart(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	for _, how := range []string{"stdin closed", "interrupt"} {
		t.Run(how, func(t *testing.T) {
			for range 8 {
				cmd := exec.Command(binary, "serve", "-s", dir)
				cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
				var errb testutil.SyncBuffer
				cmd.Stderr = &errb
				if how == "interrupt" {
					w, err := cmd.StdinPipe() // open until the end: the signal stops it
					if err != nil {
						t.Fatal(err)
					}
					defer w.Close()
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				if how == "interrupt" {
					// The signal handler is set once it logs.
					errb.Await(20*time.Second, func(log string) bool { return strings.Contains(log, "serving MCP over stdio") })
					cmd.Process.Signal(syscall.SIGINT)
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("exit: %v\n%s", err, errb.String())
					}
				case <-time.After(30 * time.Second):
					cmd.Process.Kill()
					t.Fatalf("serve did not stop\n%s", errb.String())
				}
				for _, line := range strings.Split(strings.TrimSpace(errb.String()), "\n") {
					if line != "" && !strings.Contains(line, `msg="serving MCP over stdio"`) && !strings.Contains(line, `msg="a skill folder is left out`) {
						t.Fatalf("stopping logged %q\nstderr:\n%s", line, errb.String())
					}
				}
			}
		})
	}
}

// TestOneSkillSource serves a folder that is itself a skill as that skill
// (its examples/ folder no broken skill), and validate agrees with what
// serve serves: the same skill, checked against its folder's name.
func TestOneSkillSource(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	one := filepath.Join(dir, "calculator")
	out, errOut, code := run(t, nil, "list", "-s", one)
	if code != 0 || errOut != "" || !strings.HasPrefix(out, "NAME        SOURCE   DESCRIPTION\ncalculator  project  ") || strings.Count(out, "\n") != 2 {
		t.Errorf("list of one skill's folder: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if out, errOut, code = run(t, nil, "read", "calculator", "examples/basic.py", "-s", one); code != 0 || out != fixture.BasicPy {
		t.Errorf("read: exit %d, %q\n%s", code, out, errOut)
	}
	renamed := filepath.Join(t.TempDir(), "calc")
	if err := os.CopyFS(renamed, os.DirFS(one)); err != nil {
		t.Fatal(err)
	}
	out, _, code = run(t, nil, "validate", renamed)
	if code != 1 || !strings.HasPrefix(out, "FAIL  calc\n      name: ") {
		t.Errorf("validate of a skill whose folder is named otherwise: exit %d\n%s", code, out)
	}
	if out, _, code = run(t, nil, "list", "-s", renamed); code != 0 || !strings.HasPrefix(out, "NAME  SOURCE   DESCRIPTION\ncalc  project  ") {
		t.Errorf("list of it serves it under its folder's name: exit %d\n%s", code, out)
	}
}

// TestCommandWords has the CLI speak of its commands, not the tools a
// model calls: a mistyped name gets the closest names served, and a wrong
// count of arguments the command's usage line.
func TestCommandWords(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	tests := []struct {
		name string
		args []string
		err  string
	}{
		{"get mistyped", []string{"get", "calculater", "-s", dir},
			"skillstore: Skill 'calculater' not found in skills folder\n\nDid you mean calculator?\nRun `skillstore list` to see every skill served.\n"},
		{"read part of a name", []string{"read", "weath", "x.md", "-s", dir},
			"skillstore: Skill 'weath' not found in skills folder\n\nDid you mean weather?\nRun `skillstore list` to see every skill served.\n"},
		{"files far from any", []string{"files", "zzzzzzzz", "-s", dir},
			"skillstore: Skill 'zzzzzzzz' not found in skills folder\nRun `skillstore list` to see every skill served.\n"},
		{"a broken skill is not offered", []string{"get", "brokn", "-s", dir},
			"skillstore: Skill 'brokn' not found in skills folder\nRun `skillstore list` to see every skill served.\n"},
		{"read one argument", []string{"read", "calculator", "-s", dir},
			"skillstore: accepts 2 arg(s), received 1\nusage: skillstore read NAME PATH [flags]\nsee 'skillstore read --help' for examples\n"},
		{"get none", []string{"get"},
			"skillstore: accepts 1 arg(s), received 0\nusage: skillstore get NAME|URI [flags]\nsee 'skillstore get --help' for examples\n"},
		{"install none", []string{"install"},
			"skillstore: requires at least 1 arg(s), only received 0\nusage: skillstore install SOURCE [SKILL]... | --frozen [SKILL]... [flags]\nsee 'skillstore install --help' for examples\n"},
		{"lock without --check", []string{"lock"}, "skillstore: lock checks only, for now: pass --check\n"},
		{"lock with an argument", []string{"lock", "--check", "x"},
			"skillstore: unknown command \"x\" for \"skillstore lock\"\nusage: skillstore lock --check [flags]\nsee 'skillstore lock --help' for examples\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := run(t, nil, tt.args...)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if diff := cmp.Diff(tt.err, errOut); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConnect prints each client's entry for a server it launches over
// stdio, with the sources as absolute paths, and for a server over HTTP
// the entries the catalog's Connect page shows.
func TestConnect(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	out, errOut, code := run(t, nil, "connect", "--client", "claude-desktop", "-s", "project="+dir)
	var entry struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(out), &entry); code != 0 || err != nil {
		t.Fatalf("exit %d, %v\n%s%s", code, err, out, errOut)
	}
	if diff := cmp.Diff([]string{"serve", "--source", "project=" + dir}, entry.MCPServers["skills"].Args); diff != "" || !filepath.IsAbs(entry.MCPServers["skills"].Command) {
		t.Errorf("command %q, args (-want +got):\n%s", entry.MCPServers["skills"].Command, diff)
	}
	out, _, _ = run(t, nil, "connect", "--client", "claude-code", "--url", "https://skills.example.com/mcp", "--token")
	if want := "claude mcp add --transport http skills https://skills.example.com/mcp --header \"Authorization: Bearer YOUR_TOKEN\"\n"; out != want {
		t.Errorf("claude-code over HTTP: %q, want %q", out, want)
	}
	if _, errOut, code = run(t, nil, "connect", "--client", "emacs"); code != 1 || !strings.Contains(errOut, "claude-code, claude-desktop, cursor, vscode") {
		t.Errorf("unknown client: exit %d, %s", code, errOut)
	}
}
