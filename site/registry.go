package site

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/internal/skillcheck"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/skillsapi"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/ui"
)

// RegistryOptions serve the Skills API (package skillsapi) at /v1/skills.
// A Registry that is a skillsapi.Reviewer also gets the review routes
// (a version's review, /v1/reviews/pending, a skill's channels) and the
// reviews page (/reviews, with the pages).
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
		CanWrite: canWrite(srv, label),
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
			reason = auditReason(e, reason)
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
		endUpload(w) // the guard ended reading at once
		skillsapi.WriteError(w, &skillsapi.Error{Status: status, Message: msg})
	}
	// refuseUpload refuses an upload before its body is read: an audit
	// line, as for every refused write, and the API's error body.
	refuseUpload := func(w http.ResponseWriter, r *http.Request, e *skillsapi.Error) {
		srv.AuditWrite(r, label, "", "", "", false, e.Message)
		endUpload(w)
		skillsapi.WriteError(w, e)
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
			refuseUpload(w, r, skillsapi.Errorf(http.StatusRequestEntityTooLarge, "the request body is %d bytes; the limit is %d", r.ContentLength, limit))
			return
		}
		select {
		case uploads <- struct{}{}:
			defer func() { <-uploads }()
		default:
			w.Header().Set("Retry-After", "1")
			refuseUpload(w, r, skillsapi.Errorf(http.StatusTooManyRequests, "the server is taking %d uploads already; try again in a second", cap(uploads)))
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

// endUpload closes the connection of an upload refused before its body
// is read, once answered, as endReading does, but lets the body go on
// arriving for refusedBodyGrace first: net/http discards up to 256 KiB
// of it before the close. An SDK sends an upload's body after its
// headers; a connection closed on an unread body is reset under it, and
// fetch (undici) then reports a connection error, never the answer. A
// trickle holds no more than the grace.
func endUpload(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(refusedBodyGrace))
}

// refusedBodyGrace is how long endUpload lets a refused body arrive.
const refusedBodyGrace = 250 * time.Millisecond

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

// registryVersions are the registry's versions as the pages list and
// download them (ui.VersionSource): the versions of a skill the catalog
// serves from the registry's label, read through the caller's view of
// that label, so a skill the caller may not see is one that does not
// exist, on its page and in its downloads.
type registryVersions struct {
	srv   *mcpserver.Server
	reg   skillsapi.Registry
	label string
}

// countPage is how many versions one call reads while counting those a
// page leaves out.
const countPage = 1000

// visible is the caller's view of the registry's label.
func (rv registryVersions) visible(r *http.Request) func(string) bool {
	v := rv.srv.ViewOf(r)
	return func(name string) bool { return v.Allows(rv.label, name) }
}

// Versions lists up to limit versions of sk, newest first, when the
// catalog serves it from the registry, and counts the others (a call per
// 1,000 of them).
func (rv registryVersions) Versions(ctx context.Context, r *http.Request, sk *store.Skill, limit int) (*ui.VersionList, error) {
	if base, _, _ := access.SplitChannel(sk.Source.Label); base != rv.label {
		return nil, nil // a channel's source is the registry's too
	}
	visible := rv.visible(r)
	s, err := rv.reg.SkillByName(ctx, sk.Name, visible)
	if err != nil {
		return nil, missingSkill(sk.Name, err)
	}
	page, more, err := rv.reg.Versions(ctx, s.ID, "", limit, visible)
	if err != nil {
		return nil, missingSkill(sk.Name, err)
	}
	list := &ui.VersionList{Versions: make([]ui.Version, len(page))}
	for i, v := range page {
		list.Versions[i] = ui.Version{ID: v.ID, Created: v.CreatedAt, CreatedBy: v.CreatedBy, Digest: v.Digest, Description: v.Description}
	}
	for after := ""; more && len(page) > 0; {
		after = page[len(page)-1].ID
		if page, more, err = rv.reg.Versions(ctx, s.ID, after, countPage, visible); err != nil {
			return nil, missingSkill(sk.Name, err)
		}
		list.More += len(page)
	}
	return list, nil
}

// WriteZip writes version ver of the registry's skill name as the
// Skills API serves it (Registry.WriteZip).
func (rv registryVersions) WriteZip(ctx context.Context, r *http.Request, w io.Writer, name, ver string) error {
	visible := rv.visible(r)
	s, err := rv.reg.SkillByName(ctx, name, visible)
	if err != nil {
		return missingSkill(name, err)
	}
	err = rv.reg.WriteZip(ctx, w, s.ID, ver, visible)
	var e *skillsapi.Error
	if errors.As(err, &e) && e.Status == http.StatusNotFound {
		return ui.ErrVersionNotFound // the skill is there: its version is not
	}
	return err
}

// missingSkill is a registry's 404 as the store says it (the pages' 404
// for a missing skill); any other error as it is.
func missingSkill(name string, err error) error {
	var e *skillsapi.Error
	if errors.As(err, &e) && e.Status == http.StatusNotFound {
		return &store.Error{Kind: store.ErrSkillNotFound, Skill: name}
	}
	return err
}
