package mcptest

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// Wire records every byte of every HTTP answer a client receives (streams
// included, as they are read), so that a test can check, after walking a
// server's surfaces, that no answer held what a remote caller must never
// see: a host path, a token. It is safe for concurrent use.
type Wire struct {
	next http.RoundTripper
	mu   sync.Mutex
	got  bytes.Buffer
}

// NewWire returns a Wire over http.DefaultTransport.
func NewWire() *Wire { return &Wire{next: http.DefaultTransport} }

// Client returns an HTTP client whose answers w records.
func (w *Wire) Client() *http.Client { return &http.Client{Transport: w} }

// RoundTrip sends req and records its answer's headers and body.
func (w *Wire) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	var h strings.Builder
	resp.Header.Write(&h)
	w.Write([]byte(h.String()))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(resp.Body, w), resp.Body}
	return resp, nil
}

// Write records p.
func (w *Wire) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.got.Write(p)
}

// Forbid fails t for each of forbidden that an answer recorded so far
// holds, quoting it in context; it fails t too when nothing was recorded.
func (w *Wire) Forbid(t testing.TB, forbidden ...string) {
	t.Helper()
	w.mu.Lock()
	got := w.got.String()
	w.mu.Unlock()
	if got == "" {
		t.Error("no answer was recorded")
	}
	for _, f := range forbidden {
		if f == "" {
			continue
		}
		if i := strings.Index(got, f); i >= 0 {
			t.Errorf("the answers hold %q %d times, e.g. …%s…", f, strings.Count(got, f), got[max(0, i-200):min(len(got), i+len(f)+100)])
		}
	}
}
