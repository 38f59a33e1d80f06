package store

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillstore/skillstore/internal/logtext"
)

// Sentinel errors. Every error the Store returns for a caller's request is an
// *Error that wraps exactly one of these, so callers test with errors.Is
// and read the fields (Skill, Path, Limit…) for what to say.
var (
	// ErrInvalidName: the skill name is empty or contains '/', '\', "..",
	// NUL or another control character.
	ErrInvalidName = errors.New("invalid skill name")
	// ErrSkillNotFound: no source holds a servable skill folder of that name.
	ErrSkillNotFound = errors.New("skill not found")
	// ErrNoSkillDoc: the skill folder exists but holds no SKILL.md.
	ErrNoSkillDoc = errors.New("skill document not found")
	// ErrSkillInvalid: the skill exists but cannot be served: its frontmatter
	// does not parse or lacks a description, or it breaks the spec in strict mode.
	ErrSkillInvalid = errors.New("skill is invalid")
	// ErrPermission: the backend refused access.
	ErrPermission = errors.New("permission denied")
	// ErrTooLarge: the file is larger than the configured maximum.
	ErrTooLarge = errors.New("file too large")
	// ErrInvalidUTF8: SKILL.md is not valid UTF-8 (or UTF-16 with a BOM).
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
	// ErrNotText: a supporting file holds binary content; read it as bytes instead.
	ErrNotText = errors.New("binary content")
	// ErrFileNotFound: the skill exists but the file does not.
	ErrFileNotFound = errors.New("file not found")
	// ErrIsDir: the path names a directory, not a file.
	ErrIsDir = errors.New("is a directory")
	// ErrInvalidPath: the file path is empty.
	ErrInvalidPath = errors.New("invalid file path")
	// ErrPathEscapes: the file path leaves the skill's folder, lexically or
	// through a symbolic link.
	ErrPathEscapes = errors.New("path escapes skill folder")
	// ErrSourceNotFound: no configured source could be listed because it is missing.
	ErrSourceNotFound = errors.New("skills folder not found")
	// ErrSourcePermission: no configured source could be listed because access was refused.
	ErrSourcePermission = errors.New("permission denied reading skills folder")
	// ErrUnavailable: the backend failed for another reason (network, I/O).
	ErrUnavailable = errors.New("source unavailable")
)

// Error is the error the Store returns for a failed request. It names the
// skill and the relative path the caller gave, never a host path or a
// credential.
type Error struct {
	Kind     error  // one of the package's sentinels
	Skill    string // the skill name as the caller gave it
	Path     string // the file path as the caller gave it, if any
	Detail   string // extra reason, for messages that carry one
	Limit    int64  // the size limit, for ErrTooLarge
	Location string // the source location, for source-level errors
	cause    error
}

// Unwrap returns the sentinel and, if recorded, the underlying backend error.
func (e *Error) Unwrap() []error {
	if e.cause != nil {
		return []error{e.Kind, e.cause}
	}
	return []error{e.Kind}
}

// Error describes the failure for logs and Go callers, naming the source,
// skill and path involved (control characters escaped, long names cut).
// The sentences tools show models and users are package tools' (see
// tools.Describe), built from Kind and the fields.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("skillstore: ")
	if e.Location != "" {
		fmt.Fprintf(&b, "source %s: ", e.Location)
	}
	if e.Skill != "" || e.Kind == ErrInvalidName {
		b.WriteString("skill \"" + Echo(e.Skill) + "\": ")
	}
	if e.Path != "" {
		b.WriteString("file \"" + Echo(e.Path) + "\": ")
	}
	if e.Kind != nil {
		b.WriteString(e.Kind.Error())
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	if e.Limit > 0 {
		fmt.Fprintf(&b, " (the limit is %s)", FormatSize(e.Limit))
	}
	return b.String()
}

// reason is what went wrong, without the names Error adds.
func (e *Error) reason() string {
	if e.Detail != "" {
		return e.Kind.Error() + ": " + e.Detail
	}
	return e.Kind.Error()
}

// maxEcho bounds how much of a caller's string an error message repeats.
const maxEcho = 200

// Echo makes a caller-supplied string safe to repeat in a message: control
// characters and invalid UTF-8 are escaped and strings longer than 200
// bytes are cut.
func Echo(s string) string {
	s = logtext.Clip(s, maxEcho)
	if !hasControl(s) && utf8.ValidString(s) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

func hasControl(s string) bool {
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}

// FormatSize renders a byte count the way the contracts do: "1MB", "64KB", "10B".
func FormatSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KB"
	}
	return strconv.FormatInt(n, 10) + "B"
}
