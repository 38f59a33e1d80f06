package wellknown_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillstore/skillstore/backends/backendtest"
	"github.com/skillstore/skillstore/backends/wellknown"
	"github.com/skillstore/skillstore/discovery"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

// origin is a site that publishes skills under /.well-known/agent-skills/:
// publish writes an index of the skills it is given, each skill's
// artifact at a URL named by the artifact's digest. Artifacts published
// before stay served, as a site that names them by digest keeps them.
type origin struct {
	mu   sync.Mutex
	objs map[string]origObject // by URL path
}

type origObject struct {
	data  []byte
	ctype string
}

// wkDir is the folder an origin publishes in.
const wkDir = "/.well-known/agent-skills/"

// publish writes the index of the skills in files (their top-level
// folders): one with SKILL.md alone as a skill-md entry, the others as
// zip and .tar.gz archives in turn.
func (o *origin) publish(t *testing.T, files map[string][]byte) {
	t.Helper()
	bySkill := map[string]map[string][]byte{}
	for name, data := range files {
		dir, rel, _ := strings.Cut(name, "/")
		if bySkill[dir] == nil {
			bySkill[dir] = map[string][]byte{}
		}
		bySkill[dir][rel] = data
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	idx := discovery.Index{Schema: discovery.Schema, Skills: []discovery.Entry{}}
	for i, name := range slices.Sorted(maps.Keys(bySkill)) {
		skill := bySkill[name]
		e := discovery.Entry{Name: name, Type: discovery.TypeArchive, Description: "The " + name + " skill."}
		var obj origObject
		switch {
		case len(skill) == 1 && skill[store.DocName] != nil:
			e.Type, obj = discovery.TypeSkillMD, origObject{skill[store.DocName], "text/markdown"}
		case i%2 == 0:
			obj = origObject{testutil.Zip(t, skill), "application/zip"}
		default:
			obj = origObject{tarGzOf(t, skill), "application/gzip"}
		}
		e.Digest = sum(obj.data)
		hex := strings.TrimPrefix(e.Digest, "sha256:")
		switch obj.ctype {
		case "text/markdown":
			e.URL = name + "/" + hex[:16] + "/SKILL.md"
		case "application/zip":
			e.URL = name + "-" + hex[:16] + ".zip"
		default:
			e.URL = name + "-" + hex[:16] + ".tar.gz"
		}
		o.objs[wkDir+e.URL] = obj
		idx.Skills = append(idx.Skills, e)
	}
	body, err := json.Marshal(idx)
	if err != nil {
		t.Fatal(err)
	}
	o.objs[wkDir+"index.json"] = origObject{body, "application/json"}
}

// ServeHTTP serves what was published, the index with an ETag.
func (o *origin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	obj, ok := o.objs[r.URL.Path]
	o.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/index.json") {
		etag := `"` + sum(obj.data)[len("sha256:"):][:16] + `"`
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	w.Header().Set("Content-Type", obj.ctype)
	w.Write(obj.data)
}

// tarGzOf packs files as a .tar.gz.
func tarGzOf(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data := files[name]
		h := &tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data)), ModTime: time.Unix(1, 0)}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	return buf.Bytes()
}

// TestConformance runs the backend suite against a Source reading an
// origin over HTTP; Update publishes a new index.
func TestConformance(t *testing.T) {
	backendtest.Run(t, backendtest.Harness{
		Make: func(t *testing.T, files map[string][]byte) backendtest.Backend {
			o := &origin{objs: map[string]origObject{}}
			o.publish(t, files)
			srv := httptest.NewServer(o)
			t.Cleanup(srv.Close)
			src, err := wellknown.Open(srv.URL+wkDir, wellknown.Options{Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { src.Close() })
			return backendtest.Backend{FS: src, Update: func(next map[string][]byte) { o.publish(t, next) }}
		},
		SkillsOnly: true,
		Upgrades:   backendtest.Upgrades{SnapshotFS: true, Refresher: true, ContextFS: true},
	})
}
