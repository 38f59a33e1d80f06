package skillsapi

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Error is an answer the API refuses with: a status and a message for
// the caller. Messages are written for the caller: they never carry a
// host path or a token.
type Error struct {
	Status  int
	Message string
	// Code, if set, goes out as error.details.error_code (the SDKs expose
	// it, e.g. "skill_name_taken").
	Code string
	// Retry marks a refusal a retry may cure, such as a lost write race:
	// it sends x-should-retry: true where the status would send false.
	Retry bool
}

func (e *Error) Error() string { return e.Message }

// Errorf is an *Error with the status and a formatted message.
func Errorf(status int, format string, args ...any) *Error {
	return &Error{Status: status, Message: fmt.Sprintf(format, args...)}
}

// ErrorType is error.type for a status, as Anthropic's errors page lists
// them; a 4xx it does not list is invalid_request_error, a 5xx api_error.
func ErrorType(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusPaymentRequired:
		return "billing_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusConflict:
		return "conflict_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusGatewayTimeout:
		return "timeout_error"
	case 529:
		return "overloaded_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

// noRetry lists the statuses a retry cannot change. The SDKs retry a 409
// by default; x-should-retry: false stops them.
func noRetry(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
		return true
	}
	return false
}

// WriteError answers err in Anthropic's error body
// {"type":"error","error":{"type","message"[,"details"]},"request_id"}
// with Content-Type application/json and a request-id header (kept if
// the handler set one). An *Error anywhere in err's chain gives the
// status and message; any other error is a 500 whose text is not sent,
// since it may name a host path. 400, 409, 413 and 422 carry
// x-should-retry: false (true for an Error marked Retry); a 413 closes
// the connection, as its body may be left unread.
func WriteError(w http.ResponseWriter, err error) {
	var e *Error
	if !errors.As(err, &e) || e.Status < 400 || e.Status > 599 {
		e = &Error{Status: http.StatusInternalServerError, Message: "internal server error"}
	}
	type details struct {
		ErrorCode string `json:"error_code"`
	}
	type object struct {
		Type    string   `json:"type"`
		Message string   `json:"message"`
		Details *details `json:"details,omitempty"`
	}
	body := struct {
		Type      string `json:"type"`
		Error     object `json:"error"`
		RequestID string `json:"request_id"`
	}{Type: "error", Error: object{Type: ErrorType(e.Status), Message: e.Message}}
	if e.Code != "" {
		body.Error.Details = &details{e.Code}
	}
	body.RequestID = setRequestID(w)
	b, _ := json.Marshal(body) // strings only: it cannot fail
	h := w.Header()
	h.Set("Content-Type", "application/json")
	switch {
	case e.Retry:
		h.Set("x-should-retry", "true")
	case noRetry(e.Status):
		h.Set("x-should-retry", "false")
	}
	if e.Status == http.StatusRequestEntityTooLarge {
		h.Set("Connection", "close")
	}
	w.WriteHeader(e.Status)
	w.Write(append(b, '\n'))
}

// RequestIDHeader is the header naming a request in answers.
const RequestIDHeader = "request-id"

// NewRequestID is a fresh request id: "req_" and 26 random base32
// characters.
func NewRequestID() string { return "req_" + rand.Text() }

// setRequestID gives the answer a request-id unless the handler set one,
// and returns it.
func setRequestID(w http.ResponseWriter) string {
	id := w.Header().Get(RequestIDHeader)
	if id == "" {
		id = NewRequestID()
		w.Header().Set(RequestIDHeader, id)
	}
	return id
}
