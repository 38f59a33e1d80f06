// Package mcpserver serves skillstore's tools, resources and prompts over
// the Model Context Protocol, built on mark3labs/mcp-go: stdio, and
// Streamable HTTP with health checks, bearer-token auth and request limits.
//
// Every tool is read-only, non-destructive, idempotent and closed-world, and
// says so explicitly (mcp-go's defaults say the opposite). Each skill's
// SKILL.md is a resource, skill://NAME/SKILL.md; its other files are read
// through the template skill://{name}/{+path}; binary files come back as
// base64 blobs. get_skill returns the same Markdown, byte for byte, as
// resources/read of the same URI.
//
// Every transport passes each message through one protocol layer, which
// answers tools/call, resources/read and the Skills extension (SEP-2640)
// on every protocol version from 2024-11-05 to 2026-07-28, and leaves the
// rest to mcp-go; DESIGN.md in this directory explains the choice.
package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/skillstore/skillstore/internal/lru"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// Instructions tell the model how to use the server; clients show them in
// the system prompt.
const Instructions = `This server provides Agent Skills: folders of expert instructions (SKILL.md) with supporting files (references, scripts, templates).
Use them like this:
1. When a task might match a skill, call list_skills to see every skill's name and description (the Skill tool's description lists them too). When there are many skills (more than the Skill tool's description lists, or list_skills gives names only), call search_skills with a few words describing the task instead: it returns the best matches first.
2. Load the matching skill with Skill or get_skill (skill_name), and follow its SKILL.md step by step.
3. When SKILL.md mentions a file such as references/guide.md, read it with read_file_in_skill (skill_name, file_path relative to the skill folder).
Clients that read resources can use skill://NAME/SKILL.md and skill://NAME/PATH instead. All tools are read-only.`

// ListPageSize is the most items one page of tools/list, resources/list,
// resources/templates/list or prompts/list holds; a longer list gives a
// nextCursor to pass back for the next page.
const ListPageSize = 1000

// Options tune a Server.
type Options struct {
	Name    string // implementation name (default "skillstore")
	Version string // implementation version (default "dev")
	Logger  *slog.Logger

	// RequestTimeout bounds the time a request waits for the skill
	// sources (default DefaultRequestTimeout; negative: no bound). A
	// request past it is answered with an error saying so, and the server
	// goes on serving; a backend read that cannot be cancelled is left to
	// finish on its own, shared by later requests for the same file.
	RequestTimeout time.Duration
}

// DefaultRequestTimeout is the default Options.RequestTimeout.
const DefaultRequestTimeout = 30 * time.Second

// Server is skillstore's MCP server. It is safe for concurrent use.
type Server struct {
	mcp   *server.MCPServer
	tools *tools.Tools
	store *store.Store
	log   *slog.Logger

	timeout time.Duration // Options.RequestTimeout; 0: none

	syncMu   sync.Mutex
	skillDoc string // the Skill tool description last registered

	memo         *escapeMemo // escaped forms of large texts, for the layer's encoder
	metrics      *metrics
	digests      *lru.Cache[digestKey, digestValue]          // file digests for the skills extension
	frontmatters *lru.Cache[frontmatterKey, json.RawMessage] // rendered frontmatter, per SKILL.md version
	leftOutLog   *lru.Cache[leftOutKey, struct{}]            // skills the extension leaves out, as logged
	wk           *wellKnown                                  // the .well-known publication: builds and what they built
	leftOutMu    sync.Mutex                                  // one log line per entry of leftOutLog
	shape        modernShape                                 // what 2026-07-28 adds to a result
	inflight     inflight                                    // the layer's calls, for notifications/cancelled
}

// New builds the MCP server over t and registers its tools, resources,
// resource template and prompts from the store's current catalog.
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
	s := &Server{tools: t, store: t.Store(), log: opts.Logger, timeout: opts.RequestTimeout, memo: newEscapeMemo(32 << 20), metrics: newMetrics(), digests: newDigestMemo(),
		frontmatters: lru.New[frontmatterKey, json.RawMessage](16 << 20), leftOutLog: lru.New[leftOutKey, struct{}](1 << 20)}
	s.wk = newWellKnown(s.logPanic)
	s.mcp = server.NewMCPServer(opts.Name, opts.Version,
		server.WithInstructions(Instructions),
		server.WithTitle("skillstore"),
		server.WithDescription("Agent Skills over MCP: SKILL.md documents and their supporting files, read-only and sandboxed."),
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(true, true),
		server.WithPromptCapabilities(true),
		server.WithLogging(),
		server.WithExtensions(map[string]any{SkillsExtension: skillsCapability}),
		server.WithPaginationLimit(ListPageSize),
		server.WithToolHandlerMiddleware(s.recoverTool),
		server.WithResourceHandlerMiddleware(s.recoverResource),
		server.WithPromptHandlerMiddleware(s.recoverPrompt),
	)
	s.mcp.AddResourceTemplate(
		mcp.NewResourceTemplate("skill://{name}/{+path}", "Skill file",
			mcp.WithTemplateDescription("Any file in a skill's folder; path is relative to the folder, e.g. skill://pdf/references/forms.md"),
		),
		s.readResource,
	)
	s.syncAtStart(ctx)
	if err := s.learnModernShape(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// startupWait bounds how long New waits for the catalog: a source that
// hangs must not keep a server from answering initialize.
const startupWait = 5 * time.Second

// syncAtStart registers the lists from the catalog if it is ready within
// startupWait (or the request timeout, if shorter); otherwise the server
// starts with empty lists, and registers them (telling clients the lists
// changed) once the catalog is built.
func (s *Server) syncAtStart(ctx context.Context) {
	wait := startupWait
	if s.timeout > 0 {
		wait = min(wait, s.timeout)
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if _, err := s.store.Catalog(wctx); err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		s.log.Warn("the skill sources are slow to list; starting with no skills, which appear once they are listed", "waited", wait)
		s.Sync(wctx) // registers the tools
		go func() {
			if _, err := s.store.Catalog(context.WithoutCancel(ctx)); err == nil {
				s.Sync(context.WithoutCancel(ctx))
			}
		}()
		return
	}
	s.Sync(ctx)
}

// Tools returns the MCP tool definitions the server lists (tools/list),
// with their annotations and schemas.
func (s *Server) Tools() []mcp.Tool {
	names := tools.Names()
	list := make([]mcp.Tool, 0, len(names))
	for _, name := range names {
		if t := s.mcp.GetTool(name); t != nil {
			list = append(list, t.Tool)
		}
	}
	return list
}

// Sync registers tools, resources and prompts for the store's current
// catalog. Call it after store.Refresh reports changes: clients are told
// of the new lists (tools/list_changed, resources/list_changed, prompts/list_changed).
func (s *Server) Sync(ctx context.Context) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	ctx, cancel := s.bounded(ctx, "sync")
	defer cancel()
	list, err := s.store.List(ctx)
	if err != nil {
		// The tools still answer with a clear error; register them anyway.
		s.log.Warn("listing skills failed", "err", err)
	}
	specs := s.tools.Specs(ctx)
	var desc string
	for _, spec := range specs {
		if spec.Name == tools.SkillTool {
			desc = spec.Description
		}
		encoderFor(spec.Result) // the tool's result encoder, derived from its declared type
	}
	if desc != s.skillDoc || s.mcp.GetTool(tools.SkillTool) == nil {
		serverTools := make([]server.ServerTool, len(specs))
		for i, spec := range specs {
			serverTools[i] = server.ServerTool{Tool: mcpTool(spec), Handler: s.callTool(spec.Name)}
		}
		s.mcp.SetTools(serverTools...)
		s.skillDoc = desc
	}
	resources := make([]server.ServerResource, len(list))
	prompts := make([]server.ServerPrompt, len(list))
	for i, sk := range list {
		resources[i] = server.ServerResource{
			Resource: mcp.NewResource(tools.SkillURI(sk.Name), sk.Name,
				mcp.WithResourceDescription(sk.Description),
				mcp.WithMIMEType("text/markdown"),
				mcp.WithResourceSize(sk.DocSize),
			),
			Handler: s.readResource,
		}
		prompts[i] = server.ServerPrompt{
			Prompt:  mcp.NewPrompt(sk.Name, mcp.WithPromptDescription(sk.Description)),
			Handler: s.getPrompt,
		}
	}
	s.mcp.SetResources(resources...)
	s.mcp.SetPrompts(prompts...)
	return nil
}

// Watch refreshes the store's catalog when a source reports a change (local
// folders are watched) and every interval (0 disables the periodic rescan),
// and re-syncs the MCP lists when skills were added, removed or changed,
// until ctx ends.
func (s *Server) Watch(ctx context.Context, interval time.Duration) {
	var tick <-chan time.Time
	if interval > 0 {
		t := time.NewTicker(interval)
		defer t.Stop()
		tick = t.C
	}
	go func() {
		if list, err := s.store.List(ctx); err == nil {
			s.checkExtension(ctx, list)
		}
	}()
	changed := s.store.Changed(ctx)
	if tick == nil && changed == nil {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
		case <-changed:
		}
		changes, err := s.refresh(ctx, max(interval, time.Minute))
		if err != nil {
			continue
		}
		if !changes.Empty() {
			s.log.Info("skills changed", "added", changes.Added, "removed", changes.Removed, "updated", changes.Updated)
			s.Sync(ctx)
			go s.checkExtension(ctx, s.skillsNamed(ctx, append(changes.Added, changes.Updated...)))
			for _, name := range changes.Updated {
				s.mcp.SendNotificationToAllClients(mcp.MethodNotificationResourceUpdated, map[string]any{"uri": tools.SkillURI(name)})
			}
		}
	}
}

// skillsNamed returns the served skills among names.
func (s *Server) skillsNamed(ctx context.Context, names []string) []*store.Skill {
	var list []*store.Skill
	for _, name := range names {
		if sk, err := s.store.Skill(ctx, name); err == nil {
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
		s.log.Warn("refreshing skills failed", "err", err)
	}
	return changes, err
}

// mcpTool turns a tool spec into an mcp.Tool with every annotation hint set.
func mcpTool(spec tools.Spec) mcp.Tool {
	t := mcp.NewToolWithRawSchema(spec.Name, spec.Description, spec.InputSchema)
	yes, no := true, false
	t.Annotations = mcp.ToolAnnotation{
		Title:           spec.Title,
		ReadOnlyHint:    &yes,
		DestructiveHint: &no,
		IdempotentHint:  &yes,
		OpenWorldHint:   &no,
	}
	t.RawOutputSchema = spec.OutputSchema
	return t
}

// callTool and readResource are what mcp-go calls for skillstore's tools
// and skill:// resources. Every transport hands these requests to the
// protocol layer first (see layer.go), so mcp-go reaches them only when it
// is driven directly: they are its view of the same implementation, and
// the differential test holds the layer's JSON to theirs.
func (s *Server) callTool(name string) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := json.Marshal(req.GetRawArguments())
		if err != nil {
			args = []byte("{}")
		}
		res := s.runTool(ctx, name, args)
		out := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(res.Display)}, IsError: res.IsError}
		if !res.IsError {
			out.StructuredContent = res.Structured
		}
		return out, nil
	}
}

// runTool runs a tool through the shared tool layer and records it for
// /metrics.
func (s *Server) runTool(ctx context.Context, name string, args []byte) tools.Result {
	start := time.Now()
	res, _ := s.tools.Run(ctx, name, args) // a bad call's result says what is wrong
	s.metrics.observeCall(name, res.IsError, time.Since(start))
	return res
}

func (s *Server) readResource(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	c, err := s.readContents(ctx, req.Params.URI)
	if err != nil {
		return nil, errors.New(resourceFailure(err, server.IsModernRequest(ctx), "").Message)
	}
	if c.binary {
		return []mcp.ResourceContents{mcp.BlobResourceContents{URI: c.uri, MIMEType: c.mimeType, Blob: base64.StdEncoding.EncodeToString([]byte(c.data))}}, nil
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: c.uri, MIMEType: c.mimeType, Text: c.data}}, nil
}

// getPrompt returns a skill's SKILL.md as a user message, for clients that
// offer prompts as slash commands.
func (s *Server) getPrompt(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	doc, err := s.store.Document(ctx, req.Params.Name)
	if err != nil {
		return nil, errors.New(resourceFailure(err, false, "").Message)
	}
	text := "Use the skill \"" + doc.Skill.Name + "\". Its instructions (SKILL.md) follow; read supporting files it mentions with read_file_in_skill.\n\n" + doc.Text
	return mcp.NewGetPromptResult(doc.Skill.Description, []mcp.PromptMessage{
		mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text)),
	}), nil
}

// bounded returns ctx limited to the request timeout; when the limit
// passes, what is being done (a method's name) is logged.
func (s *Server) bounded(ctx context.Context, what string) (context.Context, context.CancelFunc) {
	if s.timeout <= 0 {
		return ctx, func() {}
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	stop := context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// The caller's own deadline may come first: say how long it waited.
			s.log.Warn("request timed out waiting for the skill sources", "method", what,
				"waited", time.Since(start).Round(time.Millisecond), "timeout", s.timeout)
		}
	})
	return ctx, func() { stop(); cancel() }
}

// recoverTool, recoverResource and recoverPrompt bound a handler mcp-go
// calls by the request timeout, and turn a panic in it into an error
// answer, so the server keeps serving and no panic text reaches a client
// (mcp-go's own recovery would send it).
func (s *Server) recoverTool(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		ctx, cancel := s.bounded(ctx, "tools/call")
		defer cancel()
		defer func() {
			if r := recover(); r != nil {
				s.logPanic("tools/call", r)
				res, err = mcp.NewToolResultError(toolPanicText(req.Params.Name)), nil
			}
		}()
		return next(ctx, req)
	}
}

func (s *Server) recoverResource(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) (res []mcp.ResourceContents, err error) {
		ctx, cancel := s.bounded(ctx, "resources/read")
		defer cancel()
		defer func() {
			if r := recover(); r != nil {
				s.logPanic("resources/read", r)
				res, err = nil, errors.New(internalErrorText("resources/read"))
			}
		}()
		return next(ctx, req)
	}
}

func (s *Server) recoverPrompt(next server.PromptHandlerFunc) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (res *mcp.GetPromptResult, err error) {
		ctx, cancel := s.bounded(ctx, "prompts/get")
		defer cancel()
		defer func() {
			if r := recover(); r != nil {
				s.logPanic("prompts/get", r)
				res, err = nil, errors.New(internalErrorText("prompts/get"))
			}
		}()
		return next(ctx, req)
	}
}
