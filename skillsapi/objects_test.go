package skillsapi_test

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/skillsapi"
)

var (
	created = time.Date(2024, 10, 30, 23, 58, 27, 427722000, time.UTC)
	// updated is in another zone with nanoseconds: it goes out in UTC,
	// microseconds.
	updated = time.Date(2026, 12, 2, 12, 0, 1, 123456789, time.FixedZone("CET", 3600))
)

// TestGolden: each object's JSON is the spec's, field for field.
func TestGolden(t *testing.T) {
	skill := skillsapi.Skill{
		ID: "skill_01JAbcdefghijklmnopqrstuvw", CreatedAt: created, UpdatedAt: updated,
		DisplayName: "My Custom Skill", LatestVersionID: "skver_01", Source: skillsapi.SourceCustom,
	}
	version := skillsapi.Version{ID: "skver_01", SkillID: "skill_01", Name: "my-skill", Description: "Does things.", CreatedAt: created}
	const skillJSON = `{"type":"skill","id":"skill_01JAbcdefghijklmnopqrstuvw","created_at":"2024-10-30T23:58:27.427722Z","updated_at":"2026-12-02T11:00:01.123456Z","display_name":"My Custom Skill","latest_version_id":"skver_01","source":{"type":"custom"}}`
	const versionJSON = `{"type":"skill_version","id":"skver_01","skill_id":"skill_01","name":"my-skill","description":"Does things.","created_at":"2024-10-30T23:58:27.427722Z"}`
	for _, c := range []struct {
		name string
		v    any
		want string
	}{
		{"skill", skill, skillJSON},
		{"skill pointer", &skill, skillJSON},
		{"version", version, versionJSON},
		{"skill deleted", skillsapi.SkillDeleted{ID: "skill_01"}, `{"id":"skill_01","type":"skill_deleted"}`},
		{"version deleted", skillsapi.VersionDeleted{ID: "skver_01"}, `{"id":"skver_01","type":"skill_version_deleted"}`},
		{"middle page", skillsapi.Page[skillsapi.Skill]{Data: []skillsapi.Skill{skill}, NextPage: "page_x"},
			`{"data":[` + skillJSON + `],"has_more":true,"next_page":"page_x"}`},
		{"last page", skillsapi.Page[skillsapi.Version]{Data: []skillsapi.Version{version}},
			`{"data":[` + versionJSON + `],"has_more":false,"next_page":null}`},
		{"empty page", skillsapi.Page[skillsapi.Skill]{}, `{"data":[],"has_more":false,"next_page":null}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := json.Marshal(c.v)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, string(got)); d != "" {
				t.Errorf("JSON (-want +got):\n%s", d)
			}
		})
	}
}

// TestWriteJSON: a success is a 200 of JSON with a request-id.
func TestWriteJSON(t *testing.T) {
	rec := httptest.NewRecorder()
	skillsapi.WriteJSON(rec, skillsapi.SkillDeleted{ID: "skill_01"})
	if rec.Code != 200 {
		t.Errorf("status %d, want 200", rec.Code)
	}
	if got := rec.Header().Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
	if got := rec.Header().Get("request-id"); len(got) != len("req_")+26 || got[:4] != "req_" {
		t.Errorf("request-id %q", got)
	}
	if d := cmp.Diff(`{"id":"skill_01","type":"skill_deleted"}`+"\n", rec.Body.String()); d != "" {
		t.Errorf("body (-want +got):\n%s", d)
	}
}
