package discovery

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/skillstore/skillstore/internal/artifact"
	"github.com/skillstore/skillstore/internal/deadline"
	"github.com/skillstore/skillstore/internal/flight"
	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/internal/lru"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// A Publisher publishes a store's catalog the way the Agent Skills
// discovery RFC (v0.2.0) describes, under WellKnownPath: index.json lists every skill
// whose name the specification allows, with the URL and SHA-256 digest
// of its artifact. A skill of SKILL.md alone is served as that file
// ("skill-md"); one with supporting files as a zip archive ("archive")
// holding every file at its root. Both carry each file's bytes exactly as
// stored (a byte order mark, line endings and the encoding kept), as
// resources/read serves them and skills/get digests them, so a digest
// here and one in skills/get agree on SKILL.md. Archives are deterministic (sorted
// entries, a fixed time), so replicas publish the same digests; each is
// built once per version of its files and kept (internal/artifact).

// WellKnownPath is where the discovery index and artifacts are served.
const WellKnownPath = "/.well-known/agent-skills/"

// maxArchiveBytes bounds the content of one archive; a larger skill is
// left out of the index, with a log line.
const maxArchiveBytes = 64 << 20

// errArchiveTooLarge: a skill's files add up to more than one archive holds.
var errArchiveTooLarge = fmt.Errorf("its files add up to over %d MiB, too much for one archive", maxArchiveBytes>>20)

// indexTTL is how long an index is served again for an unchanged
// catalog: supporting files can change without their SKILL.md.
const indexTTL = 30 * time.Second

// wellKnownVariant is the .well-known artifact's variant among a
// skill's artifacts (artifact.Key).
const wellKnownVariant = "well-known"

// PublishOptions configure a Publisher.
type PublishOptions struct {
	// Store is the store published (required).
	Store *store.Store
	// View returns the view of the catalog a request's caller has
	// (required): its entries and artifacts are those of the skills the
	// view includes, a hidden skill's artifact answering 404 as a missing
	// one's does. The index is built once for the whole catalog and
	// filtered per view (store.View.Key).
	View func(*http.Request) *store.View
	// Audit, if set, is told of each request for a skill's artifact.
	Audit func(r *http.Request, skill, file string)
	// Logger receives what went wrong (default: discard).
	Logger *slog.Logger
	// Timeout bounds a request's wait for the skill sources (zero: no
	// bound); a build goes on past it, for the next request.
	Timeout time.Duration
	// Archives builds the artifacts and keeps them (default: a Cache of
	// the publisher's own); a server shares one with its pages' zips, so
	// one bound holds for every archive it builds.
	Archives *artifact.Cache
}

// Publisher serves the discovery index and the artifacts (Handler). It is
// safe for concurrent use.
type Publisher struct {
	opts      PublishOptions
	store     *store.Store
	log       *slog.Logger
	artifacts *artifact.Cache
	indexes   flight.Group[*store.Catalog, indexBody] // index builds in flight
	index     wellKnownIndex                          // the last index built
}

// NewPublisher returns the publication over opts.
func NewPublisher(opts PublishOptions) *Publisher {
	if opts.Store == nil || opts.View == nil {
		panic("discovery: PublishOptions.Store and View are required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Archives == nil {
		opts.Archives = artifact.New(artifact.Options{Logger: opts.Logger})
	}
	p := &Publisher{opts: opts, store: opts.Store, log: opts.Logger, artifacts: opts.Archives}
	p.indexes.Recover = artifact.Recover(func(v *flight.Panic) {
		p.log.Error("panic while answering the .well-known index", "panic", fmt.Sprint(v), "stack", string(v.Stack()))
	})
	p.indexes.Timeout = artifact.BuildLimit
	return p
}

// artifact returns sk's artifact, built once per version of its files and
// kept (internal/artifact). With body, it holds the bytes; without,
// perhaps only the kind, digest and size. Release it when done.
func (p *Publisher) artifact(ctx context.Context, sk *store.Skill, body bool) (*artifact.Artifact, error) {
	files, err := p.store.View(nil).Files(ctx, sk.Name, &store.ReadOptions{Skill: sk})
	if err != nil {
		return nil, err
	}
	return p.artifacts.Get(ctx, artifact.KeyOf(sk, files, wellKnownVariant), body, func(ctx context.Context, w io.Writer) (string, error) {
		return p.writeArtifact(ctx, w, sk, files)
	})
}

// writeArtifact writes sk's artifact to w and returns its kind: SKILL.md
// alone as it is ("skill-md"), or a zip archive of its files ("archive").
// Every file is read from sk's snapshot, as files was listed.
func (p *Publisher) writeArtifact(ctx context.Context, w io.Writer, sk *store.Skill, files []store.FileInfo) (string, error) {
	if len(files) == 1 && files[0].Path == sk.DocPath {
		doc, err := p.store.View(nil).Document(ctx, sk.Name, &store.ReadOptions{Skill: sk})
		if err != nil {
			return "", err
		}
		_, err = io.WriteString(w, doc.Raw)
		return TypeSkillMD, err
	}
	err := p.store.View(nil).WriteZip(ctx, w, sk, files, store.ZipOptions{MaxBytes: maxArchiveBytes, Skipped: func(path string) {
		p.log.Warn("a file over --max-file-size is left out of the skill's .well-known archive", "skill", sk.Name, "path", path)
	}})
	if errors.Is(err, store.ErrZipTooLarge) {
		err = artifact.Lasting(errArchiveTooLarge) // not built again to learn it
	}
	return TypeArchive, err
}

// artifactURL is where a skill's artifact is served.
func artifactURL(name, kind string) string {
	if kind == TypeArchive {
		return WellKnownPath + name + ".zip"
	}
	return WellKnownPath + name + "/" + store.DocName
}

// discoveryIndex lists the skills the RFC's naming rules allow, with the
// source label of each entry's skill (for callers with a restricted
// view); a skill whose files cannot be read is left out and logged. It
// needs the artifacts' digests only: an artifact built before is not built
// again.
func (p *Publisher) discoveryIndex(ctx context.Context) (Index, []string, error) {
	list, err := p.store.View(nil).List(ctx)
	if err != nil {
		return Index{}, nil, err
	}
	var sources []string
	idx := Index{Schema: Schema, Skills: []Entry{}}
	for _, sk := range list {
		e, ok, err := p.entry(ctx, sk)
		if err != nil {
			return Index{}, nil, err
		}
		if ok {
			idx.Skills = append(idx.Skills, e)
			sources = append(sources, sk.Source.Label)
		}
	}
	return idx, sources, nil
}

// entry returns sk's entry of the index; ok is false for a skill left
// out (a name the specification refuses, an artifact that cannot be
// built, logged), and err says why the index cannot be built now.
func (p *Publisher) entry(ctx context.Context, sk *store.Skill) (e Entry, ok bool, err error) {
	if !store.SpecName(sk.Name) {
		return Entry{}, false, nil
	}
	a, err := p.artifact(ctx, sk, false)
	if err != nil {
		if ctx.Err() != nil {
			return Entry{}, false, ctx.Err()
		}
		if errors.Is(err, artifact.ErrBusy) { // no skill is left out for that: the index waits
			return Entry{}, false, err
		}
		p.log.Warn("left out of the discovery index", "skill", sk.Name, "err", logtext.Of(err))
		return Entry{}, false, nil
	}
	a.Release()
	return Entry{Name: sk.Name, Type: a.Kind, Description: sk.Description, URL: artifactURL(sk.Name, a.Kind), Digest: a.Digest}, true, nil
}

// wellKnownIndex is the index as served, per catalog: one build at a
// time, reused for indexTTL while the catalog is the same.
type wellKnownIndex struct {
	mu      sync.Mutex
	catalog *store.Catalog
	built   time.Time
	indexBody
}

// indexBody is index.json's bytes and entity tag; for the whole
// catalog's index, also its entries, their skills' source labels, and the
// index as callers with a restricted view see it (indexFor).
type indexBody struct {
	body []byte
	etag string

	index   Index
	sources []string
	views   *lru.Cache[any, indexBody]
}

// viewIndexBytes bounds the memory of the filtered indexes kept per index.
const viewIndexBytes = lru.ViewIndexes

// indexFor returns the index as view sees it: the whole index for a view
// that hides nothing; for a restricted view, the entries of the skills it
// serves (View.List), encoded once per index and view (View.Key) and
// kept (bounded): the whole index's entry where the view serves the same
// copy, else one made for the view's copy (a source the view may see
// nothing of takes no part in its layering, so it may serve a copy the
// whole index does not).
func (p *Publisher) indexFor(ctx context.Context, view *store.View) (indexBody, error) {
	ib, err := p.indexJSON(ctx)
	if err != nil || view.All() {
		return ib, err
	}
	k := view.Key()
	if v, ok := ib.views.Get(k); ok {
		return v, nil
	}
	list, err := view.List(ctx)
	if err != nil {
		return indexBody{}, err
	}
	all := ib.index.Skills // in name order, as the catalog lists them
	idx := Index{Schema: ib.index.Schema, Skills: []Entry{}}
	for _, sk := range list {
		i := sort.Search(len(all), func(i int) bool { return all[i].Name >= sk.Name })
		if i < len(all) && all[i].Name == sk.Name && ib.sources[i] == sk.Source.Label {
			idx.Skills = append(idx.Skills, all[i])
			continue
		}
		e, ok, err := p.entry(ctx, sk)
		if err != nil {
			return indexBody{}, err
		}
		if ok {
			idx.Skills = append(idx.Skills, e)
		}
	}
	v, err := encodeIndex(idx)
	if err != nil {
		return indexBody{}, err
	}
	ib.views.Add(k, v, int64(len(v.body)+len(v.etag)+64))
	return v, nil
}

// encodeIndex encodes idx as index.json, with its entity tag.
func encodeIndex(idx Index) (indexBody, error) {
	body, err := json.Marshal(idx)
	if err != nil {
		return indexBody{}, err
	}
	sum := sha256.Sum256(body)
	return indexBody{body: body, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}, nil
}

// indexJSON returns the index for the current catalog: the one built, or
// a new build's, shared by the requests that want it; a request that
// stops waiting leaves the build running for the next.
func (p *Publisher) indexJSON(ctx context.Context) (indexBody, error) {
	c, err := p.store.View(nil).Catalog(ctx)
	if err != nil {
		return indexBody{}, err
	}
	wi := &p.index
	wi.mu.Lock()
	ib, fresh := wi.indexBody, wi.catalog == c && time.Since(wi.built) < indexTTL
	wi.mu.Unlock()
	if fresh {
		return ib, nil
	}
	return p.indexes.Do(ctx, c, false, func(ctx context.Context) (indexBody, error) {
		idx, sources, err := p.discoveryIndex(ctx)
		if err != nil {
			return indexBody{}, err
		}
		ib, err := encodeIndex(idx)
		if err != nil {
			return indexBody{}, err
		}
		ib.index, ib.sources, ib.views = idx, sources, lru.New[any, indexBody](viewIndexBytes)
		wi.mu.Lock()
		wi.catalog, wi.built, wi.indexBody = c, time.Now(), ib
		wi.mu.Unlock()
		return ib, nil
	})
}

// wellKnownRetryAfter is the Retry-After, in seconds, of a request that
// timed out while what it asked for is still being built.
const wellKnownRetryAfter = "5"

// Handler serves the discovery index and the artifacts under
// WellKnownPath (GET and HEAD); mount it there. Open answers may be kept
// by shared caches, others not (they vary with Authorization). Each
// caller gets its view (PublishOptions.View): an open publication is
// everyone's, so mounted open it is given no principal, and shows what
// the anonymous caller may see.
func (p *Publisher) Handler(open bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.wellKnown(w, r, open) })
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// wellKnown answers through http.ServeContent, which applies
// If-None-Match as RFC 9110 §13.1.2 says (weak comparison, lists, "*")
// and serves ranges.
func (p *Publisher) wellKnown(w http.ResponseWriter, r *http.Request, open bool) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "use GET or HEAD"})
		return
	}
	ctx, cancel := deadline.Bound(r.Context(), p.opts.Timeout, p.log, "well-known")
	defer cancel()
	rest := strings.TrimPrefix(r.URL.Path, WellKnownPath)
	var (
		content           io.ReadSeeker
		etag, contentType string
	)
	switch name, isDoc := strings.CutSuffix(rest, "/"+store.DocName); {
	case rest == "index.json":
		ib, err := p.indexFor(ctx, p.opts.View(r))
		if err != nil {
			p.log.Warn("discovery index failed", "err", logtext.Of(err))
			msg := "the skill sources cannot be listed; see the server log"
			if ctx.Err() != nil || errors.Is(err, artifact.ErrBusy) {
				w.Header().Set("Retry-After", wellKnownRetryAfter)
				msg = "the discovery index is still being built; try again shortly"
			}
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": msg})
			return
		}
		content, etag, contentType = bytes.NewReader(ib.body), ib.etag, "application/json"
	case isDoc || strings.HasSuffix(rest, ".zip"):
		kind := TypeSkillMD
		if !isDoc {
			name, kind = strings.TrimSuffix(rest, ".zip"), TypeArchive
		}
		if p.opts.Audit != nil {
			p.opts.Audit(r, name, "")
		}
		a, err := p.wellKnownArtifact(ctx, p.opts.View(r), name, r.Method == http.MethodGet)
		if err == nil {
			defer a.Release()
		}
		switch {
		case errors.Is(err, store.ErrSkillNotFound), errors.Is(err, store.ErrSkillInvalid), err == nil && a.Kind != kind:
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no skill artifact at this URL; see index.json"})
			return
		case err != nil:
			msg, _ := tools.Describe(err)
			if errors.Is(err, artifact.ErrBusy) {
				msg = artifact.ErrBusy.Error()
			}
			if ctx.Err() != nil || errors.Is(err, artifact.ErrBusy) {
				w.Header().Set("Retry-After", wellKnownRetryAfter)
			}
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": msg})
			return
		}
		content, etag, contentType = a.Body(), a.ETag(), "application/zip"
		if kind == TypeSkillMD {
			contentType = "text/markdown; charset=utf-8"
		}
		if !a.HasBody() {
			r.Header.Del("Range") // HEAD: ranges need nothing but the length, but are not worth a part
		}
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "not found: the discovery index is " + WellKnownPath + "index.json"})
		return
	}
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("ETag", etag)
	if open {
		h.Set("Cache-Control", "public, max-age=60")
	} else { // answers to a token: no shared cache may keep them
		h.Set("Cache-Control", "private, max-age=60")
		h.Add("Vary", "Authorization")
	}
	http.ServeContent(w, r, "", time.Time{}, content)
}

// wellKnownArtifact returns the named skill's artifact, if view includes it;
// with body, it holds the bytes, else perhaps only what HEAD needs.
// Release it when done.
func (p *Publisher) wellKnownArtifact(ctx context.Context, view *store.View, name string, body bool) (*artifact.Artifact, error) {
	if !store.SpecName(name) {
		return nil, store.ErrSkillNotFound
	}
	sk, err := view.Skill(ctx, name)
	if err != nil {
		return nil, err
	}
	return p.artifact(ctx, sk, body)
}
