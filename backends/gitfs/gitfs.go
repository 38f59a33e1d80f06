// Package gitfs serves skills from a git repository, pinned to a branch,
// a tag or a commit, through go-git (pure Go: no git binary is needed).
//
// Importing it makes backends.Open handle
//
//	git+https://host/org/repo.git?ref=TAG|BRANCH|SHA&path=skills/
//
// (git+ssh://git@host/org/repo.git?… over SSH, and git+http:// for
// plain-HTTP servers on a private network), with verify=FILE to serve
// only signed commits (see Verifier; the file's path never appears in
// the source's location, errors or logs; Repo.RequireSigners takes a
// list of keys that may change, such as a reloaded file, instead). The
// repository is cloned shallowly (one commit) into memory on first use;
// each refresh lists the remote's refs and, when the ref has moved,
// fetches the new commit and switches every later catalog to it at once
// (the tree a catalog was built from stays readable). A commit named by
// its SHA is fetched with the history that leads to it.
//
// Security: a token for private repositories comes from the environment
// (GIT_TOKEN, for the hosts GIT_TOKEN_HOSTS lists, or if it is unset for
// the one host of the process's git sources over HTTP — a source on a
// second host is refused with ErrTokenHosts; else GITHUB_TOKEN for
// github.com and GITLAB_TOKEN for gitlab.com). It is sent
// as HTTP basic auth only after the server asks for credentials, never
// over plain http:// except to this machine, and never appears in errors
// or logs; a redirect to another host is refused. Files under the skills
// path are capped (Options.MaxBytes, 256 MiB by default; their folders'
// paths counted) and so are their entries (100,000 files and folders, a
// folder its tree lists many times over counted each time), and so are what
// a fetch downloads and the sizes its objects declare (4× that each): the
// sizes are checked from each object's header before it is inflated, in
// memory and in a cache folder alike. Objects are kept packed and inflated
// only when read, so those outside the skills path cost their packed size
// to keep; indexing a fetch inflates each object once, one at a time, so
// a fetch's peak memory can reach its largest object's size (within the
// 4× cap).
// A listing and a fetch have time limits, and each HTTP request of a
// fetch keeps a pace (DefaultPace: its answer starts within 10 s, then
// arrives at 32 KiB/s on average), so a trickling server is cut off after
// seconds. Symbolic links and submodules
// are not served.
//
// A commit's files may be read by any number of goroutines at once: its
// folders are indexed once, when it is fetched (about 100 bytes a file
// or folder under the skills path), and its files' objects are looked
// up in the storage one at a time (go-git's trees and storage fill
// caches without locks), then read concurrently.
//
// go-git's HTTP transport is process-wide: importing this package
// installs one that refuses cross-host redirects and counts downloads.
// Other go-git users in the program get it too, and go-git options that
// need its own transport type (CABundle, InsecureSkipTLS, proxies) fail.
package gitfs

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/netaddr"
	"github.com/skillstore/skillstore/internal/pace"
	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/store"
)

// schemes are the URL schemes this package serves.
var schemes = []string{"git+https", "git+http", "git+ssh"}

// DefaultMaxBytes is the default cap on the files under a repository's
// skills path.
const DefaultMaxBytes = 256 << 20

func init() {
	for _, s := range schemes {
		backends.Register(s, func(ctx context.Context, u *url.URL) (store.Source, error) {
			r, err := Open(u.String(), Options{})
			if err != nil {
				return store.Source{}, err
			}
			return store.Source{Location: r.Location(), Kind: "git", FS: r}, nil
		})
	}
	// go-git's HTTP transport is global: ours refuses redirects to
	// another host and bounds what one clone downloads.
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.ResponseHeaderTimeout = 30 * time.Second
	hc := &http.Client{Transport: limitTransport{base}, CheckRedirect: sameHost}
	for _, s := range []string{"http", "https"} {
		client.InstallProtocol(s, githttp.NewClient(hc))
	}
}

// Options tune a Repo.
type Options struct {
	// Ref is the branch, tag or commit SHA to serve; empty means the
	// remote's default branch. It overrides the URL's ref parameter.
	Ref string
	// Path is the folder of the repository holding the skill folders;
	// empty means the root. It overrides the URL's path parameter.
	Path string
	// Token authenticates to a private repository; empty means the
	// environment's (see the package doc).
	Token string
	// MaxBytes caps the files under Path (default DefaultMaxBytes).
	MaxBytes int64
	// CacheDir, if set, keeps the repository in a folder under it (one
	// per repository URL) instead of in memory: objects persist across
	// restarts, later fetches download only what changed, and files are
	// read from disk. Empty means the environment's SKILLSTORE_GIT_CACHE,
	// else memory. Processes sharing it take turns on a repository's
	// folder (a lock file in it; a fetch that cannot wait longer names the
	// PID holding it). It and its folders must be this user's alone: one
	// another user owns or can write is refused.
	CacheDir string
	// Verify, if set, is the signer policy every commit served must meet
	// (see Verifier); the URL's verify= parameters, if any, replace it.
	// Nil, and no verify=, serves commits unverified, and snapshots report
	// no signer.
	Verify *Verifier
	// Logger receives the commits the signer policy refuses, once each.
	// Default: slog.Default().
	Logger *slog.Logger
}

// Repo is a git repository as a skill source: an fs.FS of the ref's
// current commit (store.SnapshotFS), refreshed by store.Refresher.
type Repo struct {
	remote   string // the https:// or http:// URL, without credentials
	shown    string // the git+ URL as shown, with ref and path
	ref      string
	dir      string               // the skills path, cleaned; "." for the root
	cacheDir string               // the repository's folder, or "" for memory
	token    *githttp.BasicAuth   // the credentials, if any: sent once the server asks
	sshUser  string               // for git+ssh: the user to log in as
	auth     transport.AuthMethod // token, once the server has asked for credentials; else nil
	maxBytes int64
	pace     pace.Limits  // a fetch's pace (DefaultPace; shorter in tests)
	verify   *Verifier    // the signer policy, or nil
	log      *slog.Logger // for refused commits

	mu      sync.Mutex // one clone or fetch at a time
	cur     atomic.Pointer[treeFS]
	refused *refused // the last target the signer policy refused (under mu)
}

var (
	_ store.SnapshotFS    = (*Repo)(nil)
	_ store.Refresher     = (*Repo)(nil)
	_ store.RevisionFS    = (*Repo)(nil)
	_ backends.Verifiable = (*Repo)(nil)
)

// Open returns a Repo for a git+https:// (or git+http://) URL. It reads
// the trust files verify= names (at most one allowed-signers file and one
// OpenPGP keyring; see LoadVerifier), failing on one that cannot be used
// with its kind and line named, and does no other I/O: the repository is
// cloned on first use.
func Open(rawURL string, opts Options) (*Repo, error) {
	rawURL, trust := splitVerify(rawURL)
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("git source %s is not a valid URL", backends.Redact(rawURL))
	}
	scheme, ok := strings.CutPrefix(strings.ToLower(u.Scheme), "git+")
	if !ok || scheme != "https" && scheme != "http" && scheme != "ssh" {
		return nil, fmt.Errorf("git source %s: the URL must start with git+https://, git+ssh:// or git+http://", backends.Redact(rawURL))
	}
	if _, hasPassword := u.User.Password(); u.User != nil && (scheme != "ssh" || hasPassword) {
		return nil, fmt.Errorf("git source %s: put no credentials in the URL; set GIT_TOKEN (GIT_SSH_KEY for ssh) instead", backends.Redact(rawURL))
	}
	q := u.Query()
	for k := range q {
		if k != "ref" && k != "path" {
			return nil, fmt.Errorf("git source %s: unknown parameter %q; use ref=, path= and verify=", backends.Redact(rawURL), k)
		}
	}
	r := &Repo{ref: cmp.Or(opts.Ref, q.Get("ref")), maxBytes: opts.MaxBytes, log: cmp.Or(opts.Logger, slog.Default())}
	if r.verify, err = policy(trust, opts.Verify); err != nil {
		return nil, fmt.Errorf("git source %s: %s", backends.Redact(rawURL), err)
	}
	if cache := cmp.Or(opts.CacheDir, os.Getenv("SKILLSTORE_GIT_CACHE")); cache != "" {
		remote := *u
		remote.RawQuery, remote.Fragment = "", ""
		sum := sha256.Sum256([]byte(remote.String() + "\x00" + r.ref)) // a folder per repository and ref
		r.cacheDir = filepath.Join(cache, hex.EncodeToString(sum[:8]))
	}
	dir := path.Clean("/" + cmp.Or(opts.Path, q.Get("path")))
	if r.dir = strings.TrimPrefix(dir, "/"); r.dir == "" {
		r.dir = "."
	}
	if r.maxBytes <= 0 {
		r.maxBytes = DefaultMaxBytes
	}
	r.pace = DefaultPace
	remote := *u
	remote.Scheme, remote.RawQuery, remote.Fragment = scheme, "", ""
	r.remote = remote.String() // for ssh, with its user name (never a password)
	// Shown without verify=, whose value is a host path.
	shown := *u
	sq := url.Values{}
	if r.ref != "" {
		sq.Set("ref", r.ref)
	}
	if r.dir != "." {
		sq.Set("path", r.dir+"/")
	}
	shown.RawQuery = strings.ReplaceAll(sq.Encode(), "%2F", "/")
	r.shown = shown.String()
	if scheme == "ssh" {
		user := "git"
		if u.User != nil && u.User.Username() != "" {
			user = u.User.Username()
		}
		r.sshUser = user
		return r, nil
	}
	token := opts.Token
	if token == "" {
		if token, err = envToken(u.Hostname()); err != nil {
			return nil, fmt.Errorf("git source %s: %w", backends.Redact(rawURL), err)
		}
	}
	if token != "" {
		if scheme == "http" && !netaddr.IsLoopback(u.Hostname()) {
			return nil, fmt.Errorf("git source %s: a token is set, and would travel unencrypted over http:// to a host other than this machine; use git+https://", backends.Redact(rawURL))
		}
		user := "git"
		switch strings.ToLower(u.Hostname()) {
		case "github.com":
			user = "x-access-token"
		case "gitlab.com":
			user = "oauth2"
		}
		r.token = &githttp.BasicAuth{Username: user, Password: token}
	}
	return r, nil
}

// splitVerify takes the verify= parameters (the name in any case) out of
// a source URL: it returns the URL without them, as errors and the
// location show it, and their values (host paths, shown nowhere).
func splitVerify(raw string) (shown string, files []string) {
	base, query, ok := strings.Cut(raw, "?")
	if !ok {
		return raw, nil
	}
	query, frag, hasFrag := strings.Cut(query, "#")
	var kept []string
	for _, kv := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if key, err := url.QueryUnescape(k); err == nil && strings.EqualFold(key, "verify") {
			if val, err := url.QueryUnescape(v); err == nil {
				v = val
			}
			files = append(files, v)
			continue
		}
		kept = append(kept, kv)
	}
	if shown = base; len(kept) > 0 {
		shown += "?" + strings.Join(kept, "&")
	}
	if hasFrag {
		shown += "#" + frag
	}
	return shown, files
}

// policy is the signer policy of a source: the one its verify= files
// make, else dflt.
func policy(files []string, dflt *Verifier) (*Verifier, error) {
	if len(files) == 0 {
		return dflt, nil
	}
	if slices.Contains(files, "") {
		return nil, errors.New("verify= names no file; give the path of an allowed-signers file or an OpenPGP keyring")
	}
	v, err := LoadVerifier(files...)
	if err != nil {
		return nil, fmt.Errorf("verify= is refused: %s", err)
	}
	return v, nil
}

// sshAuth is the key to log in with over SSH: the private key file
// GIT_SSH_KEY names (GIT_SSH_KEY_PASSPHRASE if it has one), else the
// ssh-agent's keys. Host keys are checked against SSH_KNOWN_HOSTS (else
// ~/.ssh/known_hosts); an unknown host is refused.
func sshAuth(user string) (transport.AuthMethod, error) {
	if key := os.Getenv("GIT_SSH_KEY"); key != "" {
		auth, err := gitssh.NewPublicKeysFromFile(user, key, os.Getenv("GIT_SSH_KEY_PASSPHRASE"))
		if err != nil {
			return nil, errors.New("the key GIT_SSH_KEY names cannot be read (is its passphrase in GIT_SSH_KEY_PASSPHRASE?)")
		}
		return auth, nil
	}
	if os.Getenv("SSH_AUTH_SOCK") != "" {
		auth, err := gitssh.NewSSHAgentAuth(user)
		if err != nil {
			return nil, errors.New("the ssh-agent (SSH_AUTH_SOCK) cannot be reached")
		}
		return auth, nil
	}
	return nil, errors.New("git+ssh needs a key: set GIT_SSH_KEY to a private key file, or run an ssh-agent")
}

// envToken is the token the environment gives for host: GIT_TOKEN if
// GIT_TOKEN_HOSTS (comma-separated) lists host, or, when it is unset, if
// host is the one host of the process's git sources over HTTP (the first
// to ask claims GIT_TOKEN: see backends.EnvCredential); else the host's usual variable.
// A second host while GIT_TOKEN_HOSTS is unset is an error (ErrTokenHosts)
// rather than a guess, so a token is never handed to a host it was not
// meant for.
func envToken(host string) (string, error) {
	switch ok, err := gitToken.For(host); {
	case err != nil:
		return "", err
	case ok:
		return os.Getenv("GIT_TOKEN"), nil
	}
	switch strings.ToLower(host) {
	case "github.com":
		return os.Getenv("GITHUB_TOKEN"), nil
	case "gitlab.com":
		return os.Getenv("GITLAB_TOKEN"), nil
	}
	return "", nil
}

// ErrTokenHosts reports a git source refused because GIT_TOKEN would
// otherwise go to more than one host without GIT_TOKEN_HOSTS saying so.
var ErrTokenHosts = errors.New("GIT_TOKEN needs GIT_TOKEN_HOSTS")

// gitToken is GIT_TOKEN and the hosts it goes to.
var gitToken = backends.EnvCredential{Secret: "GIT_TOKEN", Hosts: "GIT_TOKEN_HOSTS", Sources: "git sources", Meant: "the host(s) the token is for", Err: ErrTokenHosts}

// Location is the source's URL as shown: no credentials, with its ref
// and path.
func (r *Repo) Location() string { return r.shown }

// Open opens a file of the current commit, cloning on first use.
func (r *Repo) Open(name string) (fs.File, error) {
	t, err := r.current(context.Background())
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return t.Open(name)
}

// Snapshot returns the current commit's files, cloning on first use. The
// result never changes: a refresh that finds a new commit makes a new one.
func (r *Repo) Snapshot(ctx context.Context) (fs.FS, error) { return r.current(ctx) }

// Revision returns the commit served now, or "" before the first clone.
func (r *Repo) Revision() string {
	if t := r.cur.Load(); t != nil {
		return t.commit
	}
	return ""
}

func (r *Repo) current(ctx context.Context) (*treeFS, error) {
	if t := r.cur.Load(); t != nil {
		return t, nil
	}
	if err := r.Refresh(ctx); err != nil {
		return nil, err
	}
	return r.cur.Load(), nil
}

// Refresh lists the remote's refs and, if the ref now names another
// commit, fetches it and serves it from then on. On failure the commit
// served so far stays.
//
// With a signer policy (Options.Verify, verify=, RequireSigners), a
// commit that does not verify is not served: Refresh returns a
// *store.VerifyError naming it and why, and logs it once; while the ref
// stays on it and the trusted keys stay the same list, later refreshes
// return the same error without fetching it again. While the ref stays
// on the commit served, each refresh checks it again (against the keys
// trusted now, and the clock): one that no longer verifies — its key
// removed from a reloaded list, or past its valid-before — stops being
// served, as a new commit that does not verify would not be, and the
// source serves nothing until a commit verifies (logged once, and
// reported by the VerifyError). The commit served is checked before the
// remote is asked, so a remote that stops answering cannot keep it
// served. A commit refused is checked again at each refresh from what
// was fetched, downloading nothing: one the list or the clock now lets
// through (its key's valid-after reached) is fetched again and served.
func (r *Repo) Refresh(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var stale error // the commit served until now, refused
	if t := r.cur.Load(); t != nil {
		stale = r.recheck(t)
	}
	want, err := r.resolve(ctx)
	if err != nil {
		return cmp.Or(stale, err)
	}
	if t := r.cur.Load(); t != nil && t.commit == want.commit.String() {
		return nil
	}
	if f := r.refused; f != nil && f.target == want {
		if err := r.stillRefused(f); err != nil {
			return err
		}
	}
	t, p, err := r.fetch(ctx, want)
	var verr *store.VerifyError
	if errors.As(err, &verr) {
		r.refuse(want, verr, p, "new commit failed signature verification")
	}
	if err != nil {
		return err
	}
	r.refused = nil
	r.cur.Store(t)
	return nil
}

// RequireSigners makes r serve only commits signed, or reached by a
// tag signed, by an SSH key trust returns (backends.Verifiable),
// replacing its policy: trust is asked for the list at each check, so a
// list reloaded from its file takes effect at the next refresh, for the
// commit served as for a new one (see Refresh). The commit served now,
// if any, is checked at once; one that does not verify stops being
// served. It never fails: the commit, if there is none yet, is checked
// when first fetched.
func (r *Repo) RequireSigners(ctx context.Context, trust func() *sshsig.AllowedSigners) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.verify, r.refused = &Verifier{ssh: trust}, nil
	if t := r.cur.Load(); t != nil {
		r.recheck(t) // the error is the source's from now on: Refresh reports it
	}
	return nil
}

// recheck checks t, the commit served, against the policy in force now.
// Verified, it stays served (with its signer as the list names it now);
// else it stops being served, and the refusal is remembered and logged
// as a new commit's would be.
func (r *Repo) recheck(t *treeFS) error {
	if r.verify == nil {
		return nil
	}
	signer, err := r.check(t.proof.to, t.proof.tag, t.proof.commit)
	var verr *store.VerifyError
	switch {
	case errors.As(err, &verr):
		r.cur.Store(nil)
		r.refuse(t.proof.to, verr, detach(t.objects, t.proof), "commit served until now is no longer trusted")
		return err
	case err != nil:
		return err
	case t.signer == nil || *signer != *t.signer:
		next := *t // catalogs built from t keep it as it was
		next.signer = signer
		r.cur.Store(&next)
	}
	return nil
}

// refused is a target the signer policy refused, the error saying so,
// the allowed-signers list in force then, and what was checked (nil when
// the commit could not be read, as one whose headers pass the limits).
type refused struct {
	target  target
	err     *store.VerifyError
	signers *sshsig.AllowedSigners
	proof   *proof
}

// refuse remembers that want was refused (p what was checked, or nil),
// and logs it, saying what: once a target and list, as later refreshes
// on it return the error without logging.
func (r *Repo) refuse(want target, err *store.VerifyError, p *proof, what string) {
	r.refused = &refused{target: want, err: err, signers: r.verify.signers(), proof: p}
	serving := "serving nothing from the source until a commit verifies"
	if t := r.cur.Load(); t != nil {
		serving = "serving the last commit that verified, " + t.commit[:12]
	}
	r.log.Warn("the git source's "+what+"; "+serving,
		"location", r.shown, "commit", short(want.commit), "reason", err.Reason, "err", err.Error())
}

// stillRefused returns the error of f, a refused target the ref still
// names, if the policy of the moment still refuses it: checked again
// from what was fetched, since the list or the clock may have changed
// the verdict (logged again only when the list changed); nil when it now
// verifies, to be fetched again. A target whose commit could not be read
// stays refused while the list is the same.
func (r *Repo) stillRefused(f *refused) error {
	if f.proof == nil {
		if f.signers == r.verify.signers() {
			return f.err
		}
		return nil
	}
	_, err := r.check(f.proof.to, f.proof.tag, f.proof.commit)
	var verr *store.VerifyError
	if errors.As(err, &verr) && f.signers != r.verify.signers() {
		r.refuse(f.target, verr, f.proof, "new commit failed signature verification")
	}
	return err
}

// target is what the source's ref names: a commit, the annotated tag it
// was reached by (zero if none: a branch, a lightweight tag, a SHA), and
// the reference to fetch it by (empty for a commit SHA the remote does
// not advertise).
type target struct {
	commit, tag plumbing.Hash
	name        plumbing.ReferenceName
}

// resolve finds the commit the ref names now.
func (r *Repo) resolve(ctx context.Context) (target, error) {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	ctx = context.WithValue(ctx, budgetKey{}, &budget{left: maxListBytes, total: maxListBytes})
	if r.sshUser != "" && r.auth == nil {
		auth, err := sshAuth(r.sshUser)
		if err != nil {
			return target{}, r.errorf("%s", err)
		}
		r.auth = auth
	}
	rem := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{r.remote}})
	refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: r.auth, PeelingOption: git.AppendPeeled})
	if r.auth == nil && r.token != nil && (errors.Is(err, transport.ErrAuthenticationRequired) || errors.Is(err, transport.ErrAuthorizationFailed)) {
		// The token goes only to a server that asks for credentials.
		r.auth = r.token
		refs, err = rem.ListContext(ctx, &git.ListOptions{Auth: r.auth, PeelingOption: git.AppendPeeled})
	}
	if err != nil {
		return target{}, r.describe(err)
	}
	byName := map[plumbing.ReferenceName]*plumbing.Reference{}
	for _, ref := range refs {
		byName[ref.Name()] = ref
	}
	if r.ref == "" {
		head := byName[plumbing.HEAD]
		if head == nil {
			return target{}, r.errorf("the repository has no default branch (HEAD); give ?ref=BRANCH")
		}
		if head.Type() == plumbing.SymbolicReference {
			if t := byName[head.Target()]; t != nil {
				return target{commit: t.Hash(), name: head.Target()}, nil
			}
		}
		for name, ref := range byName { // HEAD advertised by hash: find its branch
			if name.IsBranch() && ref.Hash() == head.Hash() {
				return target{commit: ref.Hash(), name: name}, nil
			}
		}
		return target{commit: head.Hash()}, nil
	}
	// As git does: a full name, then a tag, then a branch.
	for _, name := range []plumbing.ReferenceName{plumbing.ReferenceName(r.ref), plumbing.NewTagReferenceName(r.ref), plumbing.NewBranchReferenceName(r.ref)} {
		if !strings.HasPrefix(name.String(), "refs/") {
			continue
		}
		if peeled := byName[name+"^{}"]; peeled != nil && byName[name] != nil { // an annotated tag: its commit
			return target{commit: peeled.Hash(), tag: byName[name].Hash(), name: name}, nil
		}
		if ref := byName[name]; ref != nil {
			return target{commit: ref.Hash(), name: name}, nil
		}
	}
	if plumbing.IsHash(r.ref) {
		want := plumbing.NewHash(r.ref)
		for name, ref := range byName { // the tip of a branch or tag: fetch that alone
			if (name.IsBranch() || name.IsTag()) && ref.Hash() == want {
				return target{commit: want, name: plumbing.ReferenceName(strings.TrimSuffix(name.String(), "^{}"))}, nil // a peeled tag: fetch the tag
			}
		}
		return target{commit: want}, nil
	}
	return target{}, r.errorf("no branch, tag or commit %q in the repository", store.Echo(r.ref))
}

// fetch clones the commit into memory, checks it against the signer
// policy, if any, and returns its skills folder, and what the policy
// checked when it refused the commit, held apart from the clone (see
// detach): nil when the commit could not be read.
func (r *Repo) fetch(ctx context.Context, to target) (*treeFS, *proof, error) {
	ctx = context.WithValue(ctx, budgetKey{}, &budget{left: 4 * r.maxBytes, total: 4 * r.maxBytes})
	want := to.commit
	repo, err := r.download(ctx, to.name)
	if err != nil {
		return nil, nil, err
	}
	var tree *object.Tree
	var signer *store.Signer
	var commit *object.Commit
	tag := peelTag(repo, to.tag, to.commit)
	if err = r.checkHeaders(repo.Storer, want); err == nil {
		commit, err = repo.CommitObject(want)
	}
	if err == nil {
		signer, err = r.check(to, tag, commit) // before the tree is read
	}
	if err == nil {
		tree, err = commit.Tree()
	}
	switch {
	case errors.Is(err, ErrCorrupt):
		return nil, nil, r.errorf("commit %s or its tree in the cache folder %s does not match its hash (damaged or forged); delete that folder", short(want), filepath.Base(r.cacheDir))
	case errors.Is(err, plumbing.ErrObjectNotFound):
		return nil, nil, r.errorf("commit %s is not in the repository", store.Echo(r.ref))
	case errors.As(err, new(*store.VerifyError)) && commit != nil: // refused by the policy: what it checked, to check again
		return nil, detach(&objects{s: repo.Storer}, proof{to: to, tag: tag, commit: commit}), err
	case errors.As(err, new(*store.VerifyError)), errors.As(err, new(*Error)):
		return nil, nil, err
	case err != nil:
		return nil, nil, r.describe(err)
	}
	if r.dir != "." {
		if tree, err = tree.Tree(r.dir); err != nil {
			return nil, nil, r.errorf("the repository has no folder %q at %s", store.Echo(r.dir+"/"), short(want))
		}
	}
	dirs, err := indexTree(repo.Storer, tree, r.dir, r.maxBytes, commit.Committer.When)
	switch {
	case errors.Is(err, errOverCap):
		return nil, nil, r.errorf("the files under %q at %s, their paths included, exceed the %d MiB cap", store.Echo(r.dir+"/"), short(want), r.maxBytes>>20)
	case errors.Is(err, errTooMany):
		return nil, nil, r.errorf("the files and folders under %q at %s are over %d, the limit", store.Echo(r.dir+"/"), short(want), maxEntries)
	case errors.Is(err, ErrCorrupt):
		return nil, nil, r.errorf("a folder under %q at %s in the cache folder %s does not match its hash (damaged or forged); delete that folder", store.Echo(r.dir+"/"), short(want), filepath.Base(r.cacheDir))
	case errors.Is(err, ErrUnsafeTree):
		return nil, nil, &Error{Location: r.shown, Detail: fmt.Sprintf("commit %s is refused: %s; fix the repository", short(want), err), Err: err, public: true}
	case err != nil:
		return nil, nil, r.describe(err)
	}
	return &treeFS{dirs: dirs, objects: &objects{s: repo.Storer}, commit: want.String(), when: commit.Committer.When, signer: signer,
		proof: proof{to: to, tag: tag, commit: commit}}, nil, nil
}

// download fetches the commit of reference name (depth 1), or, for a
// bare SHA (name empty), every branch with its history: into memory, or
// into the cache folder, where later fetches only add what changed.
//
// Each HTTP request of the fetch keeps r.pace (see pacedTransport): a
// server that trickles is cut off after seconds with an error that says
// so.
func (r *Repo) download(ctx context.Context, name plumbing.ReferenceName) (*git.Repository, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	paced := &pacedFetch{lim: r.pace}
	ctx = context.WithValue(ctx, paceKey{}, paced)
	if r.cacheDir == "" {
		opts := &git.CloneOptions{URL: r.remote, Auth: r.auth, NoCheckout: true, Tags: git.NoTags}
		if name != "" {
			opts.ReferenceName, opts.SingleBranch, opts.Depth = name, true, 1
		}
		repo, err := git.CloneContext(ctx, newStorage(memfs.New(), 4*r.maxBytes, true), nil, opts)
		if err != nil {
			return nil, r.fetchError(paced, err)
		}
		return repo, nil
	}
	unlock, err := openCache(ctx, filepath.Dir(r.cacheDir), r.cacheDir)
	if err != nil {
		return nil, r.errorf("%s", err)
	}
	defer unlock()
	st := newStorage(osfs.New(r.cacheDir, osfs.WithBoundOS()), 4*r.maxBytes, false)
	repo, err := git.Open(st, nil)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		repo, err = git.Init(st, nil)
		if err == nil {
			_, err = repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{r.remote}})
		}
	}
	if err != nil {
		return nil, r.errorf("the cache folder cannot be used: %s", strings.ReplaceAll(err.Error(), r.cacheDir, "(cache)"))
	}
	opts := &git.FetchOptions{RemoteName: "origin", Auth: r.auth, Force: true, Tags: git.NoTags,
		RefSpecs: []config.RefSpec{"+refs/heads/*:refs/heads/*"}}
	if name != "" {
		opts.RefSpecs, opts.Depth = []config.RefSpec{config.RefSpec("+" + name + ":" + name)}, 1
	}
	if err := repo.FetchContext(ctx, opts); err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil, r.fetchError(paced, err)
	}
	return repo, nil
}

// fetchError explains a failed fetch: cut off by its pace, else as
// describe does.
func (r *Repo) fetchError(paced *pacedFetch, err error) error {
	var tooBig *overBudget
	if p := paced.cut(); p != nil && !errors.As(err, &tooBig) {
		return &Error{Location: r.shown, Detail: fmt.Sprintf("the repository's server sent the fetch too slowly (%s)", p.Explain()), Err: err, public: true}
	}
	return r.describe(err)
}

// Time limits of one ref listing and one fetch.
const (
	listTimeout  = 30 * time.Second
	fetchTimeout = 10 * time.Minute
	maxListBytes = 16 << 20 // a ref listing's download
)

// DefaultPace is the pace each HTTP request of a fetch must keep: its
// answer starts within 10 s (a server may take seconds to pack a large
// repository), then arrives at 32 KiB/s on average or faster, all within
// the fetch's 10 minutes. One that falls behind is cut off, and the fetch
// fails saying the server was too slow.
var DefaultPace = pace.Limits{Grace: 10 * time.Second, MinRate: 32 << 10, Timeout: fetchTimeout}

// pacedFetch is a fetch's pace, carried by its context (under paceKey)
// to pacedTransport, which paces each of its requests and keeps their
// Pacers to say afterwards whether one was cut off.
type pacedFetch struct {
	lim    pace.Limits
	mu     sync.Mutex
	pacers []*pace.Pacer
}

type paceKey struct{}

func (f *pacedFetch) add(p *pace.Pacer) {
	f.mu.Lock()
	f.pacers = append(f.pacers, p)
	f.mu.Unlock()
}

// cut returns the Pacer of a request cut off for slowness, or nil.
func (f *pacedFetch) cut() *pace.Pacer {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.pacers {
		if p.Slow() {
			return p
		}
	}
	return nil
}

// Error is a git source's failure, naming the source without credentials.
type Error struct {
	Location string // the source's URL as shown
	Detail   string
	Err      error // the cause, if any

	public bool // Detail names no host
}

var _ store.PublicError = (*Error)(nil)

func (e *Error) Error() string { return "git source " + e.Location + ": " + e.Detail }
func (e *Error) Unwrap() error { return e.Err }

// Public is the explanation without the source's URL, for callers who
// must not learn hosts (store.PublicError). The reachability error's
// detail, which names the host, is not public.
func (e *Error) Public() string {
	if e.public {
		return "the git source: " + e.Detail
	}
	return ""
}

// errorf is a failure whose detail names no host or path (what is wrong
// with the ref, the tree or the credentials' setup): callers may see it.
// Errors made otherwise are not public unless they say so.
func (r *Repo) errorf(format string, a ...any) error {
	return &Error{Location: r.shown, Detail: fmt.Sprintf(format, a...), public: true}
}

// describe turns go-git's errors into ones that say what to do, without
// the token (go-git never puts it in its messages; the URL has none).
func (r *Repo) describe(err error) error {
	var tooBig *overBudget
	switch {
	case errors.As(err, &tooBig):
		return &Error{Location: r.shown, Detail: fmt.Sprintf("the clone exceeds %d MiB; the repository is too large to serve (the cap is 4× the %d MiB cap on its skills path)", tooBig.limit>>20, r.maxBytes>>20), Err: err, public: true}
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		hint := "set GIT_TOKEN to a token that can read it"
		if r.token != nil {
			hint = "the token was refused; check that it can read the repository"
		}
		return &Error{Location: r.shown, Detail: "the repository needs credentials: " + hint, Err: err, public: true}
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return &Error{Location: r.shown, Detail: "no repository at this URL", Err: err, public: true}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &Error{Location: r.shown, Detail: "the remote did not answer in time", Err: err, public: true}
	case strings.Contains(err.Error(), "knownhosts"):
		return &Error{Location: r.shown, Detail: "the server's SSH host key is not in SSH_KNOWN_HOSTS (else ~/.ssh/known_hosts), or does not match it; add it after checking it", Err: err, public: true}
	case strings.Contains(err.Error(), "unable to authenticate"):
		return &Error{Location: r.shown, Detail: "the server refused the SSH key (GIT_SSH_KEY or the ssh-agent's)", Err: err, public: true}
	case errors.Is(err, errRedirect):
		return &Error{Location: r.shown, Detail: errRedirect.Error(), Err: err, public: true} // not err's text: it names the target
	}
	return &Error{Location: r.shown, Detail: "cannot reach the repository: " + scrub(err.Error(), r.remote), Err: err}
}

// scrub keeps a message from naming more than the host.
func scrub(msg, remote string) string {
	if u, err := url.Parse(remote); err == nil {
		msg = strings.ReplaceAll(msg, remote, u.Host)
	}
	return msg
}

func short(h plumbing.Hash) string { return h.String()[:12] }

var errRedirect = errors.New("the server redirected to another host; refusing to follow it")

// sameHost refuses redirects that leave the repository's host.
func sameHost(req *http.Request, via []*http.Request) error {
	if len(via) > 0 && !strings.EqualFold(req.URL.Host, via[0].URL.Host) {
		return errRedirect
	}
	if len(via) >= 5 {
		return errors.New("too many redirects")
	}
	return nil
}

// budget bounds the bytes one clone downloads.
type budget struct {
	mu          sync.Mutex
	left, total int64
}

type budgetKey struct{}

type overBudget struct{ limit int64 }

func (e *overBudget) Error() string { return fmt.Sprintf("download over %d bytes", e.limit) }

// limitTransport counts response bytes against the request's budget,
// and paces a fetch's requests (those whose context carries a
// pacedFetch): each must have its answer start and arrive in time (see
// pace.Pacer), or its request is cancelled.
type limitTransport struct{ next http.RoundTripper }

func (t limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var p *pace.Pacer
	unpace := func() {}
	if f, ok := req.Context().Value(paceKey{}).(*pacedFetch); ok {
		var ctx context.Context
		ctx, p, unpace = pace.Start(req.Context(), f.lim)
		f.add(p)
		req = req.WithContext(ctx)
	}
	res, err := t.next.RoundTrip(req)
	if err != nil {
		unpace()
		return nil, err
	}
	if p != nil {
		res.Body = &pacedBody{Pacer: p.Wrap(res.Body), body: res.Body, stop: unpace}
	}
	if b, ok := req.Context().Value(budgetKey{}).(*budget); ok {
		res.Body = &limitedBody{ReadCloser: res.Body, b: b}
	}
	return res, nil
}

// pacedBody is a response body read through its Pacer; closing it stops
// the Pacer.
type pacedBody struct {
	*pace.Pacer
	body io.Closer
	stop func()
}

func (b *pacedBody) Close() error {
	err := b.body.Close()
	b.stop()
	return err
}

type limitedBody struct {
	io.ReadCloser
	b *budget
}

func (l *limitedBody) Read(p []byte) (int, error) {
	n, err := l.ReadCloser.Read(p)
	l.b.mu.Lock()
	l.b.left -= int64(n)
	over := l.b.left < 0
	l.b.mu.Unlock()
	if over {
		return n, &overBudget{limit: l.b.total}
	}
	return n, err
}
