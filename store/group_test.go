package store_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/internal/storetest"
	"github.com/skillstore/skillstore/store"
)

// markGroups is a Grouper for tests: a folder holding GROUP (its text the
// group's name, "!" to refuse it) is a group of the skills in its kit/.
type markGroups struct{ asked *atomic.Int32 }

func (m markGroups) Group(fsys fs.FS, dir string) (store.Group, bool) {
	if m.asked != nil {
		m.asked.Add(1)
	}
	b, err := fs.ReadFile(fsys, path.Join(dir, "GROUP"))
	if err != nil {
		return store.Group{}, false
	}
	g := store.Group{Name: strings.TrimSpace(string(b)), Skills: "kit", Conforming: true, Notes: []string{"noted"}}
	switch g.Name {
	case "!":
		g.Err = errors.New("refused by its reader")
	case "?":
		g.Err = fmt.Errorf("%w: the disk hiccupped at /home/ana/secret", store.ErrUnavailable)
	}
	return g, true
}

// commented is a skill document that hides a comment.
func commented(name string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(storetest.Doc(name, "Fine.") + "<!-- a comment -->\n")}
}

// TestGroups: a group's skills are named GROUP:FOLDER, read from the
// group's folder, and must conform to the specification (hidden text
// alone withholds nothing without Strict); a refused group, a second group
// of one name and a plain folder whose name holds ':' are problems of
// their folders; the source's root may be a group; a folder that is a
// skill is never asked about; the same skill of another source, not
// grouped, is served with its diagnostics.
func TestGroups(t *testing.T) {
	var asked atomic.Int32
	tree := fstest.MapFS{
		"plain/SKILL.md":         commented("plain"),
		"plain/GROUP":            {Data: []byte("ignored")}, // a skill folder, whatever else it holds
		"p1/GROUP":               {Data: []byte("one")},
		"p1/kit/review/SKILL.md": commented("review"),
		"p1/kit/review/notes.md": {Data: []byte("notes")},
		"p1/kit/bad/SKILL.md":    commented("not-bad"),
		"p2/GROUP":               {Data: []byte("two")},
		"p2/kit/review/SKILL.md": commented("review"),
		"p3/GROUP":               {Data: []byte("one")},
		"p3/kit/x/SKILL.md":      commented("x"),
		"p4/GROUP":               {Data: []byte("!")},
		"p5/GROUP":               {Data: []byte("a:b")},
		"p6/GROUP":               {Data: []byte("?")},
		"p1/kit/x:y/SKILL.md":    commented("x:y"),
		"p1/kit/nothing/README":  {Data: []byte("no skill: not reported in a conforming group")},
		"a:b/SKILL.md":           commented("a:b"),
		"empty/README":           {Data: []byte("no skill, no group")},
	}
	log := slog.New(slog.DiscardHandler)
	s, err := store.New([]store.Source{{Label: "t", FS: tree, Grouper: markGroups{&asked}}}, store.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.View(nil).Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got, problems []string
	for _, sk := range c.Skills {
		got = append(got, sk.Name+"@"+sk.Folder())
	}
	for _, p := range c.Problems {
		problems = append(problems, p.Skill+"!"+p.Message)
	}
	if want := "one:review@p1/kit/review,plain@plain,two:review@p2/kit/review"; strings.Join(got, ",") != want {
		t.Errorf("served %s, want %s", strings.Join(got, ","), want)
	}
	for _, want := range []string{
		"one:bad!skill is invalid: it breaks the Agent Skills specification",
		"p3!skill is invalid: the folder p1 holds a group of the same name, one, which is served instead",
		"p4!skill is invalid: refused by its reader",
		`p5!skill is invalid: its name "a:b" cannot name skills`,
		"a:b!skill is invalid: a folder name holding ':' is reserved",
		"one:x:y!skill is invalid: a folder name holding ':' is reserved",
		"p6!source unavailable: the skill source is temporarily unavailable",
		"empty!skill document not found",
	} {
		if !strings.Contains(strings.Join(problems, "\n"), want) {
			t.Errorf("no problem %q in\n%s", want, strings.Join(problems, "\n"))
		}
	}
	if want := []store.FoundGroup{{Source: store.SourceRef{Label: "t"}, Name: "one", Dir: "p1", Skills: 4}, {Source: store.SourceRef{Label: "t"}, Name: "two", Dir: "p2", Skills: 1}}; !slices.Equal(c.Groups, want) {
		t.Errorf("groups %+v, want %+v", c.Groups, want)
	}
	if strings.Contains(strings.Join(problems, "\n"), "nothing") || strings.Contains(strings.Join(problems, "\n"), "/home/ana") {
		t.Errorf("problems:\n%s", strings.Join(problems, "\n"))
	}
	if asked.Load() != 8 { // the root, then p1 to p6 and empty: never plain or a:b
		t.Errorf("the grouper was asked %d times", asked.Load())
	}
	if f, err := s.View(nil).ReadFile(context.Background(), "one:review", "notes.md", nil); err != nil || f.Text != "notes" {
		t.Errorf("notes.md: %+v %v", f, err)
	}
	if _, err := s.View(nil).ReadFile(context.Background(), "one:review", "../bad/SKILL.md", nil); !errors.Is(err, store.ErrPathEscapes) {
		t.Errorf("a path to a sibling: %v", err)
	}
	// Nothing changed: a rebuild keeps the catalog.
	if ch, err := s.Refresh(context.Background()); err != nil || !ch.Empty() {
		t.Errorf("refresh: %+v %v", ch, err)
	}

	// The root as a group.
	root := fstest.MapFS{"GROUP": {Data: []byte("solo")}, "kit/review/SKILL.md": commented("review")}
	s, _ = store.New([]store.Source{{Label: "t", FS: root, Grouper: markGroups{}}}, store.Options{Logger: log})
	if sk, err := s.View(nil).Skill(context.Background(), "solo:review"); err != nil || sk.Folder() != "kit/review" {
		t.Errorf("a root group: %v %v", sk, err)
	}
	if st, err := s.View(nil).Status(context.Background()); err != nil || len(st) != 1 || st[0].Answered.IsZero() || st[0].Failing {
		t.Errorf("a root group's status: %+v %v", st, err)
	}
	refused := fstest.MapFS{"GROUP": {Data: []byte("!")}, "kit/review/SKILL.md": commented("review")}
	s, _ = store.New([]store.Source{{Label: "t", FS: refused, Grouper: markGroups{}}}, store.Options{Logger: log})
	if c, err := s.View(nil).Catalog(context.Background()); err != nil || len(c.Skills) != 0 || len(c.Problems) != 1 || c.Problems[0].Skill != "." {
		t.Errorf("a refused root group: %+v %v", c, err)
	}

	// Not grouped, the misnamed skill is served with its diagnostics.
	s, _ = store.New([]store.Source{{Label: "plain", FS: fstest.MapFS{"bad/SKILL.md": commented("not-bad")}}}, store.Options{Logger: log})
	if sk, err := s.View(nil).Skill(context.Background(), "bad"); err != nil || sk.Valid() {
		t.Errorf("from a plain source: %v %v", sk, err)
	}
}

// fileGroups is markGroups as a store.FileGrouper: its answer is read
// from GROUP alone.
type fileGroups struct{ markGroups }

func (fileGroups) GroupFiles() []string { return []string{"GROUP"} }

// TestFileGrouperAnswersKept: a FileGrouper's answer for a folder is
// given again while the files it names are as they were, for a group
// folder and for the source's root: a listing with nothing changed asks
// it about no group; a group that could not be read (ErrUnavailable) and
// a folder that is no group are asked again; a group whose file changed
// is asked, and an Invalidate forgets every answer.
func TestFileGrouperAnswersKept(t *testing.T) {
	for _, c := range []struct {
		name      string
		tree      fstest.MapFS
		idleAsks  int32 // at a refresh with nothing changed
		changed   string
		wantAfter string // the skills served once changed holds "renamed"
	}{
		{"folders", fstest.MapFS{
			"p1/GROUP":               {Data: []byte("one")},
			"p1/kit/review/SKILL.md": commented("review"),
			"p2/GROUP":               {Data: []byte("two")},
			"p2/kit/x/SKILL.md":      commented("x"),
			"p6/GROUP":               {Data: []byte("?")},
			"empty/README":           {Data: []byte("no skill, no group")},
		}, 3, "p1/GROUP", "renamed:review,two:x"}, // the root, p6 and empty
		{"the root", fstest.MapFS{
			"GROUP":               {Data: []byte("solo")},
			"kit/review/SKILL.md": commented("review"),
		}, 0, "GROUP", "renamed:review"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var asked atomic.Int32
			s, err := store.New([]store.Source{{Label: "t", FS: c.tree, Grouper: fileGroups{markGroups{&asked}}}}, store.Options{Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.View(nil).Catalog(context.Background()); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				before := asked.Load()
				if _, err := s.Refresh(context.Background()); err != nil {
					t.Fatal(err)
				}
				if n := asked.Load() - before; n != c.idleAsks {
					t.Errorf("a refresh with nothing changed asked the grouper %d times; want %d", n, c.idleAsks)
				}
			}
			c.tree[c.changed] = &fstest.MapFile{Data: []byte("renamed")}
			if _, err := s.Refresh(context.Background()); err != nil {
				t.Fatal(err)
			}
			list, err := s.View(nil).List(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, sk := range list {
				got = append(got, sk.Name)
			}
			if strings.Join(got, ",") != c.wantAfter {
				t.Errorf("after %s changed: %v; want %s", c.changed, got, c.wantAfter)
			}
			s.Invalidate()
			before := asked.Load()
			if _, err := s.View(nil).Catalog(context.Background()); err != nil {
				t.Fatal(err)
			}
			if n := asked.Load() - before; n == c.idleAsks {
				t.Errorf("after an Invalidate the grouper was asked %d times, as at an idle refresh", n)
			}
		})
	}
}
