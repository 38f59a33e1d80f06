// Package ocifs serves skills from an OCI registry: an artifact or an
// image, named by tag or by digest. Importing it makes backends.Open
// handle oci://REGISTRY/REPO:TAG and oci://REGISTRY/REPO@sha256:….
//
// The client is oras-go v2 (oras.land/oras-go/v2): a small library of the
// OCI distribution API alone, with no container runtime behind it, the
// Docker credential store and helpers, and content verified against its
// digest as it is read. go-containerregistry, the other candidate, is
// larger and image-minded; its in-process registry serves the tests.
//
// A refresh resolves the tag with one request (HEAD of its manifest) and
// downloads nothing while the digest is unchanged; a digest reference is
// fetched once and never asked about again. Every manifest and layer is
// verified against its digest and size, and what a snapshot holds is
// kept in memory by its manifest digest; with Options.CacheDir
// (--oci-cache), layers are kept on disk by digest too.
//
// Layers that are tar or tar+gzip archives are unpacked in order (later
// layers replace earlier files; OCI whiteouts delete them), with the rules
// every archive gets: no "..", absolute paths, links, device files or
// sparse files (a PAX global header is passed over); MaxBytes in all and
// MaxEntries entries. A layer is read as it arrives, through its digest,
// and never held whole: its files are laid over the others only once all
// of it proved to be the digest's. After a tar archive's end only its
// zero padding may follow, and nothing after a gzip stream. What is
// unpacked is a folder of skills, one skill (SKILL.md at its root), or
// either of those under one folder (an image FROM scratch with
// /skills/…). One skill is served under the name its SKILL.md gives, if
// that is a valid skill name; else the first valid skill name among the
// manifest's annotations, then its index's: io.agentskills.skill.name
// (the Agent Skills OCI artifact), dev.toolhive.skills.name (ToolHive),
// org.agent.skill.name (ACR's skill artifact), org.opencontainers.image.title;
// else the repository's last path segment. Layers of other media types
// are refused, naming them.
//
// Credentials: SKILLSTORE_OCI_USERNAME and SKILLSTORE_OCI_PASSWORD (a
// token as the password) for the registries SKILLSTORE_OCI_HOSTS lists
// (comma-separated), or, when it is unset, for the one registry the
// process's OCI sources are on (a source on a second registry is then
// refused: ErrTokenHosts); else the Docker configuration and credential
// helpers the user has (~/.docker/config.json, DOCKER_CONFIG). Never
// printed: errors name a URL by its scheme and host only. Plain HTTP is
// used only for a registry on this machine (127.0.0.1, ::1, localhost) or
// with ?insecure=true.
//
// Limits: a refresh has 2 minutes, and each response 30 s for its
// headers; a manifest or index is at most 4 MiB; a manifest has at most
// MaxLayers layers, each at most MaxBytes, and all of them at most twice
// MaxBytes (a layer the manifest lists again is fetched once, and counted
// once here); what the layers inflate to, skipped bytes and padding
// included and a layer listed again counted each time, is at most twice
// MaxBytes, and what they hold MaxBytes: the files' bytes, and their
// paths three times (the snapshot served holds each path thrice), the
// names of a layer's whiteouts once. A fetch holds the files the
// layers unpack to (at most what they inflate to) and then the archive
// they are served from, never a layer: about twice MaxBytes at its peak,
// beside the snapshot served meanwhile. A manifest that failed is
// remembered: while the tag names it, a refresh reports the same failure
// without fetching it again. Layers are kept with their snapshot, not
// across tags: a moved tag downloads its layers again.
//
// The registry the tests run in process is go-containerregistry's
// (pkg/registry, which has the referrers API); the integration tests use
// the CNCF distribution registry.
package ocifs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/netaddr"
	"github.com/skillstore/skillstore/store"
)

// Defaults for Options.
const (
	DefaultMaxBytes    = 256 << 20 // unpacked content of a snapshot
	DefaultMaxEntries  = 100_000   // files and folders of a snapshot
	DefaultMaxLayers   = 64        // layers of a manifest
	maxManifestBytes   = 4 << 20   // a manifest or index
	requestTimeout     = 2 * time.Minute
	defaultHTTPTimeout = 30 * time.Second
)

func init() {
	backends.Register("oci", func(ctx context.Context, u *url.URL) (store.Source, error) {
		max, _ := strconv.ParseInt(os.Getenv(CacheMaxEnv), 10, 64) // the command checks it
		f, err := Open(u.String(), Options{CacheDir: os.Getenv(CacheEnv), CacheMax: max})
		if err != nil {
			return store.Source{}, err
		}
		return store.Source{Location: f.Location(), Kind: "oci", FS: f}, nil
	})
}

// Options tune an FS. The zero value means the defaults.
type Options struct {
	MaxBytes   int64 // unpacked content (default 256 MiB)
	MaxEntries int   // entries of all layers (default 100,000)
	MaxLayers  int   // layers of the manifest (default 64)
	// CacheDir, if set, keeps verified layers by digest in this folder
	// (cache.go), so a restart, or a tag moved to a manifest that shares
	// layers, fetches only what it does not hold. The registered opener
	// takes it from CacheEnv.
	CacheDir string
	// CacheMax bounds the bytes CacheDir's blobs hold (default
	// DefaultCacheMax; negative: no bound), the least recently used
	// evicted first. The registered opener takes it from CacheMaxEnv.
	CacheMax int64
	// Insecure allows plain HTTP to a registry beyond this machine (the
	// URL's ?insecure=true sets it too).
	Insecure bool
	// Client is the HTTP client (tests); by default one that refuses a
	// redirect to plain HTTP on another host, with a header timeout.
	Client *http.Client
}

// FS is an OCI artifact or image as a skill source. It is safe for
// concurrent use.
type FS struct {
	repo  *remote.Repository
	ref   string // the tag or digest asked for
	pin   bool   // ref is a digest: it never changes
	shown string
	opts  Options

	mu      sync.Mutex // serializes refreshes
	cur     atomic.Pointer[snapshot]
	refused *refusal // the last manifest that failed (under mu)
}

// refusal is a manifest that could not be served, and why.
type refusal struct {
	digest string
	err    error
}

var (
	_ store.Refresher  = (*FS)(nil)
	_ store.SnapshotFS = (*FS)(nil)
	_ store.RevisionFS = (*FS)(nil)
)

// Open returns an FS for an oci:// URL. It does no I/O: the first read
// resolves and fetches.
func Open(rawURL string, opts Options) (*FS, error) {
	u, err := url.Parse(rawURL)
	if err != nil || !strings.EqualFold(u.Scheme, "oci") || u.Host == "" {
		return nil, fmt.Errorf("not an OCI reference: give oci://REGISTRY/REPOSITORY:TAG or oci://REGISTRY/REPOSITORY@sha256:…")
	}
	if u.User != nil {
		return nil, errors.New("an OCI reference must not hold credentials: set SKILLSTORE_OCI_USERNAME and SKILLSTORE_OCI_PASSWORD, or log in with docker login")
	}
	q := u.Query()
	switch v := q.Get("insecure"); v {
	case "true", "1":
		opts.Insecure = true
	case "", "false", "0":
	default:
		return nil, fmt.Errorf("insecure=%q in an OCI reference: give true or false", v)
	}
	if u.Fragment != "" {
		return nil, errors.New("an OCI reference has no #fragment")
	}
	for k := range q {
		if k != "insecure" {
			return nil, fmt.Errorf("unknown option %q in an OCI reference (known: insecure)", k)
		}
	}
	name := u.Host + u.Path
	ref, err := registry.ParseReference(name)
	if err != nil {
		return nil, fmt.Errorf("not an OCI reference (%v): give oci://REGISTRY/REPOSITORY:TAG or @sha256:…", err)
	}
	if ref.Reference == "" {
		ref.Reference = "latest"
	}
	repo, err := remote.NewRepository(ref.Registry + "/" + ref.Repository)
	if err != nil {
		return nil, err
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = DefaultMaxEntries
	}
	if opts.MaxLayers <= 0 {
		opts.MaxLayers = DefaultMaxLayers
	}
	if opts.CacheMax == 0 {
		opts.CacheMax = DefaultCacheMax
	}
	local := netaddr.IsLoopback(ref.Registry)
	repo.PlainHTTP = local || opts.Insecure
	repo.MaxMetadataBytes = maxManifestBytes
	hc := opts.Client
	if hc == nil {
		hc = &http.Client{Transport: transport(), CheckRedirect: checkRedirect}
	}
	cred, err := credential(ref.Registry)
	if err != nil {
		return nil, err
	}
	repo.Client = &auth.Client{Client: hc, Cache: auth.NewCache(), Credential: cred, Header: http.Header{"User-Agent": {"skillstore"}}}
	f := &FS{repo: repo, ref: ref.Reference, opts: opts, shown: "oci://" + ref.String()}
	if _, err := ref.Digest(); err == nil {
		f.pin = true
	}
	return f, nil
}

// transport is the default transport with bounds on a response's headers.
func transport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = defaultHTTPTimeout
	return t
}

// checkRedirect follows at most three redirects, and none from HTTPS to
// plain HTTP: registries send blob downloads to a storage service on
// another host, which content digests make safe to follow, and Go's
// client drops the Authorization header when the host changes.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 3 {
		return errors.New("more than 3 redirects")
	}
	if req.URL.Scheme != "https" && via[0].URL.Scheme == "https" {
		return fmt.Errorf("a redirect from HTTPS to plain HTTP (%s) is refused", req.URL.Host)
	}
	if req.URL.Scheme != "https" && req.URL.Host != via[0].URL.Host {
		return fmt.Errorf("a redirect to plain HTTP on another host (%s) is refused", req.URL.Host)
	}
	return nil
}

// credential gives host's credentials: the environment's, when they are
// for host (envFor), else the Docker configuration's (helpers included),
// else none. They are given for host alone.
func credential(host string) (auth.CredentialFunc, error) {
	env, err := envFor(host)
	if err != nil {
		return nil, err
	}
	var docker auth.CredentialFunc
	if st, err := credentials.NewStoreFromDocker(credentials.StoreOptions{}); err == nil {
		docker = credentials.Credential(st)
	}
	return func(ctx context.Context, hostport string) (auth.Credential, error) {
		switch {
		case !strings.EqualFold(hostport, host):
			return auth.EmptyCredential, nil
		case env != nil:
			return *env, nil
		case docker != nil:
			return docker(ctx, hostport)
		}
		return auth.EmptyCredential, nil
	}, nil
}

// envFor returns the environment's credentials if they are for host:
// SKILLSTORE_OCI_HOSTS lists it, or, when that is unset, host is the one
// registry of the process's OCI sources (the first opened claims them). A
// second registry while SKILLSTORE_OCI_HOSTS is unset is an error, so
// credentials never reach a registry they were not meant for.
func envFor(host string) (*auth.Credential, error) {
	ok, err := envPassword.For(host)
	if err != nil || !ok {
		return nil, err
	}
	return &auth.Credential{Username: os.Getenv("SKILLSTORE_OCI_USERNAME"), Password: os.Getenv("SKILLSTORE_OCI_PASSWORD")}, nil
}

// ErrTokenHosts reports an OCI source refused because the environment's
// credentials would otherwise go to more than one registry without
// SKILLSTORE_OCI_HOSTS saying so.
var ErrTokenHosts = errors.New("SKILLSTORE_OCI_PASSWORD needs SKILLSTORE_OCI_HOSTS")

// envPassword is SKILLSTORE_OCI_PASSWORD and the registries it goes to.
var envPassword = backends.EnvCredential{Secret: "SKILLSTORE_OCI_PASSWORD", Hosts: "SKILLSTORE_OCI_HOSTS", Sources: "OCI sources", Meant: "the registries the credentials are for", Err: ErrTokenHosts}

// Location is the reference as shown: no credentials.
func (f *FS) Location() string { return f.shown }

// Open opens a file of the snapshot served now, fetching on first use.
func (f *FS) Open(name string) (fs.File, error) {
	s, err := f.current(context.Background())
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return s.Open(name)
}

// Snapshot returns the files of the manifest served now, fetching on
// first use. The result never changes.
func (f *FS) Snapshot(ctx context.Context) (fs.FS, error) { return f.current(ctx) }

// Revision returns the digest of the manifest served now, or "" before
// the first fetch.
func (f *FS) Revision() string {
	if s := f.cur.Load(); s != nil {
		return s.digest
	}
	return ""
}

func (f *FS) current(ctx context.Context) (*snapshot, error) {
	if s := f.cur.Load(); s != nil {
		return s, nil
	}
	if err := f.Refresh(ctx); err != nil {
		return nil, err
	}
	return f.cur.Load(), nil
}

// Refresh resolves the tag (one request) and, if it names another
// manifest, fetches that manifest and its layers and serves them from
// then on. A digest reference is fetched once, then never again. On
// failure the snapshot served so far stays.
func (f *FS) Refresh(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	cur := f.cur.Load()
	if cur != nil && f.pin {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	desc, err := f.repo.Resolve(ctx, f.ref)
	if err != nil {
		return f.fail("resolving", err)
	}
	if cur != nil && cur.digest == desc.Digest.String() {
		return nil
	}
	if f.refused != nil && f.refused.digest == desc.Digest.String() {
		return f.refused.err // fetched before, and refused: not again while the tag names it
	}
	s, err := f.fetch(ctx, desc)
	var le *LayerError
	if errors.As(err, &le) {
		f.refused = &refusal{desc.Digest.String(), err}
	}
	if err != nil {
		return err
	}
	f.refused = nil
	f.cur.Store(s)
	return nil
}

// fail describes a registry's failure with the reference (never a
// credential) and what was being done.
func (f *FS) fail(what string, err error) error {
	return &Error{Ref: f.shown, What: what, Err: err}
}

// Error is a registry's failure for one reference. Its text names the
// reference and, of a URL, only its scheme and host: no path, no query
// (a storage service's signed URL, an upload session), no credential.
type Error struct {
	Ref, What string
	Err       error
}

var _ store.PublicError = (*Error)(nil)

func (e *Error) Error() string { return e.What + " " + e.Ref + ": " + scrub(e.Err.Error()) }
func (e *Error) Unwrap() error { return e.Err }

// Public says what is wrong with the artifact (a LayerError) in words
// that name no host; "" for a registry's or the network's failure, which
// clients see as the source being unavailable (store.PublicError).
func (e *Error) Public() string {
	var le *LayerError
	if errors.As(e.Err, &le) {
		return "the OCI artifact cannot be served: " + le.Error()
	}
	return ""
}

// urls matches an http(s) URL in an error's text: its scheme and host,
// then what follows them.
var urls = regexp.MustCompile(`(https?)://([^/\s"'?#]+)[^\s"']*`)

// scrub cuts every http(s) URL in msg to its scheme and host: a path may
// name an upload session, a query a storage service's signature.
func scrub(msg string) string { return urls.ReplaceAllString(msg, "$1://$2") }

// manifest fetches the manifest or index desc names, at most
// maxManifestBytes, verified against its digest and size.
func (f *FS) manifest(ctx context.Context, desc ocispec.Descriptor) ([]byte, error) {
	if desc.Size > maxManifestBytes {
		return nil, f.fail("fetching", fmt.Errorf("a manifest of %d bytes (the limit is %d)", desc.Size, maxManifestBytes))
	}
	raw, err := content.FetchAll(ctx, f.repo, desc)
	if err != nil {
		return nil, f.fail("fetching the manifest of", err)
	}
	return raw, nil
}

// fetch fetches the manifest desc names (an image index: its first
// manifest) and unpacks its layers.
func (f *FS) fetch(ctx context.Context, desc ocispec.Descriptor) (*snapshot, error) {
	top := desc
	raw, err := f.manifest(ctx, desc)
	if err != nil {
		return nil, err
	}
	var annotations []map[string]string // the manifest's, then the index's
	if isIndex(desc.MediaType) {
		var idx ocispec.Index
		if err := json.Unmarshal(raw, &idx); err != nil {
			return nil, f.fail("reading the index of", err)
		}
		if len(idx.Manifests) == 0 {
			return nil, f.fail("reading", errors.New("an image index that lists no manifest"))
		}
		annotations = append(annotations, idx.Annotations)
		desc = idx.Manifests[0] // skills are the same on every platform
		if raw, err = f.manifest(ctx, desc); err != nil {
			return nil, err
		}
	}
	if !isManifest(desc.MediaType) {
		return nil, f.fail("reading", &LayerError{Msg: fmt.Sprintf("the manifest has the media type %q, not an OCI or Docker image manifest", desc.MediaType)})
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, f.fail("reading", &LayerError{Msg: "the manifest is not valid JSON: " + err.Error()})
	}
	annotations = append([]map[string]string{m.Annotations}, annotations...)
	gz, last, err := f.checkLayers(m.Layers)
	if err != nil {
		return nil, f.fail("reading", err)
	}
	u := newUnpacker(f.opts.MaxBytes, f.opts.MaxEntries)
	again := map[digest.Digest]*layer{} // a layer the manifest lists again: kept until its last listing
	for i, l := range m.Layers {
		if err := ctx.Err(); err != nil {
			return nil, f.fail("fetching", err)
		}
		pl := again[l.Digest]
		if pl == nil {
			if pl, err = f.layer(ctx, u, i, l, gz[i]); err != nil {
				return nil, err
			}
		}
		if last[l.Digest] > i {
			again[l.Digest] = pl
		} else {
			delete(again, l.Digest)
		}
		if err := u.add(pl); err != nil {
			return nil, f.fail("reading", inLayer(i, err))
		}
	}
	tree, err := u.tree(f.oneSkillName(annotations))
	if err != nil {
		return nil, f.fail("reading", err)
	}
	return &snapshot{FS: tree, digest: top.Digest.String()}, nil
}

// checkLayers checks a manifest's layers before any is fetched: how many
// (MaxLayers), their media types, each one's size (MaxBytes) and the size
// of them all (twice MaxBytes; a layer listed again is fetched once). It
// returns which are gzipped, and where each digest is listed last.
func (f *FS) checkLayers(layers []ocispec.Descriptor) ([]bool, map[digest.Digest]int, error) {
	switch {
	case len(layers) == 0:
		return nil, nil, &LayerError{Msg: "the manifest has no layers"}
	case len(layers) > f.opts.MaxLayers:
		return nil, nil, &LayerError{Msg: fmt.Sprintf("a manifest of %d layers (the limit is %d)", len(layers), f.opts.MaxLayers)}
	}
	gz := make([]bool, len(layers))
	last := map[digest.Digest]int{}
	var total int64
	for i, l := range layers {
		var ok bool
		if gz[i], ok = layerKind(l.MediaType); !ok {
			return nil, nil, &LayerError{Msg: fmt.Sprintf("layer %d has the media type %q, which is not a tar or tar+gzip archive of skills", i+1, l.MediaType)}
		}
		if l.Size < 0 || l.Size > f.opts.MaxBytes {
			return nil, nil, &LayerError{Msg: fmt.Sprintf("layer %d is %d bytes (the limit is %d)", i+1, l.Size, f.opts.MaxBytes)}
		}
		if _, seen := last[l.Digest]; !seen {
			total += l.Size
		}
		last[l.Digest] = i
	}
	if total > 2*f.opts.MaxBytes {
		return nil, nil, &LayerError{Msg: fmt.Sprintf("the layers are %d bytes in all (the limit is %d)", total, 2*f.opts.MaxBytes)}
	}
	return gz, last, nil
}

// nameAnnotations are the manifest annotations that may name a one-skill
// artifact, in the order they are asked: the Agent Skills OCI artifact's,
// ToolHive's, Alibaba Cloud ACR's skill artifact's, then OCI's title.
var nameAnnotations = []string{"io.agentskills.skill.name", "dev.toolhive.skills.name", "org.agent.skill.name", ocispec.AnnotationTitle}

// oneSkillName is the folder a one-skill artifact is served as when its
// SKILL.md names no valid skill (tree): the first of nameAnnotations, in
// the manifest's annotations then the index's, that is a valid skill
// name, else the repository's last path segment.
func (f *FS) oneSkillName(annotations []map[string]string) string {
	for _, a := range annotations {
		for _, k := range nameAnnotations {
			if n := a[k]; store.SpecName(n) {
				return n
			}
		}
	}
	name := f.repo.Reference.Repository
	return name[strings.LastIndexByte(name, '/')+1:]
}

// layer reads layer i (gzipped if gz) as it arrives, from the cache
// folder if it holds it (a copy that is not the digest's is removed),
// else from the registry, through its digest: its files are returned
// only if all of it is the digest's, and the cache folder keeps it then.
// Nothing of it is held beyond its files.
func (f *FS) layer(ctx context.Context, u *unpacker, i int, l ocispec.Descriptor, gz bool) (*layer, error) {
	if c := cached(f.opts.CacheDir, l); c != nil {
		pl, err := readLayer(u, l, gz, c, nil)
		c.Close()
		var le *LayerError
		if err == nil || errors.As(err, &le) {
			touch(c.Name())
			return pl, f.layerErr(i, l, err)
		}
		os.Remove(c.Name()) // altered on disk, or unreadable: fetched again
	}
	rc, err := f.repo.Fetch(ctx, l)
	if err != nil {
		return nil, f.fail("fetching a layer of", err)
	}
	defer rc.Close()
	sp := newSpool(f.opts.CacheDir, f.opts.CacheMax, l)
	pl, err := readLayer(u, l, gz, rc, sp)
	sp.done(err == nil) // a failure to keep it costs the next start a fetch
	return pl, f.layerErr(i, l, err)
}

// layerErr describes readLayer's error for layer i: a digest that does
// not match, or the archive's fault (a *LayerError), is the artifact's;
// else the registry or the network cut it short.
func (f *FS) layerErr(i int, l ocispec.Descriptor, err error) error {
	var de *digestError
	var le *LayerError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &de):
		return f.fail("reading", &LayerError{Msg: fmt.Sprintf("layer %d does not match its digest %s (%v)", i+1, l.Digest, de.err)})
	case errors.As(err, &le):
		return f.fail("reading", inLayer(i, err))
	}
	return f.fail("fetching a layer of", err)
}

// inLayer prefixes a *LayerError's words with the layer they are about.
func inLayer(i int, err error) error {
	var le *LayerError
	if !errors.As(err, &le) {
		return err
	}
	return &LayerError{Msg: fmt.Sprintf("layer %d: %s", i+1, le.Msg)}
}

// digestError is a layer's bytes that are not its digest's (or size's).
type digestError struct{ err error }

func (e *digestError) Error() string { return e.err.Error() }

// readLayer reads layer l from r into u (unpacker.read) as it arrives,
// copying it to w if w is not nil, then reads what the archive left of
// r, so that every byte is verified against l's size and digest, which
// decides first: a *digestError, or r's own error if it is cut short;
// only then the archive's *LayerError. What is read is held only as the
// files it unpacks to.
func readLayer(u *unpacker, l ocispec.Descriptor, gz bool, r io.Reader, w io.Writer) (*layer, error) {
	vr := content.NewVerifyReader(r, l)
	var src io.Reader = vr
	if w != nil {
		src = io.TeeReader(vr, w)
	}
	pl, err := u.read(src, gz)
	if _, cerr := io.Copy(io.Discard, src); cerr != nil {
		return nil, cerr
	}
	switch verr := vr.Verify(); {
	case errors.Is(verr, content.ErrMismatchedDigest), errors.Is(verr, content.ErrTrailingData):
		return nil, &digestError{verr}
	case verr != nil:
		return nil, verr
	}
	return pl, err
}

// LayerError says what is wrong with a manifest or a layer, in words
// that name no host: a client may be shown them.
type LayerError struct{ Msg string }

func (e *LayerError) Error() string { return e.Msg }

// isManifest reports an image manifest's media type, OCI or Docker's.
func isManifest(mt string) bool {
	return mt == ocispec.MediaTypeImageManifest || mt == "application/vnd.docker.distribution.manifest.v2+json"
}

func isIndex(mt string) bool {
	return mt == ocispec.MediaTypeImageIndex || mt == "application/vnd.docker.distribution.manifest.list.v2+json"
}

// layerKind reports whether a layer's media type is a tar archive, and
// whether it is gzipped: the image layer types of OCI and Docker, and
// any artifact layer type that ends in tar or tar+gzip (the skill
// artifact types in use do).
func layerKind(mt string) (gz, ok bool) {
	switch mt {
	case ocispec.MediaTypeImageLayer, "application/vnd.docker.image.rootfs.diff.tar":
		return false, true
	case ocispec.MediaTypeImageLayerGzip, "application/vnd.docker.image.rootfs.diff.tar.gzip":
		return true, true
	}
	base, _, _ := strings.Cut(mt, ";")
	switch {
	case strings.HasSuffix(base, ".tar+gzip"), strings.HasSuffix(base, ".tar.gzip"), strings.HasSuffix(base, "+tar+gzip"), strings.HasSuffix(base, ".tgz"):
		return true, true
	case strings.HasSuffix(base, ".tar"), strings.HasSuffix(base, "+tar"):
		return false, true
	}
	return false, false
}

// snapshot is one manifest's files.
type snapshot struct {
	fs.FS
	digest string
}

// Revision is the manifest's digest (store.RevisionFS), so skills read
// from a snapshot carry it.
func (s *snapshot) Revision() string { return s.digest }
