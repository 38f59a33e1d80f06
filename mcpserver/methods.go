package mcpserver

import (
	"context"
	"encoding/base64"
	"errors"
	"mime"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/internal/jsonstr"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// callToolMethod answers tools/call for one of skillstore's tools.
func (s *Server) callToolMethod(c *call, b []byte) ([]byte, error) {
	ctx, r := c.ctx, c.request
	name, err := r.str(r.p.Name, "name")
	if err != nil {
		return b, err
	}
	switch {
	case name == "":
		return b, invalidParams("Invalid params for tools/call: 'name' is required: the name of a tool from tools/list")
	case !isOurTool(name):
		return b, invalidParams("Tool '%s' not found: call tools/list to see the tools this server offers", clipName(name))
	}
	args := r.p.Arguments
	if len(args) == 0 {
		args = []byte("{}")
	}
	s.auditTool(c, name, args)
	res := s.runTool(ctx, s.callTools(c), name, args)
	c.toolError = res.IsError
	if !res.IsError {
		c.addProvenance(s.shownProvenance(c, res.Provenance)) // where the content the call read comes from
	}
	return appendToolResult(b, res, s.memo), nil
}

// isOurTool reports one of skillstore's tools.
func isOurTool(name string) bool {
	for _, n := range tools.Names() {
		if n == name {
			return true
		}
	}
	return false
}

// readResourceMethod answers resources/read of a skill:// URI.
func (s *Server) readResourceMethod(c *call, b []byte) ([]byte, error) {
	ctx, r := c.ctx, c.request
	uri, err := r.str(r.p.URI, "uri")
	if err != nil {
		return b, err
	}
	if uri == "" {
		return b, invalidParams("Invalid params for resources/read: 'uri' is required, such as skill://NAME/SKILL.md")
	}
	s.auditURI(c, uri)
	content, err := s.readContents(ctx, s.viewFor(c), uri)
	if err != nil {
		return b, resourceFailure(err, r.modern, uri)
	}
	content.prov = s.shownProvenance(c, content.prov)
	return appendContents(b, content, s.memo), nil
}

// appendContents appends the contents member of a resources/read result:
// one item, whose _meta carries the skill's provenance.
func appendContents(b []byte, c contents, memo *escapeMemo) []byte {
	b = append(b, `"contents":[{"uri":`...)
	b = jsonstr.Append(b, c.uri)
	b = append(b, `,"mimeType":`...)
	b = jsonstr.Append(b, c.mimeType)
	if c.binary {
		b = append(b, `,"blob":"`...)
		b = base64.StdEncoding.AppendEncode(b, []byte(c.data))
		b = append(b, '"')
	} else {
		b = append(b, `,"text":`...)
		b = memo.appendString(b, c.data)
	}
	if c.prov != nil {
		b = append(b, `,"_meta":{`...)
		b = append(appendProvenanceMember(b, c.prov), '}')
	}
	return append(b, "}]"...)
}

// contents is one resource's content: text, or a binary file's bytes,
// and the provenance of the skill it belongs to.
type contents struct {
	uri, mimeType string
	data          string
	binary        bool
	prov          *store.Provenance
}

// readContents reads skill://NAME/SKILL.md or skill://NAME/PATH. The URI is
// parsed here, percent-decoded once, and checked like any tool argument.
// It serves a file's bytes exactly as stored, which SEP-2640's digests
// cover: as text when they are UTF-8 (a byte order mark kept, as U+FEFF),
// else as a blob (binary files, and text in UTF-16 or another encoding,
// whose media type then names its charset). v is the caller's view: a
// skill it hides reads as one that does not exist.
func (s *Server) readContents(ctx context.Context, v *store.View, uri string) (contents, error) {
	if !hasPrefixFold(strings.TrimSpace(uri), "skill://") {
		return contents{}, errNoResource
	}
	name, p, err := tools.ResolveURI(ctx, v, uri)
	if err != nil {
		return contents{}, err
	}
	if store.IsDocName(p) {
		doc, err := v.Document(ctx, name, nil)
		if err != nil {
			return contents{}, err
		}
		return rawContents(uri, "text/markdown", doc.Raw, doc.Encoding, false, doc.Skill.Provenance), nil
	}
	f, err := v.ReadFile(ctx, name, p, nil)
	if err != nil {
		return contents{}, err
	}
	return rawContents(uri, mimeType(f.Path, f.Binary), f.Raw, f.Encoding, f.Binary, f.Skill.Provenance), nil
}

// rawContents is a file's contents as resources/read serves them: its raw
// bytes, as text if they are UTF-8 text, else as a blob; text in another
// encoding says which in its media type.
func rawContents(uri, mimeType, raw, encoding string, binary bool, prov *store.Provenance) contents {
	if !binary && !utf8.ValidString(raw) {
		binary = true
		mimeType += "; charset=" + encoding
	}
	return contents{uri: uri, mimeType: mimeType, data: raw, binary: binary, prov: prov}
}

// errNoResource: a URI of a scheme this server does not serve.
var errNoResource = errors.New("Resource not found: this server serves skill:// URIs only, such as skill://NAME/SKILL.md")

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// resourceFailure turns a failed read into the JSON-RPC error a client can
// act on: a resource that does not exist gets the code the request's
// protocol version gives for that (-32002, or -32602 from 2026-07-28, as
// mcp-go answers a URI nothing serves) and the URI in data (SEP-2164); a
// URI or path that can never name a file gets -32602; anything else -32603.
// The message is the contract's, never a host path.
func resourceFailure(err error, modern bool, uri string) *rpcError {
	msg, hint := tools.Describe(err)
	ours := errors.As(err, new(*store.Error)) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
	if !ours {
		msg, hint = err.Error(), "" // a malformed URI: SplitURI's message says what to send
	}
	if errors.Is(err, errNoResource) {
		ours, hint = true, "Call resources/list or skills/list to see what it serves"
	}
	if hint != "" {
		msg += ". " + hint
	}
	code := codeInternal
	switch {
	case !ours, errors.Is(err, store.ErrInvalidName), errors.Is(err, store.ErrPathEscapes), errors.Is(err, store.ErrInvalidPath):
		code = codeInvalidParams
	case errors.Is(err, errNoResource), errors.Is(err, store.ErrSkillNotFound), errors.Is(err, store.ErrFileNotFound), errors.Is(err, store.ErrNoSkillDoc),
		errors.Is(err, store.ErrIsDir), errors.Is(err, store.ErrSkillInvalid):
		code = mcp.RESOURCE_NOT_FOUND
		if modern {
			code = codeInvalidParams
		}
		if uri != "" {
			return &rpcError{Code: code, Message: msg, Data: map[string]string{"uri": uri}}
		}
	}
	return &rpcError{Code: code, Message: msg}
}

// mimeType is a file's media type: from its extension, else by content.
func mimeType(p string, binary bool) string {
	if t := extMIME(p); t != "" {
		return t
	}
	if binary {
		return "application/octet-stream"
	}
	return "text/plain"
}

// extMIME guesses a media type from a file's extension, or returns "".
func extMIME(p string) string {
	switch ext := strings.ToLower(path.Ext(p)); ext {
	case ".md", ".markdown":
		return "text/markdown"
	case ".py":
		return "text/x-python"
	case ".sh":
		return "text/x-shellscript"
	case ".yaml", ".yml":
		return "application/yaml"
	case ".json":
		return "application/json"
	case "":
		return ""
	default:
		return mime.TypeByExtension(ext)
	}
}
