package registry

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"gocloud.dev/blob/fileblob"

	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/skillcheck"
)

// seeded returns a folder on disk (through PublishBucketFor, as serve
// opens a file:// registry) holding a checkpoint of n skills of three
// files each, as n creates would have left it.
func seeded(b testing.TB, n int) snapshot.Bucket {
	dir := b.TempDir()
	fb, err := fileblob.OpenBucket(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { fb.Close() })
	bk := blobfs.PublishBucketFor(fb, (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String())
	r := &Registry{b: bk, opts: Options{Logger: slog.New(slog.DiscardHandler), Now: time.Now, CheckpointEvery: DefaultCheckpointEvery}, st: newState()}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	sum := snapshot.Sum([]byte("x"))
	for i := range n {
		name := fmt.Sprintf("skill-%06d", i)
		at := t0.Add(time.Duration(i) * time.Millisecond)
		v := &version{ID: newID(versionPrefix, at), Seq: uint64(i + 1), Created: at, By: "seed", Description: "Skill number " + name + ".",
			Digest: "sha256:" + sum, DocPath: "SKILL.md", Frontmatter: "name: " + name + "\ndescription: Skill number " + name + ".\n",
			Headings: "# " + name + "\n", Files: []snapshot.File{
				{Path: "SKILL.md", Size: 1, ModTime: at, SHA256: sum},
				{Path: "reference/guide.md", Size: 1, ModTime: at, SHA256: sum},
				{Path: "scripts/run.sh", Size: 1, ModTime: at, SHA256: sum},
			}}
		r.st.put(&skill{ID: newID(skillPrefix, at), Name: name, DisplayName: name, Created: at, Updated: at, Versions: []*version{v}})
	}
	r.st.Seq = uint64(n)
	r.writeCheckpoint(context.Background(), uint64(n))
	return bk
}

func benchOpen(b testing.TB, bk snapshot.Bucket) *Registry {
	r, err := Open(context.Background(), bk, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkCreateVersion is the server's time for one version of one
// small skill (two files, blobs new each time), beside the upload: the
// same at 10 and at 100,000 skills.
func BenchmarkCreateVersion(b *testing.B) {
	for _, n := range []int{10, 100_000} {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			r := benchOpen(b, seeded(b, n))
			ctx := context.Background()
			s, _, err := r.CreateSkill(ctx, "bench", checked(b, 0), "")
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				if _, err := r.CreateVersion(ctx, "bench", s.ID, checked(b, i+1), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func checked(b testing.TB, i int) *skillcheck.Skill {
	sk, err := skillcheck.Files([]skillcheck.File{
		{Path: "bench-skill/SKILL.md", Data: []byte("---\nname: bench-skill\ndescription: A benchmark.\n---\n# Bench\n")},
		{Path: "bench-skill/notes.txt", Data: fmt.Appendf(nil, "version %d\n", i)},
	}, skillcheck.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return sk
}

// BenchmarkOpen is a replica's cold start: the conditional-write probe,
// the checkpoint, the log after it.
func BenchmarkOpen(b *testing.B) {
	for _, n := range []int{10, 100_000} {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			bk := seeded(b, n)
			for b.Loop() {
				benchOpen(b, bk)
			}
		})
	}
}

// BenchmarkPublished is the snapshot a store serves, made after a change.
func BenchmarkPublished(b *testing.B) {
	r := benchOpen(b, seeded(b, 100_000))
	for b.Loop() {
		r.views = viewCache{}
		if _, err := r.published(""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSkillsPage lists 100,000 skills in pages of 100.
func BenchmarkSkillsPage(b *testing.B) {
	r := benchOpen(b, seeded(b, 100_000))
	ctx := context.Background()
	for b.Loop() {
		after := ""
		for {
			page, more, err := r.Skills(ctx, after, 100, nil)
			if err != nil {
				b.Fatal(err)
			}
			if !more {
				break
			}
			after = page[len(page)-1].ID
		}
	}
}

// BenchmarkIdleRefresh is a refresh that finds nothing new: one GET.
func BenchmarkIdleRefresh(b *testing.B) {
	r := benchOpen(b, seeded(b, 100_000))
	for b.Loop() {
		if err := r.Refresh(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPending is the first page of versions waiting for review when
// every one of 100,000 skills needs review and none is reviewed.
func BenchmarkPending(b *testing.B) {
	r := benchOpen(b, seeded(b, 100_000))
	r.opts.NeedsReview = func(string) bool { return true }
	ctx := context.Background()
	for b.Loop() {
		page, more, err := r.Pending(ctx, "", 100, nil)
		if err != nil || len(page) != 100 || !more {
			b.Fatalf("pending: %d, %v, %v", len(page), more, err)
		}
	}
}
