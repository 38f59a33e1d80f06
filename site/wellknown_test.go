package site_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/discovery"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/servertest"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/site"
)

// TestWellKnown: the discovery index lists each skill with the URL and
// digest of its artifact; SKILL.md alone is served as is, a skill with
// files as a zip of the bytes resources/read serves, hidden files left
// out; ETags, HEAD, 404 and the token apply.
func TestWellKnown(t *testing.T) {
	fsys := fixture.MapFS()
	fsys["plain/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: plain\ndescription: Only a document.\n---\n# Plain\n")}
	fsys["Bad_Name/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: Bad_Name\ndescription: Not a spec name.\n---\n")}
	srv := servertest.New(t, fsys)
	ts := httptest.NewServer(site.New(srv, site.Options{AuthToken: "tok"}))
	defer ts.Close()
	base := ts.URL + discovery.WellKnownPath
	auth := []string{"Authorization", "Bearer tok"}

	if res, _ := testutil.Request(t, http.MethodGet, base+"index.json"); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token: %d", res.StatusCode)
	}
	res, body := testutil.Request(t, http.MethodGet, base+"index.json", auth...)
	var idx discovery.Index
	if err := json.Unmarshal(body, &idx); err != nil || res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("index: %d %s %v", res.StatusCode, body, err)
	}
	if cc := res.Header.Get("Cache-Control"); cc != "private, max-age=60" || res.Header.Get("Vary") != "Authorization" {
		t.Errorf("an answer to a token may be shared: Cache-Control %q, Vary %q", cc, res.Header.Get("Vary"))
	}
	if idx.Schema != discovery.Schema {
		t.Errorf("$schema %q", idx.Schema)
	}
	var names []string
	for _, e := range idx.Skills {
		names = append(names, e.Name+":"+e.Type)
		res, art := testutil.Request(t, http.MethodGet, ts.URL+e.URL, auth...)
		if res.StatusCode != 200 || testutil.Digest(art) != e.Digest {
			t.Errorf("%s: %d, digest %s; index says %s", e.URL, res.StatusCode, testutil.Digest(art), e.Digest)
			continue
		}
		if e.Type != "archive" {
			continue
		}
		zr, err := zip.NewReader(bytes.NewReader(art), int64(len(art)))
		if err != nil {
			t.Fatalf("%s: %v", e.URL, err)
		}
		// The archive holds the skill's files, hidden ones left out, in
		// order, with the bytes resources/read serves.
		var files []string
		got := map[string]string{}
		for _, f := range zr.File {
			files = append(files, f.Name)
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatalf("%s: %s: %v", e.URL, f.Name, err)
			}
			got[f.Name] = string(b)
		}
		want := map[string]string{}
		for name, data := range fixture.Skills() {
			if rest, ok := strings.CutPrefix(name, e.Name+"/"); ok && slices.Contains(append(fixture.CalculatorFiles(), fixture.WeatherFiles()...), rest) {
				want[rest] = string(data)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s archive (-want +got):\n%s", e.Name, diff)
		}
		if !slices.IsSorted(files) {
			t.Errorf("%s archive's order: %v", e.Name, files)
		}
	}
	if diff := cmp.Diff([]string{"calculator:archive", "plain:skill-md", "weather:archive"}, names); diff != "" {
		t.Errorf("index skills (-want +got):\n%s", diff)
	}
	if !slices.ContainsFunc(idx.Skills, func(e discovery.Entry) bool {
		return e.URL == discovery.WellKnownPath+"plain/SKILL.md" && e.Description == "Only a document."
	}) {
		t.Errorf("plain: %+v", idx.Skills)
	}

	// The same bytes again: an ETag, then 304.
	if res2, body2 := testutil.Request(t, http.MethodGet, base+"index.json", auth...); !bytes.Equal(body, body2) || res2.Header.Get("ETag") == "" {
		t.Errorf("a second index differs")
	} else if res3, _ := testutil.Request(t, http.MethodGet, base+"index.json", auth[0], auth[1], "If-None-Match", res2.Header.Get("ETag")); res3.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", res3.StatusCode)
	}
	for path, want := range map[string]int{"calculator/SKILL.md": 404, "plain.zip": 404, "nope.zip": 404, "nope/SKILL.md": 404, "../mcp": 404, "index.jsonx": 404} {
		if res, _ := testutil.Request(t, http.MethodGet, base+path, auth...); res.StatusCode != want {
			t.Errorf("%s: %d; want %d", path, res.StatusCode, want)
		}
	}
	plain := fsys["plain/SKILL.md"].Data
	if res, body := testutil.Request(t, http.MethodHead, base+"plain/SKILL.md", auth...); res.StatusCode != 200 || res.ContentLength != int64(len(plain)) || len(body) != 0 {
		t.Errorf("HEAD: %d, length %d, %d bytes; want 200, %d, none", res.StatusCode, res.ContentLength, len(body), len(plain))
	}

	// --open-well-known: no token, any origin.
	open := httptest.NewServer(site.New(srv, site.Options{AuthToken: "tok", OpenWellKnown: true}))
	defer open.Close()
	res, _ = testutil.Request(t, http.MethodGet, open.URL+discovery.WellKnownPath+"index.json", "Origin", "https://elsewhere.example")
	if res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Cache-Control") != "public, max-age=60" {
		t.Errorf("open: %d %v", res.StatusCode, res.Header)
	}
	if res, _ := testutil.Request(t, http.MethodGet, open.URL+"/mcp"); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("/mcp opened too: %d", res.StatusCode)
	}
}
