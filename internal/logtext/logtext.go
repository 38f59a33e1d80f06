// Package logtext gives text as skillstore's log lines and messages carry
// it: an error's message alone (Of), a file's error without its folder
// (WithPath), a long string cut short (Clip, the one clip every message,
// log line and page uses: it never cuts a UTF-8 character in half).
package logtext

import (
	"errors"
	"io/fs"
	"unicode/utf8"
)

// Of is err's message, for a log line's attribute ("err", logtext.Of(err)),
// or "" for nil. Given the error itself, slog's text handler formats it
// with %+v, which the errors of some dependencies (gocloud.dev's, and any
// built on golang.org/x/xerrors or github.com/pkg/errors) answer with
// stack frames naming source files on the machine that built the program
// (/root/go/pkg/mod/...). The message is the error's own: one that names
// a host path in it is its maker's to fix.
func Of(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// WithPath is err with the path of an *fs.PathError in it replaced by
// name (a file's base name, say), so that a message about a file the
// operator named does not carry the folder it is in; other errors are
// returned as they are.
func WithPath(err error, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return err
}

// Clip returns s when it has at most n bytes, else its first n bytes,
// backed off to a rune boundary, and "…": at most n+3 bytes, for a
// message or log line that repeats a string of any length. It does not
// check that s is UTF-8 (store.Echo escapes what is not).
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Cut(s, n) + "…"
}

// Cut is the longest start of s of at most n bytes that does not end
// inside a UTF-8 character: s when it has at most n bytes. Clip is Cut
// and a mark; Cut is for a caller that shortens further (at a space).
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
