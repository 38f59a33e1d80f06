package integration

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/sshsig/sshsigtest"
	"github.com/skillstore/skillstore/internal/testutil"
)

// TestSignedPublish publishes signed snapshots to every real object store
// and reads them back through a signer policy given as the source URL's
// trusted-signers option: a signed snapshot is served; a cold reader of
// an unsigned one serves nothing and says why; a snapshot signed by a key
// not in the list is refused alike; the signed one after it is served.
func TestSignedPublish(t *testing.T) {
	key := sshsigtest.NewKey(t, "ed25519", 0)
	stranger := sshsigtest.NewKey(t, "ecdsa", 384)
	allowed := key.AllowedSigners(t, "release@example.com")
	first := testutil.TempTree(t, map[string][]byte{"one/SKILL.md": []byte("---\nname: one\ndescription: Signed first.\n---\n")})
	second := testutil.TempTree(t, map[string][]byte{"two/SKILL.md": []byte("---\nname: two\ndescription: Published second.\n---\n")})
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			r := st.start(t)
			r.createBucket(t, "signed")
			url := r.url("signed", "team/")
			cli := func(args ...string) (string, error) {
				cmd := exec.Command(binary, args...)
				cmd.Env = append(os.Environ(), r.env...)
				out, err := cmd.CombinedOutput()
				for _, s := range append(r.secrets, allowed, key.Path) {
					if strings.Contains(string(out), s) {
						t.Errorf("output carries a credential or a host path: %s", out)
					}
				}
				return string(out), err
			}
			trusted := url + "&trusted-signers=" + allowed
			if !strings.Contains(url, "?") {
				trusted = url + "?trusted-signers=" + allowed
			}
			steps := []struct {
				name, dir string
				sign      string // key file, "" for none
				listed    string // what a trusted list shows, "" for a refusal
				refusal   string
			}{
				{"signed", first, key.Path, "one", ""},
				{"unsigned", second, "", "", "is not signed"},
				{"unknown signer", second, stranger.Path, "", "not among the trusted signers"},
				{"signed again", second, key.Path, "two", ""},
			}
			for _, step := range steps {
				args := []string{"publish", "--quiet", step.dir, url}
				if step.sign != "" {
					args = append([]string{"publish", "--quiet", "--sign", step.sign}, args[2:]...)
				}
				if out, err := cli(args...); err != nil {
					t.Fatalf("%s: publish: %v\n%s", step.name, err, out)
				}
				out, err := cli("list", "-s", trusted)
				if step.listed != "" {
					if err != nil || !strings.Contains(out, step.listed) {
						t.Errorf("%s: list: %v\n%s", step.name, err, out)
					}
					continue
				}
				if err == nil || !strings.Contains(out, step.refusal) || strings.Contains(out, "one") || strings.Contains(out, "two ") {
					t.Errorf("%s: list through the policy: %v\n%s", step.name, err, out)
				}
			}
			ran(t, st.name+" publish")
		})
	}
}
