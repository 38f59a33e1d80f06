package gitfs

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/store"
)

// treeFS is one commit's tree (or a folder of it) as an fs.FS. It is
// immutable and safe for concurrent use: its folders are listed from an
// index built once, when the commit was fetched (indexTree), and its
// files are read through objects, which takes the repository's storage
// one lookup at a time. No go-git Tree is shared between readers (a
// Tree fills a path cache as it is searched, without a lock). Symbolic
// links and submodules are left out: a link's target is not in the
// tree's control, and a submodule's content is not in the repository.
type treeFS struct {
	dirs    map[string][]*entry // each folder's entries by the folder's path ("." the root), sorted by name
	objects *objects
	commit  string        // the commit's hash
	when    time.Time     // the commit's time, every file's modification time
	signer  *store.Signer // who signed the commit or its tag; nil without a signer policy
	proof   proof         // what the signer policy checks, again at each refresh (under Repo.mu)
}

// proof is what a commit served was checked by: the commit, the target
// it was reached by and the annotated tag the ref names (nil for none).
type proof struct {
	to     target
	tag    *object.Tag
	commit *object.Commit
}

var (
	_ store.RevisionFS = (*treeFS)(nil)
	_ store.SignedFS   = (*treeFS)(nil)
	_ fs.ReadDirFS     = (*treeFS)(nil)
	_ fs.StatFS        = (*treeFS)(nil)
)

// Revision returns the commit the files come from.
func (t *treeFS) Revision() string { return t.commit }

// Signer returns the key whose signature of the commit, or of the tag it
// was reached by, the source's signer policy accepted; false when the
// source has no policy.
func (t *treeFS) Signer() (store.Signer, bool) {
	if t.signer == nil {
		return store.Signer{}, false
	}
	return *t.signer, true
}

// lookup finds name's entry in the index; nil for "." (the root).
func (t *treeFS) lookup(op, name string) (*entry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return nil, nil
	}
	dir, base := path.Split(name)
	siblings := t.dirs[cmp.Or(strings.TrimSuffix(dir, "/"), ".")]
	i, found := slices.BinarySearchFunc(siblings, base, func(e *entry, name string) int { return strings.Compare(e.name, name) })
	if !found {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return siblings[i], nil
}

func (t *treeFS) Open(name string) (fs.File, error) {
	e, err := t.lookup("open", name)
	switch {
	case err != nil:
		return nil, err
	case e == nil:
		return &treeDir{info: t.info(".", filemode.Dir, 0), name: ".", entries: t.dirs["."]}, nil
	case e.IsDir():
		return &treeDir{info: e.fileInfo, name: name, entries: t.dirs[name]}, nil
	}
	r, err := t.objects.reader(e.hash)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &treeFile{ReadCloser: r, info: e.fileInfo}, nil
}

// Stat describes a file or folder from the index, reading no object.
func (t *treeFS) Stat(name string) (fs.FileInfo, error) {
	e, err := t.lookup("stat", name)
	switch {
	case err != nil:
		return nil, err
	case e == nil:
		return t.info(".", filemode.Dir, 0), nil
	}
	return e.fileInfo, nil
}

// ReadDir lists a folder, sorted by name, without links and submodules.
func (t *treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	e, err := t.lookup("readdir", name)
	switch {
	case err != nil:
		return nil, err
	case e != nil && !e.IsDir():
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	return dirEntries(t.dirs[name]), nil
}

func (t *treeFS) info(name string, mode filemode.FileMode, size int64) fileInfo {
	return fileInfo{name: name, mode: mode, size: size, when: t.when}
}

// dirEntries copies a folder's entries for a caller, who may change the
// slice.
func dirEntries(es []*entry) []fs.DirEntry {
	out := make([]fs.DirEntry, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// objects reads a commit's files from the repository's storage, one
// lookup at a time: go-git's filesystem storage builds its pack indexes
// and pack lists, and fills its object cache, as it is read, without
// locks. What a lookup returns is then read without the lock: a small
// object from memory, a large one streamed from its pack through a file
// of its own.
type objects struct {
	mu sync.Mutex
	s  storer.EncodedObjectStorer
}

// reader opens blob h.
func (o *objects) reader(h plumbing.Hash) (io.ReadCloser, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	obj, err := o.s.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, err
	}
	return obj.Reader()
}

// inMemory copies object h, of type typ, into memory.
func (o *objects) inMemory(typ plumbing.ObjectType, h plumbing.Hash) (*plumbing.MemoryObject, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	obj, err := o.s.EncodedObject(typ, h)
	if err != nil {
		return nil, err
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	m := &plumbing.MemoryObject{}
	m.SetType(typ)
	w, err := m.Writer()
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(w, r); err != nil {
		return nil, err
	}
	return m, nil
}

// detach returns p with its commit and tag decoded again from copies of
// their bytes in memory, keeping nothing of the storage o reads (a
// refused commit is remembered to be checked again; its clone is not):
// nil if they cannot be read.
func detach(o *objects, p proof) *proof {
	c, err := o.inMemory(plumbing.CommitObject, p.commit.Hash)
	if err != nil {
		return nil
	}
	if p.commit, err = object.DecodeCommit(nil, c); err != nil {
		return nil
	}
	if p.tag != nil {
		t, err := o.inMemory(plumbing.TagObject, p.tag.Hash)
		if err != nil {
			return nil
		}
		if p.tag, err = object.DecodeTag(nil, t); err != nil {
			return nil
		}
	}
	return &p
}

// entry is a file or folder of a treeFS, as its fs.DirEntry.
type entry struct {
	fileInfo
	hash plumbing.Hash
}

func (e *entry) Type() fs.FileMode          { return e.Mode().Type() }
func (e *entry) Info() (fs.FileInfo, error) { return e.fileInfo, nil }

type treeFile struct {
	io.ReadCloser
	info fileInfo
}

func (f *treeFile) Stat() (fs.FileInfo, error) { return f.info, nil }

type treeDir struct {
	info    fileInfo
	name    string
	entries []*entry // the index's: never changed
	off     int
}

func (d *treeDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *treeDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: fs.ErrInvalid}
}
func (d *treeDir) Close() error { return nil }

func (d *treeDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.off:]
	if n <= 0 {
		d.off = len(d.entries)
		return dirEntries(rest), nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(n, len(rest))]
	d.off += len(rest)
	return dirEntries(rest), nil
}

type fileInfo struct {
	name string
	mode filemode.FileMode
	size int64
	when time.Time
}

func (i fileInfo) Name() string { return i.name }
func (i fileInfo) Size() int64  { return i.size }
func (i fileInfo) Mode() fs.FileMode {
	switch i.mode {
	case filemode.Dir:
		return fs.ModeDir | 0o555
	case filemode.Executable:
		return 0o555
	}
	return 0o444
}
func (i fileInfo) ModTime() time.Time { return i.when }
func (i fileInfo) IsDir() bool        { return i.mode == filemode.Dir }
func (i fileInfo) Sys() any           { return nil }

// maxTreeDepth bounds how deep folders under the skills path may nest
// (go-git's tree walker's own bound).
const maxTreeDepth = 1024

// ErrUnsafeTree reports a commit refused as a whole because the tree
// under its skills path is one readers would disagree on or trip over.
var ErrUnsafeTree = errors.New("unsafe tree")

// indexTree walks the tree under the skills path (dir, "." for the
// root) before it is served and returns each folder's entries, for
// treeFS.dirs: names, modes, sizes and objects, links and submodules
// left out, each file's time when. It stops with errOverCap past limit
// bytes of files (links excluded) and of the folders' paths, which the
// index holds, and with errTooMany past maxEntries entries visited
// (links and submodules included): a tree may list one folder many
// times over, or nest folders of long names, in a few bytes of objects.
// It refuses (ErrUnsafeTree, with the
// entry's path) what would otherwise fail on every read or be read two
// ways: a name go-git will not look up (".", "..", ".git" and its
// disguises, control characters: see object.Tree.FindEntry) or holding
// "/"; two entries of one name (git fsck's duplicateEntries); an entry
// whose object is missing or of the wrong type; folders nested deeper
// than maxTreeDepth. Other errors (reading the storage) are returned as
// they are. It reads each folder's object once, alone.
func indexTree(s storer.EncodedObjectStorer, t *object.Tree, dir string, limit int64, when time.Time) (map[string][]*entry, error) {
	x := &indexer{s: s, limit: limit, left: maxEntries, when: when, dirs: map[string][]*entry{}}
	if err := x.walk(t, ".", dir, 0); err != nil {
		return nil, err
	}
	return x.dirs, nil
}

// maxEntries bounds the entries under the skills path a commit's index
// visits, as it does an archive's.
const maxEntries = backends.DefaultMaxArchiveEntries

type indexer struct {
	s            storer.EncodedObjectStorer
	total, limit int64 // files' bytes and folders' paths
	left         int   // entries yet to visit
	when         time.Time
	dirs         map[string][]*entry
}

// walk indexes folder t, at rel under the skills path and shown (in
// errors) as shown.
func (x *indexer) walk(t *object.Tree, rel, shown string, depth int) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("%w: %q nests folders deeper than %d", ErrUnsafeTree, store.Echo(shown), maxTreeDepth)
	}
	seen := make(map[string]bool, len(t.Entries))
	entries := make([]*entry, 0, len(t.Entries))
	for _, e := range t.Entries {
		if x.left--; x.left < 0 {
			return errTooMany
		}
		p, r := e.Name, e.Name // not path.Join: it would clean a ".." away
		if shown != "." {
			p = shown + "/" + e.Name
		}
		if rel != "." {
			r = rel + "/" + e.Name
		}
		if seen[e.Name] {
			return fmt.Errorf("%w: entry %q appears twice (git fsck: duplicateEntries)", ErrUnsafeTree, store.Echo(p))
		}
		seen[e.Name] = true
		if strings.Contains(e.Name, "/") {
			return fmt.Errorf("%w: entry %q has a \"/\" in its name", ErrUnsafeTree, store.Echo(p))
		}
		if _, err := t.FindEntry(e.Name); err != nil { // t is this walk's alone
			return fmt.Errorf("%w: entry %q has a name git refuses to check out", ErrUnsafeTree, store.Echo(p))
		}
		var want plumbing.ObjectType
		switch {
		case e.Mode == filemode.Dir:
			want = plumbing.TreeObject
		case e.Mode.IsFile() && e.Mode != filemode.Symlink:
			want = plumbing.BlobObject
		default:
			continue // a link or a submodule: not served
		}
		obj, err := x.s.EncodedObject(plumbing.AnyObject, e.Hash)
		switch {
		case errors.Is(err, plumbing.ErrObjectNotFound):
			return fmt.Errorf("%w: entry %q names an object the repository lacks", ErrUnsafeTree, store.Echo(p))
		case err != nil:
			return err
		case obj.Type() != want:
			return fmt.Errorf("%w: entry %q is a %s in its folder's listing but a %s in the repository", ErrUnsafeTree, store.Echo(p), want, obj.Type())
		}
		if want == plumbing.BlobObject {
			if x.total += obj.Size(); x.total > x.limit {
				return errOverCap
			}
			entries = append(entries, &entry{fileInfo: fileInfo{name: e.Name, mode: e.Mode, size: obj.Size(), when: x.when}, hash: e.Hash})
			continue
		}
		if x.total += int64(len(r)); x.total > x.limit { // its path: the index's key
			return errOverCap
		}
		entries = append(entries, &entry{fileInfo: fileInfo{name: e.Name, mode: filemode.Dir, when: x.when}, hash: e.Hash})
		sub, err := object.DecodeTree(x.s, obj)
		if errors.Is(err, object.ErrMalformedTree) {
			return fmt.Errorf("%w: folder %q is malformed", ErrUnsafeTree, store.Echo(p))
		}
		if err != nil {
			return err
		}
		if err := x.walk(sub, r, p, depth+1); err != nil {
			return err
		}
	}
	slices.SortFunc(entries, func(a, b *entry) int { return strings.Compare(a.name, b.name) })
	x.dirs[rel] = entries
	return nil
}

// errOverCap and errTooMany stop indexTree when the files pass the cap,
// and when the entries pass maxEntries.
var (
	errOverCap = errors.New("the files exceed the cap")
	errTooMany = errors.New("too many files and folders")
)
