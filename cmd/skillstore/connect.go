package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/connect"
)

func connectCmd(g *globals) *cobra.Command {
	var (
		clientID, url string
		token         bool
	)
	cmd := &cobra.Command{
		Use:   "connect [--client " + strings.Join(connect.IDs, "|") + "]",
		Short: "Print the entry that makes an MCP client use skillstore",
		Long: `connect prints what to paste into an MCP client's configuration (or the command to
run, for Claude Code) so that it launches "skillstore serve" over stdio, serving the
sources given with --source, else the skill folders that exist now (given as absolute
paths: a desktop client's working directory is not your project). With --url it
prints the entry for a server already running over HTTP, as the catalog's Connect
page does. Without --client it prints every client's entry.`,
		Example: `  skillstore connect --client claude-code
  skillstore connect --client claude-desktop -s personal=~/.agents/skills
  skillstore connect --client vscode --url https://skills.example.com/mcp --token`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if clientID != "" && !slices.Contains(connect.IDs, clientID) {
				return fmt.Errorf("unknown --client %q: use one of %s", clientID, strings.Join(connect.IDs, ", "))
			}
			srv := connect.Server{URL: url, Token: token}
			if url == "" {
				srv.Command, srv.Args = launchCommand(g.sources)
			}
			for _, c := range connect.Clients(srv) {
				switch {
				case clientID == c.ID:
					fmt.Fprintln(g.stdout, c.Text)
					fmt.Fprintf(g.stderr, "skillstore: %s: %s\n", c.Name, c.Where)
					if c.Note != "" {
						fmt.Fprintf(g.stderr, "skillstore: %s\n", c.Note)
					}
				case clientID == "":
					fmt.Fprintf(g.stdout, "# %s (--client %s): %s\n%s\n", c.Name, c.ID, c.Where, c.Text)
					if c.Note != "" {
						fmt.Fprintf(g.stdout, "# %s\n", c.Note)
					}
					fmt.Fprintln(g.stdout)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&clientID, "client", "", "the client: "+strings.Join(connect.IDs, ", ")+" (default: all)")
	cmd.Flags().StringVar(&url, "url", "", "the `URL` of a server running over HTTP (serve --http), instead of launching one")
	cmd.Flags().BoolVar(&token, "token", false, "with --url: the server asks for a bearer token (YOUR_TOKEN marks where it goes)")
	return cmd
}

// launchCommand is the command a client runs to serve sources over stdio:
// this program (found on PATH as skillstore, else its own path) and
// "serve" with each source, a local path made absolute; with no sources,
// the conventional skill folders that exist now.
func launchCommand(sources []string) (string, []string) {
	command := "skillstore"
	if p, err := exec.LookPath("skillstore"); err == nil {
		command, _ = filepath.Abs(p)
	} else if exe, err := os.Executable(); err == nil && !strings.Contains(exe, "go-build") {
		command = exe // not a `go run` build, which is removed when it ends
	}
	args := []string{"serve"}
	specs := make([]sourceSpec, 0, len(sources))
	for _, s := range sources {
		specs = append(specs, parseSourceSpec(s))
	}
	if len(specs) == 0 {
		for _, c := range conventionalSources() {
			if st, err := os.Stat(c.location); err == nil && st.IsDir() {
				specs = append(specs, c)
			}
		}
	}
	for _, s := range specs {
		loc := s.location
		if !strings.Contains(loc, "://") {
			if abs, err := filepath.Abs(backends.ExpandHome(loc)); err == nil {
				loc = abs
			}
		}
		if s.label != "" {
			loc = s.label + "=" + loc
		}
		args = append(args, "--source", loc)
	}
	return command, args
}
