package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/internal/jsonstr"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// The list methods, prompts/get and completion/complete: every answer that
// depends on the catalog is made here, per request, from the catalog's
// lists as Sync last built them.

// ListPageSize is the most items one page of tools/list, resources/list,
// resources/templates/list or prompts/list holds; a longer list gives a
// nextCursor to pass back for the next page.
const ListPageSize = 1000

// lists is the catalog as the list methods give it: each item encoded once,
// sorted by the name its cursor uses.
type lists struct {
	tools, resources, templates, prompts []listItem
}

// listItem is one entry of a list: its name and its JSON.
type listItem struct {
	name string
	json json.RawMessage
}

// skillTemplate is the resource template every skill file is read through.
const skillTemplate = "skill://{name}/{+path}"

// buildLists encodes the lists for a catalog and the tools' specs.
func buildLists(list []*store.Skill, specs []tools.Spec) (*lists, error) {
	l := &lists{}
	add := func(dst *[]listItem, name string, v any) error {
		j, err := json.Marshal(v)
		*dst = append(*dst, listItem{name: name, json: j})
		return err
	}
	for _, spec := range specs {
		if err := add(&l.tools, spec.Name, mcpTool(spec)); err != nil {
			return nil, err
		}
	}
	for _, sk := range list {
		res := mcp.NewResource(tools.SkillURI(sk.Name), sk.Name, mcp.WithResourceDescription(sk.Description),
			mcp.WithMIMEType("text/markdown"), mcp.WithResourceSize(sk.DocSize))
		if err := add(&l.resources, sk.Name, res); err != nil {
			return nil, err
		}
		if err := add(&l.prompts, sk.Name, mcp.NewPrompt(sk.Name, mcp.WithPromptDescription(sk.Description))); err != nil {
			return nil, err
		}
	}
	tmpl := mcp.NewResourceTemplate(skillTemplate, "Skill file",
		mcp.WithTemplateDescription("Any file in a skill's folder; path is relative to the folder, e.g. skill://pdf/references/forms.md"))
	if err := add(&l.templates, "Skill file", tmpl); err != nil {
		return nil, err
	}
	for _, items := range [][]listItem{l.tools, l.resources, l.templates, l.prompts} {
		sort.SliceStable(items, func(i, j int) bool { return items[i].name < items[j].name })
	}
	return l, nil
}

// mcpTool turns a tool spec into an mcp.Tool with every annotation hint set.
func mcpTool(spec tools.Spec) mcp.Tool {
	t := mcp.NewToolWithRawSchema(spec.Name, spec.Description, spec.InputSchema)
	yes, no := true, false
	t.Annotations = mcp.ToolAnnotation{
		Title:           spec.Title,
		ReadOnlyHint:    &yes,
		DestructiveHint: &no,
		IdempotentHint:  &yes,
		OpenWorldHint:   &no,
	}
	t.RawOutputSchema = spec.OutputSchema
	return t
}

func (s *Server) listToolsMethod(c *call, b []byte) ([]byte, error) {
	return s.page(c, b, "tools", func(l *lists) []listItem { return l.tools })
}

func (s *Server) listResourcesMethod(c *call, b []byte) ([]byte, error) {
	return s.page(c, b, "resources", func(l *lists) []listItem { return l.resources })
}

func (s *Server) listTemplatesMethod(c *call, b []byte) ([]byte, error) {
	return s.page(c, b, "resourceTemplates", func(l *lists) []listItem { return l.templates })
}

func (s *Server) listPromptsMethod(c *call, b []byte) ([]byte, error) {
	return s.page(c, b, "prompts", func(l *lists) []listItem { return l.prompts })
}

// currentLists returns the lists, once the first are built (the server
// answers before its first catalog is listed), or the error of a request
// that ended waiting for them.
func (s *Server) currentLists(c *call) (*lists, error) {
	select {
	case <-s.ready:
	case <-c.ctx.Done():
		return nil, resourceFailure(c.ctx.Err(), false, "")
	}
	return s.lists.Load(), nil
}

// page appends one page of the list pick chooses as the member key, after
// the cursor the request gives, and the cursor of the next page if more
// follow. A cursor is the last name of the previous page, base64-encoded,
// so a page boundary survives changes to the list.
func (s *Server) page(c *call, b []byte, key string, pick func(*lists) []listItem) ([]byte, error) {
	cursor, err := c.str(c.p.Cursor, "cursor")
	if err != nil {
		return b, err
	}
	l, err := s.currentLists(c)
	if err != nil {
		return b, err
	}
	items := pick(l)
	start := 0
	if cursor != "" {
		after, err := base64.StdEncoding.DecodeString(cursor)
		if err != nil {
			return b, invalidParams("Invalid cursor %.40q: pass back the nextCursor of a previous result unchanged", cursor)
		}
		start = sort.Search(len(items), func(i int) bool { return items[i].name > string(after) })
	}
	end := min(len(items), start+ListPageSize)
	b = append(b, `"`+key+`":[`...)
	for i := start; i < end; i++ {
		if i > start {
			b = append(b, ',')
		}
		b = append(b, items[i].json...)
	}
	b = append(b, ']')
	if end < len(items) {
		b = append(b, `,"nextCursor":`...)
		b = jsonstr.Append(b, base64.StdEncoding.EncodeToString([]byte(items[end-1].name)))
	}
	return b, nil
}

// getPromptMethod answers prompts/get: a skill's SKILL.md as a user
// message, for clients that offer prompts as slash commands.
func (s *Server) getPromptMethod(c *call, b []byte) ([]byte, error) {
	name, err := c.str(c.p.Name, "name")
	if err != nil {
		return b, err
	}
	doc, err := s.store.Document(c.ctx, name)
	if errors.Is(err, store.ErrSkillNotFound) || errors.Is(err, store.ErrInvalidName) {
		return b, invalidParams("Prompt '%s' not found: call prompts/list to see the prompts this server offers", clipName(name))
	}
	if err != nil {
		return b, resourceFailure(err, c.modern, "")
	}
	text := "Use the skill \"" + doc.Skill.Name + "\". Its instructions (SKILL.md) follow; read supporting files it mentions with read_file_in_skill.\n\n" + doc.Text
	b = append(b, `"description":`...)
	b = jsonstr.Append(b, doc.Skill.Description)
	b = append(b, `,"messages":[{"role":"user","content":{"type":"text","text":`...)
	b = s.memo.appendString(b, text)
	return append(b, "}}]"...), nil
}

// maxCompletions is the most values completion/complete returns (the
// protocol's limit).
const maxCompletions = 100

// completeMethod answers completion/complete for the skill file template
// (skill://{name}/{+path}: skill names, then the paths inside the skill
// named in context.arguments) and for prompts (whose names are skill
// names; they take no arguments, so nothing completes). Values are what
// the caller may see, starting with the argument's value.
func (s *Server) completeMethod(c *call, b []byte) ([]byte, error) {
	var p struct {
		Ref struct {
			Type string `json:"type"`
			URI  string `json:"uri"`
			Name string `json:"name"`
		} `json:"ref"`
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
		Context struct {
			Arguments map[string]string `json:"arguments"`
		} `json:"context"`
	}
	if len(c.params) == 0 {
		return b, invalidParams("Invalid params for completion/complete: params must hold ref and argument")
	}
	if err := json.Unmarshal(c.params, &p); err != nil {
		return b, invalidParams("Invalid params for completion/complete: %v", err)
	}
	var values []string
	switch p.Ref.Type {
	case "ref/resource":
		if p.Ref.URI != skillTemplate {
			return b, invalidParams("Resource template %.100q not found: this server completes %s only", p.Ref.URI, skillTemplate)
		}
		var err error
		if values, err = s.completeTemplate(c, p.Argument.Name, p.Argument.Value, p.Context.Arguments["name"]); err != nil {
			return b, err
		}
	case "ref/prompt":
		if _, err := s.store.Skill(c.ctx, p.Ref.Name); err != nil {
			return b, invalidParams("Prompt '%s' not found; call prompts/list to see the prompts this server offers", clipName(p.Ref.Name))
		}
	default:
		return b, invalidParams("Invalid params for completion/complete: ref.type must be \"ref/resource\" or \"ref/prompt\", not %.40q", p.Ref.Type)
	}
	total, more := len(values), len(values) > maxCompletions
	if more {
		values = values[:maxCompletions]
	}
	if values == nil {
		values = []string{}
	}
	return appendMembers(b, map[string]any{"completion": map[string]any{"values": values, "total": total, "hasMore": more}})
}

// completeTemplate completes an argument of the skill file template.
func (s *Server) completeTemplate(c *call, arg, prefix, skill string) ([]string, error) {
	var values []string
	switch arg {
	case "name":
		list, err := s.store.List(c.ctx)
		if err != nil {
			return nil, &rpcError{Code: codeInternal, Message: resourceFailure(err, false, "").Message}
		}
		for _, sk := range list {
			if strings.HasPrefix(sk.Name, prefix) {
				values = append(values, sk.Name)
			}
		}
	case "path":
		sk, err := s.store.Skill(c.ctx, skill)
		if err != nil {
			return nil, nil // no skill chosen yet, or none of that name: nothing to offer
		}
		files, err := s.store.FilesOf(c.ctx, sk)
		if err != nil {
			return nil, &rpcError{Code: codeInternal, Message: resourceFailure(err, false, "").Message}
		}
		for _, f := range files {
			p := f.Path
			if p == sk.DocPath {
				p = store.DocName
			}
			if strings.HasPrefix(p, prefix) {
				values = append(values, p)
			}
		}
		sort.Strings(values)
	default:
		return nil, invalidParams("Argument %.40q not found: %s takes 'name' and 'path'", arg, skillTemplate)
	}
	return values, nil
}
