package store_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/store"
)

// TestConforming: a Conforming source's skill that breaks the
// specification is left out with a problem naming the breach; the same
// skill from another source is served with its diagnostics; hidden text
// alone withholds nothing without Options.Strict.
func TestConforming(t *testing.T) {
	tree := func() fstest.MapFS {
		return fstest.MapFS{
			"good/SKILL.md":     {Data: []byte("---\nname: good\ndescription: Fine.\n---\nBody.\n")},
			"misnamed/SKILL.md": {Data: []byte("---\nname: other-name\ndescription: Its name is not its folder's.\n---\n<!-- and a comment -->\n")},
			"hidden/SKILL.md":   {Data: []byte("---\nname: hidden\ndescription: Holds a comment.\n---\n<!-- a comment -->\n")},
		}
	}
	s, err := store.New([]store.Source{{Label: "plugin", FS: tree(), Conforming: true}}, store.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sk := range c.Skills {
		names = append(names, sk.Name)
	}
	if len(names) != 2 || names[0] != "good" || names[1] != "hidden" {
		t.Errorf("served %v, want good and hidden", names)
	}
	if p, ok := c.Problem("misnamed"); !ok || len(p.Diagnostics) == 0 || len(p.Findings) != 1 || errors.Is(p.Err(), store.ErrHiddenText) {
		t.Errorf("misnamed: %+v %v", p, ok)
	}
	s2, _ := store.New([]store.Source{{Label: "plain", FS: tree()}}, store.Options{Logger: slog.New(slog.DiscardHandler)})
	if sk, err := s2.Skill(context.Background(), "misnamed"); err != nil || sk.Valid() {
		t.Errorf("from a plain source: %v %v", sk, err)
	}
}
