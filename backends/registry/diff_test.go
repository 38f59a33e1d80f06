package registry_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob/memblob"

	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/registry"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/skilldiff"
)

func TestDiff(t *testing.T) {
	ctx := context.Background()
	mb := memblob.OpenBucket(nil)
	t.Cleanup(func() { mb.Close() })
	b := blobfs.NewPublishBucket(mb)
	r := open(t, b, registry.Options{})
	s, v1, err := r.CreateSkill(ctx, "ana", upload(t, "pdf", map[string]string{
		"SKILL.md":    doc("pdf", "Reads PDFs."),
		"same.txt":    "same\n",
		"gone.txt":    "gone\n",
		"scripts/x.b": "\x00\x01",
	}), "")
	if err != nil {
		t.Fatal(err)
	}
	v2, err := r.CreateVersion(ctx, "bo", s.ID, upload(t, "pdf", map[string]string{
		"SKILL.md":    doc("pdf", "Reads PDFs, v2."),
		"same.txt":    "same\n",
		"new.txt":     "new\n",
		"scripts/x.b": "\x00\x02",
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	type change struct{ Path, Kind, Unified string }
	summary := func(d *skilldiff.Diff) (out []change) {
		for _, c := range d.Changes {
			out = append(out, change{c.Path, c.Kind, c.Unified})
		}
		return out
	}
	skillDiff := "--- a/SKILL.md\n+++ b/SKILL.md\n@@ -1,6 +1,6 @@\n ---\n name: pdf\n-description: Reads PDFs.\n+description: Reads PDFs, v2.\n ---\n # pdf\n \n"
	v1to2 := []change{
		{"SKILL.md", skilldiff.Changed, skillDiff},
		{"gone.txt", skilldiff.Removed, "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n"},
		{"new.txt", skilldiff.Added, "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+new\n"},
		{"scripts/x.b", skilldiff.Changed, ""},
	}
	tests := []struct {
		name, from, to string
		wantFrom       string
		want           []change
		same           int
	}{
		{"from the version before", "", v2.ID, v1.ID, v1to2, 1},
		{"latest", v1.ID, "latest", v1.ID, v1to2, 1},
		{"the first version: every file added", "", v1.ID, "", []change{
			{"SKILL.md", skilldiff.Added, "--- /dev/null\n+++ b/SKILL.md\n@@ -0,0 +1,7 @@\n+---\n+name: pdf\n+description: Reads PDFs.\n+---\n+# pdf\n+\n+Body.\n"},
			{"gone.txt", skilldiff.Added, "--- /dev/null\n+++ b/gone.txt\n@@ -0,0 +1 @@\n+gone\n"},
			{"same.txt", skilldiff.Added, "--- /dev/null\n+++ b/same.txt\n@@ -0,0 +1 @@\n+same\n"},
			{"scripts/x.b", skilldiff.Added, ""},
		}, 0},
		{"a version with itself", v2.ID, v2.ID, v2.ID, nil, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := r.Diff(ctx, s.ID, tt.from, tt.to, nil)
			if err != nil {
				t.Fatal(err)
			}
			wantTo := v2.ID
			if tt.to == v1.ID {
				wantTo = v1.ID
			}
			if d.From != tt.wantFrom || d.To != wantTo || d.Same != tt.same {
				t.Errorf("from %q to %q, %d same", d.From, d.To, d.Same)
			}
			if diff := cmp.Diff(tt.want, summary(d)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, tt := range []struct {
		name, id, from, to string
		visible            func(string) bool
	}{
		{"a hidden skill", s.ID, "", "latest", func(string) bool { return false }},
		{"an unknown skill", "skill_nope", "", "latest", nil},
		{"an unknown to", s.ID, "", "nope", nil},
		{"an unknown from", s.ID, "nope", "latest", nil},
	} {
		if _, err := r.Diff(ctx, tt.id, tt.from, tt.to, tt.visible); status(err) != http.StatusNotFound {
			t.Errorf("%s: %v, want a 404", tt.name, err)
		}
	}
	// A blob changed in the bucket is an error, never a diff of it.
	if err := b.WriteObject(ctx, snapshot.BlobKey(snapshot.Sum([]byte("new\n"))), strings.NewReader("evl\n"), snapshot.ObjectAttrs{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Diff(ctx, s.ID, "", v2.ID, nil); err == nil || !strings.Contains(err.Error(), "new.txt: the stored content does not match its digest") {
		t.Errorf("a changed blob: %v", err)
	}
}
