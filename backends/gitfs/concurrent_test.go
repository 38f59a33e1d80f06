package gitfs_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"sync"
	"testing"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/gitfs"
	"github.com/skillstore/skillstore/internal/gittest"
	"github.com/skillstore/skillstore/store"
)

// manySkills is a repository's files: n skills under skills/, each with a
// note in a nested folder, two plugins beside them, and a file larger
// than the size go-git reads whole (streamed from its pack).
func manySkills(n int) map[string][]byte {
	files := map[string][]byte{"README.md": []byte("outside the skills path")}
	for i := range n {
		name := fmt.Sprintf("skill-%03d", i)
		files["skills/"+name+"/SKILL.md"] = skill(name, fmt.Sprintf("Skill number %d.", i))
		files["skills/"+name+"/references/deep/notes.md"] = []byte("notes of " + name)
	}
	for _, p := range []string{"plug-a", "plug-b"} {
		files["skills/"+p+"/plugin.json"] = []byte(`{"$schema": "` + backends.PluginSchema + `", "name": "` + p + `"}`)
		files["skills/"+p+"/skills/inner/SKILL.md"] = skill("inner", "A plugin's skill.")
	}
	files["skills/skill-000/references/large.bin"] = bytes.Repeat([]byte("0123456789abcdef"), 128<<10) // 2 MiB
	return files
}

// TestConcurrentReads: a repository of a few hundred skills is read
// through the store's bounded pool (skill folders and plugin.json files
// at once), and its snapshot by many goroutines walking and reading
// every file, from memory and from a cache folder. Nothing go-git keeps
// (a tree's path cache, the object storage's indexes and packs) may be
// written by two readers at once: run under -race, and without the fix
// the process ends with "concurrent map writes".
func TestConcurrentReads(t *testing.T) {
	s := gittest.NewServer(t)
	r := s.Repo(t, "many")
	files := manySkills(300)
	r.Commit("main", files)
	for _, tc := range []struct {
		name string
		opts gitfs.Options
	}{
		{"memory", gitfs.Options{}},
		{"cache folder", gitfs.Options{CacheDir: t.TempDir()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			g := open(t, r.URL+"?path=skills/", tc.opts)
			st, err := store.New([]store.Source{{Location: g.Location(), Kind: "git", FS: g, Grouper: backends.Plugins}}, store.Options{Concurrency: 16})
			if err != nil {
				t.Fatal(err)
			}
			list, err := st.View(nil).List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != 302 {
				t.Errorf("%d skills listed, want 302 (300 and a skill in each of 2 plugins)", len(list))
			}

			snap, err := g.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make(chan error, 16)
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs <- fs.WalkDir(snap, ".", func(p string, d fs.DirEntry, err error) error {
						if err != nil || d.IsDir() {
							return err
						}
						if _, err := fs.Stat(snap, p); err != nil {
							return err
						}
						got, err := fs.ReadFile(snap, p)
						if err != nil {
							return err
						}
						if want := files["skills/"+p]; !bytes.Equal(got, want) {
							return fmt.Errorf("%s: read %d bytes, want %d", p, len(got), len(want))
						}
						return nil
					})
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// BenchmarkCatalog: a first catalog of a repository of 300 skills (each
// skill's folder listed and its SKILL.md read, through the store's pool
// of 1 and of 16 readers), and a walk reading every file of its
// snapshot, from a clone in memory.
func BenchmarkCatalog(b *testing.B) {
	s := gittest.NewServer(b)
	r := s.Repo(b, "many")
	r.Commit("main", manySkills(300))
	g, err := gitfs.Open(r.URL+"?path=skills/", gitfs.Options{})
	if err != nil {
		b.Fatal(err)
	}
	snap, err := g.Snapshot(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprintf("readers=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				st, err := store.New([]store.Source{{Location: g.Location(), Kind: "git", FS: g}}, store.Options{Concurrency: n})
				if err != nil {
					b.Fatal(err)
				}
				if list, err := st.View(nil).List(context.Background()); err != nil || len(list) != 300 {
					b.Fatal(len(list), err)
				}
			}
		})
	}
	b.Run("walk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			err := fs.WalkDir(snap, ".", func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				_, err = fs.ReadFile(snap, p)
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
