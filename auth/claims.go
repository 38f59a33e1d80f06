package auth

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4/json"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/skillstore/skillstore/access"
)

// principal checks the verified claims at now and builds the caller's
// principal, returning also the time the verification stops holding
// (exp plus the leeway).
func (v *Verifier) principal(raw map[string]json.RawMessage, now time.Time) (*access.Principal, time.Time, error) {
	var c jwt.Claims
	if err := decodeClaims(raw, &c); err != nil {
		return nil, time.Time{}, err
	}
	err := c.ValidateWithLeeway(jwt.Expected{Issuer: v.issuer, AnyAudience: jwt.Audience{v.resource}, Time: now}, v.leeway)
	switch {
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return nil, time.Time{}, ErrIssuer
	case errors.Is(err, jwt.ErrInvalidAudience):
		return nil, time.Time{}, ErrAudience
	case errors.Is(err, jwt.ErrExpired):
		return nil, time.Time{}, ErrExpired
	case errors.Is(err, jwt.ErrNotValidYet), errors.Is(err, jwt.ErrIssuedInTheFuture):
		return nil, time.Time{}, ErrNotYetValid
	case err != nil:
		return nil, time.Time{}, ErrClaims
	case c.Expiry == nil:
		return nil, time.Time{}, fmt.Errorf("%w: no exp claim", ErrClaims)
	case c.Subject == "":
		return nil, time.Time{}, fmt.Errorf("%w: no sub claim", ErrClaims)
	case len(c.Subject) > MaxValueBytes:
		return nil, time.Time{}, fmt.Errorf("%w: the sub claim is over %d bytes", ErrClaims, MaxValueBytes)
	}
	client, err := clientID(raw)
	if err != nil {
		return nil, time.Time{}, err
	}
	scopes, err := scopes(raw)
	if err != nil {
		return nil, time.Time{}, err
	}
	groups, err := v.groups(raw)
	if err != nil {
		return nil, time.Time{}, err
	}
	until := c.Expiry.Time().Add(v.leeway)
	return v.newPrincipal(c.Subject, client, groups, scopes, until), until, nil
}

// newPrincipal builds a principal whose token is accepted until expires,
// sharing the client id and the group and scope lists with other
// principals that have the same.
func (v *Verifier) newPrincipal(subject, client string, groups, scopes []string, expires time.Time) *access.Principal {
	return &access.Principal{
		Subject:  subject,
		ClientID: v.intern.str(client),
		Groups:   v.intern.list(groups),
		Scopes:   v.intern.list(scopes),
		Expires:  expires,
	}
}

// decodeClaims reads the registered claims this package checks.
func decodeClaims(raw map[string]json.RawMessage, c *jwt.Claims) error {
	fields := []struct {
		name string
		dst  any
	}{
		{"iss", &c.Issuer}, {"sub", &c.Subject}, {"aud", &c.Audience},
		{"exp", &c.Expiry}, {"nbf", &c.NotBefore}, {"iat", &c.IssuedAt},
	}
	for _, f := range fields {
		if b, ok := raw[f.name]; ok {
			if err := json.Unmarshal(b, f.dst); err != nil {
				return fmt.Errorf("%w: the %s claim has the wrong type", ErrClaims, f.name)
			}
		}
	}
	return nil
}

// clientID returns the client_id claim, else azp, else "".
func clientID(raw map[string]json.RawMessage) (string, error) {
	for _, name := range []string{"client_id", "azp"} {
		b, ok := raw[name]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(b, &s) != nil {
			return "", fmt.Errorf("%w: the %s claim is not a string", ErrClaims, name)
		}
		if len(s) > MaxValueBytes {
			return "", fmt.Errorf("%w: the %s claim is over %d bytes", ErrClaims, name, MaxValueBytes)
		}
		return s, nil
	}
	return "", nil
}

// scopes returns the scope claim split on spaces, else scp (an array, or
// a space-separated string).
func scopes(raw map[string]json.RawMessage) ([]string, error) {
	for _, name := range []string{"scope", "scp"} {
		b, ok := raw[name]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(b, &s) == nil {
			return bounded(name, strings.Fields(s), MaxScopes)
		}
		var list []string
		if name == "scp" && json.Unmarshal(b, &list) == nil {
			return bounded(name, list, MaxScopes)
		}
		return nil, fmt.Errorf("%w: the %s claim is not a string", ErrClaims, name)
	}
	return nil, nil
}

// groups returns the groups claim, an array of strings.
func (v *Verifier) groups(raw map[string]json.RawMessage) ([]string, error) {
	b, ok := raw[v.groupsClaim]
	if !ok || string(b) == "null" {
		return nil, nil
	}
	var list []string
	if json.Unmarshal(b, &list) != nil {
		return nil, fmt.Errorf("%w: the %s claim is not an array of strings", ErrClaims, v.groupsClaim)
	}
	return bounded(v.groupsClaim, list, v.maxGroups)
}

// bounded checks the count and lengths of a claim's values and returns
// them without empty strings or duplicates, in the order given.
func bounded(claim string, values []string, maxCount int) ([]string, error) {
	if len(values) > maxCount {
		return nil, fmt.Errorf("%w: the %s claim has more than %d values", ErrClaims, claim, maxCount)
	}
	out := values[:0]
	var seen map[string]bool
	for _, s := range values {
		if len(s) > MaxValueBytes {
			return nil, fmt.Errorf("%w: a value of the %s claim is over %d bytes", ErrClaims, claim, MaxValueBytes)
		}
		if s == "" {
			continue
		}
		if len(values) > 8 {
			if seen == nil {
				seen = make(map[string]bool, len(values))
			}
			if seen[s] {
				continue
			}
			seen[s] = true
		} else if slices.Contains(out, s) {
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
