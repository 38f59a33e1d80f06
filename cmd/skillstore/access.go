package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/audit"
	"github.com/skillstore/skillstore/auth"
	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/internal/reload"
	"github.com/skillstore/skillstore/site"
)

// accessFlags are serve's flags for identity: an OAuth 2.1 issuer whose JWT
// access tokens are accepted, static tokens naming principals, and this
// server's resource URI.
type accessFlags struct {
	issuer, resource, groupsClaim string
	scopes                        []string
	tokenFile                     string
	policyFile                    string
	auditFile                     string
}

func (a *accessFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&a.issuer, "oauth-issuer", "", "accept JWT access tokens issued by the OAuth 2.1 authorization server `URL` (its metadata gives its keys); needs --resource")
	f.StringVar(&a.resource, "resource", "", "this server's canonical `URL` as clients name it, e.g. https://skills.example.com/mcp: the audience tokens must be issued for, and the resource of the Protected Resource Metadata")
	f.StringSliceVar(&a.scopes, "oauth-scopes", nil, "`SCOPES` every token must grant on /mcp (comma-separated), listed in the Protected Resource Metadata; a token without them gets 403 insufficient_scope")
	f.StringVar(&a.groupsClaim, "oauth-groups-claim", "groups", "the access token claim holding the caller's groups (an array of strings)")
	f.StringVar(&a.tokenFile, "token-file", "", "accept the static tokens listed (by SHA-256) in the YAML `FILE`, each naming a principal with groups; needs --resource")
	f.StringVar(&a.auditFile, "audit-log", "", "append one JSON line per decision on skill content and per refused request to `FILE` (- for stderr); reopened on SIGHUP, for log rotation")
	f.StringVar(&a.policyFile, "access-policy", "", "show each caller the sources and skills the YAML policy `FILE` grants it (reloaded when it changes); over stdio, the principal its stdio section names, else everything")
}

// auditLog opens the audit log, if one is asked for, and reopens it on
// SIGHUP (after logrotate moved it) until ctx ends. Writes never block
// serving; a failing disk is logged, not fatal.
func (a *accessFlags) auditLog(ctx context.Context) (*audit.Logger, error) {
	if a.auditFile == "" {
		return nil, nil
	}
	l, err := audit.Open(a.auditFile, audit.Options{Logger: slog.Default()})
	if err != nil {
		return nil, fmt.Errorf("--audit-log: %w", stripHost(err))
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				if err := l.Reopen(); err != nil {
					slog.Warn("reopening the audit log failed; writing on to the old file", "err", logtext.Of(stripHost(err)))
				}
			}
		}
	}()
	return l, nil
}

// policy loads the access policy, if one is asked for, and keeps it
// reloaded; changed is called after each reload. A policy that cannot be
// read or parsed is refused here, naming the line; a later edit that
// cannot be used keeps the previous policy, with a log line.
func (a *accessFlags) policy(changed func()) (*access.Reloader, error) {
	if a.policyFile == "" {
		return nil, nil
	}
	r, err := access.NewReloader(a.policyFile, access.ReloadOptions{Logger: slog.Default(), OnReload: func(*access.Policy) { changed() }})
	if err != nil {
		return nil, fmt.Errorf("--access-policy: %w", stripHost(err))
	}
	return r, nil
}

// reloadedTokens authenticates by the static tokens file as it is now:
// it is reloaded when it changes (internal/reload), so revoking a token
// needs no restart; a changed file that cannot be parsed keeps the
// previous tokens, with a log line.
type reloadedTokens struct {
	f *reload.File[*auth.StaticTokens]
}

func (r reloadedTokens) Authenticate(ctx context.Context, token string) (*access.Principal, error) {
	return r.f.Current().Authenticate(ctx, token)
}

// enabled reports whether a flag asks for authentication by principal.
func (a *accessFlags) enabled() bool { return a.issuer != "" || a.tokenFile != "" }

// check refuses combinations that cannot work, before anything starts.
func (a *accessFlags) check(httpAddr, sharedToken string) error {
	switch {
	case !a.enabled() && (a.resource != "" || len(a.scopes) > 0):
		return errors.New("--resource and --oauth-scopes need --oauth-issuer or --token-file")
	case !a.enabled():
		return nil
	case httpAddr == "":
		return errors.New("--oauth-issuer and --token-file need --http: stdio serves the user who launched it (see --access-policy's stdio section)")
	case a.resource == "":
		return errors.New("--oauth-issuer and --token-file need --resource URL, this server's canonical URL as clients reach it (e.g. https://skills.example.com/mcp)")
	case sharedToken != "":
		return errors.New("--auth-token-file (or SKILLSTORE_AUTH_TOKEN) cannot be combined with --oauth-issuer or --token-file: list the shared token in the --token-file file instead, with the principal it stands for")
	}
	return nil
}

// open builds the resource server the flags describe, or nil when they
// ask for none; close stops the JWT verifier's key refresh. A verifier
// whose issuer cannot be reached yet is not an error: it keeps trying, and
// /readyz says it is not ready meanwhile.
func (a *accessFlags) open(ctx context.Context) (opts site.Options, close func(), err error) {
	close = func() {}
	if !a.enabled() {
		return opts, close, nil
	}
	var chain []auth.Authenticator
	if a.tokenFile != "" {
		name, parsed := filepath.Base(a.tokenFile), false
		f, err := reload.Watch(a.tokenFile, func(data []byte) (*auth.StaticTokens, error) {
			parsed = true
			st, err := auth.ParseStaticTokens(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			return st, nil
		}, reload.Options{What: "static tokens", Logger: slog.Default()})
		switch {
		case err != nil && parsed:
			return opts, close, fmt.Errorf("--token-file %w", err)
		case err != nil:
			return opts, close, fmt.Errorf("reading --token-file: %w", stripHost(err))
		}
		close = func() { f.Close() }
		chain = append(chain, reloadedTokens{f}) // first: a hash lookup is cheaper than parsing a JWT
	}
	var issuers []string
	if a.issuer != "" {
		v, err := auth.NewVerifier(ctx, auth.VerifierConfig{Issuer: a.issuer, Resource: a.resource, GroupsClaim: a.groupsClaim})
		if err != nil {
			return opts, close, fmt.Errorf("--oauth-issuer: %w", err)
		}
		if st := v.Status(); !st.Ready {
			slog.Warn("the identity provider's keys could not be fetched yet; tokens are refused and /readyz reports not ready until they are", "issuer", a.issuer, "err", logtext.Of(st.Err))
		}
		closeTokens := close
		chain, issuers, close = append(chain, v), []string{a.issuer}, func() { v.Close(); closeTokens() }
		opts.AuthStatus = v.Status
	}
	rs, err := auth.NewResourceServer(auth.ResourceConfig{Resource: a.resource, AuthorizationServers: issuers, ScopesSupported: a.scopes, Authenticator: auth.Chain(chain...)})
	if err != nil {
		close()
		return opts, func() {}, fmt.Errorf("--resource: %w", err)
	}
	opts.Auth, opts.RequiredScopes = rs, a.scopes
	return opts, close, nil
}
