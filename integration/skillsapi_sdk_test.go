package integration

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/skillsapi"
)

// newGoSDKClient is the official Go SDK (anthropic-sdk-go v2.15.0) as a
// Skills API server's client: baseURL is the server's root (the SDK
// appends v1/skills), token goes out as Authorization: Bearer. Retries
// are off, so a test sees each refusal once.
func newGoSDKClient(baseURL, token string) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(baseURL), option.WithAPIKey(token), option.WithMaxRetries(0))
}

// goSDKFiles are files for the SDK's uploads, in path order: each named
// by its whole path ("my-skill/SKILL.md") through anthropic.File, since
// a reader without a name of its own would go up as its base name.
func goSDKFiles(files map[string][]byte) []io.Reader {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	out := make([]io.Reader, len(paths))
	for i, p := range paths {
		out[i] = anthropic.File(bytes.NewReader(files[p]), p, "application/octet-stream")
	}
	return out
}

// TestGoSDKWire: what the Go SDK puts on the wire for a create, as the
// integration tests against the registry count on: the path under the
// base URL, the bearer token, every file named by its whole path with
// its bytes unchanged, and the Skill object read back.
func TestGoSDKWire(t *testing.T) {
	files := map[string][]byte{
		"my-skill/SKILL.md":        []byte("\ufeff---\r\nname: my-skill\r\ndescription: d\r\n---\r\n"),
		"my-skill/scripts/run.bin": {0, 0xff, '\r', '\n'},
	}
	type seen struct {
		Method, Path, Auth string
		Files              map[string]string
	}
	var got seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = seen{Method: r.Method, Path: r.URL.Path, Auth: r.Header.Get("Authorization"), Files: map[string]string{}}
		up, err := skillsapi.ReadUpload(r, skillsapi.Limits{})
		if err != nil {
			skillsapi.WriteError(w, err)
			return
		}
		for _, f := range up.Files {
			got.Files[f.Path] = string(f.Data)
		}
		skillsapi.WriteJSON(w, skillsapi.Skill{ID: "skill_01", DisplayName: up.DisplayName, LatestVersionID: "skver_01", Source: skillsapi.SourceCustom})
	}))
	defer srv.Close()

	c := newGoSDKClient(srv.URL+"/root/", "tok-go")
	sk, err := c.Beta.Skills.New(context.Background(), anthropic.BetaSkillNewParams{Files: goSDKFiles(files), DisplayName: anthropic.String("Mine")})
	if err != nil {
		t.Fatal(err)
	}
	want := seen{Method: "POST", Path: "/root/v1/skills", Auth: "Bearer tok-go", Files: map[string]string{}}
	for p, b := range files {
		want.Files[p] = string(b)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	if sk.ID != "skill_01" || sk.DisplayName != "Mine" || sk.LatestVersionID != "skver_01" || !strings.EqualFold(string(sk.Source.Type), skillsapi.SourceCustom) {
		t.Errorf("skill read back: %+v", sk)
	}
}
