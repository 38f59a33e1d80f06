package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/json"

	"github.com/skillstore/skillstore/internal/logtext"
)

// maxKeys bounds the keys of a key set; a larger set is refused whole.
const maxKeys = 100

// minRSABits is the smallest RSA modulus accepted in a key set.
const minRSABits = 2048

// keySnapshot is one fetched key set, never modified once published.
type keySnapshot struct {
	byKID   map[string][]jose.JSONWebKey
	all     []jose.JSONWebKey // in the set's order
	fetched time.Time
}

// keyStore holds the issuer's signing keys and refetches them: on
// demand (an unknown kid) at most once per minInterval, and from a
// background loop (until the first success, then every refreshInterval).
type keyStore struct {
	issuer          string
	client          *http.Client
	maxBody         int64
	minInterval     time.Duration
	refreshInterval time.Duration
	fetchTimeout    time.Duration // bounds one whole fetch, discovery included
	now             func() time.Time
	base            context.Context // canceled by close

	cur     atomic.Pointer[keySnapshot]
	fetches atomic.Uint64 // HTTP requests for metadata or keys

	mu          sync.Mutex
	jwksURL     string
	lastAttempt time.Time
	fetching    chan struct{} // non-nil while a fetch runs; closed when it ends
	lastErr     error
}

// refresh fetches the keys unless a fetch ran less than minInterval ago,
// and waits for it (or for one already running) until ctx ends. The fetch
// itself runs on the store's context, not ctx, so a caller that gives up
// waiting does not cut it short for the others.
func (s *keyStore) refresh(ctx context.Context) {
	s.mu.Lock()
	ch := s.fetching
	if ch == nil {
		if !s.lastAttempt.IsZero() && s.now().Sub(s.lastAttempt) < s.minInterval {
			s.mu.Unlock()
			return
		}
		s.lastAttempt = s.now()
		ch = make(chan struct{})
		s.fetching = ch
		go s.fetch(ch)
	}
	s.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

// fetch loads the key set (discovering its URL first if need be), publishes
// it, records the outcome and closes done.
func (s *keyStore) fetch(done chan struct{}) {
	defer close(done)
	snap, err := s.load()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fetching = nil
	s.lastErr = err
	if err == nil {
		s.cur.Store(snap)
	}
}

// load discovers the JWKS URL if it is not known yet and fetches the set,
// all within fetchTimeout.
func (s *keyStore) load() (*keySnapshot, error) {
	ctx, cancel := context.WithTimeout(s.base, s.fetchTimeout)
	defer cancel()
	s.mu.Lock()
	jwksURL := s.jwksURL
	s.mu.Unlock()
	if jwksURL == "" {
		u, err := s.discover(ctx)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.jwksURL = u
		s.mu.Unlock()
		jwksURL = u
	}
	body, status, err := s.get(ctx, jwksURL)
	if err != nil {
		return nil, fmt.Errorf("fetching the issuer's keys: %w", err)
	}
	if status != http.StatusOK {
		if status == http.StatusNotFound || status == http.StatusGone {
			s.mu.Lock()
			s.jwksURL = "" // moved? discover again next time
			s.mu.Unlock()
		}
		return nil, fmt.Errorf("fetching the issuer's keys: HTTP status %d", status)
	}
	snap, err := parseKeySet(body)
	if err != nil {
		return nil, fmt.Errorf("the issuer's key set: %w", err)
	}
	snap.fetched = s.now()
	return snap, nil
}

// metadataURLs are the issuer's metadata locations in the order the MCP
// specification gives (RFC 8414, 3.1 path insertion, then OpenID
// Connect Discovery inserted, then appended).
func metadataURLs(issuer *url.URL) []string {
	base := *issuer
	base.Path, base.RawPath = "", ""
	root := strings.TrimSuffix(base.String(), "/")
	path := strings.TrimSuffix(issuer.EscapedPath(), "/")
	if path == "" {
		return []string{
			root + "/.well-known/oauth-authorization-server",
			root + "/.well-known/openid-configuration",
		}
	}
	return []string{
		root + "/.well-known/oauth-authorization-server" + path,
		root + "/.well-known/openid-configuration" + path,
		root + path + "/.well-known/openid-configuration",
	}
}

// discover finds the issuer's jwks_uri in its metadata: the first
// document that answers, names exactly the configured issuer (RFC 8414,
// 3.3) and has a jwks_uri wins.
func (s *keyStore) discover(ctx context.Context) (string, error) {
	iss, err := url.Parse(s.issuer)
	if err != nil {
		return "", err
	}
	var errs []error
	for _, u := range metadataURLs(iss) {
		jwks, err := s.tryMetadata(ctx, u)
		if err == nil {
			return jwks, nil
		}
		errs = append(errs, err)
	}
	return "", fmt.Errorf("discovering the issuer's keys: %w", errors.Join(errs...))
}

// tryMetadata reads one metadata document and returns its jwks_uri.
func (s *keyStore) tryMetadata(ctx context.Context, u string) (string, error) {
	body, status, err := s.get(ctx, u)
	if err != nil {
		return "", err
	}
	if status != http.StatusOK {
		return "", fmt.Errorf("%s: HTTP status %d", u, status)
	}
	var md struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.Unmarshal(body, &md); err != nil {
		return "", fmt.Errorf("%s: not a JSON metadata document", u)
	}
	if md.Issuer != s.issuer {
		return "", fmt.Errorf("%s: names the issuer %q, not the configured one", u, logtext.Clip(md.Issuer, 200))
	}
	ju, err := url.Parse(md.JWKSURI)
	if md.JWKSURI == "" || err != nil || !ju.IsAbs() {
		return "", fmt.Errorf("%s: no absolute jwks_uri", u)
	}
	if ju.Scheme != "https" && !(ju.Scheme == "http" && strings.HasPrefix(s.issuer, "http:")) {
		return "", fmt.Errorf("%s: the jwks_uri is not https", u)
	}
	return ju.String(), nil
}

// get fetches u, reading at most maxBody bytes of the answer.
func (s *keyStore) get(ctx context.Context, u string) ([]byte, int, error) {
	s.fetches.Add(1)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, 0, fetchError(u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, resp.StatusCode, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, s.maxBody+1))
	if err != nil {
		return nil, 0, fetchError(u, err)
	}
	if int64(len(body)) > s.maxBody {
		return nil, 0, fmt.Errorf("%s: the answer is larger than %d bytes", u, s.maxBody)
	}
	return body, resp.StatusCode, nil
}

// fetchError words a transport error; a timeout says so plainly.
func fetchError(u string, err error) error {
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: no answer within the fetch timeout", u)
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("%s: canceled", u)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s: %w", u, ue.Err)
	}
	return fmt.Errorf("%s: %w", u, err)
}

// parseKeySet reads a JWK Set, keeping the public signing keys of the
// types this package verifies with (RSA of at least 2048 bits, ECDSA,
// Ed25519). Keys it cannot parse, encryption keys (use "enc") and
// symmetric keys are skipped; a set with no usable key, or with more than
// maxKeys keys, is an error.
func parseKeySet(body []byte) (*keySnapshot, error) {
	var set struct {
		Keys *[]json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil || set.Keys == nil {
		return nil, errors.New("not a JSON Web Key Set")
	}
	if len(*set.Keys) > maxKeys {
		return nil, fmt.Errorf("more than %d keys", maxKeys)
	}
	snap := &keySnapshot{byKID: make(map[string][]jose.JSONWebKey)}
	for _, raw := range *set.Keys {
		var k jose.JSONWebKey
		if err := k.UnmarshalJSON(raw); err != nil || k.Use == "enc" {
			continue
		}
		pub, ok := publicKey(k.Key)
		if !ok {
			continue
		}
		k.Key = pub
		snap.byKID[k.KeyID] = append(snap.byKID[k.KeyID], k)
		snap.all = append(snap.all, k)
	}
	if len(snap.all) == 0 {
		return nil, errors.New("no usable signing key")
	}
	return snap, nil
}

// publicKey returns the public half of an asymmetric signing key, and
// false for any other key (symmetric keys above all).
func publicKey(k any) (any, bool) {
	switch k := k.(type) {
	case *rsa.PublicKey:
		return k, k.N.BitLen() >= minRSABits
	case *rsa.PrivateKey:
		return &k.PublicKey, k.N.BitLen() >= minRSABits
	case *ecdsa.PublicKey:
		return k, true
	case *ecdsa.PrivateKey:
		return &k.PublicKey, true
	case ed25519.PublicKey:
		return k, len(k) == ed25519.PublicKeySize
	case ed25519.PrivateKey:
		return k.Public(), len(k) == ed25519.PrivateKeySize
	}
	return nil, false
}

// keyFits reports whether k may verify a signature made with alg: its
// type must match the algorithm's family, and its own alg, when the set
// names one, must be alg.
func keyFits(k jose.JSONWebKey, alg string) bool {
	if k.Algorithm != "" && k.Algorithm != alg {
		return false
	}
	switch k.Key.(type) {
	case *rsa.PublicKey:
		return strings.HasPrefix(alg, "RS") || strings.HasPrefix(alg, "PS")
	case *ecdsa.PublicKey:
		return strings.HasPrefix(alg, "ES")
	case ed25519.PublicKey:
		return alg == string(jose.EdDSA)
	}
	return false
}

// run retries loading the keys every minInterval (at least a second)
// until they are loaded, then refreshes them every refreshInterval, until
// stop is closed.
func (s *keyStore) run(stop <-chan struct{}) {
	wait := func() time.Duration {
		if s.cur.Load() == nil {
			return max(s.minInterval, time.Second)
		}
		return s.refreshInterval
	}
	t := time.NewTimer(wait())
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		s.refresh(s.base)
		t.Reset(wait())
	}
}
