package main

import (
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillstore/skillstore/internal/fixture"
)

// TestExactBytes: read writes a file's bytes exactly as stored (a BOM,
// UTF-16, CRLF, Latin-1, malformed UTF-8, binary), from a folder and
// from a bundle of it, which carries them as they are.
func TestExactBytes(t *testing.T) {
	files := map[string][]byte{}
	for p, data := range fixture.ExactFiles() {
		files["exact/"+p] = []byte(data)
	}
	dir := writeFixture(t, files)
	bundle := filepath.Join(t.TempDir(), "bundled")
	if out, errOut, code := run(t, nil, "bundle", dir, "-o", bundle); code != 0 {
		t.Fatalf("bundle: exit %d\n%s%s", code, out, errOut)
	}
	want := fixture.ExactFiles()
	for _, p := range slices.Sorted(maps.Keys(want)) {
		if out, errOut, code := run(t, nil, "read", "exact", p, "-s", dir); code != 0 || out != want[p] {
			t.Errorf("read %s: exit %d, %q; want the bytes stored, %q\n%s", p, code, out, want[p], errOut)
		}
		cmd := exec.Command(bundle, "read", "exact", p) // the bundle serves what it carries
		cmd.Env = []string{"HOME=" + t.TempDir()}
		cmd.Dir = t.TempDir()
		if out, err := cmd.Output(); err != nil || string(out) != want[p] {
			t.Errorf("read %s from the bundle: %v, %q; want the bytes stored, %q", p, err, out, want[p])
		}
	}
}
