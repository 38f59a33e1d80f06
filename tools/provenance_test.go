package tools_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// revisionFS is a source at one revision (store.RevisionFS).
type revisionFS struct {
	fstest.MapFS
	rev string
}

func (r revisionFS) Revision() string { return r.rev }

// TestToolProvenance: a successful call that reads one skill's content
// (get_skill, Skill, read_file_in_skill) gives that skill's provenance;
// the catalog tools and failures give none, and none reaches the
// function-calling content. Through a view that hides a skill, a call
// naming it gives none either.
func TestToolProvenance(t *testing.T) {
	ctx := context.Background()
	files := fstest.MapFS{
		"pdf/SKILL.md":      {Data: []byte("---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n")},
		"pdf/forms.md":      {Data: []byte("Forms.")},
		"secret/SKILL.md":   {Data: []byte("---\nname: secret\ndescription: Hidden.\n---\n# Secret\n")},
		"secret/private.md": {Data: []byte("Private.")},
	}
	const commit = "0123456789abcdef0123456789abcdef01234567"
	s, err := store.New([]store.Source{{Label: "org", Location: "git+https://git.example.com/org/skills.git", Kind: "git", FS: revisionFS{files, commit}}}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := &store.Provenance{Source: "org", Kind: "git", Location: "git+https://git.example.com/org/skills.git", Revision: commit}
	pol, err := access.Parse("p.yaml", []byte("default: deny\nrules:\n  - {groups: [g], sources: [org], skills: [pdf]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	all := tools.New(s, tools.Options{})
	viewer := forFilter(all, pol.For(&access.Principal{Subject: "x", Groups: []string{"g"}}))
	for _, tc := range []struct {
		t          *tools.Tools
		tool, args string
		want       *store.Provenance
	}{
		{all, tools.GetSkill, `{"skill_name":"pdf"}`, want},
		{all, tools.GetSkill, `{"uri":"skill://pdf/SKILL.md"}`, want},
		{all, tools.SkillTool, `{"skill_name":"pdf"}`, want},
		{all, tools.ReadFileInSkill, `{"skill_name":"pdf","file_path":"forms.md"}`, want},
		{all, tools.ListSkills, `{}`, nil},
		{all, tools.SearchSkills, `{"query":"pdf forms"}`, nil},
		{all, tools.GetSkill, `{"skill_name":"nope"}`, nil},
		{all, tools.ReadFileInSkill, `{"skill_name":"pdf","file_path":"nope.md"}`, nil},
		{all, tools.GetSkill, `{"skill_name":"pdf","uri":"skill://pdf/SKILL.md"}`, nil},
		{viewer, tools.GetSkill, `{"skill_name":"pdf"}`, want},
		{viewer, tools.GetSkill, `{"skill_name":"secret"}`, nil},
		{viewer, tools.SkillTool, `{"skill_name":"secret"}`, nil},
		{viewer, tools.ReadFileInSkill, `{"skill_name":"secret","file_path":"private.md"}`, nil},
	} {
		res, _ := tc.t.Run(ctx, tc.tool, []byte(tc.args))
		if diff := gocmp.Diff(tc.want, res.Provenance); diff != "" {
			t.Errorf("%s %s: provenance (-want +got):\n%s", tc.tool, tc.args, diff)
		}
		if strings.Contains(res.Content(), "git.example.com") && tc.tool != tools.SkillTool {
			t.Errorf("%s %s: the function-calling content names the source: %s", tc.tool, tc.args, res.Content())
		}
	}
}

// TestSkillToolRevision: the Skill tool's Path line names a git commit
// by its first 12 digits, and any other revision (a published snapshot's
// ID, an archive's digest) whole, as a revision.
func TestSkillToolRevision(t *testing.T) {
	files := fstest.MapFS{"pdf/SKILL.md": {Data: []byte("---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n")}}
	for _, tc := range []struct{ rev, want string }{
		{"0123456789abcdef0123456789abcdef01234567", " (commit 0123456789ab)"},
		{"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", " (commit 0123456789ab)"},
		{"20260101T000000.000000000Z-0123456789ab", " (revision 20260101T000000.000000000Z-0123456789ab)"},
		{"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", " (revision sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef)"},
		{"0123456789ABCDEF0123456789ABCDEF01234567", " (revision 0123456789ABCDEF0123456789ABCDEF01234567)"},
		{"", ""},
	} {
		s, err := store.New([]store.Source{{Label: "org", Location: "/srv/skills", FS: revisionFS{files, tc.rev}}}, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := tools.New(s, tools.Options{}).Call(context.Background(), tools.SkillTool, `{"skill_name":"pdf"}`)
		if want := "Skill: pdf (Type: org)\nPath: /srv/skills/pdf" + tc.want + "\n\n"; err != nil || !strings.HasPrefix(got, want) {
			t.Errorf("revision %q: %v\n%s\nwant it to start with\n%s", tc.rev, err, got, want)
		}
	}
}
