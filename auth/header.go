package auth

import (
	"fmt"
	"net/http"
	"strings"
)

// BearerToken returns the token of the request's "Authorization: Bearer
// TOKEN" header (RFC 6750, 2.1). The scheme is case-insensitive (RFC 9110,
// 11.1) and may be followed by several spaces. It returns ErrNoToken when
// the request has no Authorization header or one with another scheme, and
// an error wrapping ErrMalformedHeader when there are two Authorization
// fields, no token after the scheme, more than one token, or a token with
// characters outside b64token. The error never holds the header's value.
// The token is not checked against any size limit here.
func BearerToken(r *http.Request) (string, error) {
	values := r.Header.Values("Authorization")
	switch len(values) {
	case 0:
		return "", ErrNoToken
	case 1:
	default:
		return "", fmt.Errorf("%w: more than one Authorization field", ErrMalformedHeader)
	}
	v := strings.Trim(values[0], " \t")
	scheme, rest, _ := strings.Cut(v, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", ErrNoToken
	}
	token := strings.TrimLeft(rest, " ")
	switch {
	case token == "":
		return "", fmt.Errorf("%w: no token after Bearer", ErrMalformedHeader)
	case strings.ContainsAny(token, " \t,"):
		return "", fmt.Errorf("%w: more than one token after Bearer", ErrMalformedHeader)
	case !isB64Token(token):
		return "", fmt.Errorf("%w: the token has characters a bearer token may not have", ErrMalformedHeader)
	}
	return token, nil
}

// isB64Token reports whether s is RFC 6750's b64token:
// 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isB64Token(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' {
			continue
		}
		break
	}
	if i == 0 {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] != '=' {
			return false
		}
	}
	return true
}
