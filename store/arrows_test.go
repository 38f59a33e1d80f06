package store_test

import (
	"bufio"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestArrows: dependencies point one way. The store's tests (both test
// packages) import nothing above the store, directly or through a helper:
// of this module, only store, search and internal/... packages. A test
// that needs tools, mcpserver or a backend lives with them, or in
// integration.
func TestArrows(t *testing.T) {
	root, module := moduleRoot(t)
	below := func(p string) bool {
		rel, ok := strings.CutPrefix(p, module+"/")
		return ok && (rel == "store" || rel == "search" || rel == "internal" || strings.HasPrefix(rel, "internal/"))
	}
	deps := moduleDeps(t, root, module, "store", true, nil)
	for _, p := range slices.Sorted(maps.Keys(deps)) {
		if via := deps[p]; !below(p) {
			t.Errorf("store's tests depend on %s (%s); want only store, search and internal packages", p, via)
		}
	}
}

// TestArrowsOfSkillsAPI: the Skills API's wire format (skillsapi)
// imports nothing above the store, directly or through another package:
// of this module, only store, search, skilldiff (a format package, below)
// and internal/... packages.
func TestArrowsOfSkillsAPI(t *testing.T) {
	root, module := moduleRoot(t)
	deps := moduleDeps(t, root, module, "skillsapi", true, nil)
	for _, p := range slices.Sorted(maps.Keys(deps)) {
		rel, _ := strings.CutPrefix(p, module+"/")
		if rel != "skillsapi" && rel != "store" && rel != "search" && rel != "skilldiff" && rel != "internal" && !strings.HasPrefix(rel, "internal/") {
			t.Errorf("skillsapi depends on %s (%s); want only store, search, skilldiff and internal packages", p, deps[p])
		}
	}
}

// TestArrowsOfSkilldiff: the diff format (skilldiff) imports, of this
// module, only internal/... packages: no store, registry or index.
func TestArrowsOfSkilldiff(t *testing.T) {
	root, module := moduleRoot(t)
	deps := moduleDeps(t, root, module, "skilldiff", true, nil)
	for _, p := range slices.Sorted(maps.Keys(deps)) {
		if rel, _ := strings.CutPrefix(p, module+"/"); rel != "skilldiff" && !strings.HasPrefix(rel, "internal/") {
			t.Errorf("skilldiff depends on %s (%s); want only internal packages", p, deps[p])
		}
	}
	if len(deps) == 0 {
		t.Fatal("no dependencies found: the package moved?")
	}
}

// TestArrowsOfSkillcheck: the upload check (internal/skillcheck), which
// publish and the registry share, imports nothing above the store,
// directly or through another package: of this module, only store, search
// and internal/... packages.
func TestArrowsOfSkillcheck(t *testing.T) {
	root, module := moduleRoot(t)
	deps := moduleDeps(t, root, module, "internal/skillcheck", true, nil)
	for _, p := range slices.Sorted(maps.Keys(deps)) {
		rel, _ := strings.CutPrefix(p, module+"/")
		if rel != "store" && rel != "search" && !strings.HasPrefix(rel, "internal/") {
			t.Errorf("internal/skillcheck depends on %s (%s); want only store, search and internal packages", p, deps[p])
		}
	}
	if len(deps) == 0 {
		t.Fatal("no dependencies found: the package moved?")
	}
}

// TestArrowsOfBackends: backends, the registry of drivers, imports no
// driver (backends/...), directly or through another package.
func TestArrowsOfBackends(t *testing.T) {
	root, module := moduleRoot(t)
	deps := moduleDeps(t, root, module, "backends", false, nil)
	for _, p := range slices.Sorted(maps.Keys(deps)) {
		if strings.HasPrefix(p, module+"/backends/") {
			t.Errorf("backends depends on its driver %s (%s)", p, deps[p])
		}
	}
}

// TestArrowsOfSnapshot: the published snapshot's format
// (backends/snapshot) imports no index: not search, directly or through
// another package but store, which gives it what it needs of the index
// (store.Headings).
func TestArrowsOfSnapshot(t *testing.T) {
	root, module := moduleRoot(t)
	deps := moduleDeps(t, root, module, "backends/snapshot", false, func(p string) bool { return p != module+"/store" })
	if via, ok := deps[module+"/search"]; ok {
		t.Errorf("backends/snapshot depends on search (%s)", via)
	}
}

// moduleRoot returns the folder holding go.mod, above the test's, and the
// module's path.
func moduleRoot(t *testing.T) (dir, module string) {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		f, err := os.Open(filepath.Join(dir, "go.mod"))
		if err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if m, ok := strings.CutPrefix(sc.Text(), "module "); ok {
					return dir, strings.TrimSpace(m)
				}
			}
			t.Fatal("go.mod names no module")
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}

// moduleDeps returns the packages of module that the package in folder
// rel (its test files too, if tests) imports, directly or through other
// packages of module (their non-test files) for which follow, if not
// nil, holds, each with the file that first imports it. It reads import
// clauses with go/parser, whatever the files' build constraints.
func moduleDeps(t *testing.T, root, module, rel string, tests bool, follow func(string) bool) map[string]string {
	t.Helper()
	deps := map[string]string{}
	var walk func(rel string, tests bool)
	walk = func(rel string, tests bool) {
		ents, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") && !tests {
				continue
			}
			file := filepath.Join(root, filepath.FromSlash(rel), name)
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				p, err := strconv.Unquote(imp.Path.Value)
				if err != nil {
					t.Fatal(err)
				}
				sub, ok := strings.CutPrefix(p, module+"/")
				if !ok {
					continue
				}
				if _, seen := deps[p]; seen {
					continue
				}
				deps[p] = rel + "/" + name
				if follow == nil || follow(p) {
					walk(sub, false)
				}
			}
		}
	}
	walk(rel, tests)
	return deps
}
