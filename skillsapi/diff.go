package skillsapi

import (
	"context"
	"mime"
	"net/http"
	"strings"

	"github.com/skillstore/skillstore/skilldiff"
	"github.com/skillstore/skillstore/store"
)

// Differ is a Registry that compares versions (backends/registry's; a
// Reviewer is one). The handler serves the diff route only when the
// Registry given to NewHandler implements it.
type Differ interface {
	// Diff compares two versions of skill id (IDs, or "latest"): from ""
	// is the version before to. A skill hidden or unknown, or a version
	// unknown, is a 404 (*Error).
	Diff(ctx context.Context, id, from, to string, visible func(name string) bool) (*skilldiff.Diff, error)
}

// UnifiedType is the media type of a diff as unified text.
const UnifiedType = "text/x-diff"

// diffRoutes adds, when h's registry is a Differ:
//
//	GET /v1/skills/{id}/versions/{version}/diff?from=VERSION
//
// from defaults to the version before {version}. The answer is the
// skilldiff.Diff as JSON, or its unified text (Diff.WriteUnified,
// text/x-diff) when the request's Accept names text/x-diff or
// ?format=unified.
func (h *handler) diffRoutes(route func(path string, methods map[string]http.HandlerFunc)) {
	if d, ok := h.reg.(Differ); ok {
		route("/v1/skills/{id}/versions/{version}/diff", map[string]http.HandlerFunc{"GET": func(w http.ResponseWriter, r *http.Request) {
			h.diff(w, r, d)
		}})
	}
}

func (h *handler) diff(w http.ResponseWriter, r *http.Request, d Differ) {
	vis, ok := h.reader(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	var text bool
	switch f := q.Get("format"); f {
	case "":
		text = acceptsDiff(r.Header.Values("Accept"))
	case "unified":
		text = true
	case "json":
	default:
		WriteError(w, Errorf(http.StatusBadRequest, "format %q: give format=unified or format=json", store.Echo(f)))
		return
	}
	diff, err := d.Diff(r.Context(), r.PathValue("id"), q.Get("from"), r.PathValue("version"), vis)
	if err != nil {
		WriteError(w, err)
		return
	}
	if !text {
		WriteJSON(w, diff)
		return
	}
	var b strings.Builder
	diff.WriteUnified(&b) // a strings.Builder's write does not fail
	setRequestID(w)
	w.Header().Set("Content-Type", UnifiedType+"; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(b.String()))
}

// acceptsDiff says whether an Accept header names text/x-diff.
func acceptsDiff(accept []string) bool {
	for _, h := range accept {
		for _, part := range strings.Split(h, ",") {
			if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == UnifiedType {
				return true
			}
		}
	}
	return false
}
