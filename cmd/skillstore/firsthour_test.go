package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
)

// TestStopRightAfterStart stops stdio serving at once, as a client that
// quits or a Ctrl-C does, while the first listing and the watch are still
// starting: a shutdown is no source failure, so stderr says nothing but
// that it served. (Sources were closed under a listing under way, which
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
					for deadline := time.Now().Add(20 * time.Second); !strings.Contains(errb.String(), "serving MCP over stdio") && time.Now().Before(deadline); {
						time.Sleep(time.Millisecond) // the signal handler is set once it logs
					}
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
					if line != "" && !strings.Contains(line, `msg="serving MCP over stdio"`) {
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
