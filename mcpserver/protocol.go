package mcpserver

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/tools"
)

// Protocol checks: which era a request belongs to, and what 2026-07-28
// requires of it.

// meta holds the members of params._meta that 2026-07-28 defines.
type meta struct {
	ProtocolVersion, ClientCapabilities json.RawMessage
}

// checkProtocol reads the protocol metadata a 2026-07-28 request carries in
// params._meta and checks it: over HTTP first what the transport requires
// (an Mcp-Protocol-Version header equal to the version in _meta, no
// Last-Event-ID), then a known version, client capabilities present, and
// the Mcp-Method and Mcp-Name headers matching the body. A request that
// names no modern version, in _meta or header, is legacy.
func checkProtocol(r *request, header http.Header) *rpcError {
	m, err := readMeta(r.p.Meta)
	if err != nil {
		return err
	}
	version, ok := rawString(m.ProtocolVersion)
	if !ok && len(m.ProtocolVersion) > 0 && string(m.ProtocolVersion) != "null" {
		return invalidParams("missing or invalid _meta field %s: it must be a string such as \"%s\"", mcp.MetaKeyProtocolVersion, mcp.LATEST_PROTOCOL_VERSION)
	}
	if header != nil && (mcp.IsModernProtocol(version) || mcp.IsModernProtocol(header.Get(mcp.HeaderProtocolVersion))) {
		r.modern, r.version = true, version
		if msg, code := checkModernHTTP(header, version); msg != "" {
			return &rpcError{Code: code, Message: msg}
		}
	}
	if !mcp.IsModernProtocol(version) {
		return nil
	}
	r.modern, r.version = true, version
	if !validCapabilities(m.ClientCapabilities) {
		return invalidParams("missing or invalid _meta field %s", mcp.MetaKeyClientCapabilities)
	}
	if !mcp.IsValidProtocolVersion(version) {
		e := mcp.UnsupportedProtocolVersionError{Version: version, Supported: mcp.ValidProtocolVersions}.JSONRPCError().Error
		return &rpcError{Code: e.Code, Message: e.Message, Data: e.Data}
	}
	if len(header) > 0 && header.Get(mcp.HeaderProtocolVersion) != "" {
		if err := mcp.ValidateStandardHeaders(header.Get, version, mcp.MCPMethod(r.method), r.params); err != nil {
			return &rpcError{Code: mcp.HEADER_MISMATCH, Message: err.Error()}
		}
	}
	return nil
}

// readMeta decodes params._meta, which must be an object when present.
func readMeta(raw json.RawMessage) (meta, *rpcError) {
	var m meta
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return m, nil
	}
	if raw[0] != '{' {
		return m, invalidParams("Invalid params: _meta must be an object, not %s", tools.JSONKind(raw))
	}
	readMembers(raw, metaKeys, &m.ProtocolVersion, &m.ClientCapabilities)
	return m, nil
}

// validCapabilities reports whether raw holds client capabilities: present,
// not null, and decodable as such.
func validCapabilities(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return false
	}
	if string(raw) == "{}" {
		return true
	}
	var caps mcp.ClientCapabilities
	return json.Unmarshal(raw, &caps) == nil
}

// checkModernHTTP applies what 2026-07-28 requires of a POST over HTTP: no
// Last-Event-ID, and an Mcp-Protocol-Version header equal to the version in
// _meta, which must be there. It returns a message and code, or "".
func checkModernHTTP(h http.Header, version string) (string, int) {
	switch got := h.Get(mcp.HeaderProtocolVersion); {
	case h.Get(mcp.HeaderLastEventID) != "":
		return "Last-Event-ID is not supported in protocol version " + mcp.ProtocolVersion20260728 +
			": streams are not resumable, re-issue the request with a new ID", mcp.HEADER_MISMATCH
	case got == "":
		return mcp.HeaderProtocolVersion + " header is required for requests carrying " + mcp.MetaKeyProtocolVersion, mcp.HEADER_MISMATCH
	case version == "":
		return "missing or invalid _meta field " + mcp.MetaKeyProtocolVersion, codeInvalidParams
	case got != version:
		return mcp.HeaderProtocolVersion + " header " + got + " does not match request " + mcp.MetaKeyProtocolVersion + " " + version, mcp.HEADER_MISMATCH
	}
	return "", 0
}

// httpStatusFor is the HTTP status 2026-07-28 gives a JSON-RPC error code.
func httpStatusFor(code int) int {
	switch code {
	case codeMethodNotFound:
		return http.StatusNotFound
	case mcp.HEADER_MISMATCH, mcp.MISSING_REQUIRED_CLIENT_CAPABILITY, mcp.UNSUPPORTED_PROTOCOL_VERSION,
		codeInvalidRequest, codeInvalidParams, codeParseError:
		return http.StatusBadRequest
	}
	return http.StatusOK
}
