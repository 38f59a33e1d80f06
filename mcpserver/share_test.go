package mcpserver_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/auth"
	"github.com/skillstore/skillstore/site"
)

// openSSE sends a request that opens a stream (a GET, a
// subscriptions/listen) with token and the headers h (name, value pairs),
// and returns its answer once its headers are in; a refused one has its
// body read into body. The stream closes at the test's end.
func openSSE(t *testing.T, url, token, body string, h ...string) (resp *http.Response, refused string) {
	t.Helper()
	method := http.MethodPost
	if body == "" {
		method = http.MethodGet
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(h); i += 2 {
		req.Header.Set(h[i], h[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		refused = string(b)
	}
	return resp, refused
}

// isStream reports an answer that opened an SSE stream.
func isStream(resp *http.Response) bool {
	return resp.StatusCode == http.StatusOK && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
}

// TestPrincipalShare: one principal holds at most its share of the
// session and stream caps (a tenth by default, else what the options
// say). At its share its own least recently used idle session is ended
// to admit a new one, and when all of them are busy its initialize and
// its new streams get 503 with Retry-After, while another principal
// still opens sessions and streams and keeps the ones it has.
func TestPrincipalShare(t *testing.T) {
	cases := []struct {
		name  string
		opts  site.Options
		share int
	}{
		{"a tenth of the caps by default", site.Options{MaxSessions: 20, MaxStreams: 20}, 2},
		{"as the options say", site.Options{MaxSessions: 1000, MaxStreams: 1000, MaxSessionsPerPrincipal: 3, MaxStreamsPerPrincipal: 3}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, worldOptions{http: tc.opts})
			ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
			status := func(token, id string) int {
				got, _ := post(t, w.url, token, ping, "Mcp-Session-Id", id, "Mcp-Protocol-Version", "2025-11-25")
				return got.Status
			}
			alice := dialRPC(t, w.url, aliceToken, "2025-11-25")

			// bob fills his share; one more evicts his own least recently
			// used idle session, never alice's.
			var bobs []string
			for range tc.share {
				bobs = append(bobs, dialRPC(t, w.url, bobToken, "2025-11-25").session)
			}
			for _, id := range bobs[1:] {
				status(bobToken, id) // bobs[0] is now bob's least recently used
			}
			evicted := bobs[0]
			bobs = append(bobs[1:], dialRPC(t, w.url, bobToken, "2025-11-25").session)
			if got := status(bobToken, evicted); got != http.StatusNotFound {
				t.Errorf("bob's least recently used session past his share: %d; want 404 (evicted)", got)
			}
			if got := status(aliceToken, alice.session); got != http.StatusOK {
				t.Errorf("alice's session once bob holds his share: %d; want 200", got)
			}
			// Each of bob's sessions holds a GET stream: they are busy, and
			// his streams fill his share of streams too.
			for _, id := range bobs {
				if resp, body := openSSE(t, w.url, bobToken, "", "Mcp-Session-Id", id, "Mcp-Protocol-Version", "2025-11-25"); !isStream(resp) {
					t.Fatalf("bob's GET stream: %d %s", resp.StatusCode, body)
				}
			}
			got, h := post(t, w.url, bobToken, initialize)
			wantSessions := fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Too many sessions: you hold your limit of %d live sessions on this server, `+
				`each with a request in flight or a stream open. End sessions you no longer use (DELETE), retry later, or ask the operator to raise --max-sessions-per-principal"}}`+"\n", tc.share)
			if got.Status != http.StatusServiceUnavailable || h.Get("Retry-After") == "" || got.Body != wantSessions {
				t.Errorf("bob's initialize with each of his sessions busy: %+v Retry-After %q", got, h.Get("Retry-After"))
			}
			listen := `{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + listenMeta + `}}`
			modern := []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen"}
			resp, body := openSSE(t, w.url, bobToken, listen, modern...)
			wantStreams := fmt.Sprintf(`{"jsonrpc":"2.0","id":"sub-1","error":{"code":-32603,"message":"Too many open streams: you hold your limit of %d open streams on this server. `+
				`Close streams you do not read, retry later, or ask the operator to raise --max-streams-per-principal"}}`+"\n", tc.share)
			if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || body != wantStreams {
				t.Errorf("bob's listen stream past his share: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
			}

			// alice is not affected: her session lives, she opens more, and streams.
			if got := status(aliceToken, alice.session); got != http.StatusOK {
				t.Errorf("alice's session: %d; want 200", got)
			}
			second := dialRPC(t, w.url, aliceToken, "2025-11-25")
			if resp, body := openSSE(t, w.url, aliceToken, "", "Mcp-Session-Id", second.session, "Mcp-Protocol-Version", "2025-11-25"); !isStream(resp) {
				t.Errorf("alice's GET stream: %d %s", resp.StatusCode, body)
			}
			if resp, body := openSSE(t, w.url, aliceToken, listen, modern...); !isStream(resp) {
				t.Errorf("alice's listen stream: %d %s", resp.StatusCode, body)
			}
			for _, id := range bobs {
				if got := status(bobToken, id); got != http.StatusOK {
					t.Errorf("bob's busy session %s: %d; want 200 (never evicted)", id, got)
				}
			}
		})
	}
}

// TestStreamsEndWithTheirToken: a stream outlives no token. A listen
// stream and a legacy GET stream opened with a token that expires in a
// moment end once it has expired (the client opens another with a fresh
// token), while one opened with a static token, which does not expire,
// stays open.
func TestStreamsEndWithTheirToken(t *testing.T) {
	is := newIssuer(t)
	v, err := auth.NewVerifier(context.Background(), auth.VerifierConfig{Issuer: is.URL, Resource: testResource, FetchTimeout: 2 * time.Second, Leeway: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	w := newWorld(t, worldOptions{http: site.Options{
		Auth: resourceServer(t, auth.Chain(staticTokens(t), v), is.URL), RequiredScopes: []string{"skills:read"}}})
	short := is.mint(t, "dave", []string{"eng"}, func(c map[string]any) { c["exp"] = time.Now().Add(2 * time.Second).Unix() })
	listen := `{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + listenMeta + `}}`
	modern := []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen"}
	session := dialRPC(t, w.url, short, "2025-11-25")
	ended := func(name string, resp *http.Response) <-chan error {
		t.Helper()
		if !isStream(resp) {
			t.Fatalf("%s: %d", name, resp.StatusCode)
		}
		c := make(chan error, 1)
		go func() { _, err := io.Copy(io.Discard, resp.Body); c <- err }()
		return c
	}
	listenEnd := ended("listen stream", first(openSSE(t, w.url, short, listen, modern...)))
	getEnd := ended("GET stream", first(openSSE(t, w.url, short, "", "Mcp-Session-Id", session.session, "Mcp-Protocol-Version", "2025-11-25")))
	staticEnd := ended("a static token's stream", first(openSSE(t, w.url, aliceToken, listen, modern...)))
	for name, c := range map[string]<-chan error{"listen stream": listenEnd, "GET stream": getEnd} {
		select {
		case err := <-c:
			if err != nil {
				t.Errorf("%s: ended with %v; want a clean end", name, err)
			}
		case <-time.After(30 * time.Second): // a bound on a hang, not a speed: the token expires in 2 s
			t.Errorf("%s still open 30 s after its token expired", name)
		}
	}
	select {
	case err := <-staticEnd:
		t.Errorf("a static token's stream ended (%v)", err)
	default:
	}
}

func first(resp *http.Response, _ string) *http.Response { return resp }
