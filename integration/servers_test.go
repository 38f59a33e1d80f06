package integration

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"

	"github.com/skillstore/skillstore/internal/testutil"
)

// The stores' binaries. scripts/test.sh installs them under .cache and
// exports these variables; each falls back to that location.
var (
	versitygwBin = binPath("SKILLSTORE_IT_VERSITYGW", "../.cache/bin/versitygw")
	fakeGCSBin   = binPath("SKILLSTORE_IT_FAKE_GCS", "../.cache/bin/fake-gcs-server")
	azuriteBin   = binPath("SKILLSTORE_IT_AZURITE", "js/node_modules/.bin/azurite-blob")
)

func binPath(env, fallback string) string {
	if p := os.Getenv(env); p != "" {
		return p
	}
	if p, err := filepath.Abs(fallback); err == nil {
		return p
	}
	return fallback
}

// Credentials of the local test stores. They are placeholders for processes
// that live only as long as a test.
const (
	s3Access  = "skillstore-it"
	s3Secret  = "it-secret-Zq8v"
	azAccount = "devstoreaccount1"
	// azKey is Azurite's published development key.
	azKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// objectStore is one real store under test.
type objectStore struct {
	name string
	// start runs a fresh server; the test stops it in cleanup.
	start func(t *testing.T) *runningStore
}

// runningStore is a started store.
type runningStore struct {
	addr string
	proc *exec.Cmd
	// url returns the source URL of bucket with prefix (may be "").
	url func(bucket, prefix string) string
	// createBucket makes an empty bucket or container.
	createBucket func(t *testing.T, bucket string)
	// env is what a child process needs to reach the store.
	env []string
	// secrets must never appear in output.
	secrets  []string
	stopOnce sync.Once
	// bin and args start the store (restart starts it again, at the same
	// address and with the same data).
	bin  string
	args []string
}

// restart starts a stopped store again.
func (r *runningStore) restart(t *testing.T) {
	r.proc = launch(t, r.addr, r.bin, r.args, nil)
	r.stopOnce = sync.Once{}
}

// stop ends the store's process (and its children): SIGTERM, so a store
// that keeps its data in files saves it (Azurite), then SIGKILL after 3 s.
func (r *runningStore) stop() {
	r.stopOnce.Do(func() {
		if r.proc != nil && r.proc.Process != nil {
			syscall.Kill(-r.proc.Process.Pid, syscall.SIGTERM)
			done := make(chan struct{})
			go func() { r.proc.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				syscall.Kill(-r.proc.Process.Pid, syscall.SIGKILL)
				<-done
			}
		}
	})
}

var stores = []objectStore{
	{name: "s3", start: startS3},
	{name: "gcs", start: startGCS},
	{name: "azure", start: startAzure},
}

// freePort returns a port free on 127.0.0.1 at the time of the call.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// launch starts a server process in its own process group, logging to a
// buffer shown if the test fails, and waits until addr accepts connections.
func launch(t *testing.T, addr string, name string, args []string, env []string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logs := new(testutil.SyncBuffer)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", filepath.Base(name), err)
	}
	listening := func() bool {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err == nil
	}
	if !testutil.Within(60*time.Second, listening) { // node servers start slowly on a busy 2-core machine
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("%s did not listen on %s: %s", filepath.Base(name), addr, logs.String())
	}
	return cmd
}

// requireBinary skips the test when a real component is not installed,
// or fails it under the test command (testutil.RequireBinary).
func requireBinary(t *testing.T, path, what string) { testutil.RequireBinary(t, path, what) }

// ran records, when the test passes, that it exercised a real component.
func ran(t *testing.T, component string) { testutil.Ran(t, component) }

// startS3 runs versitygw with its POSIX backend: a bucket is a folder.
func startS3(t *testing.T) *runningStore {
	requireBinary(t, versitygwBin, "versitygw (S3)")
	ran(t, "S3 (versitygw)")
	root := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	args := []string{"--access", s3Access, "--secret", s3Secret, "--port", addr, "posix", root}
	cmd := launch(t, addr, versitygwBin, args, nil)
	r := &runningStore{
		bin: versitygwBin, args: args,
		addr: addr, proc: cmd,
		url: func(bucket, prefix string) string {
			u := "s3://" + bucket + "?region=us-east-1&use_path_style=true&endpoint=http://" + addr
			if prefix != "" {
				u += "&prefix=" + prefix
			}
			return u
		},
		createBucket: func(t *testing.T, bucket string) {
			if err := os.Mkdir(filepath.Join(root, bucket), 0o755); err != nil {
				t.Fatal(err)
			}
		},
		env:     []string{"AWS_ACCESS_KEY_ID=" + s3Access, "AWS_SECRET_ACCESS_KEY=" + s3Secret, "AWS_REGION=us-east-1"},
		secrets: []string{s3Secret},
	}
	t.Cleanup(r.stop)
	return r
}

// startGCS runs fake-gcs-server in memory. It must be told its public host,
// or reads return 404; clients find it through STORAGE_EMULATOR_HOST.
func startGCS(t *testing.T) *runningStore {
	requireBinary(t, fakeGCSBin, "fake-gcs-server (GCS)")
	ran(t, "GCS (fake-gcs-server)")
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	args := []string{"-scheme", "http", "-host", "127.0.0.1", "-port", fmt.Sprint(port),
		"-public-host", addr, "-external-url", "http://" + addr, "-backend", "filesystem", "-filesystem-root", t.TempDir(), "-log-level", "error"}
	cmd := launch(t, addr, fakeGCSBin, args, nil)
	r := &runningStore{
		bin: fakeGCSBin, args: args,
		addr: addr, proc: cmd,
		url: func(bucket, prefix string) string {
			u := "gs://" + bucket
			if prefix != "" {
				u += "?prefix=" + prefix
			}
			return u
		},
		createBucket: func(t *testing.T, bucket string) {
			resp, err := http.Post("http://"+addr+"/storage/v1/b?project=skillstore", "application/json", strings.NewReader(`{"name":"`+bucket+`"}`))
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("creating GCS bucket: %v %v", err, resp)
			}
			resp.Body.Close()
		},
		env: []string{"STORAGE_EMULATOR_HOST=" + addr},
	}
	t.Cleanup(r.stop)
	return r
}

// startAzure runs Azurite's blob service. Containers must exist before an
// upload: gocloud's WriteAll panics on a missing one.
func startAzure(t *testing.T) *runningStore {
	requireBinary(t, azuriteBin, "Azurite (Azure Blob Storage)")
	ran(t, "Azure (Azurite)")
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	args := []string{"--blobHost", "127.0.0.1", "--blobPort", fmt.Sprint(port),
		"--silent", "--skipApiVersionCheck", "--loose", "--location", t.TempDir()}
	cmd := launch(t, addr, azuriteBin, args, nil)
	r := &runningStore{
		bin: azuriteBin, args: args,
		addr: addr, proc: cmd,
		url: func(bucket, prefix string) string {
			u := "azblob://" + bucket + "?localemu=true&protocol=http&domain=" + addr
			if prefix != "" {
				u += "&prefix=" + prefix
			}
			return u
		},
		createBucket: func(t *testing.T, bucket string) {
			cred, err := azblob.NewSharedKeyCredential(azAccount, azKey)
			if err != nil {
				t.Fatal(err)
			}
			c, err := azblob.NewClientWithSharedKeyCredential("http://"+addr+"/"+azAccount, cred, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.CreateContainer(context.Background(), bucket, nil); err != nil {
				t.Fatalf("creating container: %v", err)
			}
		},
		env:     []string{"AZURE_STORAGE_ACCOUNT=" + azAccount, "AZURE_STORAGE_KEY=" + azKey},
		secrets: []string{azKey},
	}
	t.Cleanup(r.stop)
	return r
}
