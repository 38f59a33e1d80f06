package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/store"
)

// readTree returns every file under dir by its slash path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// catalog reads dir as skillstore does and fails the test on any problem,
// invalid skill or finding.
func catalog(t *testing.T, dir string) []*store.Skill {
	t.Helper()
	local, err := backends.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	s, err := store.New([]store.Source{{Label: "fleet", FS: local}}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.View(nil).Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c.Problems {
		t.Errorf("problem: %s: %v", p.Skill, p.Err())
	}
	for _, sk := range c.Skills {
		if !sk.Valid() || len(sk.Findings) > 0 {
			t.Errorf("%s: diagnostics %v, findings %v", sk.Name, sk.Diagnostics, sk.Findings)
		}
	}
	return c.Skills
}

// TestWriteFleet writes a fleet and checks that skillstore serves every
// skill with no diagnostic, that the files have the sizes the issue's
// fleet has, and that the text is the same whatever N and however many
// goroutines write it.
func TestWriteFleet(t *testing.T) {
	const n = 300
	dir := t.TempDir()
	files, total, err := writeFleet(dir, n, 8)
	if err != nil || files != 3*n {
		t.Fatalf("wrote %d files, %v", files, err)
	}
	if per := total / n; per < 4300 || per > 5400 {
		t.Errorf("%d bytes per skill; want about 4.8 KB", per)
	}
	got := readTree(t, dir)
	if len(got) != 3*n {
		t.Errorf("%d files on disk; want %d", len(got), 3*n)
	}
	skills := catalog(t, dir)
	if len(skills) != n {
		t.Fatalf("skillstore lists %d skills; want %d", len(skills), n)
	}
	for i := range n {
		name := skillName(i)
		for _, f := range []struct {
			path     string
			min, max int
		}{
			{"SKILL.md", 3300, 4900},
			{"references/guide.md", 350, 800},
			{"scripts/run.sh", scriptMin, 400},
		} {
			if size := len(got[name+"/"+f.path]); size < f.min || size > f.max {
				t.Errorf("%s/%s: %d bytes; want %d to %d", name, f.path, size, f.min, f.max)
			}
		}
		doc := string(got[name+"/SKILL.md"])
		if strings.Count(doc, "\n## ") < 2 || !strings.Contains(doc, "\n# ") {
			t.Errorf("%s/SKILL.md has no # title or fewer than two ## sections:\n%s", name, doc)
		}
	}

	// Fewer skills, written by one goroutine: the same first skills.
	again := t.TempDir()
	if _, _, err := writeFleet(again, n/3, 1); err != nil {
		t.Fatal(err)
	}
	for p, data := range readTree(t, again) {
		if !bytes.Equal(data, got[p]) {
			t.Errorf("%s differs between two runs", p)
		}
	}
	if _, _, err := writeFleet(dir, 1, 1); err == nil || strings.Contains(err.Error(), dir) {
		t.Errorf("writing into a fleet: %v; want an error without the path", err)
	}
}

// TestTouch rewrites K skills twice: each time exactly those SKILL.md
// files change, in size, keeping their frontmatter, and the fleet stays
// valid.
func TestTouch(t *testing.T) {
	const n, k = 40, 4
	dir := t.TempDir()
	if _, _, err := writeFleet(dir, n, 4); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, i := range []int{0, 10, 20, 30} {
		want[skillName(i)+"/SKILL.md"] = true
	}
	before := readTree(t, dir)
	for round := range 2 {
		if err := touchFleet(dir, n, k); err != nil {
			t.Fatal(err)
		}
		after := readTree(t, dir)
		changed := map[string]bool{}
		for p, data := range after {
			if bytes.Equal(data, before[p]) {
				continue
			}
			changed[p] = true
			if len(data) == len(before[p]) {
				t.Errorf("round %d: %s changed but kept its size", round, p)
			}
			if frontmatter(data) != frontmatter(before[p]) {
				t.Errorf("round %d: %s: frontmatter %q became %q", round, p, frontmatter(before[p]), frontmatter(data))
			}
		}
		if diff := cmp.Diff(want, changed); diff != "" {
			t.Errorf("round %d: changed files (-want +got):\n%s", round, diff)
		}
		before = after
	}
	if len(catalog(t, dir)) != n {
		t.Errorf("the touched fleet lost skills")
	}
	if err := touchFleet(dir, n+40, k); err == nil || strings.Contains(err.Error(), dir) {
		t.Errorf("touching skills that are not there: %v; want an error without the path", err)
	}
}

// frontmatter returns a SKILL.md's text up to the end of its frontmatter.
func frontmatter(doc []byte) string {
	s := string(doc)
	if i := strings.Index(s, "\n---\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// TestVocab checks that the vocabulary's words are distinct and plain.
func TestVocab(t *testing.T) {
	seen := map[string]bool{}
	for _, w := range vocab {
		if seen[w] || w == "" || strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") != "" {
			t.Errorf("word %q: repeated or not lowercase letters", w)
		}
		seen[w] = true
	}
	if len(vocab) != vocabSize {
		t.Errorf("%d words; want %d", len(vocab), vocabSize)
	}
}
