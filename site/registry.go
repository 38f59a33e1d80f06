package site

import (
	"net/http"
	"strings"
	"time"

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
	// MaxUploads bounds the uploads read at once (default
	// DefaultMaxUploads): each is held in memory, up to Limits.MaxBytes,
	// while it is checked. One more is answered 429 with Retry-After.
	MaxUploads int
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
	uploads := make(chan struct{}, maxUploads(ro.MaxUploads))
	bodyTimeout := opts.BodyTimeout
	if bodyTimeout <= 0 {
		bodyTimeout = mcpserver.DefaultBodyTimeout
	}
	// Uploads are held in memory while checked: a few at a time, each
	// read within the body timeout, so a crowd or a trickle of uploads
	// bounds memory and holds nothing long. Others wait their turn with a
	// 429 the SDKs retry.
	bounded := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > limit {
			endReading(w)
			skillsapi.WriteError(w, skillsapi.Errorf(http.StatusRequestEntityTooLarge, "the request body is %d bytes; the limit is %d", r.ContentLength, limit))
			return
		}
		select {
		case uploads <- struct{}{}:
			defer func() { <-uploads }()
		default:
			w.Header().Set("Retry-After", "1")
			endReading(w)
			skillsapi.WriteError(w, skillsapi.Errorf(http.StatusTooManyRequests, "the server is taking %d uploads already; try again in a second", cap(uploads)))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit+64<<10)
		rc := http.NewResponseController(w)
		rc.SetReadDeadline(time.Now().Add(bodyTimeout))
		defer rc.SetReadDeadline(time.Time{})
		h.ServeHTTP(w, r)
	})
	guarded := g.wrapBody(bounded, refuse, 0) // bodies bounded above

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if key := strings.TrimSpace(r.Header.Get("X-Api-Key")); key != "" && r.Header.Get("Authorization") == "" {
			r.Header.Set("Authorization", "Bearer "+key)
		}
		guarded.ServeHTTP(w, r)
	})
}

// DefaultMaxUploads is how many uploads a server reads at once by default.
const DefaultMaxUploads = 4

func maxUploads(n int) int {
	if n <= 0 {
		return DefaultMaxUploads
	}
	return n
}

var writeOps = map[string]access.WriteOp{
	skillsapi.OpCreate:  access.WriteCreate,
	skillsapi.OpVersion: access.WriteVersion,
	skillsapi.OpDelete:  access.WriteDelete,
}
