package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/gcerrors"

	"github.com/skillstore/skillstore/backends/blobfs"
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
			"URL: snapshot ID (sequence 1), 2 skills, 4 files: 4 uploaded (71B), 0 already stored, 0 unchanged and not read; 1 snapshots kept, 0 removed\n"},
		{name: "quiet", args: []string{"publish", "--quiet", dir, url}, stderr: skipping},
		{name: "unchanged", args: []string{"publish", dir, url}, stderr: skipping,
			stdout: "URL: snapshot ID (sequence 3), 2 skills, 4 files: 0 uploaded (0B), 0 already stored, 4 unchanged and not read; 3 snapshots kept, 0 removed\n"},
		{name: "checksum, one transfer", args: []string{"publish", "--checksum", "--transfers", "1", dir, url}, stderr: skipping,
			stdout: "URL: snapshot ID (sequence 4), 2 skills, 4 files: 0 uploaded (0B), 4 already stored, 0 unchanged and not read; 4 snapshots kept, 0 removed\n"},
		{name: "no transfers", args: []string{"publish", "--transfers", "0", dir, url}, code: 1, stderr: "skillstore: --transfers must be at least 1\n"},
		{name: "dry run", before: func() { put(filepath.Join(dir, "a", "refs", "x.md"), "y") }, args: []string{"publish", "--dry-run", dir, url}, stderr: skipping,
			stdout: "upload  a/refs/x.md (1 bytes)\nURL: snapshot ID (sequence 5), 2 skills, 4 files: 1 uploaded (1B), 0 already stored, 3 unchanged and not read; 0 snapshots kept, 0 removed (dry run: nothing was changed)\n"},
		{name: "delete", before: func() { put(filepath.Join(out, "old", "SKILL.md"), "stale") }, args: []string{"publish", "--delete", dir, url}, stderr: skipping,
			stdout: "upload  a/refs/x.md (1 bytes)\ndelete  old/SKILL.md\nURL: snapshot ID (sequence 5), 2 skills, 4 files: 1 uploaded (1B), 0 already stored, 3 unchanged and not read; 5 snapshots kept, 0 removed\n"},
		{name: "keep 2, no grace", args: []string{"publish", "--keep", "2", "--grace", "0", dir, url}, stderr: skipping,
			stdout: "remove  snapshot ID\nremove  snapshot ID\nremove  snapshot ID\nremove  snapshot ID\nURL: snapshot ID (sequence 6), 2 skills, 4 files: 0 uploaded (0B), 0 already stored, 4 unchanged and not read; 2 snapshots kept, 4 removed\n"},
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
			stdout: "upload  Bad_Name/SKILL.md (38 bytes)\nupload  ok/SKILL.md (32 bytes)\nURL: snapshot ID (sequence 8), 2 skills, 2 files: 2 uploaded (70B), 0 already stored, 0 unchanged and not read; 4 snapshots kept, 0 removed\n"},
		{name: "no skills", args: []string{"publish", empty, url}, code: 1,
			stderr: "skillstore: skipping nothing: no SKILL.md\nskillstore: no skills to publish: the folder holds no skill folder with a SKILL.md\n"},
		{name: "no folder", args: []string{"publish", filepath.Join(dir, "missing"), url}, code: 1,
			stderr: "skillstore: skills folder DIR/missing: no such file or directory\n"},
		{name: "not a bucket", args: []string{"publish", dir, "ftp://host/x"}, code: 1,
			stderr: skipping + "skillstore: destination ftp://host/x: scheme \"ftp\" is not object storage; use s3://, gs:// or azblob://\n"},
		{name: "one argument", args: []string{"publish", dir}, code: 1, stderr: "skillstore: accepts 2 arg(s), received 1\nusage: skillstore publish DIR URL [flags]\nsee 'skillstore publish --help' for examples\n"},
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

// TestPublishInaccessible: a bucket whose accessibility check fails is
// described in the command's words (blobfs.Reason), not its driver's,
// which may name hosts: what the store answered when it answered, that no
// connection was made when none was.
func TestPublishInaccessible(t *testing.T) {
	closed := memblob.OpenBucket(nil)
	closed.Close()
	dial := &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 7), Port: 443}, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, tc := range []struct {
		name string
		b    *blob.Bucket
		want string
	}{
		{"the bucket is closed", closed, "the bucket or container cannot be written: the store answered FailedPrecondition"},
		{"the store refuses the credentials", blob.NewBucket(listFails{err: errors.New("AccessDenied"), code: gcerrors.PermissionDenied}),
			"the bucket or container cannot be written: the store refused the credentials"},
		{"the store answers an error", blob.NewBucket(listFails{err: errors.New("InternalError"), code: gcerrors.Internal}),
			"the bucket or container cannot be written: the store answered Internal"},
		{"the store does not answer in time", blob.NewBucket(listFails{err: context.DeadlineExceeded, code: gcerrors.DeadlineExceeded}),
			"the bucket or container cannot be written: the store did not answer in time"},
		{"no connection is made", blob.NewBucket(listFails{err: dial, code: gcerrors.Unknown}),
			"the bucket or container cannot be written: no connection could be made (check the store's address and the network)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer tc.b.Close()
			skills := []snapshot.SkillFiles{{Dir: "a", DocPath: "SKILL.md", Files: []string{"SKILL.md"}}}
			_, err := publish(context.Background(), os.DirFS(t.TempDir()), skills, blobfs.NewPublishBucket(tc.b), snapshot.PublishOptions{Keep: 1})
			if err == nil {
				t.Fatal("published")
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// listFails is the driver of a bucket whose every listing fails with err,
// which it reports as code (any other call panics).
type listFails struct {
	driver.Bucket
	err  error
	code gcerrors.ErrorCode
}

func (d listFails) ListPaged(context.Context, *driver.ListOptions) (*driver.ListPage, error) {
	return nil, d.err
}
func (d listFails) ErrorCode(error) gcerrors.ErrorCode { return d.code }
func (d listFails) ErrorAs(error, any) bool            { return false }
func (d listFails) Close() error                       { return nil }

// TestPublishProgress: on a terminal, the bar is redrawn in place at most
// every 100 ms and at the last file, with the files and bytes done of
// the total (reused ones counted), the rate of those read and the time
// left at that rate, then replaced by the totals and the time taken; a
// warning clears it first. Elsewhere, a line per upload; with --quiet,
// nothing but warnings.
func TestPublishProgress(t *testing.T) {
	const mb = 1 << 20
	files := []struct {
		name string
		how  snapshot.FileOutcome
		at   time.Duration // after Start
	}{
		{"a/SKILL.md", snapshot.FileUploaded, 500 * time.Millisecond}, // too soon for an estimate
		{"a/y.md", snapshot.FileReused, 550 * time.Millisecond},       // within 100 ms of the last draw
		{"a/x.md", snapshot.FileReused, time.Second},
		{"b/SKILL.md", snapshot.FileStored, 2 * time.Second},
		{"b/y.md", snapshot.FileUploaded, 3 * time.Second},
	}
	run := func(bar, quiet bool) (string, string) {
		start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		clock := start
		var out, errb bytes.Buffer
		p := newProgress(&out, &errb, quiet, 4*mb, func() time.Time { return clock })
		p.bar = bar
		p.status("validating the skills in dir…")
		fmt.Fprint(clearing{p}, "skillstore: skipping c: no SKILL.md\n") // a warning clears the status line
		p.status("validating the skills in dir…")
		p.Surveying(2, 5)
		p.Start(snapshot.Totals{Files: 5, Bytes: 5 * mb, Reused: 2, ReusedBytes: 2 * mb})
		for i, f := range files {
			clock = start.Add(f.at)
			if i == 3 {
				p.OverLimit(f.name, 5*mb)
			}
			p.File(f.name, mb, f.how)
		}
		p.FilesDone()
		return out.String(), errb.String()
	}
	const warning = "skillstore: skipping c: no SKILL.md\n" +
		"skillstore: warning: b/SKILL.md is 5MB, over the serving limit of 4MB (--max-file-size): servers will refuse to read it\n"
	for _, tc := range []struct {
		name       string
		bar, quiet bool
		out        string
	}{
		{"terminal", true, false,
			"\rvalidating the skills in dir…\x1b[K\r\x1b[K" + "\rvalidating the skills in dir…\x1b[K" +
				"\rlooking at 5 files of 2 skills: sizes and times, the published snapshot, the content already stored…\x1b[K" +
				"\r[####................] 1/5 files, 1.0MB/5.0MB, 2 files/s, 2.0MB/s, time left unknown\x1b[K" +
				"\r[############........] 3/5 files, 3.0MB/5.0MB, 1 files/s, 1.0MB/s, 2s left\x1b[K" +
				"\r\x1b[K" + // the warning
				"\r[################....] 4/5 files, 4.0MB/5.0MB, 1 files/s, 1.0MB/s, 1s left\x1b[K" +
				"\r[####################] 5/5 files, 5.0MB/5.0MB, 1 files/s, 1.0MB/s, 0s left\x1b[K" +
				"\r5 files, 5.0MB, in 3s (3 read: 1 files/s, 1.0MB/s); 2 unchanged and not read\x1b[K\n"},
		{"not a terminal", false, false, "upload  a/SKILL.md (1048576 bytes)\nupload  b/y.md (1048576 bytes)\n"},
		{"quiet", true, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs := run(tc.bar, tc.quiet)
			if diff := cmp.Diff(tc.out, out); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(warning, errs); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPublishTempDir: publishing to a file:// folder writes each object's
// temporary file beside it, not in the temporary folder, which may be on
// another file system than a shared disk (renaming across them fails):
// here, a folder that does not exist.
func TestPublishTempDir(t *testing.T) {
	dir, _, _ := publishFolders(t)
	url := "file://" + t.TempDir()
	gone := filepath.Join(t.TempDir(), "gone")
	stdout, stderr, code := run(t, []string{"TMPDIR=" + gone}, "publish", "--quiet", dir, url)
	if code != 0 || stdout != "" || stderr != "skillstore: skipping not-a-skill: no SKILL.md\n" {
		t.Errorf("publish with TMPDIR missing: exit %d\n%s%s", code, stdout, stderr)
	}
}
