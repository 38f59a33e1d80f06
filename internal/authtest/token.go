package authtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
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
