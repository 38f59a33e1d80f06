package search_test

import (
	"fmt"

	"github.com/skillstore/skillstore/search"
)

// An index ranks skills for a request in everyday words: "filling in"
// finds "fill", "PDFs" finds "PDF", and "k8s" finds "Kubernetes".
func ExampleIndex_Search() {
	x := search.New()
	x.Put(search.SkillDoc("pdf-forms", "pdf-forms", "Fill and flatten PDF forms.", "# Filling forms\n\nUse pypdf.\n"))
	x.Put(search.SkillDoc("kube-deploy", "kube-deploy", "Roll out services on Kubernetes.", "# Rollouts\n"))
	x.Put(search.SkillDoc("commit-messages", "commit-messages", "Write conventional commit messages.", ""))
	for _, q := range []string{"filling in PDFs", "deploy to k8s", "how do I write a commit message?"} {
		hits := x.Search(q, 1)
		fmt.Printf("%s → %s\n", q, hits[0].ID)
	}
	// Output:
	// filling in PDFs → pdf-forms
	// deploy to k8s → kube-deploy
	// how do I write a commit message? → commit-messages
}
