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
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
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
	files, idx, err := publishable(ctx, local, false, io.Discard)
	if err != nil || strings.Join(files, ",") != "a/SKILL.md,a/refs/x.md,b/SKILL.md" || len(idx.Skills) != 2 {
		t.Fatalf("files = %v, index %+v, %v", files, idx, err)
	}
	b := memblob.OpenBucket(nil)
	defer b.Close()
	b.WriteAll(ctx, "old/SKILL.md", []byte("stale"), nil)
	run := func(opts publishOptions) publishReport {
		t.Helper()
		var out bytes.Buffer
		r, err := publish(ctx, local, files, idx, b, opts, &out)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// Three files and the index.
	if r := run(publishOptions{dryRun: true, delete: true}); r.uploaded != 4 || r.deleted != 1 {
		t.Errorf("dry run: %+v", r)
	}
	if ok, _ := b.Exists(ctx, "a/SKILL.md"); ok {
		t.Error("a dry run uploaded")
	}
	if r := run(publishOptions{}); r.uploaded != 4 || r.unchanged != 0 || r.deleted != 0 {
		t.Errorf("first publish: %+v", r)
	}
	if r := run(publishOptions{}); r.uploaded != 0 || r.unchanged != 4 {
		t.Errorf("second publish: %+v", r)
	}
	os.WriteFile(filepath.Join(dir, "a", "refs", "x.md"), []byte("y"), 0o644) // same size, new content
	if r := run(publishOptions{delete: true}); r.uploaded != 1 || r.unchanged != 3 || r.deleted != 1 {
		t.Errorf("after an edit, with --delete: %+v", r)
	}
	if got, _ := b.ReadAll(ctx, "a/refs/x.md"); string(got) != "y" {
		t.Errorf("a/refs/x.md = %q", got)
	}
	if ok, _ := b.Exists(ctx, "old/SKILL.md"); ok {
		t.Error("--delete left a stale object")
	}

	// A cold store over the bucket builds its catalog from the index: one
	// LIST and one GET, no SKILL.md read.
	bfs := blobfs.Bucket(b, blobfs.BucketOptions{})
	s, _ := store.New([]store.Source{{Label: "org", FS: bfs}}, store.Options{})
	list, err := s.List(ctx)
	if err != nil || len(list) != 2 || list[0].Description != "A." {
		t.Fatalf("list from the bucket: %v %v", list, err)
	}
	if r := bfs.Requests(); r.List != 1 || r.Get != 1 {
		t.Errorf("cold catalog cost %+v; want 1 LIST and 1 GET (the index)", r)
	}
	// A document changed behind the index's back is read, not trusted.
	b.WriteAll(ctx, "b/SKILL.md", []byte("---\nname: b\ndescription: Changed without publish.\n---\n"), nil)
	bfs2 := blobfs.Bucket(b, blobfs.BucketOptions{})
	s2, _ := store.New([]store.Source{{Label: "org", FS: bfs2}}, store.Options{})
	if sk, err := s2.Skill(ctx, "b"); err != nil || sk.Description != "Changed without publish." {
		t.Errorf("stale index entry trusted: %+v %v", sk, err)
	}
}

func TestPublishRefusesInvalidSkills(t *testing.T) {
	dir := testutil.TempTree(t, map[string][]byte{"Bad_Name/SKILL.md": []byte("---\nname: Bad_Name\ndescription: d\n---\n")})
	local, _ := backends.Local(dir)
	defer local.Close()
	var stderr bytes.Buffer
	if _, _, err := publishable(context.Background(), local, false, &stderr); err == nil || !strings.Contains(stderr.String(), "FAIL  Bad_Name") {
		t.Errorf("err %v, report %s", err, stderr.String())
	}
	if files, _, err := publishable(context.Background(), local, true, io.Discard); err != nil || len(files) != 1 {
		t.Errorf("--force: %v %v", files, err)
	}
}
