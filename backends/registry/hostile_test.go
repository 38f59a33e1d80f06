package registry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob/memblob"

	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/registry"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/skillcheck"
	"github.com/skillstore/skillstore/store"
)

// entryKey is where the log keeps entry seq (registry's layout).
func entryKey(seq uint64) string {
	return fmt.Sprintf("%s/log/%010d/%020d.json", registry.Dir, seq/1000, seq)
}

// handEntry writes entry seq as a hand would: a create of skill name
// whose version lists files ("SHA256 SIZE PATH").
func handEntry(t *testing.T, b snapshot.Bucket, seq uint64, name string, files ...string) {
	t.Helper()
	body, err := json.Marshal(map[string]any{
		"seq": seq, "op": "create", "time": time.Now().UTC(), "skill": fmt.Sprintf("skill_HAND%d", seq), "name": name,
		"version": map[string]any{"id": fmt.Sprintf("skver_HAND%d", seq), "digest": "sha256:x", "doc": "SKILL.md",
			"frontmatter": "name: " + name + "\ndescription: Hand.\n", "files": files},
	})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(map[string]json.RawMessage{"body": body})
	if err := b.WriteObject(context.Background(), entryKey(seq), strings.NewReader(string(data)), snapshot.ObjectAttrs{}); err != nil {
		t.Fatal(err)
	}
}

// TestHostileEntries: versions written by hand with paths out of their
// folder, repeated paths, a bad folder or a bad digest are left out of
// the served view and reported; the other skills keep serving, and a
// download of such a version is refused.
func TestHostileEntries(t *testing.T) {
	ctx := context.Background()
	b := blobfs.NewPublishBucket(memblob.OpenBucket(nil))
	w := open(t, b, registry.Options{})
	if _, _, err := w.CreateSkill(ctx, "x", upload(t, "good", map[string]string{"SKILL.md": doc("good", "Good.")}), ""); err != nil {
		t.Fatal(err)
	}
	sum := snapshot.Sum([]byte("hello"))
	if err := b.WriteObject(ctx, snapshot.BlobKey(sum), strings.NewReader("hello"), snapshot.ObjectAttrs{}); err != nil {
		t.Fatal(err)
	}
	handEntry(t, b, 2, "escape", sum+" 5 SKILL.md", sum+" 5 ../x")
	handEntry(t, b, 3, "../up", sum+" 5 SKILL.md")
	handEntry(t, b, 4, "twice", sum+" 5 SKILL.md", sum+" 5 SKILL.md")
	handEntry(t, b, 5, "abs", sum+" 5 SKILL.md", sum+" 5 /etc/passwd")
	handEntry(t, b, 6, "digest", strings.ToUpper(sum)+" 5 SKILL.md")

	r := open(t, b, registry.Options{})
	view, err := r.Source("").FS.(store.SnapshotFS).Snapshot(ctx)
	if err != nil {
		t.Fatalf("the view with hand-made entries: %v", err)
	}
	ents, err := fs.ReadDir(view, ".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"good"}, names); diff != "" {
		t.Errorf("served skills (-want +got):\n%s", diff)
	}
	var bad []uint64
	for seq := range r.Problems() {
		bad = append(bad, seq)
	}
	sort.Slice(bad, func(i, j int) bool { return bad[i] < bad[j] })
	if diff := cmp.Diff([]uint64{2, 3, 4, 5, 6}, bad); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if err := r.WriteZip(ctx, io.Discard, "skill_HAND2", "latest", nil); err == nil {
		t.Error("the download of a version naming ../x was not refused")
	}
}

// TestLogGap: an entry deleted by hand is skipped and reported by a
// replica that lists a later one (at start, or before it writes), and no
// writer creates its number again.
func TestLogGap(t *testing.T) {
	ctx := context.Background()
	b := blobfs.NewPublishBucket(memblob.OpenBucket(nil))
	w := open(t, b, registry.Options{})
	create := func(r *registry.Registry, name string) string {
		t.Helper()
		s, _, err := r.CreateSkill(ctx, "x", upload(t, name, map[string]string{"SKILL.md": doc(name, "It.")}), "")
		if err != nil {
			t.Fatal(err)
		}
		return s.ID
	}
	create(w, "a")
	behind := open(t, b, registry.Options{}) // at entry 1
	create(w, "b")
	c := create(w, "c")
	if err := b.DeleteObject(ctx, entryKey(2)); err != nil {
		t.Fatal(err)
	}

	cold := open(t, b, registry.Options{})
	if _, err := cold.Skill(ctx, c, nil); err != nil {
		t.Errorf("a replica started after the gap: skill c: %v", err)
	}
	if p := cold.Problems(); p[2] == "" {
		t.Errorf("a replica started after the gap: problems = %v, want entry 2", p)
	}

	create(behind, "d")
	if _, err := b.ReadObject(ctx, entryKey(2), 1<<20); err == nil {
		t.Error("a writer behind the gap created entry 2 again")
	}
	if _, err := b.ReadObject(ctx, entryKey(4), 1<<20); err != nil {
		t.Errorf("the write after the gap: entry 4: %v", err)
	}
	if _, err := behind.Skill(ctx, c, nil); err != nil {
		t.Errorf("the writer behind the gap: skill c: %v", err)
	}
	if p := behind.Problems(); p[2] == "" {
		t.Errorf("the writer behind the gap: problems = %v, want entry 2", p)
	}
}

// TestGarbledCheckpoint: a checkpoint truncated, garbled, or whose gzip
// trailer claims 4 GiB is skipped (the log is read instead); it neither
// crashes the process nor makes it allocate what the trailer claims.
func TestGarbledCheckpoint(t *testing.T) {
	ctx := context.Background()
	b := blobfs.NewPublishBucket(memblob.OpenBucket(nil))
	w := open(t, b, registry.Options{CheckpointEvery: 2})
	var ids []string
	for _, name := range []string{"a", "b"} {
		s, _, err := w.CreateSkill(ctx, "x", upload(t, name, map[string]string{"SKILL.md": doc(name, "It.")}), "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	key := fmt.Sprintf("%s/checkpoints/%020d.gob.gz", registry.Dir, 2)
	good, err := b.ReadObject(ctx, key, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	huge := append([]byte(nil), good...)
	copy(huge[len(huge)-4:], []byte{0xff, 0xff, 0xff, 0xff})
	cases := map[string][]byte{"huge trailer": huge, "empty": {}, "gzip header only": good[:10]}
	for _, n := range []int{18, 30, len(good) / 2, len(good) - 5} {
		cases[fmt.Sprintf("cut at %d", n)] = good[:n]
	}
	for i := 10; i < len(good)-8; i += max(1, len(good)/40) {
		g := append([]byte(nil), good...)
		g[i] ^= 0x5a
		cases[fmt.Sprintf("byte %d flipped", i)] = g
	}
	for name, data := range cases {
		if err := b.WriteObject(ctx, key, strings.NewReader(string(data)), snapshot.ObjectAttrs{}); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r := open(t, b, registry.Options{})
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
			t.Errorf("%s: opening allocated %d bytes", name, got)
		}
		for _, id := range ids {
			if _, err := r.Skill(ctx, id, nil); err != nil {
				t.Errorf("%s: skill %s: %v", name, id, err)
			}
		}
	}
}

// TestVersionsPageAfterDeleted: a page token naming a version deleted
// since goes on with the older versions, as the skills' list does.
func TestVersionsPageAfterDeleted(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := open(t, blobfs.NewPublishBucket(memblob.OpenBucket(nil)), registry.Options{Now: func() time.Time {
		now = now.Add(time.Second)
		return now
	}})
	up := func(n int) *skillcheck.Skill {
		return upload(t, "pdf", map[string]string{"SKILL.md": doc("pdf", fmt.Sprintf("V%d.", n))})
	}
	s, v1, err := r.CreateSkill(ctx, "x", up(1), "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{v1.ID}
	for n := 2; n <= 4; n++ {
		v, err := r.CreateVersion(ctx, "x", s.ID, up(n), nil)
		if err != nil {
			t.Fatal(err)
		}
		want = append([]string{v.ID}, want...)
	}
	page, more, err := r.Versions(ctx, s.ID, "", 2, nil)
	if err != nil || !more || len(page) != 2 {
		t.Fatalf("first page: %v, %v, %v", page, more, err)
	}
	if _, err := r.DeleteVersion(ctx, "x", s.ID, page[1].ID, nil); err != nil {
		t.Fatal(err)
	}
	rest, more, err := r.Versions(ctx, s.ID, page[1].ID, 2, nil)
	if err != nil {
		t.Fatalf("the page after a deleted version: %v", err)
	}
	var got []string
	for _, v := range rest {
		got = append(got, v.ID)
	}
	if diff := cmp.Diff(want[2:], got); diff != "" || more {
		t.Errorf("the page after a deleted version (-want +got):\n%s\nmore = %v", diff, more)
	}
}
