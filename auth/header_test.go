package auth

import (
	"errors"
	"net/http/httptest"
	"testing"
)

func TestBearerToken(t *testing.T) {
	cases := []struct {
		name    string
		headers []string // Authorization fields
		token   string
		err     error
	}{
		{"none", nil, "", ErrNoToken},
		{"Basic", []string{"Basic dXNlcjpwYXNz"}, "", ErrNoToken},
		{"scheme glued to token", []string{"Bearerabc"}, "", ErrNoToken},
		{"tab after scheme", []string{"Bearer\tabc"}, "", ErrNoToken},
		{"Bearer", []string{"Bearer abc"}, "abc", nil},
		{"lower-case scheme", []string{"bearer abc"}, "abc", nil},
		{"upper-case scheme", []string{"BEARER abc"}, "abc", nil},
		{"several spaces", []string{"Bearer    abc"}, "abc", nil},
		{"JWT characters", []string{"Bearer eyJ.a-b_c.d~e+f/g=="}, "eyJ.a-b_c.d~e+f/g==", nil},
		{"surrounding spaces", []string{"  Bearer abc  "}, "abc", nil},
		{"no token", []string{"Bearer"}, "", ErrMalformedHeader},
		{"only spaces after scheme", []string{"Bearer    "}, "", ErrMalformedHeader},
		{"two tokens", []string{"Bearer abc def"}, "", ErrMalformedHeader},
		{"comma", []string{"Bearer abc,def"}, "", ErrMalformedHeader},
		{"tab inside", []string{"Bearer abc\tdef"}, "", ErrMalformedHeader},
		{"= inside", []string{"Bearer ab=c"}, "", ErrMalformedHeader},
		{"only =", []string{"Bearer ==="}, "", ErrMalformedHeader},
		{"quote", []string{`Bearer a"b`}, "", ErrMalformedHeader},
		{"non-ASCII", []string{"Bearer abcé"}, "", ErrMalformedHeader},
		{"two fields", []string{"Bearer abc", "Bearer def"}, "", ErrMalformedHeader},
		{"Bearer and Basic fields", []string{"Basic x", "Bearer def"}, "", ErrMalformedHeader},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/mcp", nil)
			for _, h := range tc.headers {
				r.Header.Add("Authorization", h)
			}
			token, err := BearerToken(r)
			if token != tc.token || !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
				t.Errorf("got %q, %v; want %q, %v", token, err, tc.token, tc.err)
			}
		})
	}
}
