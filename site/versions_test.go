package site_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob/memblob"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/audit"
	"github.com/skillstore/skillstore/auth"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/registry"
	"github.com/skillstore/skillstore/internal/skillcheck"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/site"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// policy is a fixed access policy.
type policy struct{ p *access.Policy }

func (p policy) Policy() *access.Policy { return p.p }

// TestRegistryVersionPages: a registry skill's page lists its versions
// newest first, the latest marked as served, and each downloads as the
// zip of the bytes uploaded; a skill the caller may not see answers its
// versions' downloads as a missing skill, and a version of another
// skill as a version that is not there.
func TestRegistryVersionPages(t *testing.T) {
	ctx := context.Background()
	mem := memblob.OpenBucket(nil)
	t.Cleanup(func() { mem.Close() })
	reg, err := registry.Open(ctx, blobfs.NewPublishBucket(mem), registry.Options{Location: "mem://reg", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	upload := func(name string, files map[string]string) *skillcheck.Skill {
		t.Helper()
		var in []skillcheck.File
		for p, data := range files {
			in = append(in, skillcheck.File{Path: name + "/" + p, Data: []byte(data)})
		}
		sk, err := skillcheck.Files(in, skillcheck.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return sk
	}
	doc := func(name, desc string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\n"
	}
	v1Files := map[string]string{
		"SKILL.md":      "\ufeff" + strings.ReplaceAll(doc("pdf", "Reads PDFs."), "\n", "\r\n"),
		"scripts/x.bin": "\x00\x01\xff binary\r\n",
	}
	v2Files := map[string]string{"SKILL.md": doc("pdf", "Reads PDFs, <b>v2</b>."), "ref.md": "v2\n"}
	s, v1, err := reg.CreateSkill(ctx, "ana", upload("pdf", v1Files), "")
	if err != nil {
		t.Fatal(err)
	}
	v2, err := reg.CreateVersion(ctx, `<script>bo</script>`, s.ID, upload("pdf", v2Files), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, secretV, err := reg.CreateSkill(ctx, "ana", upload("secret", map[string]string{"SKILL.md": doc("secret", "Hidden from bob.")}), "")
	if err != nil {
		t.Fatal(err)
	}
	many, _, err := reg.CreateSkill(ctx, "ana", upload("many", map[string]string{"SKILL.md": doc("many", "Version 0.")}), "")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 103; i++ {
		if _, err := reg.CreateVersion(ctx, "ana", many.ID, upload("many", map[string]string{"SKILL.md": doc("many", fmt.Sprintf("Version %d.", i))}), nil); err != nil {
			t.Fatal(err)
		}
	}

	st, err := store.New([]store.Source{reg.Source("registry")}, store.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	p, err := access.Parse("policy.yaml", []byte("default: deny\nrules:\n  - subjects: [bob]\n    sources: [registry]\n    skills: [pdf, many]\n"))
	if err != nil {
		t.Fatal(err)
	}
	var audits testutil.SyncBuffer
	al := audit.New(&audits, audit.Options{})
	srv, err := mcpserver.New(ctx, tools.New(st, tools.Options{}), mcpserver.Options{Logger: quiet, Access: policy{p}, Audit: al})
	if err != nil {
		t.Fatal(err)
	}
	const bobToken = "bob-tok-2c9f1e77"
	tokens, err := auth.ParseStaticTokens([]byte("tokens:\n  - sha256: " + auth.HashToken(bobToken) + "\n    subject: bob\n    scopes: [skills:read]\n"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := auth.NewResourceServer(auth.ResourceConfig{Resource: "https://skills.example.com/mcp", ScopesSupported: []string{"skills:read"}, Authenticator: tokens})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(site.New(srv, site.Options{UI: true, Auth: rs, RequiredScopes: []string{"skills:read"},
		Registry: site.RegistryOptions{Registry: reg, Label: "registry"}}))
	defer ts.Close()
	bob := []string{"Authorization", "Bearer " + bobToken}

	res, page := testutil.Request(t, http.MethodGet, ts.URL+"/skills/pdf", bob...)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("pdf's page: %d\n%s", res.StatusCode, page)
	}
	rows := regexp.MustCompile(`<tr( class="served")?><td><code>([^<]+)</code>`).FindAllStringSubmatch(string(page), -1)
	var listed []string
	for _, r := range rows {
		listed = append(listed, r[2]+map[bool]string{true: " served"}[r[1] != ""])
	}
	if diff := cmp.Diff([]string{v2.ID + " served", v1.ID}, listed); diff != "" {
		t.Errorf("versions on pdf's page (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		`<dt>Version served</dt><dd><code title="` + v2.Digest + `">` + v2.ID + `</code> by &lt;script&gt;bo&lt;/script&gt;`,
		"Reads PDFs, &lt;b&gt;v2&lt;/b&gt;.", ">ana</td>",
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("pdf's page lacks %q", want)
		}
	}

	// A page lists 100 versions and counts the others.
	if res, body := testutil.Request(t, http.MethodGet, ts.URL+"/skills/many", bob...); res.StatusCode != http.StatusOK ||
		strings.Count(string(body), `href="/skills/many/versions/`) != 100 || !strings.Contains(string(body), "100 versions and 3 more, newest first") ||
		!strings.Contains(string(body), "Version 102.") || strings.Contains(string(body), "Version 2.") {
		t.Errorf("many's page: %d\n%s", res.StatusCode, body)
	}

	// Each version downloads byte for byte, as uploaded.
	for _, tc := range []struct {
		id    string
		files map[string]string
	}{{v1.ID, v1Files}, {v2.ID, v2Files}} {
		target := "/skills/pdf/versions/" + tc.id + ".zip"
		if !strings.Contains(string(page), `href="`+target+`"`) {
			t.Errorf("pdf's page does not link %s", target)
		}
		res, body := testutil.Request(t, http.MethodGet, ts.URL+target, bob...)
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/zip" ||
			res.Header.Get("Content-Disposition") != "attachment; filename=pdf-"+tc.id+".zip" {
			t.Fatalf("GET %s: %d %v\n%.300s", target, res.StatusCode, res.Header, body)
		}
		want := map[string]string{}
		for p, data := range tc.files {
			want["pdf/"+p] = data
		}
		if diff := cmp.Diff(want, testutil.Unzip(t, body)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", target, diff)
		}
		var api bytes.Buffer
		if err := reg.WriteZip(ctx, &api, s.ID, tc.id, nil); err != nil || !bytes.Equal(api.Bytes(), body) {
			t.Errorf("%s differs from the Skills API's zip of it (%v)", target, err)
		}
	}

	// Hidden: the download answers as a missing skill does.
	_, missing := testutil.Request(t, http.MethodGet, ts.URL+"/skills/secret", bob...)
	for _, target := range []string{"/skills/secret", "/skills/secret/versions/" + secretV.ID + ".zip", "/skills/secret/versions/latest.zip"} {
		res, body := testutil.Request(t, http.MethodGet, ts.URL+target, bob...)
		if res.StatusCode != http.StatusNotFound || !bytes.Equal(body, missing) || strings.Contains(string(body), secretV.ID) {
			t.Errorf("GET %s: %d\n%s\nwant 404 as a missing skill:\n%s", target, res.StatusCode, body, missing)
		}
	}
	if res, body := testutil.Request(t, http.MethodGet, ts.URL+"/skills/pdf/versions/"+secretV.ID+".zip", bob...); res.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "has no version") {
		t.Errorf("another skill's version: %d\n%s", res.StatusCode, body)
	}
	if res, _ := testutil.Request(t, http.MethodGet, ts.URL+"/skills/pdf/versions/"+v1.ID+".zip"); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a download without the token: %d", res.StatusCode)
	}

	al.Close()
	decisions := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(audits.String()), "\n") {
		var e struct{ Sub, Method, Decision string }
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if e.Sub == "bob" && strings.Contains(e.Method, "/versions/") {
			decisions[e.Method] = e.Decision
		}
	}
	if diff := cmp.Diff(map[string]string{
		"GET /skills/pdf/versions/" + v1.ID + ".zip":         "allow",
		"GET /skills/pdf/versions/" + v2.ID + ".zip":         "allow",
		"GET /skills/pdf/versions/" + secretV.ID + ".zip":    "allow",
		"GET /skills/secret/versions/" + secretV.ID + ".zip": "deny",
		"GET /skills/secret/versions/latest.zip":             "deny",
	}, decisions); diff != "" {
		t.Errorf("the downloads' audit lines (-want +got):\n%s", diff)
	}
}
