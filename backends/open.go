// Package backends opens the places skills are stored as read-only fs.FS
// values: local directories (confined with os.Root), filesystems compiled
// into the binary, zip archives and any afero.Fs.
//
// Open turns what a user types into a store.Source; URL schemes are looked
// up in a registry that programs extend with Register. Object storage
// comes in driver packages, one per store, as with gocloud.dev: importing
// one registers its scheme, and only it links that store's SDK.
//
//	import _ "github.com/skillstore/skillstore/backends/s3blob"    // s3://
//	import _ "github.com/skillstore/skillstore/backends/gcsblob"   // gs://
//	import _ "github.com/skillstore/skillstore/backends/azureblob" // azblob://
//	import _ "github.com/skillstore/skillstore/backends/blobfs"    // mem://
//
// A program that imports only this package, store and tools links no cloud
// SDK. Every backend passes the conformance suite in backends/backendtest.
//
// This package imports none of its driver packages. Open serves a local
// folder as its files, even one `skillstore publish` wrote (a shared
// disk); the program that composes the sources serves such a folder from
// its current snapshot with snapshot.OpenFolder, as cmd/skillstore does.
// A bucket's published snapshot is blobfs's to read.
//
// Backends are made one way. A function named Open… opens what a path or
// URL names (snapshot.Open: what an object store holds) and returns the
// backend's type or an error: OpenLocal, OpenArchive, gitfs.Open,
// wellknown.Open, snapshot.Open, blobfs.OpenBucket, and Open, which
// returns a store.Source. It takes a context first when opening waits on
// the network (Open, snapshot.Open, blobfs.OpenBucket); git and
// .well-known sources connect on first read, so their Open does no I/O
// and takes none; snapshot.OpenFolder, given the local folder Open
// returned, reads its pointer. Options, if the backend has any, come
// last. A function named New… wraps a value the caller already holds (a
// reader, a bucket, a filesystem): NewArchive, NewAfero, NewEmbedded, blobfs.NewBucketFS,
// blobfs.New, snapshot.NewFSObjects. A backend's filesystem type is
// named for what it is (LocalFS, ArchiveFS, blobfs.BucketFS, gitfs.Repo)
// or, for the one a package serves as a source, FS (blobfs.FS,
// wellknown.FS, snapshot.FS); "source" means one thing, a store.Source: such a
// filesystem with its label and location.
package backends

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/store"
)

// Opener opens a source given as a URL of the scheme it is registered for.
// The URL may carry credentials; an Opener must not put them in errors.
type Opener func(ctx context.Context, u *url.URL) (store.Source, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]Opener{}
)

// Register makes Open handle URLs of scheme. It replaces any earlier opener
// for the scheme.
func Register(scheme string, o Opener) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[strings.ToLower(scheme)] = o
}

// Schemes returns the registered URL schemes, sorted.
func Schemes() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	var s []string
	for k := range registry {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// DriverPackage names the package that registers scheme, for messages
// when it is not linked in: backends/s3blob for s3://, backends/gcsblob for
// gs://, backends/azureblob for azblob://, backends/blobfs for mem://.
func DriverPackage(scheme string) (string, bool) {
	switch strings.ToLower(scheme) {
	case "s3":
		return "github.com/skillstore/skillstore/backends/s3blob", true
	case "gs":
		return "github.com/skillstore/skillstore/backends/gcsblob", true
	case "azblob":
		return "github.com/skillstore/skillstore/backends/azureblob", true
	case "mem":
		return "github.com/skillstore/skillstore/backends/blobfs", true
	case "git+https", "git+http", "git+ssh":
		return "github.com/skillstore/skillstore/backends/gitfs", true
	case "https", "http":
		return "github.com/skillstore/skillstore/backends/wellknown", true
	}
	return "", false
}

func init() {
	Register("file", func(_ context.Context, u *url.URL) (store.Source, error) {
		if u.Host != "" && u.Host != "localhost" {
			return store.Source{}, fmt.Errorf("file URL %s: only local files are supported (write file:///path)", Redact(u.String()))
		}
		return openPath(u.Path, Redact(u.String()))
	})
	Register("builtin", func(context.Context, *url.URL) (store.Source, error) {
		return labelled(store.Source{FS: Examples(), Location: "builtin://", Kind: "embedded"}), nil
	})
}

// Open opens a source from what a user types: a directory path ("./skills",
// "/srv/skills", "~/x"), a zip archive path ("pack.zip", "pdf.skill"), or a
// URL: file:///dir, s3://bucket?prefix=skills/&region=…&endpoint=…,
// gs://bucket?prefix=…, azblob://container?prefix=…, mem://, builtin://.
// Bucket URLs also take timeout=DURATION, the limit on each request
// (default 15s).
//
// The Source has the label DefaultLabel gives its kind; set Label to
// change it. Close it when done. Errors name the source as Redact shows
// it; no credential appears in them.
func Open(ctx context.Context, source string) (store.Source, error) {
	source = strings.TrimSpace(source)
	if source == "" {
		return store.Source{}, errors.New("empty source: give a directory, an archive or a URL such as s3://bucket?prefix=skills/")
	}
	scheme, _, hasScheme := strings.Cut(source, "://")
	if !hasScheme || len(scheme) < 2 { // "C:\x" is a path, not a URL
		return openPath(ExpandHome(source), source)
	}
	u, err := url.Parse(source)
	if err != nil {
		return store.Source{}, fmt.Errorf("source %s is not a valid URL", Redact(source))
	}
	registryMu.RLock()
	opener, ok := registry[strings.ToLower(u.Scheme)]
	registryMu.RUnlock()
	if !ok {
		if pkg, known := DriverPackage(u.Scheme); known {
			return store.Source{}, fmt.Errorf("source %s: this program does not include the %s:// driver; import %q to serve it",
				Redact(source), u.Scheme, pkg)
		}
		return store.Source{}, fmt.Errorf("source %s: unknown scheme %q; supported: %s, or a directory or .zip path",
			Redact(source), u.Scheme, strings.Join(Schemes(), ", "))
	}
	src, err := opener(ctx, u)
	if err != nil {
		return store.Source{}, err
	}
	return labelled(src), nil
}

// DefaultLabel is the label Open gives a source of kind: "project" for a
// local folder, "builtin" for skills compiled in, "archive" for a zip,
// "org" for the rest (object storage).
func DefaultLabel(kind string) string {
	switch kind {
	case "local":
		return "project"
	case "embedded":
		return "builtin"
	case "archive":
		return "archive"
	}
	return "org"
}

// labelled gives src its kind's default label if it has none.
func labelled(src store.Source) store.Source {
	if src.Label == "" {
		src.Label = DefaultLabel(src.Kind)
	}
	return src
}

// openPath opens a directory or an archive; shown is how errors name it.
func openPath(p, shown string) (store.Source, error) {
	src, err := openPathFS(p, shown)
	if err != nil {
		return store.Source{}, err
	}
	return labelled(src), nil
}

func openPathFS(p, shown string) (store.Source, error) {
	st, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return store.Source{}, fmt.Errorf("skills folder %s does not exist: %w", shown, fs.ErrNotExist)
		}
		if errors.Is(err, fs.ErrPermission) {
			return store.Source{}, fmt.Errorf("skills folder %s is not readable: %w", shown, fs.ErrPermission)
		}
		return store.Source{}, fmt.Errorf("skills folder %s: %w", shown, err)
	}
	if !st.IsDir() {
		switch strings.ToLower(filepath.Ext(p)) {
		case ".zip", ".skill":
			a, err := OpenArchive(p, ArchiveOptions{})
			if err != nil {
				return store.Source{}, err
			}
			return store.Source{FS: a, Location: shown, Kind: "archive"}, nil
		}
		return store.Source{}, fmt.Errorf("source %s is a file; give a directory of skill folders or a .zip/.skill archive", shown)
	}
	l, err := OpenLocal(p)
	if err != nil {
		return store.Source{}, fmt.Errorf("skills folder %s: %w", shown, errors.Unwrap(err))
	}
	return store.Source{FS: l, Location: shown, Kind: "local"}, nil
}

// ExpandHome replaces a leading "~" with the user's home directory.
func ExpandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// secretParams are query parameters that carry credentials in the URL
// forms of S3, GCS and Azure (SAS tokens) and of common tools.
var secretParams = []string{"key", "secret", "token", "password", "passwd", "credential", "sig", "signature", "sas", "auth"}

func isSecretParam(name string) bool {
	name = strings.ToLower(name)
	for _, s := range secretParams {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}

// Redact returns source with credentials removed: URL user information and
// the values of query parameters whose names suggest a secret (key, secret,
// token, password, credential, sig, signature, sas, auth) become "REDACTED".
// Plain paths are returned unchanged.
func Redact(source string) string {
	scheme, _, isURL := strings.Cut(source, ":")
	if !isURL || len(scheme) < 2 || strings.ContainsAny(scheme, `/\.`) {
		return source // a path, perhaps with a drive letter
	}
	u, err := url.Parse(source)
	if err != nil {
		return "(unparsable URL)"
	}
	if u.User != nil {
		u.User = url.User("REDACTED")
	}
	q := u.Query()
	changed := false
	for k, vs := range q {
		if isSecretParam(k) {
			q[k] = []string{"REDACTED"}
			changed = true
			continue
		}
		for i, v := range vs {
			if inner, ok := userinfoIn(v); ok { // endpoint=http://user:pass@host
				inner.User = url.User("REDACTED")
				vs[i] = inner.String()
				changed = true
			}
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// userinfoIn parses a query value that is itself a URL carrying
// credentials, such as endpoint=http://user:pass@host:9000.
func userinfoIn(v string) (*url.URL, bool) {
	if !strings.Contains(v, "@") || !strings.Contains(v, "://") {
		return nil, false
	}
	u, err := url.Parse(v)
	if err != nil || u.User == nil {
		return nil, false
	}
	return u, true
}

// Scrub removes from msg every credential that u carries, for drivers
// whose errors may repeat the URL they were given.
func Scrub(msg string, u *url.URL) string {
	var secrets []string
	if u.User != nil {
		secrets = append(secrets, u.User.String(), u.User.Username())
		if p, ok := u.User.Password(); ok {
			secrets = append(secrets, p, url.QueryEscape(p))
		}
	}
	for k, vs := range u.Query() {
		for _, v := range vs {
			if isSecretParam(k) {
				secrets = append(secrets, v, url.QueryEscape(v))
			} else if inner, ok := userinfoIn(v); ok {
				secrets = append(secrets, inner.User.String(), inner.User.Username())
				if p, ok := inner.User.Password(); ok {
					secrets = append(secrets, p, url.QueryEscape(p))
				}
			}
		}
	}
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	for _, s := range secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "REDACTED")
		}
	}
	return msg
}
