package audit

import "strings"

// TraceID returns the trace id of a W3C Trace Context traceparent header
// value (https://www.w3.org/TR/trace-context/#traceparent-header):
//
//	00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
//	version-trace id (32 hex)-parent id (16 hex)-flags
//
// It reports false for a malformed value: a field of the wrong length or
// with characters other than lowercase hex digits, version ff, a trace id
// or parent id of all zeros, or version 00 with anything after the flags.
// A later version may carry more fields after a '-', as the specification
// asks receivers to accept. Spaces and tabs around the value are ignored.
// A request carrying several traceparent headers has none valid; the
// caller should not pass any of them.
func TraceID(traceparent string) (string, bool) {
	s := strings.Trim(traceparent, " \t")
	if len(s) < 55 || s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return "", false
	}
	version, trace, parent, flags := s[:2], s[3:35], s[36:52], s[53:55]
	if !lowerHex(version) || version == "ff" || !lowerHex(trace) || !lowerHex(parent) || !lowerHex(flags) {
		return "", false
	}
	if allZero(trace) || allZero(parent) {
		return "", false
	}
	if len(s) > 55 && (version == "00" || s[55] != '-') {
		return "", false
	}
	return trace, true
}

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func allZero(s string) bool { return strings.Trim(s, "0") == "" }
