package backends

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"syscall"

	"github.com/skillstore/skillstore/internal/readall"
	"github.com/skillstore/skillstore/store"
)

// Agent Plugins 1.0.0 (agent-plugins.org): a plugin is a folder with a
// plugin.json, its skills in skills/<name>/SKILL.md, and perhaps MCP
// servers in mcp.json. Plugins (a store.Grouper) finds them in any
// source — a folder, an archive, a git repository, a bucket, an OCI
// artifact — on every listing: the source's root as one plugin, or each
// folder of the root holding a plugin.json and no SKILL.md. A plugin's
// skills are named PLUGIN:SKILL and served at skill://PLUGIN/SKILL/…, so
// two plugins' skills of one folder name are two skills; one that breaks
// the Agent Skills specification is left out with a problem
// (store.Group.Conforming), as §7.1 asks. skillstore is a skills-only
// client in the specification's terms: MCP server entries are reported,
// never started.
//
// Limits: a plugin is read through fs.Sub of its folder, so a backend that
// confines a sub-folder to itself (LocalFS; archives, buckets and
// registries hold no links) keeps every read inside the plugin, as §4.1
// asks; the store then reads each skill through its own folder, so a link
// from one skill's folder to elsewhere in the plugin is refused too
// (stricter than §4.1). 1.0.0 and 1.1.0 manifests are read (another
// $schema is refused by name); a 1.1.0 icon is not rendered, and client
// extensions and other component types are not read. A published
// snapshot lists its skills, so it is not searched for plugins (publish
// to a bucket refuses them; an OCI artifact carries them whole).
// plugin.json and mcp.json are read up to 1 MiB each.

// PluginSchema is the $schema of an Agent Plugins 1.0.0 plugin.json.
const PluginSchema = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"

// PluginSchema11 is the $schema of an Agent Plugins 1.1.0 plugin.json
// (a draft when this was written: 1.0.0 and the fields displayName and
// icon). These two are the versions this loader recognizes (§5.2).
const PluginSchema11 = "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json"

// specVersions maps each recognized plugin.json $schema to its Agent
// Plugins version.
var specVersions = map[string]string{PluginSchema: "1.0.0", PluginSchema11: "1.1.0"}

// mcpSchema is the $schema of an mcp.json of the given Agent Plugins
// version.
func mcpSchema(version string) string {
	return "https://agent-plugins.org/schemas/" + version + "/mcp.schema.json"
}

// maxManifest bounds plugin.json and mcp.json; maxNotes the unknown
// fields noted one by one, and the MCP servers named.
const (
	maxManifest = 1 << 20
	maxNotes    = 10
)

// Plugin is a plugin.json that loaded.
type Plugin struct {
	// Spec is the Agent Plugins version the manifest targets: "1.0.0"
	// or "1.1.0".
	Spec                       string
	Name, Version, Description string
	// DisplayName and Icon are 1.1.0's (§5.7, §5.8): a label for people,
	// empty if absent, and the plugin-relative path of an image, which
	// this server does not render.
	DisplayName, Icon string
	// Notes are what the specification asks a client to report and
	// ignore: unknown fields, a non-object extensions, MCP servers not
	// started, a skills location that is not a folder.
	Notes []string
}

// ErrInvalidPlugin wraps the errors of a plugin refused as a whole: a
// plugin.json that breaks the specification in a way it calls fatal.
var ErrInvalidPlugin = errors.New("invalid plugin")

// pluginName is §5.5: lowercase letters, digits, '-' and '.', 1 to 64,
// alphanumeric at both ends, no "--" or "..".
var pluginName = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]{0,62}[a-z0-9])?$`)

// ParsePlugin validates a plugin.json as §5 says: a JSON object with the
// canonical $schema and a valid name; known fields of the right types
// (author holding only name, email and url); unknown top-level fields and
// a non-object extensions are reported in Notes and ignored; anything
// else fails with ErrInvalidPlugin, saying which field.
func ParsePlugin(data []byte) (Plugin, error) {
	var p Plugin
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return p, fmt.Errorf("%w: plugin.json is not a JSON object", ErrInvalidPlugin)
	}
	str := func(field string, required bool) (string, error) {
		raw, ok := m[field]
		if !ok {
			if required {
				return "", fmt.Errorf("%w: plugin.json has no %q", ErrInvalidPlugin, field)
			}
			return "", nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return "", fmt.Errorf("%w: plugin.json's %q is not a string", ErrInvalidPlugin, field)
		}
		if required && s == "" {
			return "", fmt.Errorf("%w: plugin.json's %q is empty", ErrInvalidPlugin, field)
		}
		return s, nil
	}
	schema, err := str("$schema", true)
	if err != nil {
		return p, err
	}
	if p.Spec = specVersions[schema]; p.Spec == "" {
		return p, fmt.Errorf("%w: plugin.json targets %q; this server reads Agent Plugins 1.0.0 (%s) and 1.1.0 (%s)", ErrInvalidPlugin, store.Echo(schema), PluginSchema, PluginSchema11)
	}
	if p.Name, err = str("name", true); err != nil {
		return p, err
	}
	if !pluginName.MatchString(p.Name) || strings.Contains(p.Name, "--") || strings.Contains(p.Name, "..") {
		return p, fmt.Errorf("%w: the plugin name %q breaks §5.5: 1 to 64 lowercase letters, digits, '-' and '.', alphanumeric at both ends, no '--' or '..'", ErrInvalidPlugin, store.Echo(p.Name))
	}
	for _, f := range []struct {
		name string
		to   *string
	}{{"version", &p.Version}, {"description", &p.Description}, {"homepage", nil}, {"repository", nil}, {"license", nil}} {
		s, err := str(f.name, false)
		if err != nil {
			return p, err
		}
		if f.to != nil {
			*f.to = s
		}
	}
	if raw, ok := m["author"]; ok {
		var a map[string]json.RawMessage
		if json.Unmarshal(raw, &a) != nil || a == nil {
			return p, fmt.Errorf("%w: plugin.json's \"author\" is not an object", ErrInvalidPlugin)
		}
		for k, v := range a {
			var s string
			if k != "name" && k != "email" && k != "url" {
				return p, fmt.Errorf("%w: plugin.json's \"author\" has the field %q (only name, email and url)", ErrInvalidPlugin, store.Echo(k))
			}
			if json.Unmarshal(v, &s) != nil || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
				return p, fmt.Errorf("%w: plugin.json's \"author.%s\" is not a string", ErrInvalidPlugin, k)
			}
		}
	}
	if raw, ok := m["keywords"]; ok {
		var kw []json.RawMessage
		bad := json.Unmarshal(raw, &kw) != nil || kw == nil
		for _, k := range kw {
			var s string
			bad = bad || json.Unmarshal(k, &s) != nil || bytes.Equal(bytes.TrimSpace(k), []byte("null"))
		}
		if bad {
			return p, fmt.Errorf("%w: plugin.json's \"keywords\" is not an array of strings", ErrInvalidPlugin)
		}
	}
	if raw, ok := m["extensions"]; ok {
		var ext map[string]json.RawMessage
		if json.Unmarshal(raw, &ext) != nil || ext == nil {
			p.Notes = append(p.Notes, `"extensions" is not an object: ignored`)
		}
		for ns, v := range ext {
			var obj map[string]json.RawMessage
			if json.Unmarshal(v, &obj) != nil || obj == nil {
				return p, fmt.Errorf("%w: plugin.json's \"extensions\" member %q is not an object (§8.1)", ErrInvalidPlugin, store.Echo(ns))
			}
		}
	}
	if p.Spec == "1.1.0" {
		if p.DisplayName, err = str("displayName", false); err != nil {
			return p, err
		}
		if p.Icon, err = str("icon", false); err != nil {
			return p, err
		}
		if p.Icon != "" && (!strings.HasPrefix(p.Icon, "./") || !fs.ValidPath(path.Clean(p.Icon))) {
			// Advisory: an icon that is not a plugin-relative path is ignored (§5.8).
			p.Notes = append(p.Notes, fmt.Sprintf("icon %q is not a plugin-relative path inside the plugin: ignored", store.Echo(p.Icon)))
			p.Icon = ""
		}
	}
	var unknown []string
	for k := range m {
		switch k {
		case "$schema", "name", "version", "description", "author", "homepage", "repository", "license", "keywords", "extensions":
		case "displayName", "icon":
			if p.Spec == "1.0.0" {
				unknown = append(unknown, k)
			}
		default:
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for i, k := range unknown {
		if i == maxNotes {
			p.Notes = append(p.Notes, fmt.Sprintf("%d more unknown fields: ignored", len(unknown)-maxNotes))
			break
		}
		p.Notes = append(p.Notes, fmt.Sprintf("unknown field %q: ignored", store.Echo(k)))
	}
	return p, nil
}

// mcpNotes reports the MCP servers root's mcp.json declares: this server
// starts none of them. An mcp.json of another Agent Plugins version than
// the plugin's disables MCP for the plugin (§7.2.2).
func mcpNotes(fsys fs.FS, version string) []string {
	data, err := readSmallFile(fsys, "mcp.json")
	if errors.Is(err, fs.ErrNotExist) && !errors.Is(err, ErrNotRegular) {
		return nil
	}
	if err != nil {
		return []string{"mcp.json cannot be read: MCP disabled for the plugin"}
	}
	var c struct {
		Schema  string                     `json:"$schema"`
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	if json.Unmarshal(data, &c) != nil || c.Servers == nil || c.Schema != mcpSchema(version) {
		return []string{"mcp.json is not a valid Agent Plugins " + version + " MCP configuration (the plugin.json's version): MCP disabled for the plugin"}
	}
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, store.Echo(n))
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil
	}
	if len(names) > maxNotes {
		names = append(names[:maxNotes], fmt.Sprintf("and %d more", len(names)-maxNotes))
	}
	return []string{fmt.Sprintf("MCP servers %s: not started (skillstore serves skills only)", strings.Join(names, ", "))}
}

// readSmallFile reads name in fsys, a regular file of at most
// maxManifest bytes (a LocalFS opens it without blocking, whatever it is).
func readSmallFile(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	data, err := readall.Read(f, st.Size(), maxManifest) // a file may grow after its Stat
	if errors.Is(err, readall.ErrTooLarge) {
		return nil, fmt.Errorf("%w: %s is over %d bytes", errManifestSize, name, maxManifest)
	}
	return data, err
}

// errManifestSize: a plugin.json or mcp.json over maxManifest bytes.
var errManifestSize = errors.New("too large")

// Plugins is the store.Grouper of Agent Plugins 1.0.0: a folder with a
// plugin.json is a plugin, whose name comes from its manifest (validated
// by ParsePlugin: a plugin that breaks it is refused, saying which field),
// whose skills are those of its skills folder, and whose unknown fields
// and MCP servers are reported. A plugin.json or skills folder that
// resolves outside the plugin (a link) refuses the plugin or leaves it
// without skills, as §4.1 and §6.2 say.
//
// It is a store.FileGrouper: a plugin's answer is kept while its
// plugin.json, mcp.json and skills folder are as they were, so an idle
// listing reads and parses neither file again.
var Plugins store.Grouper = plugins{}

type plugins struct{}

var _ store.FileGrouper = plugins{}

// GroupFiles names what a plugin's answer is read from.
func (plugins) GroupFiles() []string { return []string{"plugin.json", "mcp.json", "skills"} }

func (plugins) Group(fsys fs.FS, dir string) (store.Group, bool) {
	root := fsys
	if dir != "." {
		sub, err := fs.Sub(fsys, dir)
		if err != nil {
			return store.Group{}, false
		}
		root = sub
	}
	data, err := readSmallFile(root, "plugin.json")
	if errors.Is(err, fs.ErrNotExist) && !errors.Is(err, ErrNotRegular) && !escapes(err) || errors.Is(err, syscall.ENOTDIR) {
		return store.Group{}, false // no plugin.json, or dir is a file
	}
	g := store.Group{Conforming: true} // §7.1: skip a skill that breaks the specification
	switch {
	case err == nil:
	case escapes(err), errors.Is(err, ErrNotRegular), errors.Is(err, errManifestSize), errors.Is(err, syscall.ELOOP):
		g.Err = fmt.Errorf("%w: plugin.json cannot be read (%v)", ErrInvalidPlugin, pluginPathError(err))
		return g, true
	default: // refused, or the backend failed: the plugin is not known to be invalid
		g.Err = fmt.Errorf("%w: plugin.json cannot be read: %w", store.ErrUnavailable, err)
		return g, true
	}
	p, err := ParsePlugin(data)
	if err != nil {
		g.Err = err
		return g, true
	}
	g.Name, g.Notes = p.Name, append(p.Notes, mcpNotes(root, p.Spec)...)
	st, err := fs.Stat(root, "skills")
	switch {
	case errors.Is(err, fs.ErrNotExist) && !escapes(err):
		// no skills location: not an error (§6.2)
	case err != nil:
		// §4.1, §6.2: the component type is invalid; the plugin loads.
		g.Notes = append(g.Notes, "its skills location cannot be used ("+pluginPathError(err).Error()+"): no skills")
	case !st.IsDir():
		g.Notes = append(g.Notes, "skills is not a folder: no skills")
	default:
		g.Skills = "skills"
	}
	return g, true
}

// escapes reports whether err is a path's refusal for leaving its root.
func escapes(err error) bool {
	return errors.Is(err, store.ErrPathEscapes) || errors.Is(escaped(err), store.ErrPathEscapes)
}

// pluginPathError says why a path of a plugin cannot be used, in the
// plugin's words.
func pluginPathError(err error) error {
	switch {
	case escapes(err):
		return errors.New("it resolves outside the plugin folder")
	case errors.Is(err, ErrNotRegular):
		return errors.New("it is not a regular file")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
