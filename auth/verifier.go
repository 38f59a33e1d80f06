package auth

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/json"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/skillstore/skillstore/access"
)

// Limits and defaults of a Verifier; VerifierConfig overrides most.
const (
	// DefaultMaxTokenBytes bounds a token before it is hashed or parsed.
	DefaultMaxTokenBytes = 8 << 10
	// DefaultLeeway is the clock skew allowed on exp, nbf and iat.
	DefaultLeeway = 30 * time.Second
	// DefaultMaxGroups bounds the groups of one token.
	DefaultMaxGroups = 256
	// MaxScopes bounds the scopes of one token.
	MaxScopes = 256
	// MaxValueBytes bounds sub, client_id and each group and scope.
	MaxValueBytes = 1024
	// DefaultMinRefetchInterval is the least time between two fetches of
	// the issuer's keys caused by unknown key ids or start-up retries.
	DefaultMinRefetchInterval = 10 * time.Second
	// DefaultRefreshInterval is how often loaded keys are refetched, so
	// that keys removed at the issuer are dropped.
	DefaultRefreshInterval = 5 * time.Minute
	// DefaultFetchTimeout bounds one fetch of the issuer's keys,
	// discovery and bodies included.
	DefaultFetchTimeout = 10 * time.Second
	// DefaultMaxKeySetBytes bounds a metadata document or key set.
	DefaultMaxKeySetBytes = 1 << 20
	// DefaultCacheSize is the number of accepted tokens remembered: about
	// 330 bytes each with two groups and two scopes (BenchmarkCacheMemory),
	// so about 32 MiB when full.
	DefaultCacheSize = 100_000
	// DefaultNegativeCacheSize is the number of refused tokens remembered.
	DefaultNegativeCacheSize = 10_000
	// DefaultNegativeCacheTTL is how long a refused token is remembered.
	DefaultNegativeCacheTTL = 10 * time.Second
	// maxCandidates bounds the keys one token is tried against (a token
	// without kid, or a key set with a kid used more than once).
	maxCandidates = 3
)

// allowedAlgorithms are the only algorithms a Verifier accepts: asymmetric
// signatures. Never "none", never HMAC.
var allowedAlgorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.EdDSA,
}

// VerifierConfig configures a Verifier. Issuer and Resource are required;
// a zero field takes its default, and a negative size or duration turns
// the feature off where that is said.
type VerifierConfig struct {
	// Issuer is the authorization server's issuer identifier: its metadata
	// must name exactly it, and so must every token's iss. It must be
	// https, or http on a loopback host (or anywhere with AllowHTTP).
	Issuer string
	// Resource is this server's canonical URI (RFC 8707): a token's aud
	// must contain it, compared as an exact string.
	Resource string
	// Algorithms narrows the accepted signature algorithms; each must be
	// one of RS256/384/512, PS256/384/512, ES256/384/512, EdDSA (the
	// default: all of them). "none" and HMAC are refused.
	Algorithms []string
	// Types are the accepted typ header values, compared case-
	// insensitively; "" accepts a token without typ. Default: "at+jwt"
	// and "application/at+jwt" (RFC 9068).
	Types []string
	// GroupsClaim names the claim holding the caller's groups, an array of
	// strings. Default "groups".
	GroupsClaim string
	// Leeway is the clock skew allowed on exp, nbf and iat. Default
	// DefaultLeeway; negative: none.
	Leeway time.Duration
	// MaxTokenBytes bounds a token before anything else is done with it.
	// Default DefaultMaxTokenBytes.
	MaxTokenBytes int
	// MaxGroups bounds the groups of a token; a token with more is
	// refused. Default DefaultMaxGroups.
	MaxGroups int
	// MinRefetchInterval is the least time between two fetches of the
	// issuer's keys on unknown key ids or start-up retries. Default
	// DefaultMinRefetchInterval.
	MinRefetchInterval time.Duration
	// RefreshInterval is how often loaded keys are refetched. Default
	// DefaultRefreshInterval.
	RefreshInterval time.Duration
	// FetchTimeout bounds one fetch of the keys, metadata discovery
	// included. Default DefaultFetchTimeout.
	FetchTimeout time.Duration
	// MaxKeySetBytes bounds the issuer's metadata and key set documents.
	// Default DefaultMaxKeySetBytes.
	MaxKeySetBytes int64
	// CacheSize is the number of accepted tokens remembered. Default
	// DefaultCacheSize; negative: no cache.
	CacheSize int
	// NegativeCacheSize is the number of refused tokens remembered.
	// Default DefaultNegativeCacheSize; negative: none.
	NegativeCacheSize int
	// NegativeCacheTTL is how long a refused token is remembered. Default
	// DefaultNegativeCacheTTL; negative: refusals are not cached.
	NegativeCacheTTL time.Duration
	// AllowHTTP accepts an http issuer on a host that is not loopback.
	AllowHTTP bool
	// Now returns the current time; nil: time.Now. For tests.
	Now func() time.Time
}

// Verifier checks JWT access tokens issued by one authorization server
// for one resource. It is safe for concurrent use. It fetches the
// issuer's keys in the background from NewVerifier until Close; a token
// with an unknown key id causes a refetch, at most once per
// MinRefetchInterval, and keys the issuer no longer publishes are dropped
// at the next fetch. A fetch that fails keeps the keys already loaded.
type Verifier struct {
	issuer, resource string
	algs             []jose.SignatureAlgorithm
	types            []string
	groupsClaim      string
	leeway           time.Duration
	maxTokenBytes    int
	maxGroups        int
	negTTL           time.Duration
	now              func() time.Time

	keys      *keyStore
	cache     *tokenCache
	intern    interner
	stop      chan struct{}
	done      chan struct{}
	cancel    context.CancelFunc
	closeOnce sync.Once

	hits, misses, checks atomic.Uint64
	onCheck              func() // test hook: called before each signature check
}

// NewVerifier checks cfg, fetches the issuer's keys (waiting at most until
// ctx ends or FetchTimeout passes) and starts refreshing them in the
// background. An unreachable issuer is not an error: the Verifier starts
// without keys, refuses tokens with ErrKeysUnavailable, reports it in
// Status, and keeps retrying every MinRefetchInterval (at least a second).
// Close stops it.
func NewVerifier(ctx context.Context, cfg VerifierConfig) (*Verifier, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	cfg.defaults()
	v := &Verifier{
		issuer: cfg.Issuer, resource: cfg.Resource,
		types: cfg.Types, groupsClaim: cfg.GroupsClaim, leeway: cfg.Leeway,
		maxTokenBytes: cfg.MaxTokenBytes, maxGroups: cfg.MaxGroups,
		negTTL: cfg.NegativeCacheTTL, now: cfg.Now,
		cache: newTokenCache(cfg.CacheSize, cfg.NegativeCacheSize),
		stop:  make(chan struct{}), done: make(chan struct{}),
	}
	for _, a := range cfg.Algorithms {
		v.algs = append(v.algs, jose.SignatureAlgorithm(a))
	}
	if len(v.algs) == 0 {
		v.algs = allowedAlgorithms
	}
	base, cancel := context.WithCancel(context.Background())
	v.cancel = cancel
	v.keys = &keyStore{
		issuer: cfg.Issuer, maxBody: cfg.MaxKeySetBytes,
		minInterval: cfg.MinRefetchInterval, refreshInterval: cfg.RefreshInterval,
		fetchTimeout: cfg.FetchTimeout, now: cfg.Now, base: base,
		client: &http.Client{Timeout: cfg.FetchTimeout, CheckRedirect: noDowngrade},
	}
	v.keys.refresh(ctx)
	go func() {
		defer close(v.done)
		v.keys.run(v.stop)
	}()
	return v, nil
}

// Close stops the background refresh and any fetch in flight.
// Authenticate keeps working with the keys already loaded, without
// refetching them.
func (v *Verifier) Close() error {
	v.closeOnce.Do(func() {
		close(v.stop)
		v.cancel()
	})
	<-v.done
	return nil
}

// noDowngrade follows at most three redirects and never from https to
// http.
func noDowngrade(req *http.Request, via []*http.Request) error {
	if len(via) >= 3 {
		return errors.New("too many redirects")
	}
	if req.URL.Scheme != "https" && via[0].URL.Scheme == "https" {
		return errors.New("redirect from https to http")
	}
	return nil
}

// check refuses a configuration that cannot work or is unsafe.
func (c *VerifierConfig) check() error {
	iss, err := url.Parse(c.Issuer)
	switch {
	case c.Issuer == "" || err != nil || !iss.IsAbs() || iss.Host == "":
		return errors.New("auth: the issuer must be an absolute URL")
	case iss.RawQuery != "" || iss.Fragment != "":
		return errors.New("auth: the issuer must have no query or fragment (RFC 8414, 2)")
	case iss.Scheme != "https" && !(iss.Scheme == "http" && (c.AllowHTTP || loopback(iss.Hostname()))):
		return errors.New("auth: the issuer must be https (http only on a loopback host)")
	}
	if err := checkResource(c.Resource); err != nil {
		return err
	}
	for _, a := range c.Algorithms {
		if !slices.Contains(allowedAlgorithms, jose.SignatureAlgorithm(a)) {
			return fmt.Errorf("auth: the signature algorithm %q is not allowed; allowed: RS256/384/512, PS256/384/512, ES256/384/512, EdDSA", a)
		}
	}
	if c.GroupsClaim != "" && !isToken(c.GroupsClaim) {
		return fmt.Errorf("auth: the groups claim name %q has characters other than letters, digits and -._:/", c.GroupsClaim)
	}
	return nil
}

// defaults fills in the zero fields.
func (c *VerifierConfig) defaults() {
	def := func(p *time.Duration, d time.Duration) {
		if *p == 0 {
			*p = d
		}
	}
	def(&c.Leeway, DefaultLeeway)
	c.Leeway = max(c.Leeway, 0)
	def(&c.MinRefetchInterval, DefaultMinRefetchInterval)
	def(&c.RefreshInterval, DefaultRefreshInterval)
	def(&c.FetchTimeout, DefaultFetchTimeout)
	def(&c.NegativeCacheTTL, DefaultNegativeCacheTTL)
	if c.Types == nil {
		c.Types = []string{"at+jwt", "application/at+jwt"}
	}
	if c.GroupsClaim == "" {
		c.GroupsClaim = "groups"
	}
	if c.MaxTokenBytes <= 0 {
		c.MaxTokenBytes = DefaultMaxTokenBytes
	}
	if c.MaxGroups <= 0 {
		c.MaxGroups = DefaultMaxGroups
	}
	if c.MaxKeySetBytes <= 0 {
		c.MaxKeySetBytes = DefaultMaxKeySetBytes
	}
	if c.CacheSize == 0 {
		c.CacheSize = DefaultCacheSize
	}
	if c.NegativeCacheSize == 0 {
		c.NegativeCacheSize = DefaultNegativeCacheSize
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// checkResource checks a resource URI: absolute, with a host, without a
// fragment (RFC 8707, 2) or a query (RFC 9728, 1.2).
func checkResource(resource string) error {
	u, err := url.Parse(resource)
	if resource == "" || err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" || u.RawQuery != "" {
		return errors.New("auth: the resource must be an absolute URL without query or fragment")
	}
	return nil
}

// loopback reports whether host names this machine.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isToken reports whether s is a non-empty run of letters, digits and
// -._:/ (safe in a claim name and in an error text).
func isToken(s string) bool {
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._:/", c) >= 0) {
			return false
		}
	}
	return s != ""
}

// Authenticate verifies token and returns its principal, which is shared
// with other callers of the same token and must not be modified. A token
// seen before is answered from the cache, without a signature check,
// until it expires (accepted) or for NegativeCacheTTL (refused; refusals
// that may pass later, such as an unknown key, are not cached). The
// error is one of the package's sentinels, possibly wrapped with a fixed
// detail: never the token or any part of it.
func (v *Verifier) Authenticate(ctx context.Context, token string) (*access.Principal, error) {
	if len(token) > v.maxTokenBytes {
		return nil, fmt.Errorf("%w (over %d bytes)", ErrTokenTooLarge, v.maxTokenBytes)
	}
	sum := tokenHash(token)
	now := v.now()
	if e, ok := v.cache.get(sum, now); ok {
		v.hits.Add(1)
		return e.p, e.err
	}
	v.misses.Add(1)
	p, until, err := v.verify(ctx, token, now)
	switch {
	case err == nil:
		v.cache.addOK(sum, p, until)
	case v.negTTL > 0 && !transient(err) && !errors.Is(err, ErrNotYetValid):
		v.cache.addBad(sum, err, now.Add(v.negTTL))
	}
	return p, err
}

// verify checks token at now and returns its principal and the time its
// verification stops holding.
func (v *Verifier) verify(ctx context.Context, token string, now time.Time) (*access.Principal, time.Time, error) {
	t, err := jwt.ParseSigned(token, v.algs)
	if err != nil {
		return nil, time.Time{}, v.parseFailure(token)
	}
	h := t.Headers[0]
	if !v.typeAllowed(h) {
		return nil, time.Time{}, ErrType
	}
	keys, err := v.keysFor(ctx, h.KeyID, h.Algorithm)
	if err != nil {
		return nil, time.Time{}, err
	}
	var claims map[string]json.RawMessage
	for _, k := range keys {
		if v.onCheck != nil {
			v.onCheck()
		}
		v.checks.Add(1)
		if err = t.Claims(k.Key, &claims); err == nil {
			break
		}
	}
	if err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		if errors.As(err, &se) || errors.As(err, &te) {
			return nil, time.Time{}, ErrMalformedToken
		}
		return nil, time.Time{}, ErrSignature
	}
	return v.principal(claims, now)
}

// parseFailure tells a token whose alg is not allowed from one that is
// not a JWS at all, reading only the header's alg (go-jose's parse error
// is not passed on: it may quote decoded bytes).
func (v *Verifier) parseFailure(token string) error {
	head, _, ok := strings.Cut(token, ".")
	if !ok {
		return ErrMalformedToken
	}
	b, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return ErrMalformedToken
	}
	var hdr struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(b, &hdr) != nil || hdr.Alg == "" || slices.Contains(v.algs, jose.SignatureAlgorithm(hdr.Alg)) {
		return ErrMalformedToken
	}
	return ErrAlgorithm
}

// typeAllowed reports whether the header's typ is one of the accepted.
func (v *Verifier) typeAllowed(h jose.Header) bool {
	typ := ""
	if raw, ok := h.ExtraHeaders[jose.HeaderType]; ok {
		s, isString := raw.(string)
		if !isString || s == "" {
			return false
		}
		typ = s
	}
	for _, t := range v.types {
		if strings.EqualFold(t, typ) {
			return true
		}
	}
	return false
}

// keysFor returns the keys a token with this kid and alg may be verified
// with, refetching the key set (rate-limited) when there are none.
func (v *Verifier) keysFor(ctx context.Context, kid, alg string) ([]jose.JSONWebKey, error) {
	if keys := candidates(v.keys.cur.Load(), kid, alg); len(keys) > 0 {
		return keys, nil
	}
	v.keys.refresh(ctx)
	snap := v.keys.cur.Load()
	if keys := candidates(snap, kid, alg); len(keys) > 0 {
		return keys, nil
	}
	if snap == nil {
		return nil, ErrKeysUnavailable
	}
	return nil, ErrUnknownKey
}

// candidates returns the first maxCandidates keys of snap named kid that
// fit alg; for a token without kid, of all keys.
func candidates(snap *keySnapshot, kid, alg string) []jose.JSONWebKey {
	if snap == nil {
		return nil
	}
	keys := snap.all
	if kid != "" {
		keys = snap.byKID[kid]
	}
	var out []jose.JSONWebKey
	for _, k := range keys {
		if keyFits(k, alg) && len(out) < maxCandidates {
			out = append(out, k)
		}
	}
	return out
}
