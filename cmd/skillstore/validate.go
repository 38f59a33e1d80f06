package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillstore/skillstore/internal/hidden"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// skillJSON is one skill in `list --json` and `validate --json`.
type skillJSON struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	URI         string             `json:"uri"`
	Source      store.SourceRef    `json:"source"`
	Valid       bool               `json:"valid"`
	Diagnostics []store.Diagnostic `json:"diagnostics,omitempty"`
	Shadows     []store.SourceRef  `json:"shadows,omitempty"`
	Extra       []string           `json:"extra_fields,omitempty"`
	// Revision is the version of the source the skill comes from: a git
	// commit, a published snapshot's ID or an archive's "sha256:…" digest.
	Revision string `json:"revision,omitempty"`
	// Warnings are what keeps a valid skill from being served everywhere,
	// such as the skills extension's size limits (validate only).
	Warnings []string `json:"warnings,omitempty"`
	// Findings is the text in the skill a person cannot see (hidden
	// instructions): in SKILL.md for list (in every file for a published
	// snapshot's skill), in every text file for validate.
	Findings []store.Finding `json:"findings,omitempty"`
}

type catalogOut struct {
	Valid    bool             `json:"valid"`
	Skills   []skillJSON      `json:"skills"`
	Problems []store.Problem  `json:"problems"`
	Shadowed []store.Shadowed `json:"shadowed"`
}

func catalogJSON(c *store.Catalog) catalogOut {
	out := catalogOut{Valid: len(c.Problems) == 0, Skills: []skillJSON{}, Problems: make([]store.Problem, len(c.Problems)), Shadowed: c.Shadowed}
	for i, p := range c.Problems {
		p.Message = errorText(p.Err()) // the sentence the tools use
		out.Problems[i] = p
	}
	if out.Shadowed == nil {
		out.Shadowed = []store.Shadowed{}
	}
	for _, sk := range c.Skills {
		out.Skills = append(out.Skills, skillJSON{
			Name: sk.Name, Description: sk.Description, URI: tools.SkillURI(sk.Name), Source: *sk.Source,
			Valid: sk.Valid(), Diagnostics: sk.Diagnostics, Shadows: sk.Shadows, Extra: sk.Extra, Revision: sk.Revision(),
			Findings: sk.Findings,
		})
		out.Valid = out.Valid && sk.Valid()
	}
	return out
}

// problemName names what a problem is about: a skill folder or a whole source.
func problemName(p store.Problem) string {
	if p.Skill == "" {
		return "(source " + p.Source.Location + ")"
	}
	return p.Skill
}

func reportProblems(w io.Writer, c *store.Catalog) {
	for _, p := range c.Problems {
		fmt.Fprintf(w, "skillstore: not served: %s [%s]: %s\n", problemName(p), p.Source.Label, errorText(p.Err()))
	}
	for _, s := range c.Shadowed {
		if s.By != "" {
			fmt.Fprintf(w, "skillstore: shadowed: %s in %s is hidden by %s in %s, which takes its name first (a skill and a plugin of one name cannot both be served)\n", s.Name, s.Hidden.Label, s.By, s.WinnerIn.Label)
			continue
		}
		fmt.Fprintf(w, "skillstore: shadowed: %s in %s is hidden by the copy in %s\n", s.Name, s.Hidden.Label, s.WinnerIn.Label)
	}
	for _, sk := range c.Skills {
		if len(sk.Findings) > 0 {
			fmt.Fprintf(w, "skillstore: hidden text: %s [%s]: %s%s; skillstore validate lists every finding\n",
				sk.Name, sk.Source.Label, findingText(sk.Findings[0]), moreText(len(sk.Findings)-1))
		}
	}
}

// findingText shows a finding as validate prints it: file:line:column
// (or the column in the file's name), kind, and the hidden text (quoted)
// or the code point; the file's name through hidden.Visible.
func findingText(f store.Finding) string {
	what := f.Text
	switch f.Kind {
	case store.FindingTagCharacters, store.FindingHTMLComment, store.FindingRawHTML, store.FindingLinkDefinition,
		store.FindingSelectors, store.FindingANSIEscape:
		what = strconv.Quote(f.Text)
	case store.FindingMore:
		what = f.Text + " more findings not listed"
	}
	file := hidden.Visible(store.Echo(f.Path)) // a name that would display as another shows its code points
	if f.Line == 0 {
		return fmt.Sprintf("%s (its name, column %d): %s %s", file, f.Column, f.Kind, what)
	}
	return fmt.Sprintf("%s:%d:%d: %s %s", file, f.Line, f.Column, f.Kind, what)
}

func moreText(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" (and %d more)", n)
}

func validateCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate [DIR]...",
		Short: "Check skills against the Agent Skills specification; exit 1 if any breaks it",
		Long: `validate checks every skill in the given folders (a folder of skills, or one skill
folder holding a SKILL.md), or in the configured sources when no folder is given.
Every text file of each skill is scanned for text a person cannot see and a model
reads (hidden instructions): Unicode tag characters, decoded; bidirectional controls;
zero-width and filler characters; bytes in variation selectors; terminal escapes; and
in Markdown files what the pages' renderer drops (HTML comments, raw HTML, unused link
reference definitions). Every file's and folder's name is scanned too. It exits 0 when
every skill is valid and holds no hidden text, and 1 otherwise.`,
		RunE: func(cmd *cobra.Command, dirs []string) error {
			if len(dirs) > 0 {
				// Each folder is a source, as serve would open it: a folder
				// of skills, or one skill's folder (the store serves it as
				// that skill, named as the folder). An absolute path names
				// the folder of ".".
				g.sources = nil
				for _, d := range dirs {
					if abs, err := filepath.Abs(d); err == nil && !strings.Contains(d, "://") {
						d = abs
					}
					g.sources = append(g.sources, d)
				}
			}
			g.strict = false // report every breach instead of hiding the skill
			s, done, err := g.open(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			c, err := s.View(nil).Catalog(cmd.Context())
			if err != nil {
				return err
			}
			out := catalogJSON(c)
			if err := scanSkills(cmd.Context(), s, &out); err != nil {
				return err
			}
			for i, sk := range out.Skills {
				if !sk.Valid {
					continue // the extension publishes valid skills only
				}
				files, err := s.View(nil).Files(cmd.Context(), sk.Name, nil)
				if err == nil {
					err = mcpserver.ExtensionLimits(files)
				}
				if err != nil {
					out.Skills[i].Warnings = append(out.Skills[i].Warnings, "not published through MCP's skills extension (SEP-2640): "+errorText(err))
				}
			}
			if asJSON {
				if err := writeJSON(g.stdout, out); err != nil {
					return err
				}
			} else {
				printValidation(g.stdout, out)
			}
			if !out.Valid {
				return exitCode(1)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

// scanSkills sets the findings of every skill of c from a scan of all
// its text files; c is not valid if any skill has findings.
func scanSkills(ctx context.Context, s *store.Store, c *catalogOut) error {
	for i, out := range c.Skills {
		sk, err := s.View(nil).Skill(ctx, out.Name)
		if err != nil {
			return err
		}
		if c.Skills[i].Findings, err = s.View(nil).Scan(ctx, sk); err != nil {
			return err
		}
		c.Valid = c.Valid && len(c.Skills[i].Findings) == 0
	}
	return nil
}

func printValidation(w io.Writer, c catalogOut) {
	withFindings := 0
	for _, sk := range c.Skills {
		if len(sk.Findings) > 0 {
			withFindings++
		}
		if sk.Valid && len(sk.Findings) == 0 {
			fmt.Fprintf(w, "ok    %s\n", sk.Name)
			for _, warning := range sk.Warnings {
				fmt.Fprintf(w, "      warning: %s\n", warning)
			}
			continue
		}
		fmt.Fprintf(w, "FAIL  %s\n", sk.Name)
		for _, d := range sk.Diagnostics {
			fmt.Fprintf(w, "      %s: %s\n      fix: %s\n", d.Field, d.Message, d.Fix)
		}
		for _, f := range sk.Findings {
			fmt.Fprintf(w, "      hidden text: %s\n      fix: %s\n", findingText(f), f.Message)
		}
		for _, warning := range sk.Warnings {
			fmt.Fprintf(w, "      warning: %s\n", warning)
		}
	}
	for _, p := range c.Problems {
		fmt.Fprintf(w, "FAIL  %s: %s\n", problemName(p), errorText(p.Err()))
		for _, d := range p.Diagnostics {
			fmt.Fprintf(w, "      %s: %s\n      fix: %s\n", d.Field, d.Message, d.Fix)
		}
	}
	valid := 0
	for _, sk := range c.Skills {
		if sk.Valid {
			valid++
		}
	}
	fmt.Fprintf(w, "\n%d valid, %d invalid", valid, len(c.Skills)-valid+len(c.Problems))
	if withFindings > 0 {
		fmt.Fprintf(w, ", %d with hidden text", withFindings)
	}
	fmt.Fprintln(w)
}
