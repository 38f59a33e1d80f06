package store

import (
	"errors"
	"io/fs"
	"path"
	"strings"
)

// CheckName reports whether name may be looked up as a skill: it must be
// non-empty and contain no '/', '\', "..", NUL or other control character.
// It returns an *Error wrapping ErrInvalidName otherwise.
//
// Only the characters that could move a lookup out of the source root are
// refused here; a name that is safe but breaks the Agent Skills naming rules
// is simply not found unless a folder of that name exists.
func CheckName(name string) error {
	if name == "" || strings.Contains(name, "..") || strings.ContainsAny(name, `/\`) || hasControl(name) || name == "." {
		return &Error{Kind: ErrInvalidName, Skill: name}
	}
	return nil
}

// servableDir reports whether a folder found by discovery may be served as a
// skill: it must pass CheckName and must not be hidden (".git", ".DS_Store").
func servableDir(name string) bool {
	return CheckName(name) == nil && !strings.HasPrefix(name, ".")
}

// CleanPath turns a caller's file path into a path that fs.ValidPath accepts
// and that stays inside the skill folder, or returns an *Error wrapping
// ErrInvalidPath (empty) or ErrPathEscapes (anything that could leave the
// folder: "..", absolute and drive-letter paths, backslashes, NUL).
//
// CleanPath must run after every decoding step the caller applies (URI
// percent-decoding, template expansion); it trims surrounding white space
// itself. Paths that stay inside the folder after lexical cleaning, such as
// "docs/../SKILL.md" or "./a.md", are accepted in their cleaned form.
// Symbolic links are not resolved here: the backend's confinement handles them.
//
// A path that ends in '/' ("SKILL.md/", "docs/") names a folder's contents,
// never a file, so it is refused as not found (ErrFileNotFound) even when
// the name without the slash is a file: lexical cleaning must not turn it
// into one.
func CleanPath(skill, p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return "", &Error{Kind: ErrInvalidPath, Skill: skill}
	}
	if strings.ContainsAny(p, "\\\x00") || hasControl(p) || strings.HasPrefix(p, "/") || hasDriveLetter(p) {
		return "", &Error{Kind: ErrPathEscapes, Skill: skill, Path: p}
	}
	clean := path.Clean(p)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", &Error{Kind: ErrPathEscapes, Skill: skill, Path: p}
	}
	if strings.HasSuffix(p, "/") && clean != "." {
		return "", &Error{Kind: ErrFileNotFound, Skill: skill, Path: p}
	}
	if clean == "." {
		return "", &Error{Kind: ErrInvalidPath, Skill: skill}
	}
	if !fs.ValidPath(clean) {
		return "", &Error{Kind: ErrPathEscapes, Skill: skill, Path: p}
	}
	return clean, nil
}

// hasDriveLetter reports a Windows drive prefix such as "C:" or "c:foo".
func hasDriveLetter(p string) bool {
	if len(p) < 2 || p[1] != ':' {
		return false
	}
	c := p[0] | 0x20
	return c >= 'a' && c <= 'z'
}

// isEscape reports whether a backend refused a path because it leaves its
// root: backends that confine paths (the local one, over os.Root) return
// an error wrapping ErrPathEscapes.
func isEscape(err error) bool { return errors.Is(err, ErrPathEscapes) }
