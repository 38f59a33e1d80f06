package mcpserver

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/skillstore/skillstore/internal/lru"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// The catalog is also published the way the Agent Skills discovery RFC
// (v0.2.0) describes, under WellKnownPath: index.json lists every skill
// whose name the specification allows, with the URL and SHA-256 digest
// of its artifact. A skill of SKILL.md alone is served as that file
// ("skill-md"); one with supporting files as a zip archive ("archive")
// holding every file at its root. Both carry the bytes resources/read
// serves (text as UTF-8, binaries as stored), so a digest here and one in
// skills/get agree on SKILL.md. Archives are deterministic (sorted
// entries, a fixed time), so replicas publish the same digests, and are
// cached by the files' versions.

// WellKnownPath is where the discovery index and artifacts are served.
const WellKnownPath = "/.well-known/agent-skills/"

// DiscoverySchema is the $schema of the discovery index served.
const DiscoverySchema = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"

// maxArchiveBytes bounds the content of one archive; a larger skill is
// left out of the index, with a log line.
const maxArchiveBytes = 64 << 20

// indexTTL is how long an index is served again for an unchanged
// catalog: supporting files can change without their SKILL.md.
const indexTTL = 30 * time.Second

// archiveTime is every archive entry's modification time: a fixed one,
// so an archive's digest depends on its content alone.
var archiveTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// DiscoveryIndex is the discovery index (index.json).
type DiscoveryIndex struct {
	Schema string           `json:"$schema"`
	Skills []DiscoveryEntry `json:"skills"`
}

// DiscoveryEntry is one skill of a DiscoveryIndex.
type DiscoveryEntry struct {
	Name        string `json:"name"`
	Type        string `json:"type"` // "skill-md" or "archive"
	Description string `json:"description"`
	URL         string `json:"url"`
	Digest      string `json:"digest"` // "sha256:" and 64 hex digits
}

// artifact is a skill's published bytes.
type artifact struct {
	kind   string // "skill-md" or "archive"
	data   []byte
	digest string
}

// artifactKey names a version of a skill's files.
type artifactKey struct {
	source, name string
	files        [sha256.Size]byte // of every file's path, size and time
}

func newArtifactCache() *lru.Cache[artifactKey, *artifact] {
	return lru.New[artifactKey, *artifact](64 << 20)
}

// artifact builds (or finds in the cache) a skill's artifact.
func (s *Server) artifact(ctx context.Context, sk *store.Skill) (*artifact, error) {
	files, err := s.store.FilesOf(ctx, sk)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\n", f.Path, f.Size, f.ModTime.UnixNano(), f.ServedSHA256)
	}
	key := artifactKey{source: sk.Source.Label, name: sk.Name}
	h.Sum(key.files[:0])
	if a, ok := s.artifacts.Get(key); ok {
		return a, nil
	}
	a := &artifact{kind: "skill-md"}
	if len(files) == 1 && files[0].Path == sk.DocPath {
		doc, err := s.store.Document(ctx, sk.Name)
		if err != nil {
			return nil, err
		}
		a.data = []byte(doc.Text)
	} else {
		a.kind = "archive"
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		var total int64
		for _, f := range files { // sorted by path
			file, err := s.store.ReadFileUncached(ctx, sk.Name, f.Path)
			if errors.Is(err, store.ErrTooLarge) {
				s.log.Warn("a file over --max-file-size is left out of the skill's .well-known archive", "skill", sk.Name, "path", f.Path)
				continue
			}
			if err != nil {
				return nil, err
			}
			content := file.Content()
			if total += int64(len(content)); total > maxArchiveBytes {
				return nil, fmt.Errorf("its files add up to over %d MiB, too much for one archive", maxArchiveBytes>>20)
			}
			name := f.Path
			if name == sk.DocPath {
				name = store.DocName
			}
			w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: archiveTime})
			if err != nil {
				return nil, err
			}
			if _, err := w.Write([]byte(content)); err != nil {
				return nil, err
			}
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		a.data = buf.Bytes()
	}
	sum := sha256.Sum256(a.data)
	a.digest = "sha256:" + hex.EncodeToString(sum[:])
	s.artifacts.Add(key, a, int64(len(a.data))+128)
	return a, nil
}

// artifactURL is where a skill's artifact is served.
func artifactURL(name, kind string) string {
	if kind == "archive" {
		return WellKnownPath + name + ".zip"
	}
	return WellKnownPath + name + "/" + store.DocName
}

// discoveryIndex lists the skills the RFC's naming rules allow; a skill
// whose files cannot be read is left out and logged.
func (s *Server) discoveryIndex(ctx context.Context) (DiscoveryIndex, error) {
	list, err := s.store.List(ctx)
	if err != nil {
		return DiscoveryIndex{}, err
	}
	idx := DiscoveryIndex{Schema: DiscoverySchema, Skills: []DiscoveryEntry{}}
	for _, sk := range list {
		if !store.SpecName(sk.Name) {
			continue
		}
		a, err := s.artifact(ctx, sk)
		if err != nil {
			if ctx.Err() != nil {
				return DiscoveryIndex{}, ctx.Err()
			}
			s.log.Warn("left out of the discovery index", "skill", sk.Name, "err", err)
			continue
		}
		idx.Skills = append(idx.Skills, DiscoveryEntry{Name: sk.Name, Type: a.kind, Description: sk.Description, URL: artifactURL(sk.Name, a.kind), Digest: a.digest})
	}
	return idx, nil
}

// wellKnownIndex is the index as served, per catalog: one build at a
// time, reused for indexTTL while the catalog is the same.
type wellKnownIndex struct {
	mu      sync.Mutex
	catalog *store.Catalog
	built   time.Time
	body    []byte
}

func (s *Server) indexJSON(ctx context.Context) ([]byte, error) {
	c, err := s.store.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	wi := &s.wellKnownIdx
	wi.mu.Lock()
	defer wi.mu.Unlock()
	if wi.catalog == c && time.Since(wi.built) < indexTTL {
		return wi.body, nil
	}
	idx, err := s.discoveryIndex(ctx)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(idx)
	if err != nil {
		return nil, err
	}
	wi.catalog, wi.built, wi.body = c, time.Now(), body
	return body, nil
}

// wellKnownHandler serves the discovery index and the artifacts (GET and
// HEAD); open answers may be kept by shared caches, others not.
func (s *Server) wellKnownHandler(open bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { s.wellKnown(w, r, open) }
}

func (s *Server) wellKnown(w http.ResponseWriter, r *http.Request, open bool) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "use GET or HEAD"})
		return
	}
	ctx, cancel := s.bounded(r.Context(), "well-known")
	defer cancel()
	rest := strings.TrimPrefix(r.URL.Path, WellKnownPath)
	var (
		body        []byte
		contentType string
	)
	switch name, isDoc := strings.CutSuffix(rest, "/"+store.DocName); {
	case rest == "index.json":
		var err error
		if body, err = s.indexJSON(ctx); err != nil {
			s.log.Warn("discovery index failed", "err", err)
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "the skill sources cannot be listed; see the server log"})
			return
		}
		contentType = "application/json"
	case isDoc || strings.HasSuffix(rest, ".zip"):
		kind := "skill-md"
		if !isDoc {
			name, kind = strings.TrimSuffix(rest, ".zip"), "archive"
		}
		a, err := s.wellKnownArtifact(ctx, name)
		switch {
		case errors.Is(err, store.ErrSkillNotFound), errors.Is(err, store.ErrSkillInvalid), err == nil && a.kind != kind:
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no skill artifact at this URL; see index.json"})
			return
		case err != nil:
			msg, _ := tools.Describe(err)
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": msg})
			return
		}
		body, contentType = a.data, "application/zip"
		if kind == "skill-md" {
			contentType = "text/markdown; charset=utf-8"
		}
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "not found: the discovery index is " + WellKnownPath + "index.json"})
		return
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("ETag", etag)
	if open {
		h.Set("Cache-Control", "public, max-age=60")
	} else { // answers to a token: no shared cache may keep them
		h.Set("Cache-Control", "private, max-age=60")
		h.Add("Vary", "Authorization")
	}
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}

func (s *Server) wellKnownArtifact(ctx context.Context, name string) (*artifact, error) {
	if !store.SpecName(name) {
		return nil, store.ErrSkillNotFound
	}
	sk, err := s.store.Skill(ctx, name)
	if err != nil {
		return nil, err
	}
	return s.artifact(ctx, sk)
}
