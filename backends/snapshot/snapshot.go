// Package snapshot publishes skills as immutable snapshots (Publish, which
// `skillstore publish` runs), serves them (Open), and defines their format,
// so its writer and its reader sit side by side, as archive/zip's do.
//
// A published folder (a bucket prefix, or a directory on a shared disk)
// holds, under .skillstore/ (a hidden folder, never taken for a skill):
//
//	current.json                 the pointer: which snapshot is current, its format version and digest
//	snapshots/ID.snap            one manifest per publish, never rewritten (format 2; see magic2)
//	snapshots/ID.snap.sig        its SSH signature (publish --sign), if signed
//	blobs/AB/ABCDEF….            each file's content, once, under its SHA-256
//
// A manifest lists every skill with its frontmatter verbatim and every
// file with its path, size and SHA-256, all computed from one read of
// the file when it was published. It is one object, so one signature and
// one digest cover the whole snapshot, and compact (about 300 bytes a
// skill of three files): a replica keeps its bytes as they are, indexed
// by skill, and decodes a skill's file list only when asked, so 100,000
// skills are served from about 30 MB read once. Folders published in
// format 1 (snapshots/ID.json, JSON) are still read. A reader needs two
// requests for a cold catalog (the pointer at Open, the manifest at the
// first use) whatever the number of skills, one conditional request (the
// pointer's tag) for a refresh that finds nothing new, and one GET per
// file read, which it checks against the manifest's digest. Since blobs are never rewritten, a snapshot stays readable, and
// the digests a client was given stay true, as long as its manifest is
// kept (PublishOptions.Keep and Grace).
package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/skillstore/skillstore/internal/hidden"
)

// Paths of the format, relative to the published folder.
const (
	Dir        = ".skillstore"
	PointerKey = Dir + "/current.json"
	// Version is the format version this package writes: its manifests
	// are compact and binary (see magic2). It reads version 1 too (JSON
	// manifests, snapshots/ID.json), which publishes before it wrote.
	Version = 2
)

// ManifestKey is where the manifest of snapshot id is stored, as this
// package writes it (format Version).
func ManifestKey(id string) string { return manifestKey(id, Version) }

// manifestKey is where the manifest of snapshot id is stored in format
// version: snapshots/ID.snap, or snapshots/ID.json for version 1.
func manifestKey(id string, version int) string {
	if version == 1 {
		return Dir + "/snapshots/" + id + ".json"
	}
	return Dir + "/snapshots/" + id + ".snap"
}

// SignatureKey is where the signature of snapshot id's manifest is
// stored: an armored SSHSIG signature of the manifest's exact bytes in
// namespace SignatureNamespace, so that
//
//	ssh-keygen -Y verify -f allowed_signers -I PRINCIPAL -n skillstore-snapshot -s ID.snap.sig < ID.snap
//
// checks it. A version 1 manifest's is snapshots/ID.json.sig.
func SignatureKey(id string) string { return signatureKey(ManifestKey(id)) }

func signatureKey(manifestKey string) string { return manifestKey + ".sig" }

// SignatureNamespace is the SSHSIG namespace manifests are signed in: a
// signature made for git, or for any other purpose, does not verify as one.
const SignatureNamespace = "skillstore-snapshot"

// manifestID returns the snapshot ID and format version of key, a key
// listed under Dir+"/snapshots/", and whether key is a manifest's.
func manifestID(key string) (id string, version int, ok bool) {
	base := path.Base(key)
	for _, v := range []int{Version, 1} {
		if id, ok := strings.CutSuffix(base, path.Ext(manifestKey("", v))); ok && key == manifestKey(id, v) {
			return id, v, true
		}
	}
	return "", 0, false
}

// BlobKey is where content whose SHA-256 is sum (lower-case hex) is stored.
func BlobKey(sum string) string {
	if len(sum) < 2 {
		return Dir + "/blobs/" + sum
	}
	return Dir + "/blobs/" + sum[:2] + "/" + sum
}

// Pointer names the current snapshot.
type Pointer struct {
	Version   int       `json:"version"`   // the manifest's format version
	Snapshot  string    `json:"snapshot"`  // the manifest's ID
	SHA256    string    `json:"sha256"`    // of the manifest object, checked when it is read
	Published time.Time `json:"published"` // when the snapshot was published
	// Sequence is the manifest's (see Manifest.Sequence), so the next
	// publish numbers its own without reading the manifest.
	Sequence uint64 `json:"sequence,omitempty"`
}

// parsePointer decodes a pointer object, refusing one a reader cannot
// follow: not JSON, of no version, or naming no clean snapshot ID. A
// later format version is returned as it is (the reader refuses it; a
// publisher still numbers its sequence after it).
func parsePointer(data []byte) (*Pointer, error) {
	var p Pointer
	if err := json.Unmarshal(data, &p); err != nil || p.Version < 1 || p.Snapshot == "" || strings.ContainsAny(p.Snapshot, "/\\") {
		return nil, errors.New("truncated or of another version")
	}
	return &p, nil
}

// Manifest is one published snapshot.
type Manifest struct {
	Version   int       `json:"version"`
	ID        string    `json:"id"`
	Published time.Time `json:"published"`
	// Sequence numbers the publishes to one folder: each is one more than
	// the one it replaced (1 for the first). A replica with trusted
	// signers never moves to a snapshot whose sequence is not above the
	// one it serves, so a replayed older signed snapshot is refused
	// whatever the clocks say. 0 in manifests written before it existed.
	Sequence uint64 `json:"sequence,omitempty"`
	// Scanner is the version of the hidden-text scanner (hidden.Version)
	// that found the skills' Findings: a publish takes unchanged files'
	// findings from a snapshot only when it is its own. 0 in manifests
	// written before it was recorded.
	Scanner int     `json:"scanner,omitempty"`
	Skills  []Skill `json:"skills"`
}

// Skill is one skill of a Manifest.
type Skill struct {
	Dir         string `json:"dir"`         // the skill's folder name
	DocPath     string `json:"docPath"`     // its document's file name (SKILL.md…)
	Frontmatter string `json:"frontmatter"` // the YAML between the document's '---' lines, verbatim
	// Headings are the document's Markdown headings, one a line (at most
	// MaxHeadingsBytes), so servers can search them without reading it.
	Headings string `json:"headings,omitempty"`
	Files    []File `json:"files"` // every file published, the document included, sorted by path
	// Findings is the hidden text (store.Finding) in the skill's text
	// files, sorted by file, found reading them to publish them. Manifests
	// written before findings were recorded list none.
	Findings []hidden.Finding `json:"findings,omitempty"`
}

// MaxHeadingsBytes bounds a Skill's Headings.
const MaxHeadingsBytes = 1024

// File is one file of a Skill.
type File struct {
	Path    string    `json:"path"`    // relative to the skill's folder
	Size    int64     `json:"size"`    // in bytes
	ModTime time.Time `json:"modTime"` // in the published folder
	SHA256  string    `json:"sha256"`  // of the bytes: the blob's key
	// Served and ServedSize describe the content as the server delivers
	// it (text decoded to UTF-8), when that differs from the bytes.
	Served     string `json:"served,omitempty"`
	ServedSize int64  `json:"servedSize,omitempty"`
}

// ErrNotPublished is the error of opening a folder that holds no pointer.
var ErrNotPublished = errors.New("not a published snapshot folder (no " + PointerKey + ")")

// Sum returns the lower-case hex SHA-256 of b.
func Sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// errOtherVersion is the error of a manifest of a format version this
// package does not read: perhaps a later one, whose skills a collector
// cannot know.
var errOtherVersion = errors.New("manifest of another format version")

// DecodeManifest decodes a manifest object's bytes, of either format
// version, whole, and checks it as a reader does. A reader that serves a
// snapshot never decodes its manifest whole: at 100,000 skills this takes
// about a second and 100 MB.
func DecodeManifest(data []byte) (*Manifest, error) {
	if bytes.HasPrefix(data, []byte(magic2)) {
		c, err := parseCompact(data)
		if err != nil {
			return nil, err
		}
		return c.manifest(), nil
	}
	if bytes.HasPrefix(data, []byte(magic2[:len(magic2)-2])) { // "skillstore snapshot N\n" of a later N
		return nil, errOtherVersion
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("not a manifest: neither format 2 nor JSON (%v)", err)
	}
	if m.Version != 1 {
		return nil, fmt.Errorf("%w (%d)", errOtherVersion, m.Version)
	}
	return &m, m.check()
}

// Encode returns m in the format of its Version (2 when 0), as a
// manifest object holds it, its skills sorted by Dir and each skill's
// files by path. It is for tools and tests; Publish encodes the manifests
// it writes.
func (m *Manifest) Encode() ([]byte, error) {
	if m.Version == 1 {
		return json.Marshal(m)
	}
	// m is sorted in a copy, if it is not sorted already.
	byDir := func(a, b Skill) int { return strings.Compare(a.Dir, b.Dir) }
	byPath := func(a, b File) int { return strings.Compare(a.Path, b.Path) }
	sorted, cloned := *m, false
	clone := func() {
		if !cloned {
			sorted.Skills, cloned = slices.Clone(m.Skills), true
		}
	}
	if !slices.IsSortedFunc(sorted.Skills, byDir) {
		clone()
		slices.SortFunc(sorted.Skills, byDir)
	}
	for i := range sorted.Skills {
		if !slices.IsSortedFunc(sorted.Skills[i].Files, byPath) {
			clone()
			sk := &sorted.Skills[i]
			sk.Files = slices.Clone(sk.Files)
			slices.SortFunc(sk.Files, byPath)
		}
	}
	return encode2(header2{Version: 2, ID: m.ID, Published: m.Published, Sequence: m.Sequence, Scanner: m.Scanner, Skills: len(m.Skills)}, &sorted)
}

// check reports what is wrong with a manifest a reader is given: every
// path must be clean and inside its skill, digests well formed.
func (m *Manifest) check() error {
	seen := map[string]bool{}
	for i := range m.Skills {
		sk := &m.Skills[i]
		if seen[sk.Dir] {
			return errBadFolder
		}
		seen[sk.Dir] = true
		if err := sk.check(); err != nil {
			return err
		}
	}
	return nil
}

// errBadFolder is Manifest.check's error for a skill folder that is not
// a clean name, or that two skills share.
var errBadFolder = errors.New("manifest names a bad or repeated skill folder")

// Check reports what is wrong with sk as a manifest's skill (a bad
// folder, document or file path, a repeated path, a bad digest), so a
// caller building a manifest from records it did not write can leave
// one bad skill out instead of failing the whole manifest. It does not
// know the other skills: a repeated folder is the caller's to find.
func (sk *Skill) Check() error {
	if err := sk.check(); err != nil {
		return err
	}
	for _, f := range sk.Files {
		if _, ok := parseDigest(f.SHA256); !ok {
			return errors.New("manifest names a bad digest in skill " + sk.Dir)
		}
	}
	return nil
}

// check is Manifest.check of one skill, but for its folder being repeated.
func (sk *Skill) check() error {
	if sk.Dir == "" || sk.Dir[0] == '.' || !validPath(sk.Dir) || path.Base(sk.Dir) != sk.Dir {
		return errBadFolder
	}
	if sk.DocPath != path.Base(sk.DocPath) || !validPath(sk.DocPath) {
		return errors.New("manifest names a bad document in skill " + sk.Dir)
	}
	files := map[string]bool{}
	for _, f := range sk.Files {
		if !validPath(f.Path) || len(f.SHA256) != 64 || f.Size < 0 || files[f.Path] {
			return errors.New("manifest names a bad or repeated file path, or a bad digest, in skill " + sk.Dir)
		}
		files[f.Path] = true
	}
	for _, f := range sk.Findings {
		if !files[f.Path] {
			return errors.New("manifest names hidden text in a file it does not list in skill " + sk.Dir)
		}
	}
	for p := range files { // a name is a file or a folder, not both
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if files[d] {
				return errors.New("manifest names " + d + " as both a file and a folder in skill " + sk.Dir)
			}
		}
	}
	return nil
}

func validPath(p string) bool {
	return p != "" && p != "." && path.Clean(p) == p && p[0] != '/' && !(p == ".." || len(p) > 2 && p[:3] == "../")
}
