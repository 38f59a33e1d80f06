// Command release builds skillstore's release files: for each target, a
// static binary (CGO off, -trimpath, no build id, the version stamped
// into main.version) packed with the documentation (README.md,
// BENCHMARKS.md and every file of docs/) into an archive (.tar.gz, .zip
// for Windows) and, with -sbom, a CycloneDX SBOM of the binary's
// modules made by cyclonedx-gomod; then a checksums file (SHA-256, in the
// format sha256sum -c reads) over them all. Archives are reproducible:
// entries in a fixed order, owned by uid 0, dated SOURCE_DATE_EPOCH (else
// the HEAD commit's time), with no gzip name or time, so one commit and Go
// toolchain give the same bytes on any machine. scripts/release.sh runs it.
//
//	go run ./internal/release -version v1.2.3 -out dist [-sbom PATH] [GOOS/GOARCH...]
//
// With no targets it builds linux, darwin and windows on amd64 and arm64.
package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Targets are the GOOS/GOARCH pairs a release holds.
var Targets = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// versionPattern is a semantic version with a leading v (v1.2.3, v1.2.3-rc.1).
var versionPattern = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fl := flag.NewFlagSet("release", flag.ContinueOnError)
	version := fl.String("version", "", "the release's version, e.g. v1.2.3 (stamped into the binary; archive names drop the v)")
	out := fl.String("out", "dist", "folder to write the release files to (an earlier release's skillstore_* files there are removed first)")
	sbom := fl.String("sbom", "", "path of cyclonedx-gomod, to write an SBOM beside each archive")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if !versionPattern.MatchString(*version) {
		return fmt.Errorf("-version %q: give a semantic version with a leading v, e.g. v1.2.3 or v1.2.3-rc.1", *version)
	}
	targets := fl.Args()
	if len(targets) == 0 {
		targets = Targets
	}
	for _, t := range targets {
		if !slices.Contains(Targets, t) {
			return fmt.Errorf("target %q: choose among %s", t, strings.Join(Targets, ", "))
		}
	}
	mtime, err := sourceDate()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(*out, "skillstore_*")) // an earlier release's files, and only those
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	root, err := os.OpenRoot(".")
	if err != nil {
		return err
	}
	defer root.Close()
	docs, err := docFiles(root.FS())
	if err != nil {
		return fmt.Errorf("run from the repository's root: %w", err)
	}
	work, err := os.MkdirTemp("", "skillstore-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	var files []string
	for _, t := range targets {
		goos, goarch, _ := strings.Cut(t, "/")
		exe := "skillstore"
		if goos == "windows" {
			exe += ".exe"
		}
		bin := filepath.Join(work, goos+"_"+goarch, exe)
		start := time.Now()
		if err := build(bin, goos, goarch, *version); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
		binary, err := os.ReadFile(bin)
		if err != nil {
			return err
		}
		base := fmt.Sprintf("skillstore_%s_%s_%s", strings.TrimPrefix(*version, "v"), goos, goarch)
		entries := append([]entry{{name: exe, mode: 0o755, data: binary}}, docs...)
		name := base + ".tar.gz"
		write := writeTarGz
		if goos == "windows" {
			name, write = base+".zip", writeZip
		}
		if err := writeFile(filepath.Join(*out, name), func(w io.Writer) error { return write(w, entries, mtime) }); err != nil {
			return err
		}
		files = append(files, name)
		if *sbom != "" {
			doc := base + ".sbom.cdx.json"
			cmd := exec.Command(*sbom, "bin", "-json", "-noserial", "-notimestamp", "-version", *version, "-output", filepath.Join(*out, doc), bin)
			if b, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%s: SBOM: %v\n%s", t, err, b)
			}
			files = append(files, doc)
		}
		fmt.Fprintf(stdout, "%s (%s)\n", name, time.Since(start).Round(100*time.Millisecond))
	}
	sums := fmt.Sprintf("skillstore_%s_checksums.txt", strings.TrimPrefix(*version, "v"))
	if err := writeFile(filepath.Join(*out, sums), func(w io.Writer) error { return writeChecksums(w, *out, files) }); err != nil {
		return err
	}
	fmt.Fprintln(stdout, sums)
	return nil
}

// build compiles ./cmd/skillstore for goos/goarch into bin, reproducibly.
func build(bin, goos, goarch, version string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -buildid= -X main.version="+version, "-o", bin, "./cmd/skillstore")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GOFLAGS=")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

// sourceDate is the time archive entries carry: SOURCE_DATE_EPOCH, else
// the HEAD commit's time.
func sourceDate() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		b, err := exec.Command("git", "log", "-1", "--format=%ct").Output()
		if err != nil {
			return time.Time{}, errors.New("set SOURCE_DATE_EPOCH (seconds since 1970) to date the archives' entries, or run in a git clone")
		}
		s = strings.TrimSpace(string(b))
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil || sec < 315532800 { // zip cannot date a file before 1980
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: give seconds since 1970, from 1980 on", s)
	}
	return time.Unix(sec, 0).UTC(), nil
}

// docFiles are the documentation files an archive carries beside the
// binary, in this order: README.md, BENCHMARKS.md, then every file under
// docs/ by path (hidden ones left out). The README and the pages link to
// each other and to BENCHMARKS.md, so those links resolve in the unpacked
// archive too. A missing README.md or BENCHMARKS.md, or a docs/ without a
// file, is an error: fsys is not the repository's root.
func docFiles(fsys fs.FS) ([]entry, error) {
	names := []string{"README.md", "BENCHMARKS.md"}
	err := fs.WalkDir(fsys, "docs", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && name != "docs" {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			names = append(names, name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(names) == 2 {
		return nil, errors.New("docs/ holds no file")
	}
	var entries []entry
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		entries = append(entries, entry{name: name, mode: 0o644, data: data})
	}
	return entries, nil
}

// entry is a file in an archive.
type entry struct {
	name string
	mode int64
	data []byte
}

// writeTarGz writes entries, in order, as a gzip-compressed tar whose
// bytes depend on nothing else.
func writeTarGz(w io.Writer, entries []entry, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.DefaultCompression) // BestCompression: 3× the CPU for 1% smaller
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: e.name, Mode: e.mode, Size: int64(len(e.data)), ModTime: mtime, Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(e.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// writeZip writes entries, in order, as a zip whose bytes depend on
// nothing else.
func writeZip(w io.Writer, entries []entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(os.FileMode(e.mode))
		f, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := f.Write(e.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// writeChecksums writes "SHA256  NAME" for each of names (files in dir),
// sorted by name, as sha256sum prints them.
func writeChecksums(w io.Writer, dir string, names []string) error {
	names = slices.Sorted(slices.Values(names))
	for _, name := range names {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), name); err != nil {
			return err
		}
	}
	return nil
}

// writeFile creates path and writes it with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
