package ui_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
	"github.com/skillstore/skillstore/ui"
)

// TestSkillPageLead: a skill's page leads with how to use it (the command,
// shell-quoted, and the skill:// URI) before its facts and body, and shows
// metadata's owner (or author) and version and when SKILL.md changed,
// each only when known.
func TestSkillPageLead(t *testing.T) {
	mod := time.Now().Add(-3 * time.Hour)
	doc := func(meta string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\nname: x\ndescription: A skill.\n" + meta + "---\nThe body.\n"), ModTime: mod}
	}
	s, err := store.New([]store.Source{{Label: "t", Location: "./t", FS: fstest.MapFS{
		"owned/SKILL.md":    doc("metadata:\n  owner: platform-team\n  version: \"1.4.0\"\n"),
		"authored/SKILL.md": doc("metadata:\n  author: Ada\n"),
		"bare/SKILL.md":     {Data: []byte("---\nname: bare\ndescription: Nothing known.\n---\nBody.\n")},
		"Odd Name/SKILL.md": {Data: []byte("---\nname: odd\ndescription: A folder name a shell splits.\n---\nBody.\n")},
	}}}, store.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	v := tools.New(s, tools.Options{}).View()
	h := ui.New(ui.Options{View: func(*http.Request) *store.View { return v }})
	for _, tc := range []struct {
		folder  string
		want    []string
		notWant []string
	}{
		{"owned", []string{`<code class="copy">skillstore get owned</code>`, `<code class="copy">skill://owned/SKILL.md</code>`,
			"<dt>Owner</dt><dd>platform-team</dd>", "<dt>Version</dt><dd>1.4.0</dd>", "<dt>Updated</dt>", "3 hours ago"}, nil},
		{"authored", []string{"<dt>Owner</dt><dd>Ada</dd>", "3 hours ago"}, []string{"<dt>Version</dt>"}},
		{"bare", []string{`skillstore get bare`}, []string{"<dt>Owner</dt>", "<dt>Version</dt>", "<dt>Updated</dt>"}},
		{"Odd Name", []string{`<code class="copy">skillstore get &#39;Odd Name&#39;</code>`}, nil},
	} {
		a := get(t, h, "/skills/"+escaped(tc.folder))
		if a.code != http.StatusOK {
			t.Fatalf("%s: %d", tc.folder, a.code)
		}
		for _, w := range tc.want {
			if !strings.Contains(a.body, w) {
				t.Errorf("%s: page lacks %q", tc.folder, w)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(a.body, w) {
				t.Errorf("%s: page shows %q, which is not known", tc.folder, w)
			}
		}
		use, facts, body := strings.Index(a.body, "skillstore get"), strings.Index(a.body, `<dl class="facts">`), strings.Index(a.body, "Body.")
		if tc.folder != "owned" && tc.folder != "authored" && !(use >= 0 && use < facts && facts < body) {
			t.Errorf("%s: the page does not lead with how to use it (use %d, facts %d, body %d)", tc.folder, use, facts, body)
		}
	}
}
