package mcpserver_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/mcpserver/mcptest"
)

func get(t *testing.T, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, body
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestWellKnown: the discovery index lists each skill with the URL and
// digest of its artifact; SKILL.md alone is served as is, a skill with
// files as a zip of the bytes resources/read serves, hidden files left
// out; ETags, HEAD, 404 and the token apply.
func TestWellKnown(t *testing.T) {
	fsys := fixtureFS()
	fsys["plain/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: plain\ndescription: Only a document.\n---\n# Plain\n")}
	fsys["Bad_Name/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: Bad_Name\ndescription: Not a spec name.\n---\n")}
	srv := newServer(t, fsys)
	ts := httptest.NewServer(srv.HTTPHandler(mcpserver.HTTPOptions{AuthToken: "tok"}))
	defer ts.Close()
	base := ts.URL + mcpserver.WellKnownPath
	auth := []string{"Authorization", "Bearer tok"}

	if res, _ := get(t, base+"index.json"); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token: %d", res.StatusCode)
	}
	res, body := get(t, base+"index.json", auth...)
	var idx mcpserver.DiscoveryIndex
	if err := json.Unmarshal(body, &idx); err != nil || res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("index: %d %s %v", res.StatusCode, body, err)
	}
	if cc := res.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "private") || res.Header.Get("Vary") != "Authorization" {
		t.Errorf("an answer to a token may be shared: Cache-Control %q, Vary %q", cc, res.Header.Get("Vary"))
	}
	if idx.Schema != mcpserver.DiscoverySchema {
		t.Errorf("$schema %q", idx.Schema)
	}
	var names []string
	for _, e := range idx.Skills {
		names = append(names, e.Name+":"+e.Type)
		res, art := get(t, ts.URL+e.URL, auth...)
		if res.StatusCode != 200 || digest(art) != e.Digest {
			t.Errorf("%s: %d, digest %s; index says %s", e.URL, res.StatusCode, digest(art), e.Digest)
			continue
		}
		if e.Type != "archive" {
			continue
		}
		zr, err := zip.NewReader(bytes.NewReader(art), int64(len(art)))
		if err != nil {
			t.Fatalf("%s: %v", e.URL, err)
		}
		var files []string
		for _, f := range zr.File {
			files = append(files, f.Name)
			if f.Name == "SKILL.md" && e.Name == "calculator" {
				rc, _ := f.Open()
				b, _ := io.ReadAll(rc)
				if string(b) != mcptest.CalculatorDoc {
					t.Errorf("the archive's SKILL.md differs from resources/read: %q", b)
				}
			}
		}
		if e.Name == "calculator" && strings.Join(files, ",") != "SKILL.md,assets/logo.png,docs/deep/notes.md,empty.txt,examples/basic.py" {
			t.Errorf("calculator archive: %v", files)
		}
	}
	if strings.Join(names, " ") != "calculator:archive plain:skill-md weather:archive" {
		t.Errorf("index skills: %v", names)
	}
	if !slices.ContainsFunc(idx.Skills, func(e mcpserver.DiscoveryEntry) bool {
		return e.URL == mcpserver.WellKnownPath+"plain/SKILL.md" && e.Description == "Only a document."
	}) {
		t.Errorf("plain: %+v", idx.Skills)
	}

	// The same bytes again: an ETag, then 304.
	if res2, body2 := get(t, base+"index.json", auth...); !bytes.Equal(body, body2) || res2.Header.Get("ETag") == "" {
		t.Errorf("a second index differs")
	} else if res3, _ := get(t, base+"index.json", auth[0], auth[1], "If-None-Match", res2.Header.Get("ETag")); res3.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", res3.StatusCode)
	}
	for path, want := range map[string]int{"calculator/SKILL.md": 404, "plain.zip": 404, "nope.zip": 404, "nope/SKILL.md": 404, "../mcp": 404, "index.jsonx": 404} {
		if res, _ := get(t, base+path, auth...); res.StatusCode != want {
			t.Errorf("%s: %d; want %d", path, res.StatusCode, want)
		}
	}
	req, _ := http.NewRequest(http.MethodHead, base+"plain/SKILL.md", nil)
	req.Header.Set(auth[0], auth[1])
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 200 || res.ContentLength <= 0 {
		t.Errorf("HEAD: %v %v", res, err)
	}

	// --open-well-known: no token, any origin.
	open := httptest.NewServer(srv.HTTPHandler(mcpserver.HTTPOptions{AuthToken: "tok", OpenWellKnown: true}))
	defer open.Close()
	res, _ = get(t, open.URL+mcpserver.WellKnownPath+"index.json", "Origin", "https://elsewhere.example")
	if res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.HasPrefix(res.Header.Get("Cache-Control"), "public") {
		t.Errorf("open: %d %v", res.StatusCode, res.Header)
	}
	if res, _ := get(t, open.URL+"/mcp"); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("/mcp opened too: %d", res.StatusCode)
	}
}
