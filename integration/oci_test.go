package integration

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/tools"
)

var registryBin = binPath("SKILLSTORE_IT_REGISTRY", "../.cache/bin/registry")

// startRegistry runs the CNCF distribution registry on 127.0.0.1 with
// its storage in a temporary folder, and returns its host:port and a
// function that stops it.
func startRegistry(t *testing.T) (string, func()) {
	t.Helper()
	requireBinary(t, registryBin, "the distribution registry (go install github.com/distribution/distribution/v3/cmd/registry@v3.1.2)")
	ran(t, "OCI registry (distribution)")
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yml")
	err := os.WriteFile(config, []byte("version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: "+filepath.Join(dir, "data")+"\n  delete:\n    enabled: true\nhttp:\n  addr: "+addr+"\n"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	cmd := launch(t, addr, registryBin, []string{"serve", config}, []string{"OTEL_TRACES_EXPORTER=none"})
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
		}
	}
	t.Cleanup(stop)
	return addr, stop
}

// TestOCI publishes a real corpus to a real registry with the binary's
// own publish, serves it from there, follows the tag when it moves, keeps
// a digest pinned, and keeps serving when the registry goes down.
func TestOCI(t *testing.T) {
	host, stop := startRegistry(t)
	corpus, want := bundleCorpus(t)
	ref := "oci://" + host + "/team/skills:v1"
	out, errOut, err := run(t, t.TempDir(), binary, "publish", corpus, ref)
	m := regexp.MustCompile(`pushed (sha256:[0-9a-f]{64})`).FindStringSubmatch(out)
	if err != nil || m == nil || !strings.Contains(out, "5 skills") {
		t.Fatalf("publish: %v\n%s%s", err, out, errOut)
	}
	first := m[1]

	list, errOut, err := run(t, t.TempDir(), binary, "list", "--source", ref)
	if err != nil || strings.Count(list, "@"+first[:19]) != 5 {
		t.Errorf("list: %v\n%s%s", err, list, errOut)
	}

	empty := t.TempDir()
	pinned := "oci://" + host + "/team/skills@" + first
	base := serveIn(t, binary, empty, "--source", "tag="+ref, "--source", "pinned="+pinned, "--refresh", "200ms")
	checkServed(t, base, want)

	// A dry run checks the reference first: one with credentials in it is
	// refused without echoing them, a digest is no place to publish.
	for _, bad := range []string{"oci://ci:pa55word@" + host + "/team/skills:v1", pinned} {
		out, errOut, err := run(t, t.TempDir(), binary, "publish", "--dry-run", corpus, bad)
		if err == nil || strings.Contains(out+errOut, "pa55word") {
			t.Errorf("publish --dry-run %s: %v\n%s%s", bad, err, out, errOut)
		}
	}

	// The tag moves: the server follows it.
	os.WriteFile(filepath.Join(corpus, "weather", "SKILL.md"), []byte("---\nname: weather\ndescription: Moved along with its tag.\n---\nNew.\n"), 0o644)
	out, errOut, err = run(t, t.TempDir(), binary, "publish", corpus, ref)
	if err != nil || strings.Contains(out, first) {
		t.Fatalf("publish again: %v\n%s%s", err, out, errOut)
	}
	var got []byte
	if !testutil.Within(20*time.Second, func() bool {
		got, _ = fetch(t, base+"/skills/weather/raw/SKILL.md")
		return bytes.Contains(got, []byte("Moved along"))
	}) {
		t.Fatalf("the server did not follow the tag: %q", got)
	}

	// The digest stays where it was.
	list, errOut, err = run(t, t.TempDir(), binary, "list", "--source", pinned)
	if err != nil || !strings.Contains(list, "Weather forecasts by location.") || strings.Contains(list, "Moved along") {
		t.Errorf("the pinned digest after the tag moved: %v\n%s%s", err, list, errOut)
	}

	// Down: what was fetched keeps being served.
	stop()
	time.Sleep(500 * time.Millisecond) // real time: the server, another process, tries refreshes (every 200 ms) that fail
	for _, p := range []string{"calculator/examples/basic.py", "weather/SKILL.md"} {
		name, file, _ := strings.Cut(p, "/")
		if _, code := fetch(t, base+"/skills/"+name+"/raw/"+file); code != 200 {
			t.Errorf("%s while the registry is down: %d", p, code)
		}
	}
}

// serveIn starts the HTTP server of the binary at bin in dir (HOME there
// too, so no conventional folder exists) and returns its base URL.
func serveIn(t *testing.T, bin, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "HOME="+dir, "SKILLSTORE_SOURCES=")
	logs := &testutil.SyncBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return strings.TrimSuffix(testutil.WaitForMCPURL(t, logs), "/mcp")
}

// checkServed fetches every file of want (path → bytes) from the pages'
// raw downloads at base and compares it byte for byte.
func checkServed(t *testing.T, base string, want map[string][]byte) {
	t.Helper()
	for p, w := range want {
		name, file, _ := strings.Cut(p, "/")
		if got, code := fetch(t, base+"/skills/"+name+"/raw/"+tools.EscapePath(file)); code != 200 || !bytes.Equal(got, w) {
			t.Errorf("%s: %d, %d bytes, want %d", p, code, len(got), len(w))
		}
	}
}

// fetch GETs u and returns its body and status (testutil.Do).
func fetch(t *testing.T, u string) ([]byte, int) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, b := testutil.Do(t, req)
	return b, res.StatusCode
}

// ociLayer is a layer to push: its media type, and a function that
// gives its bytes, read twice (for its digest, then to upload it), so
// that a large one is never held.
type ociLayer struct {
	mediaType string
	open      func() io.Reader
}

// tarGzLayer is files (path → bytes) as a tar+gzip layer, paths sorted.
func tarGzLayer(t *testing.T, files map[string][]byte) ociLayer {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if err := tw.WriteHeader(&tar.Header{Name: p, Mode: 0o644, Size: int64(len(files[p])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(files[p])
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return ociLayer{ocispec.MediaTypeImageLayerGzip, func() io.Reader { return bytes.NewReader(buf.Bytes()) }}
}

// pushArtifact pushes layers under a manifest of artifactType with
// annotations to the registry at host (plain HTTP), tagged repo:tag.
func pushArtifact(t *testing.T, host, repo, tag, artifactType string, annotations map[string]string, layers ...ociLayer) {
	t.Helper()
	ctx := context.Background()
	r, err := remote.NewRepository(host + "/" + repo)
	if err != nil {
		t.Fatal(err)
	}
	r.PlainHTTP = true
	var descs []ocispec.Descriptor
	for _, l := range layers {
		d := digest.Canonical.Digester()
		size, err := io.Copy(d.Hash(), l.open())
		if err != nil {
			t.Fatal(err)
		}
		desc := ocispec.Descriptor{MediaType: l.mediaType, Digest: d.Digest(), Size: size}
		if err := r.Blobs().Push(ctx, desc, l.open()); err != nil {
			t.Fatalf("pushing a layer: %v", err)
		}
		descs = append(descs, desc)
	}
	desc, err := oras.PackManifest(ctx, r, oras.PackManifestVersion1_1, artifactType, oras.PackManifestOptions{Layers: descs, ManifestAnnotations: annotations})
	if err != nil {
		t.Fatalf("pushing the manifest: %v", err)
	}
	if err := r.Tag(ctx, desc, tag); err != nil {
		t.Fatalf("tagging: %v", err)
	}
}

// TestOCIOtherArtifacts serves, from a real registry, what other tools
// and hostile publishers push: a one-skill artifact with ToolHive's name
// annotation is named by its SKILL.md, not its repository; an image of six layers,
// each padded after its tar's end with 40 MiB of zeros, is listed by a
// process whose peak RSS stays under 160 MiB (the layers are read as they
// arrive, never held: they are 240 MiB); a layer with data after its
// gzip stream is refused, saying so.
func TestOCIOtherArtifacts(t *testing.T) {
	host, _ := startRegistry(t)
	doc := []byte("---\nname: greeter\ndescription: Greets people by name.\n---\nSay hello.\n")
	pushArtifact(t, host, "ext/hello", "1", "application/vnd.example.skill.v1", map[string]string{"dev.toolhive.skills.name": "greeter"},
		tarGzLayer(t, map[string][]byte{"SKILL.md": doc}))
	out, errOut, err := run(t, t.TempDir(), binary, "list", "--json", "--source", "oci://"+host+"/ext/hello:1")
	if err != nil || !strings.Contains(out, `"uri": "skill://greeter/SKILL.md"`) || strings.Contains(out, "skill://hello/") {
		t.Errorf("a ToolHive skill: %v\n%s%s", err, out, errOut)
	}

	var layers []ociLayer
	for i := range 6 {
		name := fmt.Sprintf("s%d", i)
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		d := []byte("---\nname: " + name + "\ndescription: Padded.\n---\n")
		tw.WriteHeader(&tar.Header{Name: name + "/SKILL.md", Mode: 0o644, Size: int64(len(d)), Typeflag: tar.TypeReg})
		tw.Write(d)
		tw.Close()
		layers = append(layers, ociLayer{ocispec.MediaTypeImageLayer, func() io.Reader {
			return io.MultiReader(bytes.NewReader(buf.Bytes()), io.LimitReader(testutil.Zeros, 40<<20))
		}})
	}
	pushArtifact(t, host, "big/padded", "1", "application/vnd.example.image.v1", nil, layers...)
	cmd := exec.Command(binary, "list", "--source", "oci://"+host+"/big/padded:1")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+cmd.Dir, "SKILLSTORE_SOURCES=")
	listed, rss, err := testutil.PeakRSS(cmd)
	if err != nil || strings.Count(string(listed), "Padded.") != 6 {
		t.Errorf("six padded layers: %v\n%s", err, listed)
	}
	if rss > 160<<20 {
		t.Errorf("listing six layers of 40 MiB peaked at %d MiB", rss>>20)
	}
	t.Logf("listing six layers of 40 MiB: peak RSS %d MiB", rss>>20)

	gz := tarGzLayer(t, map[string][]byte{"a/SKILL.md": []byte("---\nname: a\ndescription: A.\n---\n")})
	trailing := ociLayer{gz.mediaType, func() io.Reader { return io.MultiReader(gz.open(), strings.NewReader("trailing")) }}
	pushArtifact(t, host, "bad/trailing", "1", "application/x.other", nil, trailing)
	out, errOut, err = run(t, t.TempDir(), binary, "list", "--source", "oci://"+host+"/bad/trailing:1")
	if err == nil || !strings.Contains(out+errOut, "data follows the end of the gzip stream") {
		t.Errorf("data after the gzip stream: %v\n%s%s", err, out, errOut)
	}
}
