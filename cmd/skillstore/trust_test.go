package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/skillstore/skillstore/internal/gittest"
	"github.com/skillstore/skillstore/internal/sshsig/sshsigtest"
	"github.com/skillstore/skillstore/internal/testutil"
)

// TestTrustedSignersServe: a replica with --trusted-signers serves a
// snapshot published with --sign, keeps serving it when an unsigned one
// is published over it (/readyz degraded, the metric names the reason),
// and moves on when a signed one comes; the per-source URL option works
// the same; start-up refuses a bad trust file and a source that cannot be
// verified, naming no host path.
func TestTrustedSignersServe(t *testing.T) {
	key := sshsigtest.NewKey(t, "ed25519", 0)
	allowed := key.AllowedSigners(t, "publisher@example.com")
	skills := writeFixture(t, map[string][]byte{
		"one/SKILL.md": []byte("---\nname: one\ndescription: The first skill.\n---\n# One\n"),
	})
	out := t.TempDir()
	publish := func(extra ...string) {
		t.Helper()
		args := append([]string{"publish", "--quiet", "--grace", "0"}, extra...)
		if _, stderr, code := run(t, nil, append(args, skills, "file://"+out)...); code != 0 {
			t.Fatalf("publish %v: exit %d\n%s", extra, code, stderr)
		}
	}
	publish("--sign", key.Path)

	for _, source := range []struct{ name, flag, trust string }{
		{"flag", out, allowed},
		{"URL option", "file://" + out + "?trusted-signers=" + allowed, ""},
	} {
		t.Run(source.name, func(t *testing.T) {
			args := []string{"serve", "--http", "127.0.0.1:0", "--stateless", "--refresh", "100ms", "-s", source.flag}
			if source.trust != "" {
				args = append(args, "--trusted-signers", source.trust)
			}
			cmd := exec.Command(binary, args...)
			var errb testutil.SyncBuffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			mcpURL := testutil.WaitForMCPURL(t, &errb)
			base := strings.TrimSuffix(mcpURL, "/mcp")
			waitReady(t, base, "ready", 1)
			// The answer says who signed what it serves.
			got := callTool(t, mcpURL, `{"name":"get_skill","arguments":{"skill_name":"one"}}`)
			want := `"signer":{"fingerprint":"` + ssh.FingerprintSHA256(key.Pub) + `","principal":"publisher@example.com","kind":"ssh"}`
			if !strings.Contains(got, want) || !strings.Contains(got, `"io.github.skillstore/provenance"`) {
				t.Errorf("get_skill's provenance does not name the signer %s:\n%s", want, got)
			}

			if err := os.WriteFile(filepath.Join(skills, "one", "SKILL.md"), []byte("---\nname: one\ndescription: Changed, unsigned.\n---\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(skills, "two"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(skills, "two", "SKILL.md"), []byte("---\nname: two\ndescription: The second.\n---\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			publish() // unsigned
			ready := waitReady(t, base, "degraded", 1)
			if !strings.Contains(ready["reason"].(string), "failed signature verification") {
				t.Errorf("/readyz reason %q does not say why", ready["reason"])
			}
			metrics := string(testutil.Get(t, base+"/metrics"))
			if !strings.Contains(metrics, `skillstore_source_unverified{source="project",reason="unsigned"} 1`) {
				t.Errorf("/metrics has no unverified gauge for the source:\n%s", grepLines(metrics, "unverified"))
			}
			if n := strings.Count(errb.String(), "refused by the signer policy"); n != 1 {
				t.Errorf("the refusal was logged %d times, want once:\n%s", n, errb.String())
			}
			for _, secret := range []string{allowed, filepath.Dir(allowed), key.Path} {
				if strings.Contains(errb.String(), secret) {
					t.Errorf("the log names a host path %q", secret)
				}
			}

			publish("--sign", key.Path)
			waitReady(t, base, "ready", 2)
			os.RemoveAll(filepath.Join(skills, "two"))
			publish("--sign", key.Path)
		})
	}

	bad := filepath.Join(t.TempDir(), "allowed_signers")
	if err := os.WriteFile(bad, []byte("# team keys\nalice ssh-rsa AAAA-not-base64\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"bad trust file", []string{"list", "-s", out, "--trusted-signers", bad}, "trusted signers allowed_signers: line 2: no readable public key"},
		{"missing trust file", []string{"list", "-s", out, "--trusted-signers", bad + ".missing"}, "trusted signers allowed_signers.missing:"},
		{"plain folder", []string{"list", "-s", skills, "--trusted-signers", allowed}, "cannot be verified: trusted signers apply to published snapshots"},
		{"option twice", []string{"list", "-s", "file://" + out + "?trusted-signers=a&trusted-signers=b"}, "give trusted-signers=FILE once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := run(t, nil, tc.args...)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want failure saying %q", code, stderr, tc.want)
			}
			if strings.Contains(stderr, filepath.Dir(bad)) || strings.Contains(stderr, filepath.Dir(allowed)) {
				t.Errorf("the error names a host path: %q", stderr)
			}
		})
	}
}

// waitReady polls /readyz until its status is status with skills served,
// and returns its answer; it fails the test after 20 seconds.
func waitReady(t *testing.T, base, status string, skills int) map[string]any {
	t.Helper()
	var last map[string]any
	if !testutil.Within(20*time.Second, func() bool {
		last = nil
		return json.Unmarshal(testutil.Get(t, base+"/readyz"), &last) == nil && last["status"] == status && last["skills"] == float64(skills)
	}) {
		t.Fatalf("/readyz never said %s with %d skills; last: %v", status, skills, last)
	}
	return last
}

func grepLines(s, word string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, word) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestTrustedSignersGit: --trusted-signers applies to git sources too
// (as their verify= option, which a source's own overrides): an unsigned
// head is not listed, a commit signed by a listed key is, with its
// principal; the trust file's path never shows.
func TestTrustedSignersGit(t *testing.T) {
	s := gittest.NewServer(t)
	alice := gittest.NewSSHKey(t, "ed25519", 0)
	allowed := filepath.Join(t.TempDir(), "allowed_signers")
	if err := os.WriteFile(allowed, []byte("alice@example.com "+alice.Line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := s.Repo(t, "org/skills")
	doc := []byte("---\nname: weather\ndescription: Forecasts.\n---\n# Weather\n")
	r.Commit("main", map[string][]byte{"skills/weather/SKILL.md": doc})
	src := r.URL + "?path=skills/"
	out, errOut, code := run(t, nil, "list", "--trusted-signers", allowed, "--source", src)
	if code == 0 || strings.Contains(out, "weather") || !strings.Contains(errOut, "not served") {
		t.Errorf("unsigned head: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(errOut, filepath.Dir(allowed)) {
		t.Errorf("the error names the trust file's folder: %s", errOut)
	}
	sha := r.CommitSigned("main", alice.Signing(), map[string][]byte{"skills/weather/SKILL.md": doc})
	out, errOut, code = run(t, nil, "list", "--trusted-signers", allowed, "--source", src)
	if code != 0 || out != "NAME     SOURCE            DESCRIPTION\nweather  org@"+sha[:12]+"  Forecasts.\n" {
		t.Errorf("signed head: exit %d\n%s%s", code, out, errOut)
	}
}

// TestTrustedSignersGitReload: a git source under --trusted-signers
// follows the file as it is edited, as a published snapshot does: once a
// key is removed, the commit it signed stops being served at the next
// refresh (the source reported degraded, logged once saying why), a new
// commit it signs is refused, and a commit by a key still listed is
// served.
func TestTrustedSignersGitReload(t *testing.T) {
	s := gittest.NewServer(t)
	alice := gittest.NewSSHKey(t, "ed25519", 0)
	bob := gittest.NewSSHKey(t, "ed25519", 0)
	allowed := filepath.Join(t.TempDir(), "allowed_signers")
	write := func(lines string) {
		t.Helper()
		if err := os.WriteFile(allowed, []byte(lines), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("alice@example.com " + alice.Line + "\nbob@example.com " + bob.Line + "\n")
	doc := func(name, desc string) map[string][]byte {
		return map[string][]byte{name + "/SKILL.md": []byte("---\nname: " + name + "\ndescription: " + desc + "\n---\n")}
	}
	byAlice, byBob := s.Repo(t, "alice"), s.Repo(t, "bob")
	byAlice.CommitSigned("main", alice.Signing(), doc("one", "Alice's."))
	byBob.CommitSigned("main", bob.Signing(), doc("two", "Bob's."))

	mcpURL, errb := startServe(t, "--stateless", "--refresh", "100ms",
		"--trusted-signers", allowed, "-s", byAlice.URL, "-s", byBob.URL)
	base := strings.TrimSuffix(mcpURL, "/mcp")
	waitReady(t, base, "ready", 2)
	// refreshes waits for a few more refreshes of the two sources: each
	// asks the git server at least once.
	refreshes := func() {
		t.Helper()
		from := s.Requests.Load()
		testutil.Eventually(t, "10 more requests to the git server", func() bool { return s.Requests.Load() >= from+10 })
	}

	write("bob@example.com " + bob.Line + "\n") // alice's key removed
	waitReady(t, base, "degraded", 1)
	if metrics := string(testutil.Get(t, base+"/metrics")); !strings.Contains(metrics, `reason="unknown-signer"} 1`) {
		t.Errorf("/metrics has no unverified gauge for the source:\n%s", grepLines(metrics, "unverified"))
	}
	refreshes() // on the same commit
	if n := strings.Count(errb.String(), "no longer trusted"); n != 1 || !strings.Contains(errb.String(), "the signing key is not among the trusted signers") {
		t.Errorf("the commit no longer trusted was logged %d times, want once saying why:\n%s", n, errb.String())
	}
	byAlice.CommitSigned("main", alice.Signing(), doc("one", "Alice's, again."))
	refreshes()
	waitReady(t, base, "degraded", 1)
	byAlice.CommitSigned("main", bob.Signing(), doc("one", "Bob's now."))
	waitReady(t, base, "ready", 2)
	if strings.Contains(errb.String(), filepath.Dir(allowed)) {
		t.Errorf("the log names the trust file's folder:\n%s", errb.String())
	}
}

// callTool posts one stateless tools/call to mcpURL and returns the body.
func callTool(t *testing.T, mcpURL, params string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, mcpURL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+params+`}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	_, body := testutil.Do(t, req)
	return string(body)
}

// TestTrustedSignersReload: a reloaded --trusted-signers file applies at
// once, whatever --refresh says: removing the key that signed the
// snapshot served, emptying the file or commenting out its only key stops
// serving it (/readyz degraded with no skill, saying why; the log says
// so at ERROR), and listing the key again serves it again. A file that lists no
// key at start is a list that trusts nothing, said at ERROR, not a
// failure to start.
func TestTrustedSignersReload(t *testing.T) {
	key := sshsigtest.NewKey(t, "ed25519", 0)
	other := sshsigtest.NewKey(t, "ed25519", 0)
	skills := writeFixture(t, map[string][]byte{
		"one/SKILL.md": []byte("---\nname: one\ndescription: The first skill.\n---\n# One\n"),
	})
	out := t.TempDir()
	if _, stderr, code := run(t, nil, "publish", "--quiet", "--sign", key.Path, skills, "file://"+out); code != 0 {
		t.Fatalf("publish: exit %d\n%s", code, stderr)
	}
	allowed := filepath.Join(t.TempDir(), "allowed_signers")
	good := "publisher@example.com " + key.Line + "\n"
	write := func(content string) {
		t.Helper()
		// Replaced by a rename, as editors and configuration tools do.
		if err := os.WriteFile(allowed+".new", []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(allowed+".new", allowed); err != nil {
			t.Fatal(err)
		}
	}
	// unserved waits for /readyz to say degraded, with no skill served,
	// and why.
	unserved := func(t *testing.T, base string) {
		t.Helper()
		ready := waitReady(t, base, "degraded", 0)
		if !strings.Contains(ready["reason"].(string), "no longer trusted since the trusted signers were reloaded") {
			t.Errorf("/readyz reason %q does not say why", ready["reason"])
		}
	}
	for _, tc := range []struct {
		name, revoked string
		empty         bool // the list names no key
	}{
		{"the key removed", "ci@example.com " + other.Line + "\n", false},
		{"the file emptied", "", true},
		{"the only key commented out", "# publisher@example.com " + key.Line + "\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(good)
			mcpURL, errb := startServe(t, "--stateless", "--refresh", "1h", "-s", out, "--trusted-signers", allowed)
			base := strings.TrimSuffix(mcpURL, "/mcp")
			waitReady(t, base, "ready", 1)
			write(tc.revoked)
			unserved(t, base)
			if !strings.Contains(errb.String(), `level=ERROR msg="the snapshot served is no longer trusted`) {
				t.Errorf("the revocation is not logged at ERROR:\n%s", errb.String())
			}
			if tc.empty && !strings.Contains(errb.String(), `level=ERROR msg="the trusted signers list no key`) {
				t.Errorf("the empty list is not logged at ERROR:\n%s", errb.String())
			}
			write(good)
			waitReady(t, base, "ready", 1)
		})
	}

	t.Run("empty at start", func(t *testing.T) {
		write("# nobody yet\n")
		mcpURL, errb := startServe(t, "--stateless", "-s", out, "--trusted-signers", allowed)
		base := strings.TrimSuffix(mcpURL, "/mcp")
		testutil.Eventually(t, "/readyz unavailable", func() bool {
			resp, err := http.Get(base + "/readyz")
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusServiceUnavailable
		})
		if !strings.Contains(errb.String(), `level=ERROR msg="the trusted signers list no key`) {
			t.Errorf("the empty list is not logged at ERROR:\n%s", errb.String())
		}
	})
}
