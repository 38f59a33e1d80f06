package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/lockfile"
)

// installSource is a folder source whose files test byte-exact copies: a
// BOM and CRLF in SKILL.md, a binary file, an executable script.
func installSource(t *testing.T) string {
	t.Helper()
	dir := testutil.TempTree(t, map[string][]byte{
		"pdf-tools/SKILL.md":        []byte("\xef\xbb\xbf---\r\nname: pdf-tools\r\ndescription: Fill PDF forms.\r\n---\r\nUse scripts/fill.sh.\r\n"),
		"pdf-tools/scripts/fill.sh": []byte("#!/bin/sh\necho filled\n"),
		"pdf-tools/assets/logo.bin": {0, 1, 2, 0xff, 0xfe, '\r', '\n', 0},
		"pdf-tools/Notes_a-b.md":    []byte("notes\n"),
		"weather/SKILL.md":          []byte("---\nname: weather\ndescription: Forecasts.\n---\nAsk.\n"),
	})
	if err := os.Chmod(filepath.Join(dir, "pdf-tools/scripts/fill.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// sameTree fails unless the folders hold the same files, bytes and
// executable bits.
func sameTree(t *testing.T, want, got string) {
	t.Helper()
	read := func(dir string) map[string]string {
		m := map[string]string{}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			if d.IsDir() {
				return nil
			}
			info, _ := d.Info()
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			m[filepath.ToSlash(rel)] = info.Mode().String() + " " + string(b)
			return nil
		})
		return m
	}
	if diff := cmp.Diff(read(want), read(got)); diff != "" {
		t.Errorf("%s differs from %s (-want +got):\n%s", got, want, diff)
	}
}

func TestInstall(t *testing.T) {
	src := installSource(t)
	proj := t.TempDir()
	res := runInProcess("install", src, "pdf-tools", "--agent", "claude-code", "--agent", "codex", "--agent", "cursor", "--project", proj)
	if res.Code != 0 {
		t.Fatalf("install: exit %d: %s", res.Code, res.Stderr)
	}
	for _, d := range []string{".claude/skills/pdf-tools", ".agents/skills/pdf-tools"} {
		sameTree(t, filepath.Join(src, "pdf-tools"), filepath.Join(proj, d))
	}
	if _, err := os.Stat(filepath.Join(proj, ".claude/skills/weather")); !os.IsNotExist(err) {
		t.Errorf("weather installed though not named: %v", err)
	}
	ents, _ := os.ReadDir(filepath.Join(proj, ".claude/skills"))
	if len(ents) != 1 {
		t.Errorf(".claude/skills holds %d entries, want 1 (no temporary folder left)", len(ents))
	}

	lockPath := filepath.Join(proj, lockfile.FileName)
	lock, err := lockfile.Read(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	want, err := lockfile.ComputedHash(os.DirFS(filepath.Join(src, "pdf-tools")))
	if err != nil {
		t.Fatal(err)
	}
	e := lock.Skills["pdf-tools"]
	if e == nil || e.ComputedHash != want || e.SourceType != "local" || e.Skillstore == nil || !strings.HasPrefix(e.Skillstore.Digest, "sha256:") {
		t.Fatalf("lock entry %+v, want computedHash %s and a pin", e, want)
	}
	if rel := lockfile.LocalSource(src, proj); e.Source != rel {
		t.Errorf("source %q, want %q", e.Source, rel)
	}

	// Again: nothing is rewritten.
	before, _ := os.ReadFile(lockPath)
	stat := func() time.Time {
		fi, err := os.Stat(filepath.Join(proj, ".claude/skills/pdf-tools/SKILL.md"))
		if err != nil {
			t.Fatal(err)
		}
		return fi.ModTime()
	}
	mod := stat()
	time.Sleep(10 * time.Millisecond)
	res = runInProcess("install", src, "pdf-tools", "--agent", "claude-code", "--agent", "codex", "--project", proj)
	if res.Code != 0 || !strings.Contains(res.Stdout, "pdf-tools: up to date") {
		t.Fatalf("second install: exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	after, _ := os.ReadFile(lockPath)
	if diff := cmp.Diff(string(before), string(after)); diff != "" {
		t.Errorf("lock rewritten:\n%s", diff)
	}
	if !stat().Equal(mod) {
		t.Error("the installed folder was written again")
	}

	// A new version of the source replaces the copy, whole.
	writeOne(t, filepath.Join(src, "pdf-tools/assets/logo.bin"), "new")
	res = runInProcess("install", src, "pdf-tools", "--agent", "claude-code", "--project", proj)
	if res.Code != 0 {
		t.Fatalf("update: exit %d: %s", res.Code, res.Stderr)
	}
	sameTree(t, filepath.Join(src, "pdf-tools"), filepath.Join(proj, ".claude/skills/pdf-tools"))
}

// TestInstallRefuses: a folder install did not write, one changed since,
// and a skills folder that links out of the project are left alone.
func TestInstallRefuses(t *testing.T) {
	src := installSource(t)

	t.Run("foreign folder", func(t *testing.T) {
		proj := t.TempDir()
		mine := filepath.Join(proj, ".claude/skills/pdf-tools/SKILL.md")
		writeOne(t, mine, "mine")
		res := runInProcess("install", src, "pdf-tools", "-a", "claude-code", "--project", proj)
		if res.Code != 1 || !strings.Contains(res.Stderr, "skillstore did not install it") {
			t.Fatalf("exit %d, stderr %q", res.Code, res.Stderr)
		}
		if b, _ := os.ReadFile(mine); string(b) != "mine" {
			t.Errorf("the folder was changed: %q", b)
		}
		res = runInProcess("install", src, "pdf-tools", "-a", "claude-code", "--project", proj, "--force")
		if res.Code != 0 {
			t.Fatalf("--force: exit %d, stderr %q", res.Code, res.Stderr)
		}
		sameTree(t, filepath.Join(src, "pdf-tools"), filepath.Join(proj, ".claude/skills/pdf-tools"))
	})

	t.Run("changed since", func(t *testing.T) {
		proj := t.TempDir()
		if res := runInProcess("install", src, "weather", "--project", proj); res.Code != 0 {
			t.Fatalf("exit %d: %s", res.Code, res.Stderr)
		}
		edited := filepath.Join(proj, ".agents/skills/weather/SKILL.md")
		writeOne(t, edited, "edited")
		res := runInProcess("install", src, "weather", "--project", proj)
		if res.Code != 1 || !strings.Contains(res.Stderr, "changed since skillstore installed it") {
			t.Fatalf("exit %d, stderr %q", res.Code, res.Stderr)
		}
		if b, _ := os.ReadFile(edited); string(b) != "edited" {
			t.Errorf("the edit was lost: %q", b)
		}
	})

	t.Run("skills folder links out", func(t *testing.T) {
		proj, outside := t.TempDir(), t.TempDir()
		os.MkdirAll(filepath.Join(proj, ".claude"), 0o755)
		if err := os.Symlink(outside, filepath.Join(proj, ".claude/skills")); err != nil {
			t.Fatal(err)
		}
		res := runInProcess("install", src, "pdf-tools", "-a", "claude-code", "--project", proj, "--force")
		if res.Code != 1 || !strings.Contains(res.Stderr, "pdf-tools: not installed") {
			t.Fatalf("exit %d, stderr %q", res.Code, res.Stderr)
		}
		if ents, _ := os.ReadDir(outside); len(ents) != 0 {
			t.Errorf("wrote %d entries outside the project", len(ents))
		}
	})

	t.Run("unknown agent", func(t *testing.T) {
		res := runInProcess("install", src, "-a", "vim", "--project", t.TempDir())
		if res.Code != 1 || !strings.Contains(res.Stderr, `unknown --agent "vim"`) {
			t.Fatalf("exit %d, stderr %q", res.Code, res.Stderr)
		}
	})
}

// TestInstallKeepsLock: the entries and fields of a lock the vercel CLI
// wrote are kept when install adds its own.
func TestInstallKeepsLock(t *testing.T) {
	src := installSource(t)
	proj := t.TempDir()
	theirs := `{
  "version": 1,
  "skills": {
    "other": {
      "source": "owner/repo",
      "ref": "main",
      "sourceType": "github",
      "computedHash": "abc",
      "via": "x"
    }
  }
}
`
	writeOne(t, filepath.Join(proj, lockfile.FileName), theirs)
	if res := runInProcess("install", src, "--project", proj); res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	b, _ := os.ReadFile(filepath.Join(proj, lockfile.FileName))
	got := string(b)
	if i := strings.Index(got, `    "other": {`); i < 0 || !strings.Contains(got, theirs[strings.Index(theirs, `    "other"`):strings.Index(theirs, `      "via": "x"`)+len(`      "via": "x"`)]) {
		t.Errorf("the CLI's entry was not kept:\n%s", got)
	}
	lock, err := lockfile.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"other", "pdf-tools", "weather"}, lock.Names()); diff != "" {
		t.Error(diff)
	}
}

func TestInstallFolderName(t *testing.T) {
	for in, want := range map[string]string{"pdf-tools": "pdf-tools", "My Skill!": "my-skill", "..x..": "x", "plugin:skill": "plugin-skill", "!!!": "unnamed-skill"} {
		if got := installFolderName(in); got != want {
			t.Errorf("installFolderName(%q) = %q, want %q", in, got, want)
		}
	}
}

// writeOne writes a file, making its folder.
func writeOne(t *testing.T, p, content string) {
	t.Helper()
	testutil.WriteTree(t, filepath.Dir(p), map[string][]byte{filepath.Base(p): []byte(content)})
}
