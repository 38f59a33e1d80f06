package integration

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/authtest"
	"github.com/skillstore/skillstore/internal/testutil"
)

// The binary and the authorization server's keys: rotation, the issuer
// down at start and mid-run, and the tokens it must refuse.

// refusal is the binary's answer to a request refused with code (an RFC
// 6750 error code, "" for a request without a token) for the reason why,
// the request requiring scope (if any).
func refusal(w *accessWorld, status int, code, why, scope string) reply {
	challenge := "Bearer "
	if code != "" {
		challenge += `error="` + code + `", `
	}
	challenge += `resource_metadata="` + w.base + `/.well-known/oauth-protected-resource/mcp"`
	if scope != "" {
		challenge += `, scope="` + scope + `"`
	}
	body := `{"error":"` + code + `","error_description":"` + why + `"}` + "\n"
	if code == "" {
		body = `{"error":"unauthorized","error_description":"` + why + `"}` + "\n"
	} else {
		challenge += `, error_description="` + why + `"`
	}
	return reply{Status: status, Challenge: challenge, Body: body}
}

// The reasons the binary gives for the tokens these tests present.
const (
	whyUnknownKey  = "the token's signing key is unknown"
	whyNoKeys      = "the issuer's signing keys are not available"
	whyExpired     = "the token has expired"
	whyIssuer      = "the token was issued by another issuer"
	whyAudience    = "the token was not issued for this resource"
	whyAlgorithm   = "the token's signing algorithm is not allowed"
	whySignature   = "the token's signature is invalid"
	whyTooLarge    = "the token is too large (over 8192 bytes)"
	whyNoToken     = "a bearer token is required"
	whyNoScope     = "the token lacks a required scope"
	whyMalformedHd = "malformed Authorization header"
)

// readyz returns the binary's /readyz answer.
func readyz(t *testing.T, w *accessWorld) reply {
	t.Helper()
	got, _ := httpDo(t, w.base+"/readyz", "")
	return got
}

// servedSkills is how many skills the binary serves over the teams'
// sources (/readyz counts them): ledger, payroll, tax; deploy, oncall,
// review (engineering's ledger is shadowed, broken-books left out).
const servedSkills = "6"

// until polls poll until it reports true, failing the test after limit.
func until(t *testing.T, limit time.Duration, what string, poll func() bool) {
	t.Helper()
	if !testutil.Within(limit, poll) {
		t.Fatalf("%s: not within %v", what, limit)
	}
}

// TestAccessIssuer: the binary against its authorization server's keys.
// Each case waits for the binary to refetch the keys, which it does at
// most every 10 s (auth.DefaultMinRefetchInterval; serve has no flag for
// it): the cases run at once, each with its own authorization server and
// binary, rather than under -parallel's limit, since they wait, not work.
func TestAccessIssuer(t *testing.T) {
	var wg sync.WaitGroup
	for name, run := range map[string]func(*testing.T){
		"rotation":      testAccessRotation,
		"down at start": testAccessDownAtStart,
		"down mid-run":  testAccessDownMidRun,
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(name, run)
		}()
	}
	wg.Wait()
}

// testAccessRotation: after the issuer rotates its key and retires the
// old one, a token signed with the new key is refused (unknown key, 401)
// until the binary may refetch the keys, then accepted after exactly one
// refetch; a token signed with the retired key, never shown before, is
// refused from then on.
func testAccessRotation(t *testing.T) {
	w := newAccessWorld(t)
	w.serve(t)
	if got := w.issuer.JWKSFetches(t); got != 1 {
		t.Errorf("JWKS fetches after the binary started: %d, want 1", got)
	}
	if got := accepted(t, w, w.issuer.Token(t, authtest.FinanceClient)); got.Status != http.StatusOK {
		t.Fatalf("a token of the first key: %+v", got)
	}
	unseenOld := w.issuer.Token(t, authtest.EngClient)
	w.issuer.Rotate(t)
	kids := w.issuer.Retire(t)
	if len(kids) != 1 {
		t.Fatalf("published after Retire: %v", kids)
	}
	fresh := w.issuer.Token(t, authtest.FinanceClient)
	before := w.issuer.JWKSFetches(t)
	unknown := refusal(w, http.StatusUnauthorized, "invalid_token", whyUnknownKey, "")
	until(t, 30*time.Second, "a token of the new key accepted", func() bool {
		got := accepted(t, w, fresh)
		if got.Status != http.StatusOK && !cmp.Equal(got, unknown) {
			t.Fatalf("a token of the new key before the refetch (-want +got):\n%s", cmp.Diff(unknown, got))
		}
		return got.Status == http.StatusOK
	})
	if got := w.issuer.JWKSFetches(t); got != before+1 {
		t.Errorf("JWKS fetches until the new key was accepted: %d, want 1", got-before)
	}
	if got := accepted(t, w, w.issuer.Token(t, authtest.EngClient)); got.Status != http.StatusOK {
		t.Errorf("another token of the new key: %+v", got)
	}
	if d := cmp.Diff(unknown, accepted(t, w, unseenOld)); d != "" {
		t.Errorf("a token of the retired key (-want +got):\n%s", d)
	}
	noTokens(t, "the server's log", w.logs.String(), fresh, unseenOld)
}

// testAccessDownAtStart: with the issuer down, the binary starts; /readyz
// answers 503 and says why (no host path, no token), and tokens are
// refused with a 401; once the issuer is up, /readyz is 200 and the same
// token is accepted.
func testAccessDownAtStart(t *testing.T) {
	w := newAccessWorld(t)
	token := w.issuer.Token(t, authtest.FinanceClient)
	w.issuer.Stop(t)
	w.serve(t)
	down := reply{Status: http.StatusServiceUnavailable, Body: `{"error":"the identity provider's signing keys are not loaded, so no access token can be verified; see the server log","status":"unavailable"}` + "\n"}
	got := readyz(t, w)
	if d := cmp.Diff(down, got); d != "" {
		t.Errorf("/readyz with the issuer down (-want +got):\n%s", d)
	}
	noHostPath(t, w, "/readyz", got.Body)
	if d := cmp.Diff(refusal(w, http.StatusUnauthorized, "invalid_token", whyNoKeys, ""), accepted(t, w, token)); d != "" {
		t.Errorf("a token with the issuer down (-want +got):\n%s", d)
	}
	w.issuer.Restart(t)
	ready := reply{Status: http.StatusOK, Body: `{"skills":` + servedSkills + `,"status":"ready"}` + "\n"}
	until(t, 30*time.Second, "/readyz ready once the issuer is up", func() bool {
		got := readyz(t, w)
		if got != down && got != ready {
			t.Fatalf("/readyz while the keys are fetched: %+v", got)
		}
		return got == ready
	})
	if got := accepted(t, w, token); got.Status != http.StatusOK {
		t.Errorf("the token once the issuer is up: %+v", got)
	}
	noTokens(t, "the server's log", w.logs.String(), token)
	noHostPath(t, w, "the server's log", w.logs.String())
}

// degraded is /readyz while the keys cannot be refreshed.
var degraded = regexp.MustCompile(`^\{"reason":"the identity provider's signing keys cannot be refreshed \(verifying tokens with the 1 keys fetched at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\); see the server log","skills":` + servedSkills + `,"status":"degraded"\}` + "\n$")

// testAccessDownMidRun: with the issuer gone after the binary loaded its
// key, tokens of that key keep working (seen before or not); a token of a
// key it never loaded gets a 401, never a 5xx, and once the binary has
// tried to fetch it, /readyz says degraded.
func testAccessDownMidRun(t *testing.T) {
	w := newAccessWorld(t)
	w.serve(t)
	seen := w.issuer.Token(t, authtest.FinanceClient)
	if got := accepted(t, w, seen); got.Status != http.StatusOK {
		t.Fatalf("a token with the issuer up: %+v", got)
	}
	unseen := w.issuer.Token(t, authtest.EngClient)
	w.issuer.Rotate(t)
	rotated := w.issuer.Token(t, authtest.FinanceClient)
	w.issuer.Stop(t)
	for _, tok := range []string{seen, unseen} {
		if got := accepted(t, w, tok); got.Status != http.StatusOK {
			t.Errorf("a token of the loaded key, the issuer down: %+v", got)
		}
	}
	unknown := refusal(w, http.StatusUnauthorized, "invalid_token", whyUnknownKey, "")
	ready := reply{Status: http.StatusOK, Body: `{"skills":` + servedSkills + `,"status":"ready"}` + "\n"}
	var last reply
	until(t, 30*time.Second, "/readyz degraded", func() bool {
		if d := cmp.Diff(unknown, accepted(t, w, rotated)); d != "" {
			t.Fatalf("a token of an unknown key, the issuer down (-want +got):\n%s", d)
		}
		last = readyz(t, w)
		if last != ready && (last.Status != http.StatusOK || !degraded.MatchString(last.Body)) {
			t.Fatalf("/readyz with the issuer down: %+v", last)
		}
		return last != ready
	})
	noHostPath(t, w, "/readyz", last.Body)
	for _, tok := range []string{seen, unseen} {
		if got := accepted(t, w, tok); got.Status != http.StatusOK {
			t.Errorf("a token of the loaded key while degraded: %+v", got)
		}
	}
	noTokens(t, "the server's log", w.logs.String(), seen, unseen, rotated)
}

// TestAccessRefusedTokens: every token the binary must refuse, each with
// its exact status, WWW-Authenticate challenge and body, an audit line
// with the reason, and the token in neither the audit log nor the
// server's log.
func TestAccessRefusedTokens(t *testing.T) {
	w := newAccessWorld(t)
	foreign := authtest.Start(t, authtest.Options{Resources: []string{w.url}, KeysFrom: w.issuer}) // another issuer, the same keys
	w.serve(t, "--oauth-scopes", authtest.ReadScope)
	good := w.issuer.Token(t, authtest.ScopedClient)
	parts := strings.Split(good, ".")
	var header, claims map[string]any
	decodePart(t, good, 0, &header)
	decodePart(t, good, 1, &claims)
	with := func(m map[string]any, kv ...any) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	now := time.Now().Unix()
	pemKey, jwkJSON := publicKeyPEM(t, w.issuer)
	hsHeader := encodePart(t, with(header, "alg", "HS256"))
	sig := []byte(parts[2])
	// Another base64url letter (flipping bits could make '_' a backslash,
	// which a bearer token may not hold: a malformed header, not a bad
	// signature).
	if sig[10] == 'A' {
		sig[10] = 'B'
	} else {
		sig[10] = 'A'
	}
	pad := make([]byte, 4500)
	rand.Read(pad)

	const scope = authtest.ReadScope
	invalid := func(why string) reply { return refusal(w, http.StatusUnauthorized, "invalid_token", why, scope) }
	malformed := func(detail string) reply {
		return refusal(w, http.StatusBadRequest, "invalid_request", whyMalformedHd+": "+detail, scope)
	}
	cases := []refusedCase{
		{"no token", nil, refusal(w, http.StatusUnauthorized, "", whyNoToken, scope)},
		{"another scheme", []string{"Basic ZmluYW5jZTpzZWNyZXQ="}, refusal(w, http.StatusUnauthorized, "", whyNoToken, scope)},
		{"expired", []string{"Bearer " + w.issuer.Sign(t, with(claims, "iat", now-7200, "exp", now-3600, "jti", "expired"))}, invalid(whyExpired)},
		{"foreign issuer", []string{"Bearer " + foreign.Token(t, authtest.ScopedClient)}, invalid(whyIssuer)},
		{"foreign audience", []string{"Bearer " + w.issuer.TokenFor(t, authtest.TokenRequest{Client: authtest.ScopedClient, Resource: accessForeignResource})}, invalid(whyAudience)},
		{"alg none", []string{"Bearer " + encodePart(t, with(header, "alg", "none")) + "." + parts[1] + "."}, invalid(whyAlgorithm)},
		{"HMAC keyed by the public key's PEM", []string{"Bearer " + hs256(hsHeader, parts[1], pemKey)}, invalid(whyAlgorithm)},
		{"HMAC keyed by the public JWK", []string{"Bearer " + hs256(hsHeader, parts[1], jwkJSON)}, invalid(whyAlgorithm)},
		{"payload altered", []string{"Bearer " + parts[0] + "." + encodePart(t, with(claims, "groups", []string{"finance"})) + "." + parts[2]}, invalid(whySignature)},
		{"signature altered", []string{"Bearer " + parts[0] + "." + parts[1] + "." + string(sig)}, invalid(whySignature)},
		{"oversize (signed by the issuer)", []string{"Bearer " + w.issuer.Sign(t, with(claims, "pad", hex.EncodeToString(pad)))}, invalid(whyTooLarge)},
		{"two tokens", []string{"Bearer " + good + " " + good}, malformed("more than one token after Bearer")},
		{"no token after Bearer", []string{"Bearer"}, malformed("no token after Bearer")},
		{"characters outside b64token", []string{"Bearer " + parts[1] + "@" + parts[2]}, malformed("the token has characters a bearer token may not have")},
		{"two Authorization fields", []string{"Bearer " + good, "Bearer " + good}, malformed("more than one Authorization field")},
		{"no scope", []string{"Bearer " + w.issuer.Token(t, authtest.FinanceClient)}, refusal(w, http.StatusForbidden, "insufficient_scope", whyNoScope, scope)},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := []string{"X-Request-Id", tc.id(i)}
			for _, v := range tc.header {
				h = append(h, "Authorization", v)
			}
			got, _ := httpDo(t, w.url, initializeBody, h...)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
	if got := accepted(t, w, good); got.Status != http.StatusOK {
		t.Errorf("the token the others were made from: %+v", got)
	}
	checkRefusalsAudited(t, w, cases, good)
}

// refusedCase is a request the binary must refuse for its credentials.
type refusedCase struct {
	name   string
	header []string // its Authorization fields
	want   reply
}

// id is the X-Request-Id the test sends with case i.
func (refusedCase) id(i int) string { return fmt.Sprintf("refused-%02d", i) }

// checkRefusalsAudited: each refused request has its audit line, denied
// for the reason the answer gave, and no token is in the audit log or in
// the server's log.
func checkRefusalsAudited(t *testing.T, w *accessWorld, cases []refusedCase, good string) {
	tokens := []string{good}
	for _, c := range cases {
		for _, v := range c.header {
			if _, tok, ok := strings.Cut(v, " "); ok {
				tokens = append(tokens, strings.Fields(tok)...)
			}
		}
	}
	type line struct{ Method, Decision, Reason string }
	var got map[string]line
	until(t, 10*time.Second, "an audit line for each refused request", func() bool { // the log is written behind serving
		got = map[string]line{}
		for _, m := range readAudit(t, w) {
			id, _ := m["request_id"].(string)
			if strings.HasPrefix(id, "refused-") {
				got[id] = line{fmt.Sprint(m["method"]), fmt.Sprint(m["decision"]), fmt.Sprint(m["reason"])}
			}
		}
		return len(got) >= len(cases)
	})
	for i, c := range cases {
		var body struct {
			Description string `json:"error_description"`
		}
		json.Unmarshal([]byte(c.want.Body), &body)
		if d := cmp.Diff(line{"POST /mcp", "deny", body.Description}, got[c.id(i)]); d != "" {
			t.Errorf("%s: audit line (-want +got)\n%s", c.name, d)
		}
	}
	raw, err := os.ReadFile(w.audit)
	if err != nil {
		t.Fatal(err)
	}
	noTokens(t, "the audit log", string(raw), tokens...)
	noTokens(t, "the server's log", w.logs.String(), tokens...)
}
