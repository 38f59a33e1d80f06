package auth

import (
	"context"
	"encoding/base64"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// marker is planted in every hostile token: no error, challenge or body
// may contain it.
const marker = "EVILMARKER"

// TestNoTokenInErrors sends hostile tokens through every surface of the
// package and checks that no answer holds the token, one of its parts
// or anything decoded from it.
func TestNoTokenInErrors(t *testing.T) {
	f := newIssuer(t, rsaKey, edKey)
	now := time.Now()
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	valid := claims(f.URL, now)
	with := func(k string, val any) map[string]any {
		c := claims(f.URL, now)
		c[k] = val
		return c
	}
	tokens := map[string]string{
		"alg":             rawToken(map[string]string{"alg": marker, "typ": "at+jwt"}, valid, []byte("sig")),
		"kid":             mint(t, signingKey{marker, edKey.alg, edKey.key}, "at+jwt", valid),
		"typ":             mint(t, edKey, marker, valid),
		"iss":             mint(t, edKey, "at+jwt", with("iss", marker)),
		"aud":             mint(t, edKey, "at+jwt", with("aud", marker)),
		"sub type":        mint(t, edKey, "at+jwt", with("sub", map[string]string{marker: marker})),
		"groups type":     mint(t, edKey, "at+jwt", with("groups", marker)),
		"client_id type":  mint(t, edKey, "at+jwt", with("client_id", []string{marker})),
		"exp type":        mint(t, edKey, "at+jwt", with("exp", marker)),
		"header not JSON": b64(`{"alg":`+marker+`}`) + "." + b64(`{}`) + "." + b64("x"),
		"payload not JSON": func() string {
			return signRaw(t, edKey, []byte(marker))
		}(),
		"bad base64":    marker + "!!." + marker + "." + marker,
		"control chars": marker + "\r\nSet-Cookie: " + marker,
		"quotes":        `EVIL"MARKER\` + marker,
		"oversize":      strings.Repeat(marker, DefaultMaxTokenBytes/len(marker)+1),
		"tampered":      tamper(mint(t, edKey, "at+jwt", valid), with("sub", marker)),
		"HMAC":          hmacConfusion(t, rsaKey, with("sub", marker)),
		"none":          rawToken(map[string]string{"alg": "none", "kid": marker}, with("sub", marker), nil),
		"opaque":        marker + "-opaque-token-0123456789",
	}
	static, _ := ParseStaticTokens([]byte("tokens:\n  - sha256: " + HashToken("s") + "\n    subject: s\n"))
	v := newVerifier(t, f, nil)
	rs, err := NewResourceServer(ResourceConfig{Resource: testResource, Authenticator: Chain(static, v)})
	if err != nil {
		t.Fatal(err)
	}
	for name, tok := range tokens {
		t.Run(name, func(t *testing.T) {
			var texts []string
			for _, a := range []Authenticator{v, static, Chain(static, v)} {
				p, err := a.Authenticate(context.Background(), tok)
				if err == nil {
					t.Fatalf("%T accepted a hostile token as %+v", a, p)
				}
				texts = append(texts, err.Error())
			}
			r := httptest.NewRequest("POST", "/mcp", nil)
			r.Header["Authorization"] = []string{"Bearer " + tok}
			w := httptest.NewRecorder()
			rs.Require(nil).ServeHTTP(w, r)
			if w.Code != 400 && w.Code != 401 {
				t.Errorf("status %d", w.Code)
			}
			texts = append(texts, w.Header().Get("WWW-Authenticate"), w.Body.String())
			for _, text := range texts {
				checkClean(t, text, tok)
			}
		})
	}
}

// checkClean fails if text holds the token, a part of it of 6 bytes or
// more, the marker, or a quoted library error.
func checkClean(t *testing.T, text, tok string) {
	t.Helper()
	bad := []string{tok, marker, "go-jose", "invalid character", "illegal base64"}
	for _, part := range strings.FieldsFunc(tok, func(r rune) bool { return r == '.' || r == ' ' || r == '\n' }) {
		if len(part) >= 6 {
			bad = append(bad, part)
		}
	}
	for _, b := range bad {
		if strings.Contains(text, b) {
			t.Errorf("%q holds %.40q", text, b)
		}
	}
}
