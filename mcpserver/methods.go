package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"path"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// callToolMethod answers tools/call for one of skillstore's tools.
func (s *Server) callToolMethod(ctx context.Context, r *request, b []byte) ([]byte, error) {
	name, err := r.str(r.p.Name, "name")
	if err != nil {
		return b, err
	}
	args := r.p.Arguments
	if len(args) == 0 {
		args = []byte("{}")
	}
	return appendToolResult(b, s.runTool(ctx, name, args), s.memo), nil
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
func (s *Server) readResourceMethod(ctx context.Context, r *request, b []byte) ([]byte, error) {
	uri, err := r.str(r.p.URI, "uri")
	if err != nil {
		return b, err
	}
	c, err := s.readContents(ctx, uri)
	if err != nil {
		return b, resourceFailure(err, r.modern, uri)
	}
	return appendContents(b, c, s.memo), nil
}

// appendContents appends the contents member of a resources/read result.
func appendContents(b []byte, c contents, memo *escapeMemo) []byte {
	b = append(b, `"contents":[{"uri":`...)
	b = appendString(b, c.uri)
	b = append(b, `,"mimeType":`...)
	b = appendString(b, c.mimeType)
	if c.binary {
		b = append(b, `,"blob":"`...)
		b = base64.StdEncoding.AppendEncode(b, []byte(c.data))
		b = append(b, '"')
	} else {
		b = append(b, `,"text":`...)
		b = memo.appendString(b, c.data)
	}
	return append(b, "}]"...)
}

// contents is one resource's content: text, or a binary file's bytes.
type contents struct {
	uri, mimeType string
	data          string
	binary        bool
}

// readContents reads skill://NAME/SKILL.md or skill://NAME/PATH. The URI is
// parsed here, percent-decoded once, and checked like any tool argument.
// resources/read and skills digests serve exactly these bytes.
func (s *Server) readContents(ctx context.Context, uri string) (contents, error) {
	if !hasPrefixFold(strings.TrimSpace(uri), "skill://") {
		return contents{}, errNoResource
	}
	name, p, err := tools.SplitURI(uri)
	if err != nil {
		return contents{}, err
	}
	if store.IsDocName(p) {
		doc, err := s.store.Document(ctx, name)
		if err != nil {
			return contents{}, err
		}
		return contents{uri: uri, mimeType: "text/markdown", data: doc.Text}, nil
	}
	f, err := s.store.ReadFile(ctx, name, p)
	if err != nil {
		return contents{}, err
	}
	return contents{uri: uri, mimeType: mimeType(f.Path, f.Binary), data: f.Content(), binary: f.Binary}, nil
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

// modernShape holds what 2026-07-28 adds to a result, as mcp-go writes it
// for this server: the _meta carrying the server's identity, resultType,
// and the caching hints of reads. It is taken from mcp-go's own answer to
// a 2026-07-28 request when the server is built, so the layer's results
// cannot drift from mcp-go's.
type modernShape struct {
	meta       []byte // "_meta":{...}
	resultType []byte // "resultType":"complete"
	cache      []byte // "ttlMs":N,"cacheScope":"..."
}

// learnModernShape asks mcp-go for a 2026-07-28 result (resources/templates/list,
// which carries every decoration a read does) and keeps its decorations.
func (s *Server) learnModernShape(ctx context.Context) error {
	msg := `{"jsonrpc":"2.0","id":0,"method":"resources/templates/list","params":{"_meta":{"` +
		mcp.MetaKeyProtocolVersion + `":"` + mcp.LATEST_PROTOCOL_VERSION + `","` + mcp.MetaKeyClientCapabilities + `":{}}}}`
	out, err := json.Marshal(s.mcp.HandleMessage(ctx, []byte(msg)))
	if err != nil {
		return err
	}
	var v struct {
		Result struct {
			Meta       json.RawMessage `json:"_meta"`
			ResultType json.RawMessage `json:"resultType"`
			TTL        json.RawMessage `json:"ttlMs"`
			Scope      json.RawMessage `json:"cacheScope"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &v); err != nil || v.Result.Meta == nil || v.Result.ResultType == nil || v.Result.TTL == nil || v.Result.Scope == nil {
		return fmt.Errorf("mcp-go's 2026-07-28 result has an unexpected shape: %.300s", out)
	}
	s.shape = modernShape{
		meta:       append([]byte(`"_meta":`), v.Result.Meta...),
		resultType: append([]byte(`"resultType":`), v.Result.ResultType...),
		cache:      fmt.Appendf(nil, `"ttlMs":%s,"cacheScope":%s`, v.Result.TTL, v.Result.Scope),
	}
	return nil
}
