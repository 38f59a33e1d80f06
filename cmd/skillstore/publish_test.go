package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocloud.dev/blob/memblob"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/testutil"
)

func TestPublish(t *testing.T) {
	dir := testutil.TempTree(t, map[string][]byte{
		"a/SKILL.md":         []byte("---\nname: a\ndescription: A.\n---\n"),
		"a/refs/x.md":        []byte("x"),
		"a/.DS_Store":        []byte("junk"),
		"b/SKILL.md":         []byte("---\nname: b\ndescription: B.\n---\n"),
		"b/.git/config":      []byte("junk"),
		"not-a-skill/readme": []byte("ignored"),
	})
	local, err := backends.Local(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	ctx := context.Background()
	files, err := publishable(ctx, local, false, io.Discard)
	if err != nil || strings.Join(files, ",") != "a/SKILL.md,a/refs/x.md,b/SKILL.md" {
		t.Fatalf("files = %v, %v", files, err)
	}
	b := memblob.OpenBucket(nil)
	defer b.Close()
	b.WriteAll(ctx, "old/SKILL.md", []byte("stale"), nil)
	run := func(opts publishOptions) publishReport {
		t.Helper()
		var out bytes.Buffer
		r, err := publish(ctx, local, files, b, opts, &out)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := run(publishOptions{dryRun: true, delete: true}); r.uploaded != 3 || r.deleted != 1 {
		t.Errorf("dry run: %+v", r)
	}
	if ok, _ := b.Exists(ctx, "a/SKILL.md"); ok {
		t.Error("a dry run uploaded")
	}
	if r := run(publishOptions{}); r.uploaded != 3 || r.unchanged != 0 || r.deleted != 0 {
		t.Errorf("first publish: %+v", r)
	}
	if r := run(publishOptions{}); r.uploaded != 0 || r.unchanged != 3 {
		t.Errorf("second publish: %+v", r)
	}
	os.WriteFile(filepath.Join(dir, "a", "refs", "x.md"), []byte("y"), 0o644) // same size, new content
	if r := run(publishOptions{delete: true}); r.uploaded != 1 || r.unchanged != 2 || r.deleted != 1 {
		t.Errorf("after an edit, with --delete: %+v", r)
	}
	if got, _ := b.ReadAll(ctx, "a/refs/x.md"); string(got) != "y" {
		t.Errorf("a/refs/x.md = %q", got)
	}
	if ok, _ := b.Exists(ctx, "old/SKILL.md"); ok {
		t.Error("--delete left a stale object")
	}
}

func TestPublishRefusesInvalidSkills(t *testing.T) {
	dir := testutil.TempTree(t, map[string][]byte{"Bad_Name/SKILL.md": []byte("---\nname: Bad_Name\ndescription: d\n---\n")})
	local, _ := backends.Local(dir)
	defer local.Close()
	var stderr bytes.Buffer
	if _, err := publishable(context.Background(), local, false, &stderr); err == nil || !strings.Contains(stderr.String(), "FAIL  Bad_Name") {
		t.Errorf("err %v, report %s", err, stderr.String())
	}
	if files, err := publishable(context.Background(), local, true, io.Discard); err != nil || len(files) != 1 {
		t.Errorf("--force: %v %v", files, err)
	}
}
