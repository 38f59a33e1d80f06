package main

import (
	"net/http"
	"net/http/httptest"
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
	if code != 0 || out != "NAME   SOURCE   DESCRIPTION\nhello  project  A local skill.\n" ||
		withoutLogs(errOut) != "skillstore: not served: (source "+ts.URL+"/.well-known/agent-skills/index.json) [org]: Cannot read skills folder: did not answer within 300ms; serving the other sources\n" {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}
