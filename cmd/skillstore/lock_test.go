package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/skillstore/skillstore/lockfile"
	"github.com/skillstore/skillstore/store"
)

// installed installs installSource's skills into a new project's
// .agents/skills and returns the source, the project, and a copy of
// what was installed.
func installed(t *testing.T) (src, proj, before string) {
	t.Helper()
	src, proj = installSource(t), t.TempDir()
	if res := runInProcess("install", src, "--project", proj); res.Code != 0 {
		t.Fatalf("install: exit %d: %s", res.Code, res.Stderr)
	}
	before = filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(before, os.DirFS(filepath.Join(proj, ".agents/skills"))); err != nil {
		t.Fatal(err)
	}
	return src, proj, before
}

// readOnly makes dir unwritable, for root too (chattr +i) when the
// tests run as root.
func readOnly(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("running as root and chattr +i failed: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
}

func TestInstallFrozen(t *testing.T) {
	tests := []struct {
		name    string
		change  func(t *testing.T, src, proj string)
		code    int
		stderr  []string // each in stderr
		fresh   []string // skills --frozen writes anew (their folders were removed)
		removed []string // skills folders left missing
	}{
		{name: "as pinned", change: func(t *testing.T, src, proj string) {
			os.RemoveAll(filepath.Join(proj, ".agents/skills/weather"))
		}, fresh: []string{"weather"}},
		{name: "source changed", code: 1, change: func(t *testing.T, src, proj string) {
			writeOne(t, filepath.Join(src, "pdf-tools/SKILL.md"), "---\nname: pdf-tools\ndescription: Moved on.\n---\n")
		}, stderr: []string{"skillstore: pdf-tools: not installed: its source's copy is not the one skills-lock.json pins", "skillstore update pdf-tools", "1 of 2 skills not installed: pdf-tools"}},
		{name: "source changed, folder gone", code: 1, change: func(t *testing.T, src, proj string) {
			writeOne(t, filepath.Join(src, "weather/extra.md"), "new")
			os.RemoveAll(filepath.Join(proj, ".agents/skills/weather"))
		}, stderr: []string{"skillstore: weather: not installed: its source's copy is not the one"}, removed: []string{"weather"}},
		{name: "skill gone from the source", code: 1, change: func(t *testing.T, src, proj string) {
			os.RemoveAll(filepath.Join(src, "weather"))
		}, stderr: []string{"skillstore: weather: not installed: Skill 'weather' not found"}},
		{name: "source gone", code: 1, change: func(t *testing.T, src, proj string) {
			os.RemoveAll(src)
		}, stderr: []string{"skillstore: pdf-tools: not installed: its source", "cannot be read", "2 of 2 skills not installed"}},
		{name: "read-only skills folder", code: 1, change: func(t *testing.T, src, proj string) {
			os.RemoveAll(filepath.Join(proj, ".agents/skills/weather"))
			readOnly(t, filepath.Join(proj, ".agents/skills"))
		}, stderr: []string{"skillstore: weather: not installed: .agents/skills is read-only or not writable by this user"}, removed: []string{"weather"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, proj, before := installed(t)
			lockPath := filepath.Join(proj, lockfile.FileName)
			lockBefore, _ := os.ReadFile(lockPath)
			tt.change(t, src, proj)
			res := runInProcess("install", "--frozen", "--project", proj)
			if res.Code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", res.Code, tt.code, res.Stderr)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(res.Stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, res.Stderr)
				}
			}
			for _, name := range []string{"pdf-tools", "weather"} {
				got := filepath.Join(proj, ".agents/skills", name)
				if slices.Contains(tt.removed, name) {
					if _, err := os.Lstat(got); !os.IsNotExist(err) {
						t.Errorf("%s was written: %v", name, err)
					}
					continue
				}
				sameTree(t, filepath.Join(before, name), got) // as pinned, or as it was
			}
			ents, _ := os.ReadDir(filepath.Join(proj, ".agents/skills"))
			if want := 2 - len(tt.removed); len(ents) != want {
				t.Errorf(".agents/skills holds %d entries, want %d (no temporary folder left)", len(ents), want)
			}
			lockAfter, _ := os.ReadFile(lockPath)
			if diff := cmp.Diff(string(lockBefore), string(lockAfter)); diff != "" {
				t.Errorf("--frozen rewrote the lock:\n%s", diff)
			}
			for _, name := range tt.fresh {
				if !strings.Contains(res.Stdout, name+": installed into .agents/skills") {
					t.Errorf("stdout does not say %s was installed: %q", name, res.Stdout)
				}
			}
		})
	}
}

// TestUpdate: update moves the pins to the source's new copy, after
// which --frozen installs it.
func TestUpdate(t *testing.T) {
	src, proj, _ := installed(t)
	lockPath := filepath.Join(proj, lockfile.FileName)
	old, err := lockfile.Read(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	writeOne(t, filepath.Join(src, "pdf-tools/assets/logo.bin"), "v2")
	writeOne(t, filepath.Join(src, "weather/new.md"), "v2")
	if res := runInProcess("install", "--frozen", "--project", proj); res.Code != 1 {
		t.Fatalf("--frozen after the source moved: exit %d", res.Code)
	}
	res := runInProcess("update", "pdf-tools", "--project", proj)
	if res.Code != 0 || !strings.Contains(res.Stdout, "pdf-tools: installed into .agents/skills") {
		t.Fatalf("update: exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	sameTree(t, filepath.Join(src, "pdf-tools"), filepath.Join(proj, ".agents/skills/pdf-tools"))
	lock, err := lockfile.Read(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := lockfile.ComputedHash(os.DirFS(filepath.Join(src, "pdf-tools")))
	p, op := lock.Skills["pdf-tools"], old.Skills["pdf-tools"]
	if p.ComputedHash != want || p.Skillstore.Digest == op.Skillstore.Digest || p.Source != op.Source || p.SourceType != "local" {
		t.Errorf("pdf-tools after update: %+v %+v, was %+v %+v", p, p.Skillstore, op, op.Skillstore)
	}
	if diff := cmp.Diff(old.Skills["weather"], lock.Skills["weather"], cmpopts.IgnoreUnexported(lockfile.Entry{})); diff != "" {
		t.Errorf("weather's pin moved though not named:\n%s", diff)
	}
	// Every skill: weather moves too, and --frozen then installs both.
	if res := runInProcess("update", "--project", proj); res.Code != 0 {
		t.Fatalf("update: exit %d, stderr %q", res.Code, res.Stderr)
	}
	os.RemoveAll(filepath.Join(proj, ".agents/skills"))
	if res := runInProcess("install", "--frozen", "--project", proj); res.Code != 0 {
		t.Fatalf("--frozen after update: exit %d, stderr %q", res.Code, res.Stderr)
	}
	sameTree(t, src, filepath.Join(proj, ".agents/skills"))
	if res := runInProcess("update", "nope", "--project", proj); res.Code != 1 || !strings.Contains(res.Stderr, "nope is not in") {
		t.Errorf("update of a skill not in the lock: exit %d, stderr %q", res.Code, res.Stderr)
	}
}

func TestLockCheck(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, src, proj string)
		source bool // pass --source
		code   int
		stdout []string // each in stdout
	}{
		{name: "clean", stdout: []string{"all 2 skills match (.agents/skills)"}},
		{name: "clean with the source", source: true, stdout: []string{"all 2 skills match"}},
		{name: "edited file", code: 1, change: func(t *testing.T, src, proj string) {
			writeOne(t, filepath.Join(proj, ".agents/skills/pdf-tools/SKILL.md"), "edited")
		}, stdout: []string{"drift: pdf-tools: .agents/skills/pdf-tools: changed: its computedHash is ", "1 skills drifted: pdf-tools"}},
		{name: "edited file named", source: true, code: 1, change: func(t *testing.T, src, proj string) {
			writeOne(t, filepath.Join(proj, ".agents/skills/pdf-tools/SKILL.md"), "edited")
			writeOne(t, filepath.Join(proj, ".agents/skills/pdf-tools/extra.md"), "mine")
			os.Remove(filepath.Join(proj, ".agents/skills/pdf-tools/Notes_a-b.md"))
		}, stdout: []string{
			"drift: pdf-tools: .agents/skills/pdf-tools: removed file Notes_a-b.md\n" +
				"drift: pdf-tools: .agents/skills/pdf-tools: changed file SKILL.md\n" +
				"drift: pdf-tools: .agents/skills/pdf-tools: added file extra.md\n"}},
		{name: "folder removed", code: 1, change: func(t *testing.T, src, proj string) {
			os.RemoveAll(filepath.Join(proj, ".agents/skills/weather"))
		}, stdout: []string{"drift: weather: .agents/skills/weather: removed: the lock names it, the folder is gone"}},
		{name: "folder added", code: 1, change: func(t *testing.T, src, proj string) {
			writeOne(t, filepath.Join(proj, ".agents/skills/stray/SKILL.md"), "x")
		}, stdout: []string{"drift: stray: .agents/skills/stray: added: a skill folder skills-lock.json does not name"}},
		{name: "source moved on", source: true, code: 1, change: func(t *testing.T, src, proj string) {
			writeOne(t, filepath.Join(src, "weather/new.md"), "x")
		}, stdout: []string{"drift: weather: source: changed: its copy has digest sha256:"}},
		{name: "source lacks a skill", source: true, code: 1, change: func(t *testing.T, src, proj string) {
			os.RemoveAll(filepath.Join(src, "weather"))
		}, stdout: []string{"drift: weather: source: removed: the lock names it, the source does not have it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, proj, _ := installed(t)
			if tt.change != nil {
				tt.change(t, src, proj)
			}
			args := []string{"lock", "--check", "--project", proj}
			if tt.source {
				args = append(args, "--source", src)
			}
			res := runInProcess(args...)
			if res.Code != tt.code {
				t.Fatalf("exit %d, want %d; stdout %q, stderr %q", res.Code, tt.code, res.Stdout, res.Stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(res.Stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, res.Stdout)
				}
			}
		})
	}
	if res := runInProcess("lock", "--check", "--project", t.TempDir()); res.Code != 1 || !strings.Contains(res.Stderr, "no lock to read") {
		t.Errorf("no lock: exit %d, stderr %q", res.Code, res.Stderr)
	}
}

// TestLockCheckCLILock: a lock the vercel CLI wrote (no skillstore pins)
// is checked by computedHash, in the folder it installed into.
func TestLockCheckCLILock(t *testing.T) {
	golden := "../../lockfile/testdata/cli-1.7.4"
	proj := t.TempDir()
	if err := os.CopyFS(filepath.Join(proj, ".claude/skills"), os.DirFS(filepath.Join(golden, "src/skills"))); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(golden, lockfile.FileName))
	if err != nil {
		t.Fatal(err)
	}
	writeOne(t, filepath.Join(proj, lockfile.FileName), string(b))
	res := runInProcess("lock", "--check", "--agent", "claude-code", "--project", proj)
	want := "drift: zz-other: .claude/skills/zz-other: removed: the lock names it, the folder is gone\n" +
		filepath.Join(proj, lockfile.FileName) + ": 1 skills drifted: zz-other\n"
	if res.Code != 1 || res.Stdout != want {
		t.Errorf("exit %d, stdout (-want +got):\n%s", res.Code, cmp.Diff(want, res.Stdout))
	}
	lock, err := lockfile.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	delete(lock.Skills, "zz-other")
	if err := lock.WriteFile(filepath.Join(proj, lockfile.FileName)); err != nil {
		t.Fatal(err)
	}
	if res := runInProcess("lock", "--check", "--agent", "claude-code", "--project", proj); res.Code != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	// --frozen keeps the CLI's folders (their computedHash is the lock's)
	// and installs from the source the CLI recorded.
	os.RemoveAll(filepath.Join(proj, ".claude/skills/tricky"))
	src := filepath.Join(proj, "../src")
	if err := os.CopyFS(src, os.DirFS(filepath.Join(golden, "src"))); err != nil {
		t.Fatal(err)
	}
	// tricky holds .hidden, which skillstore serves only when allowed:
	// without it the source's copy is not the one the lock names.
	res = runInProcess("install", "--frozen", "--agent", "claude-code", "--project", proj)
	if res.Code != 1 || !strings.Contains(res.Stderr, "skillstore: tricky: not installed: its source's copy is not the one skills-lock.json pins") {
		t.Errorf("--frozen without .hidden: exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	res = runInProcess("install", "--frozen", "--agent", "claude-code", "--project", proj, "--allow-hidden", ".hidden")
	if res.Code != 0 || res.Stdout != "demo-skill: up to date\ntricky: installed into .claude/skills\n" {
		t.Errorf("--frozen: exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	sameTree(t, filepath.Join(golden, "src/skills/tricky"), filepath.Join(proj, ".claude/skills/tricky"))
}

// fullDisk is a writer that fails with ENOSPC after n bytes.
type fullDisk struct {
	w io.Writer
	n int
}

func (f *fullDisk) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n, _ := f.w.Write(p[:f.n])
		f.n = 0
		return n, &os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}
	}
	f.n -= len(p)
	return f.w.Write(p)
}

// TestInstallFullDisk: a disk that fills mid-install leaves the copy
// installed before whole, and no temporary folder.
func TestInstallFullDisk(t *testing.T) {
	src, proj, before := installed(t)
	writeOne(t, filepath.Join(src, "pdf-tools/assets/logo.bin"), strings.Repeat("v2", 100))
	o, err := openSources(context.Background(), []string{src}, "", nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	s, err := store.New(o.sources, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := newInstallerFor(proj, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var errOut strings.Builder
	in.out, in.errOut, in.source = io.Discard, &errOut, src
	in.writer = func(w io.Writer) io.Writer { return &fullDisk{w, 50} }
	if err := in.run(context.Background(), s, []string{"pdf-tools"}); err == nil {
		t.Fatal("install succeeded on a full disk")
	}
	if want := "skillstore: pdf-tools: not installed: the disk is full"; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr %q lacks %q", errOut.String(), want)
	}
	sameTree(t, before, filepath.Join(proj, ".agents/skills"))
	if res := runInProcess("lock", "--check", "--project", proj); res.Code != 0 {
		t.Errorf("lock --check after the failed install: exit %d, %s", res.Code, res.Stdout)
	}
}
