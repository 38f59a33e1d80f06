package discovery

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/internal/artifact"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

// TestWellKnownBusy: with every archive build slot taken (by the pages'
// zips, say: they share the bound) and no room to wait, an archive and
// the index are answered 503 with Retry-After, and no skill is left out
// of the index for it; once a slot is free both are served.
func TestWellKnownBusy(t *testing.T) {
	quiet := slog.New(slog.DiscardHandler)
	s, err := store.New([]store.Source{{Label: "project", FS: fstest.MapFS{
		"s/SKILL.md": {Data: []byte("---\nname: s\ndescription: A skill.\n---\n# S\n")},
		"s/data.txt": {Data: []byte("data")},
	}}}, store.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	pub := NewPublisher(PublishOptions{Store: s, View: func(*http.Request) *store.View { return s.View(nil) }, Logger: quiet,
		Archives: artifact.New(artifact.Options{Builds: 1, Queued: -1})})
	ts := httptest.NewServer(pub.Handler(true))
	defer ts.Close()
	started, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		a, err := pub.artifacts.Get(context.Background(), artifact.Key{Name: "a page's zip"}, true, func(context.Context, io.Writer) (string, error) {
			close(started)
			<-release
			return "zip", nil
		})
		if err == nil {
			a.Release()
		}
	}()
	<-started
	for _, p := range []string{"s.zip", "index.json"} {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+WellKnownPath+p, nil)
		if res, body := testutil.Do(t, req); res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
			t.Errorf("%s while the one build slot is taken: %d %s, Retry-After %q; want 503 and a Retry-After", p, res.StatusCode, body, res.Header.Get("Retry-After"))
		}
	}
	close(release)
	<-done
	for _, p := range []string{"s.zip", "index.json"} {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+WellKnownPath+p, nil)
		if res, body := testutil.Do(t, req); res.StatusCode != http.StatusOK {
			t.Errorf("%s once the slot is free: %d %s", p, res.StatusCode, body)
		}
	}
}
