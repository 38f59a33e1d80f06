package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob/memblob"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/registry"
	"github.com/skillstore/skillstore/internal/skillcheck"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/lockfile"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

func lockDoc(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\n"
}

// pinnedStore is a store over src serving what lock pins, and its tools.
func pinnedStore(t *testing.T, src store.Source, lock *lockfile.Lock) (*store.Store, *tools.Tools) {
	t.Helper()
	s, err := store.New([]store.Source{src}, store.Options{Pins: &lockPins{lock: lock}, Logger: slog.New(slog.DiscardHandler), RevalidateAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	return s, tools.New(s, tools.Options{})
}

func TestServeLockFolder(t *testing.T) {
	ctx := context.Background()
	dir := testutil.TempTree(t, map[string][]byte{
		"kept/SKILL.md":        []byte(lockDoc("kept", "Pinned and unchanged.")),
		"kept/ref/a.md":        []byte("a\n"),
		"edited/SKILL.md":      []byte(lockDoc("edited", "Pinned, then edited.")),
		"edited/scripts/x.sh":  []byte("echo 1\n"),
		"unlocked/SKILL.md":    []byte(lockDoc("unlocked", "Not in the lock.")),
		"unlocked/notes/b.txt": []byte("b\n"),
	})
	lock := lockfile.New()
	for _, name := range []string{"kept", "edited"} {
		h, err := lockfile.ComputedHash(os.DirFS(filepath.Join(dir, name)))
		if err != nil {
			t.Fatal(err)
		}
		lock.Skills[name] = &lockfile.Entry{Source: "./skills", SourceType: "local", ComputedHash: h}
	}
	script := filepath.Join(dir, "edited/scripts/x.sh")
	if err := os.WriteFile(script, []byte("echo 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	local, err := backends.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	s, tl := pinnedStore(t, store.Source{Label: "skills", Location: dir, Kind: "local", FS: local}, lock)

	list, err := tl.ListSkills(ctx, tools.ListSkillsArgs{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"kept"}, list.Skills); diff != "" {
		t.Errorf("served (-want +got):\n%s", diff)
	}
	if got, err := tl.ReadFile(ctx, tools.ReadFileArgs{SkillName: "kept", FilePath: "ref/a.md"}); err != nil || got.Content != "a\n" {
		t.Errorf("kept's file = %+v, %v", got, err)
	}
	for _, c := range []struct {
		name string
		want error
		says string
	}{
		{"edited", store.ErrNotPinned, "its files have computedHash"},
		{"unlocked", store.ErrSkillNotFound, "not found"},
	} {
		_, err := tl.GetSkill(ctx, tools.GetSkillArgs{SkillName: c.name})
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("get_skill %s: %v; want %v saying %q", c.name, err, c.want, c.says)
		}
	}
	cat, err := s.View(nil).Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var reported []string
	for _, p := range cat.Problems {
		reported = append(reported, p.Skill)
	}
	if diff := cmp.Diff([]string{"edited"}, reported); diff != "" {
		t.Errorf("reported (-want +got):\n%s", diff)
	}

	// The pinned bytes back: the next catalog serves the skill.
	if err := os.WriteFile(script, []byte("echo 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if list, err = tl.ListSkills(ctx, tools.ListSkillsArgs{}); err != nil || !cmp.Equal(list.Skills, []string{"edited", "kept"}) {
		t.Errorf("after restoring: %v, %v", list.Skills, err)
	}
}

func TestServeLockRegistry(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	upload := func(desc, body string) *skillcheck.Skill {
		sk, err := skillcheck.Files([]skillcheck.File{
			{Path: "pdf/SKILL.md", Data: []byte(lockDoc("pdf", desc))},
			{Path: "pdf/ref.md", Data: []byte(body)},
		}, skillcheck.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return sk
	}
	r, err := registry.Open(ctx, blobfs.NewPublishBucket(b), registry.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	sk, v1, err := r.CreateSkill(ctx, "ana", upload("Version one.", "one\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.CreateVersion(ctx, "ana", sk.ID, upload("Version two.", "two\n"), nil); err != nil {
		t.Fatal(err)
	}
	hash1, err := lockfile.ComputedHash(fstest.MapFS{"SKILL.md": {Data: []byte(lockDoc("pdf", "Version one."))}, "ref.md": {Data: []byte("one\n")}})
	if err != nil {
		t.Fatal(err)
	}
	lockOf := func(version string) *lockfile.Lock {
		l := lockfile.New()
		l.Skills["pdf"] = &lockfile.Entry{Source: "mem://", SourceType: "skillstore", ComputedHash: hash1, Skillstore: &lockfile.Pin{Digest: v1.Digest, Version: version}}
		return l
	}
	for _, c := range []struct {
		name    string
		lock    *lockfile.Lock
		served  string // the description served, "" for none
		problem string
	}{
		{"pins the older", lockOf(v1.ID), "Version one.", ""},
		{"pins a version it lacks", lockOf("no-such-version"), "", "digest"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pins := &lockPins{lock: c.lock}
			r, err := registry.Open(ctx, blobfs.NewPublishBucket(b), registry.Options{Logger: slog.New(slog.DiscardHandler), Pins: pins.Version})
			if err != nil {
				t.Fatal(err)
			}
			s, tl := pinnedStore(t, r.Source("registry"), c.lock)
			list, err := tl.ListSkills(ctx, tools.ListSkillsArgs{})
			if err != nil {
				t.Fatal(err)
			}
			var got string
			if len(list.Details) == 1 {
				got = list.Details[0].Description
			}
			if got != c.served {
				t.Errorf("served %q, want %q", got, c.served)
			}
			if c.served != "" {
				if f, err := tl.ReadFile(ctx, tools.ReadFileArgs{SkillName: "pdf", FilePath: "ref.md"}); err != nil || f.Content != "one\n" {
					t.Errorf("ref.md = %+v, %v", f, err)
				}
			}
			cat, err := s.View(nil).Catalog(ctx)
			if err != nil {
				t.Fatal(err)
			}
			p, withheld := cat.Problem("pdf")
			if withheld != (c.problem != "") || !strings.Contains(p.Message, c.problem) {
				t.Errorf("problem %q (%v), want one saying %q", p.Message, withheld, c.problem)
			}
		})
	}
}
