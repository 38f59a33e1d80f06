package main

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// TestDocFiles: an archive carries README.md, BENCHMARKS.md and every
// file under docs/ in path order, and no hidden file; a folder that is not
// the repository's root is refused.
func TestDocFiles(t *testing.T) {
	repo := fstest.MapFS{
		"README.md":               {Data: []byte("# skillstore\n")},
		"BENCHMARKS.md":           {Data: []byte("# Benchmarks\n")},
		"docs/trust.md":           {Data: []byte("# Trust\n")},
		"docs/access.md":          {Data: []byte("# Access\n")},
		"docs/img/flow.svg":       {Data: []byte("<svg/>")},
		"docs/.draft.md":          {Data: []byte("not ready")},
		"docs/.notes/a.md":        {Data: []byte("not ready")},
		"go.mod":                  {Data: []byte("module x\n")},
		"internal/release/doc.md": {Data: []byte("not a page")},
	}
	got, err := docFiles(repo)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got {
		if e.mode != 0o644 || string(e.data) != string(repo[e.name].Data) {
			t.Errorf("%s: mode %o, data %q; want 644 and the file's bytes", e.name, e.mode, e.data)
		}
		names = append(names, e.name)
	}
	want := []string{"README.md", "BENCHMARKS.md", "docs/access.md", "docs/img/flow.svg", "docs/trust.md"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}

	for _, drop := range []string{"README.md", "BENCHMARKS.md"} {
		less := fstest.MapFS{}
		for k, v := range repo {
			if k != drop {
				less[k] = v
			}
		}
		if _, err := docFiles(less); err == nil {
			t.Errorf("without %s: no error", drop)
		}
	}
	if _, err := docFiles(fstest.MapFS{"README.md": {}, "BENCHMARKS.md": {}, "docs/.draft.md": {}}); err == nil || !strings.Contains(err.Error(), "docs/ holds no file") {
		t.Errorf("docs/ with only a hidden file: %v, want an error saying it holds no file", err)
	}
}
