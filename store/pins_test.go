package store_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/skillstore/skillstore/store"
)

// docPins pins skills to the text of their SKILL.md, counting the copies
// it verifies.
type docPins struct {
	want map[string]string
	mu   sync.Mutex
	seen map[string]int // verifications, by source label and skill
}

func (p *docPins) Pinned(name string) bool { _, ok := p.want[name]; return ok }

func (p *docPins) Verify(ctx context.Context, sk *store.Skill, files *store.SkillFiles) error {
	p.mu.Lock()
	p.seen[sk.Source.Label+"/"+sk.Name]++
	p.mu.Unlock()
	b, err := files.Read(ctx, sk.DocPath)
	if err != nil {
		return err
	}
	if string(b) != p.want[sk.Name] {
		return errors.New("its SKILL.md differs")
	}
	return nil
}

func pinDoc(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nBody.\n"
}

func TestPins(t *testing.T) {
	ctx := context.Background()
	t0 := time.Unix(1e9, 0)
	project := fstest.MapFS{
		"a/SKILL.md": {Data: []byte(pinDoc("a", "Edited.")), ModTime: t0},
		"b/SKILL.md": {Data: []byte(pinDoc("b", "Pinned.")), ModTime: t0},
		"c/SKILL.md": {Data: []byte(pinDoc("c", "Not pinned.")), ModTime: t0},
	}
	org := fstest.MapFS{
		"a/SKILL.md": {Data: []byte(pinDoc("a", "Pinned.")), ModTime: t0},
	}
	pins := &docPins{want: map[string]string{"a": pinDoc("a", "Pinned."), "b": pinDoc("b", "Pinned.")}, seen: map[string]int{}}
	s, err := store.New([]store.Source{{Label: "project", FS: project}, {Label: "org", FS: org}}, store.Options{Pins: pins, RevalidateAfter: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	type served struct{ Name, Source string }
	check := func(wantServed []served, wantProblems []string) {
		t.Helper()
		c, err := s.View(nil).Catalog(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []served
		for _, sk := range c.Skills {
			got = append(got, served{sk.Name, sk.Source.Label})
		}
		if diff := cmp.Diff(wantServed, got); diff != "" {
			t.Errorf("served (-want +got):\n%s", diff)
		}
		var problems []string
		for _, p := range c.Problems {
			problems = append(problems, p.Source.Label+"/"+p.Skill+": "+p.Message)
		}
		if diff := cmp.Diff(wantProblems, problems); diff != "" {
			t.Errorf("problems (-want +got):\n%s", diff)
		}
	}
	// The project's copy of a is not the pinned one: org's is served, and
	// the project's reported; c is left out silently.
	check([]served{{"a", "org"}, {"b", "project"}}, []string{"project/a: skill is invalid: its SKILL.md differs"})
	if _, err := s.View(nil).Skill(ctx, "c"); !errors.Is(err, store.ErrSkillNotFound) {
		t.Errorf("unpinned c: %v", err)
	}
	found, err := s.View(nil).Search(ctx, "not pinned edited", 10)
	if err != nil {
		t.Fatal(err)
	}
	var names []served
	for _, sk := range found {
		names = append(names, served{sk.Name, sk.Source.Label})
	}
	if diff := cmp.Diff([]served{{"a", "org"}, {"b", "project"}}, names, cmpopts.SortSlices(func(x, y served) bool { return x.Name < y.Name })); diff != "" {
		t.Errorf("search (-want +got):\n%s", diff)
	}

	// A refresh that changes nothing verifies nothing again.
	if _, err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	check([]served{{"a", "org"}, {"b", "project"}}, []string{"project/a: skill is invalid: its SKILL.md differs"})
	if diff := cmp.Diff(map[string]int{"project/a": 1, "project/b": 1, "org/a": 1}, pins.seen); diff != "" {
		t.Errorf("verified (-want +got):\n%s", diff)
	}

	// An edit is verified at the next build, and withholds b.
	project["b/SKILL.md"] = &fstest.MapFile{Data: []byte(pinDoc("b", "Changed.")), ModTime: t0.Add(time.Second)}
	if _, err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	check([]served{{"a", "org"}}, []string{"project/a: skill is invalid: its SKILL.md differs", "project/b: skill is invalid: its SKILL.md differs"})
	if _, err := s.View(nil).Document(ctx, "b", nil); !errors.Is(err, store.ErrNotPinned) || !errors.Is(err, store.ErrSkillInvalid) {
		t.Errorf("withheld b: %v", err)
	}
	if pins.seen["project/b"] != 2 || pins.seen["project/a"] != 1 {
		t.Errorf("verified %v; want b again, a not", pins.seen)
	}
}
