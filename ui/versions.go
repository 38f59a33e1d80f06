package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/store"
)

// Version is one version of a skill whose source keeps each skill's
// versions (a registry), as its page lists it.
type Version struct {
	ID          string
	Created     time.Time
	CreatedBy   string // who uploaded it; "" when the source does not know
	Digest      string // names its content ("sha256:" and hex)
	Description string // its frontmatter's description
}

// VersionList is a skill's versions, newest first, and how many older
// ones it leaves out.
type VersionList struct {
	Versions []Version
	More     int
}

// VersionSource is what the pages read of the versions of skills whose
// source keeps them one by one. Both methods read as the request's
// caller may see: a skill the caller may not see is one that does not
// exist. The pages bound each call with the page's or the download's
// timeout (ctx).
type VersionSource interface {
	// Versions lists up to limit of sk's versions, newest first, and
	// counts the others; nil when sk's source keeps no versions.
	Versions(ctx context.Context, r *http.Request, sk *store.Skill, limit int) (*VersionList, error)
	// WriteZip writes version ver of the skill named name to w as one
	// zip archive: one top folder named as the skill, each file's bytes
	// as stored. It fails before writing anything with a
	// store.ErrSkillNotFound error when there is no such skill, the
	// caller may not see it or its source keeps no versions, and with
	// ErrVersionNotFound when the skill has no version ver.
	WriteZip(ctx context.Context, r *http.Request, w io.Writer, name, ver string) error
}

// ErrVersionNotFound is a VersionSource's error for a version a skill
// does not have.
var ErrVersionNotFound = errors.New("no such version")

// maxVersions is how many versions a skill's page lists; it counts the
// others.
const maxVersions = 100

// versionRow is a version as the skill page's table shows it.
type versionRow struct {
	Version
	URL    string // its zip
	Served bool   // the version the catalog serves (Provenance.Version)
}

// versionsOf fills in d's versions of sk, when its source keeps them.
func (u *UI) versionsOf(ctx context.Context, r *http.Request, sk *store.Skill, d *skillData) {
	if u.opts.Versions == nil {
		return
	}
	list, err := u.opts.Versions.Versions(ctx, r, sk, maxVersions)
	if err != nil {
		d.Versioned = true
		d.VersionsErr = describe(err)
		if !errors.As(err, new(*store.Error)) {
			u.opts.Logger.Warn("a skill's versions cannot be listed", "skill", sk.Name, "err", logtext.Of(err))
		}
		return
	}
	if list == nil {
		return
	}
	d.Versioned, d.MoreVersions = true, list.More
	served := ""
	if sk.Provenance != nil && sk.Provenance.Version != nil {
		served = sk.Provenance.Version.ID
	}
	d.Versions = make([]versionRow, len(list.Versions))
	for i, v := range list.Versions {
		d.Versions[i] = versionRow{Version: v, URL: versionURL(sk.Name, v.ID), Served: v.ID == served}
	}
}

// versionURL is the address of a version's zip.
func versionURL(name, ver string) string {
	return skillURL(name) + "/versions/" + url.PathEscape(ver) + ".zip"
}

// versionZip serves one version of a skill as a zip (VersionSource's
// WriteZip), an attachment named NAME-VERSION.zip. A skill the caller
// may not see answers as a missing one; so does an address that is not
// a version's zip. The download is bounded by ZipTimeout; a failure once
// bytes are sent cuts the connection, so no truncated archive looks
// whole.
func (u *UI) versionZip(w http.ResponseWriter, r *http.Request) {
	name, file := r.PathValue("name"), r.PathValue("file")
	ver, ok := strings.CutSuffix(file, ".zip")
	if !ok || ver == "" {
		u.notFound(w, r)
		return
	}
	u.audit(r, name, "")
	ctx, cancel := context.WithTimeout(r.Context(), ZipTimeout)
	defer cancel()
	out := &startWriter{w: w, start: func(h http.Header) {
		secure(h, filePolicy)
		h.Set("Cache-Control", "private, no-cache")
		h.Set("Content-Type", "application/zip")
		h.Set("Content-Disposition", attachment(name+"-"+ver+".zip"))
	}}
	err := u.opts.Versions.WriteZip(ctx, r, out, name, ver)
	switch {
	case err == nil:
		if !out.started {
			out.Write(nil) // an empty answer still carries its headers
		}
	case out.started:
		if r.Context().Err() == nil {
			u.opts.Logger.Warn("a version's zip failed while being sent", "skill", name, "version", ver, "err", logtext.Of(err))
		}
		panic(http.ErrAbortHandler) // cut: the client sees an incomplete download, not a short zip
	case errors.Is(err, ErrVersionNotFound):
		u.status(w, r, http.StatusNotFound, "Not found", fmt.Sprintf("Skill %q has no version %q.", store.Echo(name), store.Echo(ver)))
	case errors.Is(err, context.DeadlineExceeded) && r.Context().Err() == nil:
		w.Header().Set("Retry-After", zipRetryAfter)
		u.status(w, r, http.StatusServiceUnavailable, "Too slow", "This version's zip took too long to build. Try again in a few seconds.")
	default:
		u.failed(w, r, err)
	}
}

// startWriter sets an answer's headers and status 200 when its first
// byte is written, so that a failure before it can answer otherwise.
type startWriter struct {
	w       http.ResponseWriter
	start   func(http.Header)
	started bool
}

func (s *startWriter) Write(p []byte) (int, error) {
	if !s.started {
		s.started = true
		s.start(s.w.Header())
		s.w.WriteHeader(http.StatusOK)
	}
	return s.w.Write(p)
}
