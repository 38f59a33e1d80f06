package ocifs

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"

	"github.com/skillstore/skillstore/internal/fixture"
)

// reg is an in-process registry (go-containerregistry's, which has the
// referrers API) behind a handler that counts requests and can be made
// to misbehave.
type reg struct {
	srv      *httptest.Server
	host     string
	requests atomic.Int64
	down     atomic.Bool
	lie      atomic.Bool                                                   // corrupt every blob's body
	auth     atomic.Value                                                  // "user:pass" the registry asks for, if any
	bearer   atomic.Value                                                  // "user:pass" its token service asks for, if any (Docker's token flow)
	tokens   atomic.Int64                                                  // tokens the token service gave
	hook     atomic.Pointer[func(http.ResponseWriter, *http.Request) bool] // answers first, if set and it reports true
}

// registryToken is the one token the test's token service gives.
const registryToken = "reg-token-7f3a9c"

func newReg(t testing.TB) *reg {
	r := &reg{}
	inner := registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0)))
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.requests.Add(1)
		if h := r.hook.Load(); h != nil && (*h)(w, req) {
			return
		}
		if r.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		if want, _ := r.bearer.Load().(string); want != "" {
			if req.URL.Path == "/token" { // the token service: Basic credentials for a token
				if u, p, ok := req.BasicAuth(); !ok || u+":"+p != want {
					http.Error(w, "bad credentials", http.StatusUnauthorized)
					return
				}
				r.tokens.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"token":"` + registryToken + `","expires_in":300}`))
				return
			}
			if req.Header.Get("Authorization") != "Bearer "+registryToken {
				w.Header().Set("WWW-Authenticate", `Bearer realm="`+r.srv.URL+`/token",service="test",scope="repository:bad/token:pull"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
		}
		if want, _ := r.auth.Load().(string); want != "" {
			u, p, ok := req.BasicAuth()
			if !ok || u+":"+p != want {
				w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
		}
		if r.lie.Load() && req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/blobs/") {
			rec := httptest.NewRecorder()
			inner.ServeHTTP(rec, req)
			body := rec.Body.Bytes()
			if len(body) > 10 {
				body[len(body)/2] ^= 0xff
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			w.Write(body)
			return
		}
		inner.ServeHTTP(w, req)
	}))
	t.Cleanup(r.srv.Close)
	r.host = strings.TrimPrefix(r.srv.URL, "http://")
	return r
}

// fixtureFiles are the fixture's served skills as paths of a MapFS.
func fixtureFiles() (fstest.MapFS, []string) {
	m := fstest.MapFS{}
	var paths []string
	for p, b := range fixture.Skills() {
		if (strings.HasPrefix(p, "calculator/") || strings.HasPrefix(p, "weather/")) && !strings.Contains(p, "/.") {
			m[p] = &fstest.MapFile{Data: b}
			paths = append(paths, p)
		}
	}
	return m, paths
}

// files reads every file of fsys.
func files(t *testing.T, fsys fs.FS) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func open(t testing.TB, ref string, opts Options) *FS {
	t.Helper()
	f, err := Open(ref, opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestPushAndServe: what Push writes is served file for file, by tag and
// by digest; an unchanged tag costs a refresh one request and no
// download; a digest costs nothing once fetched; a moved tag is followed.
func TestPushAndServe(t *testing.T) {
	r := newReg(t)
	ctx := context.Background()
	src, paths := fixtureFiles()
	res, err := Push(ctx, "oci://"+r.host+"/team/skills:v1", src, paths, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := open(t, "oci://"+r.host+"/team/skills:v1", Options{})
	snap, err := f.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := files(t, snap)
	if len(got) != len(paths) {
		t.Errorf("%d files, want %d", len(got), len(paths))
	}
	for _, p := range paths {
		if got[p] != string(src[p].Data) {
			t.Errorf("%s: %q", p, got[p])
		}
	}
	if f.Revision() != res.Digest {
		t.Errorf("revision %q, pushed %q", f.Revision(), res.Digest)
	}

	before := r.requests.Load()
	if err := f.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if n := r.requests.Load() - before; n != 1 {
		t.Errorf("an idle refresh made %d requests, want 1", n)
	}

	pinned := open(t, "oci://"+r.host+"/team/skills@"+res.Digest, Options{})
	if _, err := pinned.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	before = r.requests.Load()
	pinned.Refresh(ctx)
	if n := r.requests.Load() - before; n != 0 {
		t.Errorf("refreshing a digest made %d requests", n)
	}

	// The tag moves: a refresh follows it; the pinned digest stays.
	src["weather/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: weather\ndescription: Moved.\n---\nNew.\n")}
	res2, err := Push(ctx, "oci://"+r.host+"/team/skills:v1", src, paths, Options{})
	if err != nil || res2.Digest == res.Digest {
		t.Fatal(res2, err)
	}
	if err := f.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	snap2, _ := f.Snapshot(ctx)
	if b, _ := fs.ReadFile(snap2, "weather/SKILL.md"); !strings.Contains(string(b), "Moved.") || f.Revision() != res2.Digest {
		t.Errorf("after the tag moved: %q, %s", b, f.Revision())
	}
	if b, _ := fs.ReadFile(snap, "weather/SKILL.md"); strings.Contains(string(b), "Moved.") {
		t.Error("the earlier snapshot changed")
	}
	if psnap, _ := pinned.Snapshot(ctx); files(t, psnap)["weather/SKILL.md"] != string(fixture.Skills()["weather/SKILL.md"]) {
		t.Error("the pinned digest moved")
	}

	// Down: the snapshot served stays, the refresh says why.
	r.down.Store(true)
	src["weather/SKILL.md"] = &fstest.MapFile{Data: []byte("x")}
	if err := f.Refresh(ctx); err == nil {
		t.Error("a refresh of a registry that is down succeeded")
	}
	if b, err := fs.ReadFile(f, "calculator/SKILL.md"); err != nil || len(b) == 0 {
		t.Errorf("while down: %v", err)
	}
}

// tarLayer is a tar (gzipped if gz) of entries: name → content, with
// headers edited by edit.
func tarLayer(t testing.TB, gz bool, entries []tar.Header, content map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.Writer = &buf
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&buf)
		w = zw
	}
	tw := tar.NewWriter(w)
	for _, h := range entries {
		h := h
		data := content[h.Name]
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(data))
		}
		if h.Mode == 0 && h.Typeflag != tar.TypeXGlobalHeader {
			h.Mode = 0o644
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(data))
	}
	tw.Close()
	if zw != nil {
		zw.Close()
	}
	return buf.Bytes()
}

// pushManifest pushes layers (media type → bytes, in order) under a
// manifest of artifactType (or an image config when empty) with
// annotations, tagged tag, and returns the reference.
func pushManifest(t testing.TB, r *reg, repo, tag, artifactType string, annotations map[string]string, layers ...layerSpec) string {
	t.Helper()
	ctx := context.Background()
	f := open(t, "oci://"+r.host+"/"+repo+":"+tag, Options{})
	var descs []ocispec.Descriptor
	for _, l := range layers {
		d := ocispec.Descriptor{MediaType: l.mediaType, Digest: digest.FromBytes(l.data), Size: int64(len(l.data))}
		if err := pushBlob(ctx, f, d, l.data); err != nil {
			t.Fatal(err)
		}
		descs = append(descs, d)
	}
	opts := oras.PackManifestOptions{Layers: descs, ManifestAnnotations: annotations}
	if artifactType == "" {
		cfg := []byte(`{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}`)
		cd := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageConfig, Digest: digest.FromBytes(cfg), Size: int64(len(cfg))}
		if err := pushBlob(ctx, f, cd, cfg); err != nil {
			t.Fatal(err)
		}
		opts.ConfigDescriptor = &cd
	}
	desc, err := oras.PackManifest(ctx, f.repo, oras.PackManifestVersion1_1, artifactType, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.repo.Tag(ctx, desc, tag); err != nil {
		t.Fatal(err)
	}
	return "oci://" + r.host + "/" + repo + ":" + tag
}

type layerSpec struct {
	mediaType string
	data      []byte
}

const doc = "---\nname: %s\ndescription: A skill.\n---\nBody.\n"

func skillDoc(name string) string { return strings.Replace(doc, "%s", name, 1) }

// TestOtherArtifacts: skills shipped by other tools — a one-skill artifact
// of another media type named by its title, a plain image FROM scratch
// with /skills/…, layers one over the other with whiteouts — are served.
func TestOtherArtifacts(t *testing.T) {
	r := newReg(t)
	ctx := context.Background()
	one := pushManifest(t, r, "vendor/pdf", "1.0", "application/vnd.agentskills.skill.v1", map[string]string{ocispec.AnnotationTitle: "pdf-forms"},
		layerSpec{"application/vnd.agentskills.skill.layer.v1.tar+gzip", tarLayer(t, true,
			[]tar.Header{{Name: "SKILL.md"}, {Name: "scripts/", Typeflag: tar.TypeDir}, {Name: "scripts/fill.py"}},
			map[string]string{"SKILL.md": skillDoc("pdf-forms"), "scripts/fill.py": "print(1)\n"})})
	got := files(t, must(t, open(t, one, Options{}))(ctx))
	if got["pdf-forms/SKILL.md"] != skillDoc("pdf-forms") || got["pdf-forms/scripts/fill.py"] != "print(1)\n" || len(got) != 2 {
		t.Errorf("a one-skill artifact: %v", got)
	}

	image := pushManifest(t, r, "team/image", "latest", "", nil,
		layerSpec{ocispec.MediaTypeImageLayer, tarLayer(t, false,
			[]tar.Header{{Name: "./skills/", Typeflag: tar.TypeDir}, {Name: "./skills/a/SKILL.md"}, {Name: "./skills/b/SKILL.md"}, {Name: "./skills/b/old.txt"}, {Name: "./skills/c/SKILL.md"}},
			map[string]string{"./skills/a/SKILL.md": skillDoc("a"), "./skills/b/SKILL.md": skillDoc("b"), "./skills/b/old.txt": "old", "./skills/c/SKILL.md": skillDoc("c")})},
		layerSpec{"application/vnd.docker.image.rootfs.diff.tar.gzip", tarLayer(t, true,
			[]tar.Header{{Name: "skills/b/.wh.old.txt"}, {Name: "skills/.wh.c"}, {Name: "skills/a/SKILL.md"}},
			map[string]string{"skills/a/SKILL.md": skillDoc("a") + "Updated.\n"})})
	got = files(t, must(t, open(t, image, Options{}))(ctx))
	want := map[string]string{"a/SKILL.md": skillDoc("a") + "Updated.\n", "b/SKILL.md": skillDoc("b")}
	if len(got) != len(want) || got["a/SKILL.md"] != want["a/SKILL.md"] || got["b/SKILL.md"] != want["b/SKILL.md"] {
		t.Errorf("an image with whiteouts: %v", got)
	}
}

func must(t *testing.T, f *FS) func(context.Context) fs.FS {
	return func(ctx context.Context) fs.FS {
		t.Helper()
		s, err := f.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// TestHostile: what a registry or an artifact may do wrong gets an error
// that names the reference and says what, and a client sees no host.
func TestHostile(t *testing.T) {
	r := newReg(t)
	ctx := context.Background()
	good := tarLayer(t, true, []tar.Header{{Name: "a/SKILL.md"}}, map[string]string{"a/SKILL.md": skillDoc("a")})
	cases := []struct {
		name   string
		ref    func() string
		opts   Options
		setup  func()
		public string // in the error's public words
	}{
		{"an unknown media type", func() string {
			return pushManifest(t, r, "bad/mt", "1", "application/x.other", nil, layerSpec{"application/vnd.example.skills.v1+zip", []byte("PK")})
		}, Options{}, nil, `"application/vnd.example.skills.v1+zip"`},
		{"a link out", func() string {
			return pushManifest(t, r, "bad/link", "1", "application/x.other", nil, layerSpec{ocispec.MediaTypeImageLayerGzip,
				tarLayer(t, true, []tar.Header{{Name: "a/SKILL.md"}, {Name: "a/secret", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}}, map[string]string{"a/SKILL.md": skillDoc("a")})})
		}, Options{}, nil, "links are refused"},
		{"a path out", func() string {
			return pushManifest(t, r, "bad/path", "1", "application/x.other", nil, layerSpec{ocispec.MediaTypeImageLayerGzip,
				tarLayer(t, true, []tar.Header{{Name: "../a/SKILL.md"}}, map[string]string{"../a/SKILL.md": skillDoc("a")})})
		}, Options{}, nil, "leaves the archive"},
		{"a device", func() string {
			return pushManifest(t, r, "bad/dev", "1", "application/x.other", nil, layerSpec{ocispec.MediaTypeImageLayerGzip,
				tarLayer(t, true, []tar.Header{{Name: "a/null", Typeflag: tar.TypeChar}}, nil)})
		}, Options{}, nil, "not a regular file"},
		{"a tar bomb", func() string {
			return pushManifest(t, r, "bad/bomb", "1", "application/x.other", nil, layerSpec{ocispec.MediaTypeImageLayerGzip,
				tarLayer(t, true, []tar.Header{{Name: "a/SKILL.md"}, {Name: "a/zeros"}}, map[string]string{"a/SKILL.md": skillDoc("a"), "a/zeros": strings.Repeat("\x00", 1<<20)})})
		}, Options{MaxBytes: 64 << 10}, nil, "add up to over 65536 bytes"},
		{"too many layers", func() string {
			var ls []layerSpec
			for range 5 {
				ls = append(ls, layerSpec{ocispec.MediaTypeImageLayerGzip, good})
			}
			return pushManifest(t, r, "bad/layers", "1", "application/x.other", nil, ls...)
		}, Options{MaxLayers: 4}, nil, "5 layers (the limit is 4)"},
		{"a digest that lies", func() string {
			return pushManifest(t, r, "bad/lie", "1", "application/x.other", nil, layerSpec{ocispec.MediaTypeImageLayerGzip, good})
		}, Options{}, func() { r.lie.Store(true) }, "does not match its digest"},
		{"a registry that asks for credentials", func() string {
			return pushManifest(t, r, "bad/auth", "1", "application/x.other", nil, layerSpec{ocispec.MediaTypeImageLayerGzip, good})
		}, Options{}, func() { r.auth.Store("ci:s3cret-token") }, ""},
	}
	for _, c := range cases {
		r.lie.Store(false)
		r.auth.Store("")
		ref := c.ref()
		if c.setup != nil {
			c.setup()
		}
		_, err := open(t, ref, c.opts).Snapshot(ctx)
		var pe *Error
		if err == nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), ref) {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		// Clients see what is wrong with the artifact, never a host; a
		// registry's own failure is not theirs to read.
		if pub := pe.Public(); !strings.Contains(pub, c.public) || strings.Contains(pub, r.host) || c.public == "" && pub != "" {
			t.Errorf("%s: public %q, want %q", c.name, pub, c.public)
		}
	}
	r.lie.Store(false)

	// With the credentials the registry asks for, it is served; with the
	// wrong ones it is not, and no error holds them.
	r.auth.Store("ci:s3cret-token")
	t.Setenv("SKILLSTORE_OCI_HOSTS", r.host)
	t.Setenv("SKILLSTORE_OCI_USERNAME", "ci")
	t.Setenv("SKILLSTORE_OCI_PASSWORD", "wr0ng-token")
	if _, err := open(t, "oci://"+r.host+"/bad/auth:1", Options{}).Snapshot(ctx); err == nil || strings.Contains(err.Error(), "wr0ng") {
		t.Errorf("with wrong credentials: %v", err)
	}
	t.Setenv("SKILLSTORE_OCI_PASSWORD", "s3cret-token")
	if _, err := open(t, "oci://"+r.host+"/bad/auth:1", Options{}).Snapshot(ctx); err != nil {
		t.Errorf("with the registry's credentials: %v", err)
	}

	// A registry that asks for a token (Docker's token flow): the
	// credentials buy a token from its token service, which is sent.
	r.auth.Store("")
	ref := pushManifest(t, r, "bad/token", "1", "application/x.other", nil, layerSpec{ocispec.MediaTypeImageLayerGzip, good})
	r.bearer.Store("ci:s3cret-token")
	f := open(t, ref, Options{})
	if _, err := f.Snapshot(ctx); err != nil || r.tokens.Load() == 0 {
		t.Errorf("a registry that asks for a token: %v (%d tokens)", err, r.tokens.Load())
	}
	t.Setenv("SKILLSTORE_OCI_PASSWORD", "wr0ng-token")
	if _, err := open(t, ref, Options{}).Snapshot(ctx); err == nil || strings.Contains(err.Error(), "wr0ng") || strings.Contains(err.Error(), registryToken) {
		t.Errorf("a token refused: %v", err)
	}
	r.bearer.Store("")
}

// TestCredentialHosts: the environment's credentials go to the registries
// SKILLSTORE_OCI_HOSTS lists, or, without it, to the first registry
// alone: a source on a second one is refused rather than sent them.
func TestCredentialHosts(t *testing.T) {
	t.Setenv("SKILLSTORE_OCI_PASSWORD", "tok")
	t.Setenv("SKILLSTORE_OCI_HOSTS", "")
	envPassword.Forget()
	if _, err := Open("oci://one.example/a:1", Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open("oci://one.example/b:1", Options{}); err != nil {
		t.Errorf("the same registry again: %v", err)
	}
	if _, err := Open("oci://two.example/a:1", Options{}); !errors.Is(err, ErrTokenHosts) || strings.Contains(err.Error(), "tok") {
		t.Errorf("a second registry: %v", err)
	}
	t.Setenv("SKILLSTORE_OCI_HOSTS", "one.example, three.example")
	for host, want := range map[string]bool{"one.example": true, "three.example": true, "two.example": false} {
		cred, err := credential(host)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := cred(context.Background(), host)
		if (c.Password == "tok") != want {
			t.Errorf("%s gets %+v", host, c)
		}
		if c, _ := cred(context.Background(), "elsewhere.example"); c.Password != "" {
			t.Errorf("%s's credentials go elsewhere", host)
		}
	}
}

// TestWhiteouts: a layer's whiteouts delete from the layers below it,
// never from itself; an opaque folder, the root's included, hides what
// lower layers put in it; a whiteout naming no file is refused.
func TestWhiteouts(t *testing.T) {
	r := newReg(t)
	ctx := context.Background()
	base := layerSpec{ocispec.MediaTypeImageLayer, tarLayer(t, false,
		[]tar.Header{{Name: "a/SKILL.md"}, {Name: "a/x.txt"}, {Name: "b/SKILL.md"}, {Name: "b/old/y.txt"}},
		map[string]string{"a/SKILL.md": skillDoc("a"), "a/x.txt": "x", "b/SKILL.md": skillDoc("b"), "b/old/y.txt": "y"})}
	same := pushManifest(t, r, "wh/same", "1", "application/x.other", nil, base,
		layerSpec{ocispec.MediaTypeImageLayer, tarLayer(t, false,
			[]tar.Header{{Name: "c/SKILL.md"}, {Name: "c/.wh..wh..opq"}, {Name: "b/old/.wh..wh..opq"}, {Name: "a/.wh.x.txt"}},
			map[string]string{"c/SKILL.md": skillDoc("c")})})
	got := files(t, must(t, open(t, same, Options{}))(ctx))
	if _, ok := got["c/SKILL.md"]; !ok || got["a/x.txt"] != "" || got["b/old/y.txt"] != "" || got["a/SKILL.md"] == "" || len(got) != 3 {
		t.Errorf("whiteouts: %v", got)
	}
	root := pushManifest(t, r, "wh/root", "1", "application/x.other", nil, base,
		layerSpec{ocispec.MediaTypeImageLayer, tarLayer(t, false, []tar.Header{{Name: ".wh..wh..opq"}, {Name: "d/SKILL.md"}}, map[string]string{"d/SKILL.md": skillDoc("d")})})
	if got := files(t, must(t, open(t, root, Options{}))(ctx)); len(got) != 1 || got["d/SKILL.md"] == "" {
		t.Errorf("an opaque root: %v", got)
	}
	bad := pushManifest(t, r, "wh/bad", "1", "application/x.other", nil, base,
		layerSpec{ocispec.MediaTypeImageLayer, tarLayer(t, false, []tar.Header{{Name: "a/.wh.."}}, nil)})
	if _, err := open(t, bad, Options{}).Snapshot(ctx); err == nil || !strings.Contains(err.Error(), "names no file") {
		t.Errorf("a whiteout of '..': %v", err)
	}
}

// TestBounds: what a layer inflates to is bounded, bytes skipped over
// included; a manifest that is not an image manifest, or has no layers,
// is refused; a refused manifest is not fetched again while the tag names
// it; an image index serves its first manifest; "." is no skill's name.
func TestBounds(t *testing.T) {
	r := newReg(t)
	ctx := context.Background()
	// 4 MiB of zeros in a whiteout's body: skipped, but inflated.
	zeros := strings.Repeat("\x00", 4<<20)
	bomb := pushManifest(t, r, "b/bomb", "1", "application/x.other", nil, layerSpec{ocispec.MediaTypeImageLayerGzip,
		tarLayer(t, true, []tar.Header{{Name: "a/SKILL.md"}, {Name: "a/.wh.z"}}, map[string]string{"a/SKILL.md": skillDoc("a"), "a/.wh.z": zeros})})
	f := open(t, bomb, Options{MaxBytes: 1 << 20})
	if _, err := f.Snapshot(ctx); err == nil || !strings.Contains(err.Error(), "inflate to over") {
		t.Errorf("a whiteout of 4 MiB: %v", err)
	}
	before := r.requests.Load()
	f.Refresh(ctx)
	if n := r.requests.Load() - before; n != 1 {
		t.Errorf("refreshing a refused manifest made %d requests, want 1", n)
	}

	// oras packs an artifact of no layers with the empty descriptor as one.
	noLayers := pushManifest(t, r, "b/none", "1", "application/x.other", nil)
	if _, err := open(t, noLayers, Options{}).Snapshot(ctx); err == nil || !strings.Contains(err.Error(), `"application/vnd.oci.empty.v1+json"`) {
		t.Errorf("no layers: %v", err)
	}

	dot := pushManifest(t, r, "b/dot", "1", "application/x.other", map[string]string{ocispec.AnnotationTitle: "."},
		layerSpec{ocispec.MediaTypeImageLayer, tarLayer(t, false, []tar.Header{{Name: "SKILL.md"}}, map[string]string{"SKILL.md": skillDoc("dot")})})
	if got := files(t, must(t, open(t, dot, Options{}))(ctx)); got["dot/SKILL.md"] == "" {
		t.Errorf("a title of '.': %v", got)
	}

	// An index: its first manifest.
	one := open(t, "oci://"+r.host+"/b/idx:1", Options{})
	m, err := one.repo.Resolve(ctx, strings.TrimPrefix(pushManifest(t, r, "b/idx", "m", "application/x.other", nil,
		layerSpec{ocispec.MediaTypeImageLayer, tarLayer(t, false, []tar.Header{{Name: "e/SKILL.md"}}, map[string]string{"e/SKILL.md": skillDoc("e")})}), "oci://"+r.host+"/b/idx:"))
	if err != nil {
		t.Fatal(err)
	}
	raw := []byte(`{"schemaVersion":2,"mediaType":"` + ocispec.MediaTypeImageIndex + `","manifests":[{"mediaType":"` + m.MediaType + `","digest":"` + m.Digest.String() + `","size":` + strconv.FormatInt(m.Size, 10) + `}]}`)
	d := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageIndex, Digest: digest.FromBytes(raw), Size: int64(len(raw))}
	if err := one.repo.Manifests().PushReference(ctx, d, bytes.NewReader(raw), "1"); err != nil {
		t.Fatal(err)
	}
	if got := files(t, must(t, one)(ctx)); got["e/SKILL.md"] == "" {
		t.Errorf("an index: %v", got)
	}
}

// TestHostileRegistry: a registry that sends a manifest larger than it
// said, an endless one, or says it is huge, or redirects a blob to plain
// HTTP on another host, is refused in bounded time and memory; a layer
// of more entries than allowed too.
func TestHostileRegistry(t *testing.T) {
	r := newReg(t)
	ctx := context.Background()
	good := tarLayer(t, true, []tar.Header{{Name: "a/SKILL.md"}}, map[string]string{"a/SKILL.md": skillDoc("a")})
	ref := pushManifest(t, r, "h/skills", "1", "application/x.other", nil, layerSpec{ocispec.MediaTypeImageLayerGzip, good})
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { w.Write(good) }))
	defer elsewhere.Close()
	endless := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", ocispec.MediaTypeImageManifest)
		chunk := bytes.Repeat([]byte(" "), 64<<10)
		for i := 0; i < 1<<14; i++ { // 1 GiB, if it were all read
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
	for _, c := range []struct {
		name string
		hook func(http.ResponseWriter, *http.Request) bool
		want string
	}{
		{"an endless manifest", func(w http.ResponseWriter, req *http.Request) bool {
			if req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/manifests/") {
				endless(w)
				return true
			}
			return false
		}, "fetching the manifest of"},
		{"a manifest said to be huge", func(w http.ResponseWriter, req *http.Request) bool {
			if req.Method == http.MethodHead && strings.Contains(req.URL.Path, "/manifests/") {
				w.Header().Set("Content-Type", ocispec.MediaTypeImageManifest)
				w.Header().Set("Docker-Content-Digest", "sha256:"+strings.Repeat("a", 64))
				w.Header().Set("Content-Length", "104857600")
				return true
			}
			return false
		}, "a manifest of 104857600 bytes"},
		{"a blob sent to plain HTTP elsewhere", func(w http.ResponseWriter, req *http.Request) bool {
			if req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/blobs/") {
				http.Redirect(w, req, elsewhere.URL+"/blob", http.StatusTemporaryRedirect)
				return true
			}
			return false
		}, "plain HTTP on another host"},
	} {
		h := c.hook
		r.hook.Store(&h)
		_, err := open(t, ref, Options{}).Snapshot(ctx)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	r.hook.Store(nil)
	many := pushManifest(t, r, "h/many", "1", "application/x.other", nil, layerSpec{ocispec.MediaTypeImageLayerGzip,
		tarLayer(t, true, []tar.Header{{Name: "a/SKILL.md"}, {Name: "a/1"}, {Name: "a/2"}, {Name: "a/3"}}, map[string]string{"a/SKILL.md": skillDoc("a")})})
	if _, err := open(t, many, Options{MaxEntries: 3}).Snapshot(ctx); err == nil || !strings.Contains(err.Error(), "over 3 entries") {
		t.Errorf("over the entries: %v", err)
	}
}

// TestScrub: an error's URLs keep their scheme and host alone: no path
// (an upload session), no query (a storage service's signature).
func TestScrub(t *testing.T) {
	e := &Error{Ref: "oci://r.example/team/skills:v1", What: "fetching a layer of", Err: errors.New(`GET "https://storage.example/blob/sha256:ab?X-Amz-Security-Token=SESSION&X-Amz-Signature=SIG": response status code 403; PUT "http://r.example/v2/u?_state=STATE"`)}
	got := e.Error()
	for _, secret := range []string{"SESSION", "SIG", "STATE", "/blob/"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q holds %s", got, secret)
		}
	}
	if !strings.Contains(got, "https://storage.example") || !strings.Contains(got, "oci://r.example/team/skills:v1") {
		t.Errorf("%q", got)
	}
}

// TestOpenRefs: references that cannot name an artifact are refused at
// once, saying how to write one.
func TestOpenRefs(t *testing.T) {
	for _, ref := range []string{"oci://", "oci:///repo:tag", "oci://user:pass@host/repo:tag", "oci://host/repo:tag?cache=x", "oci://host/Repo:tag", "oci://host/repo@sha256:zz"} {
		if _, err := Open(ref, Options{}); err == nil {
			t.Errorf("%s: opened", ref)
		} else if strings.Contains(err.Error(), "pass") {
			t.Errorf("%s: the error holds the password: %v", ref, err)
		}
	}
	f := open(t, "oci://registry.example.com/team/skills", Options{})
	if f.ref != "latest" || f.repo.PlainHTTP || f.Location() != "oci://registry.example.com/team/skills:latest" {
		t.Errorf("defaults: %q %v %q", f.ref, f.repo.PlainHTTP, f.Location())
	}
	if !open(t, "oci://registry.example.com/team/skills:v1?insecure=true", Options{}).repo.PlainHTTP {
		t.Error("?insecure=true is not plain HTTP")
	}
	if !open(t, "oci://127.0.0.1:5000/team/skills:v1", Options{}).repo.PlainHTTP {
		t.Error("a loopback registry is not plain HTTP")
	}
}

// TestCache: with a cache folder, a second source of the same artifact
// (a restart) fetches no layer; a cached layer altered on disk is
// discarded and fetched again.
func TestCache(t *testing.T) {
	r := newReg(t)
	ctx := context.Background()
	src, paths := fixtureFiles()
	res, err := Push(ctx, "oci://"+r.host+"/c/skills:v1", src, paths, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ref := "oci://" + r.host + "/c/skills:v1"
	if _, err := open(t, ref, Options{CacheDir: dir}).Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	blobs, _ := filepath.Glob(filepath.Join(dir, "blobs", "sha256", "*"))
	if len(blobs) != 1 {
		t.Fatalf("cached %v", blobs)
	}
	count := func() int64 {
		before := r.requests.Load()
		f := open(t, ref, Options{CacheDir: dir})
		s, err := f.Snapshot(ctx)
		if err != nil || f.Revision() != res.Digest || files(t, s)["weather/SKILL.md"] != string(src["weather/SKILL.md"].Data) {
			t.Fatalf("from the cache: %v", err)
		}
		return r.requests.Load() - before
	}
	if n := count(); n != 2 { // HEAD and GET of the manifest
		t.Errorf("a restart with the layer cached made %d requests, want 2", n)
	}
	data, _ := os.ReadFile(blobs[0])
	data[len(data)/2] ^= 0xff
	os.WriteFile(blobs[0], data, 0o600)
	if n := count(); n != 3 {
		t.Errorf("with the cached layer altered: %d requests, want 3", n)
	}
	if again, _ := os.ReadFile(blobs[0]); bytes.Equal(again, data) {
		t.Error("the altered layer was kept")
	}
}

// TestOneSkillName: a one-skill artifact is served under its SKILL.md's
// name when that is a valid skill name, else the first valid one of the
// annotations other tools set (the Agent Skills OCI artifact's,
// ToolHive's, ACR's, OCI's title; the manifest's, then its index's), else
// the repository's last path segment; a name that is no skill name is
// passed over.
func TestOneSkillName(t *testing.T) {
	r := newReg(t)
	ctx := context.Background()
	doc := func(name string) string { return "---\nname: " + name + "\ndescription: A skill.\n---\nBody.\n" }
	for i, c := range []struct {
		doc         string
		annotations map[string]string
		index       map[string]string // if set, the manifest is served through an index with these annotations
		want        string
	}{
		{doc("greeter"), nil, nil, "greeter"},
		{doc("greeter"), map[string]string{ocispec.AnnotationTitle: "other"}, nil, "greeter"},
		{doc("Not A Name"), map[string]string{"io.agentskills.skill.name": "from-spec", "dev.toolhive.skills.name": "from-toolhive"}, nil, "from-spec"},
		{"---\ndescription: No name.\n---\n", map[string]string{"dev.toolhive.skills.name": "from-toolhive", ocispec.AnnotationTitle: "from-title"}, nil, "from-toolhive"},
		{doc("../../etc"), map[string]string{"org.agent.skill.name": "from-acr"}, nil, "from-acr"},
		{"no frontmatter", map[string]string{ocispec.AnnotationTitle: "from-title"}, nil, "from-title"},
		{"no frontmatter", map[string]string{ocispec.AnnotationTitle: "PDF Forms"}, nil, "hello"},
		{"no frontmatter", nil, map[string]string{"dev.toolhive.skills.name": "from-index"}, "from-index"},
		{doc("x--y"), nil, nil, "hello"},
	} {
		tag := strconv.Itoa(i)
		ref := pushManifest(t, r, "ext/hello", tag, "application/x.other", c.annotations,
			layerSpec{ocispec.MediaTypeImageLayerGzip, tarLayer(t, true, []tar.Header{{Name: "SKILL.md"}, {Name: "run.sh"}}, map[string]string{"SKILL.md": c.doc, "run.sh": "echo\n"})})
		if c.index != nil {
			f := open(t, ref, Options{})
			m, err := f.repo.Resolve(ctx, tag)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{m}, Annotations: c.index})
			d := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageIndex, Digest: digest.FromBytes(raw), Size: int64(len(raw))}
			if err := f.repo.Manifests().PushReference(ctx, d, bytes.NewReader(raw), tag); err != nil {
				t.Fatal(err)
			}
		}
		got := files(t, must(t, open(t, ref, Options{}))(ctx))
		if len(got) != 2 || got[c.want+"/SKILL.md"] != c.doc || got[c.want+"/run.sh"] != "echo\n" {
			t.Errorf("%d: %v, want it under %s/", i, slices.Sorted(maps.Keys(got)), c.want)
		}
	}
}
