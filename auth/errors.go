package auth

import "errors"

// The reasons a request or token is refused. Their texts are fixed and
// safe to show a client (they become error_description), to log and to
// audit: none holds the token, a part of it, or a value decoded from it.
// Match them with errors.Is; some are wrapped with a fixed detail.
var (
	// ErrNoToken: the request carries no Bearer credentials (no
	// Authorization header, or another scheme). Answered 401 without an
	// error code, as RFC 6750, 3.1 asks.
	ErrNoToken = errors.New("a bearer token is required")
	// ErrMalformedHeader: the Authorization header is not "Bearer" and one
	// b64token (RFC 6750, 2.1). Answered 400 invalid_request.
	ErrMalformedHeader = errors.New("malformed Authorization header")
	// ErrTokenTooLarge: the token is over the size limit; it was not parsed.
	ErrTokenTooLarge = errors.New("the token is too large")
	// ErrUnknownToken: no authenticator knows the token (a static token
	// that is not in the file, with no JWT verifier behind it).
	ErrUnknownToken = errors.New("the token is not known")
	// ErrMalformedToken: the token is not a compact JWS with a JSON header
	// and a JSON object payload.
	ErrMalformedToken = errors.New("the token is not a well-formed signed JWT")
	// ErrAlgorithm: the token's alg is not on the allow-list (none, HMAC…).
	ErrAlgorithm = errors.New("the token's signing algorithm is not allowed")
	// ErrType: the token's typ header is not an access token's (RFC 9068).
	ErrType = errors.New("the token's type is not at+jwt")
	// ErrUnknownKey: the token's key id is not in the issuer's key set, even
	// after a refetch (or a refetch was not allowed yet).
	ErrUnknownKey = errors.New("the token's signing key is unknown")
	// ErrKeysUnavailable: the issuer's keys could not be fetched yet.
	ErrKeysUnavailable = errors.New("the issuer's signing keys are not available")
	// ErrSignature: the signature does not verify with the issuer's key.
	ErrSignature = errors.New("the token's signature is invalid")
	// ErrIssuer: iss is not the configured issuer.
	ErrIssuer = errors.New("the token was issued by another issuer")
	// ErrAudience: aud does not contain this server's resource URI.
	ErrAudience = errors.New("the token was not issued for this resource")
	// ErrExpired: exp is past, beyond the leeway.
	ErrExpired = errors.New("the token has expired")
	// ErrNotYetValid: nbf or iat is in the future, beyond the leeway.
	ErrNotYetValid = errors.New("the token is not valid yet")
	// ErrClaims: a claim is missing, of the wrong type or over a bound; the
	// wrapping error says which, in fixed words.
	ErrClaims = errors.New("the token's claims are invalid")
	// ErrInsufficientScope: the token lacks a scope the request requires.
	// Answered 403 insufficient_scope.
	ErrInsufficientScope = errors.New("the token lacks a required scope")
)

// transient reports whether err may go away without the token changing
// (the issuer's keys could not be fetched, or a refetch was not allowed
// yet), so a refusal for it must not be cached.
func transient(err error) bool {
	return errors.Is(err, ErrUnknownKey) || errors.Is(err, ErrKeysUnavailable)
}
