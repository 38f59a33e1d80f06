package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/audit"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// The audit log (Options.Audit): one line per decision on skill content —
// a skill's document or a file of it read by a tool, resources/read,
// prompts/get, skills/get, resources/directory/read, or a .well-known
// artifact — allowed or denied, and one per request refused for its
// credentials or its session. A line names the request (id, trace id),
// the caller (subject, client, groups), what was asked (method, tool,
// skill, file or URI), the decision and why, the client's address and the
// protocol version; never a token, never content. A request for a skill
// that exists nowhere decides nothing and is not logged.

// auditRead logs the decision on c's request for skill name (file or uri
// in it, if given), when an audit log is kept, and counts an allowed
// load in the usage counts (countLoad).
func (s *Server) auditRead(c *call, name, file, uri string) {
	if !s.decides() || name == "" {
		return
	}
	e := s.event(c.src, c.method)
	e.RequestID, e.Skill, e.File, e.URI = requestID(c.id), name, file, uri
	if c.method == "tools/call" {
		e.Tool = toolName(c.request)
	}
	e.ProtocolVersion = c.version
	if !c.modern {
		e.ProtocolVersion = c.src.version()
	}
	if !s.decide(c.ctx, c.src.caller, &e) {
		return
	}
	s.countLoad(&e)
	if s.audit != nil {
		s.audit.Log(e)
	}
}

// decides reports whether decisions on skill content are recorded: in
// the audit log or the usage counts.
func (s *Server) decides() bool { return s.audit != nil || s.usage != nil }

// countLoad counts e, an allowed decision, as a load of its skill in the
// usage counts (Options.Usage) when it is one: get_skill, the Skill
// tool, skills/get, prompts/get (the skill's SKILL.md as a prompt), or a
// read of the skill's SKILL.md by read_file_in_skill or resources/read.
// Other files, folder listings and HTTP reads (pages, archives) are not
// loads. A denied decision counts nothing.
func (s *Server) countLoad(e *audit.Event) {
	if s.usage == nil || e.Decision != audit.Allow {
		return
	}
	switch {
	case e.Tool == tools.GetSkill, e.Tool == tools.SkillTool, e.Method == "skills/get", e.Method == "prompts/get":
	case (e.Tool == tools.ReadFileInSkill || e.Method == "resources/read") && isDocPath(e.File):
	default:
		return
	}
	s.usage.Record(e.Skill, e.Subject)
}

// isDocPath reports whether file, a path in a skill, is its SKILL.md
// (as any spelling the store accepts).
func isDocPath(file string) bool {
	return store.IsDocName(strings.TrimPrefix(path.Clean("/"+file), "/"))
}

// decide fills in e's source, decision and reason for cl's access to the
// skill e names, and reports false when no skill of that name exists.
func (s *Server) decide(ctx context.Context, cl *caller, e *audit.Event) bool {
	f := unrestricted
	if cl != nil {
		f = cl.filter
	}
	label, ok := s.sourceOf(ctx, f, e.Skill)
	if !ok {
		return false
	}
	e.Source, e.Decision, e.Reason = label, audit.Deny, f.Reason(label, e.Skill)
	if f.Allows(label, e.Skill) {
		e.Decision = audit.Allow
	}
	return true
}

// sourceOf returns the label of the source whose copy of the skill the
// name names answers a caller with filter f in the current catalog: the
// served copy's; for a folder left out with a problem, the first copy f
// allows (its view's Catalog.Problem), else the first.
func (s *Server) sourceOf(ctx context.Context, f access.Filter, name string) (string, bool) {
	sk, err := s.store.View(nil).Skill(ctx, name)
	if err == nil {
		return sk.Source.Label, true
	}
	var se *store.Error
	if !errors.As(err, &se) || se.Kind == store.ErrSkillNotFound || se.Kind == store.ErrInvalidName {
		return "", false
	}
	for _, v := range []*store.View{s.store.View(f), s.store.View(nil)} {
		if c, err := v.Catalog(ctx); err == nil {
			if p, ok := c.Problem(name); ok {
				return p.Source.Label, true
			}
		}
	}
	return "", false
}

// event starts an audit event for a message from src: its caller, trace id
// and client address.
func (s *Server) event(src source, method string) audit.Event {
	e := audit.Event{Method: method, ClientAddr: src.addr}
	e.SetPrincipal(src.caller.principalOf())
	if v := src.header.Values("Traceparent"); len(v) == 1 {
		e.TraceID, _ = audit.TraceID(v[0])
	}
	return e
}

// AuditRefusal logs, when an audit log is kept, an HTTP request refused
// for its credentials or its session: who is the principal of a verified
// token refused for its scopes, or of a session's request (nil: none),
// and reason says why in fixed words (never a token).
func (s *Server) AuditRefusal(r *http.Request, who *access.Principal, reason string) {
	if s.audit == nil {
		return
	}
	e := s.event(source{header: r.Header, addr: r.RemoteAddr}, r.Method+" "+r.URL.Path)
	e.SetPrincipal(who)
	e.RequestID, e.ProtocolVersion, e.Decision = r.Header.Get("X-Request-Id"), r.Header.Get(mcp.HeaderProtocolVersion), audit.Deny
	e.Reason = reason
	s.audit.Log(e)
}

// AuditWrite logs a registry write or its refusal on r: the operation
// as the method ("POST /v1/skills"), the skill, version and digest, the
// decision and why.
func (s *Server) AuditWrite(r *http.Request, label, skill, version, digest string, allow bool, reason string) {
	if s.audit == nil {
		return
	}
	e := s.event(source{header: r.Header, addr: r.RemoteAddr}, r.Method+" "+r.URL.Path)
	p, _ := access.FromContext(r.Context())
	e.SetPrincipal(p)
	e.RequestID, e.Source, e.Skill, e.Version, e.Digest, e.Reason = r.Header.Get("X-Request-Id"), label, skill, version, digest, reason
	e.Decision = audit.Deny
	if allow {
		e.Decision = audit.Allow
	}
	s.audit.Log(e)
}

// requestID is a JSON-RPC id as the audit log shows it: a string's
// value, or the number.
func requestID(id json.RawMessage) string {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return s
	}
	return string(id)
}

// auditTool logs the decision on a tools/call of a tool that reads skill
// content: get_skill, read_file_in_skill and Skill.
func (s *Server) auditTool(c *call, name string, args []byte) {
	if !s.decides() {
		return
	}
	var a struct {
		SkillName string `json:"skill_name"`
		URI       string `json:"uri"`
		FilePath  string `json:"file_path"`
	}
	switch name {
	case tools.GetSkill, tools.ReadFileInSkill, tools.SkillTool:
	default:
		return
	}
	if json.Unmarshal(args, &a) != nil {
		return
	}
	skill := strings.TrimSpace(a.SkillName)
	if a.URI != "" && skill == "" {
		skill, _ = tools.ParseSkillURI(c.ctx, s.tools.View(), a.URI) // resolved for everyone: a hidden skill's refusal is what is logged
	}
	s.auditRead(c, skill, a.FilePath, a.URI)
}

// auditURI logs the decision on a request for a skill:// URI.
func (s *Server) auditURI(c *call, uri string) {
	if !s.decides() {
		return
	}
	name, file, err := tools.ResolveURI(c.ctx, s.tools.View(), uri) // resolved for everyone: a hidden skill's refusal is what is logged
	if err != nil {
		return
	}
	s.auditRead(c, name, file, uri)
}

// AuditRead logs, when an audit log is kept, the decision on the HTTP
// request r, outside JSON-RPC (a page, a .well-known artifact), for
// skill (file in it, if given), by the caller in r's context.
func (s *Server) AuditRead(r *http.Request, skill, file string) {
	if s.audit != nil {
		s.auditHTTP(r, s.httpCaller(r), skill, file)
	}
}

// auditHTTP logs the decision on cl's HTTP request, outside JSON-RPC,
// for skill name (file in it, if given): a .well-known artifact, a page.
func (s *Server) auditHTTP(r *http.Request, cl *caller, name, file string) {
	if s.audit == nil {
		return
	}
	e := s.event(source{header: r.Header, caller: cl, addr: r.RemoteAddr}, r.Method+" "+r.URL.Path)
	e.RequestID, e.Skill, e.File = r.Header.Get("X-Request-Id"), name, file
	if s.decide(r.Context(), cl, &e) {
		s.audit.Log(e)
	}
}
