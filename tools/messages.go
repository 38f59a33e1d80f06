package tools

// The contracts' sentences for the store's failures, and the hints that
// go with them, live in this file: the store reports kinds and fields, and
// every surface (tools, MCP resources, the CLI) words them here. What is
// wrong with a call's arguments is worded where they are checked
// (args.go, and each tool's method), and the Skill tool's longer answers
// in skillError.

import (
	"context"
	"errors"
	"strings"
	"unicode"

	"github.com/skillstore/skillstore/store"
)

// described is err shown with its contract message (see Describe).
func described(err error) error {
	msg, _ := Describe(err)
	return &describedError{msg, err}
}

type describedError struct {
	msg string
	err error
}

func (e *describedError) Error() string { return e.msg }
func (e *describedError) Unwrap() error { return e.err }

// Describe returns a store error's contract message and a hint on what to
// do next. Errors that are not the store's become a generic message: their
// text may name hosts or paths, and the store has logged them.
func Describe(err error) (msg, hint string) {
	var se *store.Error
	if errors.As(err, &se) {
		msg = message(se)
	}
	switch {
	case errors.Is(err, store.ErrSkillNotFound):
		hint = "Call list_skills to see the available skill names."
	case errors.Is(err, store.ErrInvalidName):
		hint = "Pass the skill's folder name exactly as list_skills returns it."
	case errors.Is(err, store.ErrNoSkillDoc):
		hint = "The folder has no SKILL.md; add one with YAML frontmatter (name, description)."
	case errors.Is(err, store.ErrFileNotFound):
		hint = "Paths are relative to the skill folder; SKILL.md names the files it references."
	case errors.Is(err, store.ErrPathEscapes), errors.Is(err, store.ErrInvalidPath):
		hint = "Give a path relative to the skill folder, such as 'references/guide.md', without '..' or a leading '/'."
	case errors.Is(err, store.ErrTooLarge):
		hint = "Files over the server's size limit are not served; the operator can raise --max-file-size."
	case errors.Is(err, store.ErrHiddenText):
		hint = "The server withholds skills that hide text from readers; `skillstore validate` shows where, for the skill's author to remove it."
	case errors.Is(err, store.ErrNotPinned):
		hint = "The server serves only the skills its lock file pins, with the files it names; ask the operator to restore the pinned copy or update the lock."
	case errors.Is(err, store.ErrSkillInvalid):
		hint = "Fix the skill's SKILL.md frontmatter; `skillstore validate` lists every problem."
	case errors.Is(err, store.ErrSourceNotFound), errors.Is(err, store.ErrSourcePermission):
		hint = "Ask the operator to check the configured skill sources."
	case errors.Is(err, context.DeadlineExceeded):
		msg, hint = "The skill source did not answer within the server's time limit", "Try again; if it persists, ask the operator to check the skill source and the server log."
	case errors.Is(err, context.Canceled):
		msg, hint = "The request was cancelled before the skill could be read", "Try again."
	case errors.As(err, new(*store.Error)):
	default:
		msg = "Internal error while reading skills"
		hint = "Try again; if it persists, ask the operator to check the server log."
	}
	return msg, hint
}

// message is the contract's sentence for a store error, word for word: it
// names the skill and the path the caller gave, never a host path.
func message(e *store.Error) string {
	skill, file := store.Echo(e.Skill), store.Echo(e.Path)
	isDoc := e.Path == "" || store.IsDocName(e.Path)
	switch e.Kind {
	case store.ErrInvalidName:
		switch {
		case e.Skill == "":
			return "Invalid skill name: ''. Skill names must not be empty"
		case hasControl(e.Skill):
			return "Invalid skill name: '" + skill + "'. Skill names must not contain control characters"
		}
		return "Invalid skill name: '" + skill + "'. Skill names must not contain '/', '\\', or '..'"
	case store.ErrSkillNotFound:
		return "Skill '" + skill + "' not found in skills folder"
	case store.ErrNoSkillDoc:
		return "SKILL.MD not found for skill '" + skill + "'"
	case store.ErrSkillInvalid:
		return "Skill '" + skill + "' is invalid: " + e.Detail
	case store.ErrPermission:
		if isDoc {
			return "Permission denied reading SKILL.MD for skill '" + skill + "'"
		}
		return "Cannot read file '" + file + "': permission denied"
	case store.ErrTooLarge:
		if isDoc {
			return "SKILL.MD too large (>" + store.FormatSize(e.Limit) + ") for skill '" + skill + "'"
		}
		return "Cannot read file '" + file + "': file is too large (>" + store.FormatSize(e.Limit) + ")"
	case store.ErrInvalidUTF8:
		return "SKILL.MD contains invalid UTF-8 for skill '" + skill + "'"
	case store.ErrNotText:
		return "Cannot read file '" + file + "': binary content cannot be returned as text; read it as the resource skill://" + e.Skill + "/" + e.Path
	case store.ErrFileNotFound:
		return "File '" + file + "' not found in skill '" + skill + "'"
	case store.ErrIsDir:
		return "Cannot read file '" + file + "': it is a directory"
	case store.ErrInvalidPath:
		return "Invalid file path: ''. file_path must be a non-empty path relative to the skill folder"
	case store.ErrPathEscapes:
		return "Path traversal detected: cannot access files outside skill folder"
	case store.ErrSourceNotFound:
		return "Skills folder not found at path: " + e.Location
	case store.ErrSourcePermission:
		return "Permission denied reading skills folder"
	case store.ErrUnavailable:
		if e.Path != "" {
			return "Cannot read file '" + file + "': " + e.Detail
		}
		if e.Skill != "" {
			return "Cannot read skill '" + skill + "': " + e.Detail
		}
		return "Cannot read skills folder: " + e.Detail
	}
	return e.Error()
}

func hasControl(s string) bool {
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}
