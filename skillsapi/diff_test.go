package skillsapi_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/skillcheck"
	"github.com/skillstore/skillstore/skilldiff"
	"github.com/skillstore/skillstore/skillsapi"
)

// differ is the fake registry with Diff, by skilldiff.Compute over its
// versions' files.
type differ struct{ *fakeRegistry }

func (d differ) Diff(ctx context.Context, id, from, to string, visible func(string) bool) (*skilldiff.Diff, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s, err := d.find(id, visible)
	if err != nil {
		return nil, err
	}
	j, err := s.find(to)
	if err != nil {
		return nil, err
	}
	i := j - 1
	if from != "" {
		if i, err = s.find(from); err != nil {
			return nil, err
		}
	}
	var sides [2][]skillcheck.File
	if i >= 0 {
		sides[0] = s.versions[i].files
	}
	sides[1] = s.versions[j].files
	var lists [2][]skilldiff.File
	for k, files := range sides {
		for _, f := range files {
			sum := sha256.Sum256(f.Data)
			lists[k] = append(lists[k], skilldiff.File{Path: f.Path, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(f.Data))})
		}
	}
	read := func(_ context.Context, side int, p string) ([]byte, error) {
		for _, f := range sides[side] {
			if f.Path == p {
				return f.Data, nil
			}
		}
		return nil, nil
	}
	out, err := skilldiff.Compute(ctx, lists[0], lists[1], read, skilldiff.Options{})
	if err == nil {
		out.To = s.versions[j].v.ID
		if i >= 0 {
			out.From = s.versions[i].v.ID
		}
	}
	return out, err
}

func TestDiffRoute(t *testing.T) {
	skillDiff := "--- a/SKILL.md\n+++ b/SKILL.md\n@@ -3,3 +3,4 @@\n description: Does alpha things.\n ---\n # alpha\n+Now with data.\r\n"
	unified := skillDiff + "Binary files /dev/null and b/data.bin differ\n"
	v1to2 := &skilldiff.Diff{From: "skver_01", To: "skver_02", Changes: []skilldiff.Change{
		{Path: "SKILL.md", Kind: skilldiff.Changed, From: sha(skillMD("alpha")), To: sha(skillMD("alpha") + "Now with data.\r\n"), FromSize: int64(len(skillMD("alpha"))), ToSize: int64(len(skillMD("alpha"))) + 16, Unified: skillDiff},
		{Path: "data.bin", Kind: skilldiff.Added, To: sha(binary), ToSize: int64(len(binary)), Binary: true},
	}}
	for _, c := range []struct {
		name, path, accept, key string
		status                  int
		want                    any    // a JSON answer
		text                    string // a text/x-diff answer
	}{
		{name: "JSON, from the version before", path: "/v1/skills/skill_01/versions/skver_02/diff", key: "k-alice", status: 200, want: v1to2},
		{name: "latest", path: "/v1/skills/skill_01/versions/latest/diff", key: "k-bob", status: 200, want: v1to2},
		{name: "unified by Accept", path: "/v1/skills/skill_01/versions/skver_02/diff", accept: "application/json;q=0.5, text/x-diff", key: "k-alice", status: 200, text: unified},
		{name: "unified by format", path: "/v1/skills/skill_01/versions/skver_02/diff?format=unified", key: "k-alice", status: 200, text: unified},
		{name: "from a later version", path: "/v1/skills/skill_01/versions/skver_01/diff?from=skver_02&format=unified", key: "k-alice", status: 200,
			text: "--- a/SKILL.md\n+++ b/SKILL.md\n@@ -3,4 +3,3 @@\n description: Does alpha things.\n ---\n # alpha\n-Now with data.\r\n" +
				"Binary files a/data.bin and /dev/null differ\n"},
		{name: "the first version", path: "/v1/skills/skill_03/versions/skver_04/diff", key: "k-alice", status: 200,
			want: &skilldiff.Diff{To: "skver_04", Changes: []skilldiff.Change{{Path: "SKILL.md", Kind: skilldiff.Added, To: sha(skillMD("gamma")), ToSize: int64(len(skillMD("gamma"))),
				Unified: "--- /dev/null\n+++ b/SKILL.md\n@@ -0,0 +1,5 @@\n+---\n+name: gamma\n+description: Does gamma things.\n+---\n+# gamma\n"}}}},
		{name: "bad format", path: "/v1/skills/skill_01/versions/skver_02/diff?format=html", key: "k-alice", status: 400,
			want: errorBody(400, `format "html": give format=unified or format=json`)},
		{name: "unknown from", path: "/v1/skills/skill_01/versions/skver_02/diff?from=skver_09", key: "k-alice", status: 404,
			want: errorBody(404, `skill "skill_01" has no version "skver_09"`)},
		{name: "no key", path: "/v1/skills/skill_01/versions/skver_02/diff", status: 401,
			want: errorBody(401, "authentication required: send a valid API key as x-api-key or as Authorization: Bearer")},
	} {
		t.Run(c.name, func(t *testing.T) {
			fx := newFixture(t)
			var audit []skillsapi.AuditEvent
			r := httptest.NewRequest("GET", c.path, nil)
			if c.key != "" {
				r.Header.Set("Authorization", "Bearer "+c.key)
			}
			if c.accept != "" {
				r.Header.Set("Accept", c.accept)
			}
			rec := httptest.NewRecorder()
			skillsapi.NewHandler(differ{fx.reg}, options(&audit)).ServeHTTP(rec, r)
			if rec.Code != c.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, c.status, rec.Body)
			}
			if c.text != "" {
				if ct := rec.Header().Get("Content-Type"); ct != "text/x-diff; charset=utf-8" {
					t.Errorf("Content-Type %q", ct)
				}
				if d := cmp.Diff(c.text, rec.Body.String()); d != "" {
					t.Errorf("(-want +got):\n%s", d)
				}
				return
			}
			var got map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatalf("not JSON: %v: %s", err, rec.Body)
			}
			delete(got, "request_id")
			if d := cmp.Diff(asJSON(t, c.want), any(got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if len(audit) != 0 {
				t.Errorf("a read audited: %v", audit)
			}
		})
	}
}

// TestDiffHidden: a hidden skill's diff answers as an unknown skill's,
// and a registry that is no Differ has no diff route.
func TestDiffHidden(t *testing.T) {
	answer := func(reg skillsapi.Registry, path string) (int, string) {
		var audit []skillsapi.AuditEvent
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("x-api-key", "k-alice")
		rec := httptest.NewRecorder()
		skillsapi.NewHandler(reg, options(&audit)).ServeHTTP(rec, r)
		var got map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("not JSON: %v: %s", err, rec.Body)
		}
		delete(got, "request_id")
		b, _ := json.Marshal(got)
		return rec.Code, string(b)
	}
	fx := newFixture(t)
	hiddenCode, hidden := answer(differ{fx.reg}, "/v1/skills/skill_02/versions/skver_03/diff")
	if err := fx.reg.DeleteSkill(context.Background(), "", "skill_02", everything); err != nil {
		t.Fatal(err)
	}
	goneCode, gone := answer(differ{fx.reg}, "/v1/skills/skill_02/versions/skver_03/diff")
	if hiddenCode != http.StatusNotFound || goneCode != http.StatusNotFound || hidden != gone {
		t.Errorf("hidden %d %s; unknown %d %s", hiddenCode, hidden, goneCode, gone)
	}
	code, body := answer(fx.reg, "/v1/skills/skill_01/versions/skver_02/diff")
	if code != http.StatusNotFound || !strings.Contains(body, "no such endpoint") {
		t.Errorf("no Differ: %d %s", code, body)
	}
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
