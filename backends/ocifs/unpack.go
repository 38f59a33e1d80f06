package ocifs

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/store"
)

// unpacker lays a manifest's layers one over the other, within bounds.
type unpacker struct {
	files    map[string][]byte
	bytes    int64 // held in files
	entries  int   // read from every layer
	maxBytes int64
	maxEnt   int
}

func newUnpacker(maxBytes int64, maxEntries int) *unpacker {
	return &unpacker{files: map[string][]byte{}, maxBytes: maxBytes, maxEnt: maxEntries}
}

// unpack reads one layer, a tar archive (gzipped if gz), over what the
// earlier ones left. Errors about the layer's content are *LayerError;
// others are the transport's.
func (u *unpacker) unpack(r io.Reader, gz bool) error {
	if gz {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return &LayerError{Msg: "not a gzip stream: " + err.Error()}
		}
		defer zr.Close()
		r = zr
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if errors.Is(err, tar.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) {
				return &LayerError{Msg: "not a readable tar archive: " + err.Error()}
			}
			return err
		}
		if u.entries++; u.entries > u.maxEnt {
			return &LayerError{Msg: fmt.Sprintf("over %d entries", u.maxEnt)}
		}
		name, err := entryName(h.Name)
		if err != nil {
			return err
		}
		dir, base := path.Split(name)
		switch {
		case base == ".wh..wh..opq": // an opaque folder: what earlier layers put in it is gone
			u.remove(strings.TrimSuffix(dir, "/"), true)
			continue
		case strings.HasPrefix(base, ".wh."):
			u.remove(path.Join(dir, strings.TrimPrefix(base, ".wh.")), false)
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			continue
		case tar.TypeReg, tar.TypeRegA:
		case tar.TypeSymlink, tar.TypeLink:
			return &LayerError{Msg: fmt.Sprintf("%q is a link (to %q): links are refused", name, h.Linkname)}
		default:
			return &LayerError{Msg: fmt.Sprintf("%q is not a regular file or a folder (tar type %q): refused", name, h.Typeflag)}
		}
		if h.Size < 0 || h.Size > u.maxBytes-u.bytes+int64(len(u.files[name])) {
			return &LayerError{Msg: fmt.Sprintf("the files add up to over %d bytes", u.maxBytes)}
		}
		data, err := io.ReadAll(io.LimitReader(tr, h.Size))
		if err != nil {
			return err
		}
		if int64(len(data)) != h.Size {
			return &LayerError{Msg: fmt.Sprintf("%q ends before its %d bytes", name, h.Size)}
		}
		u.bytes += int64(len(data)) - int64(len(u.files[name]))
		u.files[name] = data
	}
}

// entryName is a tar entry's name as a path in the tree: "./" removed;
// an absolute name, one with "..", a backslash or a NUL is refused.
func entryName(raw string) (string, error) {
	name := strings.TrimPrefix(raw, "./")
	name = strings.TrimSuffix(name, "/")
	if name == "" || name == "." {
		return ".", nil
	}
	if strings.HasPrefix(name, "/") || strings.ContainsAny(name, "\\\x00") || !fs.ValidPath(name) {
		return "", &LayerError{Msg: fmt.Sprintf("the entry %q leaves the archive or is not a clean path: refused", raw)}
	}
	return name, nil
}

// remove deletes p and what is under it (only what is under it, if
// under).
func (u *unpacker) remove(p string, under bool) {
	for name, data := range u.files {
		if !under && name == p || strings.HasPrefix(name, p+"/") || under && p == "." {
			u.bytes -= int64(len(data))
			delete(u.files, name)
		}
	}
}

// tree returns what the layers hold as a source: a folder of skills, or
// one skill served as a folder called name, found at the root or under
// folders that hold nothing else (an image's /skills/…). It is served as
// an archive, with the rules every archive gets.
func (u *unpacker) tree(name string) (fs.FS, error) {
	names := make([]string, 0, len(u.files))
	for p := range u.files {
		names = append(names, p)
	}
	sort.Strings(names)
	prefix := skillsRoot(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range names {
		rel, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: rel, Method: zip.Store})
		if err != nil {
			return nil, err
		}
		w.Write(u.files[p])
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	a, err := backends.NewArchive(bytes.NewReader(buf.Bytes()), int64(buf.Len()), backends.ArchiveOptions{MaxBytes: u.maxBytes, MaxEntries: u.maxEnt, Name: name})
	if err != nil {
		return nil, &LayerError{Msg: err.Error()}
	}
	return a, nil
}

// skillsRoot is the folder of names that holds the skills: the root if
// it holds a SKILL.md or a skill folder, else the one folder the root
// holds, and so on, four levels down at most ("" for the root, else the
// folder and a slash).
func skillsRoot(names []string) string {
	prefix := ""
	for depth := 0; depth < 4; depth++ {
		top := ""
		holds := false
		for _, p := range names {
			rel, ok := strings.CutPrefix(p, prefix)
			if !ok {
				continue
			}
			first, rest, nested := strings.Cut(rel, "/")
			if store.IsDocName(rel) || nested && !strings.Contains(rest, "/") && store.IsDocName(rest) {
				holds = true
				break
			}
			if !nested || top != "" && first != top {
				return prefix // files, or two folders, at this level: no single folder to descend into
			}
			top = first
		}
		if holds || top == "" {
			return prefix
		}
		prefix += top + "/"
	}
	return prefix
}
