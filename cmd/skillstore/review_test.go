package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/skillsapi"
)

// reviewServer is a Skills API server of one skill, "gated", with one
// version whose content is files and whose digest is digest; it records
// the review decisions posted.
func reviewServer(t *testing.T, files map[string]string, digest string) (string, *[]skillsapi.ReviewRequest) {
	var got []skillsapi.ReviewRequest
	v := skillsapi.Version{ID: "skver_01", SkillID: "skill_01", Name: "gated", CreatedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Digest: digest, CreatedBy: "ana", Status: skillsapi.StatusPending}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/skills", func(w http.ResponseWriter, r *http.Request) {
		skillsapi.WriteJSON(w, skillsapi.Page[skillsapi.Skill]{Data: []skillsapi.Skill{{ID: "skill_01", DisplayName: "gated", LatestVersionID: "skver_01", Source: "custom"}}})
	})
	mux.HandleFunc("GET /v1/skills/skill_01/versions/{v}", func(w http.ResponseWriter, r *http.Request) { skillsapi.WriteJSON(w, v) })
	mux.HandleFunc("GET /v1/skills/skill_01/versions/skver_01/content", func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		for p, data := range files {
			fw, _ := zw.Create("gated/" + p)
			fw.Write([]byte(data))
		}
		zw.Close()
		w.Header().Set("Content-Type", "application/zip")
		w.Write(b.Bytes())
	})
	mux.HandleFunc("POST /v1/skills/skill_01/versions/skver_01/review", func(w http.ResponseWriter, r *http.Request) {
		var q skillsapi.ReviewRequest
		if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
			t.Error(err)
		}
		got = append(got, q)
		out := v
		out.Status = skillsapi.StatusApproved
		skillsapi.WriteJSON(w, out)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, &got
}

// TestReviewDigestSet: review sends the digest set of the files it
// downloaded, and refuses to decide when they do not make the version's
// digest.
func TestReviewDigestSet(t *testing.T) {
	files := map[string]string{"SKILL.md": "---\nname: gated\n---\n", "run.sh": "echo hi\n"}
	sums := map[string]string{}
	for p, data := range files {
		sums[p] = fmt.Sprintf("%x", sha256.Sum256([]byte(data)))
	}
	digest := setDigest(sums)

	url, got := reviewServer(t, files, digest)
	t.Setenv(tokenEnv, "tok")
	var stdout bytes.Buffer
	g := &globals{stdout: &stdout, stderr: &bytes.Buffer{}}
	if err := runReview(t.Context(), g, "gated", "latest", url, reviewFlags{api: apiFlags{timeout: time.Minute}, approve: true}); err != nil {
		t.Fatal(err)
	}
	if len(*got) != 1 || (*got)[0].Decision != "approve" || (*got)[0].Signature != "" {
		t.Fatalf("decisions sent: %+v", *got)
	}
	if d := cmp.Diff(sums, (*got)[0].Files); d != "" {
		t.Errorf("the digest set sent (-want +got):\n%s", d)
	}
	if !strings.Contains(stdout.String(), "approved version skver_01 of gated") {
		t.Errorf("stdout: %s", stdout.String())
	}

	url, got = reviewServer(t, files, "sha256:"+strings.Repeat("0", 64))
	g = &globals{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	err := runReview(t.Context(), g, "gated", "skver_01", url, reviewFlags{api: apiFlags{timeout: time.Minute}, approve: true})
	if err == nil || !strings.Contains(err.Error(), "not the version's") || len(*got) != 0 {
		t.Errorf("files not making the digest: %v, sent %+v", err, *got)
	}

	for _, c := range []struct {
		f    reviewFlags
		want string
	}{
		{reviewFlags{}, "give --approve or --reject"},
		{reviewFlags{reject: true}, "--reject needs --reason"},
		{reviewFlags{approve: true, sign: "k"}, "--sign needs --as"},
	} {
		if err := runReview(t.Context(), g, "gated", "skver_01", url, c.f); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.f, err, c.want)
		}
	}
}
