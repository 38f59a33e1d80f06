package skillsapi

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/skillstore/skillstore/internal/hidden"
	"github.com/skillstore/skillstore/internal/skillcheck"
	"github.com/skillstore/skillstore/store"
)

// The write operations CanWrite and AuditEvent name.
const (
	OpCreate  = "create"  // POST /v1/skills: a new skill
	OpVersion = "version" // POST /v1/skills/{id}/versions: a new version
	OpDelete  = "delete"  // DELETE of a skill or of one version
)

// An AuditEvent's decisions.
const (
	DecisionAllow = "allow"
	DecisionDeny  = "deny"
)

// AuditEvent is one write attempt, done or refused. It never holds a
// token or a file's content.
type AuditEvent struct {
	// Op is OpCreate, OpVersion, OpDelete, OpApprove, OpReject or
	// OpPromote; "review" for a review refused before its decision was
	// read (a 401, a hidden skill, a body that is not one).
	Op string
	// Subject is the principal's subject: "" for an anonymous caller or
	// one refused with a 401.
	Subject string
	// SkillID is the skill written: the path's {id}, or the new skill's
	// ID once a create is stored ("" before).
	SkillID string
	// Name is the skill's name once known: from the skill looked up in
	// the caller's view, or from a create's checked upload. "" for a
	// skill the caller may not see.
	Name string
	// VersionID is the version stored or deleted ("" before it is known).
	VersionID string
	// Digest is that version's digest, when the registry gave it. For a
	// refused review it is the digest of the files the reviewer named.
	Digest string
	// Channel is the channel a promote moves ("" for other ops).
	Channel string
	// Decision is DecisionAllow when the write was done (Status 200),
	// DecisionDeny for every answer that did not write.
	Decision string
	// Reason is why a write was refused: the message sent to the caller,
	// or for a 500 the registry's own error text, which the caller does
	// not see (it may name a host path; it is for the operator).
	Reason string
	Status int // the HTTP status answered
}

// HandlerOptions configure NewHandler. The zero value serves everything
// to everyone, writes included: a site sets Principal, CanWrite and
// Visible.
type HandlerOptions struct {
	// Limits bound an upload body (ReadUpload's): 32 MiB, 1000 parts and
	// 8 MiB a part by default. A body whose Content-Length is over
	// MaxBytes is refused with a 413 before a byte of it is read. A zip
	// upload is one part, so MaxPartBytes bounds its compressed size.
	Limits Limits
	// Check bounds and relaxes the check of an upload (skillcheck: the
	// Agent Skills rules, path safety, size, the SEP-2640 limits, the
	// hidden-text scan). The zero value is strict: hidden text and
	// dot-files are refused.
	Check skillcheck.Options
	// Principal says who calls, on every request, reads included; ok
	// false answers 401 authentication_error. The site's auth layer reads
	// the token, which clients send as x-api-key or as Authorization:
	// Bearer (the current SDKs send the latter): both must be taken. nil
	// lets everyone in as the anonymous subject "".
	Principal func(*http.Request) (subject string, ok bool)
	// CanWrite says whether the caller may do op (OpCreate, OpVersion,
	// OpDelete; OpApprove, OpReject, OpPromote on a Reviewer) on the
	// skill of that name; a refusal answers 403
	// permission_error with reason in the message, so reason should say
	// what is missing (say "the skills:write scope"). It is asked only
	// about a skill the caller sees, so it cannot tell a hidden skill
	// exists. nil allows every write. The pending list shows a version
	// only to a caller it allows OpApprove, OpReject or OpVersion on.
	CanWrite func(r *http.Request, op string, name string) (ok bool, reason string)
	// Visible is the caller's read view, passed to every Registry call: a
	// skill whose name it refuses answers exactly as one that does not
	// exist. A create of a name outside the view is refused (403), so
	// the 409 of a taken name never tells of a hidden skill. nil shows
	// everything; a nil view returned by Visible shows nothing.
	Visible func(r *http.Request) func(name string) bool
	// Audit is called once per write attempt, on every route that
	// writes, whatever the answer (a refusal included). nil audits
	// nothing.
	Audit func(r *http.Request, e AuditEvent)
}

// NewHandler serves reg as Anthropic's /v1/skills (docs/design/skills-api.md):
//
//	POST   /v1/skills                                      create: files[] (+ display_name), or one .zip part
//	GET    /v1/skills                                      list, oldest first (limit, page)
//	GET    /v1/skills/{id}                                 one skill
//	DELETE /v1/skills/{id}                                 a skill and all its versions
//	POST   /v1/skills/{id}/versions                        a new version: files[], or one .zip part
//	GET    /v1/skills/{id}/versions                        list, newest first (limit, page)
//	GET    /v1/skills/{id}/versions/{version}              one version, or "latest"
//	DELETE /v1/skills/{id}/versions/{version}              one version, by its ID only
//	GET    /v1/skills/{id}/versions/{version}/content      its files as one zip ("latest" too)
//
// Another method on these paths answers 405 with an Allow header, and
// another path under /v1/skills 404, both in the error body. Query
// parameters other than limit and page are ignored.
//
// A write goes: who calls (Principal), the skill in the caller's view
// (version and delete; hidden or unknown answers 404), CanWrite, the
// body (ReadUpload: an oversize Content-Length is a 413 before it is
// read), the check (skillcheck; a refusal is a 400 "RULE: FILE: why"),
// then the registry. A create learns the name from its checked upload,
// so it is read and checked before CanWrite is asked.
//
// A Registry that is a Reviewer also gets the review routes (see
// reviewRoutes in reviewroutes.go: a version's review, the pending
// versions, a skill's channels and a promote).
func NewHandler(reg Registry, opts HandlerOptions) http.Handler {
	h := &handler{reg: reg, opts: opts}
	mux := http.NewServeMux()
	route := func(path string, methods map[string]http.HandlerFunc) {
		var allow []string
		for _, m := range []string{"GET", "HEAD", "POST", "DELETE"} {
			if m == "HEAD" && methods["GET"] != nil {
				allow = append(allow, m) // GET patterns answer HEAD too
			}
			if f := methods[m]; f != nil {
				mux.HandleFunc(m+" "+path, f)
				allow = append(allow, m)
			}
		}
		mux.HandleFunc(path, methodNotAllowed(strings.Join(allow, ", ")))
	}
	route("/v1/skills", map[string]http.HandlerFunc{"GET": h.listSkills, "POST": h.createSkill})
	route("/v1/skills/{id}", map[string]http.HandlerFunc{"GET": h.getSkill, "DELETE": h.deleteSkill})
	route("/v1/skills/{id}/versions", map[string]http.HandlerFunc{"GET": h.listVersions, "POST": h.createVersion})
	route("/v1/skills/{id}/versions/{version}", map[string]http.HandlerFunc{"GET": h.getVersion, "DELETE": h.deleteVersion})
	route("/v1/skills/{id}/versions/{version}/content", map[string]http.HandlerFunc{"GET": h.content})
	h.diffRoutes(route)   // …/versions/{version}/diff, when reg is a Differ (diff.go)
	h.reviewRoutes(route) // review, pending, channels, when reg is a Reviewer (reviewroutes.go)
	mux.HandleFunc("/v1/reviews/", func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, Errorf(http.StatusNotFound, "no such endpoint: the review API serves /v1/reviews/pending on a registry that reviews"))
	})
	mux.HandleFunc("/v1/skills/", func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, Errorf(http.StatusNotFound, "no such endpoint: the Skills API serves /v1/skills, /v1/skills/{id}, …/versions, …/versions/{version} and …/content"))
	})
	return mux
}

func methodNotAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		WriteError(w, Errorf(http.StatusMethodNotAllowed, "method %s is not allowed here; allowed: %s", store.Echo(r.Method), allow))
	}
}

type handler struct {
	reg  Registry
	rev  Reviewer // reg, when it reviews; nil: no review routes
	opts HandlerOptions
}

func everything(string) bool { return true }
func nothing(string) bool    { return false }

// view is the caller's read view, never nil.
func (h *handler) view(r *http.Request) func(string) bool {
	if h.opts.Visible == nil {
		return everything
	}
	if v := h.opts.Visible(r); v != nil {
		return v
	}
	return nothing
}

var errUnauthenticated = Errorf(http.StatusUnauthorized, "authentication required: send a valid API key as x-api-key or as Authorization: Bearer")

// principal is the caller's subject, or the 401 to answer.
func (h *handler) principal(r *http.Request) (string, error) {
	if h.opts.Principal == nil {
		return "", nil
	}
	subject, ok := h.opts.Principal(r)
	if !ok {
		return "", errUnauthenticated
	}
	return subject, nil
}

// reader answers a read: the caller's view, or false once a 401 went out.
func (h *handler) reader(w http.ResponseWriter, r *http.Request) (func(string) bool, bool) {
	if _, err := h.principal(r); err != nil {
		WriteError(w, err)
		return nil, false
	}
	return h.view(r), true
}

func (h *handler) listSkills(w http.ResponseWriter, r *http.Request) {
	listPage(h, w, r, "skills", func(vis func(string) bool, after string, limit int) ([]Skill, bool, error) {
		return h.reg.Skills(r.Context(), after, limit, vis)
	}, func(s Skill) string { return s.ID })
}

func (h *handler) listVersions(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	listPage(h, w, r, "versions/"+id, func(vis func(string) bool, after string, limit int) ([]Version, bool, error) {
		return h.reg.Versions(r.Context(), id, after, limit, vis)
	}, func(v Version) string { return v.ID })
}

// listPage answers a list: the page fetch gives after the page token's
// key, with a next_page token only when there is more.
func listPage[T any](h *handler, w http.ResponseWriter, r *http.Request, scope string, fetch func(vis func(string) bool, after string, limit int) ([]T, bool, error), key func(T) string) {
	vis, ok := h.reader(w, r)
	if !ok {
		return
	}
	l, err := ParseList(r.URL.Query(), scope)
	if err != nil {
		WriteError(w, err)
		return
	}
	page, more, err := fetch(vis, l.After, l.Limit)
	if err != nil {
		WriteError(w, err)
		return
	}
	p := Page[T]{Data: page}
	if more && len(page) > 0 {
		p.NextPage = NextPageToken(scope, key(page[len(page)-1]))
	}
	WriteJSON(w, p)
}

func (h *handler) getSkill(w http.ResponseWriter, r *http.Request) {
	vis, ok := h.reader(w, r)
	if !ok {
		return
	}
	sk, err := h.reg.Skill(r.Context(), r.PathValue("id"), vis)
	if err != nil {
		WriteError(w, err)
		return
	}
	WriteJSON(w, sk)
}

func (h *handler) getVersion(w http.ResponseWriter, r *http.Request) {
	vis, ok := h.reader(w, r)
	if !ok {
		return
	}
	v, err := h.reg.Version(r.Context(), r.PathValue("id"), r.PathValue("version"), vis)
	if err != nil {
		WriteError(w, err)
		return
	}
	WriteJSON(w, v)
}

// content streams a version's zip. Its headers go out with the zip's
// first bytes, so an unknown version is still answered as an error; a
// registry failing mid-archive aborts the answer (the client sees a cut
// body, never a short zip with a 200).
func (h *handler) content(w http.ResponseWriter, r *http.Request) {
	vis, ok := h.reader(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	v, err := h.reg.Version(r.Context(), id, r.PathValue("version"), vis)
	if err != nil {
		WriteError(w, err)
		return
	}
	zw := &zipAnswer{w: w, name: v.Name}
	// By the ID Version resolved: "latest" may move meanwhile.
	if err := h.reg.WriteZip(r.Context(), zw, id, v.ID, vis); err != nil {
		if zw.started {
			panic(http.ErrAbortHandler)
		}
		WriteError(w, err)
		return
	}
	zw.start()
}

// zipAnswer sends the download's headers with its first bytes.
type zipAnswer struct {
	w       http.ResponseWriter
	name    string
	started bool
}

func (z *zipAnswer) start() {
	if z.started {
		return
	}
	z.started = true
	hd := z.w.Header()
	hd.Set("Content-Type", "application/zip")
	hd.Set("Content-Disposition", attachment(z.name+".zip"))
	hd.Set("X-Content-Type-Options", "nosniff")
	setRequestID(z.w)
	z.w.WriteHeader(http.StatusOK)
}

func (z *zipAnswer) Write(p []byte) (int, error) {
	z.start()
	return z.w.Write(p)
}

// attachment is a Content-Disposition naming file: quoted as is when it
// is a plain file name (a skill's name is lowercase letters, digits and
// hyphens), else as RFC 2231 encodes it.
func attachment(file string) string {
	plain := file != ""
	for _, c := range file {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			plain = false
			break
		}
	}
	if plain {
		return `attachment; filename="` + file + `"`
	}
	if d := mime.FormatMediaType("attachment", map[string]string{"filename": file}); d != "" {
		return d
	}
	return "attachment"
}

// write is one write attempt: its audit event, filled as it goes.
type write struct {
	h  *handler
	r  *http.Request
	w  http.ResponseWriter
	ev AuditEvent
}

func (h *handler) begin(w http.ResponseWriter, r *http.Request, op string) *write {
	return &write{h: h, r: r, w: w, ev: AuditEvent{Op: op, SkillID: r.PathValue("id")}}
}

// refuse answers err and audits the refusal.
func (wr *write) refuse(err error) {
	wr.ev.Decision = DecisionDeny
	var e *Error
	if errors.As(err, &e) && e.Status >= 400 && e.Status <= 599 {
		wr.ev.Status, wr.ev.Reason = e.Status, e.Message
	} else {
		wr.ev.Status, wr.ev.Reason = http.StatusInternalServerError, err.Error()
	}
	wr.audit()
	WriteError(wr.w, err)
}

// done audits the write and answers v.
func (wr *write) done(v any) {
	wr.ev.Decision, wr.ev.Status = DecisionAllow, http.StatusOK
	wr.audit()
	WriteJSON(wr.w, v)
}

func (wr *write) audit() {
	if wr.h.opts.Audit != nil {
		wr.h.opts.Audit(wr.r, wr.ev)
	}
}

// authenticate sets the subject, or refuses with a 401.
func (wr *write) authenticate() bool {
	subject, err := wr.h.principal(wr.r)
	if err != nil {
		wr.refuse(err)
		return false
	}
	wr.ev.Subject = subject
	return true
}

// lookup finds the path's skill in the caller's view and notes its name.
func (wr *write) lookup(vis func(string) bool) (Skill, bool) {
	sk, err := wr.h.reg.Skill(wr.r.Context(), wr.ev.SkillID, vis)
	if err != nil {
		wr.refuse(err)
		return Skill{}, false
	}
	wr.ev.Name = sk.Name
	return sk, true
}

// allowed asks CanWrite about the event's op on name, refusing with a 403.
func (wr *write) allowed(name string) bool {
	if wr.h.opts.CanWrite == nil {
		return true
	}
	ok, reason := wr.h.opts.CanWrite(wr.r, wr.ev.Op, name)
	if !ok {
		wr.refuse(forbidden(wr.ev.Op, name, reason))
	}
	return ok
}

func forbidden(op, name, reason string) *Error {
	what := map[string]string{
		OpCreate:  "create the skill %q",
		OpVersion: "add a version to the skill %q",
		OpDelete:  "delete from the skill %q",
		OpApprove: "approve versions of the skill %q",
		OpReject:  "reject versions of the skill %q",
		OpPromote: "promote versions of the skill %q",
	}[op]
	msg := "permission denied: you may not " + fmt.Sprintf(what, store.Echo(name))
	if reason = strings.TrimSpace(reason); reason != "" {
		msg += ": " + store.Echo(reason)
	}
	return &Error{Status: http.StatusForbidden, Message: msg}
}

// upload reads and checks the body.
func (wr *write) upload() (Upload, *skillcheck.Skill, bool) {
	up, err := ReadUpload(wr.r, wr.h.opts.Limits)
	if err != nil {
		wr.refuse(err)
		return Upload{}, nil, false
	}
	sk, err := checkUpload(up, wr.h.opts.Check)
	if err != nil {
		wr.refuse(err)
		return Upload{}, nil, false
	}
	return up, sk, true
}

// checkUpload checks an upload: one files[] part whose name ends in
// .zip is a zip archive of the skill's folder, any other the folder's
// files. A refusal is a 400 "RULE: FILE: why" ("RULE: why" for the
// upload as a whole).
func checkUpload(up Upload, o skillcheck.Options) (*skillcheck.Skill, error) {
	var sk *skillcheck.Skill
	var err error
	if len(up.Files) == 1 && strings.HasSuffix(strings.ToLower(up.Files[0].Path), ".zip") {
		data := up.Files[0].Data
		sk, err = skillcheck.Zip(bytes.NewReader(data), int64(len(data)), o)
	} else {
		files := make([]skillcheck.File, len(up.Files))
		for i, f := range up.Files {
			files[i] = skillcheck.File{Path: f.Path, Data: f.Data}
		}
		sk, err = skillcheck.Files(files, o)
	}
	var ce *skillcheck.Error
	switch {
	case errors.As(err, &ce) && ce.File == "":
		return nil, Errorf(http.StatusBadRequest, "%s: %s", ce.Rule, ce.Reason)
	case errors.As(err, &ce):
		return nil, Errorf(http.StatusBadRequest, "%s: %s: %s", ce.Rule, hidden.Visible(store.Echo(ce.File)), ce.Reason)
	case err != nil:
		return nil, err
	}
	return sk, nil
}

func (h *handler) createSkill(w http.ResponseWriter, r *http.Request) {
	wr := h.begin(w, r, OpCreate)
	if !wr.authenticate() {
		return
	}
	up, sk, ok := wr.upload()
	if !ok {
		return
	}
	wr.ev.Name = sk.Name
	if !h.view(r)(sk.Name) {
		// Decided by the name alone: it tells nothing of a skill.
		wr.refuse(forbidden(OpCreate, sk.Name, "the name is outside the skills you may see"))
		return
	}
	if !wr.allowed(sk.Name) {
		return
	}
	skill, v, err := h.reg.CreateSkill(r.Context(), wr.ev.Subject, sk, up.DisplayName)
	if err != nil {
		wr.refuse(err)
		return
	}
	wr.ev.SkillID, wr.ev.VersionID, wr.ev.Digest = skill.ID, v.ID, v.Digest
	wr.done(skill)
}

func (h *handler) createVersion(w http.ResponseWriter, r *http.Request) {
	wr := h.begin(w, r, OpVersion)
	if !wr.authenticate() {
		return
	}
	vis := h.view(r)
	skill, ok := wr.lookup(vis)
	if !ok || !wr.allowed(skill.Name) {
		return
	}
	_, sk, ok := wr.upload()
	if !ok {
		return
	}
	v, err := h.reg.CreateVersion(r.Context(), wr.ev.Subject, skill.ID, sk, vis)
	if err != nil {
		wr.refuse(err)
		return
	}
	wr.ev.VersionID, wr.ev.Digest = v.ID, v.Digest
	wr.done(v)
}

func (h *handler) deleteSkill(w http.ResponseWriter, r *http.Request) {
	wr := h.begin(w, r, OpDelete)
	if !wr.authenticate() {
		return
	}
	vis := h.view(r)
	skill, ok := wr.lookup(vis)
	if !ok || !wr.allowed(skill.Name) {
		return
	}
	if err := h.reg.DeleteSkill(r.Context(), wr.ev.Subject, skill.ID, vis); err != nil {
		wr.refuse(err)
		return
	}
	wr.done(SkillDeleted{ID: skill.ID})
}

func (h *handler) deleteVersion(w http.ResponseWriter, r *http.Request) {
	wr := h.begin(w, r, OpDelete)
	wr.ev.VersionID = r.PathValue("version")
	if !wr.authenticate() {
		return
	}
	if wr.ev.VersionID == "latest" {
		wr.refuse(Errorf(http.StatusBadRequest, "version: name the version by its id; \"latest\" is only for reading"))
		return
	}
	vis := h.view(r)
	skill, ok := wr.lookup(vis)
	if !ok || !wr.allowed(skill.Name) {
		return
	}
	v, err := h.reg.DeleteVersion(r.Context(), wr.ev.Subject, skill.ID, wr.ev.VersionID, vis)
	if err != nil {
		wr.refuse(err)
		return
	}
	wr.ev.VersionID, wr.ev.Digest = v.ID, v.Digest
	wr.done(VersionDeleted{ID: v.ID})
}
