// Command genfleet writes a fleet of generated skills, the catalog
// scripts/fleet-bench.sh publishes and serves (issue 22):
//
//	go run ./internal/skillgen/cmd/genfleet -n 100000 -out /tmp/fleet/skills
//
// writes N skills, each a folder NAME/ holding a SKILL.md of about 4 KB
// (frontmatter with name and description; a Markdown body of headings,
// paragraphs and numbered steps), references/guide.md (about 600 B) and
// scripts/run.sh (about 200 B): 3N files, about 4.8 KB per skill. The
// text is drawn from a fixed vocabulary (a few hundred common words and a
// long tail of made-up ones); skill i is always the same, whatever N.
// OUT must be empty or absent.
//
//	go run ./internal/skillgen/cmd/genfleet -n 100000 -out /tmp/fleet/skills -touch 10
//
// rewrites the SKILL.md body of K skills spread evenly over the N (skill
// i·N/K), changing its size and keeping its frontmatter: a republish
// then has K changed skills. Each rewrite depends on the file's current
// text, so touching again changes them again.
//
//	go run ./internal/skillgen/cmd/genfleet -name 5000
//
// prints skill 5000's name.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	n := flag.Int("n", 10_000, "number of skills")
	out := flag.String("out", "", "skills folder to write or touch")
	touch := flag.Int("touch", 0, "rewrite the SKILL.md of this many existing skills instead of writing the fleet")
	name := flag.Int("name", -1, "print the name of skill `I` and exit")
	workers := flag.Int("workers", 4*runtime.GOMAXPROCS(0), "files written at once")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("genfleet: ")
	switch {
	case *name >= 0:
		fmt.Println(skillName(*name))
		return
	case *out == "" || *n < 1 || *workers < 1 || *touch < 0 || *touch > *n:
		flag.Usage()
		os.Exit(2)
	}
	start := time.Now()
	if *touch > 0 {
		if err := touchFleet(*out, *n, *touch); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("rewrote the SKILL.md of %d of %d skills in %.1fs\n", *touch, *n, time.Since(start).Seconds())
		return
	}
	files, bytes, err := writeFleet(*out, *n, *workers)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("wrote %d skills, %d files, %.1f MB in %.1fs\n", *n, files, float64(bytes)/1e6, time.Since(start).Seconds())
}

// writeFleet writes skills 0 to n-1 under dir, which must be empty or
// absent, with the given number of goroutines; it returns the files and
// bytes written.
func writeFleet(dir string, n, workers int) (files, bytes int64, err error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return 0, 0, fmt.Errorf("%s is not empty", filepath.Base(dir))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, 0, bare(err)
	}
	var next, nfiles, nbytes atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				b, err := writeSkill(dir, generate(i))
				if err != nil {
					errs[w] = err
					next.Store(int64(n)) // stops the others
					return
				}
				nfiles.Add(3)
				nbytes.Add(b)
			}
		})
	}
	wg.Wait()
	return nfiles.Load(), nbytes.Load(), errors.Join(errs...)
}

// writeSkill writes s's folder under dir and returns the bytes written.
func writeSkill(dir string, s skill) (int64, error) {
	d := filepath.Join(dir, s.name)
	for _, sub := range []string{"", "references", "scripts"} {
		if err := os.Mkdir(filepath.Join(d, sub), 0o755); err != nil {
			return 0, fmt.Errorf("%s/%s: %w", s.name, sub, bare(err))
		}
	}
	for _, f := range []struct {
		path string
		data []byte
		mode os.FileMode
	}{
		{"SKILL.md", s.doc, 0o644},
		{"references/guide.md", s.guide, 0o644},
		{"scripts/run.sh", s.script, 0o755},
	} {
		if err := os.WriteFile(filepath.Join(d, f.path), f.data, f.mode); err != nil {
			return 0, fmt.Errorf("%s/%s: %w", s.name, f.path, bare(err))
		}
	}
	return int64(len(s.doc) + len(s.guide) + len(s.script)), nil
}

// touchFleet rewrites the SKILL.md of k of the n skills under dir:
// skills i·n/k for i from 0 to k-1.
func touchFleet(dir string, n, k int) error {
	for t := range k {
		i := t * n / k
		p := filepath.Join(dir, skillName(i), "SKILL.md")
		old, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("skill %d (%s) is not in the fleet: %w", i, skillName(i), bare(err))
		}
		doc, err := rewrite(i, old)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, doc, 0o644); err != nil {
			return fmt.Errorf("%s/SKILL.md: %w", skillName(i), bare(err))
		}
	}
	return nil
}

// bare is err without the path an *fs.PathError adds.
func bare(err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
