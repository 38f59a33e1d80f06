// Package access decides what a caller may see: a Principal (who is
// calling, as a transport authenticated it) and a Policy (which sources
// and skills each principal may see). It knows no transport, token
// format or tool wording; package auth turns bearer tokens into
// principals, and the server filters every answer through a Policy.
package access

import (
	"context"
	"slices"
	"time"
)

// Principal is an authenticated caller. Its fields come from a verified
// access token (or a static token's entry); none of them is a secret, and
// a Principal never holds the token itself.
type Principal struct {
	// Subject is the token's "sub" claim: the user or service acting.
	Subject string
	// ClientID is the OAuth client the token was issued to ("client_id",
	// else "azp"); empty for static tokens.
	ClientID string
	// Groups are the caller's groups, from the token's groups claim (or a
	// static token's entry), in the order given, without duplicates.
	Groups []string
	// Scopes are the OAuth scopes the token grants (its "scope" claim,
	// split on spaces).
	Scopes []string
	// Expires is when the token stops being accepted (its "exp" claim,
	// plus the verifier's leeway); zero for tokens that do not expire
	// (static tokens) and callers without one (stdio). What outlives a
	// request — a stream, a session's notifications — ends with it.
	Expires time.Time
}

// Expired reports whether p's token has expired at now; a nil principal
// and one without an expiry never do.
func (p *Principal) Expired(now time.Time) bool {
	return p != nil && !p.Expires.IsZero() && !now.Before(p.Expires)
}

// HasScope reports whether p was granted scope.
func (p *Principal) HasScope(scope string) bool {
	return p != nil && slices.Contains(p.Scopes, scope)
}

// principalKey is the context key of a request's principal.
type principalKey struct{}

// NewContext returns ctx carrying p, the principal a transport
// authenticated: the HTTP guard puts it in a request's context, and the
// server reads it there (FromContext), so neither imports the other.
func NewContext(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the principal NewContext put in ctx, if any.
func FromContext(ctx context.Context) (*Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(*Principal)
	return p, ok && p != nil
}
