package mcpserver

import (
	"net/http"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// Who is calling, and what they may see.
//
// A transport puts the caller of each message in its source: HTTP the
// principal its authenticator found for the request's token (http.go), stdio
// the principal the access policy names for stdio. The dispatcher answers
// every method through the caller's view of the catalog (view.go), so a
// skill the caller may not see is, on every surface, a skill that does not
// exist.

// PolicySource gives the access policy in force, read once per message:
// *access.Reloader is one, and reloads it when its file changes. Policy
// must be cheap, safe for concurrent use, and may return nil (no policy).
type PolicySource interface {
	Policy() *access.Policy
}

// caller is who sent a message, as its transport authenticated it, and the
// view of the catalog it gets under the access policy in force when the
// message arrived. A nil *caller is everyone, unfiltered: stdio without a
// policy that names a stdio principal, HTTP without authentication or
// policy, and in-process connections.
type caller struct {
	// principal is who the transport authenticated; the anonymous
	// principal (no subject, no groups) for an HTTP caller under a policy
	// without authentication.
	principal *access.Principal
	// filter is principal's view under the policy in force; filter.ID()
	// identifies the view for caches, as tools.Tools.For keys it.
	filter access.Filter
}

// filtered reports whether c sees less than the whole catalog.
func (c *caller) filtered() bool { return c != nil && !c.filter.All() }

// anonymous is the principal of an HTTP caller no authenticator
// identified, under an access policy: it matches the rules without a
// selector, and otherwise gets the policy's default. It is shared and never
// modified.
var anonymous = &access.Principal{}

// unrestricted is the view of a caller no policy restricts.
var unrestricted = (*access.Policy)(nil).For(nil)

// Policy returns the access policy in force, or nil when there is none.
func (s *Server) Policy() *access.Policy { return s.policy() }

// policy returns the access policy in force, or nil when there is none.
func (s *Server) policy() *access.Policy {
	if s.access == nil {
		return nil
	}
	return s.access.Policy()
}

// callerFor returns the caller for principal p (nil: none authenticated)
// under the policy in force now, or nil for everyone when neither a
// principal nor a policy restricts it.
func (s *Server) callerFor(p *access.Principal) *caller {
	pol := s.policy()
	if p == nil && pol == nil {
		return nil
	}
	if p == nil {
		p = anonymous
	}
	if pol == nil {
		return &caller{principal: p, filter: unrestricted}
	}
	return &caller{principal: p, filter: pol.For(p)}
}

// httpCaller returns the caller of an HTTP request: the principal the
// guard in front authenticated, in its context (access.FromContext);
// anonymous without one, under a policy.
func (s *Server) httpCaller(r *http.Request) *caller {
	p, _ := access.FromContext(r.Context())
	return s.callerFor(p)
}

// ViewOf returns the view of the catalog the caller of the HTTP request r
// has: the principal in its context (access.NewContext), else the
// anonymous one, under the access policy in force.
func (s *Server) ViewOf(r *http.Request) *store.View { return s.viewOf(s.httpCaller(r)) }

// sessionCaller returns the caller of an HTTP session's notifications:
// principal p under the policy in force when each is sent.
func (s *Server) sessionCaller(p *access.Principal) func() *caller {
	if p == nil && s.access == nil {
		return nil
	}
	return func() *caller { return s.callerFor(p) }
}

// httpSessionCaller returns the caller of a stateful HTTP session's
// notifications: the principal of its latest request (first p, its
// initialize's; sessions.acquire records each later one), under the
// policy in force when each is sent. Once that principal's token has
// expired the session hears nothing (notice.hidden) until a request with
// a valid one.
func (s *Server) httpSessionCaller(ss *session, p *access.Principal) func() *caller {
	if p == nil && s.access == nil {
		return nil
	}
	ss.principal.Store(p)
	return func() *caller { return s.callerFor(ss.principal.Load()) }
}

// listenerCaller returns whom a subscriptions/listen stream serves: its
// session's caller (stdio, in process), else the request's principal
// under the policy in force when each notification is sent.
func (s *Server) listenerCaller(c *call) func() *caller {
	if c.src.sess != nil {
		return c.src.sess.who
	}
	return s.sessionCaller(c.src.caller.principalOf())
}

// stdioCaller returns the caller of a stdio message: the principal the
// access policy names for stdio, or everyone when it names none (the MCP
// specification keeps OAuth to HTTP: stdio serves the user who launched
// it).
func (s *Server) stdioCaller() *caller {
	pol := s.policy()
	if pol == nil {
		return nil
	}
	p := pol.Stdio()
	if p == nil {
		return nil
	}
	return &caller{principal: p, filter: pol.For(p)}
}

// toolsFor returns the tools as cl sees the catalog: s.tools itself for
// everyone, else the tools over cl's view (store.Store.View, whose state
// the store keeps per filter).
func (s *Server) toolsFor(cl *caller) *tools.Tools {
	if cl.filtered() {
		return s.tools.With(s.viewOf(cl))
	}
	return s.tools
}

// viewOf returns cl's view of the catalog.
func (s *Server) viewOf(cl *caller) *store.View {
	if cl.filtered() {
		return s.tools.Store().View(cl.filter)
	}
	return s.tools.View()
}

// callTools returns the tools c's caller calls: toolsFor its caller, from
// the tools for remote callers when c comes from one (source.remote).
func (s *Server) callTools(c *call) *tools.Tools {
	t := s.tools
	if c.src.remote {
		t = s.remote
	}
	if cl := c.src.caller; cl.filtered() {
		return t.With(s.viewOf(cl))
	}
	return t
}

// viewFor returns c's caller's view of the catalog, through which every
// method reads it.
func (s *Server) viewFor(c *call) *store.View { return s.viewOf(c.src.caller) }

// principalOf returns c's principal, or nil for everyone.
func (c *caller) principalOf() *access.Principal {
	if c == nil {
		return nil
	}
	return c.principal
}

// sameOwner reports whether principals a and b are the same caller, for
// binding a legacy session to the caller that opened it: the same subject
// through the same OAuth client. Groups and scopes may differ between two
// tokens of one caller (a refreshed token), so they are not compared.
// Nil, everyone without authentication, is the anonymous principal.
func sameOwner(a, b *access.Principal) bool {
	if a == nil {
		a = anonymous
	}
	if b == nil {
		b = anonymous
	}
	return a.Subject == b.Subject && a.ClientID == b.ClientID
}
