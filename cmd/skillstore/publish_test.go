package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob/memblob"

	"github.com/skillstore/skillstore/backends/snapshot"
)

// The publish command's surface: its flags, what it prints and its exit
// codes. What it writes is backends/snapshot's (writer_test.go).

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// snapshotID matches a snapshot's ID in the command's output.
var snapshotID = regexp.MustCompile(`\d{8}T\d{6}\.\d{9}Z-[0-9a-f]{12}`)

// publishFolders writes the folders TestPublishCommand publishes: dir,
// two skills with hidden files and a folder that is not a skill; bad, a
// skill that breaks the specification and one that does not; empty, no
// skill.
func publishFolders(t *testing.T) (dir, bad, empty string) {
	dir = writeFixture(t, map[string][]byte{
		"a/SKILL.md":         []byte("---\nname: a\ndescription: A.\n---\n"),
		"a/refs/x.md":        []byte("x"),
		"a/.DS_Store":        []byte("junk"),
		"b/SKILL.md":         []byte("---\nname: b\ndescription: B.\n---\n"),
		"b/notes.txt":        []byte("\xff\xfeh\x00i\x00"),
		"b/.git/config":      []byte("junk"),
		"not-a-skill/readme": []byte("ignored"),
	})
	bad = writeFixture(t, map[string][]byte{
		"Bad_Name/SKILL.md": []byte("---\nname: Bad_Name\ndescription: d\n---\n"),
		"ok/SKILL.md":       []byte("---\nname: ok\ndescription: d\n---\n"),
	})
	return dir, bad, writeFixture(t, map[string][]byte{"nothing/readme": []byte("x")})
}

// TestPublishCommand runs publish over one folder and bucket, step by
// step, checking each step's output and exit code exactly (snapshot IDs
// and the temporary folders named).
func TestPublishCommand(t *testing.T) {
	dir, bad, empty := publishFolders(t)
	out := t.TempDir()
	url := "file://" + out
	put := func(name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const skipping = "skillstore: skipping not-a-skill: no SKILL.md\n"
	for _, tc := range []struct {
		name           string
		before         func()
		args           []string
		stdout, stderr string
		code           int
	}{
		{name: "first", args: []string{"publish", dir, url}, stderr: skipping, stdout: "upload  a/SKILL.md (32 bytes)\nupload  a/refs/x.md (1 bytes)\nupload  b/SKILL.md (32 bytes)\nupload  b/notes.txt (6 bytes)\n" +
			"URL: snapshot ID, 2 skills, 4 files: 4 uploaded (71B), 0 already stored; 1 snapshots kept, 0 removed\n"},
		{name: "quiet", args: []string{"publish", "--quiet", dir, url}, stderr: skipping},
		{name: "unchanged", args: []string{"publish", dir, url}, stderr: skipping,
			stdout: "URL: snapshot ID, 2 skills, 4 files: 0 uploaded (0B), 4 already stored; 3 snapshots kept, 0 removed\n"},
		{name: "dry run", before: func() { put(filepath.Join(dir, "a", "refs", "x.md"), "y") }, args: []string{"publish", "--dry-run", dir, url}, stderr: skipping,
			stdout: "upload  a/refs/x.md (1 bytes)\nURL: snapshot ID, 2 skills, 4 files: 1 uploaded (1B), 3 already stored; 0 snapshots kept, 0 removed (dry run: nothing was changed)\n"},
		{name: "delete", before: func() { put(filepath.Join(out, "old", "SKILL.md"), "stale") }, args: []string{"publish", "--delete", dir, url}, stderr: skipping,
			stdout: "upload  a/refs/x.md (1 bytes)\ndelete  old/SKILL.md\nURL: snapshot ID, 2 skills, 4 files: 1 uploaded (1B), 3 already stored; 4 snapshots kept, 0 removed\n"},
		{name: "keep 2, no grace", args: []string{"publish", "--keep", "2", "--grace", "0", dir, url}, stderr: skipping,
			stdout: "remove  snapshot ID\nremove  snapshot ID\nremove  snapshot ID\nURL: snapshot ID, 2 skills, 4 files: 0 uploaded (0B), 4 already stored; 2 snapshots kept, 3 removed\n"},
		{name: "keep 0", args: []string{"publish", "--keep", "0", dir, url}, code: 1,
			stderr: skipping + "skillstore: publishing to URL: --keep must be at least 1: the new snapshot is kept\n"},
		{name: "over --max-file-size", args: []string{"--max-file-size", "4", "publish", "--quiet", dir, url},
			stderr: skipping + "skillstore: warning: a/SKILL.md is 32B, over the serving limit of 4B (--max-file-size): servers will refuse to read it\n" +
				"skillstore: warning: b/SKILL.md is 32B, over the serving limit of 4B (--max-file-size): servers will refuse to read it\n" +
				"skillstore: warning: b/notes.txt is 6B, over the serving limit of 4B (--max-file-size): servers will refuse to read it\n"},
		{name: "invalid skills", args: []string{"publish", bad, url}, code: 1,
			stderr: "FAIL  Bad_Name\n      name: \"Bad_Name\" must use only lowercase letters, digits and single hyphens, and must not start or end with a hyphen\n      fix: rename it to bad-name\nok    ok\n\n1 valid, 1 invalid\n" +
				"skillstore: some skills break the Agent Skills specification; fix them (see above) or pass --force\n"},
		{name: "invalid skills, forced", args: []string{"publish", "--force", bad, url},
			stdout: "upload  Bad_Name/SKILL.md (38 bytes)\nupload  ok/SKILL.md (32 bytes)\nURL: snapshot ID, 2 skills, 2 files: 2 uploaded (70B), 0 already stored; 4 snapshots kept, 0 removed\n"},
		{name: "no skills", args: []string{"publish", empty, url}, code: 1,
			stderr: "skillstore: skipping nothing: no SKILL.md\nskillstore: no skills to publish: the folder holds no skill folder with a SKILL.md\n"},
		{name: "no folder", args: []string{"publish", filepath.Join(dir, "missing"), url}, code: 1,
			stderr: "skillstore: skills folder DIR/missing: no such file or directory\n"},
		{name: "not a bucket", args: []string{"publish", dir, "ftp://host/x"}, code: 1,
			stderr: skipping + "skillstore: destination ftp://host/x: scheme \"ftp\" is not object storage; use s3://, gs:// or azblob://\n"},
		{name: "one argument", args: []string{"publish", dir}, code: 1, stderr: "skillstore: accepts 2 arg(s), received 1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.before != nil {
				tc.before()
			}
			stdout, stderr, code := run(t, nil, tc.args...)
			shown := func(s string) string {
				return strings.NewReplacer(url, "URL", dir, "DIR").Replace(snapshotID.ReplaceAllString(s, "ID"))
			}
			if diff := cmp.Diff(tc.stdout, shown(stdout)); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.stderr, shown(stderr)); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if code != tc.code {
				t.Errorf("exit code %d; want %d", code, tc.code)
			}
		})
	}
}

// TestPublishUnreachable: a bucket that cannot be reached is described
// in the command's words, not its driver's, which may name hosts.
func TestPublishUnreachable(t *testing.T) {
	b := memblob.OpenBucket(nil)
	b.Close()
	skills := []snapshot.SkillFiles{{Dir: "a", DocPath: "SKILL.md", Files: []string{"SKILL.md"}}}
	_, err := publish(context.Background(), os.DirFS(t.TempDir()), skills, b, snapshot.PublishOptions{Keep: 1})
	const want = "the bucket or container cannot be written: it cannot be reached: the store answered FailedPrecondition"
	if err == nil || err.Error() != want {
		t.Errorf("%v; want %q", err, want)
	}
}
