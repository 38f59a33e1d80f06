package gitfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/skillstore/skillstore/store"
)

// treeFS is one commit's tree (or a folder of it) as an fs.FS. It is
// immutable. Symbolic links and submodules are left out: a link's target
// is not in the tree's control, and a submodule's content is not in the
// repository.
type treeFS struct {
	tree   *object.Tree
	commit string        // the commit's hash
	when   time.Time     // the commit's time, every file's modification time
	signer *store.Signer // who signed the commit or its tag; nil without a signer policy
}

var (
	_ store.RevisionFS = (*treeFS)(nil)
	_ store.SignedFS   = (*treeFS)(nil)
	_ fs.ReadDirFS     = (*treeFS)(nil)
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

func (t *treeFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return &treeDir{fs: t, tree: t.tree, name: "."}, nil
	}
	e, err := t.tree.FindEntry(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	switch {
	case e.Mode == filemode.Dir:
		sub, err := t.tree.Tree(name)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &treeDir{fs: t, tree: sub, name: name}, nil
	case e.Mode.IsFile() && e.Mode != filemode.Symlink:
		f, err := t.tree.TreeEntryFile(e)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		r, err := f.Reader()
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &treeFile{ReadCloser: r, info: t.info(path.Base(name), e.Mode, f.Size)}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// ReadDir lists a folder, sorted by name, without links and submodules.
func (t *treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := t.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, ok := f.(*treeDir)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	return d.ReadDir(-1)
}

func (t *treeFS) info(name string, mode filemode.FileMode, size int64) fileInfo {
	return fileInfo{name: name, mode: mode, size: size, when: t.when}
}

type treeFile struct {
	io.ReadCloser
	info fileInfo
}

func (f *treeFile) Stat() (fs.FileInfo, error) { return f.info, nil }

type treeDir struct {
	fs      *treeFS
	tree    *object.Tree
	name    string
	entries []fs.DirEntry // nil until listed
	off     int
}

func (d *treeDir) Stat() (fs.FileInfo, error) {
	return d.fs.info(path.Base(d.name), filemode.Dir, 0), nil
}
func (d *treeDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: fs.ErrInvalid}
}
func (d *treeDir) Close() error { return nil }

func (d *treeDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if d.entries == nil {
		d.entries = []fs.DirEntry{}
		for _, e := range d.tree.Entries {
			var size int64
			switch {
			case e.Mode == filemode.Dir:
			case e.Mode.IsFile() && e.Mode != filemode.Symlink:
				size, _ = d.tree.Size(e.Name)
			default:
				continue // a link or a submodule
			}
			d.entries = append(d.entries, fs.FileInfoToDirEntry(d.fs.info(e.Name, e.Mode, size)))
		}
		slices.SortFunc(d.entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
	rest := d.entries[d.off:]
	if n <= 0 {
		d.off = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(n, len(rest))]
	d.off += len(rest)
	return rest, nil
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

// checkTree walks the tree under the skills path before it is served and
// returns its files' total size (links excluded), stopping past limit.
// It refuses (ErrUnsafeTree, with the entry's path) what would otherwise
// fail on every read or be read two ways: a name go-git will not look up
// (".", "..", ".git" and its disguises, control characters: see
// object.Tree.FindEntry) or holding "/"; two entries of one name (git
// fsck's duplicateEntries); an entry whose object is missing or of the
// wrong type; folders nested deeper than maxTreeDepth. Other errors
// (reading the storage) are returned as they are.
func checkTree(s storer.EncodedObjectStorer, t *object.Tree, dir string, depth int, total *int64, limit int64) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("%w: %q nests folders deeper than %d", ErrUnsafeTree, store.Echo(dir), maxTreeDepth)
	}
	seen := make(map[string]bool, len(t.Entries))
	for _, e := range t.Entries {
		p := e.Name // not path.Join: it would clean a ".." away
		if dir != "." {
			p = dir + "/" + e.Name
		}
		if seen[e.Name] {
			return fmt.Errorf("%w: entry %q appears twice (git fsck: duplicateEntries)", ErrUnsafeTree, store.Echo(p))
		}
		seen[e.Name] = true
		if strings.Contains(e.Name, "/") {
			return fmt.Errorf("%w: entry %q has a \"/\" in its name", ErrUnsafeTree, store.Echo(p))
		}
		if _, err := t.FindEntry(e.Name); err != nil {
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
		obj, err := s.EncodedObject(plumbing.AnyObject, e.Hash)
		switch {
		case errors.Is(err, plumbing.ErrObjectNotFound):
			return fmt.Errorf("%w: entry %q names an object the repository lacks", ErrUnsafeTree, store.Echo(p))
		case err != nil:
			return err
		case obj.Type() != want:
			return fmt.Errorf("%w: entry %q is a %s in its folder's listing but a %s in the repository", ErrUnsafeTree, store.Echo(p), want, obj.Type())
		}
		if want == plumbing.BlobObject {
			if *total += obj.Size(); *total > limit {
				return errOverCap
			}
			continue
		}
		sub, err := object.DecodeTree(s, obj)
		if errors.Is(err, object.ErrMalformedTree) {
			return fmt.Errorf("%w: folder %q is malformed", ErrUnsafeTree, store.Echo(p))
		}
		if err != nil {
			return err
		}
		if err := checkTree(s, sub, p, depth+1, total, limit); err != nil {
			return err
		}
	}
	return nil
}

// errOverCap stops checkTree when the files pass the cap.
var errOverCap = errors.New("the files exceed the cap")
