package gitfs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/backends/gitfs"
	"github.com/skillstore/skillstore/internal/gittest"
	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

// refusedLog is the start of the log line of a commit the policy refuses.
const refusedLog = "the git source's new commit failed signature verification"

// TestVerified: git sources with a signer policy (verify=) against the
// real git server, with commits and tags signed by the real git (SSH
// keys from ssh-keygen, OpenPGP keys from gpg), and objects forged or
// signed by hand where git would not make them. Each case pushes what
// the source first sees and, for some, a commit pushed on top that the
// source refreshes to twice; it checks what is served and with which
// signer, the refusal's reason and text (the VerifyError) and that it
// is logged once, and that the trust files' folder is named nowhere.
func TestVerified(t *testing.T) {
	s := gittest.NewServer(t)
	alice := gittest.NewSSHKey(t, "ed25519", 0)
	mallory := gittest.NewSSHKey(t, "ed25519", 0)
	weakSSH := gittest.NewSSHKey(t, "rsa", 1024)
	carol := gittest.NewGPGKey(t, "Carol <carol@example.com>", "ed25519")
	dave := gittest.NewGPGKey(t, "Dave <dave@example.com>", "rsa3072") // not trusted
	weakPGP := gittest.NewGPGKey(t, "Weak <weak@example.com>", "rsa1024")
	trust := t.TempDir() // its path must appear in no error, location or log
	file := func(name, content string) string {
		p := filepath.Join(trust, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	allowed := file("allowed_signers", "# the team\nalice@example.com namespaces=\"git\" "+alice.Line+"\n")
	keyring := file("keyring.asc", string(carol.Armored))
	twoBlocks := file("two.asc", string(dave.Armored)+string(carol.Armored)) // dave's is not trusted elsewhere
	expired := file("expired_signers", `alice@example.com valid-before="20000101Z" `+alice.Line+"\n")
	retired := file("retired_signers", `alice@example.com valid-after="20250101Z",valid-before="20260101Z" `+alice.Line+"\n")
	future := file("future_signers", `alice@example.com valid-after="20990101Z" `+alice.Line+"\n")
	current := file("current_signers", `alice@example.com valid-after="20200101Z",valid-before="20990101Z" `+alice.Line+"\n")
	badLine := file("bad_signers", "alice@example.com "+alice.Line+"\n\nbob@example.com\n")
	weakLine := file("weak_signers", "w@example.com "+weakSSH.Line+"\n")
	weakRing := file("weak.asc", string(weakPGP.Armored))
	unreadable := file("unreadable.asc", string(carol.Armored)+bareKey(t, dave.Armored)) // dave's key without its user ID
	aliceSigner := store.Signer{Kind: "ssh", Fingerprint: alice.Fingerprint, Principal: "alice@example.com"}
	carolSigner := store.Signer{Kind: "openpgp", Fingerprint: carol.Fingerprint, Principal: "Carol <carol@example.com>"}
	doc := map[string][]byte{"a/SKILL.md": skill("a", "Signed.")}
	next := map[string][]byte{"a/SKILL.md": skill("a", "Next.")}

	// handSigned writes a commit of the working copy's tree, on top of its
	// HEAD, whose gpgsig header is sign's signature of its content.
	handSigned := func(r *gittest.Repo, sign func(payload []byte) []byte) string {
		unsigned := r.Git(r.Work, "commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "by hand")
		payload := r.Raw("commit", unsigned)
		return r.Object("commit", gittest.WithSignature(payload, sign(payload)))
	}
	// forged changes the message of a signed commit, keeping its signature.
	forged := func(r *gittest.Repo, signed string) string {
		raw := r.Raw("commit", signed)
		return r.Object("commit", bytes.Replace(raw, []byte("\nchange\n"), []byte("\nchanged\n"), 1))
	}
	constSig := func(sig string) func([]byte) []byte { return func([]byte) []byte { return []byte(sig) } }
	armored := func(lines int) string {
		return "-----BEGIN SSH SIGNATURE-----\n" + strings.Repeat(strings.Repeat("A", 69)+"\n", lines) + "-----END SSH SIGNATURE-----"
	}
	large, huge := armored(300), armored(16<<10) // 21 KiB, 1.1 MiB

	for _, tc := range []verifyCase{
		{name: "ssh-commit", verify: []string{allowed}, signer: aliceSigner,
			first: func(r *gittest.Repo) (string, string) { return r.CommitSigned("main", alice.Signing(), doc), "" }},
		{name: "openpgp-commit", verify: []string{keyring}, signer: carolSigner,
			first: func(r *gittest.Repo) (string, string) { return r.CommitSigned("main", carol.Signing(), doc), "" }},
		{name: "keyring-of-two-blocks", verify: []string{twoBlocks}, signer: carolSigner,
			first: func(r *gittest.Repo) (string, string) { return r.CommitSigned("main", carol.Signing(), doc), "" }},
		{name: "both-kinds-openpgp-commit", verify: []string{allowed, keyring}, signer: carolSigner,
			first: func(r *gittest.Repo) (string, string) { return r.CommitSigned("main", carol.Signing(), doc), "" }},
		{name: "ssh-tag-over-unsigned-commit", verify: []string{allowed}, ref: "v1", signer: aliceSigner,
			first: func(r *gittest.Repo) (string, string) {
				c := r.Commit("main", doc)
				r.Tag("v1", c, new(alice.Signing()))
				return c, ""
			}},
		{name: "openpgp-tag-over-unsigned-commit", verify: []string{keyring}, ref: "v1", signer: carolSigner,
			first: func(r *gittest.Repo) (string, string) {
				c := r.Commit("main", doc)
				r.Tag("v1", c, new(carol.Signing()))
				return c, ""
			}},
		{name: "unsigned-tag-over-ssh-commit", verify: []string{allowed}, ref: "v1", signer: aliceSigner,
			first: func(r *gittest.Repo) (string, string) {
				c := r.CommitSigned("main", alice.Signing(), doc)
				r.Tag("v1", c, nil)
				return c, ""
			}},
		// A tag counts only under its own name: refs/tags/v2 pointing at
		// the signed tag object v1 is refused, whatever is signed.
		{name: "tag-reached-by-another-name", verify: []string{allowed}, ref: "v2", reason: "replayed",
			why: `the ref "v2" leads to a tag object named "v1", not "v2" (a tag reached by another name); make "v2" a tag of its own (git tag -s)`,
			first: func(r *gittest.Repo) (string, string) {
				c := r.Commit("main", doc)
				renameTag(r, r.Tag("v1", c, new(alice.Signing())), "v2")
				return "", c
			}},
		{name: "tag-reached-by-another-name-over-signed-commit", verify: []string{allowed}, ref: "v2", reason: "replayed",
			why: `the ref "v2" leads to a tag object named "v1", not "v2" (a tag reached by another name); make "v2" a tag of its own (git tag -s)`,
			first: func(r *gittest.Repo) (string, string) {
				c := r.CommitSigned("main", alice.Signing(), doc)
				renameTag(r, r.Tag("v1", c, new(alice.Signing())), "v2")
				return "", c
			}},
		{name: "unsigned-cold", verify: []string{allowed, keyring}, reason: "unsigned", why: "it is not signed",
			first: func(r *gittest.Repo) (string, string) { return "", r.Commit("main", doc) }},
		{name: "unsigned-on-top", verify: []string{allowed}, signer: aliceSigner, reason: "unsigned", why: "it is not signed",
			first: func(r *gittest.Repo) (string, string) { return r.CommitSigned("main", alice.Signing(), doc), "" },
			then:  func(r *gittest.Repo) string { return r.Commit("main", next) }},
		{name: "unsigned-tag-over-unsigned-commit", verify: []string{allowed}, ref: "v1", reason: "unsigned", why: `neither it nor its tag "v1" is signed`,
			first: func(r *gittest.Repo) (string, string) {
				c := r.Commit("main", doc)
				r.Tag("v1", c, nil)
				return "", c
			}},
		{name: "sha-counts-its-own-signature", verify: []string{allowed}, reason: "unsigned", why: "it is not signed",
			first: func(r *gittest.Repo) (string, string) {
				c := r.Commit("main", doc)
				r.Tag("v1", c, new(alice.Signing()))
				return "", c
			}},
		{name: "unknown-ssh-signer-on-top", verify: []string{allowed, keyring}, signer: aliceSigner, reason: "unknown-signer",
			why:   "the signing key is not among the trusted signers: ssh-ed25519 key " + mallory.Fingerprint,
			first: func(r *gittest.Repo) (string, string) { return r.CommitSigned("main", alice.Signing(), doc), "" },
			then:  func(r *gittest.Repo) string { return r.CommitSigned("main", mallory.Signing(), next) }},
		{name: "tag-by-unknown-signer-over-unsigned-commit", verify: []string{allowed}, ref: "v1", reason: "unknown-signer",
			why: `its tag "v1": the signing key is not among the trusted signers: ssh-ed25519 key ` + mallory.Fingerprint,
			first: func(r *gittest.Repo) (string, string) {
				c := r.Commit("main", doc)
				r.Tag("v1", c, new(mallory.Signing()))
				return "", c
			}},
		{name: "unknown-openpgp-signer-on-top", verify: []string{keyring}, signer: carolSigner, reason: "unknown-signer",
			why:   "the signing key is not in the OpenPGP keyring: OpenPGP key " + dave.Fingerprint,
			first: func(r *gittest.Repo) (string, string) { return r.CommitSigned("main", carol.Signing(), doc), "" },
			then:  func(r *gittest.Repo) string { return r.CommitSigned("main", dave.Signing(), next) }},
		{name: "openpgp-signed-without-keyring", verify: []string{allowed}, reason: "unknown-signer",
			why:   "it is signed by the OpenPGP key " + carol.Fingerprint + ", and no OpenPGP keyring is given",
			first: func(r *gittest.Repo) (string, string) { return "", r.CommitSigned("main", carol.Signing(), doc) }},
		{name: "ssh-signed-without-allowed-signers", verify: []string{keyring}, reason: "unknown-signer",
			why:   "it is signed by the SSH key ssh-ed25519 " + alice.Fingerprint + ", and no allowed-signers file is given",
			first: func(r *gittest.Repo) (string, string) { return "", r.CommitSigned("main", alice.Signing(), doc) }},
		{name: "key-expired", verify: []string{expired}, reason: "unknown-signer",
			why:   "the signing key is not among the trusted signers: ssh-ed25519 key " + alice.Fingerprint,
			first: func(r *gittest.Repo) (string, string) { return "", r.CommitSigned("main", alice.Signing(), doc) }},
		// valid-after and valid-before hold against the clock, not the
		// commit's time, which its signer wrote.
		{name: "retired-key-backdated-commit", verify: []string{retired}, reason: "unknown-signer",
			why: "the signing key is not among the trusted signers: ssh-ed25519 key " + alice.Fingerprint,
			first: func(r *gittest.Repo) (string, string) {
				return "", r.CommitSigned("main", dated(alice.Signing(), "2025-06-01"), doc)
			}},
		{name: "future-key-forward-dated-commit", verify: []string{future}, reason: "unknown-signer",
			why: "the signing key is not among the trusted signers: ssh-ed25519 key " + alice.Fingerprint,
			first: func(r *gittest.Repo) (string, string) {
				return "", r.CommitSigned("main", dated(alice.Signing(), "2099-06-01"), doc)
			}},
		{name: "retired-key-backdated-tag", verify: []string{retired}, ref: "v1", reason: "unknown-signer",
			why: `its tag "v1": the signing key is not among the trusted signers: ssh-ed25519 key ` + alice.Fingerprint,
			first: func(r *gittest.Repo) (string, string) {
				c := r.Commit("main", doc)
				r.Tag("v1", c, new(dated(alice.Signing(), "2025-06-01")))
				return "", c
			}},
		{name: "valid-key-commit-dated-before-it", verify: []string{current}, signer: aliceSigner,
			first: func(r *gittest.Repo) (string, string) {
				return r.CommitSigned("main", dated(alice.Signing(), "2019-06-01"), doc), ""
			}},
		{name: "another-namespace-on-top", verify: []string{allowed}, signer: aliceSigner, reason: "bad-signature",
			why:   `the signature was made for another purpose (namespace): it is for "file", not "git"`,
			first: func(r *gittest.Repo) (string, string) { return r.CommitSigned("main", alice.Signing(), doc), "" },
			then: func(r *gittest.Repo) string {
				c := handSigned(r, func(p []byte) []byte { return alice.Sign(t, "file", p) })
				r.Push("main", c)
				return c
			}},
		{name: "hand-signed-in-git-namespace", verify: []string{allowed}, signer: aliceSigner,
			first: func(r *gittest.Repo) (string, string) {
				r.Commit("main", doc)
				c := handSigned(r, func(p []byte) []byte { return alice.Sign(t, "git", p) })
				r.Push("main", c)
				return c, ""
			}},
		{name: "forged-ssh-on-top", verify: []string{allowed}, signer: aliceSigner, reason: "bad-signature",
			why:   "the signature does not match the signed content",
			first: func(r *gittest.Repo) (string, string) { return r.CommitSigned("main", alice.Signing(), doc), "" },
			then: func(r *gittest.Repo) string {
				c := forged(r, r.CommitSigned("other", alice.Signing(), next))
				r.Push("main", c)
				return c
			}},
		{name: "forged-openpgp", verify: []string{keyring}, reason: "bad-signature", why: "the signature does not match the signed content",
			first: func(r *gittest.Repo) (string, string) {
				c := forged(r, r.CommitSigned("other", carol.Signing(), doc))
				r.Push("main", c)
				return "", c
			}},
		{name: "signature-over-its-bound", verify: []string{allowed}, reason: "malformed",
			why: fmt.Sprintf("its signature is %d bytes; the limit is 16384", len(large)+1), // go-git ends it with a newline
			first: func(r *gittest.Repo) (string, string) {
				r.Commit("main", doc)
				c := handSigned(r, constSig(large))
				r.Push("main", c)
				return "", c
			}},
		{name: "headers-over-their-bound", verify: []string{allowed}, signer: aliceSigner, reason: "malformed",
			why:   "its headers (signature, merged tags) are over 65536 bytes or 1024 lines, the limits",
			first: func(r *gittest.Repo) (string, string) { return r.CommitSigned("main", alice.Signing(), doc), "" },
			then: func(r *gittest.Repo) string {
				c := handSigned(r, constSig(huge))
				r.Push("main", c)
				return c
			}},
		{name: "empty-ssh-signature", verify: []string{allowed}, reason: "malformed",
			why: "not an SSH signature (SSHSIG): its body is truncated or of another format",
			first: func(r *gittest.Repo) (string, string) {
				r.Commit("main", doc)
				c := handSigned(r, constSig("-----BEGIN SSH SIGNATURE-----\n-----END SSH SIGNATURE-----"))
				r.Push("main", c)
				return "", c
			}},
		{name: "x509-signature", verify: []string{allowed, keyring}, reason: "malformed",
			why: `its signature is neither an SSH nor an OpenPGP signature (it begins "-----BEGIN SIGNED MESSAGE-----")`,
			first: func(r *gittest.Repo) (string, string) {
				r.Commit("main", doc)
				c := handSigned(r, constSig("-----BEGIN SIGNED MESSAGE-----\nMIIB\n-----END SIGNED MESSAGE-----"))
				r.Push("main", c)
				return "", c
			}},
		{name: "trust-file-bad-line", verify: []string{badLine},
			openFail: "the allowed-signers file: line 3: a principal is followed by no key; write: principals [options] keytype base64-key"},
		{name: "trust-file-weak-ssh-key", verify: []string{weakLine},
			openFail: "the allowed-signers file: line 1: unsupported or weak key type: a 1024-bit RSA key is weak; use Ed25519, ECDSA or RSA of at least 2048 bits"},
		{name: "trust-file-weak-openpgp-key", verify: []string{weakRing},
			openFail: "the OpenPGP keyring: key " + weakPGP.Fingerprint + " (Weak <weak@example.com>): unsupported or weak key type: a 1024-bit RSA key is weak; use Ed25519, ECDSA or RSA of at least 2048 bits"},
		{name: "trust-file-key-unreadable", verify: []string{unreadable},
			openFail: "the OpenPGP keyring: 1 of its 2 keys cannot be read (unsupported algorithm or damaged)"},
		{name: "trust-files-two-allowed-signers", verify: []string{allowed, expired},
			openFail: "two allowed-signers files are given; give at most one allowed-signers file and one OpenPGP keyring"},
		{name: "trust-file-missing", verify: []string{allowed, filepath.Join(trust, "nothing")},
			openFail: "trust file 2 of 2 does not exist"},
		{name: "trust-file-folder", verify: []string{trust},
			openFail: "the trust file cannot be read (is it a folder?)"},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, s, trust) })
	}
}

// dated is sign with the commit's or tag's time set to day (YYYY-MM-DD),
// as its signer may write any.
func dated(sign gittest.Signing, day string) gittest.Signing {
	sign.Env = append(slices.Clip(sign.Env), "GIT_COMMITTER_DATE="+day+"T12:00:00Z")
	return sign
}

// renameTag points refs/tags/name at the tag object tag (as git tag
// name tag does) and pushes it.
func renameTag(r *gittest.Repo, tag, name string) {
	r.Git(r.Work, "update-ref", "refs/tags/"+name, tag)
	r.Git(r.Work, "push", "--quiet", "--force", r.Bare, "refs/tags/"+name)
}

// verifyCase is a case of TestVerified.
type verifyCase struct {
	name   string
	verify []string // the trust files
	ref    string
	// first pushes what the source first sees; it returns the commit
	// served ("" for none) and the one refused ("" for none).
	first func(r *gittest.Repo) (served, refused string)
	// then, if set, pushes a commit on top, which is refused.
	then     func(r *gittest.Repo) string
	signer   store.Signer
	reason   string // the VerifyError's; "" when nothing is refused
	why      string // its text after "commit SHA is not served: "
	openFail string // Open's error after "verify= is refused: "
}

// run runs the case against a repository of its own on s; trust is the
// folder of the trust files.
func (tc verifyCase) run(t *testing.T, s *gittest.Server, trust string) {
	r := s.Repo(t, tc.name)
	var served, refused string
	if tc.first != nil {
		served, refused = tc.first(r)
	}
	q := url.Values{"verify": tc.verify}
	shown := r.URL
	if tc.ref != "" {
		q.Set("ref", tc.ref)
		shown += "?ref=" + tc.ref
	}
	logger, logs := testutil.TextLog()
	g, err := gitfs.Open(r.URL+"?"+q.Encode(), gitfs.Options{Logger: logger})
	if tc.openFail != "" {
		if want := "git source " + shown + ": verify= is refused: " + tc.openFail; err == nil || err.Error() != want {
			t.Fatalf("Open: %v\nwant: %s", err, want)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if g.Location() != shown {
		t.Errorf("location %s, want %s", g.Location(), shown)
	}
	snap, err := g.Snapshot(ctx)
	if tc.then != nil {
		if err != nil {
			t.Fatalf("the first commit: %v", err)
		}
		refused = tc.then(r)
		err = g.Refresh(ctx)
		snap, _ = g.Snapshot(ctx)
	}
	if err != nil { // refused: refreshing again on it says so again, and logs nothing
		if again := g.Refresh(ctx); fmt.Sprint(again) != err.Error() {
			t.Errorf("a second refresh on the refused commit: %v; want %v", again, err)
		}
	}
	checkRefusal(t, err, tc.reason, "git source "+shown+": commit "+refused[:min(12, len(refused))]+" is not served: "+tc.why)
	if n := strings.Count(logs.String(), refusedLog); tc.reason != "" && n != 1 || tc.reason == "" && n != 0 {
		t.Errorf("%d log lines of a refusal:\n%s", n, logs)
	}
	if g.Revision() != served {
		t.Errorf("serves %q, want %q", g.Revision(), served)
	} else if served != "" {
		checkSigned(t, snap, tc.signer)
	}
	for what, text := range map[string]string{"error": fmt.Sprint(err), "log": logs.String(), "location": g.Location()} {
		if strings.Contains(text, trust) {
			t.Errorf("the %s names the trust files' folder: %s", what, text)
		}
	}
}

// checkRefusal checks that err is a *store.VerifyError of reason with
// text want, shown to callers without the source's URL; or nil when
// reason is "".
func checkRefusal(t *testing.T, err error, reason, want string) {
	t.Helper()
	if reason == "" {
		if err != nil {
			t.Errorf("refused: %v", err)
		}
		return
	}
	var verr *store.VerifyError
	if !errors.As(err, &verr) || verr.Reason != reason || err.Error() != want {
		t.Errorf("error %v (%T)\nwant %s: %s", err, err, reason, want)
		return
	}
	var pub store.PublicError
	if !errors.As(err, &pub) || !strings.HasPrefix(pub.Public(), "the git source: commit ") {
		t.Errorf("%v is not a public error", err)
	}
}

// checkSigned checks that snap is a store.SignedFS naming signer, and
// serves the skill.
func checkSigned(t *testing.T, snap any, signer store.Signer) {
	t.Helper()
	sf, ok := snap.(store.SignedFS)
	if !ok {
		t.Fatalf("the snapshot %T is not a store.SignedFS", snap)
	}
	got, ok := sf.Signer()
	if diff := cmp.Diff(signer, got); !ok || diff != "" {
		t.Errorf("signer (%v), -want +got:\n%s", ok, diff)
	}
	if _, err := sf.Open("a/SKILL.md"); err != nil {
		t.Errorf("the skill: %v", err)
	}
}

// TestVerifiedStore: a store over a git source opened through
// a store with a policy given in Options (as a program that opens its
// git sources itself gives it): an unsigned commit cold
// serves nothing and the source is reported failing with the
// VerifyError; once a signed commit is pushed a refresh serves it; an
// unsigned commit pushed on top leaves it served. A source's own verify=
// replaces the policy given for all.
func TestVerifiedStore(t *testing.T) {
	s := gittest.NewServer(t)
	alice := gittest.NewSSHKey(t, "ed25519", 0)
	bob := gittest.NewSSHKey(t, "ed25519", 0)
	dir := t.TempDir()
	forAll, own := filepath.Join(dir, "all"), filepath.Join(dir, "own")
	os.WriteFile(forAll, []byte("alice@example.com "+alice.Line+"\n"), 0o600)
	os.WriteFile(own, []byte("bob@example.com "+bob.Line+"\n"), 0o600)
	v, err := gitfs.LoadVerifier(forAll)
	if err != nil {
		t.Fatal(err)
	}
	logger, logs := testutil.TextLog()
	open := func(url string) (store.Source, error) {
		g, err := gitfs.Open(url, gitfs.Options{Verify: v, Logger: logger})
		if err != nil {
			return store.Source{}, err
		}
		return store.Source{Location: g.Location(), Kind: "git", FS: g}, nil
	}

	r := s.Repo(t, "team")
	unsigned := r.Commit("main", map[string][]byte{"a/SKILL.md": skill("a", "Unsigned.")})
	ctx := context.Background()
	src, err := open(r.URL)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.New([]store.Source{src}, store.Options{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	list, err := st.View(nil).List(ctx) // its one source serves nothing: an error
	failing := st.Failing()
	var verr *store.VerifyError
	if !errors.Is(err, store.ErrUnavailable) || !errors.As(err, &verr) || len(list) != 0 ||
		len(failing) != 1 || !errors.As(failing[0].Err, &verr) || verr.Reason != "unsigned" {
		t.Fatalf("cold on %s: %v, %d skills, failing %v", unsigned[:12], err, len(list), failing)
	}
	signed := r.CommitSigned("main", alice.Signing(), map[string][]byte{"a/SKILL.md": skill("a", "Signed.")})
	if _, err := st.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if sk, err := st.View(nil).Skill(ctx, "a"); err != nil || sk.Revision() != signed || sk.Description != "Signed." || len(st.Failing()) != 0 {
		t.Fatalf("after a signed push: %v, %+v, failing %v", err, sk, st.Failing())
	}
	r.Commit("main", map[string][]byte{"a/SKILL.md": skill("a", "Unsigned again.")})
	for range 2 {
		if _, err := st.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if sk, err := st.View(nil).Skill(ctx, "a"); err != nil || sk.Revision() != signed || sk.Description != "Signed." || len(st.Failing()) != 1 {
		t.Errorf("after an unsigned push on top: %v, %+v, failing %v", err, sk, st.Failing())
	}
	if n := strings.Count(logs.String(), refusedLog); n != 2 { // the cold commit's, and the one on top
		t.Errorf("%d refusals logged, want 2:\n%s", n, logs)
	}

	// A source's own verify= replaces the policy for all.
	bobs := s.Repo(t, "bobs")
	bobsCommit := bobs.CommitSigned("main", bob.Signing(), map[string][]byte{"a/SKILL.md": skill("a", "Bob's.")})
	for name, url := range map[string]string{"the policy for all": bobs.URL, "its own": bobs.URL + "?verify=" + url.QueryEscape(own)} {
		src, err := open(url)
		if err != nil {
			t.Fatal(err)
		}
		g := src.FS.(*gitfs.Repo)
		snap, err := g.Snapshot(ctx)
		if name == "its own" {
			if err != nil || g.Revision() != bobsCommit || src.Location != bobs.URL {
				t.Errorf("%s: %v at %s, location %s", name, err, g.Revision(), src.Location)
			} else {
				checkSigned(t, snap, store.Signer{Kind: "ssh", Fingerprint: bob.Fingerprint, Principal: "bob@example.com"})
			}
		} else if !errors.As(err, &verr) || verr.Reason != "unknown-signer" {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// BenchmarkVerify: checking the signature of a typical commit (one skill
// changed, signed by the real git), as a source does once per new
// commit: SSH (Ed25519) and OpenPGP (Ed25519, RSA-3072) signatures.
func BenchmarkVerify(b *testing.B) {
	s := gittest.NewServer(b)
	ssh := gittest.NewSSHKey(b, "ed25519", 0)
	pgp := gittest.NewGPGKey(b, "Carol <carol@example.com>", "ed25519")
	rsa := gittest.NewGPGKey(b, "Rita <rita@example.com>", "rsa3072")
	v, err := gitfs.ParseVerifier([]byte("alice@example.com "+ssh.Line+"\n"), append(append([]byte{}, pgp.Armored...), rsa.Armored...))
	if err != nil {
		b.Fatal(err)
	}
	r := s.Repo(b, "bench")
	for _, k := range []struct {
		name string
		sign gittest.Signing
	}{{"ssh-ed25519", ssh.Signing()}, {"openpgp-ed25519", pgp.Signing()}, {"openpgp-rsa3072", rsa.Signing()}} {
		h := r.CommitSigned("main", k.sign, map[string][]byte{"a/SKILL.md": skill("a", "Signed by "+k.name+".")})
		repo, err := git.PlainOpen(r.Work)
		if err != nil {
			b.Fatal(err)
		}
		c, err := repo.CommitObject(plumbing.NewHash(h))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := gitfs.VerifyCommit(v, c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// bareKey returns the first packet of an armored key, its public key
// packet, alone and armored: a key with no user ID, which go-crypto
// cannot read (and would skip, were it in a keyring with others).
func bareKey(t *testing.T, armored []byte) string {
	t.Helper()
	block, err := armor.Decode(bytes.NewReader(armored))
	if err != nil {
		t.Fatal(err)
	}
	p, err := packet.NewOpaqueReader(block.Body).Next()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w, err := armor.Encode(&out, block.Type, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Serialize(w); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return out.String()
}

// TestVerifiedTagTarget: an annotated tag's signature counts for the
// commit it leads to, through a tag of a tag, and for no other commit
// (a server that says a signed tag peels to another commit).
func TestVerifiedTagTarget(t *testing.T) {
	s := gittest.NewServer(t)
	alice := gittest.NewSSHKey(t, "ed25519", 0)
	v, err := gitfs.ParseVerifier([]byte("alice@example.com " + alice.Line + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := s.Repo(t, "tags")
	tagged := r.Commit("main", map[string][]byte{"a/SKILL.md": skill("a", "Tagged.")})
	inner := r.Tag("inner", tagged, nil)
	signed := r.Tag("v1", tagged, new(alice.Signing()))
	outer := r.Tag("outer", "inner", new(alice.Signing())) // a signed tag of the unsigned tag
	other := r.Commit("main", map[string][]byte{"a/SKILL.md": skill("a", "Other.")})
	repo, err := git.PlainOpen(r.Work)
	if err != nil {
		t.Fatal(err)
	}
	aliceSigner := store.Signer{Kind: "ssh", Fingerprint: alice.Fingerprint, Principal: "alice@example.com"}
	for _, tc := range []struct {
		name        string
		tag, commit string
		ok          bool
	}{
		{"signed tag", signed, tagged, true},
		{"signed tag of a tag", outer, tagged, true},
		{"unsigned tag", inner, tagged, false},
		{"signed tag of another commit", signed, other, false},
		{"signed tag of a tag of another commit", outer, other, false},
	} {
		got, err := gitfs.VerifyTarget(v, repo, plumbing.NewHash(tc.tag), plumbing.NewHash(tc.commit))
		var verr *store.VerifyError
		switch {
		case tc.ok && (err != nil || got != aliceSigner):
			t.Errorf("%s: %v, %+v", tc.name, err, got)
		case !tc.ok && (!errors.As(err, &verr) || verr.Reason != "unsigned"):
			t.Errorf("%s: %v; want it refused as unsigned", tc.name, err)
		}
	}
}

// TestRequireSigners: a source given a list of trusted keys that changes
// (as a reloaded --trusted-signers file does) checks every commit, the
// one served included, against the list of the moment: the served commit
// is re-checked at once and at each refresh, and stops being served when
// its key leaves the list (logged once, the VerifyError returned while
// it lasts); the list taking the key back serves it again; a principal
// renamed shows in new snapshots, not in those handed out. An empty list
// trusts no one. A commit served unverified before the policy stops being
// served at once.
func TestRequireSigners(t *testing.T) {
	s := gittest.NewServer(t)
	alice := gittest.NewSSHKey(t, "ed25519", 0)
	bob := gittest.NewSSHKey(t, "ed25519", 0)
	list := func(lines ...string) *sshsig.AllowedSigners {
		a, err := sshsig.ParseAllowedSigners([]byte(strings.Join(lines, "\n")))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	var trusted atomic.Pointer[sshsig.AllowedSigners]
	trust := func() *sshsig.AllowedSigners { return trusted.Load() }
	ctx := context.Background()
	logger, logs := testutil.TextLog()

	r := s.Repo(t, "signed")
	signed := r.CommitSigned("main", alice.Signing(), map[string][]byte{"a/SKILL.md": skill("a", "Signed.")})
	g := open(t, r.URL, gitfs.Options{Logger: logger})
	before, err := g.Snapshot(ctx) // served unverified
	if err != nil {
		t.Fatal(err)
	}
	trusted.Store(list("alice@example.com " + alice.Line))
	if err := g.RequireSigners(ctx, trust); err != nil {
		t.Fatal(err)
	}
	snap, err := g.Snapshot(ctx)
	if err != nil || g.Revision() != signed {
		t.Fatalf("after RequireSigners: %v, serving %q", err, g.Revision())
	}
	checkSigned(t, snap, store.Signer{Kind: "ssh", Fingerprint: alice.Fingerprint, Principal: "alice@example.com"})
	if _, ok := before.(store.SignedFS).Signer(); ok {
		t.Error("the snapshot handed out before the policy changed its signer")
	}

	trusted.Store(list("release@example.com " + alice.Line)) // renamed
	if err := g.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	renamed, _ := g.Snapshot(ctx)
	checkSigned(t, renamed, store.Signer{Kind: "ssh", Fingerprint: alice.Fingerprint, Principal: "release@example.com"})
	checkSigned(t, snap, store.Signer{Kind: "ssh", Fingerprint: alice.Fingerprint, Principal: "alice@example.com"})

	want := "git source " + r.URL + ": commit " + signed[:12] + " is not served: the signing key is not among the trusted signers: ssh-ed25519 key " + alice.Fingerprint
	trusted.Store(list("bob@example.com " + bob.Line)) // alice's key removed
	for range 2 {
		checkRefusal(t, g.Refresh(ctx), "unknown-signer", want)
	}
	if _, err := g.Snapshot(ctx); g.Revision() != "" || err == nil || err.Error() != want {
		t.Errorf("after alice's key left: serving %q, %v", g.Revision(), err)
	}
	if n := strings.Count(logs.String(), "commit served until now is no longer trusted"); n != 1 {
		t.Errorf("%d log lines of the commit no longer trusted, want 1:\n%s", n, logs)
	}

	trusted.Store(list("alice@example.com "+alice.Line, "bob@example.com "+bob.Line)) // back
	if err := g.Refresh(ctx); err != nil || g.Revision() != signed {
		t.Errorf("alice's key back: %v, serving %q", err, g.Revision())
	}
	trusted.Store(nil) // an empty list
	checkRefusal(t, g.Refresh(ctx), "unknown-signer", "git source "+r.URL+": commit "+signed[:12]+" is not served: no signer is trusted (the trusted-signers list is empty)")

	// A commit served unverified stops being served at once.
	u := s.Repo(t, "unsigned")
	u.Commit("main", map[string][]byte{"a/SKILL.md": skill("a", "Unsigned.")})
	ug := open(t, u.URL, gitfs.Options{Logger: logger})
	if _, err := ug.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	trusted.Store(list("alice@example.com " + alice.Line))
	if err := ug.RequireSigners(ctx, trust); err != nil {
		t.Fatal(err)
	}
	if _, err := ug.Snapshot(ctx); ug.Revision() != "" || !errors.Is(err, store.ErrUnverified) {
		t.Errorf("an unsigned commit under a policy: serving %q, %v", ug.Revision(), err)
	}
}

// TestVerifierConcurrent: one Verifier (Options.Verify, given to every
// source) checks commits of several sources at once, SSH and OpenPGP,
// without a data race: run under -race. Each source has its commits to
// itself; the policy is what they share.
func TestVerifierConcurrent(t *testing.T) {
	s := gittest.NewServer(t)
	alice := gittest.NewSSHKey(t, "ed25519", 0)
	carol := gittest.NewGPGKey(t, "Carol <carol@example.com>", "ed25519")
	v, err := gitfs.ParseVerifier([]byte("alice@example.com "+alice.Line+"\n"), carol.Armored)
	if err != nil {
		t.Fatal(err)
	}
	r := s.Repo(t, "shared")
	signers := map[string]string{ // commit → the fingerprint that signed it
		r.CommitSigned("main", alice.Signing(), map[string][]byte{"a/SKILL.md": skill("a", "By alice.")}): alice.Fingerprint,
		r.CommitSigned("main", carol.Signing(), map[string][]byte{"a/SKILL.md": skill("a", "By carol.")}): carol.Fingerprint,
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			repo, err := git.PlainOpen(r.Work) // a source's own objects
			if err != nil {
				t.Error(err)
				return
			}
			for range 20 {
				for h, fp := range signers {
					c, err := repo.CommitObject(plumbing.NewHash(h))
					if err != nil {
						t.Error(err)
						return
					}
					if got, err := gitfs.VerifyCommit(v, c); err != nil || got.Fingerprint != fp {
						t.Errorf("%s: %v, signed by %q, want %q", h[:12], err, got.Fingerprint, fp)
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestRecheckWithoutRemote: the commit served answers to the trusted
// list and the clock of the moment at each refresh whether or not the
// remote answers: a server that stops answering (or an attacker between
// it and the source) cannot keep a commit served once its key is
// removed from the list, or past its valid-before.
func TestRecheckWithoutRemote(t *testing.T) {
	s := gittest.NewServer(t)
	alice := gittest.NewSSHKey(t, "ed25519", 0)
	bob := gittest.NewSSHKey(t, "ed25519", 0)
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		before string // the list when the commit is first served
		after  string // the list or the clock once the remote is gone
		clock  time.Time
	}{
		{name: "key removed", before: "alice@example.com " + alice.Line, after: "bob@example.com " + bob.Line},
		{name: "key retired", before: `alice@example.com valid-before="20990101Z" ` + alice.Line, clock: time.Date(2099, 6, 1, 0, 0, 0, 0, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.Repo(t, strings.ReplaceAll(tc.name, " ", "-"))
			signed := r.CommitSigned("main", alice.Signing(), map[string][]byte{"a/SKILL.md": skill("a", "Signed.")})
			var trusted atomic.Pointer[sshsig.AllowedSigners]
			trusted.Store(allowedList(t, tc.before))
			g := open(t, r.URL, gitfs.Options{Logger: slog.New(slog.DiscardHandler)})
			g.RequireSigners(ctx, func() *sshsig.AllowedSigners { return trusted.Load() })
			if _, err := g.Snapshot(ctx); err != nil || g.Revision() != signed {
				t.Fatalf("serving %q: %v", g.Revision(), err)
			}
			if err := os.RemoveAll(r.Bare); err != nil { // the remote no longer answers
				t.Fatal(err)
			}
			if tc.after != "" {
				trusted.Store(allowedList(t, tc.after))
			}
			if !tc.clock.IsZero() {
				defer gitfs.SetClock(func() time.Time { return tc.clock })()
			}
			err := g.Refresh(ctx)
			if !errors.Is(err, store.ErrUnverified) || g.Revision() != "" {
				t.Errorf("refresh with the remote gone: %v; serving %q, want nothing", err, g.Revision())
			}
			if snap, err := g.Snapshot(ctx); err == nil {
				t.Errorf("a snapshot with the remote gone: %v", snap)
			}
		})
	}
}

// TestRefusalFollowsClock: a commit refused because its key is not yet
// valid (valid-after ahead of the clock, as a signer whose clock runs
// ahead of the server's makes) is served once the clock reaches it, at
// the next refresh, though neither the ref nor the list changed; and a
// refusal that still holds is not logged again.
func TestRefusalFollowsClock(t *testing.T) {
	s := gittest.NewServer(t)
	alice := gittest.NewSSHKey(t, "ed25519", 0)
	ctx := context.Background()
	logger, logs := testutil.TextLog()
	r := s.Repo(t, "early")
	signed := r.CommitSigned("main", alice.Signing(), map[string][]byte{"a/SKILL.md": skill("a", "Signed.")})
	list := allowedList(t, `alice@example.com valid-after="20990101Z" `+alice.Line)
	g := open(t, r.URL, gitfs.Options{Logger: logger})
	g.RequireSigners(ctx, func() *sshsig.AllowedSigners { return list })
	for range 2 {
		if err := g.Refresh(ctx); !errors.Is(err, store.ErrUnverified) {
			t.Fatalf("before its valid-after: %v", err)
		}
	}
	if n := strings.Count(logs.String(), "failed signature verification"); n != 1 {
		t.Errorf("the refusal was logged %d times, want once:\n%s", n, logs)
	}
	defer gitfs.SetClock(func() time.Time { return time.Date(2099, 6, 1, 0, 0, 0, 0, time.UTC) })()
	if err := g.Refresh(ctx); err != nil || g.Revision() != signed {
		t.Errorf("past its valid-after: %v; serving %q, want %s", err, g.Revision(), signed[:12])
	}
}

func allowedList(t *testing.T, lines string) *sshsig.AllowedSigners {
	t.Helper()
	a, err := sshsig.ParseAllowedSigners([]byte(lines))
	if err != nil {
		t.Fatal(err)
	}
	return a
}
