package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/lru"
)

// TestHelpSections: every command's --help has examples and its exit
// statuses; the statuses listed are those main exits with (a wrong flag
// exits 1, as listed) and every exitCode the package returns is listed.
func TestHelpSections(t *testing.T) {
	used := map[string]bool{"0": true, "1": true} // success; exitStatus of any other error
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`exitCode\((\d+)\)`).FindAllSubmatch(src, -1) {
			used[string(m[1])] = true
		}
	}
	root := newRoot(new(bytes.Buffer), new(bytes.Buffer))
	cmds := [][]string{nil}
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" { // cobra's own
			continue
		}
		cmds = append(cmds, []string{c.Name()})
	}
	if len(cmds) < 13 {
		t.Fatalf("only %d commands", len(cmds))
	}
	for _, args := range cmds {
		t.Run(strings.Join(append([]string{"skillstore"}, args...), " "), func(t *testing.T) {
			var out bytes.Buffer
			r := newRoot(&out, &out)
			r.SetArgs(append(append([]string{}, args...), "--help"))
			if err := r.Execute(); exitStatus(err) != 0 {
				t.Fatalf("--help: %v", err)
			}
			help := out.String()
			ex := regexp.MustCompile(`(?s)\nExamples:\n(  skillstore .*?)\n\n`).FindStringSubmatch(help)
			if ex == nil {
				t.Errorf("--help has no examples:\n%s", help)
			}
			sec := regexp.MustCompile(`(?s)\nExit codes:\n(.*?)\n\n`).FindStringSubmatch(help)
			if sec == nil {
				t.Fatalf("--help has no exit codes:\n%s", help)
			}
			var listed []string
			for _, line := range strings.Split(sec[1], "\n") {
				if m := regexp.MustCompile(`^  (\d+)  \S`).FindStringSubmatch(line); m != nil {
					listed = append(listed, m[1])
				}
			}
			var want []string
			for _, c := range []string{"0", "1", "2", "3", "4"} {
				if used[c] || c == "2" && len(args) == 1 && args[0] == "diff" { // diff's errors exit 2 (troubleError)
					want = append(want, c)
				}
			}
			if diff := cmp.Diff(want, listed); diff != "" {
				t.Errorf("exit codes listed (-used +listed):\n%s", diff)
			}
			bad := newRoot(new(bytes.Buffer), new(bytes.Buffer))
			bad.SetArgs(append(append([]string{}, args...), "--no-such-flag"))
			if got := exitStatus(bad.Execute()); !strings.Contains(sec[1], "  "+string(rune('0'+got))+"  ") || !strings.Contains(sec[1], "wrong argument or flag") {
				t.Errorf("a wrong flag exits %d, which --help does not list as such", got)
			}
		})
	}
}

// TestServeHelpShowsFixedBudgets: serve --help says, next to
// --memory-limit, what the caches' fixed budgets add up to, as
// internal/lru computes it.
func TestServeHelpShowsFixedBudgets(t *testing.T) {
	var out bytes.Buffer
	r := newRoot(&out, &out)
	r.SetArgs([]string{"serve", "--help"})
	if err := r.Execute(); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^.*--memory-limit.*$`).FindString(out.String())
	want := fmt.Sprintf("fixed budgets adding up to %d MiB", lru.Fixed()>>20)
	if lru.Fixed() < 1<<20 || !strings.Contains(line, want) {
		t.Errorf("serve --help's --memory-limit line does not say %q:\n%s", want, line)
	}
}
