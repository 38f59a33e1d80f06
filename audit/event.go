// Package audit writes an audit log: one JSON line per decision on skill
// content and per refused request, saying who asked for what, when, and
// whether it was allowed and why.
//
// An Event has a field for everything a line may hold and nothing else:
// there is no field for a token, a header or content, so none can be
// logged. Writing never blocks serving: Log queues the event and one
// goroutine writes it; a full queue drops events and counts them, and a
// failing writer (a full disk) is reported, not fatal.
package audit

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/internal/jsonstr"
)

// Decision is what was decided: Allow or Deny.
type Decision string

// The decisions.
const (
	Allow Decision = "allow"
	Deny  Decision = "deny"
)

// Limits on what one event may put in a line. Longer strings are cut (at
// a character boundary, ending in "…"); further groups are left out and
// counted in "groups_omitted". They bound the memory a queued event holds
// and the size of a line, whatever a client sends.
const (
	MaxField  = 1024
	MaxGroups = 100
)

// Event is one audit record. Every field is optional except Decision;
// empty fields are left out of the line. Field names in the line are
// given in brackets.
type Event struct {
	// Time is when the decision was made [time], written in UTC as RFC
	// 3339 with nanoseconds; Log sets it when zero.
	Time time.Time
	// RequestID identifies the request [request_id]: the server's own id
	// or the JSON-RPC id.
	RequestID string
	// TraceID is the W3C trace id [trace_id], from TraceID(traceparent).
	TraceID string
	// Subject and ClientID are the principal's "sub" [sub] and OAuth
	// client [client_id]; Groups its groups [groups]. See SetPrincipal.
	Subject  string
	ClientID string
	Groups   []string
	// Method is the MCP method or HTTP route [method] ("tools/call",
	// "resources/read", "GET /.well-known/skills/…"); Tool the tool
	// called, for tools/call [tool].
	Method string
	Tool   string
	// Source and Skill name the skill asked for [source], [skill]; File a
	// file in it [file]; URI the resource URI asked for [uri].
	Source string
	Skill  string
	File   string
	URI    string
	// Version and Digest name a registry write's version [version] and
	// its content's digest [digest].
	Version string
	Digest  string
	// Decision is allow or deny [decision]; Reason says why [reason]
	// ("rule policy.yaml:12", "invalid token", "insufficient scope").
	Decision Decision
	Reason   string
	// ClientAddr is the client's network address [client_addr];
	// ProtocolVersion the MCP protocol version of the request
	// [protocol_version].
	ClientAddr      string
	ProtocolVersion string
}

// SetPrincipal fills Subject, ClientID and Groups from p (nil leaves
// them empty). The groups slice is shared, not copied: principals are
// not changed once made.
func (e *Event) SetPrincipal(p *access.Principal) {
	if p == nil {
		e.Subject, e.ClientID, e.Groups = "", "", nil
		return
	}
	e.Subject, e.ClientID, e.Groups = p.Subject, p.ClientID, p.Groups
}

// bound cuts e's strings to MaxField and its groups to MaxGroups,
// copying what it cuts so a queued event does not hold a client's large
// string. It returns how many groups were left out.
func (e *Event) bound() (omitted int) {
	for _, s := range []*string{&e.RequestID, &e.TraceID, &e.Subject, &e.ClientID, &e.Method, &e.Tool,
		&e.Source, &e.Skill, &e.File, &e.URI, &e.Version, &e.Digest, &e.Reason, &e.ClientAddr, &e.ProtocolVersion} {
		*s = cut(*s)
	}
	copied := false
	if len(e.Groups) > MaxGroups {
		omitted = len(e.Groups) - MaxGroups
		e.Groups = append([]string(nil), e.Groups[:MaxGroups]...)
		copied = true
	}
	for i, g := range e.Groups {
		if len(g) > MaxField {
			if !copied { // the slice is the principal's: do not change it
				e.Groups = append([]string(nil), e.Groups...)
				copied = true
			}
			e.Groups[i] = cut(g)
		}
	}
	return omitted
}

// cut returns s, or a copy of its first MaxField bytes (backed off to a
// character boundary) followed by "…".
func cut(s string) string {
	if len(s) <= MaxField {
		return s
	}
	n := MaxField - len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n]) + "…"
}

// appendEvent appends e as one JSON line.
func appendEvent(b []byte, e *Event, omitted int) []byte {
	b = append(b, `{"time":"`...)
	b = e.Time.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	b = field(b, "request_id", e.RequestID)
	b = field(b, "trace_id", e.TraceID)
	b = field(b, "sub", e.Subject)
	b = field(b, "client_id", e.ClientID)
	if len(e.Groups) > 0 {
		b = append(b, `,"groups":[`...)
		for i, g := range e.Groups {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonstr.AppendForLog(b, g)
		}
		b = append(b, ']')
	}
	if omitted > 0 {
		b = append(b, `,"groups_omitted":`...)
		b = strconv.AppendInt(b, int64(omitted), 10)
	}
	b = field(b, "method", e.Method)
	b = field(b, "tool", e.Tool)
	b = field(b, "source", e.Source)
	b = field(b, "skill", e.Skill)
	b = field(b, "file", e.File)
	b = field(b, "uri", e.URI)
	b = field(b, "version", e.Version)
	b = field(b, "digest", e.Digest)
	b = field(b, "decision", string(e.Decision))
	b = field(b, "reason", e.Reason)
	b = field(b, "client_addr", e.ClientAddr)
	b = field(b, "protocol_version", e.ProtocolVersion)
	return append(b, "}\n"...)
}

// field appends `,"name":"value"` unless value is empty; name is a
// constant needing no escaping.
func field(b []byte, name, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return jsonstr.AppendForLog(b, value)
}
