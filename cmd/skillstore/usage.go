package main

import (
	"errors"
	"fmt"
	"io/fs"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/usage"
)

// usageSaveEvery is how often serve writes its --usage-file (when the
// counts changed); it is written at shutdown too.
const usageSaveEvery = 30 * time.Second

// unusedFor is how long without a load marks a skill of the catalog as
// unused in "skillstore usage".
const unusedFor = 30 * 24 * time.Hour

// usageRow is one skill in "skillstore usage": its counts from the file
// and whether the configured sources serve it.
type usageRow struct {
	usage.Stat
	InCatalog bool `json:"in_catalog"`
	// Unused marks a skill of the catalog not loaded in the last 30 days
	// (or never).
	Unused bool `json:"unused_30_days,omitempty"`
}

func usageCmd(g *globals) *cobra.Command {
	var (
		file   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "usage --file FILE",
		Short: "Show how often each skill was loaded, by how many principals, and which the catalog holds unused",
		Long: `usage reads the file "serve --usage-file FILE" keeps and prints, for each skill, how many times
it was loaded (get_skill, Skill, skills/get, prompts/get, or a read of its SKILL.md), by how many
distinct principals, and when last; every skill of the configured sources is listed, and one not
loaded in the last 30 days is marked "unused 30d". Counts are those of one server: replicas each
keep their own file. Principals are counted, never named.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := usage.ReadFile(file)
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("--file %s does not exist: serve --usage-file %s writes it", file, file)
			}
			if err != nil {
				return err
			}
			return g.withStore(cmd, func(s *store.Store) error {
				c, err := s.View(nil).Catalog(cmd.Context())
				if err != nil {
					return err
				}
				rows := usageRows(f, c, time.Now())
				if asJSON {
					return writeJSON(g.stdout, struct {
						Loads     uint64     `json:"loads"`
						Untracked uint64     `json:"untracked_loads"`
						Skills    []usageRow `json:"skills"`
					}{f.Loads, f.Untracked, rows})
				}
				tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "SKILL\tLOADS\tPRINCIPALS\tLAST USED\tNOTE")
				for _, r := range rows {
					last := "never"
					if !r.LastUsed.IsZero() {
						last = r.LastUsed.UTC().Format("2006-01-02 15:04Z")
					}
					note := ""
					switch {
					case !r.InCatalog:
						note = "not in the catalog"
					case r.Unused:
						note = "unused 30d"
					}
					fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", r.Skill, r.Loads, r.PrincipalsText(), last, note)
				}
				tw.Flush()
				if f.Untracked > 0 {
					fmt.Fprintf(g.stderr, "skillstore: %d loads of further skills were counted but not tracked by skill (the server's bound on skills tracked)\n", f.Untracked)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&file, "file", "", "the usage `FILE` written by serve --usage-file")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the rows as JSON")
	cmd.MarkFlagRequired("file")
	return cmd
}

// usageRows merges the file's counts with catalog c's skills, most
// loaded first: every skill of the catalog (unused ones marked, as of
// now), and every skill of the file.
func usageRows(f usage.File, c *store.Catalog, now time.Time) []usageRow {
	served := make(map[string]bool, len(c.Skills))
	for _, sk := range c.Skills {
		served[sk.Name] = true
	}
	seen := make(map[string]bool, len(f.Skills))
	stats := append([]usage.Stat(nil), f.Skills...)
	for _, s := range f.Skills {
		seen[s.Skill] = true
	}
	for _, sk := range c.Skills {
		if !seen[sk.Name] {
			stats = append(stats, usage.Stat{Skill: sk.Name})
		}
	}
	usage.Sort(stats)
	rows := make([]usageRow, len(stats))
	for i, s := range stats {
		rows[i] = usageRow{Stat: s, InCatalog: served[s.Skill]}
		rows[i].Unused = rows[i].InCatalog && (s.LastUsed.IsZero() || now.Sub(s.LastUsed) > unusedFor)
	}
	return rows
}
