package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/internal/jsonstr"
	"github.com/skillstore/skillstore/internal/lru"
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
	// views are the lists as callers with a restricted view see them
	// (listsFor), per view, built when first asked for; nil in a view.
	views *lru.Cache[access.ID, *lists]
}

// listItem is one entry of a list: its name and its JSON, and for a
// skill's resource or prompt the label of the skill's source.
type listItem struct {
	name   string
	json   json.RawMessage
	source string
}

// viewListsBytes bounds the memory of the filtered lists kept per
// catalog: a view of n skills holds about 48n bytes and its tools.
const viewListsBytes = 32 << 20

func newLists() *lists { return &lists{views: lru.New[access.ID, *lists](viewListsBytes)} }

// skillTemplate is the resource template every skill file is read through.
const skillTemplate = "skill://{name}/{+path}"

// buildLists encodes the lists for a catalog and the tools' specs.
func buildLists(list []*store.Skill, specs []tools.Spec) (*lists, error) {
	l := newLists()
	add := func(dst *[]listItem, name, source string, v any) error {
		j, err := json.Marshal(v)
		*dst = append(*dst, listItem{name: name, json: j, source: source})
		return err
	}
	var err error
	if l.tools, err = toolItems(specs); err != nil {
		return nil, err
	}
	for _, sk := range list {
		res := mcp.NewResource(tools.SkillURI(sk.Name), sk.Name, mcp.WithResourceDescription(sk.Description),
			mcp.WithMIMEType("text/markdown"), mcp.WithResourceSize(sk.DocSize))
		if err := add(&l.resources, sk.Name, sk.Source.Label, res); err != nil {
			return nil, err
		}
		if err := add(&l.prompts, sk.Name, sk.Source.Label, mcp.NewPrompt(sk.Name, mcp.WithPromptDescription(sk.Description))); err != nil {
			return nil, err
		}
	}
	tmpl := mcp.NewResourceTemplate(skillTemplate, "Skill file",
		mcp.WithTemplateDescription("Any file in a skill's folder; path is relative to the folder, e.g. skill://pdf/references/forms.md"))
	if err := add(&l.templates, "Skill file", "", tmpl); err != nil {
		return nil, err
	}
	for _, items := range [][]listItem{l.tools, l.resources, l.templates, l.prompts} {
		sort.SliceStable(items, func(i, j int) bool { return items[i].name < items[j].name })
	}
	return l, nil
}

// toolItems encodes the tools of specs, sorted by name.
func toolItems(specs []tools.Spec) ([]listItem, error) {
	items := make([]listItem, 0, len(specs))
	for _, spec := range specs {
		j, err := json.Marshal(mcpTool(spec))
		if err != nil {
			return nil, err
		}
		items = append(items, listItem{name: spec.Name, json: j})
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].name < items[j].name })
	return items, nil
}

// listsFor returns the lists as c's caller sees them: the catalog's for
// everyone; for a restricted view, the resources and prompts of the
// skills it may see, and the tools with the Skill tool's description
// listing only those. A view's lists are built once per catalog and kept
// (bounded), so a caller's list costs a lookup.
func (s *Server) listsFor(c *call) (*lists, error) {
	l, err := s.currentLists(c)
	cl := c.src.caller
	if err != nil || !cl.filtered() {
		return l, err
	}
	k := cl.filter.ID() // the identity tools.Tools.For keeps the view's state by
	if v, ok := l.views.Get(k); ok {
		return v, nil
	}
	v := &lists{templates: l.templates, resources: filterItems(l.resources, cl.filter), prompts: filterItems(l.prompts, cl.filter)}
	if v.tools, err = toolItems(s.tools.For(cl.filter).Specs(c.ctx)); err != nil {
		return nil, err
	}
	if c.ctx.Err() != nil {
		return nil, resourceFailure(c.ctx.Err(), false, "") // the Skill tool's description may be short of skills: keep nothing
	}
	size := int64(64 * (len(v.resources) + len(v.prompts) + 4))
	for _, it := range v.tools {
		size += int64(len(it.json))
	}
	l.views.Add(k, v, size)
	return v, nil
}

// filterItems returns the items of skills f allows, in their order.
func filterItems(items []listItem, f access.Filter) []listItem {
	out := make([]listItem, 0, len(items)/4)
	for _, it := range items {
		if f.Allows(it.source, it.name) {
			out = append(out, it)
		}
	}
	return out
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
	l, err := s.listsFor(c)
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
	s.auditRead(c, name, "", "")
	doc, err := s.viewFor(c).Document(c.ctx, name)
	if errors.Is(err, store.ErrSkillNotFound) || errors.Is(err, store.ErrInvalidName) {
		return b, invalidParams("Prompt '%s' not found: call prompts/list to see the prompts this server offers", clipName(name))
	}
	if err != nil {
		return b, resourceFailure(err, c.modern, "")
	}
	c.addProvenance(doc.Skill.Provenance)
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
		if _, err := s.viewFor(c).Skill(c.ctx, p.Ref.Name); err != nil {
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
	v := s.viewFor(c)
	switch arg {
	case "name":
		list, err := v.List(c.ctx)
		if err != nil {
			return nil, &rpcError{Code: codeInternal, Message: resourceFailure(err, false, "").Message}
		}
		for _, sk := range list {
			if strings.HasPrefix(sk.Name, prefix) {
				values = append(values, sk.Name)
			}
		}
	case "path":
		sk, err := v.Skill(c.ctx, skill)
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
