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
package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"path"
	"runtime/debug"
	"strings"
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
1. When a task might match a skill, call list_skills to see every skill's name and description (the Skill tool's description lists them too).
2. Load the matching skill with Skill or get_skill (skill_name), and follow its SKILL.md step by step.
3. When SKILL.md mentions a file such as references/guide.md, read it with read_file_in_skill (skill_name, file_path relative to the skill folder).
Clients that read resources can use skill://NAME/SKILL.md and skill://NAME/PATH instead. All tools are read-only.`

// Options tune a Server.
type Options struct {
	Name    string // implementation name (default "skillstore")
	Version string // implementation version (default "dev")
	Logger  *slog.Logger
}

// Server is skillstore's MCP server. It is safe for concurrent use.
type Server struct {
	mcp   *server.MCPServer
	tools *tools.Tools
	store *store.Store
	log   *slog.Logger

	syncMu   sync.Mutex
	skillDoc string // the Skill tool description last registered

	memo    *escapeMemo // escaped forms of large texts, for the dispatcher
	metrics *metrics
	digests *lru.Cache[digestKey, digestValue] // file digests for the skills extension
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
	s := &Server{tools: t, store: t.Store(), log: opts.Logger, memo: newEscapeMemo(32 << 20), metrics: newMetrics(), digests: newDigestMemo()}
	s.mcp = server.NewMCPServer(opts.Name, opts.Version,
		server.WithInstructions(Instructions),
		server.WithTitle("skillstore"),
		server.WithDescription("Agent Skills over MCP: SKILL.md documents and their supporting files, read-only and sandboxed."),
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(true, true),
		server.WithPromptCapabilities(true),
		server.WithLogging(),
		server.WithExtensions(map[string]any{SkillsExtension: map[string]any{}}),
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
	if err := s.Sync(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// MCP returns the underlying mcp-go server, for transports and in-process clients.
func (s *Server) MCP() *server.MCPServer { return s.mcp }

// Sync registers tools, resources and prompts for the store's current
// catalog. Call it after store.Refresh reports changes: clients are told
// of the new lists (tools/list_changed, resources/list_changed, prompts/list_changed).
func (s *Server) Sync(ctx context.Context) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	list, err := s.store.List(ctx)
	if err != nil {
		// The tools still answer with a clear error; register them anyway.
		s.log.Warn("listing skills failed", "err", err)
	}
	specs := s.tools.Specs(ctx)
	if desc := specs[3].Description; desc != s.skillDoc || s.mcp.GetTool(tools.SkillTool) == nil {
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
		changes, err := s.store.Refresh(ctx)
		if err != nil {
			s.log.Warn("refreshing skills failed", "err", err)
			continue
		}
		if !changes.Empty() {
			s.log.Info("skills changed", "added", changes.Added, "removed", changes.Removed, "updated", changes.Updated)
			s.Sync(ctx)
			for _, name := range changes.Updated {
				s.mcp.SendNotificationToAllClients(mcp.MethodNotificationResourceUpdated, map[string]any{"uri": tools.SkillURI(name)})
			}
		}
	}
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

// callTool runs a tool through the shared tool layer.
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
// /metrics; every MCP path (mcp-go and the dispatcher) calls tools here.
func (s *Server) runTool(ctx context.Context, name string, args []byte) tools.Result {
	start := time.Now()
	res := s.tools.Run(ctx, name, args)
	s.metrics.observeCall(name, res.IsError, time.Since(start))
	return res
}

// readResource serves skill://NAME/SKILL.md and skill://NAME/PATH. The URI is
// parsed here, percent-decoded once, and checked like any tool argument.
func (s *Server) readResource(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	uri := req.Params.URI
	name, p, err := tools.SplitURI(uri)
	if err != nil {
		return nil, err
	}
	if p == "SKILL.md" || p == "SKILL.MD" {
		doc, err := s.store.Document(ctx, name)
		if err != nil {
			return nil, resourceError(err)
		}
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/markdown", Text: doc.Text}}, nil
	}
	f, err := s.store.ReadFile(ctx, name, p)
	if err != nil {
		return nil, resourceError(err)
	}
	if f.Binary {
		return []mcp.ResourceContents{mcp.BlobResourceContents{URI: uri, MIMEType: mimeType(f.Path, true), Blob: base64.StdEncoding.EncodeToString([]byte(f.Data))}}, nil
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: mimeType(f.Path, false), Text: f.Text}}, nil
}

// resourceError keeps the contract message of a store error and drops
// anything else (which the store has already logged).
func resourceError(err error) error {
	msg, _ := tools.Describe(err)
	return errors.New(msg)
}

// mimeType guesses a file's media type from its extension.
func mimeType(p string, binary bool) string {
	switch ext := strings.ToLower(path.Ext(p)); ext {
	case ".md", ".markdown":
		return "text/markdown"
	case ".py":
		return "text/x-python"
	case ".sh":
		return "text/x-shellscript"
	case ".yaml", ".yml":
		return "application/yaml"
	case ".json":
		return "application/json"
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
	}
	if binary {
		return "application/octet-stream"
	}
	return "text/plain"
}

// getPrompt returns a skill's SKILL.md as a user message, for clients that
// offer prompts as slash commands.
func (s *Server) getPrompt(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	doc, err := s.store.Document(ctx, req.Params.Name)
	if err != nil {
		return nil, resourceError(err)
	}
	text := "Use the skill \"" + doc.Skill.Name + "\". Its instructions (SKILL.md) follow; read supporting files it mentions with read_file_in_skill.\n\n" + doc.Text
	return mcp.NewGetPromptResult(doc.Skill.Description, []mcp.PromptMessage{
		mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text)),
	}), nil
}

// recoverTool turns a panic in a tool handler into an error result, so the
// client gets an answer and the server keeps serving.
func (s *Server) recoverTool(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic in tool handler", "tool", req.Params.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				res, err = mcp.NewToolResultError("Internal error in tool '"+req.Params.Name+"'; the server logged the details. Try again, or report it to the operator."), nil
			}
		}()
		return next(ctx, req)
	}
}

func (s *Server) recoverResource(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) (res []mcp.ResourceContents, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic in resource handler", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				res, err = nil, errors.New("internal error while reading the resource; the server logged the details")
			}
		}()
		return next(ctx, req)
	}
}

func (s *Server) recoverPrompt(next server.PromptHandlerFunc) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (res *mcp.GetPromptResult, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic in prompt handler", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				res, err = nil, errors.New("internal error while building the prompt; the server logged the details")
			}
		}()
		return next(ctx, req)
	}
}
