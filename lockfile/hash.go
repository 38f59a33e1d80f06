package lockfile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// ComputedHash is an entry's "computedHash" for the skill folder fsys, as
// the CLI's computeSkillFolderHash computes it: the hex SHA-256 of every
// regular file's path relative to the folder ("/"-separated, UTF-8) and
// then its bytes, the files in ComparePaths order. Folders named .git or
// node_modules, at any depth, are skipped, and so are links (to files or
// folders), which the CLI's walk neither reads nor follows; hidden files
// count. It fails on a file name that is not valid UTF-8 (the CLI then
// hashes no folder either).
func ComputedHash(fsys fs.FS) (string, error) {
	paths, err := hashedPaths(fsys)
	if err != nil {
		return "", err
	}
	return hashPaths(paths, func(w io.Writer, p string) error {
		f, err := fsys.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	})
}

// HashFiles is ComputedHash of a folder of the regular files paths
// ("/"-separated, relative to the folder), whose bytes read returns: a
// path with a segment .git or node_modules is skipped, as ComputedHash
// skips those folders. It is for files that are not on a disk (a skill as
// a server serves it); read is called once per file, in hashing order. It
// fails on a path that is not valid UTF-8, and with read's errors.
func HashFiles(paths []string, read func(p string) ([]byte, error)) (string, error) {
	var kept []string
	for _, p := range paths {
		if !utf8.ValidString(p) {
			return "", fmt.Errorf("file name %q is not UTF-8", p)
		}
		if !slices.ContainsFunc(strings.Split(p, "/"), func(seg string) bool { return seg == ".git" || seg == "node_modules" }) {
			kept = append(kept, p)
		}
	}
	return hashPaths(kept, func(w io.Writer, p string) error {
		b, err := read(p)
		if err == nil {
			_, err = w.Write(b)
		}
		return err
	})
}

// hashPaths sorts paths in ComparePaths order and returns the hex SHA-256
// of each path and then its bytes, which write writes.
func hashPaths(paths []string, write func(w io.Writer, p string) error) (string, error) {
	SortPaths(paths)
	h := sha256.New()
	for _, p := range paths {
		io.WriteString(h, p)
		if err := write(h, p); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashedPaths are the files ComputedHash counts, unsorted.
func hashedPaths(fsys fs.FS) ([]string, error) {
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (d.Name() == ".git" || d.Name() == "node_modules") {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if !utf8.ValidString(p) {
			return fmt.Errorf("file name %q is not UTF-8", p)
		}
		paths = append(paths, p)
		return nil
	})
	return paths, err
}

// Files lists the files of the skill folder fsys that ComputedHash
// counts (the same walk: no .git, no node_modules, no links), each with
// its SHA-256, in byte order of path.
func Files(fsys fs.FS) ([]FileDigest, error) {
	paths, err := hashedPaths(fsys)
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	files := make([]FileDigest, 0, len(paths))
	for _, p := range paths {
		f, err := fsys.Open(p)
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		files = append(files, FileDigest{Path: p, SHA256: hex.EncodeToString(h.Sum(nil))})
	}
	return files, nil
}

// SortPaths sorts paths in ComparePaths order.
func SortPaths(paths []string) {
	slices.SortFunc(paths, pathComparer())
}

// pathComparer returns ComparePaths with a collator of its own (a
// collator is not safe for concurrent use).
func pathComparer() func(a, b string) int {
	c := collate.New(language.Und)
	return func(a, b string) int {
		if r := c.CompareString(a, b); r != 0 {
			return r
		}
		return strings.Compare(a, b)
	}
}

// ComparePaths orders two paths as the CLI's sort with JavaScript's
// a.localeCompare(b) does under Node's full ICU in the root locale (and
// in "en" and most others), which is the Unicode Collation Algorithm
// with CLDR's root order: punctuation and symbols before digits before
// letters, letters compared without case or accents first ("a-b" <
// "a.b" < "a/b" < "a0" < "aB" < "Ab" < "b"), control characters
// ignored. Paths equal by that collation ("é" composed and decomposed)
// are ordered by their bytes; the CLI leaves them in the order its
// folder walk finished, which is not fixed.
//
// Limits: the order the CLI uses depends on the locale of the machine
// that ran it (LANG): some locales order letters differently (Danish
// puts upper case first; Swedish puts "ä" after "z"), so a hash computed
// under such a locale from names with those letters differs. The
// collation tables are those of golang.org/x/text, which may lag Node's
// ICU for characters new in recent Unicode versions.
func ComparePaths(a, b string) int { return pathComparer()(a, b) }

// FileDigest is one file of a skill: its path in the skill's folder and
// the lowercase hex SHA-256 of its bytes.
type FileDigest struct {
	Path, SHA256 string
}

// FilesDigest is a skill's digest over its files (Pin.Digest): "sha256:"
// and the hex SHA-256 of a line "HEX  PATH\n" per file (as sha256sum
// prints them) in byte order of path — the digest a skillstore registry
// gives a version of a skill (skillsapi.Version.Digest).
func FilesDigest(files []FileDigest) string {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b FileDigest) int { return strings.Compare(a.Path, b.Path) })
	h := sha256.New()
	for _, f := range files {
		io.WriteString(h, f.SHA256+"  "+f.Path+"\n")
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
