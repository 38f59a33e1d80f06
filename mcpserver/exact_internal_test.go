package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/discovery"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
	"github.com/skillstore/skillstore/ui"
)

// TestExactBytesEverySurface checks every surface that hands a file out
// as bytes over files whose bytes are not their text (fixture.ExactFiles:
// a UTF-8 BOM, UTF-16 with a BOM, CRLF, Latin-1, malformed UTF-8,
// trailing NULs, binary): resources/read, skills/get's digests and
// sizes, the .well-known archive and SKILL.md artifact and their index
// digests, and the pages' downloads, zip and digests. Each serves the
// bytes stored, and each digest is the SHA-256 of those bytes.
func TestExactBytesEverySurface(t *testing.T) {
	quiet := slog.New(slog.DiscardHandler)
	s, err := store.New([]store.Source{{Label: "project", FS: fixture.ExactMapFS()}}, store.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(context.Background(), tools.New(s, tools.Options{}), Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux() // the pages and the .well-known publication, as package site serves them
	mux.Handle("/", ui.New(ui.Options{View: srv.ViewOf, Logger: srv.log}))
	mux.Handle(discovery.WellKnownPath, discovery.NewPublisher(discovery.PublishOptions{Store: srv.store, View: srv.ViewOf, Logger: srv.log}).Handler(true))
	ts := httptest.NewServer(mux)
	defer ts.Close()
	get := func(path string) []byte {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		res, body := testutil.Do(t, req)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %.300s", path, res.StatusCode, body)
		}
		return body
	}
	sum := func(b string) string {
		h := sha256.Sum256([]byte(b))
		return hex.EncodeToString(h[:])
	}
	stored := fixture.ExactFiles()

	// skills/get: a digest and size per file, of its bytes as stored.
	a := srv.handle(context.Background(), source{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"skills/get","params":{"uri":"skill://exact/SKILL.md"}}`))
	var got struct {
		Result struct {
			Skill struct {
				Resources []struct {
					URI, Digest string
					Size        int64
				}
			}
		}
	}
	if err := json.Unmarshal(a.body, &got); err != nil {
		t.Fatal(err)
	}
	digests := map[string]string{}
	for _, r := range got.Result.Skill.Resources {
		p := strings.TrimPrefix(r.URI, "skill://exact/")
		digests[p] = r.Digest
		if r.Size != int64(len(stored[p])) {
			t.Errorf("skills/get %s: size %d; the file holds %d bytes", p, r.Size, len(stored[p]))
		}
	}
	wantDigests := map[string]string{}
	for p, b := range stored {
		wantDigests[p] = "sha256:" + sum(b)
	}
	if diff := cmp.Diff(wantDigests, digests); diff != "" {
		t.Errorf("skills/get digests (-sha256 of the bytes stored +got):\n%s", diff)
	}

	// The pages' skill page shows the same digests.
	page := string(get("/skills/exact"))
	for p, b := range stored {
		if !strings.Contains(page, `<code class="digest">`+sum(b)+`</code>`) {
			t.Errorf("the skill page does not show %s's digest %s", p, sum(b))
		}
	}

	for p, want := range stored {
		// resources/read: text that is these bytes, or a blob of them.
		a := srv.handle(context.Background(), source{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://exact/`+p+`"}}`))
		var rr struct {
			Result struct {
				Contents []struct {
					Text *string
					Blob *string
				}
			}
		}
		if err := json.Unmarshal(a.body, &rr); err != nil || len(rr.Result.Contents) != 1 {
			t.Errorf("resources/read %s: %v %.300s", p, err, a.body)
			continue
		}
		c := rr.Result.Contents[0]
		var read string
		switch {
		case c.Text != nil:
			read = *c.Text
		case c.Blob != nil:
			b, err := base64.StdEncoding.DecodeString(*c.Blob)
			if err != nil {
				t.Errorf("resources/read %s: %v", p, err)
			}
			read = string(b)
		}
		if read != want {
			t.Errorf("resources/read %s: %q; want the bytes stored, %q", p, read, want)
		}

		// The pages' download.
		if got := string(get("/skills/exact/raw/" + (&url.URL{Path: p}).EscapedPath())); got != want {
			t.Errorf("page download %s: %q; want %q", p, got, want)
		}
	}

	// The pages' zip.
	if diff := cmp.Diff(prefixed("exact/", stored), testutil.Unzip(t, get("/skills/exact/zip"))); diff != "" {
		t.Errorf("the pages' zip (-stored +archived):\n%s", diff)
	}

	// .well-known: the index's digests are of the artifacts served, which
	// hold the bytes stored.
	var idx discovery.Index
	if err := json.Unmarshal(get(discovery.WellKnownPath+"index.json"), &idx); err != nil {
		t.Fatal(err)
	}
	arts := map[string]discovery.Entry{}
	for _, e := range idx.Skills {
		arts[e.Name] = e
	}
	zipBody := get(arts["exact"].URL)
	if d := "sha256:" + sum(string(zipBody)); d != arts["exact"].Digest {
		t.Errorf(".well-known exact.zip: digest %s; the index says %s", d, arts["exact"].Digest)
	}
	if diff := cmp.Diff(stored, testutil.Unzip(t, zipBody)); diff != "" {
		t.Errorf(".well-known exact.zip (-stored +archived):\n%s", diff)
	}
	doc := get(arts["bom-only"].URL)
	if string(doc) != fixture.BOMOnlyDoc || arts["bom-only"].Digest != "sha256:"+sum(fixture.BOMOnlyDoc) {
		t.Errorf(".well-known bom-only/SKILL.md: %q, index digest %s; want the bytes stored and their digest", doc, arts["bom-only"].Digest)
	}
}

func prefixed(prefix string, m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[prefix+k] = v
	}
	return out
}
