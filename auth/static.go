package auth

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillstore/skillstore/access"
)

// StaticTokens maps opaque bearer tokens, known only by their SHA-256, to
// principals: for setups without an identity provider. It is read from a
// YAML file:
//
//	# one entry per token; the token itself is never stored
//	tokens:
//	  - sha256: 2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae
//	    subject: ci-finance        # required
//	    groups: [finance]          # optional
//	    scopes: [skills:read]      # optional
//
// A token's hash is what `printf %s "$TOKEN" | sha256sum` prints before
// its "-", or HashToken(token). Tokens must be RFC 6750 b64tokens (letters,
// digits and -._~+/, then any "=") to be sent in a Bearer header; `openssl
// rand -hex 32` makes one.
//
// Lookups are by hash in a map, not by a constant-time comparison: the
// timing of a map lookup can reveal at most something about the hash of
// a guess, and SHA-256 is preimage-resistant, so it does not help find a
// token. A StaticTokens is immutable and safe for concurrent use.
type StaticTokens struct {
	byHash map[[32]byte]*access.Principal
}

// HashToken returns the lowercase hex SHA-256 of token, as a static
// tokens file lists it.
func HashToken(token string) string {
	sum := tokenHash(token)
	return hex.EncodeToString(sum[:])
}

// Authenticate returns the principal the file names for token, or
// ErrUnknownToken (ErrTokenTooLarge over DefaultMaxTokenBytes). The
// principal is shared and must not be modified.
func (s *StaticTokens) Authenticate(_ context.Context, token string) (*access.Principal, error) {
	if len(token) > DefaultMaxTokenBytes {
		return nil, fmt.Errorf("%w (over %d bytes)", ErrTokenTooLarge, DefaultMaxTokenBytes)
	}
	if p, ok := s.byHash[tokenHash(token)]; ok {
		return p, nil
	}
	return nil, ErrUnknownToken
}

// Len returns the number of tokens.
func (s *StaticTokens) Len() int { return len(s.byHash) }

// maxFileErrors bounds the problems one parse reports.
const maxFileErrors = 10

// ParseStaticTokens reads a static tokens file (see StaticTokens). It
// refuses unknown keys, hashes that are not 64 hex digits, duplicate
// hashes, entries without a subject, values over MaxValueBytes, more than
// DefaultMaxGroups groups or MaxScopes scopes, and a file with no
// tokens. Errors name the line (the caller adds the file's name); they
// quote no value, so a token pasted by mistake in place of its hash is
// not echoed.
func ParseStaticTokens(data []byte) (*StaticTokens, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("static tokens: %w", err)
	}
	p := staticParser{out: &StaticTokens{byHash: map[[32]byte]*access.Principal{}}, lines: map[[32]byte]int{}}
	p.file(&doc)
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return p.out, nil
}

// staticParser walks a static tokens document, collecting errors.
type staticParser struct {
	out   *StaticTokens
	lines map[[32]byte]int // the line each hash was defined on
	errs  []error
}

// fail records a problem at line.
func (p *staticParser) fail(line int, format string, args ...any) {
	if len(p.errs) < maxFileErrors {
		p.errs = append(p.errs, fmt.Errorf("static tokens: line %d: %s", line, fmt.Sprintf(format, args...)))
	}
}

// file reads the top level: a mapping whose only key is tokens.
func (p *staticParser) file(doc *yaml.Node) {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		p.fail(1, "the file is empty; it must hold a tokens: list")
		return
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		p.fail(top.Line, "expected a mapping with a tokens: list")
		return
	}
	var list *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Value != "tokens" {
			p.fail(k.Line, "unknown key%s (known: tokens)", keyName(k.Value))
			continue
		}
		list = v
	}
	if list == nil {
		p.fail(top.Line, "no tokens: list")
		return
	}
	if list.Kind != yaml.SequenceNode {
		p.fail(list.Line, "tokens: must be a list")
		return
	}
	for _, item := range list.Content {
		p.entry(item)
	}
	if len(list.Content) == 0 {
		p.fail(list.Line, "the tokens: list is empty")
	}
}

// entry reads one token's entry.
func (p *staticParser) entry(n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		p.fail(n.Line, "a token entry must be a mapping with sha256 and subject")
		return
	}
	var sum [32]byte
	var hasSum bool
	prin := &access.Principal{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "sha256":
			sum, hasSum = p.hash(v)
		case "subject":
			if v.Kind != yaml.ScalarNode || v.Value == "" || len(v.Value) > MaxValueBytes {
				p.fail(v.Line, "subject must be a non-empty string of at most %d bytes", MaxValueBytes)
			}
			prin.Subject = v.Value
		case "groups":
			prin.Groups = p.strings(v, "groups", DefaultMaxGroups, false)
		case "scopes":
			prin.Scopes = p.strings(v, "scopes", MaxScopes, true)
		default:
			p.fail(k.Line, "unknown key%s (known: sha256, subject, groups, scopes)", keyName(k.Value))
		}
	}
	if prin.Subject == "" {
		p.fail(n.Line, "the entry has no subject")
	}
	if !hasSum {
		p.fail(n.Line, "the entry has no valid sha256")
		return
	}
	if first, dup := p.lines[sum]; dup {
		p.fail(n.Line, "the same sha256 as the entry on line %d", first)
		return
	}
	p.lines[sum] = n.Line
	p.out.byHash[sum] = prin
}

// hash reads a sha256 value: 64 hex digits, either case.
func (p *staticParser) hash(v *yaml.Node) ([32]byte, bool) {
	var sum [32]byte
	s := strings.TrimSpace(v.Value)
	if v.Kind == yaml.ScalarNode && len(s) == 64 {
		if _, err := hex.Decode(sum[:], []byte(s)); err == nil {
			return sum, true
		}
	}
	hint := ""
	if strings.HasSuffix(s, "-") {
		hint = " (leave out sha256sum's trailing \"-\")"
	}
	p.fail(v.Line, "sha256 must be 64 hex digits, the token's SHA-256%s; compute it with: printf %%s \"$TOKEN\" | sha256sum", hint)
	return sum, false
}

// strings reads a list of non-empty strings, without duplicates; scope
// values must also be RFC 6749 scope tokens (no spaces or quotes).
func (p *staticParser) strings(v *yaml.Node, key string, maxCount int, scope bool) []string {
	if v.Kind != yaml.SequenceNode {
		p.fail(v.Line, "%s must be a list of strings", key)
		return nil
	}
	if len(v.Content) > maxCount {
		p.fail(v.Line, "%s has more than %d values", key, maxCount)
		return nil
	}
	var out []string
	for _, e := range v.Content {
		switch {
		case e.Kind != yaml.ScalarNode || e.Value == "" || len(e.Value) > MaxValueBytes:
			p.fail(e.Line, "each of %s must be a non-empty string of at most %d bytes", key, MaxValueBytes)
		case scope && !isScopeToken(e.Value):
			p.fail(e.Line, "a scope may not contain spaces, quotes or backslashes")
		default:
			if !slices.Contains(out, e.Value) {
				out = append(out, e.Value)
			}
		}
	}
	return out
}

// isScopeToken reports whether s is RFC 6749's scope-token:
// 1*( %x21 / %x23-5B / %x5D-7E ).
func isScopeToken(s string) bool {
	for _, c := range []byte(s) {
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return s != ""
}

// keyName quotes an unknown key for an error when it looks like a
// mistyped key name (at most 20 letters, "_" or "-"), and otherwise
// says nothing of it: it may be a token pasted in the wrong place.
func keyName(k string) string {
	if len(k) == 0 || len(k) > 20 {
		return ""
	}
	for _, c := range []byte(k) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-') {
			return ""
		}
	}
	return fmt.Sprintf(" %q", k)
}
