// Package access decides what a caller may see: a Principal (who is
// calling, as a transport authenticated it) and a Policy (which sources
// and skills each principal may see). It knows no transport, token
// format or tool wording; package auth turns bearer tokens into
// principals, and the server filters every answer through a Policy.
package access

import "slices"

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
}

// HasScope reports whether p was granted scope.
func (p *Principal) HasScope(scope string) bool {
	return p != nil && slices.Contains(p.Scopes, scope)
}
