package gitfs

import (
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/skillstore/skillstore/store"
)

// ForgetTokenHost lets GIT_TOKEN be claimed by a host again, as in a new
// process.
func ForgetTokenHost() { gitToken.Forget() }

// CacheFolder is the repository's folder under its cache folder.
func CacheFolder(r *Repo) string { return r.cacheDir }

// SetPace makes r's fetches keep a short pace: start within grace, then
// minRate bytes a second.
func SetPace(r *Repo, grace time.Duration, minRate int64) {
	r.pace.Grace, r.pace.MinRate = grace, minRate
}

// VerifyCommit checks commit c against v as a source without a tag
// checks the commit it serves.
func VerifyCommit(v *Verifier, c *object.Commit) (store.Signer, error) {
	r := &Repo{shown: "git+https://example.com/bench.git", verify: v}
	s, err := r.check(target{commit: c.Hash}, nil, c)
	if err != nil {
		return store.Signer{}, err
	}
	return *s, nil
}

// VerifyTarget checks commit, reached by the annotated tag tag (zero for
// none) under the tag's own name, against v as a source does; repo holds
// both.
func VerifyTarget(v *Verifier, repo *git.Repository, tag, commit plumbing.Hash) (store.Signer, error) {
	c, err := repo.CommitObject(commit)
	if err != nil {
		return store.Signer{}, err
	}
	to := target{commit: commit, tag: tag}
	if t, err := repo.TagObject(tag); err == nil {
		to.name = plumbing.NewTagReferenceName(t.Name)
	}
	r := &Repo{shown: "git+https://example.com/bench.git", verify: v}
	s, err := r.check(to, peelTag(repo, tag, commit), c)
	if err != nil {
		return store.Signer{}, err
	}
	return *s, nil
}

// SetClock makes keys be checked against clock until the returned
// function restores the real one.
func SetClock(clock func() time.Time) (restore func()) {
	now = clock
	return func() { now = time.Now }
}
