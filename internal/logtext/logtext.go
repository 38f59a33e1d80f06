// Package logtext gives an error as skillstore's log lines carry it: its
// message alone.
package logtext

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
