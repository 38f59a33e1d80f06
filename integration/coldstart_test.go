package integration

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// countingProxy forwards HTTP requests to a store, recording each one as
// METHOD PATH.
type countingProxy struct {
	mu   sync.Mutex
	seen []string
}

// start serves the proxy on 127.0.0.1 in front of addr; the Host header is
// forwarded as the client sent it, so that its signature holds.
func (p *countingProxy) start(t *testing.T, addr string) string {
	target := &url.URL{Scheme: "http", Host: addr}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = r.In.Host
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.seen = append(p.seen, r.Method+" "+r.URL.Path)
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// requests returns the requests seen so far.
func (p *countingProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.seen)
}

// TestColdReplicaRequests starts `skillstore serve --http` on a published
// S3 bucket (versitygw, through a proxy that counts requests) and asks it
// for its skills: a cold replica reads the pointer and the manifest, two
// GETs, to its first answer and after it until its first periodic refresh
// (an hour away): nothing checks the pointer it has just read (the
// start-up rescan's HEAD, which only a watched local folder needs).
func TestColdReplicaRequests(t *testing.T) {
	r := startS3(t)
	r.createBucket(t, "cold")
	pub := exec.Command(binary, "publish", "--quiet", "../backends/examples", r.url("cold", "team/"))
	pub.Env = append(os.Environ(), r.env...)
	if out, err := pub.CombinedOutput(); err != nil {
		t.Fatalf("publish: %v\n%s", err, out)
	}
	var p countingProxy
	src := strings.Replace(r.url("cold", "team/"), r.addr, p.start(t, r.addr), 1)
	mcpURL := serveHTTPEnv(t, r.env, "--stateless", "--refresh", "1h", "-s", src)
	out := rpc(t, mcpURL, "tools/call", `{"name":"list_skills","arguments":{}}`)
	if text, isError := toolText(t, string(out)); isError || !strings.Contains(text, "code-review") {
		t.Fatalf("list_skills: %.300s", out)
	}
	first := p.requests()
	// What the server does once it has answered (its start-up work, the
	// watch starting) has time to show.
	time.Sleep(2 * time.Second) // real time: requests a server in another process does not make have no event to wait on
	all := p.requests()
	t.Logf("requests to the first answer: %q; after 2 s: %q", first, all)
	want := []string{"GET /cold/team/.skillstore/current.json", "GET /cold/team/.skillstore/snapshots/"}
	ok := len(all) == len(want)
	for k := 0; ok && k < len(want); k++ {
		ok = strings.HasPrefix(all[k], want[k])
	}
	if !ok {
		t.Errorf("a cold replica made %d requests: %q; want 2, the pointer's and the manifest's GET:\n%s", len(all), all, fmt.Sprint(want))
	}
	ran(t, "S3 (versitygw) cold replica")
}
