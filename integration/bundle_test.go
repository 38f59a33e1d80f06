package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
)

var unzipBin = binPath("SKILLSTORE_IT_UNZIP", "/usr/bin/unzip")

// bundleCorpus writes the corpus a bundle is made of: the fixture's
// served skills and the built-in examples, and returns its folder and
// every file a bundle must carry (hidden files left out), path → bytes.
func bundleCorpus(t *testing.T) (string, map[string][]byte) {
	t.Helper()
	tree := map[string][]byte{}
	for p, b := range fixture.Skills() {
		if strings.HasPrefix(p, "calculator/") || strings.HasPrefix(p, "weather/") {
			tree[p] = b
		}
	}
	examples := filepath.Join("..", "backends", "examples")
	err := filepath.WalkDir(examples, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(examples, p)
		tree[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	for p, b := range tree {
		if !strings.HasPrefix(p, ".") && !strings.Contains(p, "/.") {
			want[p] = b
		}
	}
	if len(want) < 15 {
		t.Fatalf("the corpus holds %d files", len(want))
	}
	return testutil.TempTree(t, tree), want
}

// run runs the binary at bin in dir, with HOME there too (so no
// conventional folder exists), and returns its output and error.
func run(t *testing.T, dir, bin string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "SKILLSTORE_SOURCES=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// TestBundle makes a bundle of a real corpus with the built binary, moves
// it to an empty folder and serves it with no flags: every file comes back
// byte for byte over HTTP; unzip lists exactly those files; --source adds
// a source whose skill wins a name clash; a bundle altered after it was
// made refuses to start, saying so.
func TestBundle(t *testing.T) {
	requireBinary(t, unzipBin, "unzip (Debian package unzip)")
	ran(t, "unzip (Info-ZIP)")
	corpus, want := bundleCorpus(t)
	made := filepath.Join(t.TempDir(), "corp-skills")
	out, errOut, err := run(t, t.TempDir(), binary, "bundle", corpus, "-o", made)
	if err != nil || !strings.Contains(out, "5 skills, "+strconv.Itoa(len(want))+" files") {
		t.Fatalf("bundle: %v\n%s%s", err, out, errOut)
	}

	// unzip reads the bundle as it is: the files, nothing else.
	listing, err := exec.Command(unzipBin, "-l", made).CombinedOutput()
	if err != nil {
		t.Fatalf("unzip -l: %v\n%s", err, listing)
	}
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^\s*\d+\s+\S+\s+\S+\s+(\S.*)$`).FindAllStringSubmatch(string(listing), -1) {
		listed = append(listed, m[1])
	}
	var names []string
	for p := range want {
		names = append(names, p)
	}
	slices.Sort(listed)
	slices.Sort(names)
	if !slices.Equal(listed, names) {
		t.Errorf("unzip -l lists\n%q\nwant\n%q", listed, names)
	}

	// Moved to an empty folder, it serves what it carries.
	empty := t.TempDir()
	moved := filepath.Join(empty, "corp-skills")
	if err := os.Rename(made, moved); err != nil {
		t.Fatal(err)
	}
	list, errOut, err := run(t, empty, moved, "list")
	if err != nil || strings.Count(list, "bundle@sha256:") != 5 {
		t.Errorf("list: %v\n%s%s", err, list, errOut)
	}
	checkServed(t, serveIn(t, moved, empty), want)

	// --source adds a source before it: its skill wins a name clash.
	extra := testutil.TempTree(t, map[string][]byte{"calculator/SKILL.md": []byte("---\nname: calculator\ndescription: The team's own calculator.\n---\nOurs.\n")})
	list, errOut, err = run(t, empty, moved, "list", "--source", "team="+extra)
	if err != nil || !regexp.MustCompile(`calculator\s+team\s+The team's own calculator`).MatchString(list) || !strings.Contains(list, "bundle@sha256:") {
		t.Errorf("list with --source: %v\n%s%s", err, list, errOut)
	}

	// A signer policy cannot verify what a bundle carries: refused, not
	// served unverified.
	out, errOut, err = run(t, empty, moved, "list", "--trusted-signers", filepath.Join(empty, "allowed_signers"))
	if err == nil || !strings.Contains(errOut, "--trusted-signers cannot verify the skills this executable carries") {
		t.Errorf("a bundle under --trusted-signers: %v\n%s%s", err, out, errOut)
	}

	// Altered after it was made: it says so, and serves nothing.
	data, err := os.ReadFile(moved)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(data, []byte("PK\x01\x02")) // the last entry of the central directory
	data[i+16] ^= 0xff                               // its CRC-32
	damaged := filepath.Join(empty, "damaged")
	if err := os.WriteFile(damaged, data, 0o755); err != nil {
		t.Fatal(err)
	}
	out, errOut, err = run(t, empty, damaged, "list")
	if err == nil || !strings.Contains(errOut, "the skills appended to this executable are damaged") || !strings.Contains(errOut, "make it again with skillstore bundle") {
		t.Errorf("a damaged bundle: %v\n%s%s", err, out, errOut)
	}
}
