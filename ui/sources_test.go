package ui_test

import (
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
	"github.com/skillstore/skillstore/ui"
)

// revFS is a source with a revision, as a git or snapshot source has.
type revFS struct {
	fstest.MapFS
	rev string
}

func (r revFS) Revision() string { return r.rev }

// downFS is a source that never answers.
type downFS struct{}

func (downFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: "/srv/secret-host/" + name, Err: errors.New("dial tcp 10.0.0.9: refused")}
}

// sourcesPages serves a source with a revision and three skills, and one
// that fails.
func sourcesPages(t *testing.T) http.Handler {
	t.Helper()
	skill := func(name string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: The " + name + " skill.\n---\nBody.\n")}
	}
	s, err := store.New([]store.Source{
		{Label: "git", Kind: "git", Location: "/srv/secret-host/skills.git", FS: revFS{fstest.MapFS{
			"alpha/SKILL.md": skill("alpha"), "beta/SKILL.md": skill("beta"), "gamma/SKILL.md": skill("gamma"),
		}, "0123456789abcdef0123456789abcdef01234567"}},
		{Label: "down", Location: "/srv/secret-host/down?token=hunter2", FS: downFS{}},
	}, store.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	v := tools.New(s, tools.Options{}).View()
	u := ui.New(ui.Options{View: func(*http.Request) *store.View { return v }})
	mux := http.NewServeMux()
	mux.Handle("/", u)
	mux.Handle(ui.AssetsPath, u.Assets())
	return mux
}

// TestSourcesPage: a failing source says what to do, to the operator and
// to anyone else, naming no host path or credential; the source's
// revision is shown once, on the sources page, not on every skill of the
// listing (it is the source's, not the skill's); short cells and headers
// do not wrap.
func TestSourcesPage(t *testing.T) {
	h := sourcesPages(t)
	src := get(t, h, "/sources")
	if src.code != http.StatusOK {
		t.Fatalf("/sources: %d", src.code)
	}
	for _, want := range []string{
		"check the source’s location and credentials",
		"<code>skillstore list --source down</code>",
		"server log",
		"tell whoever runs this server",
	} {
		if !strings.Contains(src.body, want) {
			t.Errorf("/sources lacks %q", want)
		}
	}
	for _, leak := range []string{"secret-host", "hunter2", "10.0.0.9"} {
		if strings.Contains(src.body, leak) {
			t.Errorf("/sources shows %q", leak)
		}
	}
	if strings.Contains(src.body, "ask the operator") {
		t.Error("/sources tells the operator to ask the operator")
	}
	if n := strings.Count(src.body, `title="0123456789abcdef0123456789abcdef01234567"`); n != 1 {
		t.Errorf("/sources shows the revision %d times, want once", n)
	}
	if !regexp.MustCompile(`<table class="sources">\s*<thead><tr>(<th[^>]*class="[^"]*\bnowrap\b)`).MatchString(src.body) {
		t.Error("/sources: the table's headers may wrap mid-word")
	}
	if !regexp.MustCompile(`<td class="nowrap">git</td>`).MatchString(src.body) {
		t.Error("/sources: the Kind cell may wrap")
	}
	idx := get(t, h, "/")
	if n := strings.Count(idx.body, "0123456789ab"); n > 0 {
		t.Errorf("/ shows the source's revision on %d skills; it is the source's, shown once on /sources", n)
	}
	css := get(t, h, ui.AssetsPath+"style.css")
	if !regexp.MustCompile(`\.nowrap \{[^}]*white-space: nowrap;[^}]*overflow-wrap: normal`).MatchString(css.body) {
		t.Errorf("style.css lacks a .nowrap rule that also undoes main's overflow-wrap: anywhere")
	}
	if !regexp.MustCompile(`th \{[^}]*overflow-wrap: normal`).MatchString(css.body) {
		t.Errorf("style.css lets headers break mid-word")
	}
}
