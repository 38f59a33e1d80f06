package integration

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

// TestPublish publishes the built-in examples to each real store with the
// CLI, lists them back from the bucket, publishes again (nothing changes),
// then publishes a smaller tree with --delete.
func TestPublish(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			r := st.start(t)
			r.createBucket(t, "published")
			url := r.url("published", "team/")
			cli := func(args ...string) string {
				t.Helper()
				cmd := exec.Command(binary, args...)
				cmd.Env = append(os.Environ(), r.env...)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("skillstore %s: %v\n%s", args[0], err, out)
				}
				for _, s := range r.secrets {
					if strings.Contains(string(out), s) {
						t.Errorf("output carries a credential: %s", out)
					}
				}
				return string(out)
			}
			if out := cli("publish", "../backends/examples", url); !strings.Contains(out, "3 skills") || !strings.Contains(out, " 0 already stored") || strings.Contains(out, ": 0 uploaded") {
				t.Errorf("first publish:\n%s", out)
			}
			if out := cli("list", "-s", url); !strings.Contains(out, "code-review") || !strings.Contains(out, "commit-messages") || !strings.Contains(out, "writing-skills") {
				t.Errorf("list after publish:\n%s", out)
			}
			if out := cli("read", "-s", url, "writing-skills", "assets/icon.png"); !strings.HasPrefix(out, "\x89PNG") {
				t.Errorf("binary file did not survive the round trip")
			}
			if out := cli("publish", "--quiet", "../backends/examples", url); out != "" {
				t.Errorf("--quiet printed:\n%s", out)
			}
			if out := cli("publish", "../backends/examples", url); !strings.Contains(out, " 0 uploaded (0B)") {
				t.Errorf("republishing unchanged files:\n%s", out)
			}
			one := testutil.TempTree(t, map[string][]byte{"solo/SKILL.md": []byte("---\nname: solo\ndescription: The only one left.\n---\n")})
			if out := cli("publish", "--keep", "1", one, url); !strings.Contains(out, "1 uploaded") || !strings.Contains(out, "remove  snapshot") {
				t.Errorf("publish --keep 1:\n%s", out)
			}
			if out := cli("list", "-s", url); !strings.Contains(out, "solo") || strings.Contains(out, "code-review") {
				t.Errorf("list after the new snapshot:\n%s", out)
			}
			// A cold catalog of the published bucket costs two requests,
			// a refresh with nothing new one (after the first).
			useEnv(t, r.env)
			src, err := backends.Open(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			s, _ := store.New([]store.Source{src}, store.Options{})
			if _, err := s.List(context.Background()); err != nil {
				t.Fatal(err)
			}
			bucket := src.FS.(*blobfs.Source).Bucket()
			if got := bucket.Requests(); got != (blobfs.Requests{Get: 2}) {
				t.Errorf("cold catalog cost %+v; want 2 GETs", got)
			}
			s.Refresh(context.Background())
			before := bucket.Requests()
			s.Refresh(context.Background())
			if got := bucket.Requests(); got.Head-before.Head != 1 || got.Get != before.Get || got.List != 0 {
				t.Errorf("a refresh with nothing new cost %+v, then %+v; want one HEAD", before, got)
			}
			ran(t, st.name+" publish")
		})
	}
}

// TestPublishToSharedFolder publishes to a file:// destination (a shared
// disk, or NFS) and serves the folder as a source.
func TestPublishToSharedFolder(t *testing.T) {
	dir := t.TempDir()
	out, err := exec.Command(binary, "publish", "../backends/examples", "file://"+dir+"/team").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "3 skills") {
		t.Fatalf("publish: %v\n%s", err, out)
	}
	out, err = exec.Command(binary, "list", "-s", dir+"/team").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "code-review") || !strings.Contains(string(out), "writing-skills") {
		t.Errorf("list the shared folder: %v\n%s", err, out)
	}
	out, err = exec.Command(binary, "read", "-s", "file://"+dir+"/team", "code-review", "references/checklist.md").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "# Review checklist") {
		t.Errorf("read from the shared folder: %v\n%s", err, out)
	}
}
