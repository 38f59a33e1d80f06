package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestSourceTimeoutFlag: `list` beside a .well-known site that answers one
// byte every 100 ms lists the local folder's skills once --source-timeout
// has passed, and names the slow site as not served.
func TestSourceTimeoutFlag(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000")
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			w.Write([]byte(" "))
			w.(http.Flusher).Flush()
		}
	}))
	defer ts.Close()
	dir := writeFixture(t, map[string][]byte{"hello/SKILL.md": []byte("---\nname: hello\ndescription: A local skill.\n---\n")})
	out, errOut, code := run(t, nil, "list", "--source-timeout", "300ms", "-s", "project="+dir, "-s", "org="+ts.URL+"/.well-known/agent-skills/")
	if code != 0 || !strings.Contains(out, "hello  project") || !strings.Contains(errOut, "[org]") || !strings.Contains(errOut, "did not answer within 300ms; serving the other sources") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}
