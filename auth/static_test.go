package auth

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/access"
)

func TestStaticTokens(t *testing.T) {
	file := fmt.Sprintf(`# two teams
tokens:
  - sha256: %s
    subject: ci-finance
    groups: [finance, finance, audit]
    scopes: [skills:read]
  - sha256: %s
    subject: ci-ops
`, HashToken("finance-secret"), strings.ToUpper(HashToken("ops-secret")))
	s, err := ParseStaticTokens([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		token string
		want  *access.Principal
		err   error
	}{
		{"finance-secret", &access.Principal{Subject: "ci-finance", Groups: []string{"finance", "audit"}, Scopes: []string{"skills:read"}}, nil},
		{"ops-secret", &access.Principal{Subject: "ci-ops"}, nil},
		{"finance-secret2", nil, ErrUnknownToken},
		{"", nil, ErrUnknownToken},
		{strings.Repeat("x", DefaultMaxTokenBytes+1), nil, ErrTokenTooLarge},
	}
	for _, tc := range cases {
		p, err := s.Authenticate(context.Background(), tc.token)
		if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
			t.Errorf("%.20s: error %v; want %v", tc.token, err, tc.err)
		}
		if d := cmp.Diff(tc.want, p); d != "" {
			t.Errorf("%.20s: principal (-want +got):\n%s", tc.token, d)
		}
	}
	if s.Len() != 2 {
		t.Errorf("Len %d", s.Len())
	}
}

// TestHashTokenMatchesSha256sum checks the documented command.
func TestHashTokenMatchesSha256sum(t *testing.T) {
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("no sha256sum")
	}
	cmd := exec.Command("sh", "-c", `printf %s "$TOKEN" | sha256sum`)
	cmd.Env = append(cmd.Environ(), "TOKEN=s3cr3t-t0ken")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := strings.Cut(string(out), " "); got != HashToken("s3cr3t-t0ken") {
		t.Errorf("sha256sum says %s, HashToken %s", got, HashToken("s3cr3t-t0ken"))
	}
}

func TestStaticTokensRefused(t *testing.T) {
	h := HashToken("x")
	const secret = "tok-9f8e7d6c5b4a"
	cases := []struct {
		name, file string
		want       []string // each a line of the error
	}{
		{"empty", ``, []string{"static tokens: line 1: the file is empty; it must hold a tokens: list"}},
		{"not a mapping", `- a`, []string{"static tokens: line 1: expected a mapping with a tokens: list"}},
		{"unknown top key", "tokens:\n  - {sha256: " + h + ", subject: a}\ntokenz: []\n",
			[]string{`static tokens: line 3: unknown key "tokenz" (known: tokens)`}},
		{"no list", "tokens: 3\n", []string{"static tokens: line 1: tokens: must be a list"}},
		{"empty list", "tokens: []\n", []string{"static tokens: line 1: the tokens: list is empty"}},
		{"unknown entry key", "tokens:\n  - sha256: " + h + "\n    subject: a\n    grups: [x]\n",
			[]string{`static tokens: line 4: unknown key "grups" (known: sha256, subject, groups, scopes)`}},
		{"a token pasted as a key is not echoed", "tokens:\n  - sha256: " + h + "\n    subject: a\n    " + secret + ": 1\n",
			[]string{`static tokens: line 4: unknown key (known: sha256, subject, groups, scopes)`}},
		{"a token pasted as the hash is not echoed", "tokens:\n  - sha256: " + secret + "\n    subject: a\n",
			[]string{`static tokens: line 2: sha256 must be 64 hex digits, the token's SHA-256; compute it with: printf %s "$TOKEN" | sha256sum`,
				"static tokens: line 2: the entry has no valid sha256"}},
		{"sha256sum output", "tokens:\n  - sha256: " + h + "  -\n    subject: a\n",
			[]string{`static tokens: line 2: sha256 must be 64 hex digits, the token's SHA-256 (leave out sha256sum's trailing "-"); compute it with: printf %s "$TOKEN" | sha256sum`,
				"static tokens: line 2: the entry has no valid sha256"}},
		{"no subject", "tokens:\n  - sha256: " + h + "\n", []string{"static tokens: line 2: the entry has no subject"}},
		{"duplicate", "tokens:\n  - sha256: " + h + "\n    subject: a\n  - sha256: " + strings.ToUpper(h) + "\n    subject: b\n",
			[]string{"static tokens: line 4: the same sha256 as the entry on line 2"}},
		{"groups not a list", "tokens:\n  - sha256: " + h + "\n    subject: a\n    groups: finance\n",
			[]string{"static tokens: line 4: groups must be a list of strings"}},
		{"scope with a quote", "tokens:\n  - sha256: " + h + "\n    subject: a\n    scopes: ['a\"b']\n",
			[]string{"static tokens: line 4: a scope may not contain spaces, quotes or backslashes"}},
		{"too many groups", "tokens:\n  - sha256: " + h + "\n    subject: a\n    groups: [" + strings.Join(manyStrings(DefaultMaxGroups+1), ",") + "]\n",
			[]string{"static tokens: line 4: groups has more than 256 values"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseStaticTokens([]byte(tc.file))
			if err == nil {
				t.Fatalf("accepted: %d tokens", s.Len())
			}
			if d := cmp.Diff(tc.want, strings.Split(err.Error(), "\n")); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the error quotes the secret: %v", err)
			}
		})
	}
}
