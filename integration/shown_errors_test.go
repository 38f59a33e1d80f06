package integration

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"
	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/backends/blobfs"
	"github.com/skillstore/skillstore/backends/gitfs"
	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/backends/wellknown"
	"github.com/skillstore/skillstore/internal/gittest"
	"github.com/skillstore/skillstore/internal/storetest"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// unavailable is what a client is told of a backend failure that its
// backend did not mark safe to show (store.PublicError).
const unavailable = "the skill source is temporarily unavailable; try again, and if it persists ask the operator to check the server log"

// TestShownErrors: what a client sees of each backend's failures. A
// backend's own words reach a client only when the backend marks them
// public (store.PublicError: gitfs and wellknown do, for what is wrong
// with the repository or the index); every other failure reads as
// "temporarily unavailable", or in the store's own words for the kinds it
// knows, whatever the backend's error names (a host, a host path). Each
// case's backend error does name something (hidden), so the case fails if
// it reaches the client. (NewEmbedded returns the filesystem it is given,
// and has no failure of its own.)
func TestShownErrors(t *testing.T) {
	cases := []struct {
		name string
		// source serves calc (read "calc/notes.md" fails) or fails as a
		// whole (read "").
		source func(t *testing.T) store.Source
		read   string // "" lists the catalog
		want   string // tools.Describe's message: what the client sees
		// hidden is what the backend's error names and the client must
		// not see ("" for none: os.Root's errors name no host path).
		hidden string
	}{
		{"local: a link loop", localLoop, "calc/loop.md",
			"Cannot read file 'loop.md': too many levels of symbolic links", ""},
		{"archive: a checksum mismatch", corruptArchive, "calc/notes.md",
			"Cannot read file 'notes.md': " + unavailable, zip.ErrChecksum.Error()},
		{"afero: the filesystem fails", failingAfero, "calc/notes.md",
			"Cannot read file 'notes.md': " + unavailable, aferoHostPath},
		{"blobfs: the store fails", failingBucket, "calc/notes.md",
			"Cannot read file 'notes.md': " + unavailable, failingHost},
		{"blobfs: the store refuses the credentials", failingBucket, "calc/locked.md",
			"Cannot read file 'locked.md': permission denied", "mem://corp"},
		{"snapshot: a blob is missing", brokenSnapshot, "calc/notes.md",
			"Cannot read file 'notes.md': " + unavailable, "is missing from the published folder"},
		{"gitfs: the repository has no such ref (public)", gitNoRef, "",
			`Cannot read skills folder: the git source: no branch, tag or commit "nope" in the repository`, "127.0.0.1"},
		{"gitfs: the remote cannot be reached", gitUnreachable, "",
			"Cannot read skills folder: " + unavailable, "127.0.0.1"},
		{"wellknown: the index answers 500 (public)", indexFails, "",
			"Cannot read skills folder: the published skills: fetching the index answered 500 Internal Server Error", "127.0.0.1"},
		{"wellknown: the site cannot be reached", siteUnreachable, "",
			"Cannot read skills folder: " + unavailable, "127.0.0.1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.source(t)
			t.Cleanup(func() { src.Close() })
			s, err := store.New([]store.Source{src}, store.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if tc.read == "" {
				_, err = s.View(nil).List(ctx)
			} else {
				if _, lerr := s.View(nil).Skill(ctx, "calc"); lerr != nil {
					t.Fatalf("the skill is not served: %v", lerr)
				}
				skill, file, _ := strings.Cut(tc.read, "/")
				_, err = s.View(nil).ReadFile(ctx, skill, file, nil)
			}
			if err == nil {
				t.Fatal("no error")
			}
			msg, _ := tools.Describe(err)
			if msg != tc.want {
				t.Errorf("the client sees\n%q\nwant\n%q", msg, tc.want)
			}
			if tc.hidden != "" {
				if !strings.Contains(chainText(err), tc.hidden) {
					t.Errorf("the backend's error does not name %q, so the case checks nothing: %v", tc.hidden, chainText(err))
				}
				if strings.Contains(msg, tc.hidden) {
					t.Errorf("the client sees %q", tc.hidden)
				}
			}
		})
	}
}

// chainText is the text of err and of every error it wraps.
func chainText(err error) string {
	var b strings.Builder
	var walk func(error)
	walk = func(err error) {
		for err != nil {
			b.WriteString(err.Error() + "\n")
			if multi, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range multi.Unwrap() {
					walk(e)
				}
				return
			}
			err = errors.Unwrap(err)
		}
	}
	walk(err)
	return b.String()
}

// localLoop is a folder whose calc/loop.md is a link to a link to it.
func localLoop(t *testing.T) store.Source {
	dir := testutil.TempTree(t, map[string][]byte{"calc/SKILL.md": []byte(storetest.ShownDoc)})
	for link, target := range map[string]string{"loop.md": "loop2.md", "loop2.md": "loop.md"} {
		if err := os.Symlink(target, filepath.Join(dir, "calc", link)); err != nil {
			t.Fatal(err)
		}
	}
	l, err := backends.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	return store.Source{Label: "project", Location: "./skills", FS: l}
}

// corruptArchive is a zip file whose calc/notes.md does not match the
// CRC-32 its entry declares.
func corruptArchive(t *testing.T) store.Source {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range map[string]string{"calc/SKILL.md": storetest.ShownDoc, "calc/notes.md": "notes\n"} {
		sum := crc32.ChecksumIEEE([]byte(data))
		if name == "calc/notes.md" {
			sum++
		}
		w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Store, CRC32: sum,
			CompressedSize64: uint64(len(data)), UncompressedSize64: uint64(len(data))})
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "pack.zip")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := backends.OpenArchive(file, backends.ArchiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return store.Source{Label: "archive", Location: "pack.zip", FS: a}
}

// failingAfero is an afero filesystem whose calc/notes.md cannot be
// opened, with an error that names a host path.
func failingAfero(t *testing.T) store.Source {
	mem := afero.NewMemMapFs()
	for name, data := range map[string]string{"calc/SKILL.md": storetest.ShownDoc, "calc/notes.md": "notes\n"} {
		if err := afero.WriteFile(mem, name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return store.Source{Label: "project", Location: "afero", FS: backends.NewAfero(failOpen{mem, "calc/notes.md", aferoHostPath})}
}

const aferoHostPath = "/srv/secret/skills"

// failOpen is an afero.Fs whose file name fails to open, with a cause
// that names dir (NewAfero names the path in the source in place of a
// path error's path, and keeps the cause's words).
type failOpen struct {
	afero.Fs
	name, dir string
}

func (f failOpen) Open(name string) (afero.File, error) {
	if name == f.name {
		return nil, &fs.PathError{Op: "open", Path: f.dir + "/" + name, Err: errors.New("input/output error reading " + f.dir)}
	}
	return f.Fs.Open(name)
}

// failingBucket is a bucket whose driver fails to read calc/notes.md
// with an error naming the store's host, and refuses the credentials for
// calc/locked.md.
func failingBucket(t *testing.T) store.Source {
	d := &failingDriver{files: map[string]string{"calc/SKILL.md": storetest.ShownDoc, "calc/notes.md": "notes\n", "calc/locked.md": "locked\n"}}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	b := blobfs.NewBucketFS(blob.NewBucket(d), blobfs.BucketOptions{Location: "mem://corp", Logger: quiet})
	return store.Source{Label: "org", Location: "mem://corp", FS: blobfs.New(b)}
}

const failingHost = "10.0.0.7:443"

var (
	errMissing = errors.New("no such object")
	errDenied  = errors.New("access denied")
)

// failingDriver is a gocloud bucket driver of files that answers
// listings and reads, except reads of calc/notes.md and calc/locked.md.
// Writes and the rest are not used here (the embedded nil interface).
type failingDriver struct {
	driver.Bucket
	files map[string]string
}

func (d *failingDriver) ErrorCode(err error) gcerrors.ErrorCode {
	switch {
	case errors.Is(err, errMissing):
		return gcerrors.NotFound
	case errors.Is(err, errDenied):
		return gcerrors.PermissionDenied
	}
	return gcerrors.Unknown
}

func (d *failingDriver) As(any) bool             { return false }
func (d *failingDriver) ErrorAs(error, any) bool { return false }
func (d *failingDriver) Close() error            { return nil }

func (d *failingDriver) ListPaged(_ context.Context, opts *driver.ListOptions) (*driver.ListPage, error) {
	page := &driver.ListPage{}
	for key, data := range d.files {
		if strings.HasPrefix(key, opts.Prefix) {
			page.Objects = append(page.Objects, &driver.ListObject{Key: key, Size: int64(len(data)), ModTime: time.Unix(0, 0)})
		}
	}
	return page, nil
}

func (d *failingDriver) Attributes(_ context.Context, key string) (*driver.Attributes, error) {
	data, ok := d.files[key]
	if !ok {
		return nil, errMissing
	}
	return &driver.Attributes{Size: int64(len(data)), ModTime: time.Unix(0, 0)}, nil
}

func (d *failingDriver) NewRangeReader(_ context.Context, key string, _, _ int64, _ *driver.ReaderOptions) (driver.Reader, error) {
	switch key {
	case "calc/notes.md":
		return nil, errors.New("GET https://" + failingHost + "/corp/calc/notes.md: connection reset by peer")
	case "calc/locked.md":
		return nil, errDenied
	}
	data, ok := d.files[key]
	if !ok {
		return nil, errMissing
	}
	return &memReader{Reader: strings.NewReader(data), attrs: driver.ReaderAttributes{ContentType: "text/markdown", ModTime: time.Unix(0, 0), Size: int64(len(data))}}, nil
}

type memReader struct {
	*strings.Reader
	attrs driver.ReaderAttributes
}

func (r *memReader) Close() error                         { return nil }
func (r *memReader) Attributes() *driver.ReaderAttributes { return &r.attrs }
func (r *memReader) As(any) bool                          { return false }

// brokenSnapshot is a published folder whose manifest names a blob of
// calc/notes.md that is not there.
func brokenSnapshot(t *testing.T) store.Source {
	dir := t.TempDir()
	write := func(key string, data []byte) {
		testutil.WriteTree(t, dir, map[string][]byte{key: data})
	}
	sk := snapshot.Skill{Dir: "calc", DocPath: "SKILL.md", Frontmatter: "name: calc\ndescription: Adds numbers.\n"}
	for _, f := range []struct{ path, data string }{{"SKILL.md", storetest.ShownDoc}, {"notes.md", "notes\n"}} {
		sum := snapshot.Sum([]byte(f.data))
		if f.path == "SKILL.md" {
			write(snapshot.BlobKey(sum), []byte(f.data)) // notes.md's blob is left out
		}
		sk.Files = append(sk.Files, snapshot.File{Path: f.path, Size: int64(len(f.data)), ModTime: time.Unix(0, 0).UTC(), SHA256: sum})
	}
	m := snapshot.Manifest{Version: snapshot.Version, ID: "20240101T000000.000000000Z-test", Published: time.Unix(0, 0).UTC(), Skills: []snapshot.Skill{sk}}
	body, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	write(snapshot.ManifestKey(m.ID), body)
	pointer, err := json.Marshal(snapshot.Pointer{Version: snapshot.Version, Snapshot: m.ID, SHA256: snapshot.Sum(body), Published: m.Published})
	if err != nil {
		t.Fatal(err)
	}
	write(snapshot.PointerKey, pointer)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	fsys, err := snapshot.Open(context.Background(), snapshot.NewFSObjects(os.DirFS(dir)), snapshot.Options{Location: "published", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return store.Source{Label: "org", Location: "published", FS: fsys}
}

// gitNoRef is a repository asked for a ref it does not have.
func gitNoRef(t *testing.T) store.Source {
	r := gittest.NewServer(t).Repo(t, "skills")
	r.Commit("main", map[string][]byte{"calc/SKILL.md": []byte(storetest.ShownDoc)})
	repo, err := gitfs.Open(r.URL+"?ref=nope", gitfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return store.Source{Label: "org", Location: repo.Location(), FS: repo}
}

// gitUnreachable is a repository on a port nothing listens on.
func gitUnreachable(t *testing.T) store.Source {
	repo, err := gitfs.Open("git+http://"+closedAddr(t)+"/org/skills.git", gitfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return store.Source{Label: "org", Location: repo.Location(), FS: repo}
}

// indexFails is a site whose index answers 500.
func indexFails(t *testing.T) store.Source {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "failing at /srv/www", http.StatusInternalServerError)
	}))
	t.Cleanup(ts.Close)
	site, err := wellknown.Open(ts.URL+"/.well-known/agent-skills/", wellknown.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return store.Source{Label: "org", Location: site.Location(), FS: site}
}

// siteUnreachable is a site on a port nothing listens on.
func siteUnreachable(t *testing.T) store.Source {
	site, err := wellknown.Open("http://"+closedAddr(t)+"/.well-known/agent-skills/", wellknown.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return store.Source{Label: "org", Location: site.Location(), FS: site}
}

// closedAddr is a loopback address nothing listens on (one that did).
func closedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
