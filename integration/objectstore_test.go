// Package integration runs skillstore against real object stores (versitygw
// for S3, fake-gcs-server for GCS, Azurite for Azure) and real MCP clients
// (mcp-go over the built binary, the official TypeScript SDK, the MCP
// conformance suite). Tests skip with a message naming what is missing when
// a store or client is not installed; ./scripts/test.sh installs them all.
package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/mark3labs/mcp-go/client"

	"github.com/skillstore/skillstore/backends"
	_ "github.com/skillstore/skillstore/backends/azureblob"
	"github.com/skillstore/skillstore/backends/backendtest"
	"github.com/skillstore/skillstore/backends/blobfs"
	_ "github.com/skillstore/skillstore/backends/gcsblob"
	_ "github.com/skillstore/skillstore/backends/s3blob"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/mcpserver/mcpgoclient"
	"github.com/skillstore/skillstore/mcpserver/mcptest"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// binary is the skillstore binary, built once.
var binary string

func TestMain(m *testing.M) { os.Exit(testutil.MainWithBinary(m, "../cmd/skillstore", &binary)) }

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// useEnv sets a store's client environment for this test.
func useEnv(t *testing.T, env []string) {
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// seed writes files into bucket under prefix.
func seed(t *testing.T, r *runningStore, bucket, prefix string, files map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	b, err := blob.OpenBucket(ctx, r.url(bucket, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for name, data := range files {
		if err := b.WriteAll(ctx, prefix+name, data, nil); err != nil {
			t.Fatalf("seeding %s: %v", name, err)
		}
	}
}

var runs atomic.Int64

// TestObjectStores runs, against each real store, the backend conformance
// suite and the whole MCP surface (in process and over the binary's stdio),
// then the failure cases.
func TestObjectStores(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			r := st.start(t)
			useEnv(t, r.env)
			r.createBucket(t, "skills")

			t.Run("Conformance", func(t *testing.T) {
				// A bucket never published, as backends.Open serves it. Its
				// Backend has no Update: such a bucket has no snapshots
				// (see blobfs.TestSource), so the contracts that need a
				// change are left to the unit tests.
				backendtest.Run(t, backendtest.Harness{
					Make: func(t *testing.T, files map[string][]byte) backendtest.Backend {
						prefix := fmt.Sprintf("conformance-%d/", runs.Add(1))
						seed(t, r, "skills", prefix, files)
						src, err := backends.Open(context.Background(), r.url("skills", prefix))
						if err != nil {
							t.Fatal(err)
						}
						t.Cleanup(func() { src.Close() })
						return backendtest.Backend{FS: src.FS}
					},
					Upgrades: backendtest.Upgrades{SnapshotFS: true, Refresher: true, RequestCounter: true, ContextFS: true},
				})
			})
			// The BucketFS such a Source lists, changed by writing and
			// deleting objects: Refresh, contexts and counts on a real store.
			t.Run("ConformanceBucket", func(t *testing.T) {
				backendtest.Run(t, backendtest.Harness{
					Make: func(t *testing.T, files map[string][]byte) backendtest.Backend {
						prefix := fmt.Sprintf("conformance-%d/", runs.Add(1))
						b, _, err := blobfs.OpenBucket(context.Background(), r.url("skills", prefix))
						if err != nil {
							t.Fatal(err)
						}
						bfs := blobfs.NewBucketFS(b, blobfs.BucketOptions{Location: "test", Logger: quiet})
						t.Cleanup(func() { bfs.Close() })
						update := func(next map[string][]byte) {
							ctx := context.Background()
							for k := range files {
								if _, kept := next[k]; !kept {
									if err := b.Delete(ctx, k); err != nil {
										t.Fatal(err)
									}
								}
							}
							for k, v := range next {
								if err := b.WriteAll(ctx, k, v, nil); err != nil {
									t.Fatal(err)
								}
							}
							files = next
						}
						update(files)
						return backendtest.Backend{FS: bfs, Update: update}
					},
					Upgrades: backendtest.Upgrades{Refresher: true, RequestCounter: true, ContextFS: true},
				})
			})

			seed(t, r, "skills", "mcp/", fixture.Skills())
			url := r.url("skills", "mcp/")
			t.Run("MCPInProcess", func(t *testing.T) {
				src, err := backends.Open(context.Background(), url)
				if err != nil {
					t.Fatal(err)
				}
				src.Label = "project" // the label the MCP suite expects (a bucket's default is "org")
				defer src.Close()
				s, err := store.New([]store.Source{src}, store.Options{Logger: quiet})
				if err != nil {
					t.Fatal(err)
				}
				srv, err := mcpserver.New(context.Background(), tools.New(s, tools.Options{}), mcpserver.Options{Logger: quiet})
				if err != nil {
					t.Fatal(err)
				}
				c := mcpgoclient.New(srv)
				defer c.Close()
				if err := c.Start(context.Background()); err != nil {
					t.Fatal(err)
				}
				mcptest.Run(t, c, mcptest.Options{Forbidden: r.secrets, WeatherPath: tools.SkillLocation(src.Location, "weather")})
				// A warm read costs no backend request.
				before := src.FS.(*blobfs.FS).Bucket().Requests()
				for range 2 {
					if f, err := s.View(nil).ReadFile(context.Background(), "calculator", "examples/basic.py", &store.ReadOptions{Text: true}); err != nil || f.Text != fixture.BasicPy {
						t.Fatalf("warm read: %q %v", f.Text, err)
					}
				}
				if after := src.FS.(*blobfs.FS).Bucket().Requests(); after != before {
					t.Errorf("warm reads cost requests: %+v → %+v", before, after)
				}
				if reqs := s.Stats().Requests; len(reqs) != 1 || reqs[0].List == 0 || reqs[0].Get == 0 {
					t.Errorf("request counts for metrics: %+v", reqs)
				}
			})
			t.Run("MCPStdio", func(t *testing.T) {
				for _, version := range []string{"2025-06-18", ""} {
					c, err := client.NewStdioMCPClient(binary, append(os.Environ(), r.env...), "serve", "--source", "project="+url, "--log-level", "error")
					if err != nil {
						t.Fatal(err)
					}
					mcptest.Run(t, c, mcptest.Options{Forbidden: r.secrets, ProtocolVersion: version, WeatherPath: tools.SkillLocation(backends.Redact(url), "weather")})
					c.Close()
				}
			})
			t.Run("Failures", func(t *testing.T) { checkFailures(t, st, r) })
		})
	}
}

// checkFailures: a missing bucket, bad credentials and a store that stops
// mid-run each give a clear error without a credential, and the server
// keeps serving what it can.
func checkFailures(t *testing.T, o objectStore, r *runningStore) {
	ctx := context.Background()
	listErr := func(t *testing.T, url string) error {
		src, err := backends.Open(ctx, url)
		if err != nil {
			return err
		}
		defer src.Close()
		s, err := store.New([]store.Source{src}, store.Options{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.View(nil).List(ctx)
		return err
	}
	clean := func(t *testing.T, msg string) {
		t.Helper()
		for _, s := range append(r.secrets, "AKIA") {
			if strings.Contains(msg, s) {
				t.Errorf("message leaks a credential: %s", msg)
			}
		}
	}

	t.Run("MissingBucket", func(t *testing.T) {
		err := listErr(t, r.url("no-such-bucket", ""))
		if !errors.Is(err, store.ErrSourceNotFound) {
			t.Fatalf("err = %v; want the skills-folder-not-found error", err)
		}
		missing := backends.Redact(r.url("no-such-bucket", ""))
		if msg, _ := tools.Describe(err); msg != "Skills folder not found at path: "+missing {
			t.Errorf("message: %s", msg)
		}
		clean(t, err.Error())
		cmd := exec.Command(binary, "list", "-s", r.url("no-such-bucket", ""))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err == nil || stdout.Len() != 0 || userLines(stderr.String()) != "skillstore: Skills folder not found at path: "+missing+"\n"+
			"skillstore: check the folder, bucket or container name and prefix of "+missing+"\n" {
			t.Errorf("CLI: %v\n%s%s", err, stdout.String(), stderr.String())
		}
		out := stdout.String() + stderr.String()
		clean(t, out)
	})

	if len(r.secrets) > 0 { // stores that check credentials
		// A fresh process: gocloud's default openers read credentials from
		// the environment once per process.
		t.Run("BadCredentials", func(t *testing.T) {
			env := append([]string(nil), os.Environ()...)
			for _, kv := range r.env {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "AWS_SECRET_ACCESS_KEY":
					v = "wrong-secret-value"
				case "AZURE_STORAGE_KEY":
					v = "d3Jvbmcta2V5LXdyb25nLWtleS13cm9uZy1rZXktd3Jvbmcta2V5LXdyb25nLWtleQ=="
				}
				env = append(env, k+"="+v)
			}
			cmd := exec.Command(binary, "list", "-s", r.url("skills", "mcp/"))
			cmd.Env = env
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			out := stdout.String() + stderr.String()
			if err == nil || stdout.Len() != 0 || userLines(stderr.String()) != "skillstore: Permission denied reading skills folder\n"+
				"skillstore: check the credentials for "+backends.Redact(r.url("skills", "mcp/"))+
				" (AWS_*, GOOGLE_APPLICATION_CREDENTIALS or AZURE_STORAGE_* for object storage; file permissions for a folder)\n" {
				t.Errorf("CLI with bad credentials: %v\n%s", err, out)
			}
			clean(t, out)
			if strings.Contains(out, "wrong-secret-value") || strings.Contains(out, "d3Jvbmcta2V5") {
				t.Errorf("CLI output carries the credential: %s", out)
			}
		})
	}

	t.Run("StoreStopsMidRun", func(t *testing.T) {
		r2 := o.start(t)
		useEnv(t, r2.env)
		r2.createBucket(t, "skills")
		seed(t, r2, "skills", "", fixture.Skills())
		u := r2.url("skills", "")
		if strings.Contains(u, "?") {
			u += "&timeout=3s"
		} else {
			u += "?timeout=3s"
		}
		src, err := backends.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		// Every read is due for a check: after the stop, the cached copy is
		// checked against the stopped store, with no wait.
		s, err := store.New([]store.Source{src}, store.Options{Logger: quiet, RevalidateAfter: time.Nanosecond})
		if err != nil {
			t.Fatal(err)
		}
		tl := tools.New(s, tools.Options{})
		doc, err := json.Marshal(fixture.WeatherDoc)
		if err != nil {
			t.Fatal(err)
		}
		weather := `{"skill_name":"weather","documentation":` + string(doc) + `,"uri":"skill://weather/SKILL.md","mimeType":"text/markdown"}`
		if got, err := tl.Call(ctx, "get_skill", `{"skill_name":"weather"}`); err != nil || got != weather {
			t.Fatalf("before stop: %s %v", got, err)
		}
		r2.stop()
		revalidations := s.Stats().Revalidations
		// Cached content is still served...
		if got, err := tl.Call(ctx, "get_skill", `{"skill_name":"weather"}`); err != nil || got != weather {
			t.Errorf("cached read after stop: %s %v", got, err)
		}
		if st := s.Stats(); st.Revalidations == revalidations && st.ServedStale == 0 {
			t.Errorf("the cached read after stop was not checked against the store: %+v", st)
		}
		// ...and an uncached read fails clearly.
		got, err := tl.Call(ctx, "read_file_in_skill", `{"skill_name":"calculator","file_path":"docs/deep/notes.md"}`)
		if err != nil || got != "ERROR: Cannot read file 'docs/deep/notes.md': the skill source is temporarily unavailable; "+
			"try again, and if it persists ask the operator to check the server log" {
			t.Errorf("read after stop: %s", got)
		}
		clean(t, got)
		if strings.Contains(got, r2.addr) {
			t.Errorf("message names the store's address: %s", got)
		}
		list := `{"skills":["calculator","weather"],"details":[` +
			`{"name":"calculator","description":"Basic arithmetic operations.","uri":"skill://calculator/SKILL.md","source":"org"},` +
			`{"name":"weather","description":"Weather forecasts by location.","uri":"skill://weather/SKILL.md","source":"org"}]}`
		if got, err := tl.Call(ctx, "list_skills", `{}`); err != nil || got != list {
			t.Errorf("list after stop: %s %v", got, err)
		}
	})
}

// userLines is a command's stderr without its log lines (time=…, and the
// cloud SDKs' own, which start with "SDK "): the lines a user reads.
func userLines(stderr string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(stderr, "\n") {
		if strings.HasPrefix(line, "skillstore: ") {
			b.WriteString(line)
		}
	}
	return b.String()
}
