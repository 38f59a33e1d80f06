package skillsapi

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/skillstore/skillstore/store"
)

// The review routes, served only when the Registry is a Reviewer (else
// they answer 404 as any unknown path):
//
//	POST /v1/skills/{id}/versions/{version}/review   a decision (ReviewRequest) → the Version
//	GET  /v1/reviews/pending                         versions waiting for review (limit, page)
//	GET  /v1/skills/{id}/channels                    the skill's channels, by name: {"data":[Channel]}
//	POST /v1/skills/{id}/channels/{name}             point a channel at a version (PromoteRequest) → the Channel
//
// A decision and a promote go as a write does: who calls (Principal),
// the skill in the caller's view (hidden or unknown answers 404), the
// body (JSON, at most MaxJSONBytes, unknown fields refused), CanWrite
// with OpApprove, OpReject or OpPromote, then the Reviewer, which checks
// what is its own (a channel's name, the version's state, the digest
// set, the signature). Each attempt is audited, a refusal included.

// MaxJSONBytes bounds a review or promote body.
const MaxJSONBytes = 64 << 10

// MaxReasonBytes bounds a decision's reason.
const MaxReasonBytes = 1000

// opReview is the audit op of a review request refused before its
// decision was read (a 401, a hidden skill, a bad body).
const opReview = "review"

// ReviewRequest is the body of a decision:
// {"decision":"approve"|"reject","reason","files":{PATH:SHA256},"time","signature"}.
// Files are the version's files by their path in the skill's folder
// (no top folder) and lowercase hex SHA-256. Time is RFC 3339; it is the
// time in the signed Statement, so it must be sent with a Signature
// (without one, the server's clock stands in).
type ReviewRequest struct {
	Decision  string            `json:"decision"`
	Reason    string            `json:"reason,omitempty"`
	Files     map[string]string `json:"files"`
	Time      *time.Time        `json:"time,omitempty"`
	Signature string            `json:"signature,omitempty"`
}

// PromoteRequest is the body of a promote: {"version_id"}.
type PromoteRequest struct {
	Version string `json:"version_id"`
}

// ChannelList answers GET …/channels: {"data":[Channel]}.
type ChannelList struct {
	Data []Channel `json:"data"`
}

// MarshalJSON writes the wire object; no channel is [], never null.
func (l ChannelList) MarshalJSON() ([]byte, error) {
	data := l.Data
	if data == nil {
		data = []Channel{}
	}
	return json.Marshal(struct {
		Data []Channel `json:"data"`
	}{data})
}

// reviewRoutes adds the review routes to route when the registry is a
// Reviewer.
func (h *handler) reviewRoutes(route func(string, map[string]http.HandlerFunc)) {
	rv, ok := h.reg.(Reviewer)
	if !ok {
		return
	}
	h.rev = rv
	route("/v1/skills/{id}/versions/{version}/review", map[string]http.HandlerFunc{"POST": h.review})
	route("/v1/reviews/pending", map[string]http.HandlerFunc{"GET": h.pending})
	route("/v1/skills/{id}/channels", map[string]http.HandlerFunc{"GET": h.channels})
	route("/v1/skills/{id}/channels/{name}", map[string]http.HandlerFunc{"POST": h.promote})
}

// readJSON decodes r's body into v: one JSON value of at most
// MaxJSONBytes, no unknown field.
func readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "application/json") {
		return Errorf(http.StatusBadRequest, "the body must be JSON (Content-Type: application/json), not %s", store.Echo(ct))
	}
	if r.ContentLength > MaxJSONBytes {
		return Errorf(http.StatusRequestEntityTooLarge, "the body is larger than %d bytes", MaxJSONBytes)
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxJSONBytes))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	if err == nil {
		if _, e := dec.Token(); e != io.EOF {
			err = errors.New("more than one JSON value")
		}
	}
	var tooBig *http.MaxBytesError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &tooBig):
		return Errorf(http.StatusRequestEntityTooLarge, "the body is larger than %d bytes", MaxJSONBytes)
	case errors.Is(err, io.EOF):
		return Errorf(http.StatusBadRequest, "the body is empty: send a JSON object")
	}
	return Errorf(http.StatusBadRequest, "the body is not the JSON this route takes: %s", store.Echo(err.Error()))
}

// decision checks a review body and makes it a Decision.
func (q ReviewRequest) decision(version string, now time.Time) (Decision, error) {
	d := Decision{Version: version, Reason: strings.TrimSpace(q.Reason), Files: q.Files, Signature: q.Signature}
	switch q.Decision {
	case "approve":
		d.Approve = true
	case "reject":
		if d.Reason == "" {
			return d, Errorf(http.StatusBadRequest, "reason: a rejection needs a reason (say what must change)")
		}
	default:
		return d, Errorf(http.StatusBadRequest, `decision: must be "approve" or "reject", not %q`, store.Echo(q.Decision))
	}
	if len(d.Reason) > MaxReasonBytes {
		return d, Errorf(http.StatusBadRequest, "reason: %d bytes; at most %d", len(d.Reason), MaxReasonBytes)
	}
	if len(d.Files) == 0 {
		return d, Errorf(http.StatusBadRequest, "files: list the digest set reviewed, every file's path and SHA-256, as the version's content holds them")
	}
	if q.Time != nil {
		d.Time = *q.Time
	} else if q.Signature != "" {
		return d, Errorf(http.StatusBadRequest, "time: a signed decision must send the time it signed")
	} else {
		d.Time = now
	}
	return d, nil
}

func (h *handler) review(w http.ResponseWriter, r *http.Request) {
	wr := h.begin(w, r, opReview)
	wr.ev.VersionID = r.PathValue("version")
	if !wr.authenticate() {
		return
	}
	vis := h.view(r)
	skill, ok := wr.lookup(vis)
	if !ok {
		return
	}
	if v, err := h.reg.Version(r.Context(), skill.ID, wr.ev.VersionID, vis); err == nil {
		wr.ev.Digest = v.Digest // the digest decided on, in the audit line of a refusal too
	}
	var q ReviewRequest
	if err := readJSON(w, r, &q); err != nil {
		wr.refuse(err)
		return
	}
	d, err := q.decision(wr.ev.VersionID, time.Now())
	if d.Approve {
		wr.ev.Op = OpApprove
	} else if q.Decision == "reject" {
		wr.ev.Op = OpReject
	}
	if err != nil {
		wr.refuse(err)
		return
	}
	if !wr.allowed(skill.Name) {
		return
	}
	v, err := h.rev.Review(r.Context(), wr.ev.Subject, skill.ID, d, vis)
	if err != nil {
		wr.refuse(err)
		return
	}
	wr.ev.VersionID, wr.ev.Digest = v.ID, v.Digest
	wr.done(v)
}

// pending lists the versions waiting for review that the caller sees and
// may review or write: a reader without either is shown none.
func (h *handler) pending(w http.ResponseWriter, r *http.Request) {
	listPage(h, w, r, "reviews/pending", func(vis func(string) bool, after string, limit int) ([]Version, bool, error) {
		may := func(name string) bool {
			if !vis(name) {
				return false
			}
			if h.opts.CanWrite == nil {
				return true
			}
			for _, op := range []string{OpApprove, OpReject, OpVersion} {
				if ok, _ := h.opts.CanWrite(r, op, name); ok {
					return true
				}
			}
			return false
		}
		return h.rev.Pending(r.Context(), after, limit, may)
	}, func(v Version) string { return v.ID })
}

func (h *handler) channels(w http.ResponseWriter, r *http.Request) {
	vis, ok := h.reader(w, r)
	if !ok {
		return
	}
	list, err := h.rev.Channels(r.Context(), r.PathValue("id"), vis)
	if err != nil {
		WriteError(w, err)
		return
	}
	WriteJSON(w, ChannelList{list})
}

func (h *handler) promote(w http.ResponseWriter, r *http.Request) {
	wr := h.begin(w, r, OpPromote)
	channel := r.PathValue("name")
	wr.ev.Channel = channel
	if !wr.authenticate() {
		return
	}
	vis := h.view(r)
	skill, ok := wr.lookup(vis)
	if !ok {
		return
	}
	if !wr.allowed(skill.Name) {
		return
	}
	var q PromoteRequest
	if err := readJSON(w, r, &q); err != nil {
		wr.refuse(err)
		return
	}
	wr.ev.VersionID = q.Version
	if q.Version == "" {
		wr.refuse(Errorf(http.StatusBadRequest, "version_id: name the version to promote by its id"))
		return
	}
	c, err := h.rev.Promote(r.Context(), wr.ev.Subject, skill.ID, channel, q.Version, vis)
	if err != nil {
		wr.refuse(err)
		return
	}
	if v, err := h.reg.Version(r.Context(), skill.ID, c.Version, vis); err == nil {
		wr.ev.Digest = v.Digest
	}
	wr.done(c)
}

// MaxDigestSetFiles bounds the files DigestSet reads from an archive.
const MaxDigestSetFiles = 10_000

// DigestSet reads a version's content as the content route serves it
// (a zip of one top folder named name) and returns its digest set: each
// file's path in the skill's folder and the hex SHA-256 of its bytes,
// what a Decision's Files names. An entry outside the folder, a path
// twice, or more than MaxDigestSetFiles files is an error; folders are
// skipped. Each file is read to its end, however large: bound the
// archive.
func DigestSet(zr *zip.Reader, name string) (map[string]string, error) {
	if len(zr.File) > MaxDigestSetFiles {
		return nil, fmt.Errorf("the archive holds %d entries; at most %d", len(zr.File), MaxDigestSetFiles)
	}
	files := map[string]string{}
	for _, zf := range zr.File {
		if strings.HasSuffix(zf.Name, "/") {
			continue
		}
		rel, ok := strings.CutPrefix(zf.Name, name+"/")
		if !ok || rel == "" {
			return nil, fmt.Errorf("the archive holds %s, outside the folder %s", store.Echo(zf.Name), store.Echo(name))
		}
		if _, dup := files[rel]; dup {
			return nil, fmt.Errorf("the archive holds %s twice", store.Echo(zf.Name))
		}
		rc, err := zf.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", store.Echo(zf.Name), err)
		}
		h := sha256.New()
		_, err = io.Copy(h, rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", store.Echo(zf.Name), err)
		}
		files[rel] = hex.EncodeToString(h.Sum(nil))
	}
	return files, nil
}
