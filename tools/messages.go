package tools

import (
	"strings"
	"unicode"

	"github.com/skillstore/skillstore/store"
)

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
		return "Skills folder not found at path: " + e.Source
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
