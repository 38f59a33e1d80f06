package site

import (
	"net/http"
	"strings"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/internal/skillcheck"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/skillsapi"
)

// RegistryOptions serve the Skills API (package skillsapi) at /v1/skills.
type RegistryOptions struct {
	// Registry is what the API writes and reads (backends/registry).
	Registry skillsapi.Registry
	// Label is the label its skills are served under: the caller's view
	// of that source decides what the API shows (404 for the rest) and
	// the access policy's write rules who may write.
	Label string
	// Check is how uploads are checked (the zero value is strict).
	Check skillcheck.Options
	// Limits bound an upload (the zero value: skillsapi's defaults).
	Limits skillsapi.Limits
}

// apiPath is where the Skills API lives, as the SDKs append it to their
// base URL.
const apiPath = "/v1/skills"

// skillsAPI returns the Skills API behind the guard: the token as
// "Authorization: Bearer" or "x-api-key" (the SDKs send either), bodies
// up to the upload limit, refusals in the API's error body.
func skillsAPI(srv *mcpserver.Server, opts Options, g *guard) http.Handler {
	ro := opts.Registry
	label := ro.Label
	authenticated := opts.Auth != nil
	h := skillsapi.NewHandler(ro.Registry, skillsapi.HandlerOptions{
		Limits: ro.Limits,
		Check:  ro.Check,
		Principal: func(r *http.Request) (string, bool) {
			p, ok := access.FromContext(r.Context())
			if !authenticated {
				return "", true // no identities: writes are refused by the policy
			}
			if !ok {
				return "", false
			}
			return p.Subject, true
		},
		CanWrite: func(r *http.Request, op, name string) (bool, string) {
			p, _ := access.FromContext(r.Context())
			return srv.Policy().MayWrite(p, writeOps[op], label, name)
		},
		Visible: func(r *http.Request) func(string) bool {
			v := srv.ViewOf(r)
			return func(name string) bool { return v.Allows(label, name) }
		},
		Audit: func(r *http.Request, e skillsapi.AuditEvent) {
			reason := e.Reason
			if e.Status >= 500 {
				srv.Logger().Error("registry write failed", "skill", e.Name, "error", e.Reason)
				reason = "the registry's store failed"
			}
			srv.AuditWrite(r, label, e.Name, e.VersionID, e.Digest, e.Decision == skillsapi.DecisionAllow, reason)
			if e.Decision == skillsapi.DecisionAllow {
				srv.Rescan() // this replica serves the write now; the others at their next refresh
			}
		},
	})
	limit := ro.Limits.MaxBytes
	if limit <= 0 {
		limit = skillsapi.DefaultMaxBytes
	}
	refuse := func(w http.ResponseWriter, r *http.Request, status int, msg string) {
		skillsapi.WriteError(w, &skillsapi.Error{Status: status, Message: msg})
	}
	// The guard's own 413 comes after the API's: it reads a bit more.
	guarded := g.wrapBody(h, refuse, limit+64<<10)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if key := strings.TrimSpace(r.Header.Get("X-Api-Key")); key != "" && r.Header.Get("Authorization") == "" {
			r.Header.Set("Authorization", "Bearer "+key)
		}
		guarded.ServeHTTP(w, r)
	})
}

var writeOps = map[string]access.WriteOp{
	skillsapi.OpCreate:  access.WriteCreate,
	skillsapi.OpVersion: access.WriteVersion,
	skillsapi.OpDelete:  access.WriteDelete,
}
