package audit

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/internal/jsonstr"
)

var when = time.Date(2026, 7, 28, 12, 30, 45, 123456789, time.FixedZone("CEST", 2*3600))

func TestLine(t *testing.T) {
	tests := []struct {
		name string
		e    Event
		want string
	}{
		{"every field", Event{
			Time: when, RequestID: "req-7", TraceID: "4bf92f3577b34da6a3ce929d0e0e4736",
			Subject: "alice", ClientID: "cli", Groups: []string{"finance", "eng"},
			Method: "tools/call", Tool: "read_file_in_skill", Source: "finance", Skill: "ledger",
			File: "scripts/run.py", URI: "skill://ledger/scripts/run.py",
			Decision: Allow, Reason: "rule policy.yaml:4", ClientAddr: "10.0.0.7:51234", ProtocolVersion: "2026-07-28",
		}, `{"time":"2026-07-28T10:30:45.123456789Z","request_id":"req-7","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736",` +
			`"sub":"alice","client_id":"cli","groups":["finance","eng"],"method":"tools/call","tool":"read_file_in_skill",` +
			`"source":"finance","skill":"ledger","file":"scripts/run.py","uri":"skill://ledger/scripts/run.py",` +
			`"decision":"allow","reason":"rule policy.yaml:4","client_addr":"10.0.0.7:51234","protocol_version":"2026-07-28"}` + "\n"},
		{"refused request", Event{Time: when.Truncate(time.Second), Method: "POST /mcp", Decision: Deny, Reason: "invalid token", ClientAddr: "[::1]:9"},
			`{"time":"2026-07-28T10:30:45Z","method":"POST /mcp","decision":"deny","reason":"invalid token","client_addr":"[::1]:9"}` + "\n"},
		{"empty", Event{Time: when}, `{"time":"2026-07-28T10:30:45.123456789Z"}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.e
			got := string(appendEvent(nil, &e, e.bound()))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// hostile are values a client might get into an event: through a URI, a
// skill or file name asked for, a client id.
var hostile = []string{
	"plain",
	`quote " and backslash \ and \u0041 text`,
	"new\nline and\rreturn and\ttab",
	"nul\x00 bell\x07 esc\x1b[31m del\x7f",
	"line sep\u2028para sep\u2029",
	"bidi \u202eevil\u202c \u2066iso\u2069 \u200e\u200f\u061c",
	"c1 \u0085 \u009b",
	"invalid \xff\xfe utf-8 \xc3( \xed\xa0\x80 surrogate",
	`","decision":"allow","x":"`,
	"}\n{\"decision\":\"allow\"}",
	"</script><!-- & 'quotes'",
	"emoji 🙂 and 日本語",
	"",
}

func TestHostileValues(t *testing.T) {
	for _, h := range hostile {
		e := Event{Time: when, RequestID: h, TraceID: h, Subject: h, ClientID: h, Groups: []string{h, h},
			Method: h, Tool: h, Source: h, Skill: h, File: h, URI: h, Decision: Deny, Reason: h, ClientAddr: h, ProtocolVersion: h}
		line := appendEvent(nil, &e, e.bound())
		if bytes.IndexByte(line, '\n') != len(line)-1 {
			t.Errorf("%q: a newline inside the line: %q", h, line)
		}
		if !utf8.Valid(line) {
			t.Errorf("%q: invalid UTF-8 in the line", h)
		}
		for _, r := range string(line) {
			if r < 0x20 && r != '\n' || r == 0x7f || hiddenRune(r) {
				t.Errorf("%q: raw %U in the line", h, r)
			}
		}
		var got map[string]any
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatalf("%q: %v in %q", h, err, line)
		}
		want := map[string]any{"time": "2026-07-28T10:30:45.123456789Z", "decision": "deny", "groups": []any{"", ""}}
		if h != "" {
			v := decodeAsJSON(t, h) // what encoding/json makes of the value
			for _, k := range []string{"request_id", "trace_id", "sub", "client_id", "method", "tool", "source",
				"skill", "file", "uri", "reason", "client_addr", "protocol_version"} {
				want[k] = v
			}
			want["groups"] = []any{v, v}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", h, diff)
		}
	}
}

// decodeAsJSON returns s as encoding/json round-trips it (invalid UTF-8
// becomes U+FFFD).
func decodeAsJSON(t testing.TB, s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var out string
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func FuzzAppendString(f *testing.F) {
	for _, h := range hostile {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := jsonstr.AppendForLog(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%q → %q: %v", s, b, err)
		}
		if want := decodeAsJSON(t, s); got != want {
			t.Fatalf("%q → %q decodes to %q; want %q", s, b, got, want)
		}
		if bytes.ContainsAny(b, "\n\r\u2028\u2029\u202e") || !utf8.Valid(b) {
			t.Fatalf("%q → %q", s, b)
		}
	})
}

func TestBound(t *testing.T) {
	long := strings.Repeat("é", MaxField) // 2 bytes each
	groups := make([]string, MaxGroups+5)
	for i := range groups {
		groups[i] = "g"
	}
	groups[3] = long
	p := &access.Principal{Subject: long, ClientID: "c", Groups: groups}
	e := Event{Time: when, Decision: Allow, URI: "skill://" + strings.Repeat("x", 1<<20)}
	e.SetPrincipal(p)
	omitted := e.bound()
	if omitted != 5 || len(e.Groups) != MaxGroups {
		t.Errorf("omitted %d, kept %d groups", omitted, len(e.Groups))
	}
	for _, s := range []string{e.Subject, e.URI, e.Groups[3]} {
		if len(s) > MaxField || !strings.HasSuffix(s, "…") || !utf8.ValidString(s) {
			t.Errorf("not cut to %d bytes at a character: %d bytes, %q…", MaxField, len(s), s[:20])
		}
	}
	if p.Groups[3] != long || len(p.Groups) != MaxGroups+5 {
		t.Error("bound changed the principal's groups")
	}
	line := appendEvent(nil, &e, omitted)
	var got struct {
		Groups  []string `json:"groups"`
		Omitted int      `json:"groups_omitted"`
	}
	if err := json.Unmarshal(line, &got); err != nil || got.Omitted != 5 || len(got.Groups) != MaxGroups {
		t.Errorf("%v: %+v", err, got)
	}
	// A cut group without too many groups: the principal's slice is copied.
	few := []string{"a", long}
	e = Event{Groups: few}
	e.bound()
	if few[1] != long || e.Groups[1] == long {
		t.Error("cutting one group changed the principal's slice, or did not cut")
	}
	e.SetPrincipal(nil)
	if e.Subject != "" || e.Groups != nil {
		t.Error("SetPrincipal(nil) kept fields")
	}
}

func TestTraceID(t *testing.T) {
	const (
		trace  = "4bf92f3577b34da6a3ce929d0e0e4736"
		parent = "00f067aa0ba902b7"
	)
	tests := []struct {
		header, want string
	}{
		{"00-" + trace + "-" + parent + "-01", trace},
		{"00-" + trace + "-" + parent + "-00", trace},
		{" 00-" + trace + "-" + parent + "-01\t", trace},
		{"01-" + trace + "-" + parent + "-01-future-field", trace},
		{"cc-" + trace + "-" + parent + "-09", trace},
		{"", ""},
		{"00-" + trace + "-" + parent + "-01-extra", ""}, // version 00 has nothing more
		{"01-" + trace + "-" + parent + "-01extra", ""},  // more must follow a '-'
		{"ff-" + trace + "-" + parent + "-01", ""},       // version ff is invalid
		{"00-00000000000000000000000000000000-" + parent + "-01", ""},
		{"00-" + trace + "-0000000000000000-01", ""},
		{"00-4BF92F3577B34DA6A3CE929D0E0E4736-" + parent + "-01", ""}, // uppercase
		{"0-" + trace + "-" + parent + "-01", ""},
		{"00-" + trace[:31] + "-" + parent + "-01", ""},
		{"00-" + trace + "x-" + parent + "-01", ""},
		{"00-" + trace + "-" + parent + "-1", ""},
		{"00_" + trace + "-" + parent + "-01", ""},
		{"00-" + trace + "-" + parent + "-0g", ""},
		{"00-" + trace[:30] + "zz-" + parent + "-01", ""},
		{"00-" + trace + "-" + parent[:15] + "+-01", ""},
		{"g0-" + trace + "-" + parent + "-01", ""},
	}
	for _, tt := range tests {
		got, ok := TraceID(tt.header)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("TraceID(%q) = %q, %v; want %q", tt.header, got, ok, tt.want)
		}
	}
}

// hiddenRune reports the runes no audit line may carry raw: C1 controls,
// line separators and bidirectional controls.
func hiddenRune(r rune) bool {
	return r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029 || r == 0x061c || r == 0x200e || r == 0x200f ||
		r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}
