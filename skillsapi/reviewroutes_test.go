package skillsapi_test

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/skillsapi"
)

// reviewer is the fake registry as a Reviewer: a decision sets a
// version's Status and Review; a channel is a pointer per skill, with
// its history; Diff is differ's.
type reviewer struct{ differ }

func (f reviewer) Review(_ context.Context, by, id string, d skillsapi.Decision, visible func(string) bool) (skillsapi.Version, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.find(id, visible)
	if err != nil {
		return skillsapi.Version{}, err
	}
	i, err := s.find(d.Version)
	if err != nil {
		return skillsapi.Version{}, err
	}
	v := &s.versions[i].v
	want := map[string]string{}
	for _, fl := range s.versions[i].files {
		want[fl.Path] = fmt.Sprintf("%x", sha256.Sum256(fl.Data))
	}
	status := skillsapi.StatusRejected
	if d.Approve {
		status = skillsapi.StatusApproved
	}
	switch {
	case f.needsReview == nil || !f.needsReview(s.skill.Name):
		return skillsapi.Version{}, skillsapi.Errorf(400, "the skill %q needs no review", s.skill.Name)
	case by == v.CreatedBy:
		return skillsapi.Version{}, skillsapi.Errorf(403, "%s uploaded %s: another reviewer must decide", by, v.ID)
	case !cmp.Equal(want, d.Files):
		return skillsapi.Version{}, skillsapi.Errorf(409, "the files reviewed are not version %s's", v.ID)
	case v.Status == status:
		return skillsapi.Version{}, skillsapi.Errorf(409, "%s is %s already", v.ID, status)
	}
	v.Status = status
	v.Review = &skillsapi.Review{Approve: d.Approve, By: by, Time: f.tick(), Reason: d.Reason, Digest: v.Digest}
	return *v, nil
}

func (f reviewer) Files(_ context.Context, id, ver string, visible func(string) bool) (map[string]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.find(id, visible)
	if err != nil {
		return nil, err
	}
	i, err := s.find(ver)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, fl := range s.versions[i].files {
		out[fl.Path] = fmt.Sprintf("%x", sha256.Sum256(fl.Data))
	}
	return out, nil
}

func (f reviewer) Pending(_ context.Context, after string, limit int, visible func(string) bool) ([]skillsapi.Version, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []skillsapi.Version
	for _, id := range f.order {
		s := f.skills[id]
		for _, v := range s.versions {
			if v.v.Status == skillsapi.StatusPending && visible(s.skill.Name) {
				all = append(all, v.v)
			}
		}
	}
	slices.SortFunc(all, func(a, b skillsapi.Version) int { return strings.Compare(a.ID, b.ID) })
	var page []skillsapi.Version
	for _, v := range all {
		switch {
		case v.ID <= after:
		case len(page) == limit:
			return page, true, nil
		default:
			page = append(page, v)
		}
	}
	return page, false, nil
}

func (f reviewer) Promote(_ context.Context, by, id, channel, version string, visible func(string) bool) (skillsapi.Channel, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.find(id, visible)
	if err != nil {
		return skillsapi.Channel{}, err
	}
	i, err := s.find(version)
	if err != nil {
		return skillsapi.Channel{}, skillsapi.Errorf(409, "no version %q to promote", version)
	}
	if st := s.versions[i].v.Status; st == skillsapi.StatusPending || st == skillsapi.StatusRejected {
		return skillsapi.Channel{}, skillsapi.Errorf(409, "%s is %s: only an approved version goes to a channel", version, st)
	}
	if f.channels == nil {
		f.channels = map[string][]skillsapi.Channel{}
	}
	c := skillsapi.Channel{Name: channel, SkillID: id, Version: version, By: by, Time: f.tick()}
	list := f.channels[id]
	for j := range list {
		if list[j].Name == channel {
			old := list[j]
			c.History = append([]skillsapi.ChannelMove{{Version: old.Version, By: old.By, Time: old.Time}}, old.History...)
			list[j] = c
			return c, nil
		}
	}
	f.channels[id] = append(list, c)
	return c, nil
}

func (f reviewer) Channels(_ context.Context, id string, visible func(string) bool) ([]skillsapi.Channel, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.find(id, visible); err != nil {
		return nil, err
	}
	return slices.Clone(f.channels[id]), nil
}

var _ skillsapi.Reviewer = reviewer{}

// sums is a files map as a decision names it: path → hex SHA-256.
func sums(files map[string]string) map[string]string {
	out := map[string]string{}
	for p, data := range files {
		out[strings.TrimPrefix(p, "alpha/")] = fmt.Sprintf("%x", sha256.Sum256([]byte(data)))
	}
	return out
}

// reviewOptions: carol reviews and promotes (and may not upload), alice
// uploads and reviews, bob does neither.
func reviewOptions(audit *[]skillsapi.AuditEvent) skillsapi.HandlerOptions {
	o := options(audit)
	o.CanWrite = func(r *http.Request, op, name string) (bool, string) {
		subject, _ := principal(r)
		review := op == skillsapi.OpApprove || op == skillsapi.OpReject || op == skillsapi.OpPromote
		switch {
		case subject == "carol" && review, subject == "alice":
			return true, ""
		case review:
			return false, "no reviews: rule names you"
		}
		return false, "the skills:write scope"
	}
	return o
}

func jsonBody(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReviewRoutes drives the review routes on a registry where every
// skill but gamma needs review.
func TestReviewRoutes(t *testing.T) {
	needs := func(name string) bool { return name != "gamma" }
	fx := newFixtureWith(t, needs)
	v2Files := sums(fx.alphaLast)
	approve := func(files map[string]string) string {
		return jsonBody(t, map[string]any{"decision": "approve", "files": files})
	}
	approved := fx.v2
	approved.Status = skillsapi.StatusApproved
	approved.Review = &skillsapi.Review{Approve: true, By: "carol", Time: at(5), Digest: fx.v2.Digest}
	rejected := fx.v2
	rejected.Status = skillsapi.StatusRejected
	rejected.Review = &skillsapi.Review{By: "carol", Time: at(5), Reason: "it phones home", Digest: fx.v2.Digest}
	wrongFiles := map[string]string{"SKILL.md": strings.Repeat("0", 64)}
	const reviewPath = "/v1/skills/skill_01/versions/skver_02/review"
	ev := func(op, subject, id, name, version, digest, decision string, status int, reason string) []skillsapi.AuditEvent {
		return []skillsapi.AuditEvent{{Op: op, Subject: subject, SkillID: id, Name: name, VersionID: version, Digest: digest, Decision: decision, Status: status, Reason: reason}}
	}
	denied := func(what string) string {
		return `permission denied: you may not ` + what + ` versions of the skill "alpha": no reviews: rule names you`
	}
	v2Digest := fx.v2.Digest // audited once the version is found
	gammaCanary := skillsapi.Channel{Name: "canary", SkillID: "skill_03", Version: "skver_04", By: "carol", Time: at(5)}

	for _, c := range []struct {
		name         string
		method, path string
		key          string
		ctype        string // default application/json with a body
		body         string
		status       int
		want         any
		header       map[string]string
		audit        []skillsapi.AuditEvent
	}{
		// Decisions.
		{name: "approve", method: "POST", path: reviewPath, key: "k-carol", body: approve(v2Files), status: 200, want: approved,
			audit: ev("approve", "carol", "skill_01", "alpha", "skver_02", v2Digest, "allow", 200, "")},
		{name: "approve with the time and a charset", method: "POST", path: reviewPath, key: "k-carol", ctype: "application/json; charset=utf-8",
			body: jsonBody(t, map[string]any{"decision": "approve", "files": v2Files, "time": "2026-12-01T10:30:00Z"}), status: 200, want: approved,
			audit: ev("approve", "carol", "skill_01", "alpha", "skver_02", v2Digest, "allow", 200, "")},
		{name: "reject with a reason", method: "POST", path: reviewPath, key: "k-carol",
			body: jsonBody(t, map[string]any{"decision": "reject", "reason": " it phones home ", "files": v2Files}), status: 200, want: rejected,
			audit: ev("reject", "carol", "skill_01", "alpha", "skver_02", v2Digest, "allow", 200, "")},
		{name: "reject without a reason", method: "POST", path: reviewPath, key: "k-carol",
			body: jsonBody(t, map[string]any{"decision": "reject", "files": v2Files}), status: 400,
			want:  errorBody(400, "reason: a rejection needs a reason (say what must change)"),
			audit: ev("reject", "carol", "skill_01", "alpha", "skver_02", v2Digest, "deny", 400, "reason: a rejection needs a reason (say what must change)")},
		{name: "a reason too long", method: "POST", path: reviewPath, key: "k-carol",
			body: jsonBody(t, map[string]any{"decision": "reject", "reason": strings.Repeat("x", 1001), "files": v2Files}), status: 400,
			want:  errorBody(400, "reason: 1001 bytes; at most 1000"),
			audit: ev("reject", "carol", "skill_01", "alpha", "skver_02", v2Digest, "deny", 400, "reason: 1001 bytes; at most 1000")},
		{name: "self-approval", method: "POST", path: "/v1/skills/skill_01/versions/skver_01/review", key: "k-alice", body: approve(sums(fx.alpha1Files)), status: 403,
			want:  errorBody(403, "alice uploaded skver_01: another reviewer must decide"),
			audit: ev("approve", "alice", "skill_01", "alpha", "skver_01", fx.v1.Digest, "deny", 403, "alice uploaded skver_01: another reviewer must decide")},
		{name: "files not the version's", method: "POST", path: reviewPath, key: "k-carol", body: approve(wrongFiles), status: 409,
			want:   errorBody(409, "the files reviewed are not version skver_02's"),
			header: map[string]string{"x-should-retry": "false"},
			audit:  ev("approve", "carol", "skill_01", "alpha", "skver_02", v2Digest, "deny", 409, "the files reviewed are not version skver_02's")},
		{name: "no files", method: "POST", path: reviewPath, key: "k-carol", body: `{"decision":"approve"}`, status: 400,
			want:  errorBody(400, "files: list the digest set reviewed, every file's path and SHA-256, as the version's content holds them"),
			audit: ev("approve", "carol", "skill_01", "alpha", "skver_02", v2Digest, "deny", 400, "files: list the digest set reviewed, every file's path and SHA-256, as the version's content holds them")},
		{name: "a signature without its time", method: "POST", path: reviewPath, key: "k-carol",
			body: jsonBody(t, map[string]any{"decision": "approve", "files": v2Files, "signature": "-----BEGIN SSH SIGNATURE-----"}), status: 400,
			want:  errorBody(400, "time: a signed decision must send the time it signed"),
			audit: ev("approve", "carol", "skill_01", "alpha", "skver_02", v2Digest, "deny", 400, "time: a signed decision must send the time it signed")},
		{name: "an unknown decision", method: "POST", path: reviewPath, key: "k-carol", body: `{"decision":"maybe","files":{}}`, status: 400,
			want:  errorBody(400, `decision: must be "approve" or "reject", not "maybe"`),
			audit: ev("review", "carol", "skill_01", "alpha", "skver_02", v2Digest, "deny", 400, `decision: must be "approve" or "reject", not "maybe"`)},
		{name: "an unknown field", method: "POST", path: reviewPath, key: "k-carol", body: `{"decision":"approve","files":{},"approved_by":"ceo"}`, status: 400,
			want:  errorBody(400, `the body is not the JSON this route takes: json: unknown field "approved_by"`),
			audit: ev("review", "carol", "skill_01", "alpha", "skver_02", v2Digest, "deny", 400, `the body is not the JSON this route takes: json: unknown field "approved_by"`)},
		{name: "two values", method: "POST", path: reviewPath, key: "k-carol", body: `{"decision":"approve"} {}`, status: 400,
			want:  errorBody(400, "the body is not the JSON this route takes: more than one JSON value"),
			audit: ev("review", "carol", "skill_01", "alpha", "skver_02", v2Digest, "deny", 400, "the body is not the JSON this route takes: more than one JSON value")},
		{name: "an empty body", method: "POST", path: reviewPath, key: "k-carol", body: "", ctype: "application/json", status: 400,
			want:  errorBody(400, "the body is empty: send a JSON object"),
			audit: ev("review", "carol", "skill_01", "alpha", "skver_02", v2Digest, "deny", 400, "the body is empty: send a JSON object")},
		{name: "a body too large", method: "POST", path: reviewPath, key: "k-carol", body: `{"reason":"` + strings.Repeat("x", 70<<10) + `"}`, status: 413,
			want:  errorBody(413, "the body is larger than 65536 bytes"),
			audit: ev("review", "carol", "skill_01", "alpha", "skver_02", v2Digest, "deny", 413, "the body is larger than 65536 bytes")},
		{name: "a form", method: "POST", path: reviewPath, key: "k-carol", ctype: "application/x-www-form-urlencoded", body: "decision=approve", status: 400,
			want:  errorBody(400, "the body must be JSON (Content-Type: application/json), not application/x-www-form-urlencoded"),
			audit: ev("review", "carol", "skill_01", "alpha", "skver_02", v2Digest, "deny", 400, "the body must be JSON (Content-Type: application/json), not application/x-www-form-urlencoded")},
		{name: "approve without the rule", method: "POST", path: reviewPath, key: "k-bob", body: approve(v2Files), status: 403,
			want:  errorBody(403, denied("approve")),
			audit: ev("approve", "bob", "skill_01", "alpha", "skver_02", v2Digest, "deny", 403, denied("approve"))},
		{name: "approve an unknown version", method: "POST", path: "/v1/skills/skill_01/versions/skver_09/review", key: "k-carol", body: approve(v2Files), status: 404,
			want:  errorBody(404, `skill "skill_01" has no version "skver_09"`),
			audit: ev("approve", "carol", "skill_01", "alpha", "skver_09", "", "deny", 404, `skill "skill_01" has no version "skver_09"`)},
		{name: "approve a version of a hidden skill", method: "POST", path: "/v1/skills/skill_02/versions/skver_03/review", key: "k-carol", body: approve(v2Files), status: 404,
			want:  errorBody(404, `no skill "skill_02"`),
			audit: ev("review", "carol", "skill_02", "", "skver_03", "", "deny", 404, `no skill "skill_02"`)},
		{name: "a skill needing no review", method: "POST", path: "/v1/skills/skill_03/versions/skver_04/review", key: "k-carol",
			body: approve(map[string]string{"SKILL.md": fmt.Sprintf("%x", sha256.Sum256([]byte(skillMD("gamma"))))}), status: 400,
			want:  errorBody(400, `the skill "gamma" needs no review`),
			audit: ev("approve", "carol", "skill_03", "gamma", "skver_04", fx.v4.Digest, "deny", 400, `the skill "gamma" needs no review`)},
		{name: "approve without a key", method: "POST", path: reviewPath, body: approve(v2Files), status: 401,
			want:  errorBody(401, "authentication required: send a valid API key as x-api-key or as Authorization: Bearer"),
			audit: ev("review", "", "skill_01", "", "skver_02", "", "deny", 401, "authentication required: send a valid API key as x-api-key or as Authorization: Bearer")},
		{name: "GET a review", method: "GET", path: reviewPath, key: "k-carol", status: 405,
			want: errorBody(405, "method GET is not allowed here; allowed: POST"), header: map[string]string{"Allow": "POST"}},

		// The pending list.
		{name: "pending to a reviewer", method: "GET", path: "/v1/reviews/pending", key: "k-carol", status: 200,
			want: skillsapi.Page[skillsapi.Version]{Data: []skillsapi.Version{fx.v1, fx.v2}}},
		{name: "pending, paged", method: "GET", path: "/v1/reviews/pending?limit=1", key: "k-carol", status: 200,
			want: skillsapi.Page[skillsapi.Version]{Data: []skillsapi.Version{fx.v1}, NextPage: skillsapi.NextPageToken("reviews/pending", "skver_01")}},
		{name: "pending to a reader", method: "GET", path: "/v1/reviews/pending", key: "k-bob", status: 200,
			want: skillsapi.Page[skillsapi.Version]{}},
		{name: "pending without a key", method: "GET", path: "/v1/reviews/pending", status: 401,
			want: errorBody(401, "authentication required: send a valid API key as x-api-key or as Authorization: Bearer")},
		{name: "unknown review path", method: "GET", path: "/v1/reviews/done", key: "k-carol", status: 404,
			want: errorBody(404, "no such endpoint: the review API serves /v1/reviews/pending on a registry that reviews")},

		// Channels.
		{name: "no channels", method: "GET", path: "/v1/skills/skill_01/channels", key: "k-bob", status: 200, want: map[string]any{"data": []any{}}},
		{name: "channels of a hidden skill", method: "GET", path: "/v1/skills/skill_02/channels", key: "k-carol", status: 404, want: errorBody(404, `no skill "skill_02"`)},
		{name: "promote", method: "POST", path: "/v1/skills/skill_03/channels/canary", key: "k-carol", body: `{"version_id":"skver_04"}`, status: 200,
			want:  gammaCanary,
			audit: []skillsapi.AuditEvent{{Op: "promote", Subject: "carol", SkillID: "skill_03", Name: "gamma", VersionID: "skver_04", Digest: fx.v4.Digest, Channel: "canary", Decision: "allow", Status: 200}}},
		{name: "promote a pending version", method: "POST", path: "/v1/skills/skill_01/channels/stable", key: "k-carol", body: `{"version_id":"skver_02"}`, status: 409,
			want:  errorBody(409, "skver_02 is pending: only an approved version goes to a channel"),
			audit: []skillsapi.AuditEvent{{Op: "promote", Subject: "carol", SkillID: "skill_01", Name: "alpha", VersionID: "skver_02", Channel: "stable", Decision: "deny", Status: 409, Reason: "skver_02 is pending: only an approved version goes to a channel"}}},
		{name: "promote without the rule", method: "POST", path: "/v1/skills/skill_01/channels/stable", key: "k-bob", body: `{"version_id":"skver_02"}`, status: 403,
			want:  errorBody(403, denied("promote")),
			audit: []skillsapi.AuditEvent{{Op: "promote", Subject: "bob", SkillID: "skill_01", Name: "alpha", Channel: "stable", Decision: "deny", Status: 403, Reason: denied("promote")}}},
		{name: "promote no version", method: "POST", path: "/v1/skills/skill_03/channels/canary", key: "k-carol", body: `{}`, status: 400,
			want:  errorBody(400, "version_id: name the version to promote by its id"),
			audit: []skillsapi.AuditEvent{{Op: "promote", Subject: "carol", SkillID: "skill_03", Name: "gamma", Channel: "canary", Decision: "deny", Status: 400, Reason: "version_id: name the version to promote by its id"}}},
		{name: "promote in a hidden skill", method: "POST", path: "/v1/skills/skill_02/channels/canary", key: "k-carol", body: `{"version_id":"skver_03"}`, status: 404,
			want:  errorBody(404, `no skill "skill_02"`),
			audit: []skillsapi.AuditEvent{{Op: "promote", Subject: "carol", SkillID: "skill_02", Channel: "canary", Decision: "deny", Status: 404, Reason: `no skill "skill_02"`}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fx := newFixtureWith(t, needs)
			var audit []skillsapi.AuditEvent
			h := skillsapi.NewHandler(reviewer{differ{fx.reg}}, reviewOptions(&audit))
			r := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
			switch {
			case c.ctype != "":
				r.Header.Set("Content-Type", c.ctype)
			case c.body != "":
				r.Header.Set("Content-Type", "application/json")
			}
			if c.key != "" {
				r.Header.Set("Authorization", "Bearer "+c.key)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code != c.status {
				t.Errorf("status %d, want %d: %s", rec.Code, c.status, rec.Body)
			}
			for k, v := range c.header {
				if got := rec.Header().Get(k); got != v {
					t.Errorf("header %s: %q, want %q", k, got, v)
				}
			}
			var got map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatalf("answer is not JSON: %v: %s", err, rec.Body)
			}
			delete(got, "request_id")
			if d := cmp.Diff(asJSON(t, c.want), any(got)); d != "" {
				t.Errorf("answer (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.audit, audit); d != "" {
				t.Errorf("audit (-want +got):\n%s", d)
			}
		})
	}
}

// TestReviewRoutesNeedAReviewer: a Registry that is not a Reviewer
// answers the review routes as unknown paths.
func TestReviewRoutesNeedAReviewer(t *testing.T) {
	fx := newFixture(t)
	var audit []skillsapi.AuditEvent
	h := skillsapi.NewHandler(fx.reg, options(&audit))
	for _, c := range []struct{ method, path, want string }{
		{"POST", "/v1/skills/skill_01/versions/skver_02/review", "no such endpoint: the Skills API serves /v1/skills, /v1/skills/{id}, …/versions, …/versions/{version} and …/content"},
		{"GET", "/v1/skills/skill_01/channels", "no such endpoint: the Skills API serves /v1/skills, /v1/skills/{id}, …/versions, …/versions/{version} and …/content"},
		{"POST", "/v1/skills/skill_01/channels/canary", "no such endpoint: the Skills API serves /v1/skills, /v1/skills/{id}, …/versions, …/versions/{version} and …/content"},
		{"GET", "/v1/reviews/pending", "no such endpoint: the review API serves /v1/reviews/pending on a registry that reviews"},
	} {
		r := httptest.NewRequest(c.method, c.path, strings.NewReader(`{}`))
		r.Header.Set("Authorization", "Bearer k-alice")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var got map[string]any
		json.Unmarshal(rec.Body.Bytes(), &got)
		delete(got, "request_id")
		if d := cmp.Diff(errorBody(404, c.want), got); rec.Code != 404 || d != "" {
			t.Errorf("%s %s: %d (-want +got):\n%s", c.method, c.path, rec.Code, d)
		}
	}
	if len(audit) != 0 {
		t.Errorf("audited %v; an unknown path is no write", audit)
	}
}

// TestDigestSet: a version's zip read as the digest set a decision
// names; an archive that is not one folder's refused.
func TestDigestSet(t *testing.T) {
	sum := func(s string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(s))) }
	for _, c := range []struct {
		name    string
		entries []string
		want    map[string]string
		err     string
	}{
		{"files", []string{"alpha/", "", "alpha/SKILL.md", "doc", "alpha/bin/x", binary}, map[string]string{"SKILL.md": sum("doc"), "bin/x": sum(binary)}, ""},
		{"outside", []string{"alpha/SKILL.md", "doc", "beta/x", "x"}, nil, "the archive holds beta/x, outside the folder alpha"},
		{"the folder's prefix", []string{"alphabet/x", "x"}, nil, "the archive holds alphabet/x, outside the folder alpha"},
		{"twice", []string{"alpha/x", "1", "alpha/x", "2"}, nil, "the archive holds alpha/x twice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := zipOf(t, c.entries...)
			zr, err := zip.NewReader(strings.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := skillsapi.DigestSet(zr, "alpha")
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Errorf("error %v, want %s", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("digest set (-want +got):\n%s", d)
			}
		})
	}
}
