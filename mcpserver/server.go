// Package mcpserver serves skillstore's tools, resources and prompts over
// the Model Context Protocol: stdio, Streamable HTTP (the /mcp endpoint
// alone: package site composes the HTTP site around it, with health
// checks, bearer-token auth and request limits), and in process.
//
// Every tool is read-only, non-destructive, idempotent and closed-world, and
// says so explicitly (mcp-go's defaults say the opposite). Each skill's
// SKILL.md is a resource, skill://NAME/SKILL.md; its other files are read
// through the template skill://{name}/{+path}; binary files come back as
// base64 blobs. get_skill returns the same Markdown, byte for byte, as
// resources/read of the same URI.
//
// Every transport hands each message to one dispatcher, which answers every
// method — the Skills extension (SEP-2640) included — on every protocol
// version from 2024-11-05 to 2026-07-28. mark3labs/mcp-go is used as a
// library of protocol types and constants; DESIGN.md in this directory
// explains the design.
//
// From skills compiled into a program to a running stdio server is one
// call (see ExampleServeStdio):
//
//	//go:embed skills
//	var embedded embed.FS
//
//	skills, _ := fs.Sub(embedded, "skills") // the embed.FS holds the folder "skills"
//	err := mcpserver.ServeStdio(ctx, skills)
//
// For more (several sources, access rules, HTTP), build a store.Store,
// tools.New over it and New over that, as cmd/skillstore does.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/audit"
	"github.com/skillstore/skillstore/internal/deadline"
	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/internal/lru"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
	"github.com/skillstore/skillstore/usage"
)

// Instructions tell the model how to use the server; clients show them in
// the system prompt.
const Instructions = `This server provides Agent Skills: folders of expert instructions (SKILL.md) with supporting files (references, scripts, templates).
Use them like this:
1. When a task might match a skill, call list_skills to see every skill's name and description (the Skill tool's description lists them too). When there are many skills (more than the Skill tool's description lists, or list_skills gives names only), call search_skills with a few words describing the task instead: it returns the best matches first.
2. Load the matching skill with Skill or get_skill (skill_name), and follow its SKILL.md step by step.
3. When SKILL.md mentions a file such as references/guide.md, read it with read_file_in_skill (skill_name, file_path relative to the skill folder).
Clients that read resources can use skill://NAME/SKILL.md and skill://NAME/PATH instead. All tools are read-only.`

// Options tune a Server.
type Options struct {
	Name    string // implementation name (default "skillstore")
	Version string // implementation version (default "dev")
	Logger  *slog.Logger

	// Access, if set, is the access policy (see package access): what each
	// caller sees of the catalog, on every surface. HTTP callers are the
	// principals the HTTP guard authenticates (site.Options.Auth), else
	// an anonymous one; stdio is the principal the policy names for it,
	// else everyone. Nil: every caller sees every skill.
	Access PolicySource

	// Audit, if set, receives one event per decision on skill content
	// (allowed or denied) and per request refused for its credentials or
	// its session (see audit.go). The server does not close it.
	Audit *audit.Logger

	// Usage, if set, counts each allowed load of a skill (see countLoad
	// in audit.go), decided where the audit log's events are. The server
	// neither saves nor closes it.
	Usage *usage.Counter

	// RequestTimeout bounds the time a request waits for the skill
	// sources (default DefaultRequestTimeout; negative: no bound). A
	// request past it is answered with an error saying so, and the server
	// goes on serving; a backend read that cannot be cancelled is left to
	// finish on its own, shared by later requests for the same file.
	RequestTimeout time.Duration

	// TracerProvider, if set, gets a server span per request (otel.go),
	// and the store child spans for cache misses and backend reads. Nil:
	// no spans, at no cost.
	TracerProvider trace.TracerProvider

	// MeterProvider, if set, gets mcp.server.operation.duration (otel.go);
	// /metrics has it either way (Server.Operations).
	MeterProvider metric.MeterProvider
}

// DefaultRequestTimeout is the default Options.RequestTimeout.
const DefaultRequestTimeout = 30 * time.Second

// Server is skillstore's MCP server. It is safe for concurrent use.
type Server struct {
	tools *tools.Tools
	store *store.Store
	log   *slog.Logger

	timeout time.Duration  // Options.RequestTimeout; 0: none
	access  PolicySource   // Options.Access; nil: no policy
	audit   *audit.Logger  // Options.Audit; nil: none
	usage   *usage.Counter // Options.Usage; nil: none

	impl     mcp.Implementation    // the server's identity
	identity []byte                // impl as a 2026-07-28 result's _meta member
	syncMu   sync.Mutex            // one Sync at a time
	lists    atomic.Pointer[lists] // the catalog as the list methods give it
	ready    chan struct{}         // closed once the first lists are built (or given up on)
	poke     chan struct{}         // Rescan's: Watch refreshes now
	hub      *hub                  // where change notifications go

	memo         *escapeMemo // escaped forms of large texts, for the layer's encoder
	metrics      *metrics
	tracer       trace.Tracer                                // Options.TracerProvider's; nil: no spans
	opMeter      *operationMeter                             // Options.MeterProvider's; nil: none
	frontmatters *lru.Cache[frontmatterKey, json.RawMessage] // rendered frontmatter, per SKILL.md version
	leftOutLog   *lru.Cache[leftOutKey, struct{}]            // skills the extension leaves out, as logged
	leftOutMu    sync.Mutex                                  // one log line per entry of leftOutLog

	provenances *lru.Cache[*store.Provenance, json.RawMessage]   // _meta objects, per provenance (see provenanceMeta)
	remote      *tools.Tools                                     // the tools as remote callers get them (tools.Tools.Remote)
	remoteProvs *lru.Cache[*store.Provenance, *store.Provenance] // provenances as remote callers see them (shownProvenance)
}

// New builds the MCP server over t. It does not wait for the store's
// catalog: the lists (tools, resources, the resource template, prompts)
// are built from the first catalog in the background, and the list methods
// and Tools wait for them, up to the start-up wait; initialize is answered
// at once.
func New(ctx context.Context, t *tools.Tools, opts Options) (*Server, error) {
	if opts.Name == "" {
		opts.Name = "skillstore"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	switch {
	case opts.RequestTimeout == 0:
		opts.RequestTimeout = DefaultRequestTimeout
	case opts.RequestTimeout < 0:
		opts.RequestTimeout = 0
	}
	s := &Server{tools: t, store: t.Store(), log: opts.Logger, timeout: opts.RequestTimeout, access: opts.Access, audit: opts.Audit, usage: opts.Usage, memo: newEscapeMemo(lru.Escapes), metrics: newMetrics(),
		frontmatters: lru.New[frontmatterKey, json.RawMessage](lru.Frontmatters), leftOutLog: lru.New[leftOutKey, struct{}](lru.LeftOutLog)}
	s.provenances = lru.New[*store.Provenance, json.RawMessage](lru.Provenances)
	s.remote, s.remoteProvs = t.Remote(), lru.New[*store.Provenance, *store.Provenance](lru.RemoteProvenance)
	s.hub = newHub()
	if opts.TracerProvider != nil {
		s.tracer = opts.TracerProvider.Tracer(instrumentation)
	}
	s.opMeter = newOperationMeter(opts.MeterProvider)
	s.impl = mcp.Implementation{Name: opts.Name, Version: opts.Version, Title: "skillstore",
		Description: "Agent Skills over MCP: SKILL.md documents and their supporting files, read-only and sandboxed."}
	info, err := json.Marshal(s.impl)
	if err != nil {
		return nil, err
	}
	s.identity = append([]byte(`"`+mcp.MetaKeyServerInfo+`":`), info...)
	s.lists.Store(newLists())
	s.ready = make(chan struct{})
	s.poke = make(chan struct{}, 1)
	go func() {
		defer close(s.ready)
		s.syncAtStart(ctx)
	}()
	return s, nil
}

// Store returns the store the server reads.
func (s *Server) Store() *store.Store { return s.store }

// Logger returns the server's logger (Options.Logger).
func (s *Server) Logger() *slog.Logger { return s.log }

// Audit returns the audit log (Options.Audit), or nil.
func (s *Server) Audit() *audit.Logger { return s.audit }

// Usage returns the usage counts (Options.Usage), or nil.
func (s *Server) Usage() *usage.Counter { return s.usage }

// RequestTimeout returns the bound on a request's wait for the skill
// sources (Options.RequestTimeout); zero: none.
func (s *Server) RequestTimeout() time.Duration { return s.timeout }

// Version returns the server's implementation version (Options.Version).
func (s *Server) Version() string { return s.impl.Version }

// startupWait bounds how long the list methods wait for the first catalog:
// a source that hangs must not keep a server from answering. New does not
// wait at all: initialize, which needs no catalog, is answered at once.
const startupWait = 5 * time.Second

// syncAtStart builds the lists from the first catalog if it is ready
// within startupWait (or the request timeout, if shorter); otherwise the
// lists start empty, and are built (telling clients the lists changed)
// once the catalog is. The list methods wait for it (s.ready).
func (s *Server) syncAtStart(ctx context.Context) {
	wait := startupWait
	if s.timeout > 0 {
		wait = min(wait, s.timeout)
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if _, err := s.store.View(nil).Catalog(wctx); err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		s.log.Warn("the skill sources are slow to list; starting with no skills, which appear once they are listed", "waited", wait)
		s.Sync(wctx) // registers the tools
		go func() {
			if _, err := s.store.View(nil).Catalog(context.WithoutCancel(ctx)); err == nil {
				s.Sync(context.WithoutCancel(ctx))
			}
		}()
		return
	}
	s.Sync(ctx)
}

// Tools returns the tool definitions the server lists (tools/list), each
// as the JSON object tools/list gives, with annotations and schemas.
func (s *Server) Tools() []json.RawMessage {
	<-s.ready
	items := s.lists.Load().tools
	out := make([]json.RawMessage, len(items))
	for i, it := range items {
		out[i] = it.json
	}
	return out
}

// Sync rebuilds the lists (tools, resources, templates, prompts) from the
// store's current catalog. Call it after store.Refresh reports changes:
// clients are told of each list that changed (legacy sessions by
// notifications/*/list_changed, 2026-07-28 listen streams that asked).
func (s *Server) Sync(ctx context.Context) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	stopping := ctx
	ctx, cancel := s.bounded(ctx, "sync")
	defer cancel()
	cat, err := s.store.View(nil).Catalog(ctx)
	var list []*store.Skill
	if cat != nil {
		list = cat.Skills
	}
	if err != nil && stopping.Err() == nil { // the caller's context ended (the server stopping): no failure
		// The tools still answer with a clear error; list them anyway.
		s.log.Warn("listing skills failed", "err", logtext.Of(err))
	}
	specs := s.tools.Specs(ctx)
	for _, spec := range specs {
		encoderFor(spec.Result) // the tool's result encoder, derived from its declared type
	}
	next, err := buildLists(list, specs)
	if err != nil {
		return err
	}
	next.cat = cat
	prev := s.lists.Swap(next)
	select {
	case <-s.ready:
	default:
		return nil // the first lists: nobody has seen a list yet
	}
	// A caller with a restricted view hears of a list when its own view
	// of it changed. The tools' lists of two views differ only by the
	// Skill tool's description, which lists the skills' names and
	// descriptions: the prompts list's items, so that is what is compared.
	// The skills are compared by what their items' JSON holds. A change
	// of shadowed copies alone changes no list of the catalog's, but may
	// change the lists of a view that excludes a source whole (it may be
	// served those copies): each view then compares its own.
	shadows := prev.cat != nil && next.cat != nil && prev.cat != next.cat && len(store.ChangedCopies(prev.cat, next.cat)) > 0
	if changed := !sameItems(prev.tools, next.tools, sameEncoded); changed || shadows {
		s.hub.publish(notice{method: mcp.MethodNotificationToolsListChanged, sees: s.viewChanged(prev, next, samePrompt, changed), seesAll: true})
	}
	for _, c := range []struct {
		same   func(a, b *store.Skill) bool
		method mcp.MCPMethod
	}{
		{sameResource, mcp.MethodNotificationResourcesListChanged},
		{samePrompt, mcp.MethodNotificationPromptsListChanged},
	} {
		if changed := !sameItems(prev.skills, next.skills, c.same); changed || shadows {
			s.hub.publish(notice{method: c.method, sees: s.viewChanged(prev, next, c.same, changed), seesAll: true})
		}
	}
	return nil
}

// viewChanged returns whether a caller's view of a list of skills changed
// from old to new, items compared by same, remembering the answer per
// view; catalog says whether the catalog's own list changed, which is
// what a caller that sees everything is told.
func (s *Server) viewChanged(old, new *lists, same func(a, b *store.Skill) bool, catalog bool) func(*caller) bool {
	seen := map[access.ID]bool{}
	return func(cl *caller) bool {
		if !cl.filtered() {
			return catalog // the catalog's list changed
		}
		k := cl.filter.ID()
		changed, ok := seen[k]
		if !ok {
			changed = !sameItems(s.viewSkills(old, cl.filter), s.viewSkills(new, cl.filter), same)
			seen[k] = changed
		}
		return changed
	}
}

// Rescan makes Watch refresh the catalog now, as a source's change
// would: call it when what decides what the sources serve changed (the
// trusted signers were reloaded). It never blocks; calls while a
// refresh is pending make one refresh.
func (s *Server) Rescan() {
	select {
	case s.poke <- struct{}{}:
	default:
	}
}

// PolicyChanged tells the clients under the access policy that their
// lists may have changed (legacy sessions by notifications/*/list_changed,
// listen streams that asked): call it when the policy is reloaded
// (access.ReloadOptions.OnReload). Clients no policy restricts are not told.
func (s *Server) PolicyChanged() {
	for _, m := range []mcp.MCPMethod{mcp.MethodNotificationToolsListChanged, mcp.MethodNotificationResourcesListChanged, mcp.MethodNotificationPromptsListChanged} {
		s.hub.publish(notice{method: m, restrictedOnly: true})
	}
}

// sameItems reports whether two lists hold the same items, in the same
// order, as same compares them.
func sameItems[T any](a, b []T, same func(x, y T) bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !same(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sameEncoded reports whether two encoded items are the same.
func sameEncoded(a, b listItem) bool { return a.name == b.name && bytes.Equal(a.json, b.json) }

// sameResource reports whether two skills have the same resources/list
// item (appendResource): the same name, and description and size as
// encoded (a negative size is left out).
func sameResource(a, b *store.Skill) bool {
	return samePrompt(a, b) && (a.DocSize == b.DocSize || a.DocSize < 0 && b.DocSize < 0)
}

// samePrompt reports whether two skills have the same prompts/list item
// (appendPrompt): the same name, and description as encoded.
func samePrompt(a, b *store.Skill) bool {
	return a.Name == b.Name && sameText(a.Description, b.Description)
}

// sameText reports whether a and b encode to the same JSON: equal
// strings, or strings of invalid UTF-8 that encode alike (each invalid
// byte becomes U+FFFD).
func sameText(a, b string) bool {
	if a == b {
		return true
	}
	if utf8.ValidString(a) && utf8.ValidString(b) {
		return false // encoding/json's escaping of valid UTF-8 can be undone: different strings, different JSON
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// Watch refreshes the store's catalog when a source reports a change (local
// folders are watched), when Rescan is called, and every interval (0
// disables the periodic rescan), and re-syncs the MCP lists when skills
// were added, removed or changed, until ctx ends.
func (s *Server) Watch(ctx context.Context, interval time.Duration) {
	var tick <-chan time.Time
	if interval > 0 {
		t := time.NewTicker(interval)
		defer t.Stop()
		tick = t.C
	}
	go func() {
		// A log-only check: it waits until the first catalog is served
		// and indexed, not to compete with a cold server's first answers.
		if list, err := s.store.View(nil).List(ctx); err == nil && s.store.Indexed(ctx) == nil {
			s.checkExtension(ctx, list)
		}
	}()
	changed := s.store.Changed(ctx)
	// A change to a watched source made between the first listing and the
	// start of the watch (the server answers before its first catalog is
	// built) is caught by one rescan once both are done. Without one, there
	// is no rescan: another source's changes are found by the next periodic
	// refresh, whenever they were made, and a cold replica of a bucket does
	// not check the pointer it has just read (a HEAD).
	rescan := make(chan struct{}, 1)
	if changed != nil && s.store.Watches() {
		select {
		case <-s.ready:
		case <-ctx.Done():
			return
		}
		rescan <- struct{}{}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
		case <-changed:
		case <-rescan:
		case <-s.poke:
		}
		changes, err := s.refresh(ctx, max(interval, time.Minute))
		if err != nil {
			continue
		}
		s.refreshed(ctx, changes)
	}
}

// refreshed tells the clients of what a store refresh changed, if
// anything: the skills the catalog serves (changes), or only shadowed
// copies, which a caller whose view excludes a source whole may be served
// (the catalog is another than the lists'), though the refresh reports no
// change.
func (s *Server) refreshed(ctx context.Context, changes store.Changes) {
	if !changes.Empty() {
		s.log.Info("skills changed", "added", changes.Added, "removed", changes.Removed, "updated", changes.Updated)
		s.changed(ctx, changes)
		return
	}
	l := s.lists.Load()
	if c, err := s.store.View(nil).Catalog(ctx); err == nil && l != nil && l.cat != nil && c != l.cat {
		s.changed(ctx, changes)
	}
}

// changed re-syncs the lists after a refresh that found changes, and tells
// the clients that subscribed to an updated skill's document (and may see
// the skill, as it was and as it is) that it was updated.
func (s *Server) changed(ctx context.Context, changes store.Changes) {
	before := s.lists.Load() // the catalog's lists before the change: where each skill was served from
	s.Sync(ctx)
	after := s.lists.Load()
	go s.checkExtension(ctx, s.skillsNamed(ctx, append(changes.Added, changes.Updated...)))
	if before == nil || before.cat == nil || after == nil || after.cat == nil {
		for _, name := range changes.Updated {
			s.hub.publish(notice{method: mcp.MethodNotificationResourceUpdated, uri: tools.SkillURI(name), sees: s.seesSkill(ctx, name, before)})
		}
		return
	}
	// A caller whose view excludes a source whole is served copies of its
	// own (store.View), which change when the catalog's do not: each view
	// is told of the updates of its own copies, from a diff of its
	// catalogs before and after, made once per view.
	updated := s.viewUpdates(before.cat, after.cat, changes.Updated)
	for _, name := range store.ChangedCopies(before.cat, after.cat) {
		s.hub.publish(notice{method: mcp.MethodNotificationResourceUpdated, uri: tools.SkillURI(name), sees: func(cl *caller) bool { return updated(cl)[name] }, seesAll: true})
	}
}

// viewUpdates returns, for a caller, the skills whose copy its view
// serves both in catalog before and in after, and changed: the catalog's
// updates for an unrestricted caller, its view's (store.Diff of its
// View.CatalogOf each) for another, worked out once per view.
func (s *Server) viewUpdates(before, after *store.Catalog, catalogs []string) func(*caller) map[string]bool {
	var mu sync.Mutex
	all := map[string]bool{}
	for _, n := range catalogs {
		all[n] = true
	}
	views := map[access.ID]map[string]bool{}
	return func(cl *caller) map[string]bool {
		if !cl.filtered() {
			return all
		}
		k := cl.filter.ID()
		mu.Lock()
		defer mu.Unlock()
		if u, ok := views[k]; ok {
			return u
		}
		v := s.store.View(cl.filter)
		u := map[string]bool{}
		for _, n := range store.Diff(v.CatalogOf(before), v.CatalogOf(after)).Updated {
			u[n] = true
		}
		views[k] = u
		return u
	}
}

// seesSkill returns whether a caller's view includes the skill named name
// both as it was served before the change (by the lists before) and as it
// is served now: only then was a document it sees updated. To a caller
// that may see only one of the two copies (a hidden copy that shadowed its
// own went away, or came), the skill was added or removed, which the list
// notifications tell; an update would betray the hidden copy. A skill no
// longer served, or not in before, is hidden from every restricted view.
func (s *Server) seesSkill(ctx context.Context, name string, before *lists) func(*caller) bool {
	sk, err := s.store.View(nil).Skill(ctx, name)
	if err != nil || before == nil {
		return func(*caller) bool { return false }
	}
	skills := before.skills
	i := sort.Search(len(skills), func(i int) bool { return skills[i].Name >= name })
	if i == len(skills) || skills[i].Name != name {
		return func(*caller) bool { return false }
	}
	was := skills[i].Source.Label
	return func(cl *caller) bool { return cl.filter.Allows(was, name) && cl.filter.Allows(sk.Source.Label, name) }
}

// skillsNamed returns the served skills among names.
func (s *Server) skillsNamed(ctx context.Context, names []string) []*store.Skill {
	var list []*store.Skill
	for _, name := range names {
		if sk, err := s.store.View(nil).Skill(ctx, name); err == nil {
			list = append(list, sk)
		}
	}
	return list
}

// refresh runs one store refresh, waiting for it up to limit. A refresh
// still running then (a source that hangs, or a very large one) goes on
// in the background, and the next call waits for it rather than starting
// another; the last catalog is served meanwhile.
func (s *Server) refresh(ctx context.Context, limit time.Duration) (store.Changes, error) {
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	changes, err := s.store.Refresh(rctx)
	switch {
	case err != nil && ctx.Err() != nil:
	case errors.Is(err, context.DeadlineExceeded):
		s.log.Warn("refreshing skills is taking longer than expected; serving the last catalog meanwhile", "waited", limit)
	case err != nil:
		s.log.Warn("refreshing skills failed", "err", logtext.Of(err))
	}
	return changes, err
}

// runTool runs a tool through the shared tool layer, as t (a caller's
// view of it) sees the store, and records it for /metrics.
func (s *Server) runTool(ctx context.Context, t *tools.Tools, name string, args []byte) tools.Result {
	start := time.Now()
	res, _ := t.Run(ctx, name, args) // a bad call's result says what is wrong
	s.metrics.observeCall(name, res.IsError, time.Since(start))
	return res
}

// bounded returns ctx limited to the request timeout; when the limit
// passes, what is being done (a method's name) is logged.
func (s *Server) bounded(ctx context.Context, what string) (context.Context, context.CancelFunc) {
	return deadline.Bound(ctx, s.timeout, s.log, what)
}
