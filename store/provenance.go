package store

import (
	"io/fs"
	"net/url"
	"os"
	"strings"
	"time"
)

// Provenance says where a skill's content comes from: the source it was
// found in, which version of that source, and who signed that version.
// The store computes it once per snapshot of a source as it builds a
// catalog, and every skill found in that snapshot shares the value
// (Skill.Provenance), so answers carry it at no cost per request; package
// mcpserver sends it, as this type's JSON, under its own _meta key.
//
// It names only what a client may see of a source: its label, its kind,
// and a location that carries no credential.
type Provenance struct {
	// Source is the source's label ("project", "org", …).
	Source string `json:"source"`
	// Kind names the source's backend (Source.Kind: "local", "git",
	// "archive", "s3", …); empty when the source did not say.
	Kind string `json:"kind"`
	// Location is the source's location (Source.Location, which never
	// holds a credential), with a file:// URL shown as its path and a
	// path under the user's home folder from "~", as the Skill tool
	// shows it. It names the source, not the skill's folder in it.
	Location string `json:"location"`
	// Revision names the version of the source the skill was read from
	// (RevisionFS): a git commit, a published snapshot's ID, or a zip
	// archive's SHA-256 as "sha256:" and hex. Empty for sources that
	// have no versions (a folder, a bucket that is not a published
	// snapshot, a .well-known index).
	Revision string `json:"revision,omitempty"`
	// Signer is the key that signed that version, when the snapshot was
	// verified (SignedFS); else the zero Signer, which JSON leaves out.
	Signer Signer `json:"signer,omitzero"`
	// Version is the skill's own version, for a source that versions
	// skills one by one (a registry); nil for the others.
	Version *SkillVersion `json:"version,omitempty"`
}

// SkillVersion names one version of one skill: its ID, the digest of
// its files, who uploaded it and when, and the key that signed it, when
// a trust list verified one.
type SkillVersion struct {
	ID        string    `json:"id"`
	Digest    string    `json:"digest"`
	CreatedBy string    `json:"created_by,omitempty"`
	Created   time.Time `json:"created"`
	Signer    Signer    `json:"signer,omitzero"`
	// Channel names the channel that points at this version ("stable",
	// "canary"), when the source serves a channel; "" for the default.
	Channel string `json:"channel,omitempty"`
	// Review is who approved this version, when its skill needs review.
	Review *VersionReview `json:"review,omitempty"`
}

// VersionReview is the approval a served version carries.
type VersionReview struct {
	By     string    `json:"by"`
	Time   time.Time `json:"time"`
	Signer Signer    `json:"signer,omitzero"`
}

// provenance returns the provenance of the skills of source i found in
// fsys, the source or the snapshot of it being listed. Skills of one
// snapshot share one value: the last one made for the source is reused
// while the revision and signer are the same, so a catalog of 100,000
// skills holds one per source, and a skill costs two interface checks.
func (s *Store) provenance(i int, fsys fs.FS) *Provenance {
	rev := ""
	if rf, ok := fsys.(RevisionFS); ok {
		rev = rf.Revision()
	}
	signer, _ := SignerOf(fsys)
	var p *Provenance
	for {
		old := s.provenances[i].Load()
		if old != nil && old.Revision == rev && old.Signer == signer {
			return old
		}
		if p == nil {
			src := s.sources[i]
			p = &Provenance{Source: src.Label, Kind: src.Kind, Location: ShownLocation(src.Location), Revision: rev, Signer: signer}
		}
		if s.provenances[i].CompareAndSwap(old, p) { // racing builders take the first one stored
			return p
		}
	}
}

// ShownLocation is a source's location as clients and people are shown it
// (Provenance.Location, the Skill tool, the catalog's pages): a
// file:// URL as its path (without user information or query), and a
// path under the user's home folder from "~". Other URLs are left as
// they are: a source's location is already redacted.
func ShownLocation(loc string) string {
	if _, _, isURL := strings.Cut(loc, "://"); isURL {
		if u, err := url.Parse(loc); err == nil && strings.EqualFold(u.Scheme, "file") {
			return HomeRelative(u.Path)
		}
		return loc
	}
	return HomeRelative(loc)
}

// HomeRelative shows a path under the user's home folder from "~"
// ("/home/ana/skills" as "~/skills"), so that a location shown to
// clients and models does not name the user's home. Other paths, and
// every path when the home folder is unknown or "/", are returned as
// they are.
func HomeRelative(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return p
	}
	home = strings.TrimSuffix(home, "/")
	if p == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(p, home+"/"); ok {
		return "~/" + rest
	}
	return p
}
