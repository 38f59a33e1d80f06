package store_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/storetest"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

// TestExactBytes checks the store's byte surfaces over files whose bytes
// are not their text (a BOM, UTF-16, CRLF, Latin-1, malformed UTF-8,
// binary): File.Raw and Document.Raw are the bytes stored, DigestOf is
// the SHA-256 and size of those bytes, and WriteZip archives them, while
// the text tools still read decoded text.
func TestExactBytes(t *testing.T) {
	s := storetest.New(t, store.Options{}, fixture.ExactMapFS())
	ctx := context.Background()
	sk, err := s.View(nil).Skill(ctx, "exact")
	if err != nil {
		t.Fatal(err)
	}
	files, err := s.View(nil).Files(ctx, sk.Name, &store.ReadOptions{Skill: sk})
	if err != nil {
		t.Fatal(err)
	}
	want := fixture.ExactFiles()
	if len(files) != len(want) {
		t.Fatalf("%d files listed; want %d", len(files), len(want))
	}
	for _, f := range files {
		stored := want[f.Path]
		got, err := s.View(nil).ReadFile(ctx, sk.Name, f.Path, &store.ReadOptions{Skill: sk})
		if err != nil {
			t.Errorf("%s: %v", f.Path, err)
			continue
		}
		if got.Raw != stored {
			t.Errorf("%s: Raw %q; want the bytes stored, %q", f.Path, got.Raw, stored)
		}
		d, err := s.View(nil).Digest(ctx, sk, f)
		sum := sha256.Sum256([]byte(stored))
		if diff := cmp.Diff(store.Digest{SHA256: hex.EncodeToString(sum[:]), Size: int64(len(stored))}, d); err != nil || diff != "" {
			t.Errorf("%s: digest %v (-want +got):\n%s", f.Path, err, diff)
		}
	}
	doc, err := s.View(nil).Document(ctx, sk.Name, &store.ReadOptions{Skill: sk})
	if err != nil || doc.Raw != fixture.ExactDoc || doc.Text != fixture.ExactDoc[3:] || doc.Encoding != store.EncodingUTF8 {
		t.Errorf("document: Raw %q Text %q %q %v; want the bytes stored and the text without its BOM", doc.Raw, doc.Text, doc.Encoding, err)
	}
	if f, err := s.View(nil).ReadFile(ctx, "exact", "run.ps1", &store.ReadOptions{Text: true}); err != nil || f.Text != want["run.ps1"][3:] {
		t.Errorf("ReadText run.ps1: %q %v; want the text without its BOM", f.Text, err)
	}

	var buf bytes.Buffer
	if err := s.View(nil).WriteZip(ctx, &buf, sk, files, store.ZipOptions{Prefix: "exact/"}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for name, data := range testutil.Unzip(t, buf.Bytes()) {
		got[strings.TrimPrefix(name, "exact/")] = data
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for _, zf := range zr.File {
		if stored := zf.Method == zip.Store; stored != store.Compressed(zf.Name) {
			t.Errorf("%s: method %d; already compressed files are stored, others deflated", zf.Name, zf.Method)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("zip entries (-stored +archived):\n%s", diff)
	}
}
