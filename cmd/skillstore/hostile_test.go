package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/hostile"
)

// cliResult is what one command gives: its output, its error output and
// its exit status.
type cliResult struct {
	Stdout, Stderr string
	Code           int
}

// TestHostile drives the hostile-input table (internal/hostile) through
// the commands that take a skill name, a path or a URI — read NAME PATH,
// files NAME, get NAME and get URI — over a local folder holding the
// fixture, comparing each command's whole output and exit status. read and
// files answer as the store does; get as the get_skill tool.
func TestHostile(t *testing.T) {
	dir := writeFixture(t, fixture.Skills())
	for _, c := range hostile.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			if !c.URIOnly {
				checkCLI(t, dir, storeAnswer(c.Want, hostile.Content(c.Want.File)), "read", c.Skill, c.File())
			}
			if !c.Doc {
				return
			}
			if !c.URIOnly {
				checkCLI(t, dir, storeAnswer(c.Want, filesListing(c.Want.File)), "files", c.Skill)
				checkCLI(t, dir, toolAnswer(hostile.GetSkillByName(c)), "get", c.Skill)
			}
			for _, uri := range c.URIs {
				if strings.Contains(uri, "://") { // else get takes it for a name
					checkCLI(t, dir, toolAnswer(hostile.GetSkillByURI(c, uri)), "get", uri)
				}
			}
		})
	}
}

// storeAnswer is what read and files give: what is served, or the
// contract's sentence.
func storeAnswer(w hostile.Want, served string) cliResult {
	if w.Outcome == hostile.Served {
		return cliResult{Stdout: served}
	}
	return cliResult{Stderr: "skillstore: " + w.Msg + "\n", Code: 1}
}

// toolAnswer is what get gives: the tool's text.
func toolAnswer(r hostile.ToolResult) cliResult {
	if r.IsError {
		return cliResult{Stderr: "skillstore: " + cliWords.Replace(r.Display) + "\n", Code: 1} // its hints name commands
	}
	return cliResult{Stdout: r.Display}
}

// filesListing is files' output for the skill whose document is doc.
func filesListing(doc string) string {
	prefix, _, _ := strings.Cut(doc, "/")
	var lines []string
	for p, data := range hostile.VisibleFiles() {
		if rest, ok := strings.CutPrefix(p, prefix+"/"); ok {
			lines = append(lines, fmt.Sprintf("%10d  %s\n", len(data), rest))
		}
	}
	slices.SortFunc(lines, func(a, b string) int { return strings.Compare(a[12:], b[12:]) })
	return strings.Join(lines, "")
}

// checkCLI runs the command on the fixture and compares what it gives.
// Arguments an operating system cannot pass (a NUL byte) run the command
// in this process, as main would.
func checkCLI(t *testing.T, dir string, want cliResult, args ...string) {
	t.Helper()
	args = append(args, "-s", dir)
	var got cliResult
	if slices.ContainsFunc(args, func(a string) bool { return strings.ContainsRune(a, 0) }) {
		got = runInProcess(args...)
	} else {
		got.Stdout, got.Stderr, got.Code = run(t, nil, args...)
	}
	want.Stderr, got.Stderr = unknownSkill(want.Stderr), unknownSkill(got.Stderr)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skillstore %q (-want +got):\n%s", clipArgs(args[:len(args)-2]), diff)
	}
}

// unknownSkill is the first line of what a command says of a skill name
// served by none: the contract's sentence, without the hints that follow
// (the closest names, which TestCommandWords checks).
func unknownSkill(stderr string) string {
	first, _, _ := strings.Cut(stderr, "\n")
	if strings.HasSuffix(first, " not found in skills folder") {
		return first + "\n"
	}
	return stderr
}

// runInProcess runs the command as main does, in this process.
func runInProcess(args ...string) cliResult {
	defer slog.SetDefault(slog.Default())
	var out, errOut bytes.Buffer
	root := newRoot(&out, &errOut)
	root.SetArgs(args)
	code := 0
	if err := root.ExecuteContext(context.Background()); err != nil {
		var ec exitCode
		if code = 1; errors.As(err, &ec) {
			code = int(ec)
		} else {
			fmt.Fprintln(&errOut, "skillstore:", errorText(err))
			if hint := sourceHint(err); hint != "" {
				fmt.Fprintln(&errOut, "skillstore:", hint)
			}
		}
	}
	return cliResult{Stdout: out.String(), Stderr: errOut.String(), Code: code}
}

// clipArgs shortens long arguments for a failure's message.
func clipArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 80 {
			a = a[:80] + "…"
		}
		out[i] = a
	}
	return out
}
