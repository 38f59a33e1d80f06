// Command ours is the smallest program that indexes and searches skills
// with package search, to measure what it adds to a binary.
package main

import (
	"fmt"

	"github.com/skillstore/skillstore/search"
)

func main() {
	x := search.New()
	x.Put(search.Doc{ID: "pdf-forms", Fields: [4]string{"pdf-forms", "Fill and flatten PDF forms.", "Filling forms", "Use pypdf to fill fields."}})
	x.Put(search.Doc{ID: "code-review", Fields: [4]string{"code-review", "Review a pull request.", "Checklist", "Look for SQL injection."}})
	for _, h := range x.Search("fill a pdf form", 5) {
		fmt.Println(h.ID, h.Score)
	}
}
