package skillsapi_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/skillsapi"
)

// TestWriteError: each status gets its error.type, x-should-retry where
// a retry cannot help, a request-id in the header and the body, and
// JSON's Content-Type.
func TestWriteError(t *testing.T) {
	for _, c := range []struct {
		err        error
		status     int
		typ        string
		retry      string // x-should-retry, "" for none
		connection string
		details    string // error.details JSON, "" for none
	}{
		{skillsapi.Errorf(400, "limit: bad"), 400, "invalid_request_error", "false", "", ""},
		{skillsapi.Errorf(401, "no token"), 401, "authentication_error", "", "", ""},
		{skillsapi.Errorf(402, "pay"), 402, "billing_error", "", "", ""},
		{skillsapi.Errorf(403, "no"), 403, "permission_error", "", "", ""},
		{skillsapi.Errorf(404, "none"), 404, "not_found_error", "", "", ""},
		{&skillsapi.Error{Status: 409, Message: "taken", Code: "skill_name_taken"}, 409, "conflict_error", "false", "", `{"error_code":"skill_name_taken"}`},
		{&skillsapi.Error{Status: 409, Message: "lost a race", Retry: true}, 409, "conflict_error", "true", "", ""},
		{skillsapi.Errorf(413, "big"), 413, "request_too_large", "false", "close", ""},
		{skillsapi.Errorf(422, "odd"), 422, "invalid_request_error", "false", "", ""},
		{skillsapi.Errorf(429, "slow down"), 429, "rate_limit_error", "", "", ""},
		{skillsapi.Errorf(503, "later"), 503, "api_error", "", "", ""},
		{skillsapi.Errorf(504, "late"), 504, "timeout_error", "", "", ""},
		{skillsapi.Errorf(529, "busy"), 529, "overloaded_error", "", "", ""},
		{fmt.Errorf("reading: %w", skillsapi.Errorf(404, "wrapped")), 404, "not_found_error", "", "", ""},
	} {
		t.Run(fmt.Sprint(c.status, c.err), func(t *testing.T) {
			rec := httptest.NewRecorder()
			skillsapi.WriteError(rec, c.err)
			if rec.Code != c.status {
				t.Errorf("status %d, want %d", rec.Code, c.status)
			}
			h := rec.Header()
			if got := h.Get("x-should-retry"); got != c.retry {
				t.Errorf("x-should-retry %q, want %q", got, c.retry)
			}
			if got := h.Get("Connection"); got != c.connection {
				t.Errorf("Connection %q, want %q", got, c.connection)
			}
			if got := h.Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type %q", got)
			}
			id := h.Get("request-id")
			if !strings.HasPrefix(id, "req_") {
				t.Errorf("request-id %q", id)
			}
			var e *skillsapi.Error
			errors.As(c.err, &e)
			want := fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q`, c.typ, e.Message)
			if c.details != "" {
				want += `,"details":` + c.details
			}
			want += fmt.Sprintf(`},"request_id":%q}`+"\n", id)
			if d := cmp.Diff(want, rec.Body.String()); d != "" {
				t.Errorf("body (-want +got):\n%s", d)
			}
		})
	}
}

// TestWriteErrorHidesOtherErrors: an error that is not an *Error is a
// 500 whose text (which may name a host path or hold a token) is not sent.
func TestWriteErrorHidesOtherErrors(t *testing.T) {
	for _, err := range []error{
		errors.New("open /var/lib/skillstore/registry/x.json: permission denied"),
		errors.New("s3: Authorization: Bearer sk-secret"),
		skillsapi.Errorf(200, "not an error status"),
	} {
		rec := httptest.NewRecorder()
		skillsapi.WriteError(rec, err)
		if rec.Code != 500 {
			t.Errorf("%v: status %d, want 500", err, rec.Code)
		}
		var body struct {
			Error struct{ Type, Message string }
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		if body.Error.Type != "api_error" || body.Error.Message != "internal server error" {
			t.Errorf("%v: answered %q", err, rec.Body)
		}
		if h := rec.Header().Get("x-should-retry"); h != "" {
			t.Errorf("%v: x-should-retry %q on a 500", err, h)
		}
	}
}

// TestWriteErrorKeepsRequestID: a request-id the handler set is the one
// the answer names.
func TestWriteErrorKeepsRequestID(t *testing.T) {
	rec := httptest.NewRecorder()
	rec.Header().Set("request-id", "req_given")
	skillsapi.WriteError(rec, skillsapi.Errorf(http.StatusNotFound, "no skill"))
	if got := rec.Header().Get("request-id"); got != "req_given" {
		t.Errorf("header request-id %q", got)
	}
	if !strings.Contains(rec.Body.String(), `"request_id":"req_given"`) {
		t.Errorf("body %s", rec.Body)
	}
	if a, b := skillsapi.NewRequestID(), skillsapi.NewRequestID(); a == b {
		t.Errorf("two request ids alike: %s", a)
	}
}
