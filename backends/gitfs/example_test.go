package gitfs_test

import (
	"context"
	"fmt"
	"log"

	"github.com/skillstore/skillstore/backends/gitfs"
	"github.com/skillstore/skillstore/store"
)

// A store over the skills folder of a repository's tag. The token of a
// private repository comes from GIT_TOKEN; Refresh (the store's, or the
// Repo's) moves a branch source to its new commit.
func ExampleOpen() {
	repo, err := gitfs.Open("git+https://github.com/example/skills.git?ref=v1.2.0&path=skills/", gitfs.Options{})
	if err != nil {
		log.Fatal(err)
	}
	s, err := store.New([]store.Source{{Label: "team", Location: repo.Location(), FS: repo}}, store.Options{})
	if err != nil {
		log.Fatal(err)
	}
	list, err := s.View(nil).List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, sk := range list {
		fmt.Println(sk.Name, sk.Revision())
	}
}
