// Package auth is the OAuth 2.1 resource-server side of skillstore's HTTP
// serving, as the MCP authorization specification (2025-11-25 and
// 2026-07-28, basic/authorization) asks: it turns the bearer token of an
// HTTP request into an *access.Principal, or into a refusal carrying the
// exact WWW-Authenticate challenge, and serves the Protected Resource
// Metadata (RFC 9728) that tells clients which authorization server to ask.
//
// Three parts, each usable alone:
//
//   - [Verifier] checks JWT access tokens (RFC 9068) from one issuer:
//     signature against the issuer's JWKS (found from its RFC 8414 or
//     OpenID metadata), algorithm allow-list, iss, aud (RFC 8707), exp,
//     nbf, iat and typ; results are cached per token by its SHA-256.
//   - [StaticTokens] maps SHA-256 hashes of opaque tokens, read from a
//     YAML file, to principals with groups, for setups without an
//     identity provider.
//   - [ResourceServer] is the HTTP side: [ResourceServer.Check] and
//     [ResourceServer.Require] answer 400, 401 and 403 with their
//     challenges, and [ResourceServer.ServeMetadata] serves the metadata.
//
// # The JOSE library
//
// Signatures and claims are checked with github.com/go-jose/go-jose/v4
// and its jwt subpackage. It is the maintained successor of
// square/go-jose (moved to the go-jose organisation, with regular security
// releases), its parse functions take an explicit list of the signature
// algorithms the caller accepts, so an algorithm is never chosen by the
// token, and it has no "none" algorithm at all. This package passes it
// asymmetric algorithms only (RS256/384/512, PS256/384/512, ES256/384/512,
// EdDSA) and hands it public keys only, so an HMAC token "signed" with the
// bytes of a public key (algorithm confusion) cannot verify.
//
// # Decisions
//
//   - A token must have the typ header "at+jwt" or "application/at+jwt"
//     (compared case-insensitively); a missing typ is refused by default.
//     RFC 9068, section 4, makes this check a MUST for resource servers:
//     it keeps ID tokens and other JWTs of the same issuer (typ "JWT" or
//     none) from being replayed as access tokens. oidc-provider, the
//     identity provider of the integration tests, sets at+jwt. For
//     providers that do not (Keycloak and Entra ID send "JWT" by default),
//     [VerifierConfig.Types] lists the values to accept; "" stands for a
//     missing typ.
//   - Required claims: iss, aud, exp and sub. iat and nbf are checked when
//     present. client_id is read, else azp. Scopes come from "scope"
//     (space-separated) or else "scp" (an array, or a space-separated
//     string as Entra ID sends it). Groups come from the claim named by
//     [VerifierConfig.GroupsClaim] ("groups" by default) and must be an
//     array of strings. Every value is bounded ([MaxValueBytes]) and so
//     are the counts of groups and scopes; a token over a bound is
//     refused rather than truncated, so a caller never silently loses a
//     group.
//   - A malformed Authorization header (Bearer with no token, with two,
//     or with characters outside RFC 6750's b64token; two Authorization
//     fields) is a 400 with error="invalid_request" (RFC 6750, 3.1). A
//     request without Bearer credentials (no header, or another scheme)
//     is a 401 without an error code. The scheme is case-insensitive
//     (RFC 9110, 11.1): "bearer" is accepted. Tokens are read from the
//     header only, never from the query string (the MCP specification
//     forbids that), so the metadata says bearer_methods_supported
//     ["header"].
//   - Invalid, expired, foreign and unverifiable tokens (unknown key,
//     issuer unreachable) are 401 with error="invalid_token" and a fixed
//     error_description: never a 500, and never the token or any part of
//     it. The reasons are the package's sentinel errors; library errors,
//     which may quote decoded token bytes, are never passed on.
//
// # Security caveats
//
// A cached verification stands until the token expires (plus the leeway):
// removing a key at the issuer does not revoke tokens already verified
// with it. Nothing here logs; callers that log a refusal should log its
// error, which never holds token bytes.
package auth
