package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/storetest"
	"github.com/skillstore/skillstore/store"
)

// signedSnapshots is a source that serves one in-memory snapshot at a time
// (store.SnapshotFS), as a signed published folder or a verified git
// repository does: each snapshot names its revision and, when verified,
// its signer, and knows its files' digests (store.ContentFS).
type signedSnapshots struct {
	cur atomic.Pointer[signedView]
}

func (s *signedSnapshots) Open(name string) (fs.File, error) { return s.cur.Load().Open(name) }

func (s *signedSnapshots) Snapshot(context.Context) (fs.FS, error) { return s.cur.Load(), nil }

// signedView is one snapshot of signedSnapshots; opens counts the files
// opened through it.
type signedView struct {
	files  fstest.MapFS
	rev    string
	signer *store.Signer // nil: not verified
	opens  *atomic.Int64
}

var (
	_ store.SnapshotFS = (*signedSnapshots)(nil)
	_ store.RevisionFS = (*signedView)(nil)
	_ store.SignedFS   = (*signedView)(nil)
	_ store.ContentFS  = (*signedView)(nil)
)

func (v *signedView) Open(name string) (fs.File, error) {
	f, err := v.files.Open(name)
	if err == nil {
		if fi, serr := f.Stat(); serr == nil && !fi.IsDir() {
			v.opens.Add(1)
		}
	}
	return f, err
}

func (v *signedView) Revision() string { return v.rev }

func (v *signedView) Signer() (store.Signer, bool) {
	if v.signer == nil {
		return store.Signer{}, false
	}
	return *v.signer, true
}

func (v *signedView) ContentSHA256(name string) (string, string, int64, bool) {
	f, ok := v.files[name]
	if !ok {
		return "", "", 0, false
	}
	sum := sha256.Sum256(f.Data)
	return hex.EncodeToString(sum[:]), "", 0, true
}

// TestProvenance: every skill carries its source's label, kind and
// location, the revision of the snapshot it was found in and that
// snapshot's signer; skills of one snapshot share one value, made when
// the catalog is built; a new snapshot gives its skills its own.
func TestProvenance(t *testing.T) {
	ctx := context.Background()
	var opens atomic.Int64
	files := storetest.MapFS("pdf/SKILL.md="+storetest.Doc("pdf", "Fill PDF forms."), "pdf/notes.md=notes", "csv/SKILL.md="+storetest.Doc("csv", "Read CSV files."))
	signer := &store.Signer{Fingerprint: "SHA256:uYl4lG2jm0yRM/ZkmhOmqAx9Ck4nk5e7d1hVqWdnQfU", Principal: "release@example.com", Kind: "ssh"}
	src := &signedSnapshots{}
	src.cur.Store(&signedView{files: files, rev: "20260101T000000.000000000Z-aaaaaaaaaaaa", signer: signer, opens: &opens})
	s, err := store.New([]store.Source{{Label: "org", Location: "s3://skills?prefix=team/", Kind: "s3", FS: src}}, store.Options{Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.View(nil).Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := &store.Provenance{Source: "org", Kind: "s3", Location: "s3://skills?prefix=team/", Revision: "20260101T000000.000000000Z-aaaaaaaaaaaa", Signer: *signer}
	for _, sk := range c.Skills {
		if diff := cmp.Diff(want, sk.Provenance); diff != "" {
			t.Errorf("%s: provenance (-want +got):\n%s", sk.Name, diff)
		}
		if sk.Revision() != want.Revision {
			t.Errorf("%s: Revision = %q; want the snapshot's, %q", sk.Name, sk.Revision(), want.Revision)
		}
	}
	if len(c.Skills) != 2 || c.Skills[0].Provenance != c.Skills[1].Provenance {
		t.Errorf("the skills of one snapshot hold %d provenance values; want one, shared", len(c.Skills))
	}
	if f, err := s.View(nil).ReadFile(ctx, "pdf", "notes.md", nil); err != nil || f.Skill.Provenance != c.Skills[1].Provenance {
		t.Errorf("a file read: %v; want the provenance of its skill", err)
	}
	opened := opens.Load()

	// A new snapshot, signed by no one, holding the same files.
	src.cur.Store(&signedView{files: files, rev: "20260102T000000.000000000Z-bbbbbbbbbbbb", opens: &opens})
	if _, err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	sk, err := s.View(nil).Skill(ctx, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	want = &store.Provenance{Source: "org", Kind: "s3", Location: want.Location, Revision: "20260102T000000.000000000Z-bbbbbbbbbbbb"}
	if diff := cmp.Diff(want, sk.Provenance); diff != "" {
		t.Errorf("after the switch: provenance (-want +got):\n%s", diff)
	}
	j, err := json.Marshal(sk.Provenance)
	if err != nil || string(j) != `{"source":"org","kind":"s3","location":"s3://skills?prefix=team/","revision":"20260102T000000.000000000Z-bbbbbbbbbbbb"}` {
		t.Errorf("an unsigned snapshot's provenance as JSON: %s, %v", j, err)
	}
	// The file has the digest it had in the first snapshot: the copy
	// cached then serves it, though the revision changed.
	before := opens.Load()
	if f, err := s.View(nil).ReadFile(ctx, "pdf", "notes.md", nil); err != nil || f.Text != "notes" || f.Skill.Provenance != sk.Provenance {
		t.Errorf("a file of the new snapshot: %q, %v", f.Text, err)
	}
	if n := opens.Load() - before; n != 0 || opened == 0 {
		t.Errorf("reading a file whose digest was cached under the previous snapshot opened %d files (the first read opened %d); want none", n, opened)
	}
}

// TestProvenanceOfPlainSources: a source with no versions and no signer
// gives its skills a provenance with no revision and no signer, which
// JSON leaves out.
func TestProvenanceOfPlainSources(t *testing.T) {
	s, err := store.New([]store.Source{{Label: "project", Location: "./skills", Kind: "local", FS: storetest.MapFS("pdf/SKILL.md=" + storetest.Doc("pdf", "Fill PDF forms."))}}, store.Options{Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	sk, err := s.View(nil).Skill(context.Background(), "pdf")
	if err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(sk.Provenance)
	if err != nil || string(j) != `{"source":"project","kind":"local","location":"./skills"}` {
		t.Errorf("provenance as JSON: %s, %v", j, err)
	}
}

// quietLog discards the store's log.
var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))
