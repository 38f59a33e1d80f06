// Package logtext gives an error as skillstore's log lines carry it: its
// message alone.
package logtext

import (
	"errors"
	"io/fs"
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
