package integration

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

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
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, _ := fetch(t, base+"/skills/weather/raw/SKILL.md")
		if bytes.Contains(got, []byte("Moved along")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not follow the tag: %q", got)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The digest stays where it was.
	list, errOut, err = run(t, t.TempDir(), binary, "list", "--source", pinned)
	if err != nil || !strings.Contains(list, "Weather forecasts by location.") || strings.Contains(list, "Moved along") {
		t.Errorf("the pinned digest after the tag moved: %v\n%s%s", err, list, errOut)
	}

	// Down: what was fetched keeps being served.
	stop()
	time.Sleep(500 * time.Millisecond) // refreshes fail meanwhile
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
