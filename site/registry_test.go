package site_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/registry"
	"github.com/skillstore/skillstore/site"
)

func registrySite(t *testing.T, o site.Options) *httptest.Server {
	t.Helper()
	b := memblob.OpenBucket(nil)
	t.Cleanup(func() { b.Close() })
	reg, err := registry.Open(context.Background(), blobfs.NewPublishBucket(b), registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o.AuthToken = "tok"
	o.Registry = site.RegistryOptions{Registry: reg, Label: "registry", MaxUploads: 1}
	ts := httptest.NewServer(site.New(testServer(t), o))
	t.Cleanup(ts.Close)
	return ts
}

// TestSkillsAPIToken: the token goes as x-api-key or as a bearer token;
// without it the answer is the API's 401 body.
func TestSkillsAPIToken(t *testing.T) {
	ts := registrySite(t, site.Options{})
	for _, tc := range []struct {
		header, value string
		status        int
		body          string
	}{
		{"X-Api-Key", "tok", 200, `"data":[]`},
		{"Authorization", "Bearer tok", 200, `"data":[]`},
		{"X-Api-Key", "nope", 401, `"type":"authentication_error"`},
		{"", "", 401, `"type":"authentication_error"`},
	} {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/v1/skills", nil)
		if tc.header != "" {
			req.Header.Set(tc.header, tc.value)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.body) {
			t.Errorf("%s %q: %d %s", tc.header, tc.value, resp.StatusCode, body)
		}
	}
}

// TestSkillsAPIUploadBounds: a body declared over the limit is refused
// unread; an upload that trickles holds its slot only for the body
// timeout, and meanwhile another upload is told to come back (429).
func TestSkillsAPIUploadBounds(t *testing.T) {
	ts := registrySite(t, site.Options{BodyTimeout: 500 * time.Millisecond})
	addr := strings.TrimPrefix(ts.URL, "http://")
	send := func(length int64, body string) net.Conn {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST /v1/skills HTTP/1.1\r\nHost: %s\r\nX-Api-Key: tok\r\nConnection: close\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n%s", addr, length, body)
		return conn
	}
	answer := func(conn net.Conn) string {
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		got, err := io.ReadAll(conn) // ends when the server closes
		conn.Close()
		if err != nil {
			t.Fatalf("the connection stayed open: %v", err)
		}
		return string(got)
	}
	if got := answer(send(2<<30, "--b\r\n")); !strings.HasPrefix(got, "HTTP/1.1 413") || !strings.Contains(got, `"request_too_large"`) {
		t.Errorf("a 2 GiB body: %.300s", got)
	}
	slow := send(1000, "--b\r\nContent-Disposition: form-data; name=\"files[]\"; filename=\"x/SKILL.md\"\r\n\r\n---")
	time.Sleep(100 * time.Millisecond) // real time: the slow upload must have taken its slot
	if got := answer(send(10, "--b--\r\n...")); !strings.HasPrefix(got, "HTTP/1.1 429") || !strings.Contains(got, "Retry-After: 1") {
		t.Errorf("an upload while the slot is held: %.300s", got)
	}
	start := time.Now()
	got := answer(slow)
	if !strings.HasPrefix(got, "HTTP/1.1 4") || time.Since(start) > 5*time.Second {
		t.Errorf("the trickling upload, after %v: %.300s", time.Since(start), got)
	}
}

// TestSkillsAPIRefusalReachesSDKs: an upload refused before its body is
// read can still send its body whole, as the SDKs send one after the
// headers, and then reads the API's answer: closed on the unread body,
// the connection was reset under it, and fetch reported a connection
// error instead of the 401.
func TestSkillsAPIRefusalReachesSDKs(t *testing.T) {
	ts := registrySite(t, site.Options{})
	addr := strings.TrimPrefix(ts.URL, "http://")
	body := "--b\r\nContent-Disposition: form-data; name=\"files[]\"; filename=\"x/SKILL.md\"\r\n\r\n" + strings.Repeat("x", 64<<10) + "\r\n--b--\r\n"
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "POST /v1/skills HTTP/1.1\r\nHost: %s\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n", addr, len(body))
	for i, part := range []string{body[:1000], body[1000:]} { // two writes after the headers, as fetch makes them
		time.Sleep(50 * time.Millisecond)
		if _, err := io.WriteString(conn, part); err != nil {
			t.Fatalf("sending write %d of the body: %v", i+1, err)
		}
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(got), `"type":"authentication_error"`) {
		t.Errorf("%s %s %v; want the API's 401", resp.Status, got, err)
	}
}
