package ui_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
	"github.com/skillstore/skillstore/ui"
)

// TestHiddenClassesPages: a skill whose SKILL.md hides text in one of
// fixture.HiddenClasses's ways has the index's "hidden text" badge (what
// discovery finds); a file or folder name that would display as another
// is shown with its code points on the skill's page, the file's page and
// the scan's list, never as it is.
func TestHiddenClassesPages(t *testing.T) {
	m := fstest.MapFS{}
	classes := fixture.HiddenClasses()
	for _, c := range classes {
		for p, body := range c.Files {
			m[c.Skill+"/"+p] = &fstest.MapFile{Data: []byte(body)}
		}
	}
	s, err := store.New([]store.Source{{Label: "l", Location: "./l", FS: m}}, store.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	v := tools.New(s, tools.Options{}).View()
	h := ui.New(ui.Options{View: func(*http.Request) *store.View { return v }})
	index := get(t, h, "/?q=").body
	for _, c := range classes {
		line := index[strings.Index(index, ">"+c.Skill+"</a>"):]
		line = line[:strings.Index(line, "</div>")]
		if got := strings.Contains(line, "hidden text"); got != c.InDoc {
			t.Errorf("%s: hidden text badge %v, want %v: %s", c.Skill, got, c.InDoc, line)
		}
	}
	for _, c := range []struct{ skill, file, spoof, shown string }{
		{"bidi-name", "invoice\u202Efdp.exe", "invoice\u202Efdp.exe", `invoice\u202Efdp.exe`},
		{"zero-width-folder", "docs\u200B/a.txt", "docs\u200B", `docs\u200B`},
		{"tag-name", "notes\U000E0072", "\U000E0072", `\U000E0072`},
	} {
		for _, target := range []string{"/skills/" + c.skill, "/skills/" + c.skill + "?scan=1"} {
			a := get(t, h, target)
			if a.code != http.StatusOK || strings.Contains(a.body, c.spoof) || !strings.Contains(a.body, c.shown) {
				t.Errorf("%s: %d; the page shows %q as it is, or not as %q", target, a.code, c.spoof, c.shown)
			}
		}
	}
	a := get(t, h, "/skills/bidi-name/files/"+escaped("invoice\u202Efdp.exe"))
	if a.code != http.StatusOK || strings.Contains(a.body, "invoice\u202Efdp.exe") || !strings.Contains(a.body, `invoice\u202Efdp.exe`) {
		t.Errorf("the file's page: %d; it shows the name as it is, or not escaped:\n%.2000s", a.code, a.body)
	}
}
