package store_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/store"
)

func names(skills []*store.Skill) string {
	var out []string
	for _, sk := range skills {
		out = append(out, sk.Name)
	}
	return strings.Join(out, ",")
}

// TestSearch: search ranks the served skills over their name, description,
// headings and text, never a shadowed copy, and follows refreshes.
func TestSearch(t *testing.T) {
	project := mapFS(
		"pdf-forms/SKILL.md=---\nname: pdf-forms\ndescription: Fill and flatten PDF forms.\n---\n# Filling with pypdf\n\nOpen the document.\n",
		"kube-deploy/SKILL.md="+doc("kube-deploy", "Roll out services on Kubernetes."),
	)
	personal := mapFS(
		"pdf-forms/SKILL.md="+doc("pdf-forms", "Plan a vegetable garden."),
		"garden-notes/SKILL.md="+doc("garden-notes", "Keep notes about a vegetable garden."),
	)
	s := newStore(t, store.Options{}, project, personal)
	ctx := context.Background()
	search := func(q string) string {
		t.Helper()
		got, err := s.Search(ctx, q, 5)
		if err != nil {
			t.Fatal(err)
		}
		return names(got)
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
	if got, _ := s.Search(ctx, "pdf", 0); len(got) != 0 {
		t.Errorf("limit 0: %v", names(got))
	}

	project["kube-deploy/SKILL.md"] = &fstest.MapFile{Data: []byte(doc("kube-deploy", "Roll out Helm charts."))}
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
