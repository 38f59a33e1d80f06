package skillsapi_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/skillcheck"
	"github.com/skillstore/skillstore/skillsapi"
)

// fakeRegistry is a Registry in memory: skills oldest first, each with
// its versions oldest first and a latest pointer (the newest).
type fakeRegistry struct {
	mu       sync.Mutex
	clock    time.Time
	skillN   int
	versionN int
	order    []string // skill IDs, oldest first
	skills   map[string]*fakeSkill
	// needsReview, if set, makes the versions of the skills it names
	// pending until reviewed (reviewroutes_test.go); others published.
	needsReview func(name string) bool
	channels    map[string][]skillsapi.Channel // by skill ID
}

type fakeSkill struct {
	skill    skillsapi.Skill
	versions []fakeVersion // oldest first
}

type fakeVersion struct {
	v     skillsapi.Version
	files []skillcheck.File
}

var epoch = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// at is the time of the registry's nth write.
func at(n int) time.Time { return epoch.Add(time.Duration(n) * time.Minute) }

func newFake() *fakeRegistry { return &fakeRegistry{clock: epoch, skills: map[string]*fakeSkill{}} }

func (f *fakeRegistry) tick() time.Time {
	f.clock = f.clock.Add(time.Minute)
	return f.clock
}

// digest is the version digest as objects.go defines it.
func digest(files []skillcheck.File) string {
	var list strings.Builder
	for _, fl := range files {
		fmt.Fprintf(&list, "%x  %s\n", sha256.Sum256(fl.Data), fl.Path)
	}
	return fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(list.String())))
}

func noSkill(id string) error {
	return &skillsapi.Error{Status: 404, Message: fmt.Sprintf("no skill %q", id)}
}

// find is skill id when visible sees it.
func (f *fakeRegistry) find(id string, visible func(string) bool) (*fakeSkill, error) {
	s, ok := f.skills[id]
	if !ok || !visible(s.skill.Name) {
		return nil, noSkill(id)
	}
	return s, nil
}

func (s *fakeSkill) find(version string) (int, error) {
	if version == "latest" {
		return len(s.versions) - 1, nil
	}
	for i, v := range s.versions {
		if v.v.ID == version {
			return i, nil
		}
	}
	return 0, &skillsapi.Error{Status: 404, Message: fmt.Sprintf("skill %q has no version %q", s.skill.ID, version)}
}

func (f *fakeRegistry) addVersion(s *fakeSkill, by string, sk *skillcheck.Skill) skillsapi.Version {
	f.versionN++
	now := f.tick()
	v := skillsapi.Version{
		ID: fmt.Sprintf("skver_%02d", f.versionN), SkillID: s.skill.ID, Name: sk.Name,
		Description: sk.Frontmatter.Description, CreatedAt: now, Digest: digest(sk.Files), CreatedBy: by,
	}
	if f.needsReview != nil {
		v.Status = skillsapi.StatusPublished
		if f.needsReview(sk.Name) {
			v.Status = skillsapi.StatusPending
		}
	}
	s.versions = append(s.versions, fakeVersion{v, slices.Clone(sk.Files)})
	s.skill.UpdatedAt, s.skill.LatestVersionID = now, v.ID
	return v
}

func (f *fakeRegistry) CreateSkill(_ context.Context, by string, sk *skillcheck.Skill, displayName string) (skillsapi.Skill, skillsapi.Version, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.skills {
		if s.skill.Name == sk.Name {
			return skillsapi.Skill{}, skillsapi.Version{}, &skillsapi.Error{Status: 409, Message: fmt.Sprintf("a skill named %q exists", sk.Name), Code: "skill_name_taken"}
		}
	}
	if displayName == "" {
		displayName = sk.Frontmatter.Name
	}
	f.skillN++
	s := &fakeSkill{skill: skillsapi.Skill{
		ID: fmt.Sprintf("skill_%02d", f.skillN), CreatedAt: f.clock.Add(time.Minute),
		DisplayName: displayName, Source: skillsapi.SourceCustom, Name: sk.Name,
	}}
	v := f.addVersion(s, by, sk)
	f.skills[s.skill.ID] = s
	f.order = append(f.order, s.skill.ID)
	return s.skill, v, nil
}

func (f *fakeRegistry) CreateVersion(_ context.Context, by string, id string, sk *skillcheck.Skill, visible func(string) bool) (skillsapi.Version, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.find(id, visible)
	if err != nil {
		return skillsapi.Version{}, err
	}
	if sk.Name != s.skill.Name {
		return skillsapi.Version{}, skillsapi.Errorf(400, "the upload is the skill %q; this skill is %q", sk.Name, s.skill.Name)
	}
	return f.addVersion(s, by, sk), nil
}

func (f *fakeRegistry) Skill(_ context.Context, id string, visible func(string) bool) (skillsapi.Skill, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.find(id, visible)
	if err != nil {
		return skillsapi.Skill{}, err
	}
	return s.skill, nil
}

func (f *fakeRegistry) SkillByName(_ context.Context, name string, visible func(string) bool) (skillsapi.Skill, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.skills {
		if s.skill.Name == name && visible(name) {
			return s.skill, nil
		}
	}
	return skillsapi.Skill{}, noSkill(name)
}

func (f *fakeRegistry) Skills(_ context.Context, after string, limit int, visible func(string) bool) ([]skillsapi.Skill, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var page []skillsapi.Skill
	started := after == ""
	for _, id := range f.order {
		s := f.skills[id]
		switch {
		case !started:
			started = id == after
		case !visible(s.skill.Name):
		case len(page) == limit:
			return page, true, nil
		default:
			page = append(page, s.skill)
		}
	}
	return page, false, nil
}

func (f *fakeRegistry) Versions(_ context.Context, id, after string, limit int, visible func(string) bool) ([]skillsapi.Version, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.find(id, visible)
	if err != nil {
		return nil, false, err
	}
	var page []skillsapi.Version
	started := after == ""
	for i := len(s.versions) - 1; i >= 0; i-- {
		v := s.versions[i].v
		switch {
		case !started:
			started = v.ID == after
		case len(page) == limit:
			return page, true, nil
		default:
			page = append(page, v)
		}
	}
	return page, false, nil
}

func (f *fakeRegistry) Version(_ context.Context, id, version string, visible func(string) bool) (skillsapi.Version, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.find(id, visible)
	if err != nil {
		return skillsapi.Version{}, err
	}
	i, err := s.find(version)
	if err != nil {
		return skillsapi.Version{}, err
	}
	return s.versions[i].v, nil
}

func (f *fakeRegistry) DeleteSkill(_ context.Context, by string, id string, visible func(string) bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.find(id, visible); err != nil {
		return err
	}
	delete(f.skills, id)
	f.order = slices.DeleteFunc(f.order, func(s string) bool { return s == id })
	return nil
}

func (f *fakeRegistry) DeleteVersion(_ context.Context, by string, id, version string, visible func(string) bool) (skillsapi.Version, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.find(id, visible)
	if err != nil {
		return skillsapi.Version{}, err
	}
	i, err := s.find(version)
	if err != nil {
		return skillsapi.Version{}, err
	}
	if len(s.versions) == 1 {
		return skillsapi.Version{}, skillsapi.Errorf(409, "%s is the skill's last version: delete the skill", version)
	}
	v := s.versions[i].v
	s.versions = slices.Delete(s.versions, i, i+1)
	s.skill.UpdatedAt, s.skill.LatestVersionID = f.tick(), s.versions[len(s.versions)-1].v.ID
	return v, nil
}

func (f *fakeRegistry) WriteZip(_ context.Context, w io.Writer, id, version string, visible func(string) bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.find(id, visible)
	if err != nil {
		return err
	}
	i, err := s.find(version)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	for _, fl := range s.versions[i].files {
		fw, err := zw.Create(s.skill.Name + "/" + fl.Path)
		if err != nil {
			return err
		}
		if _, err := fw.Write(fl.Data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// skillMD is a valid SKILL.md of a name.
func skillMD(name string) string {
	return "---\nname: " + name + "\ndescription: Does " + name + " things.\n---\n# " + name + "\n"
}

// checked is files checked as the handler checks them.
func checked(t *testing.T, files ...skillcheck.File) *skillcheck.Skill {
	t.Helper()
	sk, err := skillcheck.Files(files, skillcheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

// fixture is what every case starts from, writes 1 to 5:
// skill_01 alpha (skver_01, then skver_02 by bob), skill_02
// secret-beta (skver_03: nobody sees secret-* skills), skill_03 gamma
// (skver_04 only).
type fixture struct {
	reg                    *fakeRegistry
	alpha, gamma           skillsapi.Skill
	v1, v2, v4             skillsapi.Version
	alpha1Files, alphaLast map[string]string
}

var binary = "\x00\xff\r\n\xef\xbb\xbfBOM\r\n"

func newFixture(t *testing.T) fixture { return newFixtureWith(t, nil) }

// newFixtureWith is newFixture on a registry where needsReview names the
// skills whose versions need review.
func newFixtureWith(t *testing.T, needsReview func(string) bool) fixture {
	ctx := context.Background()
	reg := newFake()
	reg.needsReview = needsReview
	var fx fixture
	fx.reg = reg
	var err error
	_, fx.v1, err = reg.CreateSkill(ctx, "alice", checked(t, skillcheck.File{Path: "alpha/SKILL.md", Data: []byte(skillMD("alpha"))}), "Alpha skill")
	if err != nil {
		t.Fatal(err)
	}
	fx.v2, err = reg.CreateVersion(ctx, "bob", "skill_01", checked(t,
		skillcheck.File{Path: "alpha/SKILL.md", Data: []byte(skillMD("alpha") + "Now with data.\r\n")},
		skillcheck.File{Path: "alpha/data.bin", Data: []byte(binary)}), everything)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err = reg.CreateSkill(ctx, "alice", checked(t, skillcheck.File{Path: "secret-beta/SKILL.md", Data: []byte(skillMD("secret-beta"))}), ""); err != nil {
		t.Fatal(err)
	}
	if fx.gamma, fx.v4, err = reg.CreateSkill(ctx, "", checked(t, skillcheck.File{Path: "gamma/SKILL.md", Data: []byte(skillMD("gamma"))}), ""); err != nil {
		t.Fatal(err)
	}
	if fx.alpha, err = reg.Skill(ctx, "skill_01", everything); err != nil {
		t.Fatal(err)
	}
	fx.alpha1Files = map[string]string{"alpha/SKILL.md": skillMD("alpha")}
	fx.alphaLast = map[string]string{"alpha/SKILL.md": skillMD("alpha") + "Now with data.\r\n", "alpha/data.bin": binary}
	return fx
}

func everything(string) bool { return true }

// The site around the handler, as the tests play it: keys name
// principals, bob may not write, nobody sees secret-* skills.
var keys = map[string]string{"k-alice": "alice", "k-bob": "bob", "k-carol": "carol"}

func principal(r *http.Request) (string, bool) {
	key := r.Header.Get("x-api-key")
	if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		key = bearer
	}
	subject, ok := keys[key]
	return subject, ok
}

func options(audit *[]skillsapi.AuditEvent) skillsapi.HandlerOptions {
	return skillsapi.HandlerOptions{
		Limits:    skillsapi.Limits{MaxBytes: 64 << 10},
		Principal: principal,
		CanWrite: func(r *http.Request, op, name string) (bool, string) {
			if subject, _ := principal(r); subject == "bob" {
				return false, "the skills:write scope"
			}
			return true, ""
		},
		Visible: func(*http.Request) func(string) bool {
			return func(name string) bool { return !strings.HasPrefix(name, "secret-") }
		},
		Audit: func(_ *http.Request, e skillsapi.AuditEvent) { *audit = append(*audit, e) },
	}
}

// zipOf is a zip archive of name, content pairs.
func zipOf(t *testing.T, entries ...string) string {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for i := 0; i < len(entries); i += 2 {
		w, err := zw.Create(entries[i])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(entries[i+1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// unzip is an archive's files by name.
func unzip(t *testing.T, b []byte) map[string]string {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name] = string(data)
	}
	return files
}

// errorBody is the error body expected, request_id aside.
func errorBody(status int, message string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": skillsapi.ErrorType(status), "message": message}}
}

// asJSON is v as a generic JSON value, to compare with an answer.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHandler drives every route: success shapes, refusals, and the
// audit events of writes.
func TestHandler(t *testing.T) {
	my := func(extra ...string) string {
		parts := []part{file("my-skill/SKILL.md", skillMD("my-skill")), file("my-skill/scripts/run.sh", "#!/bin/sh\r\necho hi\n")}
		for i := 0; i < len(extra); i += 2 {
			parts = append(parts, file(extra[i], extra[i+1]))
		}
		return body(parts...)
	}
	myFiles := []skillcheck.File{
		{Path: "SKILL.md", Data: []byte(skillMD("my-skill"))},
		{Path: "scripts/run.sh", Data: []byte("#!/bin/sh\r\necho hi\n")},
	}
	alphaV3 := []skillcheck.File{{Path: "SKILL.md", Data: []byte(skillMD("alpha"))}, {Path: "data.bin", Data: []byte(binary)}}
	zipped := zipOf(t, "my-skill/", "", "my-skill/SKILL.md", skillMD("my-skill"), "my-skill/scripts/run.sh", "#!/bin/sh\r\necho hi\n")
	fx := newFixture(t) // for the expected objects: every case starts from a copy
	mySkill := skillsapi.Skill{ID: "skill_04", CreatedAt: at(5), UpdatedAt: at(5), DisplayName: "My Skill", LatestVersionID: "skver_05", Source: "custom"}
	named := mySkill
	named.DisplayName = "my-skill"
	notFound := func(id string) map[string]any { return errorBody(404, fmt.Sprintf("no skill %q", id)) }
	unauthenticated := errorBody(401, "authentication required: send a valid API key as x-api-key or as Authorization: Bearer")
	deny := func(op, subject, id, name, version string, status int, reason string) []skillsapi.AuditEvent {
		return []skillsapi.AuditEvent{{Op: op, Subject: subject, SkillID: id, Name: name, VersionID: version, Decision: "deny", Reason: reason, Status: status}}
	}
	checkRefused := func(reason string) []skillsapi.AuditEvent {
		return deny(skillsapi.OpCreate, "alice", "", "", "", 400, reason)
	}

	for _, c := range []struct {
		name         string
		method, path string
		key          string // sent as Authorization: Bearer; "x:KEY" as x-api-key
		body         string // a multipart body, boundary B
		huge         bool   // a Content-Length over the limit, and a body that must not be read
		status       int
		want         any               // the JSON answer (request_id aside), or the zip's files
		header       map[string]string // headers the answer must carry
		audit        []skillsapi.AuditEvent
		stored       map[string]string // the latest files of skill_01 after the case, if set
	}{
		// Reads.
		{name: "list skills", method: "GET", path: "/v1/skills", key: "k-alice", status: 200,
			want:   skillsapi.Page[skillsapi.Skill]{Data: []skillsapi.Skill{fx.alpha, fx.gamma}},
			header: map[string]string{"Content-Type": "application/json"}},
		{name: "list skills with x-api-key and unknown parameters", method: "GET", path: "/v1/skills?beta=true&source=custom", key: "x:k-bob", status: 200,
			want: skillsapi.Page[skillsapi.Skill]{Data: []skillsapi.Skill{fx.alpha, fx.gamma}}},
		{name: "bad limit", method: "GET", path: "/v1/skills?limit=0", key: "k-alice", status: 400,
			want: errorBody(400, "limit: must be an integer from 1 to 1000")},
		{name: "page token of another list", method: "GET", path: "/v1/skills?page=" + skillsapi.NextPageToken("versions/skill_01", "skver_02"), key: "k-alice", status: 400,
			want: errorBody(400, "page: not a page token of this list; pass next_page from the previous answer")},
		{name: "no key", method: "GET", path: "/v1/skills", status: 401, want: unauthenticated},
		{name: "unknown key", method: "GET", path: "/v1/skills/skill_01", key: "k-mallory", status: 401, want: unauthenticated},
		{name: "get skill", method: "GET", path: "/v1/skills/skill_01", key: "k-alice", status: 200, want: fx.alpha},
		{name: "get unknown skill", method: "GET", path: "/v1/skills/skill_99", key: "k-alice", status: 404, want: notFound("skill_99")},
		{name: "get hidden skill", method: "GET", path: "/v1/skills/skill_02", key: "k-alice", status: 404, want: notFound("skill_02")},
		{name: "list versions, newest first", method: "GET", path: "/v1/skills/skill_01/versions", key: "k-alice", status: 200,
			want: skillsapi.Page[skillsapi.Version]{Data: []skillsapi.Version{fx.v2, fx.v1}}},
		{name: "list versions of a hidden skill", method: "GET", path: "/v1/skills/skill_02/versions", key: "k-alice", status: 404, want: notFound("skill_02")},
		{name: "get version", method: "GET", path: "/v1/skills/skill_01/versions/skver_01", key: "k-alice", status: 200, want: fx.v1},
		{name: "get latest", method: "GET", path: "/v1/skills/skill_01/versions/latest", key: "k-alice", status: 200, want: fx.v2},
		{name: "get unknown version", method: "GET", path: "/v1/skills/skill_01/versions/skver_04", key: "k-alice", status: 404,
			want: errorBody(404, `skill "skill_01" has no version "skver_04"`)},
		{name: "get version of a hidden skill", method: "GET", path: "/v1/skills/skill_02/versions/skver_03", key: "k-alice", status: 404, want: notFound("skill_02")},
		{name: "download latest", method: "GET", path: "/v1/skills/skill_01/versions/latest/content", key: "k-alice", status: 200, want: fx.alphaLast,
			header: map[string]string{"Content-Type": "application/zip", "Content-Disposition": `attachment; filename="alpha.zip"`}},
		{name: "download a version", method: "GET", path: "/v1/skills/skill_01/versions/skver_01/content", key: "k-alice", status: 200, want: fx.alpha1Files},
		{name: "download from a hidden skill", method: "GET", path: "/v1/skills/skill_02/versions/skver_03/content", key: "k-alice", status: 404, want: notFound("skill_02")},
		{name: "download an unknown version", method: "GET", path: "/v1/skills/skill_01/versions/skver_09/content", key: "k-alice", status: 404,
			want: errorBody(404, `skill "skill_01" has no version "skver_09"`)},
		{name: "download without a key", method: "GET", path: "/v1/skills/skill_01/versions/latest/content", status: 401, want: unauthenticated},

		// Routes and methods.
		{name: "PUT on the list", method: "PUT", path: "/v1/skills", key: "k-alice", status: 405,
			want: errorBody(405, "method PUT is not allowed here; allowed: GET, HEAD, POST"), header: map[string]string{"Allow": "GET, HEAD, POST"}},
		{name: "PATCH on a skill", method: "PATCH", path: "/v1/skills/skill_01", key: "k-alice", status: 405,
			want: errorBody(405, "method PATCH is not allowed here; allowed: GET, HEAD, DELETE"), header: map[string]string{"Allow": "GET, HEAD, DELETE"}},
		{name: "DELETE on versions", method: "DELETE", path: "/v1/skills/skill_01/versions", status: 405,
			want: errorBody(405, "method DELETE is not allowed here; allowed: GET, HEAD, POST"), header: map[string]string{"Allow": "GET, HEAD, POST"}},
		{name: "POST on a version", method: "POST", path: "/v1/skills/skill_01/versions/skver_01", status: 405,
			want: errorBody(405, "method POST is not allowed here; allowed: GET, HEAD, DELETE"), header: map[string]string{"Allow": "GET, HEAD, DELETE"}},
		{name: "DELETE on content", method: "DELETE", path: "/v1/skills/skill_01/versions/skver_01/content", status: 405,
			want: errorBody(405, "method DELETE is not allowed here; allowed: GET, HEAD"), header: map[string]string{"Allow": "GET, HEAD"}},
		{name: "unknown route", method: "GET", path: "/v1/skills/skill_01/files", key: "k-alice", status: 404,
			want: errorBody(404, "no such endpoint: the Skills API serves /v1/skills, /v1/skills/{id}, …/versions, …/versions/{version} and …/content")},

		// Create.
		{name: "create", method: "POST", path: "/v1/skills", key: "k-alice", status: 200, want: mySkill,
			body:  body(file("my-skill/SKILL.md", skillMD("my-skill")), raw(`form-data; name="display_name"`, "My Skill"), file("my-skill/scripts/run.sh", "#!/bin/sh\r\necho hi\n")),
			audit: []skillsapi.AuditEvent{{Op: "create", Subject: "alice", SkillID: "skill_04", Name: "my-skill", VersionID: "skver_05", Digest: digest(myFiles), Decision: "allow", Status: 200}}},
		{name: "create, display name from the frontmatter", method: "POST", path: "/v1/skills", key: "k-alice",
			body: body(file("my-skill/SKILL.md", skillMD("my-skill")), file("my-skill/scripts/run.sh", "#!/bin/sh\r\necho hi\n")), status: 200, want: named,
			audit: []skillsapi.AuditEvent{{Op: "create", Subject: "alice", SkillID: "skill_04", Name: "my-skill", VersionID: "skver_05", Digest: digest(myFiles), Decision: "allow", Status: 200}}},
		{name: "create from a zip", method: "POST", path: "/v1/skills", key: "x:k-alice",
			body: body(raw(`form-data; name="display_name"`, "My Skill"), file("my-skill.zip", zipped)), status: 200, want: mySkill,
			audit: []skillsapi.AuditEvent{{Op: "create", Subject: "alice", SkillID: "skill_04", Name: "my-skill", VersionID: "skver_05", Digest: digest(myFiles), Decision: "allow", Status: 200}}},
		{name: "create a taken name", method: "POST", path: "/v1/skills", key: "k-alice", body: body(file("alpha/SKILL.md", skillMD("alpha"))), status: 409,
			want:   map[string]any{"type": "error", "error": map[string]any{"type": "conflict_error", "message": `a skill named "alpha" exists`, "details": map[string]any{"error_code": "skill_name_taken"}}},
			header: map[string]string{"x-should-retry": "false"},
			audit:  deny("create", "alice", "", "alpha", "", 409, `a skill named "alpha" exists`)},
		{name: "create a hidden name", method: "POST", path: "/v1/skills", key: "k-alice", body: body(file("secret-beta/SKILL.md", skillMD("secret-beta"))), status: 403,
			want:  errorBody(403, `permission denied: you may not create the skill "secret-beta": the name is outside the skills you may see`),
			audit: deny("create", "alice", "", "secret-beta", "", 403, `permission denied: you may not create the skill "secret-beta": the name is outside the skills you may see`)},
		{name: "create a free name outside the view", method: "POST", path: "/v1/skills", key: "k-alice", body: body(file("secret-new/SKILL.md", skillMD("secret-new"))), status: 403,
			want:  errorBody(403, `permission denied: you may not create the skill "secret-new": the name is outside the skills you may see`),
			audit: deny("create", "alice", "", "secret-new", "", 403, `permission denied: you may not create the skill "secret-new": the name is outside the skills you may see`)},
		{name: "create without write permission", method: "POST", path: "/v1/skills", key: "k-bob", body: my(), status: 403,
			want:  errorBody(403, `permission denied: you may not create the skill "my-skill": the skills:write scope`),
			audit: deny("create", "bob", "", "my-skill", "", 403, `permission denied: you may not create the skill "my-skill": the skills:write scope`)},
		{name: "create without a key", method: "POST", path: "/v1/skills", body: my(), status: 401, want: unauthenticated,
			audit: deny("create", "", "", "", "", 401, "authentication required: send a valid API key as x-api-key or as Authorization: Bearer")},
		{name: "create too large", method: "POST", path: "/v1/skills", key: "k-alice", huge: true, status: 413,
			want: errorBody(413, "the body is larger than 65536 bytes"), header: map[string]string{"Connection": "close"},
			audit: deny("create", "alice", "", "", "", 413, "the body is larger than 65536 bytes")},
		{name: "create hidden text", method: "POST", path: "/v1/skills", key: "k-alice",
			body: body(file("my-skill/SKILL.md", skillMD("my-skill")+"Then \U000E0041\U000E0042.\n")), status: 400,
			want:  errorBody(400, "hidden-text: my-skill/SKILL.md: holds text a person cannot see (tag-characters at line 6, column 6); remove it, or ask the operator to accept hidden text"),
			audit: checkRefused("hidden-text: my-skill/SKILL.md: holds text a person cannot see (tag-characters at line 6, column 6); remove it, or ask the operator to accept hidden text")},
		{name: "create with a .. path", method: "POST", path: "/v1/skills", key: "k-alice", body: my("my-skill/../x", "x"), status: 400,
			want:  errorBody(400, `part 3 (files[]): path-escapes: filename "my-skill/../x" has a .. element`),
			audit: checkRefused(`part 3 (files[]): path-escapes: filename "my-skill/../x" has a .. element`)},
		{name: "create two top folders", method: "POST", path: "/v1/skills", key: "k-alice", body: my("other/x.md", "x"), status: 400,
			want:  errorBody(400, `one-top-folder: other/x.md: is outside the top folder "my-skill": an upload is one folder`),
			audit: checkRefused(`one-top-folder: other/x.md: is outside the top folder "my-skill": an upload is one folder`)},
		{name: "create without SKILL.md", method: "POST", path: "/v1/skills", key: "k-alice", body: body(file("my-skill/README.md", "# hi\n")), status: 400,
			want:  errorBody(400, "no-skill-md: my-skill/SKILL.md: is missing: the top folder must hold the skill's document"),
			audit: checkRefused("no-skill-md: my-skill/SKILL.md: is missing: the top folder must hold the skill's document")},
		{name: "create from a zip with a traversal name", method: "POST", path: "/v1/skills", key: "k-alice",
			body: body(file("my-skill.zip", zipOf(t, "my-skill/SKILL.md", skillMD("my-skill"), "my-skill/../../evil.sh", "x"))), status: 400,
			want:  errorBody(400, `path-escapes: my-skill/../../evil.sh: leaves the skill's folder ("..")`),
			audit: checkRefused(`path-escapes: my-skill/../../evil.sh: leaves the skill's folder ("..")`)},
		{name: "create from a zip that is none", method: "POST", path: "/v1/skills", key: "k-alice", body: body(file("my-skill.zip", "PK not really")), status: 400,
			want:  errorBody(400, "not-a-zip: the body is not a readable zip archive"),
			audit: checkRefused("not-a-zip: the body is not a readable zip archive")},

		// Versions.
		{name: "create version", method: "POST", path: "/v1/skills/skill_01/versions", key: "k-alice",
			body: body(file("alpha/SKILL.md", skillMD("alpha")), file("alpha/data.bin", binary)), status: 200,
			want:   skillsapi.Version{ID: "skver_05", SkillID: "skill_01", Name: "alpha", Description: "Does alpha things.", CreatedAt: at(5), Digest: digest(alphaV3), CreatedBy: "alice"},
			audit:  []skillsapi.AuditEvent{{Op: "version", Subject: "alice", SkillID: "skill_01", Name: "alpha", VersionID: "skver_05", Digest: digest(alphaV3), Decision: "allow", Status: 200}},
			stored: map[string]string{"alpha/SKILL.md": skillMD("alpha"), "alpha/data.bin": binary}},
		{name: "create version from a zip", method: "POST", path: "/v1/skills/skill_01/versions", key: "k-alice",
			body: body(file("alpha.ZIP", zipOf(t, "alpha/SKILL.md", skillMD("alpha"), "alpha/data.bin", binary))), status: 200,
			want:   skillsapi.Version{ID: "skver_05", SkillID: "skill_01", Name: "alpha", Description: "Does alpha things.", CreatedAt: at(5), Digest: digest(alphaV3), CreatedBy: "alice"},
			audit:  []skillsapi.AuditEvent{{Op: "version", Subject: "alice", SkillID: "skill_01", Name: "alpha", VersionID: "skver_05", Digest: digest(alphaV3), Decision: "allow", Status: 200}},
			stored: map[string]string{"alpha/SKILL.md": skillMD("alpha"), "alpha/data.bin": binary}},
		{name: "create version of another name", method: "POST", path: "/v1/skills/skill_01/versions", key: "k-alice", body: my(), status: 400,
			want:   errorBody(400, `the upload is the skill "my-skill"; this skill is "alpha"`),
			audit:  deny("version", "alice", "skill_01", "alpha", "", 400, `the upload is the skill "my-skill"; this skill is "alpha"`),
			stored: fx.alphaLast},
		{name: "create version of a hidden skill", method: "POST", path: "/v1/skills/skill_02/versions", key: "k-alice",
			body: body(file("secret-beta/SKILL.md", skillMD("secret-beta"))), status: 404, want: notFound("skill_02"),
			audit: deny("version", "alice", "skill_02", "", "", 404, `no skill "skill_02"`)},
		{name: "create version of an unknown skill", method: "POST", path: "/v1/skills/skill_99/versions", key: "k-alice", body: my(), status: 404, want: notFound("skill_99"),
			audit: deny("version", "alice", "skill_99", "", "", 404, `no skill "skill_99"`)},
		{name: "create version without write permission", method: "POST", path: "/v1/skills/skill_01/versions", key: "k-bob",
			body: body(file("alpha/SKILL.md", skillMD("alpha"))), status: 403,
			want:  errorBody(403, `permission denied: you may not add a version to the skill "alpha": the skills:write scope`),
			audit: deny("version", "bob", "skill_01", "alpha", "", 403, `permission denied: you may not add a version to the skill "alpha": the skills:write scope`)},
		{name: "create version too large", method: "POST", path: "/v1/skills/skill_01/versions", key: "k-alice", huge: true, status: 413,
			want:  errorBody(413, "the body is larger than 65536 bytes"),
			audit: deny("version", "alice", "skill_01", "alpha", "", 413, "the body is larger than 65536 bytes")},
		{name: "create version hidden text in a name", method: "POST", path: "/v1/skills/skill_01/versions", key: "k-alice",
			body: body(file("alpha/SKILL.md", skillMD("alpha")), file("alpha/a\U000E0041.md", "x")), status: 400,
			want:  errorBody(400, `hidden-text: alpha/a\U000E0041.md: holds text a person cannot see (tag-characters in its name at column 2); remove it, or ask the operator to accept hidden text`),
			audit: deny("version", "alice", "skill_01", "alpha", "", 400, `hidden-text: alpha/a\U000E0041.md: holds text a person cannot see (tag-characters in its name at column 2); remove it, or ask the operator to accept hidden text`)},

		// Deletes.
		{name: "delete skill", method: "DELETE", path: "/v1/skills/skill_01", key: "k-alice", status: 200,
			want:  map[string]any{"id": "skill_01", "type": "skill_deleted"},
			audit: []skillsapi.AuditEvent{{Op: "delete", Subject: "alice", SkillID: "skill_01", Name: "alpha", Decision: "allow", Status: 200}}},
		{name: "delete hidden skill", method: "DELETE", path: "/v1/skills/skill_02", key: "k-alice", status: 404, want: notFound("skill_02"),
			audit: deny("delete", "alice", "skill_02", "", "", 404, `no skill "skill_02"`)},
		{name: "delete skill without write permission", method: "DELETE", path: "/v1/skills/skill_01", key: "k-bob", status: 403,
			want:   errorBody(403, `permission denied: you may not delete from the skill "alpha": the skills:write scope`),
			audit:  deny("delete", "bob", "skill_01", "alpha", "", 403, `permission denied: you may not delete from the skill "alpha": the skills:write scope`),
			stored: fx.alphaLast},
		{name: "delete version", method: "DELETE", path: "/v1/skills/skill_01/versions/skver_02", key: "k-alice", status: 200,
			want:   map[string]any{"id": "skver_02", "type": "skill_version_deleted"},
			audit:  []skillsapi.AuditEvent{{Op: "delete", Subject: "alice", SkillID: "skill_01", Name: "alpha", VersionID: "skver_02", Digest: fx.v2.Digest, Decision: "allow", Status: 200}},
			stored: fx.alpha1Files},
		{name: "delete latest", method: "DELETE", path: "/v1/skills/skill_01/versions/latest", key: "k-alice", status: 400,
			want:   errorBody(400, `version: name the version by its id; "latest" is only for reading`),
			audit:  deny("delete", "alice", "skill_01", "", "latest", 400, `version: name the version by its id; "latest" is only for reading`),
			stored: fx.alphaLast},
		{name: "delete the last version", method: "DELETE", path: "/v1/skills/skill_03/versions/skver_04", key: "k-alice", status: 409,
			want:  errorBody(409, "skver_04 is the skill's last version: delete the skill"),
			audit: deny("delete", "alice", "skill_03", "gamma", "skver_04", 409, "skver_04 is the skill's last version: delete the skill")},
		{name: "delete version of a hidden skill", method: "DELETE", path: "/v1/skills/skill_02/versions/skver_03", key: "k-alice", status: 404, want: notFound("skill_02"),
			audit: deny("delete", "alice", "skill_02", "", "skver_03", 404, `no skill "skill_02"`)},
		{name: "delete version without a key", method: "DELETE", path: "/v1/skills/skill_01/versions/skver_01", status: 401, want: unauthenticated,
			audit: deny("delete", "", "skill_01", "", "skver_01", 401, "authentication required: send a valid API key as x-api-key or as Authorization: Bearer")},
	} {
		t.Run(c.name, func(t *testing.T) {
			fx := newFixture(t)
			var audit []skillsapi.AuditEvent
			h := skillsapi.NewHandler(fx.reg, options(&audit))
			var r *http.Request
			if c.huge {
				r = httptest.NewRequest(c.method, c.path, untouchable{t})
				r.ContentLength = 1 << 20
			} else {
				r = httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
			}
			if c.body != "" || c.huge {
				r.Header.Set("Content-Type", formB)
			}
			if key, ok := strings.CutPrefix(c.key, "x:"); ok {
				r.Header.Set("x-api-key", key)
			} else if c.key != "" {
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
			if rec.Header().Get("request-id") == "" {
				t.Error("no request-id header")
			}
			if files, ok := c.want.(map[string]string); ok {
				if d := cmp.Diff(files, unzip(t, rec.Body.Bytes())); d != "" {
					t.Errorf("zip (-want +got):\n%s", d)
				}
			} else {
				var got map[string]any
				if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
					t.Fatalf("answer is not JSON: %v: %s", err, rec.Body)
				}
				if rec.Code >= 400 {
					if got["request_id"] != rec.Header().Get("request-id") {
						t.Errorf("request_id %v, header %q", got["request_id"], rec.Header().Get("request-id"))
					}
					delete(got, "request_id")
				}
				if d := cmp.Diff(asJSON(t, c.want), any(got)); d != "" {
					t.Errorf("answer (-want +got):\n%s", d)
				}
			}
			if d := cmp.Diff(c.audit, audit); d != "" {
				t.Errorf("audit (-want +got):\n%s", d)
			}
			if c.stored != nil {
				var b bytes.Buffer
				if err := fx.reg.WriteZip(context.Background(), &b, "skill_01", "latest", everything); err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(c.stored, unzip(t, b.Bytes())); d != "" {
					t.Errorf("skill_01's latest files (-want +got):\n%s", d)
				}
			}
		})
	}
}

// TestHiddenIsUnknown: on every route naming a skill, a skill the caller
// may not see answers exactly as one that does not exist, headers and
// body alike (the request-id aside).
func TestHiddenIsUnknown(t *testing.T) {
	up := body(file("secret-beta/SKILL.md", skillMD("secret-beta")))
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/v1/skills/skill_02", ""},
		{"DELETE", "/v1/skills/skill_02", ""},
		{"GET", "/v1/skills/skill_02/versions", ""},
		{"POST", "/v1/skills/skill_02/versions", up},
		{"GET", "/v1/skills/skill_02/versions/skver_03", ""},
		{"GET", "/v1/skills/skill_02/versions/latest", ""},
		{"DELETE", "/v1/skills/skill_02/versions/skver_03", ""},
		{"GET", "/v1/skills/skill_02/versions/skver_03/content", ""},
		{"POST", "/v1/skills/skill_02/versions/skver_03/review", `{"decision":"approve","files":{"SKILL.md":"00"}}`},
		{"GET", "/v1/skills/skill_02/channels", ""},
		{"POST", "/v1/skills/skill_02/channels/canary", `{"version_id":"skver_03"}`},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			answer := func(gone bool) (int, http.Header, map[string]any) {
				fx := newFixture(t)
				if gone {
					if err := fx.reg.DeleteSkill(context.Background(), "", "skill_02", everything); err != nil {
						t.Fatal(err)
					}
				}
				var audit []skillsapi.AuditEvent
				r := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
				r.Header.Set("Content-Type", formB)
				r.Header.Set("x-api-key", "k-alice")
				rec := httptest.NewRecorder()
				skillsapi.NewHandler(reviewer{differ{fx.reg}}, options(&audit)).ServeHTTP(rec, r) // every route
				var got map[string]any
				if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
					t.Fatalf("answer is not JSON: %v: %s", err, rec.Body)
				}
				delete(got, "request_id")
				rec.Header().Del("request-id")
				return rec.Code, rec.Header(), got
			}
			hiddenCode, hiddenHeader, hiddenBody := answer(false)
			goneCode, goneHeader, goneBody := answer(true)
			if hiddenCode != 404 || goneCode != 404 {
				t.Errorf("status %d hidden, %d unknown; want 404 both", hiddenCode, goneCode)
			}
			if d := cmp.Diff(goneHeader, hiddenHeader); d != "" {
				t.Errorf("headers (-unknown +hidden):\n%s", d)
			}
			if d := cmp.Diff(goneBody, hiddenBody); d != "" {
				t.Errorf("body (-unknown +hidden):\n%s", d)
			}
		})
	}
}

// TestPaging: following next_page walks every item once and ends on
// next_page null, for skills (oldest first) and versions (newest first).
func TestPaging(t *testing.T) {
	ctx := context.Background()
	reg := newFake()
	var wantSkills []string
	for i := range 5 {
		name := fmt.Sprintf("s%d", i)
		s, _, err := reg.CreateSkill(ctx, "", checked(t, skillcheck.File{Path: name + "/SKILL.md", Data: []byte(skillMD(name))}), "")
		if err != nil {
			t.Fatal(err)
		}
		wantSkills = append(wantSkills, s.ID)
	}
	wantVersions := []string{}
	for range 4 {
		v, err := reg.CreateVersion(ctx, "", "skill_01", checked(t, skillcheck.File{Path: "s0/SKILL.md", Data: []byte(skillMD("s0"))}), everything)
		if err != nil {
			t.Fatal(err)
		}
		wantVersions = append([]string{v.ID}, wantVersions...)
	}
	wantVersions = append(wantVersions, "skver_01")
	h := skillsapi.NewHandler(reg, skillsapi.HandlerOptions{})
	walk := func(path string) (ids []string, pages []bool) {
		page := ""
		for range 10 {
			url := path + "?limit=2"
			if page != "" {
				url += "&page=" + page
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", url, nil))
			var got struct {
				Data []struct {
					ID string `json:"id"`
				} `json:"data"`
				HasMore  bool    `json:"has_more"`
				NextPage *string `json:"next_page"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &got); rec.Code != 200 || err != nil {
				t.Fatalf("GET %s: %d %s", url, rec.Code, rec.Body)
			}
			for _, d := range got.Data {
				ids = append(ids, d.ID)
			}
			pages = append(pages, got.HasMore)
			if got.HasMore != (got.NextPage != nil) {
				t.Errorf("GET %s: has_more %v, next_page %v", url, got.HasMore, got.NextPage)
			}
			if got.NextPage == nil {
				return ids, pages
			}
			page = *got.NextPage
		}
		t.Fatalf("%s: no last page after 10 pages", path)
		return nil, nil
	}
	for _, c := range []struct {
		path string
		want []string
	}{
		{"/v1/skills", wantSkills},
		{"/v1/skills/skill_01/versions", wantVersions},
	} {
		ids, pages := walk(c.path)
		if d := cmp.Diff(c.want, ids); d != "" {
			t.Errorf("%s: items (-want +got):\n%s", c.path, d)
		}
		if d := cmp.Diff([]bool{true, true, false}, pages); d != "" {
			t.Errorf("%s: has_more of each page (-want +got):\n%s", c.path, d)
		}
	}
}

// TestNilOptions: the zero options serve everything to everyone; the
// anonymous subject uploads.
func TestNilOptions(t *testing.T) {
	reg := newFake()
	h := skillsapi.NewHandler(reg, skillsapi.HandlerOptions{})
	r := httptest.NewRequest("POST", "/v1/skills", strings.NewReader(body(file("secret-x/SKILL.md", skillMD("secret-x")))))
	r.Header.Set("Content-Type", formB)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	if rec.Code != 200 {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	v, err := reg.Version(context.Background(), "skill_01", "latest", everything)
	if err != nil || v.CreatedBy != "" {
		t.Errorf("version %+v, %v; want one by the anonymous subject", v, err)
	}
}

// TestVisibleNil: a view function returning nil shows nothing.
func TestVisibleNil(t *testing.T) {
	fx := newFixture(t)
	h := skillsapi.NewHandler(fx.reg, skillsapi.HandlerOptions{Visible: func(*http.Request) func(string) bool { return nil }})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/skills/skill_01", nil))
	if rec.Code != 404 {
		t.Errorf("status %d, want 404", rec.Code)
	}
}

// brokenZip is a registry whose WriteZip fails, before or after
// writing, or (silent) writes nothing and succeeds.
type brokenZip struct {
	*fakeRegistry
	after, silent bool
}

func (b brokenZip) WriteZip(ctx context.Context, w io.Writer, id, version string, visible func(string) bool) error {
	if b.silent {
		return nil
	}
	if b.after {
		w.Write([]byte("PK\x03\x04"))
	}
	return errors.New("read /var/lib/registry/blob: input/output error")
}

// TestContentFailure: a zip that fails before its first byte is an
// error answer without the error's text; one that fails after aborts
// the answer; one of no bytes is still a zip answer.
func TestContentFailure(t *testing.T) {
	fx := newFixture(t)
	const url = "/v1/skills/skill_01/versions/latest/content"
	rec := httptest.NewRecorder()
	skillsapi.NewHandler(brokenZip{fx.reg, false, false}, skillsapi.HandlerOptions{}).ServeHTTP(rec, httptest.NewRequest("GET", url, nil))
	if rec.Code != 500 || rec.Header().Get("Content-Type") != "application/json" || rec.Header().Get("Content-Disposition") != "" || strings.Contains(rec.Body.String(), "/var/lib") {
		t.Errorf("failed before writing: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}

	rec = httptest.NewRecorder()
	skillsapi.NewHandler(brokenZip{fx.reg, false, true}, skillsapi.HandlerOptions{}).ServeHTTP(rec, httptest.NewRequest("GET", url, nil))
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/zip" || rec.Body.Len() != 0 {
		t.Errorf("wrote nothing: %d %v %q", rec.Code, rec.Header(), rec.Body)
	}

	defer func() {
		if p := recover(); p != http.ErrAbortHandler {
			t.Errorf("failed mid-archive: recovered %v, want http.ErrAbortHandler", p)
		}
	}()
	skillsapi.NewHandler(brokenZip{fx.reg, true, false}, skillsapi.HandlerOptions{}).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", url, nil))
}
