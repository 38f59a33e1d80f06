package snapshot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skillstore/skillstore/internal/fsdir"
	"github.com/skillstore/skillstore/internal/hidden"
	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/store"
)

// View is one snapshot as a read-only fs.FS: folders and file sizes come
// from its manifest (no request), and a file's content is one object read,
// checked against the manifest's size and SHA-256. It keeps the manifest
// in its compact form (format version 2; a version 1 manifest is converted
// when it is read) and decodes a skill's file list when a name in it is
// asked for: a lookup costs a binary search among the skills and a scan
// of that skill's files, so skills of thousands of files are slower to
// look into than small ones. It implements store.PublishedFS,
// store.ContentFS, store.RevisionFS, store.ContextFS and store.SignedFS.
type View struct {
	c      *compact
	key    string            // the manifest's object key
	raw    []byte            // the manifest's bytes as read, when c holds them (version 2)
	digest [sha256.Size]byte // of the manifest's exact bytes as read
	signer store.Signer      // who signed it, when a policy verified it
	signed bool
	trust  *sshsig.AllowedSigners // the signer list that verified it (FS.recheck)
	objs   Objects
	ctx    context.Context
	root   *rootDir // shared by the views WithContext makes
}

// rootDir is the listing of a view's top folder, made once when asked for.
type rootDir struct {
	once sync.Once
	ents []fs.DirEntry
}

type fileEntry struct {
	name string
	file File
}

func (e *fileEntry) Name() string               { return e.name }
func (e *fileEntry) Size() int64                { return e.file.Size }
func (e *fileEntry) Mode() fs.FileMode          { return 0o444 }
func (e *fileEntry) ModTime() time.Time         { return e.file.ModTime }
func (e *fileEntry) IsDir() bool                { return false }
func (e *fileEntry) Sys() any                   { return nil }
func (e *fileEntry) Type() fs.FileMode          { return 0 }
func (e *fileEntry) Info() (fs.FileInfo, error) { return e, nil }

var (
	_ store.PublishedFS = (*View)(nil)
	_ store.ContentFS   = (*View)(nil)
	_ store.RevisionFS  = (*View)(nil)
	_ store.ContextFS   = (*View)(nil)
	_ store.SignedFS    = (*View)(nil)
	_ fs.StatFS         = (*View)(nil)
	_ fs.ReadDirFS      = (*View)(nil)
)

// newView returns the view of manifest data, read from key: checked
// whole (framing, names, order), indexed, and for a version 1 manifest
// converted to the compact form. It fails with ErrBroken's reason.
func newView(data []byte, key string, objs Objects) (*View, error) {
	v := &View{key: key, objs: objs, ctx: context.Background(), root: &rootDir{}, digest: sha256.Sum256(data)}
	c, err := compactFrom(data)
	if err != nil {
		return nil, err
	}
	v.c = c
	if bytes.HasPrefix(data, []byte(magic2)) {
		v.raw = data
	}
	return v, nil
}

// NewView serves m, a manifest made in memory rather than read (a
// registry's latest versions), reading content from objs under BlobKey.
// m is checked as a manifest read is and encoded once: at 100,000
// skills that is about a tenth of a second.
func NewView(m *Manifest, objs Objects) (*View, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	data, err := m.Encode()
	if err != nil {
		return nil, err
	}
	return newView(data, "", objs)
}

// compactFrom checks a manifest of either format whole and gives it in
// the compact form: format 2's bytes indexed, format 1's converted.
func compactFrom(data []byte) (*compact, error) {
	if bytes.HasPrefix(data, []byte(magic2)) {
		return parseCompact(data)
	}
	m, err := DecodeManifest(data)
	if err != nil {
		return nil, err
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return compactOf(m)
}

// compactOf converts a version 1 manifest, checked, to the compact form.
func compactOf(m *Manifest) (*compact, error) {
	data, err := (&Manifest{ID: m.ID, Published: m.Published, Sequence: m.Sequence, Scanner: m.Scanner, Skills: m.Skills}).Encode()
	if err != nil {
		return nil, err
	}
	c, err := parseCompact(data)
	if err != nil {
		return nil, err
	}
	c.header.Version = 1 // as published
	return c, nil
}

// ID is the snapshot's ID.
func (v *View) ID() string { return v.c.header.ID }

// Signer returns the key that signed the snapshot's manifest, when a
// signer policy verified it (store.SignedFS).
func (v *View) Signer() (store.Signer, bool) { return v.signer, v.signed }

// Revision is the snapshot's ID (store.RevisionFS), which each skill read
// from it carries (store.Skill.Revision and its Provenance). A new publish
// is a new ID; a Refresh that finds the same pointer keeps the view.
func (v *View) Revision() string { return v.c.header.ID }

// WithContext returns the view whose object reads end when ctx does.
func (v *View) WithContext(ctx context.Context) fs.FS {
	c := *v
	c.ctx = ctx
	return &c
}

// Published lists the snapshot's skills with their frontmatter, so a
// store builds its catalog without reading a document. Frontmatter and
// Headings share the manifest's bytes, which the view holds: a store
// keeps them as they are (its skills hold the view), so a catalog of
// 100,000 skills does not copy them.
// The records are decoded on every core, in contiguous runs.
func (v *View) Published() []store.PublishedSkill {
	out := make([]store.PublishedSkill, len(v.c.records))
	runs := min(runtime.GOMAXPROCS(0), len(out)/1024+1)
	var wg sync.WaitGroup
	for k := range runs {
		wg.Go(func() {
			for i := k * len(out) / runs; i < (k+1)*len(out)/runs; i++ {
				out[i] = v.published(i)
			}
		})
	}
	wg.Wait()
	return out
}

func (v *View) published(i int) store.PublishedSkill {
	r := v.c.record(i)
	// The names are copied: a store keeps them, and they must not pin
	// the manifest once it is replaced.
	ps := store.PublishedSkill{Dir: strings.Clone(r.dir), DocPath: docName(r.docPath), Frontmatter: r.frontmatter, Headings: r.headings, Scanned: v.scanned()}
	if ps.Scanned {
		ps.Findings = r.findingList()
	}
	if f, ok := v.c.file(r, r.docPath, false); ok { // its size and time: a lookup gives its digests
		ps.Doc = &fileEntry{name: r.docPath, file: f}
	}
	return ps
}

// scanned reports whether the findings the manifest lists can be trusted
// (store.PublishedSkill.Scanned): a trusted key signed it (a signer
// policy verified it), and this version's scanner found them. Anyone who
// can write to an unsigned folder can list none.
func (v *View) scanned() bool { return v.signed && v.c.header.Scanner == hidden.Version }

// lookup resolves name: a skill's file (e), or a folder (dir: the top
// folder, a skill's, or one inside a skill), or neither.
func (v *View) lookup(name string) (e *fileEntry, r record, rel string, dir bool) {
	if name == "." {
		return nil, record{}, "", true
	}
	skill, rel, _ := strings.Cut(name, "/")
	i, ok := v.c.skill(skill)
	if !ok {
		return nil, record{}, "", false
	}
	r = v.c.record(i)
	if rel == "" {
		return nil, r, "", true
	}
	if f, ok := v.c.file(r, rel, true); ok {
		return &fileEntry{name: path.Base(rel), file: f}, r, rel, false
	}
	prefix := rel + "/"
	v.c.files(r, func(f File) bool {
		dir = strings.HasPrefix(f.Path, prefix)
		return !dir && f.Path < prefix // sorted: past the prefix, nothing starts with it
	})
	return nil, r, rel, dir
}

// ContentSHA256 gives the named file's digests from the manifest
// (store.ContentFS).
func (v *View) ContentSHA256(name string) (raw, served string, servedSize int64, ok bool) {
	e, _, _, _ := v.lookup(name)
	if e == nil {
		return "", "", 0, false
	}
	return e.file.SHA256, e.file.Served, e.file.ServedSize, true
}

func (v *View) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	e, _, _, dir := v.lookup(name)
	switch {
	case e != nil:
		return e, nil
	case dir:
		return fsdir.Entry(path.Base(name)).Info()
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

func (v *View) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	e, r, rel, dir := v.lookup(name)
	switch {
	case e != nil:
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	case !dir:
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	case name == ".":
		return slices.Clone(v.rootEntries()), nil
	}
	return v.c.entries(r, rel), nil
}

// rootEntries lists the skill folders, once.
func (v *View) rootEntries() []fs.DirEntry {
	v.root.once.Do(func() {
		v.root.ents = make([]fs.DirEntry, len(v.c.records))
		for i := range v.c.records {
			v.root.ents[i] = fsdir.Entry(v.c.dir(i))
		}
	})
	return v.root.ents
}

// entries lists folder rel ("" for the skill's own) of record r, sorted
// by name.
func (c *compact) entries(r record, rel string) []fs.DirEntry {
	prefix := ""
	if rel != "" {
		prefix = rel + "/"
	}
	var ents []fs.DirEntry
	last := ""
	c.files(r, func(f File) bool {
		rest, ok := strings.CutPrefix(f.Path, prefix)
		if !ok {
			return f.Path < prefix
		}
		name, _, isDir := strings.Cut(rest, "/")
		switch {
		case isDir && name != last:
			ents = append(ents, fsdir.Entry(strings.Clone(name)))
		case !isDir:
			ents = append(ents, &fileEntry{name: path.Base(f.Path), file: f})
		}
		if isDir {
			last = name
		}
		return true
	})
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents
}

// ErrDigestMismatch is the error of reading a blob whose content does not
// match the manifest: the published folder was altered.
var ErrDigestMismatch = errors.New("content does not match its published digest")

// Open opens a folder, or a file whose content is fetched (one object
// read, checked against the manifest's size and SHA-256) on its first
// Read: Stat answers from the manifest, so a caller that checks the size
// first never downloads a file it will refuse.
func (v *View) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	e, r, rel, dir := v.lookup(name)
	switch {
	case e != nil:
		return &blobFile{v: v, name: name, info: e}, nil
	case dir && name == ".":
		return fsdir.Open(".", slices.Clone(v.rootEntries())), nil
	case dir:
		return fsdir.Open(path.Base(name), v.c.entries(r, rel)), nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// fetch reads a file's blob and checks it.
func (v *View) fetch(name string, e *fileEntry) ([]byte, error) {
	if err := v.ctx.Err(); err != nil {
		// The caller left: no object is read for it, whether or not the
		// Objects heed contexts (FSObjects does not).
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	data, err := v.objs.ReadObject(v.ctx, BlobKey(e.file.SHA256), e.file.Size)
	if errors.Is(err, ErrTooLarge) { // not the size the manifest gives
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrDigestMismatch}
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// The manifest names it, so the folder is incomplete or was
			// collected under a replica: not the caller's missing file.
			err = fmt.Errorf("blob %s of %s is missing from the published folder", e.file.SHA256, name)
		}
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if int64(len(data)) != e.file.Size || Sum(data) != e.file.SHA256 {
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrDigestMismatch}
	}
	return data, nil
}

// blobFile is an opened file of a snapshot.
type blobFile struct {
	v    *View
	name string
	info *fileEntry
	r    *bytes.Reader // nil until the first Read
}

func (f *blobFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *blobFile) Close() error               { return nil }

func (f *blobFile) Read(p []byte) (int, error) {
	if f.r == nil {
		data, err := f.v.fetch(f.name, f.info)
		if err != nil {
			return 0, err
		}
		f.r = bytes.NewReader(data)
	}
	return f.r.Read(p)
}

// docName returns a document's file name as a string of its own: the
// usual one shared, any other copied.
func docName(name string) string {
	if name == "SKILL.md" {
		return "SKILL.md"
	}
	return strings.Clone(name)
}
