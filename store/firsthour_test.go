package store_test

import (
	"context"
	"io/fs"
	"log/slog"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/storetest"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

// TestRootSkill serves a source whose root holds SKILL.md as that one
// skill, as a one-skill archive is, on any backend: its own folders
// (assets/, references/) are its files, not broken skills. It is named
// after its folder when the source is a local folder, else as its
// frontmatter says, and held to the rule that the two agree.
func TestRootSkill(t *testing.T) {
	files := func(name string) fstest.MapFS {
		return storetest.MapFS("SKILL.md="+storetest.Doc(name, "Fill PDF forms."), "references/", "references/fields.md=# Fields", "assets/", "assets/form.pdf=%PDF")
	}
	tests := []struct {
		name           string
		kind, location string
		fsys           fs.FS
		want           string
		diags          int
	}{
		{"local folder", "local", "./skills/pdf", files("pdf"), "pdf", 0},
		{"local folder under home, slash", "local", "~/skills/pdf/", files("pdf"), "pdf", 0},
		{"local folder named otherwise", "local", "./pdf-forms", files("pdf"), "pdf-forms", 1},
		{"local dot", "local", ".", files("pdf"), "pdf", 0},
		{"bucket prefix", "s3", "s3://b?prefix=skills/pdf/", files("pdf"), "pdf", 0},
		{"a program's fs.Sub", "", "", files("pdf"), "pdf", 0},
		{"no usable name", "", "", files("PDF Forms"), "skill", 1},
		{"older document name", "", "", storetest.MapFS("skill.md="+storetest.Doc("pdf", "Fill PDF forms."), "references/", "references/fields.md=# Fields"), "pdf", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := store.New([]store.Source{{Label: "project", Kind: tt.kind, Location: tt.location, FS: tt.fsys}}, store.Options{Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			c, err := s.View(nil).Catalog(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, sk := range c.Skills {
				names = append(names, sk.Name)
			}
			if diff := cmp.Diff([]string{tt.want}, names); diff != "" || len(c.Problems) > 0 {
				t.Fatalf("skills (-want +got):\n%s\nproblems: %+v", diff, c.Problems)
			}
			if got := len(c.Skills[0].Diagnostics); got != tt.diags {
				t.Errorf("diagnostics %v, want %d", c.Skills[0].Diagnostics, tt.diags)
			}
			f, err := s.View(nil).ReadFile(ctx, tt.want, "references/fields.md", nil)
			if err != nil || f.Content() != "# Fields" {
				t.Errorf("reading a file of the skill: %v", err)
			}
			list, err := s.View(nil).Files(ctx, tt.want, nil)
			if err != nil || len(list) < 2 {
				t.Errorf("files: %v, %v", list, err)
			}
		})
	}
}

// TestOneFolderDown says, of a source whose only folder holds skill
// folders (an embed.FS of "skills" served without fs.Sub), where its
// skills are, and logs it.
func TestOneFolderDown(t *testing.T) {
	var log testutil.SyncBuffer
	fsys := storetest.MapFS("skills/", "skills/pdf/", "skills/pdf/SKILL.md="+storetest.Doc("pdf", "Fill PDF forms."))
	s, err := store.New([]store.Source{{Label: "builtin", FS: fsys}}, store.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.View(nil).Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Skills) != 0 || len(c.Problems) != 1 {
		t.Fatalf("skills %d, problems %+v", len(c.Skills), c.Problems)
	}
	const hint = `fs.Sub(fsys, "skills")`
	if p := c.Problems[0]; p.Skill != "skills" || !strings.Contains(p.Message, hint) {
		t.Errorf("problem %+v, want one of the folder skills naming %s", p, hint)
	}
	if !strings.Contains(log.String(), "fs.Sub(fsys") {
		t.Errorf("log %q does not give the hint", log.String())
	}
	// A folder of anything else stays a folder with no SKILL.md.
	s, _ = store.New([]store.Source{{Label: "builtin", FS: storetest.MapFS("docs/", "docs/guide/", "docs/guide/intro.md=# Intro")}}, store.Options{Logger: slog.New(slog.DiscardHandler)})
	if c, err = s.View(nil).Catalog(context.Background()); err != nil || len(c.Problems) != 1 || strings.Contains(c.Problems[0].Message, "fs.Sub") {
		t.Errorf("a folder of no skills: %+v, %v", c.Problems, err)
	}
}

// TestLeftOutLogged logs each skill folder left out and each skill served
// although it breaks the specification, at start and when it changes,
// once: a refresh that changes nothing of it logs nothing. Lines name
// the source's label and the skill, never the source's location.
func TestLeftOutLogged(t *testing.T) {
	fsys := storetest.MapFS(
		"good/SKILL.md="+storetest.Doc("good", "Fine."),
		"Bad_Name/SKILL.md="+storetest.Doc("Bad_Name", "Breaks the naming rule."),
		"broken/SKILL.md=---\nname: [\n---\n",
		"notes/", "notes/todo.md=later",
	)
	var log testutil.SyncBuffer
	opts := store.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))}
	s, err := store.New([]store.Source{{Label: "project", Location: "/home/alice/secret-place", FS: fsys}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.View(nil).Catalog(ctx); err != nil {
		t.Fatal(err)
	}
	seen := 0
	lines := func() []string {
		var out []string
		all := log.String()
		next := all[seen:]
		seen = len(all)
		for _, l := range strings.Split(strings.TrimSpace(next), "\n") {
			if l == "" {
				continue
			}
			if strings.Contains(l, "secret-place") {
				t.Errorf("a log line names the source's location: %s", l)
			}
			_, skill, _ := strings.Cut(l, " skill=")
			out = append(out, skill)
		}
		return out
	}
	if diff := cmp.Diff([]string{"broken", "notes", "Bad_Name"}, lines()); diff != "" {
		t.Errorf("at start (-want +got):\n%s", diff)
	}
	fsys["good/SKILL.md"].Data = []byte(storetest.Doc("good", "Fine, and changed."))
	if _, err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got := lines(); len(got) > 0 {
		t.Errorf("a refresh that changed none of them logged %q", got)
	}
	fsys["broken/SKILL.md"].Data = []byte("---\nname: broken\n---\n") // still broken, another way
	if _, err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"broken"}, lines()); diff != "" {
		t.Errorf("after a change (-want +got):\n%s", diff)
	}
	// A command that prints the problems itself asks for no log.
	opts.ReportsProblems = true
	s, _ = store.New([]store.Source{{Label: "project", FS: fsys}}, opts)
	if _, err := s.View(nil).Catalog(ctx); err != nil {
		t.Fatal(err)
	}
	if got := lines(); len(got) > 0 {
		t.Errorf("ReportsProblems logged %q", got)
	}
}
