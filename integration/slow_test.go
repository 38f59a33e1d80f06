package integration

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/wellknown"
	"github.com/skillstore/skillstore/discovery"
	"github.com/skillstore/skillstore/internal/storetest"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// trickleSite serves a .well-known/agent-skills/ site of one skill that
// answers one byte every 100 ms until release is called, then the rest at
// once.
func trickleSite(t *testing.T) (ts *httptest.Server, release func()) {
	doc := []byte(storetest.Doc("remote", "Far away."))
	sum := sha256.Sum256(doc)
	index := []byte(fmt.Sprintf(`{"$schema": %q, "skills": [{"name": "remote", "type": "skill-md", "description": "Far away.", "url": "remote/SKILL.md", "digest": "sha256:%s"}]}`,
		discovery.Schema, hex.EncodeToString(sum[:])))
	fast := make(chan struct{})
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := doc
		if strings.HasSuffix(r.URL.Path, "/index.json") {
			body = index
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		for i := range body {
			select {
			case <-fast:
				w.Write(body[i:])
				return
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			w.Write(body[i : i+1])
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(ts.Close)
	var once sync.Once
	release = func() { once.Do(func() { close(fast) }) }
	t.Cleanup(release)
	return ts, release
}

// TestTricklingSiteBesideLocalFolder: a .well-known site that answers one
// byte every 100 ms, beside a local folder, over real HTTP: the folder's
// skills are served once the bound (300 ms) has passed, the site is
// reported as a problem, a skill added to the folder is served at the
// next refresh, and once the site answers its skill is served too.
func TestTricklingSiteBesideLocalFolder(t *testing.T) {
	ts, release := trickleSite(t)
	dir := testutil.TempTree(t, map[string][]byte{"hello/SKILL.md": []byte(storetest.Doc("hello", "Local."))})
	local, err := backends.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	site, err := wellknown.Open(ts.URL+"/.well-known/agent-skills/", wellknown.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	s, err := store.New([]store.Source{
		{Label: "project", Location: "./skills", FS: local},
		{Label: "org", Location: site.Location(), Kind: "well-known", FS: site},
	}, store.Options{SourceTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := s.Changed(ctx)

	cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
	c, err := s.View(nil).Catalog(cctx)
	ccancel()
	if err != nil {
		t.Fatalf("the local folder was held by the trickling site: %v", err)
	}
	if storetest.Names(c.Skills) != "hello" || len(c.Problems) != 1 || c.Problems[0].Source.Label != "org" ||
		c.Problems[0].Message != "source unavailable: did not answer within 300ms; serving the other sources" {
		t.Errorf("skills %q, problems %+v", storetest.Names(c.Skills), c.Problems)
	}

	if err := os.MkdirAll(filepath.Join(dir, "added"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "added", "SKILL.md"), []byte(storetest.Doc("added", "Added later.")), 0o644); err != nil {
		t.Fatal(err)
	}
	storetest.RefreshUntil(t, s, "added,hello")

	release()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("the site's skill is not served once it answered: %q", storetest.Names(c.Skills))
		}
		if _, err := s.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if c, _ = s.View(nil).Catalog(ctx); storetest.Names(c.Skills) == "added,hello,remote" {
			break
		}
	}
	if len(c.Problems) != 0 {
		t.Errorf("problems %+v", c.Problems)
	}
}

// contract is the sentence tools show for a store error: the store gives
// the kind and fields, tools the contracts' wording.
func contract(err error) string {
	msg, _ := tools.Describe(err)
	return msg
}
