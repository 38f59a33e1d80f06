package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/internal/storetest"
	"github.com/skillstore/skillstore/store"
)

// TestSearch: search ranks the served skills over their name, description,
// headings and text, never a shadowed copy, and follows refreshes.
func TestSearch(t *testing.T) {
	project := storetest.MapFS(
		"pdf-forms/SKILL.md=---\nname: pdf-forms\ndescription: Fill and flatten PDF forms.\n---\n# Filling with pypdf\n\nOpen the document.\n",
		"kube-deploy/SKILL.md="+storetest.Doc("kube-deploy", "Roll out services on Kubernetes."),
	)
	personal := storetest.MapFS(
		"pdf-forms/SKILL.md="+storetest.Doc("pdf-forms", "Plan a vegetable garden."),
		"garden-notes/SKILL.md="+storetest.Doc("garden-notes", "Keep notes about a vegetable garden."),
	)
	s := storetest.New(t, store.Options{}, project, personal)
	ctx := context.Background()
	search := func(q string) string {
		t.Helper()
		got, err := s.View(nil).Search(ctx, q, 5)
		if err != nil {
			t.Fatal(err)
		}
		return storetest.Names(got)
	}
	for q, want := range map[string]string{
		"fill a pdf form":     "pdf-forms",
		"pypdf":               "pdf-forms", // a heading
		"open document":       "pdf-forms", // the text
		"deploying to k8s":    "kube-deploy",
		"vegetable gardening": "garden-notes", // not the shadowed pdf-forms
		"the of and":          "",
	} {
		if got := search(q); got != want {
			t.Errorf("Search(%q) = %q; want %q", q, got, want)
		}
	}
	if got, err := s.View(nil).Search(ctx, "pdf", 0); err != nil || len(got) != 0 {
		t.Errorf("limit 0: %v %v", storetest.Names(got), err)
	}

	project["kube-deploy/SKILL.md"] = &fstest.MapFile{Data: []byte(storetest.Doc("kube-deploy", "Roll out Helm charts."))}
	delete(personal, "garden-notes/SKILL.md")
	delete(personal, "garden-notes")
	if _, err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{"helm chart": "kube-deploy", "vegetable garden": "", "pdf": "pdf-forms"} {
		if got := search(q); got != want {
			t.Errorf("after a refresh, Search(%q) = %q; want %q", q, got, want)
		}
	}
}

// TestSearchRefreshIndexesChangesOnly: a refresh re-indexes the skill that
// changed and nothing else; a rebuild after Invalidate re-reads every
// document but re-indexes none whose text is unchanged.
func TestSearchRefreshIndexesChangesOnly(t *testing.T) {
	fsys := fstest.MapFS{}
	for i := range 300 {
		name := fmt.Sprintf("skill-%03d", i)
		fsys[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte(storetest.Doc(name, "Task "+name+"."))}
	}
	s := storetest.New(t, store.Options{}, fsys)
	ctx := context.Background()
	if got, err := s.View(nil).Search(ctx, "instructions", 1); err != nil || len(got) != 1 {
		t.Fatalf("not indexed: %v %v", storetest.Names(got), err)
	}
	before := s.Stats().Search
	if before.Documents != 300 {
		t.Fatalf("%+v", before)
	}
	fsys["skill-007/SKILL.md"] = &fstest.MapFile{Data: []byte(storetest.Doc("skill-007", "Grow tomatoes on a balcony."))}
	if _, err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := s.View(nil).Search(ctx, "balcony tomatoes", 3); err != nil || storetest.Names(got) != "skill-007" {
		t.Errorf("after a refresh: %q %v", storetest.Names(got), err)
	}
	if after := s.Stats().Search; after.Updates-before.Updates != 1 || after.Documents != 300 {
		t.Errorf("a refresh changing one skill: %+v, then %+v", before, after)
	}
	before = s.Stats().Search
	s.Invalidate()
	if got, err := s.View(nil).Search(ctx, "balcony tomatoes", 3); err != nil || storetest.Names(got) != "skill-007" {
		t.Errorf("after Invalidate: %q %v", storetest.Names(got), err)
	}
	if after := s.Stats().Search; after.Updates != before.Updates {
		t.Errorf("a rebuild of unchanged documents re-indexed %d", after.Updates-before.Updates)
	}
}

// TestNoSearch: a store built without a search index lists and serves
// its skills, and a search says it has no index.
func TestNoSearch(t *testing.T) {
	fsys := fstest.MapFS{"pdf/SKILL.md": {Data: []byte("---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n")}}
	s, err := store.New([]store.Source{{FS: fsys}}, store.Options{NoSearch: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if list, err := s.View(nil).List(ctx); err != nil || len(list) != 1 {
		t.Fatalf("list: %d skills, %v", len(list), err)
	}
	if _, err := s.View(nil).Search(ctx, "pdf", 5); err == nil || !strings.Contains(err.Error(), "no search index") {
		t.Errorf("search without an index: %v; want it refused", err)
	}
	if st := s.Stats().Search; st.Documents != 0 {
		t.Errorf("stats %+v; want an empty index", st)
	}
}
