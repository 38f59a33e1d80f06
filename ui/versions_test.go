package ui_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
	"github.com/skillstore/skillstore/ui"
)

// versioned is a source that names the version it serves of each skill,
// as a registry does (store.PublishedFS).
type versioned struct {
	fstest.MapFS
	skills []store.PublishedSkill
}

func (v versioned) Published() []store.PublishedSkill { return v.skills }

// fakeVersions keeps the versions of the skills of source "reg",
// newest first, and each version's zip; one version fails mid-way.
type fakeVersions struct {
	versions map[string][]ui.Version // by skill name
	zips     map[string]string       // by version ID
}

func (f fakeVersions) Versions(_ context.Context, _ *http.Request, sk *store.Skill, limit int) (*ui.VersionList, error) {
	if sk.Source.Label != "reg" {
		return nil, nil
	}
	vs := f.versions[sk.Name]
	if sk.Name == "gone" {
		return nil, &store.Error{Kind: store.ErrSkillNotFound, Skill: sk.Name}
	}
	if len(vs) > limit {
		return &ui.VersionList{Versions: vs[:limit], More: len(vs) - limit}, nil
	}
	return &ui.VersionList{Versions: vs}, nil
}

func (f fakeVersions) WriteZip(_ context.Context, _ *http.Request, w io.Writer, name, ver string) error {
	vs, ok := f.versions[name]
	if !ok {
		return &store.Error{Kind: store.ErrSkillNotFound, Skill: name}
	}
	for _, v := range vs {
		if v.ID == ver {
			if ver == "v-broken" {
				io.WriteString(w, "PK partial")
				return errors.New("a blob went missing")
			}
			_, err := io.WriteString(w, f.zips[ver])
			return err
		}
	}
	return ui.ErrVersionNotFound
}

// TestVersions: a versioned skill's page lists its versions newest first
// (as its source gives them), the served one marked and named in the
// facts, hostile uploader names and descriptions escaped, at most 100
// with a count of the rest; each downloads as NAME-VERSION.zip; a skill
// that is not there, or a version it lacks, answers 404; a skill of
// another source has no Versions section.
func TestVersions(t *testing.T) {
	doc := func(name string) string { return "---\nname: " + name + "\ndescription: Versioned.\n---\nBody.\n" }
	m := fstest.MapFS{}
	var listed []store.PublishedSkill
	created := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	for _, name := range []string{"pdf", "many", "gone"} {
		m[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte(doc(name)), ModTime: created}
		info, err := fs.Stat(m, name+"/SKILL.md")
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, store.PublishedSkill{Dir: name, DocPath: "SKILL.md", Frontmatter: "name: " + name + "\ndescription: Versioned.\n", Doc: info,
			Version: &store.SkillVersion{ID: "v-2", Digest: "sha256:" + strings.Repeat("b", 64), CreatedBy: "<i>bo</i>", Created: created}})
	}
	s, err := store.New([]store.Source{
		{Label: "reg", Location: "mem://reg", Kind: "registry", FS: versioned{m, listed}},
		{Label: "plain", Location: "./plain", FS: fstest.MapFS{"local/SKILL.md": {Data: []byte(doc("local"))}}},
	}, store.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	hostile := `<script>alert(1)</script>"'`
	vs := fakeVersions{
		versions: map[string][]ui.Version{
			"pdf": {
				{ID: "v-3", Created: created.Add(2 * time.Hour), CreatedBy: hostile, Digest: "sha256:" + strings.Repeat("c", 64), Description: "Newest <b>unsigned</b> & \"quoted\"."},
				{ID: "v-2", Created: created, CreatedBy: "<i>bo</i>", Digest: "sha256:" + strings.Repeat("b", 64), Description: "Served."},
				{ID: "v-broken", Created: created.Add(-time.Hour), Digest: "sha256:" + strings.Repeat("a", 64), Description: "Oldest."},
			},
		},
		zips: map[string]string{"v-3": "PK three", "v-2": "PK two"},
	}
	for i := range 130 {
		vs.versions["many"] = append(vs.versions["many"], ui.Version{ID: "m-" + string(rune('A'+i/26)) + string(rune('a'+i%26)), Created: created})
	}
	v := tools.New(s, tools.Options{}).View()
	h := ui.New(ui.Options{View: func(*http.Request) *store.View { return v }, Versions: vs})

	a := get(t, h, "/skills/pdf")
	if a.code != http.StatusOK {
		t.Fatalf("pdf: %d\n%s", a.code, a.body)
	}
	safeHTML(t, "pdf", a.body)
	if strings.Contains(a.body, hostile) || strings.Contains(a.body, "<b>unsigned") || strings.Contains(a.body, "<i>bo") {
		t.Errorf("an uploader's name or a description is not escaped:\n%s", a.body)
	}
	rows := regexp.MustCompile(`<tr( class="served")?><td><code>([^<]+)</code>`).FindAllStringSubmatch(a.body, -1)
	var got []string
	for _, r := range rows {
		got = append(got, r[2]+map[bool]string{true: " served"}[r[1] != ""])
	}
	if diff := cmp.Diff([]string{"v-3", "v-2 served", "v-broken"}, got); diff != "" {
		t.Errorf("versions (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		"<h2>Versions</h2>", "3 versions, newest first",
		`<dt>Version served</dt><dd><code title="sha256:` + strings.Repeat("b", 64) + `">v-2</code> by &lt;i&gt;bo&lt;/i&gt;`,
		`&lt;script&gt;alert(1)&lt;/script&gt;&#34;&#39;`, "Newest &lt;b&gt;unsigned&lt;/b&gt; &amp; &#34;quoted&#34;.",
		`<code class="digest" title="sha256:` + strings.Repeat("c", 64) + `">sha256:cccccccccccc</code>`,
		`<a href="/skills/pdf/versions/v-3.zip" download="pdf-v-3.zip">Download</a>`,
		`<span class="muted">unknown</span>`, // v-broken's uploader
	} {
		if !strings.Contains(a.body, want) {
			t.Errorf("pdf's page lacks %q", want)
		}
	}

	many := get(t, h, "/skills/many")
	if n := strings.Count(many.body, `/skills/many/versions/`); n != 100 || !strings.Contains(many.body, "100 versions and 30 more, newest first") {
		t.Errorf("many: %d versions listed\n%s", n, many.body)
	}
	if gone := get(t, h, "/skills/gone"); gone.code != http.StatusOK || !strings.Contains(gone.body, `<p class="banner danger">Skill &#39;gone&#39; not found`) {
		t.Errorf("gone: %d; its versions' failure is not shown\n%s", gone.code, gone.body)
	}
	if local := get(t, h, "/skills/local"); local.code != http.StatusOK || strings.Contains(local.body, "Versions") || strings.Contains(local.body, "Version served") {
		t.Errorf("a skill of an unversioned source: %d\n%s", local.code, local.body)
	}

	for _, tc := range []struct {
		target, body, disposition string
		code                      int
	}{
		{"/skills/pdf/versions/v-3.zip", "PK three", `attachment; filename=pdf-v-3.zip`, 200},
		{"/skills/pdf/versions/v-2.zip", "PK two", `attachment; filename=pdf-v-2.zip`, 200},
		{"/skills/pdf/versions/v-9.zip", `Skill &#34;pdf&#34; has no version &#34;v-9&#34;.`, "", 404},
		{"/skills/nope/versions/v-2.zip", "Skill &#39;nope&#39; not found", "", 404},
		{"/skills/pdf/versions/v-3", "There is no page at this address", "", 404},
	} {
		got := get(t, h, tc.target)
		if got.code != tc.code || !strings.Contains(got.body, tc.body) || got.h.Get("Content-Disposition") != tc.disposition {
			t.Errorf("GET %s: %d %q, Content-Disposition %q; want %d %q, %q", tc.target, got.code, got.body, got.h.Get("Content-Disposition"), tc.code, tc.body, tc.disposition)
		}
		if tc.code == 200 && (got.h.Get("Content-Type") != "application/zip" || !strings.Contains(got.h.Get("Content-Security-Policy"), "sandbox")) {
			t.Errorf("GET %s: headers %v", tc.target, got.h)
		}
	}
	if nope, missing := get(t, h, "/skills/nope/versions/v-2.zip"), get(t, h, "/skills/nope"); nope.body != missing.body {
		t.Errorf("a missing skill's version answers otherwise than the missing skill:\n%s\n%s", nope.body, missing.body)
	}

	// A failure once bytes are sent cuts the connection.
	func() {
		defer func() {
			if p := recover(); p != http.ErrAbortHandler {
				t.Errorf("a zip failing mid-way: panic %v; want http.ErrAbortHandler", p)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "http://127.0.0.1/skills/pdf/versions/v-broken.zip", nil))
	}()

	// Without a VersionSource there is no such page.
	if got := get(t, ui.New(ui.Options{View: func(*http.Request) *store.View { return v }}), "/skills/pdf/versions/v-3.zip"); got.code != 404 || !strings.Contains(got.body, "There is no page at this address") {
		t.Errorf("without Versions: %d", got.code)
	}
}
