package integration

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/testutil"
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
			if out := cli("publish", "../backends/examples", url); !strings.Contains(out, "uploaded, 0 unchanged, 0 deleted") || strings.Contains(out, " 0 uploaded") {
				t.Errorf("first publish:\n%s", out)
			}
			if out := cli("list", "-s", url); !strings.Contains(out, "code-review") || !strings.Contains(out, "commit-messages") || !strings.Contains(out, "writing-skills") {
				t.Errorf("list after publish:\n%s", out)
			}
			if out := cli("read", "-s", url, "writing-skills", "assets/icon.png"); !strings.HasPrefix(out, "\x89PNG") {
				t.Errorf("binary file did not survive the round trip")
			}
			if out := cli("publish", "../backends/examples", url); !strings.Contains(out, ": 0 uploaded, ") {
				t.Errorf("second publish:\n%s", out)
			}
			one := testutil.TempTree(t, map[string][]byte{"solo/SKILL.md": []byte("---\nname: solo\ndescription: The only one left.\n---\n")})
			if out := cli("publish", "--delete", one, url); !strings.Contains(out, "2 uploaded") || !strings.Contains(out, "delete  code-review/SKILL.md") {
				t.Errorf("publish --delete:\n%s", out)
			}
			if out := cli("list", "-s", url); !strings.Contains(out, "solo") || strings.Contains(out, "code-review") {
				t.Errorf("list after --delete:\n%s", out)
			}
		})
	}
}
