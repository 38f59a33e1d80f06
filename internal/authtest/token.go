package authtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// TokenRequest asks for an access token by the client_credentials grant.
type TokenRequest struct {
	// Client is the client id; it authenticates with its secret, by its
	// Client.AuthMethod.
	Client string
	// Resource is the resource indicator (RFC 8707), the token's aud;
	// "": Options.Resources[0]; "-": none (oidc-provider then issues an
	// opaque token).
	Resource string
	// Scopes are the scopes asked for; nil: all the client may ask for.
	Scopes []string
}

// TokenResponse is the token endpoint's answer (RFC 6749, 5.1 and 5.2).
type TokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
	Scope       string `json:"scope"`
	// Error and ErrorDescription are set when the request was refused.
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
	// Status is the HTTP status.
	Status int `json:"-"`
}

// Token returns an access token for the client id, for the first of
// Options.Resources, with every scope the client may ask for. It fails the
// test if the server refuses.
func (s *Server) Token(t testing.TB, client string) string {
	t.Helper()
	return s.TokenFor(t, TokenRequest{Client: client})
}

// TokenFor returns the access token req asks for; it fails the test if
// the server refuses.
func (s *Server) TokenFor(t testing.TB, req TokenRequest) string {
	t.Helper()
	resp, err := s.Request(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusOK || resp.AccessToken == "" || !strings.EqualFold(resp.TokenType, "Bearer") {
		t.Fatalf("token request for %s: HTTP %d, %s: %s", req.Client, resp.Status, resp.Error, resp.ErrorDescription)
	}
	return resp.AccessToken
}

// Request sends req to the token endpoint and returns the answer, a
// refusal included; the error is for requests that got no answer.
func (s *Server) Request(req TokenRequest) (*TokenResponse, error) {
	i := slices.IndexFunc(s.opts.Clients, func(c Client) bool { return c.ID == req.Client })
	if i < 0 {
		return nil, fmt.Errorf("authtest: no client %q", req.Client)
	}
	c := s.opts.Clients[i]
	form := url.Values{"grant_type": {"client_credentials"}}
	switch {
	case req.Resource == "" && len(s.opts.Resources) == 0:
		return nil, fmt.Errorf("authtest: TokenRequest.Resource is required without Options.Resources")
	case req.Resource == "":
		form.Set("resource", s.opts.Resources[0])
	case req.Resource != "-":
		form.Set("resource", req.Resource)
	}
	scopes := req.Scopes
	if scopes == nil {
		scopes = c.Scopes
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	if c.AuthMethod == "client_secret_post" {
		form.Set("client_id", c.ID)
		form.Set("client_secret", s.secrets[c.ID])
	}
	hr, err := http.NewRequest(http.MethodPost, s.Metadata.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	hr.Header.Set("Accept", "application/json")
	if c.AuthMethod != "client_secret_post" {
		// RFC 6749, 2.3.1: both parts form-encoded, then Basic.
		hr.SetBasicAuth(url.QueryEscape(c.ID), url.QueryEscape(s.secrets[c.ID]))
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("token request: %w", err)
	}
	defer resp.Body.Close()
	var tr TokenResponse
	if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil {
		return nil, fmt.Errorf("token request: HTTP %d, not JSON", resp.StatusCode)
	}
	tr.Status = resp.StatusCode
	return &tr, nil
}

// Sign returns a JWT access token (typ at+jwt) with claims, signed with
// the server's current signing key, as the server would sign it: for
// tokens the server would never issue itself (expired, or with claims a
// test chooses). It reads the key from the server's key file; the token
// is not recorded by the server. Limits: the header is always alg (the
// key's), kid and typ; claims must marshal to a JSON object.
func (s *Server) Sign(t testing.TB, claims map[string]any) string {
	t.Helper()
	data, err := os.ReadFile(s.keys)
	if err != nil {
		t.Fatal(err)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(data, &set); err != nil || len(set.Keys) == 0 {
		t.Fatalf("the authorization server's key file: %v (%d keys)", err, len(set.Keys))
	}
	key := set.Keys[0]
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(key.Algorithm), Key: key},
		(&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	token, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return token
}
