// Package wellknown serves skills that a site publishes the way the Agent
// Skills discovery RFC (v0.2.0) describes: an index at
// https://host/.well-known/agent-skills/index.json naming each skill's
// artifact (its SKILL.md, or a .zip or .tar.gz archive of its folder) and
// the artifact's SHA-256 digest.
//
// Importing it makes backends.Open handle https:// (and http://) URLs of
// a .well-known/agent-skills/ folder or its index.json. The index is
// fetched on first use and revalidated with its ETag on each refresh; an
// artifact is downloaded when one of its skill's files is first read (a
// catalog reads every SKILL.md, so the first catalog downloads them all),
// checked against its digest (a mismatch is refused, with an error), kept
// by digest, and unpacked with the safety rules of zip sources (no "..",
// absolute paths or links; a size cap).
//
// Security: a redirect to another host, and an artifact URL on another
// host, are refused unless Options.AllowHosts lists the host; responses
// are size-capped (index 16 MiB, artifact Options.MaxBytes).
package wellknown

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/fsdir"
	"github.com/skillstore/skillstore/store"
)

// Schema is the index format this package reads.
const Schema = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"

// Limits.
const (
	MaxIndexBytes   = 16 << 20
	DefaultMaxBytes = 64 << 20 // per artifact, packed and unpacked
)

func init() {
	for _, scheme := range []string{"https", "http"} {
		backends.Register(scheme, func(ctx context.Context, u *url.URL) (store.Source, error) {
			s, err := Open(u.String(), Options{})
			if err != nil {
				return store.Source{}, err
			}
			return store.Source{Location: s.Location(), Kind: "well-known", FS: s}, nil
		})
	}
}

// Options tune a Source.
type Options struct {
	// AllowHosts lists other hosts the index may redirect to or name
	// artifacts on (a CDN).
	AllowHosts []string
	// MaxBytes caps each artifact, downloaded and unpacked (default
	// DefaultMaxBytes).
	MaxBytes int64
	// Client is the HTTP client (default: one with a 30 s timeout).
	Client *http.Client
}

// Source is a site's published skills: an fs.FS of one folder per skill
// (store.SnapshotFS: each index version is a snapshot), refreshed by
// store.Refresher.
type Source struct {
	index *url.URL
	opts  Options
	hc    *http.Client

	mu   sync.Mutex // one index fetch at a time
	etag string
	cur  atomic.Pointer[view]

	artMu     sync.Mutex
	artifacts map[string]*download // by digest
}

// Open returns a Source for the URL of a .well-known/agent-skills/ folder
// or of its index.json. It does no I/O.
func Open(rawURL string, opts Options) (*Source, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("source %s: give the https:// URL of a site's /.well-known/agent-skills/ folder", backends.Redact(rawURL))
	}
	if u.User != nil {
		return nil, fmt.Errorf("source %s: put no credentials in the URL", backends.Redact(rawURL))
	}
	switch {
	case strings.HasSuffix(u.Path, "/index.json"):
	case strings.HasSuffix(u.Path, "/"):
		u.Path += "index.json"
	default:
		u.Path += "/index.json"
	}
	if !strings.Contains(u.Path, "/.well-known/agent-skills/") {
		return nil, fmt.Errorf("source %s: an https:// source must be a site's /.well-known/agent-skills/ folder (or its index.json)", backends.Redact(rawURL))
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	s := &Source{index: u, opts: opts, artifacts: map[string]*download{}}
	hc := opts.Client
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	c := *hc
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !s.hostAllowed(req.URL) {
			return fmt.Errorf("%w: %s", errOtherHost, req.URL.Host)
		}
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		return nil
	}
	s.hc = &c
	return s, nil
}

var errOtherHost = errors.New("refusing another host")

func (s *Source) hostAllowed(u *url.URL) bool {
	return strings.EqualFold(u.Host, s.index.Host) || slices.ContainsFunc(s.opts.AllowHosts, func(h string) bool { return strings.EqualFold(h, u.Host) })
}

// Location is the index's URL.
func (s *Source) Location() string { return s.index.String() }

// Open opens a file of the current index's skills, fetching the index on
// first use.
func (s *Source) Open(name string) (fs.File, error) {
	v, err := s.current(context.Background())
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return v.Open(name)
}

// Snapshot returns the skills of the current index. The result never
// changes; a refresh that finds a new index makes a new one.
func (s *Source) Snapshot(ctx context.Context) (fs.FS, error) { return s.current(ctx) }

func (s *Source) current(ctx context.Context) (*view, error) {
	if v := s.cur.Load(); v != nil {
		return v, nil
	}
	if err := s.Refresh(ctx); err != nil {
		return nil, err
	}
	return s.cur.Load(), nil
}

// Error is a .well-known source's failure; its text names no credential.
type Error struct {
	Source, Detail string
	Err            error

	private bool // Detail names a host (a network error): for the log only
}

func (e *Error) Error() string { return "source " + e.Source + ": " + e.Detail }
func (e *Error) Unwrap() error { return e.Err }

// Public is the explanation callers may see (store.PublicError): what is
// wrong with the index or an artifact, never a network error's hosts.
func (e *Error) Public() string {
	if e.private {
		return ""
	}
	return "the published skills: " + e.Detail
}

func (s *Source) errorf(err error, format string, a ...any) error {
	return &Error{Source: s.Location(), Detail: fmt.Sprintf(format, a...), Err: err}
}

// netError is a network failure: its detail stays in the log.
func (s *Source) netError(err error, format string, a ...any) error {
	return &Error{Source: s.Location(), Detail: fmt.Sprintf(format, a...), Err: err, private: true}
}

// Refresh fetches the index, with its ETag: an unchanged index costs a
// 304. On failure the index served so far stays.
func (s *Source) Refresh(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.index.String(), nil)
	if err != nil {
		return s.errorf(err, "%v", err)
	}
	if s.etag != "" && s.cur.Load() != nil {
		req.Header.Set("If-None-Match", s.etag)
	}
	req.Header.Set("Accept", "application/json")
	res, err := s.hc.Do(req)
	if err != nil {
		if errors.Is(err, errOtherHost) {
			return s.errorf(err, "the index redirects to another host; refusing it (allow the host to follow it)")
		}
		return s.netError(err, "cannot fetch the index: %s", reason(err))
	}
	defer res.Body.Close()
	switch {
	case res.StatusCode == http.StatusNotModified:
		return nil
	case res.StatusCode != http.StatusOK:
		return s.errorf(nil, "fetching the index answered %s", res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, MaxIndexBytes+1))
	if err != nil {
		return s.netError(err, "reading the index: %s", reason(err))
	}
	if len(body) > MaxIndexBytes {
		return s.errorf(nil, "the index is over %d MiB", MaxIndexBytes>>20)
	}
	v, err := s.parse(body)
	if err != nil {
		return err
	}
	s.etag = res.Header.Get("ETag")
	s.cur.Store(v)
	s.artMu.Lock() // artifacts the new index no longer names are let go
	for digest := range s.artifacts {
		if !v.hasDigest(digest) {
			delete(s.artifacts, digest)
		}
	}
	s.artMu.Unlock()
	return nil
}

func (v *view) hasDigest(d string) bool {
	for _, e := range v.skills {
		if e.digest == d {
			return true
		}
	}
	return false
}

// reason is an HTTP error's cause without the URL it names.
func reason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// index is the discovery index as read.
type index struct {
	Schema *string `json:"$schema"`
	Skills []struct {
		Name        string `json:"name"`
		Type        string `json:"type"`
		Description string `json:"description"`
		URL         string `json:"url"`
		Digest      string `json:"digest"`
	} `json:"skills"`
}

// parse reads an index into a view. Entries that break the RFC (a bad
// name, an unknown type, a malformed digest, a URL on another host) are
// left out; a bad index as a whole is an error.
func (s *Source) parse(body []byte) (*view, error) {
	var idx index
	if err := json.Unmarshal(body, &idx); err != nil {
		return nil, s.errorf(err, "the index is not valid JSON: %v", err)
	}
	switch {
	case idx.Schema == nil:
		return nil, s.errorf(nil, "the index has no $schema: a v0.1.0 index, which has no digests; publish a v0.2.0 index (%s)", Schema)
	case *idx.Schema != Schema:
		return nil, s.errorf(nil, "the index's $schema %q is not one this server reads (%s)", store.Echo(*idx.Schema), Schema)
	}
	v := &view{src: s, skills: map[string]entry{}}
	for _, e := range idx.Skills {
		u, err := s.index.Parse(e.URL)
		hexDigest, okDigest := strings.CutPrefix(e.Digest, "sha256:")
		switch {
		case !store.SpecName(e.Name), v.skills[e.Name].url != nil,
			e.Type != "skill-md" && e.Type != "archive",
			!okDigest || len(hexDigest) != 64 || strings.Trim(hexDigest, "0123456789abcdef") != "",
			err != nil || !s.hostAllowed(u) || (u.Scheme != "https" && u.Scheme != "http"):
			slog.Warn("a .well-known index entry breaks the discovery RFC (name, type, digest) or names another host; left out",
				"source", s.Location(), "name", store.Echo(e.Name), "type", store.Echo(e.Type))
			continue
		}
		v.skills[e.Name] = entry{kind: e.Type, url: u, digest: hexDigest}
		v.names = append(v.names, e.Name)
	}
	slices.Sort(v.names)
	return v, nil
}

// entry is one skill of an index.
type entry struct {
	kind   string
	url    *url.URL
	digest string // hex
}

// view is one index's skills, as an fs.FS: a folder per skill, whose
// files come from its artifact.
type view struct {
	src    *Source
	skills map[string]entry
	names  []string
}

func (v *view) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		ents := make([]fs.DirEntry, len(v.names))
		for i, n := range v.names {
			ents[i] = fsdir.Entry(n)
		}
		return fsdir.Open(".", ents), nil
	}
	skill, rest, _ := strings.Cut(name, "/")
	e, ok := v.skills[skill]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	files, err := v.src.artifact(context.Background(), skill, e)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if rest == "" {
		rest = "."
	}
	f, err := files.Open(rest)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return f, nil
}

// download is one artifact, fetched once; a failure is remembered for
// retryAfter, so a tampered artifact is not downloaded on every read.
type download struct {
	once   sync.Once
	files  fs.FS
	err    error
	failed time.Time
}

const retryAfter = time.Minute

// artifact returns the skill's files, downloading and checking its
// artifact the first time.
func (s *Source) artifact(ctx context.Context, skill string, e entry) (fs.FS, error) {
	s.artMu.Lock()
	d := s.artifacts[e.digest]
	if d == nil {
		d = &download{}
		s.artifacts[e.digest] = d
	}
	s.artMu.Unlock()
	d.once.Do(func() {
		if d.files, d.err = s.fetch(ctx, skill, e); d.err != nil {
			d.failed = time.Now()
		}
	})
	if d.err != nil && time.Since(d.failed) > retryAfter {
		s.artMu.Lock()
		if s.artifacts[e.digest] == d {
			delete(s.artifacts, e.digest) // the next read tries again
		}
		s.artMu.Unlock()
	}
	return d.files, d.err
}

func (s *Source) fetch(ctx context.Context, skill string, e entry) (fs.FS, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.url.String(), nil)
	if err != nil {
		return nil, s.errorf(err, "skill %s: %v", skill, err)
	}
	res, err := s.hc.Do(req)
	if err != nil {
		if errors.Is(err, errOtherHost) {
			return nil, s.errorf(err, "skill %s: its artifact redirects to another host; refusing it", skill)
		}
		return nil, s.netError(err, "skill %s: cannot download its artifact: %s", skill, reason(err))
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, s.errorf(nil, "skill %s: downloading its artifact answered %s", skill, res.Status)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, s.opts.MaxBytes+1))
	if err != nil {
		return nil, s.netError(err, "skill %s: reading its artifact: %s", skill, reason(err))
	}
	if int64(len(data)) > s.opts.MaxBytes {
		return nil, s.errorf(nil, "skill %s: its artifact is over %d MiB", skill, s.opts.MaxBytes>>20)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != e.digest {
		return nil, s.errorf(nil, "skill %s: its artifact does not match the index's digest (sha256:%s…, downloaded sha256:%s…); refusing it", skill, e.digest[:12], got[:12])
	}
	ctype := res.Header.Get("Content-Type")
	if e.kind == "skill-md" { // served as a one-file archive, the one reader of skills here
		if data, err = zipOf(store.DocName, data); err != nil {
			return nil, err
		}
		ctype = "application/zip"
	}
	isTar := strings.Contains(ctype, "gzip") || strings.Contains(ctype, "x-tar") ||
		(!strings.Contains(ctype, "zip") && (strings.HasSuffix(e.url.Path, ".tar.gz") || strings.HasSuffix(e.url.Path, ".tgz")))
	if isTar {
		if data, err = tarToZip(data, s.opts.MaxBytes); err != nil {
			return nil, s.errorf(err, "skill %s: its archive: %v", skill, err)
		}
	}
	a, err := backends.Zip(bytes.NewReader(data), int64(len(data)), backends.ArchiveOptions{MaxBytes: s.opts.MaxBytes, Name: skill})
	if err != nil {
		return nil, s.errorf(err, "skill %s: its archive: %v", skill, err)
	}
	if _, err := fs.Stat(a, skill+"/"+store.DocName); err != nil {
		return nil, s.errorf(nil, "skill %s: its archive has no SKILL.md at its root", skill)
	}
	return fs.Sub(a, skill)
}

// zipOf is a zip holding one file.
func zipOf(name string, data []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
	if err == nil {
		_, err = w.Write(data)
	}
	if err == nil {
		err = zw.Close()
	}
	return buf.Bytes(), err
}

// tarToZip repacks a .tar.gz as a zip, refusing what a zip source
// refuses: links, devices, "..", absolute paths, and over maxBytes.
func tarToZip(data []byte, maxBytes int64) ([]byte, error) {
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not a gzip-compressed tar: %w", err)
	}
	tr := tar.NewReader(gz)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	var total int64
	entries := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not a readable tar: %w", err)
		}
		name := strings.TrimPrefix(h.Name, "./")
		if name == "" || name == "." {
			continue
		}
		clean := path.Clean(name)
		if path.IsAbs(name) || clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(name, `\`) {
			return nil, fmt.Errorf("%w: entry %q leaves the archive", backends.ErrUnsafeArchive, store.Echo(h.Name))
		}
		if entries++; entries > backends.DefaultMaxArchiveEntries {
			return nil, fmt.Errorf("%w: over %d entries", backends.ErrUnsafeArchive, backends.DefaultMaxArchiveEntries)
		}
		switch h.Typeflag {
		case tar.TypeDir, tar.TypeXGlobalHeader: // git archive writes a pax global header
			continue
		case tar.TypeReg:
		default:
			return nil, fmt.Errorf("%w: entry %q is a link or a special file", backends.ErrUnsafeArchive, store.Echo(h.Name))
		}
		if total += h.Size; total > maxBytes {
			return nil, fmt.Errorf("%w: uncompressed size exceeds %d bytes", backends.ErrUnsafeArchive, maxBytes)
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: clean, Method: zip.Store, Modified: h.ModTime})
		if err != nil {
			return nil, err
		}
		if _, err := io.Copy(w, io.LimitReader(tr, h.Size)); err != nil {
			return nil, fmt.Errorf("not a readable tar: %w", err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
