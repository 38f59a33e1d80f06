package blobfs

import (
	"errors"
	"net/url"
	"strings"

	"github.com/skillstore/skillstore/internal/logtext"
)

// cause is what a driver's error says went wrong, on one line of at most
// maxCause bytes, for logs and StorageError's message:
//
//   - the store's error code and message when the error carries them
//     (AWS: "SignatureDoesNotMatch: The request signature we calculated…");
//   - for Azure, whose SDK writes the request, the status, the error code
//     and the response body on lines of their own, the error code and the
//     status ("AuthorizationFailure: 403 Server failed to authenticate…");
//   - for a request that got no answer, the network's failure without the
//     request's URL, which can carry a signature ("dial tcp 10.0.0.7:443:
//     connect: connection refused");
//   - else the error's first line, without gocloud's "blob (key …)
//     (code=…): " prefix.
//
// It never carries gocloud's stack frames, which name files on the
// machine that built the program: errors are read with Error (%v), never
// formatted with %+v. Request IDs and response bodies are left out too.
func cause(err error) string {
	var api interface {
		ErrorCode() string
		ErrorMessage() string
	}
	if errors.As(err, &api) && api.ErrorCode() != "" {
		if msg := oneLine(api.ErrorMessage()); msg != "" {
			return clip(api.ErrorCode() + ": " + msg)
		}
		return clip(api.ErrorCode())
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		err = ue.Err // the URL may carry a signature
	}
	msg := err.Error()
	if code, status, ok := azureLines(msg); ok {
		return clip(code + ": " + status)
	}
	if i := strings.Index(msg, "(code="); i >= 0 {
		if j := strings.Index(msg[i:], "): "); j >= 0 {
			msg = msg[i+j+len("): "):]
		}
	}
	return clip(oneLine(msg))
}

// storeCode is the store's own error code for err ("SlowDown",
// "ServerBusy"), or "" when it carries none.
func storeCode(err error) string {
	var api interface{ ErrorCode() string }
	if errors.As(err, &api) && api.ErrorCode() != "" {
		return clip(oneLine(api.ErrorCode()))
	}
	if code, _, ok := azureLines(err.Error()); ok {
		return clip(code)
	}
	return ""
}

// azureLines finds the error code and status lines of an Azure SDK error
// (azcore.ResponseError), which spreads itself over many lines.
func azureLines(msg string) (code, status string, ok bool) {
	for line := range strings.Lines(msg) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "ERROR CODE: "):
			code = strings.TrimPrefix(line, "ERROR CODE: ")
		case strings.HasPrefix(line, "RESPONSE "):
			// "RESPONSE 403: 403 Server failed to authenticate the request."
			if _, s, found := strings.Cut(line, ": "); found {
				status = s
			}
		}
	}
	return code, status, code != "" && status != ""
}

// oneLine is the first non-blank line of s, trimmed.
func oneLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

// maxCause bounds a cause's length: a driver's message can repeat a long
// key.
const maxCause = 300

// clip cuts s to maxCause bytes at a rune boundary, marking the cut.
func clip(s string) string { return logtext.Clip(s, maxCause) }

// driverError is a driver's error that reads as its cause alone and
// unwraps to it, so errors.Is, errors.As and gcerrors.Code still see the
// driver's error.
type driverError struct {
	msg string
	err error
}

func (e *driverError) Error() string { return e.msg }
func (e *driverError) Unwrap() error { return e.err }

// describe returns err as a driverError, or nil for nil. Errors of this
// package's own making pass unchanged.
func describe(err error) error {
	var se *StorageError
	var de *driverError
	if err == nil || errors.As(err, &se) || errors.As(err, &de) {
		return err
	}
	return &driverError{msg: cause(err), err: err}
}
