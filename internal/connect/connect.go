// Package connect writes what an MCP client's configuration needs to use
// skillstore: the entry for Claude Code, Claude Desktop, Cursor and VS
// Code, for a server the client launches (stdio) or one it reaches over
// Streamable HTTP. The catalog's Connect page and `skillstore connect`
// both print these entries.
package connect

import (
	"encoding/json"
	"strings"
)

// Server is how a client reaches skillstore: over HTTP at URL (Token: it
// asks for a bearer token), or, when URL is empty, by launching Command
// with Args over stdio.
type Server struct {
	URL     string
	Token   bool
	Command string
	Args    []string
}

// Client is one MCP client's entry for a Server.
type Client struct {
	ID    string // the name `skillstore connect --client` takes: claude-code, claude-desktop, cursor, vscode
	Name  string // the client's name, for people
	Where string // where the entry goes
	Text  string // the entry to paste, or the command to run
	Note  string // what else to know, if anything
}

// IDs are the clients Clients writes entries for, in their order.
var IDs = []string{"claude-code", "claude-desktop", "cursor", "vscode"}

// Clients returns each client's entry for s, in the order of IDs. The
// server is named "skills" in every client. A token is never written:
// YOUR_TOKEN stands for it.
func Clients(s Server) []Client {
	if s.URL == "" {
		return local(s)
	}
	return remote(s)
}

// local is the entries of a server launched over stdio.
func local(s Server) []Client {
	launch := struct {
		Type    string   `json:"type,omitempty"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}{Command: s.Command, Args: s.Args}
	mcpServers := indentJSON(map[string]any{"mcpServers": map[string]any{"skills": launch}})
	launch.Type = "stdio"
	code := "claude mcp add skills --"
	for _, a := range append([]string{s.Command}, s.Args...) {
		code += " " + ShellQuote(a)
	}
	return []Client{
		{"claude-code", "Claude Code", "Run in a terminal, in your project.", code, ""},
		{"claude-desktop", "Claude Desktop", "claude_desktop_config.json (Settings → Developer → Edit Config)", mcpServers, "Restart Claude Desktop after saving."},
		{"cursor", "Cursor", ".cursor/mcp.json in your project, or ~/.cursor/mcp.json", mcpServers, ""},
		{"vscode", "VS Code", ".vscode/mcp.json in your workspace", indentJSON(map[string]any{"servers": map[string]any{"skills": launch}}), ""},
	}
}

// remote is the entries of a server reached over Streamable HTTP.
func remote(s Server) []Client {
	type entry struct {
		Type    string            `json:"type,omitempty"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers,omitempty"`
	}
	headers := map[string]string(nil)
	if s.Token {
		headers = map[string]string{"Authorization": "Bearer YOUR_TOKEN"}
	}
	// Claude Desktop reaches remote servers through mcp-remote, a local
	// bridge; its --header takes the value from the environment.
	args := []string{"-y", "mcp-remote", s.URL}
	env := map[string]string(nil)
	if s.Token {
		args = append(args, "--header", "Authorization:${AUTH_HEADER}")
		env = map[string]string{"AUTH_HEADER": "Bearer YOUR_TOKEN"}
	}
	desktop := map[string]any{"mcpServers": map[string]any{"skills": struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env,omitempty"`
	}{"npx", args, env}}}
	code := "claude mcp add --transport http skills " + ShellQuote(s.URL)
	if s.Token {
		code += ` --header "Authorization: Bearer YOUR_TOKEN"`
	}
	vsHeaders := map[string]string(nil)
	var inputs []any
	if s.Token {
		vsHeaders = map[string]string{"Authorization": "Bearer ${input:skillstore-token}"}
		inputs = []any{map[string]any{"type": "promptString", "id": "skillstore-token", "description": "skillstore token", "password": true}}
	}
	vscode := map[string]any{"servers": map[string]any{"skills": entry{Type: "http", URL: s.URL, Headers: vsHeaders}}}
	if inputs != nil {
		vscode["inputs"] = inputs
	}
	return []Client{
		{"claude-code", "Claude Code", "Run in a terminal, in your project.", code, ""},
		{"claude-desktop", "Claude Desktop", "claude_desktop_config.json (Settings → Developer → Edit Config)", indentJSON(desktop), "Claude Desktop starts mcp-remote (Node.js) to reach a server over HTTP."},
		{"cursor", "Cursor", ".cursor/mcp.json in your project, or ~/.cursor/mcp.json", indentJSON(map[string]any{"mcpServers": map[string]any{"skills": entry{URL: s.URL, Headers: headers}}}), ""},
		{"vscode", "VS Code", ".vscode/mcp.json in your workspace", indentJSON(vscode), ""},
	}
}

func indentJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// ShellQuote quotes s for a POSIX shell when it holds anything beyond
// letters, digits and :/.-_=~ (a single-quoted string, ' escaped).
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(":/.-_=", c)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
