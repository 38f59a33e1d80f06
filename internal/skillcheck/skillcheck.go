// Package skillcheck says whether one skill folder may be published: the
// registry's upload check (nothing serves it over HTTP yet); publish uses
// it too, reading each skill's document through Document. The folder
// comes as a list of files (Files) or as one zip archive (Zip), and is
// checked before anything is stored. It holds the SEP-2640 limits
// (mcpserver serves by ExtensionLimits) and takes every other rule from
// where it lives: path safety from internal/unpack, the Agent Skills
// rules from store (ParseFrontmatter, Validate, DocNames, DecodeText),
// hidden text from store.ScanFile and internal/hidden.
//
// A refusal is an *Error naming a stable Rule and the file (a path
// relative to the upload's root, never a host path). Files and Zip stop
// at the first refusal. Limits: Options' bounds (10,000 files and 64 MiB
// by default, all held in memory), and the SEP-2640 limits (512 files,
// 16 MiB) unless Options.OverExtension.
package skillcheck

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillstore/skillstore/internal/hidden"
	"github.com/skillstore/skillstore/internal/unpack"
	"github.com/skillstore/skillstore/store"
)

// The Skills extension's interoperability limits (SEP-2640): a conforming
// host must accept skills up to these, and servers should not publish
// larger ones.
const (
	MaxExtensionFiles = 512
	MaxExtensionBytes = 16 << 20
)

// ExtensionLimits says how a skill of files files holding bytes bytes
// exceeds the extension's limits, or returns nil.
func ExtensionLimits(files int, bytes int64) error {
	switch {
	case files > MaxExtensionFiles:
		return fmt.Errorf("it has %d files; the skills extension's limit is %d per skill", files, MaxExtensionFiles)
	case bytes > MaxExtensionBytes:
		return fmt.Errorf("its files hold %d bytes; the skills extension's limit is %d (16 MiB) per skill", bytes, MaxExtensionBytes)
	}
	return nil
}

// Defaults of Options' bounds, for a zero value.
const (
	// DefaultMaxFiles is store.MaxFilesPerSkill, the most files a
	// server lists for one skill.
	DefaultMaxFiles = store.MaxFilesPerSkill
	// DefaultMaxBytes bounds the files of one upload, added up.
	DefaultMaxBytes = 64 << 20
)

// The rules an Error names. Their values are stable words.
const (
	RuleTooManyFiles    = "too-many-files"    // more files than Options.MaxFiles
	RuleTooLarge        = "too-large"         // a file over MaxFileBytes, or all over MaxBytes
	RuleExtensionLimits = "extension-limits"  // over the SEP-2640 limits
	RuleNotUTF8Name     = "not-utf8-name"     // a path that is not UTF-8
	RuleControlChar     = "control-character" // a path holding NUL or another control character
	RuleBackslash       = "backslash"         // a path holding "\"
	RuleAbsolute        = "absolute-path"     // "/x" or "C:x"
	RulePathEscapes     = "path-escapes"      // ".." as an element
	RuleTooDeep         = "too-deep"          // folders nested deeper than unpack.MaxDepth
	RuleNotClean        = "not-clean-path"    // an empty or "." element, a trailing "/"
	RuleDuplicate       = "duplicate-path"    // two files of one path ("./" aside)
	RuleFileAndFolder   = "file-and-folder"   // a path that is a file and a folder
	RuleSymlink         = "symbolic-link"     // a zip entry that is a link
	RuleOneTopFolder    = "one-top-folder"    // files outside one top folder
	RuleDotFile         = "dot-file"          // a name starting with "." not allowed
	RuleNoSkillMD       = "no-skill-md"       // no SKILL.md in the top folder
	RuleNotText         = "not-text"          // SKILL.md not UTF-8 or UTF-16 with a BOM
	RuleFrontmatter     = "frontmatter"       // frontmatter missing, unparsable, or against the specification
	RuleNameMismatch    = "name-mismatch"     // the name is not the folder's
	RuleHiddenText      = "hidden-text"       // text a person does not see (internal/hidden)
	RuleZipBomb         = "zip-bomb"          // a zip declaring more than MaxBytes
	RuleNotZip          = "not-a-zip"         // a body that is no readable zip archive
)

// Error is an upload refused: the rule it breaks, the file (relative to
// the upload's root; "" for the upload as a whole) and why.
type Error struct {
	Rule, File, Reason string
}

func (e *Error) Error() string {
	if e.File == "" {
		return fmt.Sprintf("the skill is refused (rule %s): %s", e.Rule, e.Reason)
	}
	return fmt.Sprintf("the skill is refused (rule %s): file %q %s", e.Rule, hidden.Visible(store.Echo(e.File)), e.Reason)
}

func refuse(rule, file, format string, args ...any) *Error {
	return &Error{Rule: rule, File: file, Reason: fmt.Sprintf(format, args...)}
}

// Options bound and relax the check. The zero value is the strict default.
type Options struct {
	// MaxFiles bounds the files (0: DefaultMaxFiles).
	MaxFiles int
	// MaxBytes bounds the files' sizes, added up (0: DefaultMaxBytes).
	MaxBytes int64
	// MaxFileBytes bounds one file's size (0: MaxBytes).
	MaxFileBytes int64
	// OverExtension accepts a skill over the SEP-2640 limits
	// (MaxExtensionFiles, MaxExtensionBytes), which MCP's skills
	// extension then leaves out.
	OverExtension bool
	// AllowHidden lists the names starting with "." (".gitkeep") a file
	// or a folder under the top folder may have; the top folder never.
	AllowHidden []string
	// AllowHiddenText accepts text a person does not see (tag
	// characters, bidi controls, HTML comments… in content or names);
	// Skill.Findings lists it.
	AllowHiddenText bool
}

func (o Options) bounds() (files int, bytes, file int64) {
	files, bytes, file = o.MaxFiles, o.MaxBytes, o.MaxFileBytes
	if files <= 0 {
		files = DefaultMaxFiles
	}
	if bytes <= 0 {
		bytes = DefaultMaxBytes
	}
	if file <= 0 {
		file = bytes
	}
	return files, bytes, file
}

// File is one file of an upload: its path, slash-separated, relative to
// the upload's root (the top folder first), and its bytes.
type File struct {
	Path string
	Data []byte
}

// Skill is an upload accepted.
type Skill struct {
	Name        string // the skill's name, its top folder's
	DocPath     string // its document, relative to the folder (SKILL.md…)
	Frontmatter store.Frontmatter
	// Files are the skill's files, relative to its folder, sorted by
	// path, bytes as uploaded.
	Files []File
	// Findings is the hidden text found, when Options.AllowHiddenText
	// let it through; paths relative to the folder.
	Findings []hidden.Finding
}

// Files checks an upload given as files and returns the skill. files is
// not changed; the Skill's Files share their bytes. A leading "./" of a
// path is dropped (two paths differing only by it are a duplicate).
func Files(files []File, o Options) (*Skill, error) {
	maxFiles, maxBytes, maxFile := o.bounds()
	if len(files) > maxFiles {
		return nil, refuse(RuleTooManyFiles, "", "it has %d files; the limit is %d", len(files), maxFiles)
	}
	if len(files) == 0 {
		return nil, refuse(RuleNoSkillMD, "", "it holds no files")
	}
	seen := make(map[string]bool, len(files))
	dirs := map[string]string{} // folder → a file under it
	top := ""
	var total int64
	out := make([]File, 0, len(files))
	for _, f := range files {
		p, err := checkPath(f.Path)
		if err != nil {
			return nil, err
		}
		first, rest, ok := strings.Cut(p, "/")
		switch {
		case !ok:
			return nil, refuse(RuleOneTopFolder, f.Path, "is not in a folder: an upload is one folder named as the skill, holding SKILL.md")
		case top == "":
			top = first
		case first != top:
			return nil, refuse(RuleOneTopFolder, f.Path, "is outside the top folder %q: an upload is one folder", store.Echo(top))
		}
		if strings.HasPrefix(first, ".") {
			return nil, refuse(RuleDotFile, f.Path, "is in a folder whose name starts with \".\"")
		}
		for _, e := range strings.Split(rest, "/") {
			if strings.HasPrefix(e, ".") && !slices.Contains(o.AllowHidden, e) {
				return nil, refuse(RuleDotFile, f.Path, "has a name starting with \".\" (%q), which is not published", store.Echo(e))
			}
		}
		if seen[p] {
			return nil, refuse(RuleDuplicate, f.Path, "appears twice")
		}
		seen[p] = true
		if size := int64(len(f.Data)); size > maxFile {
			return nil, refuse(RuleTooLarge, f.Path, "holds %d bytes; the limit is %d per file", size, maxFile)
		}
		if total += int64(len(f.Data)); total > maxBytes {
			return nil, refuse(RuleTooLarge, "", "its files hold over %d bytes; the limit is %d", maxBytes, maxBytes)
		}
		out = append(out, File{Path: rest, Data: f.Data})
	}
	for _, f := range out { // a name is a file or a folder, not both
		for d := path.Dir(f.Path); d != "."; d = path.Dir(d) {
			if _, ok := dirs[d]; ok {
				break // its own parents were seen then
			}
			dirs[d] = f.Path
		}
	}
	for _, f := range out {
		if under, ok := dirs[f.Path]; ok {
			return nil, refuse(RuleFileAndFolder, top+"/"+f.Path, "is a file and also the folder of %q", store.Echo(top+"/"+under))
		}
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return check(top, out, total, o)
}

// ErrNotText is Document's error for a document that is neither UTF-8
// nor UTF-16 with a byte order mark.
var ErrNotText = errors.New("it is not UTF-8 or UTF-16 text")

// Document reads a skill's document as a server reads one it serves:
// UTF-8, or UTF-16 with a byte order mark (store.DecodeText), and parses
// its frontmatter (store.ParseFrontmatter), returning the text, the
// frontmatter and the diagnostics of fields of the wrong type. It fails
// with ErrNotText for any other encoding (a server refuses to serve the
// document) and with ParseFrontmatter's error when the frontmatter does
// not parse. Files and the snapshot writer read documents through it.
func Document(data []byte) (text string, fm store.Frontmatter, diags []store.Diagnostic, err error) {
	text, enc, ok := store.DecodeText(data)
	if !ok || enc == store.EncodingWindows1252 {
		return "", fm, nil, ErrNotText
	}
	fm, diags, err = store.ParseFrontmatter(text)
	return text, fm, diags, err
}

// checkPath is raw as a clean path ("./" dropped), or its refusal.
func checkPath(raw string) (string, error) {
	if !utf8.ValidString(raw) {
		return "", refuse(RuleNotUTF8Name, raw, "has a name that is not UTF-8")
	}
	if strings.IndexFunc(raw, unicode.IsControl) >= 0 {
		return "", refuse(RuleControlChar, raw, "has a control character (NUL, a line break…) in its name")
	}
	p := raw
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	if strings.HasSuffix(p, "/") {
		return "", refuse(RuleNotClean, raw, "names a folder, not a file")
	}
	name, err := unpack.Name(p)
	if ue := (*unpack.Error)(nil); errors.As(err, &ue) {
		return "", pathRefusal(raw, ue.Reason)
	} else if err != nil {
		return "", refuse(RuleNotClean, raw, "is not a clean relative path")
	}
	return name, nil
}

// pathRefusal turns unpack.Name's reason into a rule.
func pathRefusal(file, reason string) *Error {
	rule := RuleNotClean
	switch {
	case reason == "has a backslash":
		rule = RuleBackslash
	case reason == "is absolute":
		rule = RuleAbsolute
	case reason == "leaves the archive":
		rule, reason = RulePathEscapes, "leaves the skill's folder (\"..\")"
	case strings.HasPrefix(reason, "nests folders deeper"):
		rule = RuleTooDeep
	case reason == "appears twice":
		rule = RuleDuplicate
	case reason == "is a symbolic link":
		rule = RuleSymlink
	}
	return &Error{Rule: rule, File: file, Reason: reason}
}

// check applies the rules on the skill's content to files, relative to
// folder top and sorted, holding total bytes.
func check(top string, files []File, total int64, o Options) (*Skill, error) {
	sk := &Skill{Name: top, Files: files}
	for _, n := range store.DocNames() {
		if i, ok := slices.BinarySearchFunc(files, n, func(f File, n string) int { return strings.Compare(f.Path, n) }); ok {
			sk.DocPath = files[i].Path
			break
		}
	}
	if sk.DocPath == "" {
		return nil, refuse(RuleNoSkillMD, top+"/"+store.DocName, "is missing: the top folder must hold the skill's document")
	}
	docFile := top + "/" + sk.DocPath
	var texts []string // each file's text; "" when it is not text
	var doc []byte
	for _, f := range files {
		text, _, ok := store.DecodeText(f.Data)
		if !ok {
			text = ""
		}
		if f.Path == sk.DocPath {
			doc = f.Data
		}
		texts = append(texts, text)
	}
	_, fm, diags, err := Document(doc)
	switch {
	case errors.Is(err, ErrNotText):
		return nil, refuse(RuleNotText, docFile, "is not UTF-8 or UTF-16 text")
	case err != nil:
		return nil, refuse(RuleFrontmatter, docFile, "has no usable frontmatter: %v", err)
	}
	sk.Frontmatter = fm
	if fm.Name != "" && store.SpecName(fm.Name) && fm.Name != top {
		return nil, refuse(RuleNameMismatch, docFile, "names the skill %q, and its folder is %q: they must be equal", store.Echo(fm.Name), store.Echo(top))
	}
	if diags = append(diags, store.Validate(top, fm)...); len(diags) > 0 {
		msgs := make([]string, len(diags))
		for i, d := range diags {
			msgs[i] = d.String()
		}
		return nil, refuse(RuleFrontmatter, docFile, "breaks the Agent Skills specification: %s", strings.Join(msgs, "; "))
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	found := hidden.ScanPaths(paths)
	for i, f := range files {
		if texts[i] != "" {
			found = append(found, store.ScanFile(f.Path, sk.DocPath, texts[i])...)
		}
	}
	if len(found) > 0 && !o.AllowHiddenText {
		f := found[0]
		where := fmt.Sprintf("at line %d, column %d", f.Line, f.Column)
		if f.Line == 0 {
			where = fmt.Sprintf("in its name at column %d", f.Column)
		}
		return nil, refuse(RuleHiddenText, top+"/"+f.Path, "holds text a person cannot see (%s %s); remove it, or ask the operator to accept hidden text", f.Kind, where)
	}
	sk.Findings = found
	if !o.OverExtension {
		if err := ExtensionLimits(len(files), total); err != nil {
			return nil, refuse(RuleExtensionLimits, "", "%v", err)
		}
	}
	return sk, nil
}
