// Command skillstore serves Agent Skills to LLM agents over MCP (stdio or
// Streamable HTTP) and inspects, validates and prints them from the shell.
//
//	skillstore serve                      # stdio MCP over the conventional skill folders
//	skillstore serve --http 127.0.0.1:8080 --source s3://corp-skills?prefix=skills/
//	skillstore list | get NAME | read NAME PATH | files NAME | validate [DIR]...
//	skillstore tools --format openai|mcp  # definitions for function-calling agents
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillstore/skillstore/backends/ocifs"
	"github.com/skillstore/skillstore/backends/wellknown"
	"github.com/skillstore/skillstore/discovery"
	"github.com/skillstore/skillstore/internal/httpserve"
	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/internal/lru"
	"github.com/skillstore/skillstore/internal/netaddr"
	"github.com/skillstore/skillstore/internal/telemetry"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/site"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
	"github.com/skillstore/skillstore/usage"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newRoot(os.Stdout, os.Stderr).ExecuteContext(ctx); err != nil {
		var ec exitCode
		if errors.As(err, &ec) {
			os.Exit(exitStatus(err))
		}
		fmt.Fprintln(os.Stderr, "skillstore:", errorText(err))
		if hint := sourceHint(err); hint != "" {
			fmt.Fprintln(os.Stderr, "skillstore:", hint)
		}
		os.Exit(exitStatus(err))
	}
}

// errorText is what the command says of err: for the store's errors, the
// sentence the tools use (tools.Describe).
func errorText(err error) string {
	var se *store.Error
	if errors.As(err, &se) {
		msg, _ := tools.Describe(err)
		return msg
	}
	return err.Error()
}

// exitCode ends the program with a status and no further message.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// globals are the flags every command shares.
type globals struct {
	sources     []string
	strict      bool
	allowHidden []string
	maxFileSize int64
	cacheBytes  int64
	maxStale    time.Duration
	srcTimeout  time.Duration
	logLevel    string
	textBudget  int
	gitCache    string
	ociCache    string
	ociCacheMax int64
	trusted     string
	serving     bool           // serve: the store logs the skills it leaves out (other commands print them)
	registry    *registryFlags // serve's --registry, nil for other commands
	pins        *lockPins      // serve's --lock, nil without it
	stdout      io.Writer
	stderr      io.Writer
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	g := &globals{stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "skillstore",
		Short: "Serve Agent Skills to LLM agents over MCP and function calling",
		Long: `skillstore serves Agent Skills (folders with a SKILL.md and supporting files) to LLM agents.

Sources, in priority order, come from --source (repeatable), else SKILLSTORE_SOURCES
(comma-separated), else the folders ./.agents/skills, ./.claude/skills, ~/.agents/skills
and ~/.claude/skills that exist, else the built-in example skills. A source is
[LABEL=]PATH|URL: a directory, a .zip/.skill archive, file:///dir, s3://bucket?prefix=…,
gs://bucket?prefix=…, azblob://container?prefix=…, git+https://host/org/repo.git?ref=…&path=…
(or git+ssh://), https://host/.well-known/agent-skills/, oci://registry/repo:tag (or @sha256:…),
mem:// or builtin://. An executable made by "skillstore bundle" serves the skills it carries,
after any --source.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			level := slog.LevelInfo
			level.UnmarshalText([]byte(g.logLevel))
			slog.SetDefault(slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: level})))
			if g.gitCache != "" {
				os.Setenv("SKILLSTORE_GIT_CACHE", g.gitCache) // read by backends/gitfs when it opens a source
			}
			if g.ociCacheMax != 0 {
				os.Setenv(ocifs.CacheMaxEnv, strconv.FormatInt(g.ociCacheMax, 10))
			}
			if g.ociCache != "" {
				os.Setenv(ocifs.CacheEnv, g.ociCache) // read by backends/ocifs when it opens a source
			}
			os.Setenv(wellknown.MaxFileSizeEnv, fmt.Sprint(g.maxFileSize)) // .well-known sources keep no larger file
			if g.textBudget < minTextBudget {
				return fmt.Errorf("--text-budget %d is too small: give at least %d bytes", g.textBudget, minTextBudget)
			}
			return nil
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.Version = versionString() // --version, as "skillstore version" prints it
	root.SetVersionTemplate("skillstore {{.Version}}\n")
	pf := root.PersistentFlags()
	pf.StringArrayVarP(&g.sources, "source", "s", nil, "skill source `[LABEL=]PATH|URL` (repeatable; first wins on name clashes)")
	pf.BoolVar(&g.strict, "strict", false, "refuse to serve skills that break the Agent Skills specification or hide text (tag characters, bidi controls, zero-width characters, HTML comments in SKILL.md)")
	pf.Int64Var(&g.maxFileSize, "max-file-size", store.DefaultMaxFileSize, "largest file served, in bytes")
	pf.StringArrayVar(&g.allowHidden, "allow-hidden", nil, "serve the hidden file or folder `NAME` (e.g. .github) in skill folders; others (.git, .env…) are never listed nor served (repeatable)")
	pf.Int64Var(&g.cacheBytes, "cache-bytes", store.DefaultCacheBytes, "content cache budget in bytes (negative disables the cache)")
	pf.DurationVar(&g.maxStale, "max-stale", store.DefaultMaxStale, "while a source fails, serve cached files checked at most this long ago (negative: never)")
	pf.DurationVar(&g.srcTimeout, "source-timeout", store.DefaultSourceTimeout, "serve the other sources when one has not answered within this long (its last listing stays; negative: wait for every source)")
	pf.StringVar(&g.logLevel, "log-level", "info", "log level on stderr: debug, info, warn, error")
	pf.StringVar(&g.ociCache, "oci-cache", "", "keep OCI sources' layers by digest in `DIR` (a restart, or a moved tag, then downloads only layers it does not hold); also "+ocifs.CacheEnv)
	pf.Int64Var(&g.ociCacheMax, "oci-cache-max", 0, "bytes the --oci-cache folder holds at most, the least recently used layers removed first (0: 1 GiB; negative: no bound); also "+ocifs.CacheMaxEnv)
	pf.StringVar(&g.gitCache, "git-cache", "", "keep git sources' repositories in folders under `DIR` (fetches then download only changes) instead of in memory; also SKILLSTORE_GIT_CACHE")
	pf.StringVar(&g.trusted, "trusted-signers", "", "serve only published snapshots and git commits signed by a key the allowed-signers `FILE` lists (ssh-keygen format); a source URL's trusted-signers=FILE option overrides it for that source. With publish --sign: the keys besides its own whose snapshots a publish follows")
	pf.IntVar(&g.textBudget, "text-budget", tools.DefaultTextBudget, "most bytes of text in a list_skills or search_skills answer; over it list_skills gives names only and points to search_skills")
	root.AddCommand(serveCmd(g), connectCmd(g), listCmd(g), searchCmd(g), getCmd(g), readCmd(g), filesCmd(g), validateCmd(g), publishCmd(g), pushCmd(g), versionsCmd(g), diffCmd(g), reviewCmd(g), promoteCmd(g), pendingCmd(g), installCmd(g), updateCmd(g), lockCmd(g), bundleCmd(g), toolsCmd(g), usageCmd(g), versionCmd(g))
	document(root)
	return root
}

// usageArgs checks a command's arguments with check and, when they are
// wrong, says so with the command's usage line and where its examples are.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return fmt.Errorf("%w\nusage: %s\nsee '%s --help' for examples", err, cmd.UseLine(), cmd.CommandPath())
		}
		return nil
	}
}

// minTextBudget is the smallest --text-budget: room for list_skills'
// explanation and some names.
const minTextBudget = 1024

// toolOptions are the tools' options from the flags.
func (g *globals) toolOptions() tools.Options {
	return tools.Options{TextBudget: g.textBudget}
}

// withStore runs f with the store over the configured sources, then closes them.
func (g *globals) withStore(cmd *cobra.Command, f func(*store.Store) error) error {
	s, done, err := g.open(cmd.Context())
	if err != nil {
		return err
	}
	defer done()
	return f(s)
}

// open builds the store over the configured sources.
func (g *globals) open(ctx context.Context) (*store.Store, func(), error) {
	s, o, err := g.openSources(ctx)
	if err != nil {
		return nil, nil, err
	}
	return s, o.Close, nil
}

// openSources is open, returning the sources opened (Close closes them).
func (g *globals) openSources(ctx context.Context) (*store.Store, *openedSources, error) {
	o, err := openSources(ctx, g.sources, g.trusted, g.registry, g.stderr)
	if err != nil {
		return nil, nil, err
	}
	s, err := store.New(o.sources, store.Options{Strict: g.strict, MaxFileSize: g.maxFileSize, CacheBytes: g.cacheBytes, MaxStale: g.maxStale, SourceTimeout: g.srcTimeout, AllowHidden: g.allowHidden, Logger: slog.Default(), ReportsProblems: !g.serving, Pins: g.storePins()})
	if err != nil {
		o.Close()
		return nil, nil, err
	}
	o.store = s
	return s, o, nil
}

func serveCmd(g *globals) *cobra.Command {
	var (
		addr, tokenFile string
		lockPath        string
		stateless       bool
		openWellKnown   bool
		noUI            bool
		showLocations   bool
		sessionTTL      time.Duration
		maxSessions     int
		maxStreams      int
		sessionsEach    int
		streamsEach     int
		bodyTimeout     time.Duration
		reqTimeout      time.Duration
		memLimit        int64
		refresh         time.Duration
		origins         []string
		hosts           []string
		insecure        bool
		usageFile       string
		acc             accessFlags
		reg             registryFlags
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve skills over MCP: stdio by default, Streamable HTTP with --http",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			token, err := authToken(tokenFile)
			if err != nil {
				return err
			}
			if err := acc.check(addr, token); err != nil {
				return err
			}
			if err := checkAllowedHosts(hosts); err != nil {
				return err
			}
			if reg.url != "" && addr == "" {
				return errors.New("--registry needs --http ADDR: the registry is written through the Skills API at /v1/skills")
			}
			g.registry = &reg
			if lockPath != "" {
				if g.pins, err = readLockPins(lockPath); err != nil {
					return err
				}
				reg.pins = g.pins.Version
			}
			if addr != "" && token == "" && !acc.enabled() && !insecure && !netaddr.IsLoopback(addr) {
				return fmt.Errorf("--http %s listens beyond this machine; set --auth-token-file FILE or SKILLSTORE_AUTH_TOKEN, or --oauth-issuer or --token-file (or pass --insecure-no-auth to accept the risk)", addr)
			}
			// Identity first: a bad token file or issuer URL ends the
			// command before any source is opened or watched.
			var hopts site.Options
			if addr != "" {
				var closeAuth func()
				if hopts, closeAuth, err = acc.open(ctx); err != nil {
					return err
				}
				defer closeAuth()
			}
			// The policy before the sources: it says which skills need
			// review and which channels have a source.
			var started atomic.Pointer[mcpserver.Server]
			policy, err := acc.policy(func() {
				if srv := started.Load(); srv != nil {
					srv.PolicyChanged()
				}
			})
			if err != nil {
				return err
			}
			mopts := mcpserver.Options{Version: versionString(), RequestTimeout: reqTimeout}
			tel, err := telemetry.Setup(ctx, telemetry.Options{ServiceVersion: versionString()})
			if err != nil {
				return err
			}
			if tel != nil {
				defer func() { // exports what is queued, for a few seconds at most
					sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
					defer cancel()
					if err := tel.Shutdown(sctx); err != nil {
						slog.Warn("OpenTelemetry: the last spans or metrics were not exported", "err", logtext.Of(err))
					}
				}()
				mopts.TracerProvider, mopts.MeterProvider = tel.TracerProvider(), tel.MeterProvider()
				hopts.Spans = tel.Stats
				slog.Info("OpenTelemetry export on", "traces", mopts.TracerProvider != nil, "metrics", mopts.MeterProvider != nil)
			}
			if policy != nil {
				defer policy.Close()
				mopts.Access = policy
				reg.needsReview = func(name string) bool { return policy.Policy().NeedsReview(name) } // as the policy is now
				reg.channels = policy.Policy().Channels()
			}
			g.serving = true
			s, sources, err := g.openSources(ctx)
			if err != nil {
				return err
			}
			defer sources.Close()
			setMemoryLimit(memLimit, g.cacheBytes)
			if g.pins != nil {
				go reportUnserved(ctx, s, g.pins)
			}
			if mopts.Audit, err = acc.auditLog(ctx); err != nil {
				return err
			}
			if mopts.Audit != nil {
				defer mopts.Audit.Close() // writes what is queued
			}
			if usageFile != "" {
				u, err := usage.Open(usageFile, usage.Options{})
				if err != nil {
					slog.Warn("usage file", "err", err) // counting goes on
				}
				mopts.Usage = u
				pctx, stopSaving := context.WithCancel(ctx)
				saved := make(chan struct{})
				go func() {
					defer close(saved)
					u.Persist(pctx, usageSaveEvery, slog.Default())
				}()
				defer func() { stopSaving(); <-saved }() // the last save, at shutdown
			}
			srv, err := mcpserver.New(ctx, tools.New(s, g.toolOptions()), mopts)
			if err != nil {
				return err
			}
			started.Store(srv)
			// A reloaded trusted-signers file is applied at once: what a
			// source serves is verified again against it (--refresh may be long, or 0).
			sources.trust.OnReload(srv.Rescan)
			go srv.Watch(ctx, refresh)
			if addr == "" {
				if isTerminal(os.Stdin) {
					fmt.Fprint(g.stderr, stdioNote)
				}
				slog.Info("serving MCP over stdio", "sources", len(s.Sources()))
				return srv.ServeStdio(ctx, os.Stdin, g.stdout)
			}
			hopts.Stateless, hopts.SessionIdleTTL, hopts.MaxSessions, hopts.MaxStreams, hopts.BodyTimeout = stateless, sessionTTL, maxSessions, maxStreams, bodyTimeout
			hopts.MaxSessionsPerPrincipal, hopts.MaxStreamsPerPrincipal = sessionsEach, streamsEach
			hopts.AuthToken, hopts.AllowedOrigins, hopts.AllowedHosts, hopts.OpenWellKnown = token, origins, hosts, openWellKnown
			hopts.UI, hopts.Resource, hopts.ShowLocations = !noUI, acc.resource, showLocations
			if sources.registry != nil {
				hopts.Registry = site.RegistryOptions{Registry: sources.registry, Label: reg.label, Check: reg.check()}
			}
			h := site.New(srv, hopts)
			return httpserve.Serve(ctx, addr, h, 10*time.Second, func(a net.Addr) {
				slog.Info("serving MCP over Streamable HTTP", "url", "http://"+a.String()+"/mcp", "stateless", stateless, "auth", token != "" || acc.enabled())
				if !noUI {
					slog.Info("serving the catalog's pages", "url", "http://"+a.String()+"/")
				}
				if sources.registry != nil {
					slog.Info("serving the Skills API", "url", "http://"+a.String()+"/v1/skills", "skills", sources.registry.Len())
				}
				slog.Info("serving the Agent Skills discovery index", "url", "http://"+a.String()+discovery.WellKnownPath+"index.json", "open", openWellKnown)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "http", "", "serve Streamable HTTP on `ADDR` (e.g. 127.0.0.1:8080) instead of stdio")
	f.BoolVar(&stateless, "stateless", false, "HTTP without sessions, for replicas behind a load balancer")
	f.BoolVar(&noUI, "no-ui", false, "do not serve the catalog's pages for people at / (with --http)")
	f.BoolVar(&showLocations, "show-locations", false, "show HTTP callers where each source is on this machine's disk (its path), in provenance, the Skill tool's Path: line and the pages, as stdio does; without it such a source is named by its label")
	f.BoolVar(&openWellKnown, "open-well-known", false, "serve the discovery index and skill archives under /.well-known/agent-skills/ without the token, to any origin")
	f.DurationVar(&sessionTTL, "session-ttl", mcpserver.DefaultSessionIdleTTL, "drop stateful HTTP sessions idle this long")
	f.IntVar(&maxSessions, "max-sessions", mcpserver.DefaultMaxSessions, "cap on live stateful HTTP sessions; past it initialize ends the least recently used idle one, or gets 503 when every session is busy")
	f.IntVar(&maxStreams, "max-streams", mcpserver.DefaultMaxStreams, "cap on open HTTP streams (GET streams and subscriptions/listen, with or without a session); past it a new one gets 503")
	f.IntVar(&sessionsEach, "max-sessions-per-principal", 0, "cap on one principal's live sessions; at it, its initialize ends its least recently used idle session, or gets 503 (0: a tenth of --max-sessions with --oauth-issuer or --token-file; else every caller is one anonymous principal, with the whole cap)")
	f.IntVar(&streamsEach, "max-streams-per-principal", 0, "cap on one principal's open streams; past it its new stream gets 503 (0: a tenth of --max-streams with --oauth-issuer or --token-file; else the whole cap, as for sessions)")
	f.DurationVar(&bodyTimeout, "body-timeout", mcpserver.DefaultBodyTimeout, "time allowed to receive an HTTP request's body")
	f.DurationVar(&reqTimeout, "request-timeout", mcpserver.DefaultRequestTimeout, "time a request may wait for the skill sources before it is answered with an error")
	f.Int64Var(&memLimit, "memory-limit", 0, memoryLimitUsage)
	f.StringVar(&tokenFile, "auth-token-file", "", "require the bearer token in `FILE` on /mcp (or set SKILLSTORE_AUTH_TOKEN)")
	f.StringArrayVar(&origins, "allow-origin", nil, "browser `ORIGIN` allowed besides loopback (repeatable)")
	f.StringArrayVar(&hosts, "allow-host", nil, "accept the Host header `NAME[:PORT]` (repeatable), for a server behind a reverse proxy or sidecar that keeps the client's Host; once given, only loopback and listed Hosts are accepted on any listener (/healthz and /readyz also answer an IP address)")
	f.BoolVar(&insecure, "insecure-no-auth", false, "allow --http beyond loopback without a token")
	f.StringVar(&usageFile, "usage-file", "", "count each skill's loads, distinct principals and last use, kept across restarts in `FILE` (written every 30s and at shutdown; see skillstore usage)")
	reg.add(f)
	f.StringVar(&lockPath, "lock", "", "serve only the skills the lock `FILE` (skills-lock.json) names, each only when its files are the ones it pins (computedHash, and skillstore's digest); a registry serves the version it pins. A skill whose copy differs is withheld and reported")
	f.DurationVar(&refresh, "refresh", 10*time.Second, "how often to rescan sources for changed skills (0 disables)")
	acc.register(cmd)
	return cmd
}

// checkAllowedHosts refuses an --allow-host value that is not a host
// name or address with an optional port (a URL, a path, a space).
func checkAllowedHosts(hosts []string) error {
	for _, h := range hosts {
		if h == "" || strings.ContainsAny(h, "/ \t@?#") {
			return fmt.Errorf("--allow-host %q: give the Host header clients send through the proxy, a name or address with an optional :PORT (e.g. skills.example.com or skills.example.com:443), not a URL", h)
		}
	}
	return nil
}

// stdioNote is what serve tells a person who started it in a terminal:
// it waits for an MCP client's JSON-RPC on stdin, and typing is no use.
const stdioNote = `skillstore: this is an MCP server speaking JSON-RPC on stdin and stdout, waiting for a client
  (an agent such as Claude Code, Claude Desktop, Cursor or VS Code launches it; typing here is no use).
  Connect a client:    skillstore connect --client claude-code   (or claude-desktop, cursor, vscode)
  See the skills:      skillstore list
  Serve over HTTP:     skillstore serve --http 127.0.0.1:8080   (and open http://127.0.0.1:8080/)
  Stop:                Ctrl-C
`

// memoryMargin is what the server may use beyond the content cache by
// default: the catalog, the memos of rendered answers, requests in flight.
const memoryMargin = 256 << 20

// memoryLimitUsage describes --memory-limit, with the sum of the other
// caches' fixed budgets (lru.Fixed), which the margin holds.
var memoryLimitUsage = fmt.Sprintf("Go's soft memory limit in `BYTES` (0: the cache budget plus %d MiB, unless GOMEMLIMIT is set; negative: none); the server's other caches have fixed budgets adding up to %d MiB",
	memoryMargin>>20, lru.Fixed()>>20)

// setMemoryLimit sets Go's soft memory limit, so that the garbage collector
// keeps the heap near what the server holds rather than letting it grow
// to twice that (GOGC's default) under load: limit, else GOMEMLIMIT, else
// the cache budget plus memoryMargin. The limit is soft: a server that
// needs more (a very large catalog) gets it, at the cost of more frequent
// collections (the runtime caps their CPU).
func setMemoryLimit(limit, cacheBytes int64) {
	switch {
	case limit < 0:
		return
	case limit == 0 && os.Getenv("GOMEMLIMIT") != "":
		return // the runtime read it at start
	case limit == 0:
		limit = max(cacheBytes, 0) + memoryMargin
	}
	debug.SetMemoryLimit(limit)
	slog.Debug("memory limit set", "bytes", limit)
}

// authToken reads the bearer token from a file or SKILLSTORE_AUTH_TOKEN.
func authToken(file string) (string, error) {
	return readToken(file, "--auth-token-file", "SKILLSTORE_AUTH_TOKEN")
}

// readToken reads a token from file, named by flag in messages, or when
// file is "" from the environment variable env; spaces around it are
// dropped. A file that holds none is an error; an unset variable is "".
func readToken(file, flag, env string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv(env)), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", flag, stripHost(err))
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("%s is empty", flag)
	}
	return tok, nil
}

func listCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the skills served, with their sources; problems go to stderr",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.withStore(cmd, func(s *store.Store) error {
				c, err := s.View(nil).Catalog(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(g.stdout, catalogJSON(c))
				}
				tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tSOURCE\tDESCRIPTION")
				for _, sk := range c.Skills {
					source := sk.Source.Label
					if sk.Revision() != "" {
						source += "@" + shortRevision(sk.Revision())
					}
					mark := ""
					if len(sk.Findings) > 0 {
						mark = "  [hidden text]" // what it is goes to stderr
					}
					fmt.Fprintf(tw, "%s\t%s\t%s%s\n", sk.Name, source, clipLine(sk.Description, 80), mark)
				}
				tw.Flush()
				reportProblems(g.stderr, c)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the catalog as JSON: skills, problems and shadowed copies")
	return cmd
}

func searchCmd(g *globals) *cobra.Command {
	var (
		limit  int
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Rank the skills for a task described in words, as the search_skills tool does",
		Long: `Rank the skills served for a task described in everyday words, best first, over their
names, descriptions and SKILL.md headings and text. The words of QUERY may be given as
separate arguments: skillstore search fill a pdf form.`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withStore(cmd, func(s *store.Store) error {
				call := map[string]any{"query": strings.Join(args, " ")}
				if cmd.Flags().Changed("limit") {
					call["limit"] = limit
				}
				a, _ := json.Marshal(call)
				res, _ := tools.New(s, g.toolOptions()).Run(cmd.Context(), tools.SearchSkills, a) // the result says what is wrong
				if asJSON && !res.IsError {
					return writeJSON(g.stdout, res.Structured)
				}
				if err := printResult(g, res); err != nil {
					return err
				}
				_, err := io.WriteString(g.stdout, "\n")
				return err
			})
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "n", tools.DefaultSearchLimit, fmt.Sprintf("how many skills to show, 1 to %d", tools.MaxSearchLimit))
	cmd.Flags().BoolVar(&asJSON, "json", false, `print the search_skills result as JSON: {"skills": [...], "details": [...]}`)
	return cmd
}

func getCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "get NAME|URI",
		Short: "Print a skill's SKILL.md (by name or skill:// URI)",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withStore(cmd, func(s *store.Store) error {
				key := "skill_name"
				if strings.Contains(args[0], "://") {
					key = "uri"
				}
				a, _ := json.Marshal(map[string]string{key: args[0]})
				res, _ := tools.New(s, g.toolOptions()).Run(cmd.Context(), tools.GetSkill, a) // the result says what is wrong
				if res.IsError && key == "skill_name" {
					name := strings.TrimSpace(args[0]) // as get_skill takes it
					if _, err := s.View(nil).Skill(cmd.Context(), name); err != nil {
						sentence, _, _ := strings.Cut(res.Display, "\n") // the tool's, which says the name as it took it
						if nf := notFound(cmd.Context(), g.stderr, s, name, err, sentence); nf != nil {
							return nf
						}
					}
				}
				return printResult(g, res)
			})
		},
	}
}

func readCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "read NAME PATH",
		Short: "Write a file from a skill's folder, its bytes exactly as stored (as cat would)",
		Args:  usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withStore(cmd, func(s *store.Store) error {
				f, err := s.View(nil).ReadFile(cmd.Context(), args[0], args[1], nil)
				if nf := notFound(cmd.Context(), g.stderr, s, args[0], err, ""); nf != nil {
					return nf
				}
				if err != nil {
					return err
				}
				_, err = io.WriteString(g.stdout, f.Raw)
				return err
			})
		},
	}
}

func filesCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "files NAME",
		Short: "List the files in a skill's folder with their sizes",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withStore(cmd, func(s *store.Store) error {
				files, err := s.View(nil).Files(cmd.Context(), args[0], nil)
				if nf := notFound(cmd.Context(), g.stderr, s, args[0], err, ""); nf != nil {
					return nf
				}
				if err != nil {
					return err
				}
				for _, f := range files {
					fmt.Fprintf(g.stdout, "%10d  %s\n", f.Size, f.Path)
				}
				return nil
			})
		},
	}
}

func toolsCmd(g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "Print the tool definitions: OpenAI function-calling format, or MCP tools/list",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "openai" && format != "mcp" {
				return fmt.Errorf("unknown --format %q: use openai or mcp", format)
			}
			return g.withStore(cmd, func(s *store.Store) error {
				t := tools.New(s, g.toolOptions())
				if format == "openai" {
					return writeJSON(g.stdout, t.Definitions(cmd.Context()))
				}
				srv, err := mcpserver.New(cmd.Context(), t, mcpserver.Options{Version: versionString()})
				if err != nil {
					return err
				}
				return writeJSON(g.stdout, map[string]any{"tools": srv.Tools()})
			})
		},
	}
	cmd.Flags().StringVar(&format, "format", "openai", "openai or mcp")
	return cmd
}

func versionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  usageArgs(cobra.NoArgs),
		Run: func(*cobra.Command, []string) {
			fmt.Fprintln(g.stdout, "skillstore", versionString())
		},
	}
}

// versionString is the -ldflags version, else the module version, else "dev".
func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// printResult writes a tool result's display text, or fails with its message.
func printResult(g *globals, r tools.Result) error {
	if r.IsError {
		fmt.Fprintln(g.stderr, "skillstore:", cliWords.Replace(r.Display))
		return exitCode(1)
	}
	_, err := io.WriteString(g.stdout, cliWords.Replace(r.Display))
	return err
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// clipLine is s on one line, its spaces collapsed, clipped to n-1 bytes
// and a mark.
func clipLine(s string, n int) string {
	return logtext.Clip(strings.Join(strings.Fields(s), " "), n-1)
}

// sourceHint says what to check when a source cannot be listed, or
// which token to set when a Skills API server refused it.
func sourceHint(err error) string {
	if ae := (*apiError)(nil); errors.As(err, &ae) {
		return ae.hint()
	}
	var se *store.Error
	if !errors.As(err, &se) || se.Location == "" {
		return ""
	}
	switch {
	case errors.Is(err, store.ErrSourcePermission):
		return "check the credentials for " + se.Location + " (AWS_*, GOOGLE_APPLICATION_CREDENTIALS or AZURE_STORAGE_* for object storage; file permissions for a folder)"
	case errors.Is(err, store.ErrSourceNotFound):
		return "check the folder, bucket or container name and prefix of " + se.Location
	case errors.Is(err, store.ErrUnavailable):
		return "check that " + se.Location + " is reachable; the log line above has the driver's error"
	}
	return ""
}

// shortRevision shortens a skill's revision for a table: a commit or an
// archive's digest to its first 12 hex digits ("sha256:" kept), a
// published snapshot's ID ("TIME-HASH") to its hash part, which tells
// two snapshots apart where the time's first digits would not.
func shortRevision(rev string) string {
	if h, ok := strings.CutPrefix(rev, "sha256:"); ok {
		return "sha256:" + h[:min(12, len(h))]
	}
	if i := strings.LastIndexByte(rev, '-'); i >= 0 {
		return rev[i+1:]
	}
	return rev[:min(12, len(rev))]
}
