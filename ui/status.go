package ui

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/skillstore/skillstore/store"
)

// sourcesData is the sources page's.
type sourcesData struct {
	Sources  []sourceRow
	Plugins  []store.FoundGroup
	Problems []store.Problem
	Built    time.Time
	Skills   int
}

// sourceRow is one source as the page shows it.
type sourceRow struct {
	store.SourceStatus
	Skills int    // of its skills the caller sees, served
	State  string // "ok", "stale", "failing"
}

// sources serves each source the caller may know of, its state, its
// snapshot, when it last answered, and the skill folders left out.
func (u *UI) sources(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := u.bounded(r)
	defer cancel()
	v := u.opts.View(r)
	st := v.Store()
	list, err := v.List(ctx)
	if err != nil {
		u.failed(w, r, err)
		return
	}
	status, err := v.Status(ctx)
	if err != nil {
		u.failed(w, r, err)
		return
	}
	counts := map[store.SourceRef]int{} // the caller's skills by source
	for _, sk := range list {
		counts[*sk.Source]++
	}
	d := sourcesData{Skills: len(list)}
	if c, err := st.Catalog(ctx); err == nil {
		d.Built = c.Built
	}
	for _, s := range status {
		row := sourceRow{SourceStatus: s, Skills: counts[s.Source], State: "ok"}
		switch {
		case s.Failing && s.Listed:
			row.State = "stale"
		case s.Failing || !s.Listed:
			row.State = "failing"
		}
		row.Err = nil // never rendered: it may name hosts
		d.Sources = append(d.Sources, row)
	}
	d.Plugins, _ = v.Groups(ctx)
	d.Problems, _ = v.Problems(ctx)
	u.render(w, r, http.StatusOK, "sources", "Sources", "sources", d)
}

// connectData is the connect page's.
type connectData struct {
	URL     string
	Token   bool
	Clients []client
}

// client is one MCP client's configuration for this server.
type client struct {
	Name, Where, Text, Note string
}

// connect serves what to paste into MCP clients to use this server.
func (u *UI) connect(w http.ResponseWriter, r *http.Request) {
	endpoint := u.opts.Resource
	if endpoint == "" {
		scheme := "http"
		if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
			scheme = "https"
		}
		endpoint = scheme + "://" + r.Host + u.opts.MCPPath
	}
	tok := u.opts.TokenRequired
	d := connectData{URL: endpoint, Token: tok}
	headers := map[string]string(nil)
	if tok {
		headers = map[string]string{"Authorization": "Bearer YOUR_TOKEN"}
	}
	type remote struct {
		Type    string            `json:"type,omitempty"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers,omitempty"`
	}
	// Claude Desktop reaches remote servers through mcp-remote, a local
	// bridge; its --header takes the value from the environment.
	args := []string{"-y", "mcp-remote", endpoint}
	env := map[string]string(nil)
	if tok {
		args = append(args, "--header", "Authorization:${AUTH_HEADER}")
		env = map[string]string{"AUTH_HEADER": "Bearer YOUR_TOKEN"}
	}
	desktop := map[string]any{"mcpServers": map[string]any{"skills": struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env,omitempty"`
	}{"npx", args, env}}}
	code := "claude mcp add --transport http skills " + shellQuote(endpoint)
	if tok {
		code += ` --header "Authorization: Bearer YOUR_TOKEN"`
	}
	vsHeaders := map[string]string(nil)
	var inputs []any
	if tok {
		vsHeaders = map[string]string{"Authorization": "Bearer ${input:skillstore-token}"}
		inputs = []any{map[string]any{"type": "promptString", "id": "skillstore-token", "description": "skillstore token", "password": true}}
	}
	vscode := map[string]any{"servers": map[string]any{"skills": remote{Type: "http", URL: endpoint, Headers: vsHeaders}}}
	if inputs != nil {
		vscode["inputs"] = inputs
	}
	d.Clients = []client{
		{"Claude Code", "Run in a terminal, in your project.", code, ""},
		{"Claude Desktop", "claude_desktop_config.json (Settings → Developer → Edit Config)", indentJSON(desktop), "Claude Desktop starts mcp-remote (Node.js) to reach a server over HTTP."},
		{"Cursor", ".cursor/mcp.json in your project, or ~/.cursor/mcp.json", indentJSON(map[string]any{"mcpServers": map[string]any{"skills": remote{URL: endpoint, Headers: headers}}}), ""},
		{"VS Code", ".vscode/mcp.json in your workspace", indentJSON(vscode), ""},
	}
	u.render(w, r, http.StatusOK, "connect", "Connect", "connect", d)
}

func indentJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ':' || c == '/' || c == '.' || c == '-' || c == '_') {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
