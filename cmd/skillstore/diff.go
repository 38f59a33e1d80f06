package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillstore/skillstore/skilldiff"
)

// troubleError ends a command with status exitTrouble after its message:
// diff's errors, as diff(1)'s, since its status 1 says "they differ".
type troubleError struct{ error }

func (e troubleError) Unwrap() error { return e.error }

func trouble(err error) error {
	if err == nil {
		return nil
	}
	return troubleError{err}
}

// diffFlags are diff's flags.
type diffFlags struct {
	api      apiFlags
	from, to string
	json     bool
}

func diffCmd(g *globals) *cobra.Command {
	var f diffFlags
	cmd := &cobra.Command{
		Use:   "diff DIR_A DIR_B | diff NAME URL",
		Short: "Show what changed between two skill folders, or two versions of a skill on a Skills API server",
		Long: `diff compares two skills file by file: files added, removed and changed (by SHA-256), and for
a changed text file a unified diff (3 lines of context, "--- a/PATH" and "+++ b/PATH", as diff -u and
git diff write it; a binary file is "Binary files a/PATH and b/PATH differ"). Line endings and byte
order marks are compared as they are. DIR_A and DIR_B are two local skill folders (hidden files left
out, as push and publish leave them). With NAME URL, it asks the Skills API server at URL (its root
URL) for the diff of the skill named NAME between --from (default: the version before --to) and --to
(default: latest), with the bearer token in ` + tokenEnv + ` (or --token-file). --json prints the diff
as the API gives it: every change's paths, digests and sizes, its unified text, and the hidden-text
findings of the new side. A file over 1 MiB is not compared; a file's text is cut at 256 KiB, a
diff's at 4 MiB. Text a person cannot see in the new side's files (tag characters, bidi controls,
HTML comments in Markdown…) is warned of on stderr. Exit status as diff's: 0 the same, 1 they differ, 2 an error.`,
		Args: func(cmd *cobra.Command, args []string) error {
			return trouble(usageArgs(cobra.ExactArgs(2))(cmd, args))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := runDiff(cmd.Context(), g, args[0], args[1], f)
			if err != nil {
				return trouble(err)
			}
			if f.json {
				err = writeJSON(g.stdout, d)
			} else {
				err = d.WriteUnified(g.stdout)
				warnFindings(g, d)
			}
			if err != nil {
				return trouble(err)
			}
			if len(d.Changes) > 0 {
				return exitCode(exitFail)
			}
			return nil
		},
	}
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return trouble(err) })
	f.api.add(cmd)
	cmd.Flags().StringVar(&f.from, "from", "", "with NAME URL: the old `VERSION` (an ID; default: the version before --to)")
	cmd.Flags().StringVar(&f.to, "to", "latest", "with NAME URL: the new `VERSION` (an ID, or latest)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the diff as JSON")
	return cmd
}

// warnFindings says on stderr what text a person cannot see the new
// side holds (--json has it in each change's findings).
func warnFindings(g *globals, d *skilldiff.Diff) {
	for _, c := range d.Changes {
		for _, f := range c.Findings {
			fmt.Fprintf(g.stderr, "skillstore: hidden text in the new side: %s (%s)\n", findingText(f), f.Message)
		}
	}
}

// isURL says whether arg is a server's URL rather than a folder.
func isURL(arg string) bool {
	return strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://")
}

func runDiff(ctx context.Context, g *globals, a, b string, f diffFlags) (*skilldiff.Diff, error) {
	if isURL(b) {
		return apiDiff(ctx, g, a, b, f)
	}
	if f.from != "" || f.to != "latest" {
		return nil, errors.New("--from and --to name versions on a server: give NAME URL, or two folders without them")
	}
	return folderDiff(ctx, g, a, b)
}

// folderDiff compares the skill folders a and b.
func folderDiff(ctx context.Context, g *globals, a, b string) (*skilldiff.Diff, error) {
	var sides [2]map[string][]byte
	var lists [2][]skilldiff.File
	for s, dir := range []string{a, b} {
		_, files, err := readFolder(ctx, dir, g.stderr, false)
		if err != nil {
			return nil, err
		}
		sides[s] = make(map[string][]byte, len(files))
		for _, pf := range files {
			sum := sha256.Sum256(pf.data)
			sides[s][pf.path] = pf.data
			lists[s] = append(lists[s], skilldiff.File{Path: pf.path, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(pf.data))})
		}
	}
	read := func(_ context.Context, side int, p string) ([]byte, error) { return sides[side][p], nil }
	d, err := skilldiff.Compute(ctx, lists[0], lists[1], read, skilldiff.Options{})
	if err != nil {
		return nil, err
	}
	d.From, d.To = a, b
	return d, nil
}

// apiDiff asks the server at rawURL for the diff of the skill named
// name: GET /v1/skills/{id}/versions/{to}/diff?from=….
func apiDiff(ctx context.Context, g *globals, name, rawURL string, f diffFlags) (*skilldiff.Diff, error) {
	c, err := newSkillsClient(rawURL, f.api, g.stderr)
	if err != nil {
		return nil, err
	}
	sk, err := c.skillNamed(ctx, name)
	if err != nil {
		return nil, err
	}
	path := "/v1/skills/" + url.PathEscape(sk.ID) + "/versions/" + url.PathEscape(f.to) + "/diff"
	if f.from != "" {
		path += "?" + url.Values{"from": {f.from}}.Encode()
	}
	var d apiDiffAnswer
	if err := c.do(ctx, http.MethodGet, path, nil, "", &d); err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound && strings.Contains(ae.Message, "no such endpoint") {
			return nil, fmt.Errorf("%w: the server serves no diffs (a skillstore registry does)", err)
		}
		return nil, err
	}
	if d.To == "" {
		return nil, fmt.Errorf("GET %s: the answer is no diff: is the URL a skillstore server's root?", path)
	}
	return &d.Diff, nil
}

// apiDiffAnswer is the diff route's answer. It has no "type": the
// check that it is a diff is its "to".
type apiDiffAnswer struct{ skilldiff.Diff }

func (*apiDiffAnswer) objectType() (string, string) { return "", "" }
