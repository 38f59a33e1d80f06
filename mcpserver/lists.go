package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

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

// lists is the catalog as the list methods give it, sorted by the name
// its cursor uses: the tools and the template encoded once, and the
// skills, each a resource (its SKILL.md) and a prompt, encoded only when a
// page holding it is sent (encoded beforehand, the items of 100,000
// skills held 44 MB, of which a page sends 1,000; BenchmarkLists100k).
type lists struct {
	tools, templates []listItem
	// skills are the catalog's servable skills, sorted by name; shared
	// with the catalog, never modified.
	skills []*store.Skill
	// cat is the catalog skills are of (nil if it could not be listed):
	// a view's skills are its View.CatalogOf's.
	cat *store.Catalog
	// views are the lists as callers with a restricted view see them
	// (listsFor), per view, built when first asked for; nil in a view.
	views *lru.Cache[access.ID, *lists]
}

// listItem is one encoded entry of a list: its name and its JSON.
type listItem struct {
	name string
	json json.RawMessage
}

// viewListsBytes bounds the memory of the filtered lists kept per
// catalog: a view of n skills holds 8n bytes (a pointer each) and its
// tools.
const viewListsBytes = lru.ViewLists

func newLists() *lists { return &lists{views: lru.New[access.ID, *lists](viewListsBytes)} }

// skillTemplate is the resource template every skill file is read through.
const skillTemplate = "skill://{name}/{+path}"

// buildLists makes the lists for a catalog's skills (list, which
// store.List gives sorted by name; a list that is not is sorted in a
// copy) and the tools' specs.
func buildLists(list []*store.Skill, specs []tools.Spec) (*lists, error) {
	l := newLists()
	var err error
	if l.tools, err = toolItems(specs); err != nil {
		return nil, err
	}
	byName := func(a, b *store.Skill) int { return strings.Compare(a.Name, b.Name) }
	if !slices.IsSortedFunc(list, byName) {
		list = slices.Clone(list)
		slices.SortStableFunc(list, byName)
	}
	l.skills = list
	tmpl := mcp.NewResourceTemplate(skillTemplate, "Skill file",
		mcp.WithTemplateDescription("Any file in a skill's folder; path is relative to the folder, e.g. skill://pdf/references/forms.md"))
	j, err := json.Marshal(tmpl)
	if err != nil {
		return nil, err
	}
	l.templates = []listItem{{name: "Skill file", json: j}}
	return l, nil
}

// appendResource appends the resources/list item of a skill's SKILL.md:
// the JSON json.Marshal gives for mcp.NewResource(tools.SkillURI(name),
// name, mcp.WithResourceDescription(description),
// mcp.WithMIMEType("text/markdown"), mcp.WithResourceSize(DocSize)), byte
// for byte, without the reflection: TestItemEncoding and
// TestListPagesEncodeAsMCP hold it to that, so an mcp-go whose types
// encode otherwise fails them.
func appendResource(b []byte, sk *store.Skill) []byte {
	b = append(b, `{"uri":`...)
	b = appendText(b, tools.SkillURI(sk.Name))
	b = append(b, `,"name":`...)
	b = appendText(b, sk.Name)
	if sk.Description != "" {
		b = append(b, `,"description":`...)
		b = appendText(b, sk.Description)
	}
	b = append(b, `,"mimeType":"text/markdown"`...)
	if sk.DocSize >= 0 { // mcp.WithResourceSize leaves a negative size out
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, sk.DocSize, 10)
	}
	return append(b, '}')
}

// appendPrompt appends the prompts/list item of a skill: the JSON
// json.Marshal gives for mcp.NewPrompt(name,
// mcp.WithPromptDescription(description)), byte for byte.
func appendPrompt(b []byte, sk *store.Skill) []byte {
	b = append(b, `{"name":`...)
	b = appendText(b, sk.Name)
	if sk.Description != "" {
		b = append(b, `,"description":`...)
		b = appendText(b, sk.Description)
	}
	return append(b, '}')
}

// appendText appends s as encoding/json encodes a string (with its HTML
// escaping, which jsonstr does not do): as it is when encoding/json copies
// every byte (plainText), else as json.Marshal gives it.
func appendText(b []byte, s string) []byte {
	if plainText(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	j, _ := json.Marshal(s) // a string always encodes
	return append(b, j...)
}

// plainText reports whether encoding/json copies every byte of s into its
// string as it is: ASCII from the space on but for the quote, the
// backslash, <, > and &, and valid UTF-8 beyond ASCII but for U+2028 and
// U+2029.
func plainText(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if !plainASCII[c] {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += n
	}
	return true
}

// plainASCII marks the ASCII bytes encoding/json copies as they are.
var plainASCII = func() (p [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		p[c] = !strings.ContainsRune(`"\<>&`, c)
	}
	return p
}()

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
// everyone; for a restricted view, the skills it may see, and the tools
// with the Skill tool's description listing only those. A view's lists
// are built once per catalog and kept (bounded), so a caller's list costs
// a lookup.
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
	v := &lists{templates: l.templates, skills: s.viewSkills(l, cl.filter)}
	if v.tools, err = toolItems(s.toolsFor(cl).Specs(c.ctx)); err != nil {
		return nil, err
	}
	if c.ctx.Err() != nil {
		return nil, resourceFailure(c.ctx.Err(), false, "") // the Skill tool's description may be short of skills: keep nothing
	}
	size := int64(8*cap(v.skills) + 256) // the skills (pointers shared with the catalog) and the lists
	for _, it := range v.tools {
		size += int64(len(it.name) + len(it.json) + 48)
	}
	l.views.Add(k, v, size)
	return v, nil
}

// viewSkills returns l's skills as the caller of filter f sees them:
// those its view of l's catalog serves (View.CatalogOf), in name order. A
// source the view may see nothing of takes no part in its layering, so
// the view may serve a copy l's skills shadow.
func (s *Server) viewSkills(l *lists, f access.Filter) []*store.Skill {
	if l.cat == nil {
		return nil
	}
	return s.store.View(f).CatalogOf(l.cat).Skills
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
	return s.page(c, b, "tools", func(l *lists) pageItems { return encodedItems(l.tools) })
}

func (s *Server) listResourcesMethod(c *call, b []byte) ([]byte, error) {
	return s.page(c, b, "resources", func(l *lists) pageItems { return resourceItems(l.skills) })
}

func (s *Server) listTemplatesMethod(c *call, b []byte) ([]byte, error) {
	return s.page(c, b, "resourceTemplates", func(l *lists) pageItems { return encodedItems(l.templates) })
}

func (s *Server) listPromptsMethod(c *call, b []byte) ([]byte, error) {
	return s.page(c, b, "prompts", func(l *lists) pageItems { return promptItems(l.skills) })
}

// pageItems is a list as page reads it: sorted by the name of each item,
// which a cursor holds, and each item appended as its JSON.
type pageItems interface {
	len() int
	name(i int) string
	appendItem(b []byte, i int) []byte
}

// encodedItems are items encoded beforehand.
type encodedItems []listItem

func (l encodedItems) len() int          { return len(l) }
func (l encodedItems) name(i int) string { return l[i].name }
func (l encodedItems) appendItem(b []byte, i int) []byte {
	return append(b, l[i].json...)
}

// resourceItems and promptItems are skills as resources/list and
// prompts/list give them, encoded as they are sent.
type resourceItems []*store.Skill
type promptItems []*store.Skill

func (l resourceItems) len() int          { return len(l) }
func (l resourceItems) name(i int) string { return l[i].Name }
func (l resourceItems) appendItem(b []byte, i int) []byte {
	return appendResource(b, l[i])
}

func (l promptItems) len() int          { return len(l) }
func (l promptItems) name(i int) string { return l[i].Name }
func (l promptItems) appendItem(b []byte, i int) []byte {
	return appendPrompt(b, l[i])
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
// so a page boundary survives changes to the list. Only the page's items
// are encoded.
func (s *Server) page(c *call, b []byte, key string, pick func(*lists) pageItems) ([]byte, error) {
	cursor, err := c.str(c.p.Cursor, "cursor")
	if err != nil {
		return b, err
	}
	l, err := s.listsFor(c)
	if err != nil {
		return b, err
	}
	items := pick(l)
	n, start := items.len(), 0
	if cursor != "" {
		after, err := base64.StdEncoding.DecodeString(cursor)
		if err != nil {
			return b, invalidParams("Invalid cursor %.40q: pass back the nextCursor of a previous result unchanged", cursor)
		}
		start = sort.Search(n, func(i int) bool { return items.name(i) > string(after) })
	}
	end := min(n, start+ListPageSize)
	b = append(b, `"`+key+`":[`...)
	for i := start; i < end; i++ {
		if i > start {
			b = append(b, ',')
		}
		b = items.appendItem(b, i)
	}
	b = append(b, ']')
	if end < n {
		b = append(b, `,"nextCursor":`...)
		b = jsonstr.Append(b, base64.StdEncoding.EncodeToString([]byte(items.name(end-1))))
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
	doc, err := s.viewFor(c).Document(c.ctx, name, nil)
	if errors.Is(err, store.ErrSkillNotFound) || errors.Is(err, store.ErrInvalidName) {
		return b, invalidParams("Prompt '%s' not found: call prompts/list to see the prompts this server offers", clipName(name))
	}
	if err != nil {
		return b, resourceFailure(err, c.modern, "")
	}
	c.addProvenance(s.shownProvenance(c, doc.Skill.Provenance))
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
		files, err := v.Files(c.ctx, sk.Name, &store.ReadOptions{Skill: sk})
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
