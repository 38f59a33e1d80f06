// Package skillsapi is the Skills API: its wire format and the handler
// (NewHandler) that serves a Registry through it.
//
// The shapes are Anthropic's GA /v1/skills as @anthropic-ai/sdk 1.15.0
// and anthropic-sdk-go v2.15.0 speak them (docs/design/skills-api.md):
// the objects, the error body, paging and the multipart upload. The
// package holds no storage (backends/registry keeps a Registry) and no
// authentication (the site's Principal, CanWrite and Visible).
package skillsapi

import (
	"encoding/json"
	"net/http"
	"time"
)

// The object types, each the "type" of its JSON object.
const (
	TypeSkill          = "skill"
	TypeSkillVersion   = "skill_version"
	TypeSkillDeleted   = "skill_deleted"
	TypeVersionDeleted = "skill_version_deleted"
)

// SourceCustom is the source of a skill created through the API: every
// skill a registry holds.
const SourceCustom = "custom"

// TimeFormat is how times go on the wire: RFC 3339 in UTC with
// microseconds, as in Anthropic's examples ("2024-10-30T23:58:27.427722Z").
const TimeFormat = "2006-01-02T15:04:05.000000Z07:00"

// Skill is a skill. Its JSON is
// {"type":"skill","id","created_at","updated_at","display_name",
// "latest_version_id","source":{"type"}}.
type Skill struct {
	ID          string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	DisplayName string
	// LatestVersionID is the newest version's ID; a skill always has one.
	LatestVersionID string
	// Source is the source's type: SourceCustom for the registry's skills.
	Source string
	// Name is the skill's slug (its versions' name). It is not on the
	// wire: Anthropic's skill object has none. The handler checks the
	// caller's view by it.
	Name string
}

// MarshalJSON writes the wire object.
func (s Skill) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type            string `json:"type"`
		ID              string `json:"id"`
		CreatedAt       string `json:"created_at"`
		UpdatedAt       string `json:"updated_at"`
		DisplayName     string `json:"display_name"`
		LatestVersionID string `json:"latest_version_id"`
		Source          struct {
			Type string `json:"type"`
		} `json:"source"`
	}{
		Type: TypeSkill, ID: s.ID,
		CreatedAt: formatTime(s.CreatedAt), UpdatedAt: formatTime(s.UpdatedAt),
		DisplayName: s.DisplayName, LatestVersionID: s.LatestVersionID,
		Source: struct {
			Type string `json:"type"`
		}{s.Source},
	})
}

// Version is one immutable version of a skill. Its JSON is
// {"type":"skill_version","id","skill_id","name","description","created_at"}.
type Version struct {
	ID      string
	SkillID string
	// Name is the skill's slug: its SKILL.md name and top-level folder.
	Name        string
	Description string
	CreatedAt   time.Time
	// Digest names the version's content: "sha256:" and the hex SHA-256
	// of its digest list, a line "HEX  PATH\n" per file (sha256sum's
	// format) sorted by path. On the wire as "digest", a field the SDKs
	// keep as an extra.
	Digest string
	// CreatedBy is who uploaded it (the principal's subject), on the wire
	// as "created_by"; "" when the server takes anonymous writes.
	CreatedBy string
	// Status is the review state (StatusPending, …), on the wire as
	// "status"; "" from a registry that reviews nothing.
	Status string
	// Review is the decision that set Status, if any ("review").
	Review *Review
	// Channels names the channels pointing at this version ("channels").
	Channels []string
}

// MarshalJSON writes the wire object.
func (v Version) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type        string      `json:"type"`
		ID          string      `json:"id"`
		SkillID     string      `json:"skill_id"`
		Name        string      `json:"name"`
		Description string      `json:"description"`
		CreatedAt   string      `json:"created_at"`
		Digest      string      `json:"digest,omitempty"`
		CreatedBy   string      `json:"created_by,omitempty"`
		Status      string      `json:"status,omitempty"`
		Review      *wireReview `json:"review,omitempty"`
		Channels    []string    `json:"channels,omitempty"`
	}{TypeSkillVersion, v.ID, v.SkillID, v.Name, v.Description, formatTime(v.CreatedAt), v.Digest, v.CreatedBy, v.Status, v.Review.wire(), v.Channels})
}

// wireReview is a Review on the wire.
type wireReview struct {
	Decision string `json:"decision"` // "approve" or "reject"
	By       string `json:"by"`
	Time     string `json:"time"`
	Reason   string `json:"reason,omitempty"`
	Digest   string `json:"digest"`
	Signer   string `json:"signer,omitempty"`
}

func (r *Review) wire() *wireReview {
	if r == nil {
		return nil
	}
	d := "reject"
	if r.Approve {
		d = "approve"
	}
	return &wireReview{d, r.By, formatTime(r.Time), r.Reason, r.Digest, r.Signer}
}

// SkillDeleted answers a skill's delete: {"id","type":"skill_deleted"}.
type SkillDeleted struct{ ID string }

// MarshalJSON writes the wire object.
func (d SkillDeleted) MarshalJSON() ([]byte, error) { return deleted(d.ID, TypeSkillDeleted) }

// VersionDeleted answers a version's delete:
// {"id","type":"skill_version_deleted"}.
type VersionDeleted struct{ ID string }

// MarshalJSON writes the wire object.
func (d VersionDeleted) MarshalJSON() ([]byte, error) { return deleted(d.ID, TypeVersionDeleted) }

func deleted(id, typ string) ([]byte, error) {
	return json.Marshal(struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}{id, typ})
}

// Page is one page of a list: {"data":[…],"has_more","next_page"}.
// NextPage is the token of the next page, "" on the last page, which
// goes on the wire as null: the SDKs stop there. has_more is
// NextPage != "" (the SDKs ignore it; the issue asks for it).
type Page[T any] struct {
	Data     []T
	NextPage string
}

// MarshalJSON writes the wire object; an empty Data is [], never null.
func (p Page[T]) MarshalJSON() ([]byte, error) {
	data := p.Data
	if data == nil {
		data = []T{}
	}
	var next *string
	if p.NextPage != "" {
		next = &p.NextPage
	}
	return json.Marshal(struct {
		Data     []T     `json:"data"`
		HasMore  bool    `json:"has_more"`
		NextPage *string `json:"next_page"`
	}{data, next != nil, next})
}

func formatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// WriteJSON answers 200 with v as JSON, Content-Type application/json
// (the Go SDK refuses any other) and a request-id.
func WriteJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		WriteError(w, err)
		return
	}
	setRequestID(w)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(append(b, '\n'))
}
