package store

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"path"
)

// IndexPath is where `skillstore publish` writes a source's catalog index.
// Discovery skips hidden folders, so the index is never taken for a skill.
const IndexPath = ".skillstore/index.json"

// maxIndexBytes bounds the index a store will read.
const maxIndexBytes = 64 << 20

// Index is a published catalog: for each skill, its document's name, size,
// MD5 and frontmatter. A store building its catalog from a source with an
// index reads the index (one GET on object storage) instead of every
// SKILL.md, for each document whose listed size and MD5 match its entry;
// any other document is read as usual, so a stale index costs reads, not
// correctness.
type Index struct {
	Version int          `json:"version"`
	Skills  []IndexEntry `json:"skills"`
}

// IndexEntry describes one skill of an Index.
type IndexEntry struct {
	Dir         string `json:"dir"`
	DocPath     string `json:"docPath"`
	Size        int64  `json:"size"`
	MD5         string `json:"md5"`         // hex of the document's bytes
	Frontmatter string `json:"frontmatter"` // the YAML between the '---' lines, verbatim
}

// IndexVersion is the Index format this package writes and reads.
const IndexVersion = 1

// DigestFS is implemented by backends that know a file's content digest
// without reading it: object storage listings carry an MD5. The store uses
// it to trust a published index (see Index) without reading each document.
type DigestFS interface {
	fs.FS
	// StatMD5 describes the named file and gives the MD5 of its content,
	// both from the same listing; md5 is nil when the backend does not
	// know it.
	StatMD5(name string) (fi fs.FileInfo, md5 []byte, err error)
}

// readIndex loads a source's index, keyed by folder; nil when it has none
// or it cannot be used (the reason is logged).
func (s *Store) readIndex(src Source) map[string]IndexEntry {
	f, err := src.FS.Open(IndexPath)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.opts.Logger.Info("ignoring the source's index", "source", src.Label, "reason", err)
		}
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() > maxIndexBytes {
		return nil
	}
	data, err := readLimited(f, fi.Size(), maxIndexBytes)
	if err != nil {
		return nil
	}
	var idx Index
	if err := json.Unmarshal(data, &idx); err != nil || idx.Version != IndexVersion {
		s.opts.Logger.Info("ignoring the source's index", "source", src.Label, "reason", "unreadable or of another version")
		return nil
	}
	m := make(map[string]IndexEntry, len(idx.Skills))
	for _, e := range idx.Skills {
		if servableDir(e.Dir) && IsDocName(e.DocPath) {
			m[e.Dir] = e
		}
	}
	return m
}

// matchesIndex reports whether the document e describes is still the one
// listed: same size and, from the listing, the same MD5. Sources without
// listed digests (local disk) never match, so their documents are read.
func (s *Store) matchesIndex(i int, dir string, e IndexEntry) (fs.FileInfo, bool) {
	d, ok := s.sources[i].FS.(DigestFS)
	if !ok {
		return nil, false
	}
	fi, md5, err := d.StatMD5(path.Join(dir, e.DocPath))
	if err != nil || fi.IsDir() || fi.Size() != e.Size {
		return nil, false
	}
	want, err := hex.DecodeString(e.MD5)
	return fi, err == nil && len(want) > 0 && bytes.Equal(md5, want)
}
