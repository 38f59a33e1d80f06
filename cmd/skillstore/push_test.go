package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/skillcheck"
	"github.com/skillstore/skillstore/skillsapi"
)

// fakeSkills is a Skills API server in memory for push and versions:
// the wire shapes are skillsapi's, the upload is read by
// skillsapi.ReadUpload and checked by skillcheck.Files, as the registry
// does. It pages lists two items at a time, whatever limit asks, so
// every listing spans pages. Tokens maps a bearer token to its subject;
// any other token, or none, is a 401.
type fakeSkills struct {
	tokens map[string]string
	mu     sync.Mutex
	skills []*fakeSkill
	clock  time.Time
	n      int
	// uploads are the files of every upload accepted, path to bytes.
	uploads []map[string]string
	// refuse, if set, answers every request (once authenticated).
	refuse *skillsapi.Error
}

type fakeSkill struct {
	skillsapi.Skill
	versions []skillsapi.Version // oldest first
}

func newFakeSkills(t *testing.T, tokens map[string]string) (*fakeSkills, string) {
	f := &fakeSkills{tokens: tokens, clock: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/skills", f.auth(f.create))
	mux.HandleFunc("GET /v1/skills", f.auth(f.list))
	mux.HandleFunc("POST /v1/skills/{id}/versions", f.auth(f.addVersion))
	mux.HandleFunc("GET /v1/skills/{id}/versions", f.auth(f.listVersions))
	mux.HandleFunc("GET /v1/skills/{id}/versions/{version}", f.auth(f.version))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return f, srv.URL
}

// auth answers 401 unless the request carries a known bearer token,
// then passes the token's subject on.
func (f *fakeSkills) auth(h func(w http.ResponseWriter, r *http.Request, by string) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(skillsapi.RequestIDHeader, "req_test")
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		by, known := f.tokens[tok]
		if !ok || !known {
			skillsapi.WriteError(w, skillsapi.Errorf(http.StatusUnauthorized, "missing or unknown token"))
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.refuse != nil {
			skillsapi.WriteError(w, f.refuse)
			return
		}
		if err := h(w, r, by); err != nil {
			skillsapi.WriteError(w, err)
		}
	}
}

// add stores a skill made of files (paths under the skill's folder),
// as created by by, and returns it with its version.
func (f *fakeSkills) add(by, display string, up []skillsapi.File) (*fakeSkill, skillsapi.Version, error) {
	sk, err := f.check(up)
	if err != nil {
		return nil, skillsapi.Version{}, err
	}
	for _, s := range f.skills {
		if s.Name == sk.Name {
			return nil, skillsapi.Version{}, &skillsapi.Error{Status: http.StatusConflict, Message: "a skill named " + sk.Name + " exists", Code: "skill_name_taken"}
		}
	}
	if display == "" {
		display = sk.Name
	}
	f.n++
	s := &fakeSkill{Skill: skillsapi.Skill{ID: fmt.Sprintf("skill_%02d", f.n), CreatedAt: f.tick(), DisplayName: display, Source: skillsapi.SourceCustom, Name: sk.Name}}
	f.skills = append(f.skills, s)
	return s, f.addTo(s, by, sk), nil
}

func (f *fakeSkills) check(up []skillsapi.File) (*skillcheck.Skill, error) {
	files := make([]skillcheck.File, len(up))
	for i, u := range up {
		files[i] = skillcheck.File{Path: u.Path, Data: u.Data}
	}
	sk, err := skillcheck.Files(files, skillcheck.Options{})
	if err != nil {
		return nil, skillsapi.Errorf(http.StatusBadRequest, "%v", err)
	}
	return sk, nil
}

func (f *fakeSkills) addTo(s *fakeSkill, by string, sk *skillcheck.Skill) skillsapi.Version {
	var list strings.Builder
	seen := map[string]string{}
	for _, file := range sk.Files { // sorted by path
		seen[sk.Name+"/"+file.Path] = string(file.Data)
		sum := sha256.Sum256(file.Data)
		fmt.Fprintf(&list, "%s  %s\n", hex.EncodeToString(sum[:]), file.Path)
	}
	digest := sha256.Sum256([]byte(list.String()))
	f.n++
	v := skillsapi.Version{ID: fmt.Sprintf("skver_%02d", f.n), SkillID: s.ID, Name: sk.Name, Description: sk.Frontmatter.Description,
		CreatedAt: f.tick(), Digest: "sha256:" + hex.EncodeToString(digest[:]), CreatedBy: by}
	s.versions = append(s.versions, v)
	f.uploads = append(f.uploads, seen)
	s.LatestVersionID, s.UpdatedAt = v.ID, v.CreatedAt
	return v
}

func (f *fakeSkills) tick() time.Time {
	f.clock = f.clock.Add(time.Minute)
	return f.clock
}

func (f *fakeSkills) create(w http.ResponseWriter, r *http.Request, by string) error {
	up, err := skillsapi.ReadUpload(r, skillsapi.Limits{})
	if err != nil {
		return err
	}
	s, _, err := f.add(by, up.DisplayName, up.Files)
	if err != nil {
		return err
	}
	skillsapi.WriteJSON(w, s.Skill)
	return nil
}

func (f *fakeSkills) find(id string) (*fakeSkill, error) {
	for _, s := range f.skills {
		if s.ID == id {
			return s, nil
		}
	}
	return nil, skillsapi.Errorf(http.StatusNotFound, "no skill %s", id)
}

func (f *fakeSkills) addVersion(w http.ResponseWriter, r *http.Request, by string) error {
	s, err := f.find(r.PathValue("id"))
	if err != nil {
		return err
	}
	up, err := skillsapi.ReadUpload(r, skillsapi.Limits{})
	if err != nil {
		return err
	}
	sk, err := f.check(up.Files)
	if err != nil {
		return err
	}
	if sk.Name != s.Name {
		return skillsapi.Errorf(http.StatusBadRequest, "the upload is skill %s, not %s", sk.Name, s.Name)
	}
	skillsapi.WriteJSON(w, f.addTo(s, by, sk))
	return nil
}

// page answers a page of items, two at most, after the one keyed after.
func page[T any](w http.ResponseWriter, r *http.Request, scope string, items []T, key func(T) string) error {
	l, err := skillsapi.ParseList(r.URL.Query(), scope)
	if err != nil {
		return err
	}
	start := 0
	if l.After != "" {
		start = slices.IndexFunc(items, func(it T) bool { return key(it) == l.After }) + 1
	}
	end := min(start+min(l.Limit, 2), len(items))
	p := skillsapi.Page[T]{Data: items[start:end]}
	if end < len(items) {
		p.NextPage = skillsapi.NextPageToken(scope, key(items[end-1]))
	}
	skillsapi.WriteJSON(w, p)
	return nil
}

func (f *fakeSkills) list(w http.ResponseWriter, r *http.Request, _ string) error {
	skills := make([]skillsapi.Skill, len(f.skills))
	for i, s := range f.skills {
		skills[i] = s.Skill
	}
	return page(w, r, "skills", skills, func(s skillsapi.Skill) string { return s.ID })
}

func (f *fakeSkills) listVersions(w http.ResponseWriter, r *http.Request, _ string) error {
	s, err := f.find(r.PathValue("id"))
	if err != nil {
		return err
	}
	vs := slices.Clone(s.versions)
	slices.Reverse(vs) // newest first
	return page(w, r, "versions/"+s.ID, vs, func(v skillsapi.Version) string { return v.ID })
}

func (f *fakeSkills) version(w http.ResponseWriter, r *http.Request, _ string) error {
	s, err := f.find(r.PathValue("id"))
	if err != nil {
		return err
	}
	want := r.PathValue("version")
	if want == "latest" {
		want = s.LatestVersionID
	}
	for _, v := range s.versions {
		if v.ID == want {
			skillsapi.WriteJSON(w, v)
			return nil
		}
	}
	return skillsapi.Errorf(http.StatusNotFound, "no version %s", want)
}

// skillFolder is a skill folder for push: a SKILL.md with a byte order
// mark and CRLF line ends, a binary file, a script in a subfolder, and
// hidden files push must leave out.
func skillFolder(name, body string) map[string][]byte {
	return map[string][]byte{
		name + "/SKILL.md":        []byte("\ufeff---\r\nname: " + name + "\r\ndescription: " + body + "\r\n---\r\n# Use it\r\n"),
		name + "/data.bin":        {0x00, 0xff, 0xfe, '\r', '\n', 0x80, 'P', 'K', 0x03, 0x04},
		name + "/scripts/run.sh":  []byte("#!/bin/sh\necho " + body + "\n"),
		name + "/.env":            []byte("SECRET=1\n"),
		name + "/.git/config":     []byte("[core]\n"),
		name + "/scripts/.cache":  []byte("x"),
		name + "/notes/empty.txt": {},
	}
}

// uploaded is what push must upload of skillFolder: every file but the
// hidden ones, under the skill's folder, bytes unchanged.
func uploaded(name, body string) map[string]string {
	out := map[string]string{}
	for p, b := range skillFolder(name, body) {
		if !strings.Contains(p, "/.") {
			out[p] = string(b)
		}
	}
	return out
}

// TestPush: push creates a skill, then adds a version to the skill of
// its name (found by its versions' name, not its display name, through
// paged lists); the files go up under the skill's folder, bytes exact,
// hidden files left out; versions lists them newest first.
func TestPush(t *testing.T) {
	const token = "tok-alice-0123456789"
	fake, url := newFakeSkills(t, map[string]string{token: "alice"})
	// A decoy whose display name is the name pushed, and more skills
	// than a page holds.
	for _, name := range []string{"decoy", "alpha", "beta"} {
		display := name
		if name == "decoy" {
			display = "my-skill"
		}
		var files []skillsapi.File
		for p, b := range skillFolder(name, "x") {
			if !strings.Contains(p, "/.") {
				files = append(files, skillsapi.File{Path: p, Data: b})
			}
		}
		if _, _, err := fake.add("bob", display, files); err != nil {
			t.Fatal(err)
		}
	}
	fake.uploads = nil
	env := []string{"SKILLSTORE_TOKEN=" + token}
	bytesOf := func(name, body string) int {
		n := 0
		for _, b := range uploaded(name, body) {
			n += len(b)
		}
		return n
	}

	first := writeFixture(t, skillFolder("my-skill", "first"))
	out, errOut, code := run(t, env, "push", filepath.Join(first, "my-skill"), url)
	fake.mu.Lock()
	want := fmt.Sprintf("created skill skill_07 (my-skill): version skver_08, %s, 4 files, %d bytes\n", fake.skills[3].versions[0].Digest, bytesOf("my-skill", "first"))
	fake.mu.Unlock()
	if code != 0 || out != want {
		t.Fatalf("first push: exit %d\n%s%s\nwant %s", code, out, errOut, want)
	}

	// The second push renames the display name away from the name, so
	// the skill is found by its versions alone; --token-file gives the token.
	fake.mu.Lock()
	fake.skills[3].DisplayName = "Mine"
	fake.mu.Unlock()
	second := writeFixture(t, skillFolder("my-skill", "second"))
	tokenFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokenFile, []byte(token+"\n"), 0o600)
	out, errOut, code = run(t, nil, "push", "--token-file", tokenFile, filepath.Join(second, "my-skill"), url)
	fake.mu.Lock()
	want = fmt.Sprintf("added version skver_09 to skill skill_07 (my-skill): %s, 4 files, %d bytes\n", fake.skills[3].versions[1].Digest, bytesOf("my-skill", "second"))
	uploads := fake.uploads
	fake.mu.Unlock()
	if code != 0 || out != want || errOut != "" {
		t.Fatalf("second push: exit %d\n%s%s\nwant %s", code, out, errOut, want)
	}
	if diff := cmp.Diff([]map[string]string{uploaded("my-skill", "first"), uploaded("my-skill", "second")}, uploads); diff != "" {
		t.Errorf("uploads (-want +got):\n%s", diff)
	}

	out, errOut, code = run(t, env, "versions", "my-skill", url+"/")
	want = "VERSION   CREATED                      DIGEST" + strings.Repeat(" ", 67) + "CREATED BY\n"
	fake.mu.Lock()
	for _, v := range slices.Backward(fake.skills[3].versions) {
		want += fmt.Sprintf("%s  %s  %s  alice\n", v.ID, v.CreatedAt.Format(skillsapi.TimeFormat), v.Digest)
	}
	fake.mu.Unlock()
	if diff := cmp.Diff(want, out); code != 0 || diff != "" {
		t.Errorf("versions: exit %d, stderr %s\nstdout (-want +got):\n%s", code, errOut, diff)
	}
}

// TestPushRefused: a refusal prints the server's error type and message,
// the token never; a 401 or 403 says which variable to set; a folder
// not named as its skill is refused before anything is sent.
func TestPushRefused(t *testing.T) {
	const token = "tok-secret-9f8e7d6c5b"
	fake, url := newFakeSkills(t, map[string]string{token: "alice"})
	dir := filepath.Join(writeFixture(t, skillFolder("my-skill", "x")), "my-skill")
	misnamed := writeFixture(t, map[string][]byte{"folder/SKILL.md": []byte("---\nname: my-skill\ndescription: x\n---\n")})
	tests := []struct {
		name   string
		refuse *skillsapi.Error
		env    []string
		args   []string
		stderr string
	}{
		{"no token", nil, nil, []string{"push", dir, url},
			"skillstore: POST /v1/skills: the server answered 401 authentication_error: missing or unknown token (request req_test)\n" +
				"skillstore: set SKILLSTORE_TOKEN (or --token-file FILE) to a token the server accepts\n"},
		{"wrong token", nil, []string{"SKILLSTORE_TOKEN=nope"}, []string{"versions", "my-skill", url},
			"skillstore: GET /v1/skills?limit=100: the server answered 401 authentication_error: missing or unknown token (request req_test)\n" +
				"skillstore: set SKILLSTORE_TOKEN (or --token-file FILE) to a token the server accepts\n"},
		{"forbidden", &skillsapi.Error{Status: http.StatusForbidden, Message: "alice may not write my-skill"}, []string{"SKILLSTORE_TOKEN=" + token}, []string{"push", dir, url},
			"skillstore: POST /v1/skills: the server answered 403 permission_error: alice may not write my-skill (request req_test)\n" +
				"skillstore: the token may not do this: set SKILLSTORE_TOKEN (or --token-file FILE) to a token allowed to\n"},
		{"message echoes the token", &skillsapi.Error{Status: http.StatusBadRequest, Message: "bad header: Bearer " + token + "\x1b[31m"}, []string{"SKILLSTORE_TOKEN=" + token}, []string{"push", dir, url},
			"skillstore: POST /v1/skills: the server answered 400 invalid_request_error: bad header: Bearer [token]\\x1b[31m (request req_test)\n"},
		{"server error", &skillsapi.Error{Status: http.StatusServiceUnavailable, Message: "the bucket is unreachable"}, []string{"SKILLSTORE_TOKEN=" + token}, []string{"push", dir, url},
			"skillstore: POST /v1/skills: the server answered 503 api_error: the bucket is unreachable (request req_test)\n"},
		{"no such skill", nil, []string{"SKILLSTORE_TOKEN=" + token}, []string{"versions", "nope", url},
			"skillstore: no skill named nope on " + url + " (or none this token may see)\n"},
		{"folder misnamed", nil, []string{"SKILLSTORE_TOKEN=" + token}, []string{"push", filepath.Join(misnamed, "folder"), url},
			"FAIL  folder\n      name: \"my-skill\" does not match the folder name \"folder\"\n      fix: rename the folder or set `name: folder`\n\n0 valid, 1 invalid\n" +
				"skillstore: some skills break the Agent Skills specification; fix them (see above)\n"},
		{"URL with /v1", nil, []string{"SKILLSTORE_TOKEN=" + token}, []string{"push", dir, url + "/v1"},
			"skillstore: URL " + url + "/v1: give the server's root URL, without /v1 (push appends /v1/skills)\n"},
		{"push one argument", nil, nil, []string{"push", dir},
			"skillstore: accepts 2 arg(s), received 1\nusage: skillstore push DIR URL [flags]\nsee 'skillstore push --help' for examples\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake.mu.Lock()
			fake.refuse = tt.refuse
			fake.mu.Unlock()
			out, errOut, code := run(t, tt.env, tt.args...)
			if code != 1 || out != "" {
				t.Errorf("exit %d, stdout %q; want 1 and nothing", code, out)
			}
			if diff := cmp.Diff(tt.stderr, errOut); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if strings.Contains(errOut, token) {
				t.Errorf("stderr shows the token: %s", errOut)
			}
		})
	}
	if len(fake.skills) != 0 {
		t.Errorf("the refusals stored %d skills", len(fake.skills))
	}
}
