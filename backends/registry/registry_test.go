package registry_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"
	"golang.org/x/crypto/ssh"

	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/registry"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/skillcheck"
	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/skillsapi"
	"github.com/skillstore/skillstore/store"
)

// upload checks files as the handler does.
func upload(t testing.TB, name string, files map[string]string) *skillcheck.Skill {
	t.Helper()
	var in []skillcheck.File
	for p, data := range files {
		in = append(in, skillcheck.File{Path: name + "/" + p, Data: []byte(data)})
	}
	sk, err := skillcheck.Files(in, skillcheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

func doc(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\n\nBody.\n"
}

// buckets are the stores a registry is tested on: memblob, and a shared
// disk through PublishBucketFor (hard links).
func buckets(t *testing.T) map[string]func() snapshot.Bucket {
	dir := t.TempDir()
	return map[string]func() snapshot.Bucket{
		"mem": func() snapshot.Bucket {
			b := memblob.OpenBucket(nil)
			t.Cleanup(func() { b.Close() })
			return blobfs.NewPublishBucket(b)
		},
		"file": func() snapshot.Bucket {
			b, err := fileblob.OpenBucket(dir, &fileblob.Options{CreateDir: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			return blobfs.PublishBucketFor(b, (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String())
		},
	}
}

func open(t testing.TB, b snapshot.Bucket, o registry.Options) *registry.Registry {
	t.Helper()
	o.Logger = slog.New(slog.DiscardHandler)
	r, err := registry.Open(context.Background(), b, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func status(err error) int {
	var e *skillsapi.Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

func TestLifecycle(t *testing.T) {
	for name, mk := range buckets(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			b := mk()
			r := open(t, b, registry.Options{})
			bin := "\x00\x01\xff binary\r\n"
			s, v1, err := r.CreateSkill(ctx, "ana", upload(t, "pdf", map[string]string{
				"SKILL.md":        "\ufeff" + strings.ReplaceAll(doc("pdf", "Reads PDFs."), "\n", "\r\n"),
				"scripts/x.bin":   bin,
				"reference/a.txt": "a\n",
			}), "")
			if err != nil {
				t.Fatal(err)
			}
			if s.DisplayName != "pdf" || s.LatestVersionID != v1.ID || v1.Name != "pdf" || v1.Description != "Reads PDFs." || v1.CreatedBy != "ana" || !strings.HasPrefix(v1.Digest, "sha256:") {
				t.Fatalf("created %+v %+v", s, v1)
			}
			if _, _, err := r.CreateSkill(ctx, "bo", upload(t, "pdf", map[string]string{"SKILL.md": doc("pdf", "Again.")}), ""); status(err) != http.StatusConflict {
				t.Fatalf("second skill of one name: %v", err)
			}
			if _, err := r.CreateVersion(ctx, "bo", s.ID, upload(t, "other", map[string]string{"SKILL.md": doc("other", "x")}), nil); status(err) != http.StatusBadRequest {
				t.Fatalf("version of another name: %v", err)
			}
			v2, err := r.CreateVersion(ctx, "bo", s.ID, upload(t, "pdf", map[string]string{"SKILL.md": doc("pdf", "Reads PDFs, v2.")}), nil)
			if err != nil {
				t.Fatal(err)
			}
			latest, err := r.Version(ctx, s.ID, "latest", nil)
			if err != nil || latest.ID != v2.ID {
				t.Fatalf("latest = %v, %v; want %s", latest.ID, err, v2.ID)
			}
			vs, more, err := r.Versions(ctx, s.ID, "", 10, nil)
			if err != nil || more || len(vs) != 2 || vs[0].ID != v2.ID || vs[1].ID != v1.ID {
				t.Fatalf("versions newest first: %v %v %v", vs, more, err)
			}
			// Download v1 byte for byte.
			var zb bytes.Buffer
			if err := r.WriteZip(ctx, &zb, s.ID, v1.ID, nil); err != nil {
				t.Fatal(err)
			}
			got := testutil.Unzip(t, zb.Bytes())
			want := map[string]string{
				"pdf/SKILL.md":        "\ufeff" + strings.ReplaceAll(doc("pdf", "Reads PDFs."), "\n", "\r\n"),
				"pdf/scripts/x.bin":   bin,
				"pdf/reference/a.txt": "a\n",
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("zip (-want +got):\n%s", d)
			}
			// Hidden is missing, with the same text.
			hidden := func(string) bool { return false }
			_, e1 := r.Skill(ctx, s.ID, hidden)
			_, e2 := r.Skill(ctx, "skill_nope", nil)
			if status(e1) != 404 || strings.ReplaceAll(e1.Error(), s.ID, "X") != strings.ReplaceAll(e2.Error(), "skill_nope", "X") {
				t.Fatalf("hidden %v, missing %v", e1, e2)
			}
			// By name: the skill, or, hidden or missing, one 404 text.
			if byName, err := r.SkillByName(ctx, "pdf", nil); err != nil || byName.ID != s.ID {
				t.Fatalf("SkillByName(pdf) = %+v, %v; want %s", byName, err, s.ID)
			}
			_, e3 := r.SkillByName(ctx, "pdf", hidden)
			_, e4 := r.SkillByName(ctx, "nope", nil)
			if status(e3) != 404 || strings.ReplaceAll(e3.Error(), "pdf", "X") != strings.ReplaceAll(e4.Error(), "nope", "X") {
				t.Fatalf("SkillByName: hidden %v, missing %v", e3, e4)
			}
			if _, err := r.DeleteVersion(ctx, "ana", s.ID, "latest", nil); status(err) != 400 {
				t.Fatalf("delete latest: %v", err)
			}
			if _, err := r.DeleteVersion(ctx, "ana", s.ID, v2.ID, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := r.DeleteVersion(ctx, "ana", s.ID, v1.ID, nil); status(err) != 400 {
				t.Fatalf("delete the last version: %v", err)
			}
			// A restart loses nothing.
			r2 := open(t, b, registry.Options{})
			got2, err := r2.Version(ctx, s.ID, "latest", nil)
			if err != nil || got2.ID != v1.ID {
				t.Fatalf("after a restart, latest = %v, %v; want %s", got2.ID, err, v1.ID)
			}
			if err := r2.DeleteSkill(ctx, "ana", s.ID, nil); err != nil {
				t.Fatal(err)
			}
			if err := r.Refresh(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Skill(ctx, s.ID, nil); status(err) != 404 {
				t.Fatalf("deleted on the other replica, still there: %v", err)
			}
			if _, err := r.SkillByName(ctx, "pdf", nil); status(err) != 404 {
				t.Fatalf("deleted on the other replica, still found by name: %v", err)
			}
		})
	}
}

// TestTwoWriters has two replicas of one folder write at once: every
// skill lands once, each name is taken exactly once, and both replicas
// list the same.
func TestTwoWriters(t *testing.T) {
	for name, mk := range buckets(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			b := mk()
			reps := []*registry.Registry{open(t, b, registry.Options{CheckpointEvery: 7}), open(t, b, registry.Options{CheckpointEvery: 7})}
			const each = 15
			var wg sync.WaitGroup
			var mu sync.Mutex
			taken := map[string]int{}
			for w, r := range reps {
				wg.Go(func() {
					for i := range each {
						n := fmt.Sprintf("own-%d-%d", w, i)
						if _, _, err := r.CreateSkill(ctx, "w", upload(t, n, map[string]string{"SKILL.md": doc(n, "x")}), ""); err != nil {
							t.Error(err)
						}
						shared := fmt.Sprintf("shared-%d", i)
						_, _, err := r.CreateSkill(ctx, "w", upload(t, shared, map[string]string{"SKILL.md": doc(shared, fmt.Sprint(w))}), "")
						mu.Lock()
						switch status(err) {
						case 0:
							if err != nil {
								t.Error(err)
							}
							taken[shared]++
						case http.StatusConflict:
						default:
							t.Error(err)
						}
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			for n, c := range taken {
				if c != 1 {
					t.Errorf("%s created %d times", n, c)
				}
			}
			if len(taken) != each {
				t.Errorf("%d shared names created, want %d", len(taken), each)
			}
			lists := make([][]string, 3)
			reps = append(reps, open(t, b, registry.Options{})) // a cold start, from a checkpoint
			for i, r := range reps {
				if err := r.Refresh(ctx); err != nil {
					t.Fatal(err)
				}
				page, _, err := r.Skills(ctx, "", 1000, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range page {
					lists[i] = append(lists[i], s.Name)
				}
				sort.Strings(lists[i])
				if len(lists[i]) != 3*each || len(r.Problems()) != 0 {
					t.Errorf("replica %d holds %d skills, problems %v", i, len(lists[i]), r.Problems())
				}
			}
			if d := cmp.Diff(lists[0], lists[1]); d != "" {
				t.Errorf("replicas differ:\n%s", d)
			}
			if d := cmp.Diff(lists[0], lists[2]); d != "" {
				t.Errorf("a cold start differs:\n%s", d)
			}
		})
	}
}

// unconditional is a store that overwrites where it should refuse.
type unconditional struct{ snapshot.Bucket }

func (u unconditional) CreateObject(ctx context.Context, key string, r io.Reader, a snapshot.ObjectAttrs) error {
	return u.WriteObject(ctx, key, r, a)
}

func TestRefusesUnconditionalStore(t *testing.T) {
	b := blobfs.NewPublishBucket(memblob.OpenBucket(nil))
	_, err := registry.Open(context.Background(), unconditional{b}, registry.Options{})
	if !errors.Is(err, registry.ErrNotConditional) {
		t.Fatalf("Open = %v, want ErrNotConditional", err)
	}
}

// TestHandEdited: an entry made unreadable is skipped and reported; a
// missing blob fails that version's download only.
func TestHandEdited(t *testing.T) {
	ctx := context.Background()
	mb := memblob.OpenBucket(nil)
	defer mb.Close()
	b := blobfs.NewPublishBucket(mb)
	r := open(t, b, registry.Options{})
	a, _, err := r.CreateSkill(ctx, "x", upload(t, "a", map[string]string{"SKILL.md": doc("a", "A."), "big.txt": "only here\n"}), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.CreateSkill(ctx, "x", upload(t, "b", map[string]string{"SKILL.md": doc("b", "B.")}), ""); err != nil {
		t.Fatal(err)
	}
	keys := list(t, mb)
	var entry2, blob string
	for _, k := range keys {
		if strings.HasSuffix(k, "00000000000000000002.json") {
			entry2 = k
		}
		if strings.Contains(k, "/blobs/") && strings.HasSuffix(k, snapshot.Sum([]byte("only here\n"))) {
			blob = k
		}
	}
	if err := mb.WriteAll(ctx, entry2, []byte("{not json"), nil); err != nil {
		t.Fatal(err)
	}
	if err := mb.Delete(ctx, blob); err != nil {
		t.Fatal(err)
	}
	r2 := open(t, b, registry.Options{})
	if p := r2.Problems(); len(p) != 1 || p[2] == "" {
		t.Fatalf("problems = %v, want entry 2 reported", p)
	}
	if _, err := r2.Skill(ctx, a.ID, nil); err != nil {
		t.Fatalf("skill a after entry 2 broke: %v", err)
	}
	if err := r2.WriteZip(ctx, io.Discard, a.ID, "latest", nil); err == nil || strings.Contains(err.Error(), "/") && strings.Contains(err.Error(), "tmp") {
		t.Fatalf("download with a blob missing: %v", err)
	}
	// Writes go on after the broken entry.
	if _, _, err := r2.CreateSkill(ctx, "x", upload(t, "c", map[string]string{"SKILL.md": doc("c", "C.")}), ""); err != nil {
		t.Fatal(err)
	}
}

func list(t testing.TB, b *blob.Bucket) []string {
	var keys []string
	it := b.List(nil)
	for {
		o, err := it.Next(context.Background())
		if err == io.EOF {
			return keys
		}
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, o.Key)
	}
}

// TestSource serves the registry through a store: the latest version of
// each skill, its provenance naming the version, a new version seen
// after one refresh.
func TestSource(t *testing.T) {
	ctx := context.Background()
	b := blobfs.NewPublishBucket(memblob.OpenBucket(nil))
	w := open(t, b, registry.Options{})
	s, v1, err := w.CreateSkill(ctx, "ana", upload(t, "pdf", map[string]string{"SKILL.md": doc("pdf", "One."), "notes.txt": "v1\n"}), "")
	if err != nil {
		t.Fatal(err)
	}
	rd := open(t, b, registry.Options{}) // another replica
	st, err := store.New([]store.Source{rd.Source("registry")}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	all := st.View(nil)
	sk, err := all.Skill(ctx, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	if pv := sk.Provenance.Version; pv == nil || pv.ID != v1.ID || pv.Digest != v1.Digest || pv.CreatedBy != "ana" {
		t.Fatalf("provenance version = %+v, want %s", pv, v1.ID)
	}
	got, err := all.ReadFile(ctx, "pdf", "notes.txt", nil)
	if err != nil || got.Text != "v1\n" {
		t.Fatalf("notes.txt = %q, %v", got.Text, err)
	}
	v2, err := w.CreateVersion(ctx, "bo", s.ID, upload(t, "pdf", map[string]string{"SKILL.md": doc("pdf", "Two."), "notes.txt": "v2\n"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	sk, err = all.Skill(ctx, "pdf")
	if err != nil || sk.Provenance.Version.ID != v2.ID || sk.Frontmatter.Description != "Two." {
		t.Fatalf("after a refresh: %+v, %v", sk, err)
	}
	got, err = all.ReadFile(ctx, "pdf", "notes.txt", nil)
	if err != nil || got.Text != "v2\n" {
		t.Fatalf("notes.txt = %q, %v", got.Text, err)
	}
	list, get := rd.Source("").FS.(store.RequestCounter).RequestCounts()
	if _, err := st.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	list2, get2 := rd.Source("").FS.(store.RequestCounter).RequestCounts()
	if list2 != list || get2 != get+1 {
		t.Fatalf("an idle refresh cost %d lists and %d gets, want 0 and 1", list2-list, get2-get)
	}
	_ = fs.ErrNotExist
}

// TestSigned: a replica under a trust list serves the versions a signing
// registry accepted, and not one a replica without the key wrote into
// the same folder; the API still lists it.
func TestSigned(t *testing.T) {
	ctx := context.Background()
	_, priv, _ := ed25519.GenerateKey(nil)
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	trust := (*sshsig.AllowedSigners)(nil).With("registry@example", signer.PublicKey())
	b := blobfs.NewPublishBucket(memblob.OpenBucket(nil))
	signing := open(t, b, registry.Options{Signer: signer, CheckpointEvery: 2})
	unsigned := open(t, b, registry.Options{})
	s, v1, err := signing.CreateSkill(ctx, "ana", upload(t, "pdf", map[string]string{"SKILL.md": doc("pdf", "Signed.")}), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unsigned.CreateVersion(ctx, "mallory", s.ID, upload(t, "pdf", map[string]string{"SKILL.md": doc("pdf", "Laundered.")}), nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := unsigned.CreateSkill(ctx, "mallory", upload(t, "evil", map[string]string{"SKILL.md": doc("evil", "Unsigned.")}), ""); err != nil {
		t.Fatal(err)
	}
	// Cold from the checkpoint at entry 2, then entry 3 from the log.
	replica := open(t, b, registry.Options{Trust: func() *sshsig.AllowedSigners { return trust }})
	st, err := store.New([]store.Source{replica.Source("registry")}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sk, err := st.View(nil).Skill(ctx, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	if pv := sk.Provenance.Version; pv == nil || pv.ID != v1.ID || pv.Signer.Principal != "registry@example" || sk.Frontmatter.Description != "Signed." {
		t.Fatalf("served %q, version %+v; want the signed %s", sk.Frontmatter.Description, pv, v1.ID)
	}
	if _, err := st.View(nil).Skill(ctx, "evil"); err == nil {
		t.Fatal("an unsigned skill is served under a trust list")
	}
	if latest, err := replica.Version(ctx, s.ID, "latest", nil); err != nil || latest.ID == v1.ID {
		t.Fatalf("the API lists the unsigned version as latest: %v, %v", latest.ID, err)
	}
}

// TestOwnFolder: a registry and published snapshots never share a
// folder, since a publish removes content its snapshots do not use.
func TestOwnFolder(t *testing.T) {
	ctx := context.Background()
	mb := memblob.OpenBucket(nil)
	defer mb.Close()
	b := blobfs.NewPublishBucket(mb)
	r := open(t, b, registry.Options{})
	if _, _, err := r.CreateSkill(ctx, "x", upload(t, "a", map[string]string{"SKILL.md": doc("a", "A.")}), ""); err != nil {
		t.Fatal(err)
	}
	src := fstest.MapFS{"b/SKILL.md": {Data: []byte(doc("b", "B."))}}
	_, err := snapshot.Publish(ctx, src, []snapshot.SkillFiles{{Dir: "b", DocPath: "SKILL.md", Files: []string{"SKILL.md"}}}, b, snapshot.PublishOptions{Keep: 1})
	if !errors.Is(err, snapshot.ErrRegistryFolder) {
		t.Fatalf("publish into a registry's folder: %v", err)
	}
	other := blobfs.NewPublishBucket(memblob.OpenBucket(nil))
	if _, err := snapshot.Publish(ctx, src, []snapshot.SkillFiles{{Dir: "b", DocPath: "SKILL.md", Files: []string{"SKILL.md"}}}, other, snapshot.PublishOptions{Keep: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := registry.Open(ctx, other, registry.Options{}); !errors.Is(err, registry.ErrSnapshotFolder) {
		t.Fatalf("a registry in a published folder: %v", err)
	}
}
