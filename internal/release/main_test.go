package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/testutil"
)

var testEntries = []entry{
	{name: "skillstore", mode: 0o755, data: []byte("\x7fELF binary")},
	{name: "README.md", mode: 0o644, data: []byte("# skillstore\n")},
	{name: "docs/sources.md", mode: 0o644, data: []byte("# Sources\n")},
}

// TestArchives: each archive holds the entries in order with their modes
// and the source date, and its bytes depend on nothing else (two writes
// a second apart, on synctest's fake clock, are identical).
func TestArchives(t *testing.T) {
	mtime := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for name, write := range map[string]func(io.Writer, []entry, time.Time) error{"tar.gz": writeTarGz, "zip": writeZip} {
		var a, b bytes.Buffer
		synctest.Test(t, func(t *testing.T) {
			if err := write(&a, testEntries, mtime); err != nil {
				t.Fatal(err)
			}
			time.Sleep(1100 * time.Millisecond) // fake time: a clock read anywhere would now differ
			if err := write(&b, testEntries, mtime); err != nil {
				t.Fatal(err)
			}
		})
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two writes of the same entries differ", name)
		}
		got := readArchive(t, name, a.Bytes())
		want := []archived{
			{"skillstore", 0o755, mtime, "\x7fELF binary"},
			{"README.md", 0o644, mtime, "# skillstore\n"},
			{"docs/sources.md", 0o644, mtime, "# Sources\n"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

type archived struct {
	Name    string
	Mode    os.FileMode
	ModTime time.Time
	Data    string
}

func readArchive(t *testing.T, kind string, b []byte) []archived {
	t.Helper()
	var out []archived
	if kind == "zip" {
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		data := testutil.Unzip(t, b)
		for _, f := range zr.File {
			out = append(out, archived{f.Name, f.Mode().Perm(), f.Modified.UTC(), data[f.Name]})
		}
		return out
	}
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if gz.Name != "" || !gz.ModTime.IsZero() {
		t.Errorf("gzip header carries name %q, time %v", gz.Name, gz.ModTime)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: owned by %d:%d (%q:%q), want 0:0 without names", h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, archived{h.Name, h.FileInfo().Mode().Perm(), h.ModTime.UTC(), string(data)})
	}
	return out
}

// TestChecksums: one "SHA256  NAME" line per file, sorted by name, as
// sha256sum -c reads them.
func TestChecksums(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"b.zip": "bb", "a.tar.gz": "aa", "a.sbom.cdx.json": "{}"}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := writeChecksums(&buf, dir, []string{"b.zip", "a.tar.gz", "a.sbom.cdx.json"}); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, name := range []string{"a.sbom.cdx.json", "a.tar.gz", "b.zip"} {
		sum := sha256.Sum256([]byte(files[name]))
		want.WriteString(hex.EncodeToString(sum[:]) + "  " + name + "\n")
	}
	if diff := cmp.Diff(want.String(), buf.String()); diff != "" {
		t.Errorf("checksums (-want +got):\n%s", diff)
	}
}

// TestRunRefuses: a version that is not v-prefixed semver, an unknown
// target or an unusable source date is refused before anything is built.
func TestRunRefuses(t *testing.T) {
	tests := []struct {
		name, epoch string
		args        []string
		want        string
	}{
		{"no version", "1764590400", nil, `-version "": give a semantic version`},
		{"no v", "1764590400", []string{"-version", "1.2.3"}, `-version "1.2.3": give a semantic version`},
		{"not semver", "1764590400", []string{"-version", "v1.2"}, `-version "v1.2"`},
		{"unknown target", "1764590400", []string{"-version", "v1.2.3", "plan9/386"}, `target "plan9/386": choose among linux/amd64`},
		{"date before zip", "0", []string{"-version", "v1.2.3", "linux/amd64"}, `SOURCE_DATE_EPOCH "0": give seconds since 1970, from 1980 on`},
		{"date not a number", "yesterday", []string{"-version", "v1.2.3", "linux/amd64"}, `SOURCE_DATE_EPOCH "yesterday"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("SOURCE_DATE_EPOCH", tt.epoch)
			out := filepath.Join(t.TempDir(), "dist")
			err := run(append([]string{"-out", out}, tt.args...), io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("run(%q) = %v, want an error containing %q", tt.args, err, tt.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("the output folder was touched: %v", err)
			}
		})
	}
}

// TestDockerfileRunsAsNonRoot: the image's last stage runs as a user
// given by a non-zero number (a name such as "nonroot" makes Kubernetes'
// runAsNonRoot refuse to start the container: it cannot check a name).
func TestDockerfileRunsAsNonRoot(t *testing.T) {
	f, err := os.Open("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var user string
	stages := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		switch strings.ToUpper(fields[0]) {
		case "FROM":
			stages++
			user = "" // each stage starts as its base image's user
		case "USER":
			user = fields[1]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if stages == 0 {
		t.Fatal("the Dockerfile has no FROM")
	}
	ids := strings.Split(user, ":") // uid[:gid]
	for _, id := range ids {
		if n, err := strconv.Atoi(id); err != nil || n <= 0 || len(ids) > 2 {
			t.Errorf("the image runs as USER %q; want a non-zero numeric uid[:gid], e.g. 65532:65532", user)
			break
		}
	}
}
