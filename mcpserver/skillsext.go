package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/skillcheck"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// SkillsExtension is the identifier of the MCP Skills extension (SEP-2640),
// which adds skills/list, skills/get and, declared with directoryRead:
// true, resources/directory/read.
const SkillsExtension = "io.modelcontextprotocol/skills"

// skillsCapability is the extension's settings object, declared inline
// under its identifier in capabilities.extensions.
var skillsCapability = map[string]any{"directoryRead": true}

// The Skills extension's interoperability limits (SEP-2640): a conforming
// host must accept skills up to these, and servers should not publish
// larger ones. A skill over them is left out of skills/list and refused by
// skills/get (the log says so once); its tools and resources still serve it.
// They are the registry's upload check's (internal/skillcheck).
const (
	MaxExtensionFiles = skillcheck.MaxExtensionFiles
	MaxExtensionBytes = skillcheck.MaxExtensionBytes
)

// ExtensionLimits says how a skill whose folder holds files exceeds the
// extension's limits, or returns nil.
func ExtensionLimits(files []store.FileInfo) error {
	var total int64
	for _, f := range files {
		total += f.Size
	}
	return skillcheck.ExtensionLimits(len(files), total)
}

const (
	skillsPageSize = 50
	dirPageSize    = 200
	mimeDirectory  = "inode/directory"
)

// skillEntry is the extension's Skill: the SKILL.md URI, its frontmatter
// verbatim as JSON, a complete manifest of the skill's files, and in
// _meta its provenance (ProvenanceMetaKey).
type skillEntry struct {
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"`
	Resources   []skillResource `json:"resources"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

type skillResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// The results' resultType, ttlMs and cacheScope (and on 2026-07-28 the
// server's _meta) are added by the dispatcher (Server.result), as on every
// cacheable result.
type listSkillsResult struct {
	Skills     []skillEntry `json:"skills"`
	NextCursor string       `json:"nextCursor,omitempty"`
}

type getSkillResult struct {
	Skill skillEntry `json:"skill"`
}

// dirEntry is one child in a resources/directory/read result.
type dirEntry struct {
	URI      string `json:"uri"`
	Name     string `json:"name"`
	MIMEType string `json:"mimeType,omitempty"`
	Size     *int64 `json:"size,omitempty"`
}

type readDirectoryResult struct {
	Resources  []dirEntry `json:"resources"`
	NextCursor string     `json:"nextCursor,omitempty"`
}

// listSkills answers skills/list: the skills that meet the Agent Skills
// specification, by name, a page at a time. The cursor is the last name of
// the previous page, so a page boundary survives catalog changes.
func (s *Server) listSkills(ctx context.Context, v *store.View, remote bool, cursor string) (any, error) {
	after, err := decodeCursor(cursor)
	if err != nil {
		return nil, err
	}
	list, err := v.List(ctx)
	if err != nil {
		return nil, &rpcError{Code: codeInternal, Message: resourceFailure(err, false, "").Message}
	}
	res := listSkillsResult{Skills: []skillEntry{}}
	start := sort.Search(len(list), func(i int) bool { return list[i].Name > after })
	for i := start; i < len(list); i++ {
		sk := list[i]
		if len(res.Skills) == skillsPageSize {
			res.NextCursor = encodeCursor(list[i-1].Name)
			break
		}
		if !sk.Valid() {
			continue // the extension publishes only spec-conformant skills
		}
		e, err := s.skillEntry(ctx, sk, remote)
		if err != nil {
			s.leftOut(sk, err)
			continue
		}
		res.Skills = append(res.Skills, e)
	}
	return res, nil
}

// getSkill answers skills/get for the URI of a skill's SKILL.md.
func (s *Server) getSkill(ctx context.Context, v *store.View, remote bool, uri string) (any, error) {
	name, err := tools.ParseSkillURI(ctx, v, uri)
	if err != nil {
		return nil, invalidParams("%s", err.Error())
	}
	sk, err := v.Skill(ctx, name)
	if err != nil {
		msg, _ := tools.Describe(err)
		return nil, invalidParams("%s; call skills/list to discover the skills this server serves", msg)
	}
	if !sk.Valid() {
		return nil, invalidParams("Skill '%s' does not meet the Agent Skills specification (%s), so it is not published through the skills extension", name, sk.Diagnostics[0])
	}
	e, err := s.skillEntry(ctx, sk, remote)
	if err != nil {
		return nil, invalidParams("Skill '%s' cannot be published through the skills extension: %v", name, err)
	}
	return getSkillResult{Skill: e}, nil
}

// leftOut logs, once per version of a skill's SKILL.md and reason, that
// the skill is left out of the skills extension.
func (s *Server) leftOut(sk *store.Skill, reason error) {
	key := leftOutKey{sk.Source.Label, sk.Name, sk.DocSize, sk.DocModTime().UnixNano(), reason.Error()}
	s.leftOutMu.Lock()
	_, logged := s.leftOutLog.Get(key)
	if !logged {
		s.leftOutLog.Add(key, struct{}{}, int64(len(key.skill)+len(key.reason)+64))
	}
	s.leftOutMu.Unlock()
	if logged {
		return
	}
	s.log.Warn("skill left out of the skills extension (skills/list, skills/get); its tools and resources still serve it", "skill", sk.Name, "source", sk.Source.Label, "reason", reason)
}

type leftOutKey struct {
	source, skill string
	size, modTime int64
	reason        string
}

// checkExtension logs the skills of list that the skills extension leaves
// out (see leftOut), so an operator hears of them before a client asks.
func (s *Server) checkExtension(ctx context.Context, list []*store.Skill) {
	for _, sk := range list {
		if ctx.Err() != nil {
			return
		}
		if !sk.Valid() {
			continue
		}
		files, err := s.store.View(nil).Files(ctx, sk.Name, &store.ReadOptions{Skill: sk})
		if err == nil {
			err = ExtensionLimits(files)
		}
		if err != nil && ctx.Err() == nil {
			s.leftOut(sk, err)
		}
	}
}

// skillEntry builds a skill's entry from sk's snapshot alone: its listing
// and every file read (reads pinned with store.ReadOptions.Skill),
// whatever catalog is current.
// Digests and sizes cover each file's bytes as stored, which
// resources/read delivers (as UTF-8 text, or a blob), and are remembered
// per file version. A skill over the extension's limits, or with a file the server
// cannot serve, is refused. Its provenance is shown as to a remote caller
// when remote is set (remoteProvenance).
func (s *Server) skillEntry(ctx context.Context, sk *store.Skill, remote bool) (skillEntry, error) {
	fm, err := s.frontmatterJSON(sk)
	if err != nil {
		return skillEntry{}, err
	}
	files, err := s.store.View(nil).Files(ctx, sk.Name, &store.ReadOptions{Skill: sk}) // from sk's own snapshot
	if err != nil {
		msg, _ := tools.Describe(err)
		return skillEntry{}, errors.New(msg)
	}
	if err := ExtensionLimits(files); err != nil {
		return skillEntry{}, err
	}
	prov := sk.Provenance
	if remote {
		prov = s.remoteProvenance(prov)
	}
	e := skillEntry{URI: tools.SkillURI(sk.Name), Frontmatter: fm, Resources: make([]skillResource, 0, len(files)), Meta: s.provenanceMeta(prov)}
	var total int64
	for _, f := range files {
		p := f.Path
		if p == sk.DocPath {
			p = store.DocName // the canonical URI, as resources/list gives it
		}
		d, err := s.store.View(nil).Digest(ctx, sk, f) // from sk's snapshot, remembered per file version
		if err != nil {
			msg, _ := tools.Describe(err) // the contract's text, never a backend's
			return skillEntry{}, fmt.Errorf("file '%s' cannot be served: %s", f.Path, msg)
		}
		total += d.Size
		if err := skillcheck.ExtensionLimits(len(files), total); err != nil {
			return skillEntry{}, err
		}
		e.Resources = append(e.Resources, skillResource{URI: tools.FileURI(sk.Name, p), Digest: "sha256:" + d.SHA256, Size: d.Size})
	}
	return e, nil
}

// frontmatterJSON is a skill's frontmatter as JSON, rendered once per
// version of its SKILL.md (store.RenderFrontmatter bounds it and refuses
// YAML aliases); a value JSON cannot hold (.inf, .nan) fails this skill
// alone.
func (s *Server) frontmatterJSON(sk *store.Skill) (json.RawMessage, error) {
	key := frontmatterKey{sha256.Sum256([]byte(sk.Raw))}
	if v, ok := s.frontmatters.Get(key); ok {
		return v, nil
	}
	m, err := store.RenderFrontmatter(sk.Raw)
	if err != nil {
		return nil, err
	}
	j, err := json.Marshal(m)
	if err != nil {
		return nil, errors.New("its frontmatter holds a value JSON cannot represent (such as .inf or .nan); quote it")
	}
	s.frontmatters.Add(key, j, int64(len(j)+64))
	return j, nil
}

// frontmatterKey identifies a frontmatter by its text's SHA-256: equal
// text renders equally, and a change of a byte is a new key.
type frontmatterKey struct {
	sum [32]byte
}

// listSkillsMethod answers skills/list.
func (s *Server) listSkillsMethod(c *call, b []byte) ([]byte, error) {
	ctx, r := c.ctx, c.request
	cursor, err := r.str(r.p.Cursor, "cursor")
	if err != nil {
		return b, err
	}
	res, err := s.listSkills(ctx, s.viewFor(c), c.src.remote, cursor)
	if err != nil {
		return b, err
	}
	return appendMembers(b, res)
}

// getSkillMethod answers skills/get.
func (s *Server) getSkillMethod(c *call, b []byte) ([]byte, error) {
	ctx, r := c.ctx, c.request
	uri, err := r.str(r.p.URI, "uri")
	if err != nil {
		return b, err
	}
	s.auditURI(c, uri)
	res, err := s.getSkill(ctx, s.viewFor(c), c.src.remote, uri)
	if err != nil {
		return b, err
	}
	return appendMembers(b, res)
}

// readDirectoryMethod answers resources/directory/read: the direct
// children of a skill's folder (skill://NAME) or of a folder in it
// (skill://NAME/references), sorted by name, a page at a time. Folders are
// listed with mimeType inode/directory so a host can descend; a URI that
// names a file is invalid params (-32602).
func (s *Server) readDirectoryMethod(c *call, b []byte) ([]byte, error) {
	ctx, r := c.ctx, c.request
	uri, err := r.str(r.p.URI, "uri")
	if err != nil {
		return b, err
	}
	cursor, err := r.str(r.p.Cursor, "cursor")
	if err != nil {
		return b, err
	}
	s.auditURI(c, uri)
	res, err := s.readDirectory(ctx, s.viewFor(c), uri, cursor, r.modern)
	if err != nil {
		return b, err
	}
	return appendMembers(b, res)
}

func (s *Server) readDirectory(ctx context.Context, v *store.View, uri, cursor string, modern bool) (any, error) {
	name, dir, err := tools.ResolveURI(ctx, v, uri)
	if err != nil {
		return nil, resourceFailure(err, modern, uri)
	}
	after, err := decodeCursor(cursor)
	if err != nil {
		return nil, err
	}
	dir = strings.TrimRight(dir, "/")
	if dir != "" {
		if dir, err = store.CleanPath(name, dir); err != nil {
			return nil, resourceFailure(err, modern, uri)
		}
	}
	sk, err := v.Skill(ctx, name)
	if err != nil {
		return nil, resourceFailure(err, modern, uri)
	}
	files, err := v.Files(ctx, sk.Name, &store.ReadOptions{Skill: sk})
	if err != nil {
		return nil, resourceFailure(err, modern, uri)
	}
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	children := map[string]dirEntry{}
	for _, f := range files {
		if dir != "" && (f.Path == dir || f.Path == sk.DocPath && store.IsDocName(dir)) {
			return nil, invalidParams("'%s' is a file, not a directory: read it with resources/read", clipName(uri))
		}
		rest, ok := strings.CutPrefix(f.Path, prefix)
		if !ok {
			continue
		}
		if child, _, deeper := strings.Cut(rest, "/"); deeper {
			children[child] = dirEntry{URI: tools.FileURI(name, prefix+child), Name: child, MIMEType: mimeDirectory}
		} else {
			p, size := f.Path, f.Size
			if p == sk.DocPath {
				p, rest = store.DocName, store.DocName // the canonical URI, as resources/list gives it
			}
			children[rest] = dirEntry{URI: tools.FileURI(name, p), Name: rest, MIMEType: extMIME(p), Size: &size}
		}
	}
	if len(children) == 0 && dir != "" {
		return nil, resourceFailure(&store.Error{Kind: store.ErrFileNotFound, Skill: name, Path: dir}, modern, uri)
	}
	names := make([]string, 0, len(children))
	for n := range children {
		if n > after {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	res := readDirectoryResult{Resources: []dirEntry{}}
	for i, n := range names {
		if i == dirPageSize {
			res.NextCursor = encodeCursor(names[i-1])
			break
		}
		res.Resources = append(res.Resources, children[n])
	}
	return res, nil
}

// encodeCursor and decodeCursor turn the last name of a page into an
// opaque cursor and back.
func encodeCursor(last string) string { return base64.RawURLEncoding.EncodeToString([]byte(last)) }

func decodeCursor(cursor string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return "", invalidParams("Invalid cursor %.40q: pass back the nextCursor of a previous result unchanged", cursor)
	}
	return string(b), nil
}

// appendMembers appends the members of v's JSON object, without its braces.
func appendMembers(b []byte, v any) ([]byte, error) {
	j, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	if len(j) < 2 || j[0] != '{' {
		return b, fmt.Errorf("result is not a JSON object: %.100s", j)
	}
	return append(b, j[1:len(j)-1]...), nil
}
