package backends

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/internal/fsdir"
	"github.com/skillstore/skillstore/internal/readall"
	"github.com/skillstore/skillstore/store"
)

// Agent Plugins 1.0.0 (agent-plugins.org): a plugin is a folder with a
// plugin.json, its skills in skills/<name>/SKILL.md, and perhaps MCP
// servers in mcp.json. OpenPlugins serves a plugin's skills, or each
// plugin's of a folder of plugins, as a source labelled with the plugin's
// name; a plugin's skill that breaks the Agent Skills specification is
// left out with a problem (store.Source.Conforming), as §7.1 asks.
// skillstore is a skills-only client in the specification's terms:
// MCP server entries are reported, never started.
//
// Limits: plugins are read from local folders and zip archives (not yet
// from git, buckets or registries); a skill is named by its folder, as in any
// source, so two plugins' skills of one name are layered (the first
// source wins, the other is reported shadowed) rather than served as
// PLUGIN/SKILL; a link inside skills/ to elsewhere in the plugin is
// refused (the store's root is skills/, stricter than §4.1);
// plugin.json and mcp.json are at most 1 MiB each.

// PluginSchema is the $schema of an Agent Plugins 1.0.0 plugin.json, the
// one version this loader recognizes.
const PluginSchema = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"

// mcpSchema is the $schema of a 1.0.0 mcp.json.
const mcpSchema = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json"

// maxManifest bounds plugin.json and mcp.json; maxNotes the unknown
// fields noted one by one, and the MCP servers named.
const (
	maxManifest = 1 << 20
	maxNotes    = 10
)

// Plugin is a plugin.json that loaded.
type Plugin struct {
	Name, Version, Description string
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
	if schema != PluginSchema {
		return p, fmt.Errorf("%w: plugin.json targets %q; this server reads Agent Plugins 1.0.0 (%s)", ErrInvalidPlugin, store.Echo(schema), PluginSchema)
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
	var unknown []string
	for k := range m {
		switch k {
		case "$schema", "name", "version", "description", "author", "homepage", "repository", "license", "keywords", "extensions":
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
// starts none of them.
func mcpNotes(fsys fs.FS) []string {
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
	if json.Unmarshal(data, &c) != nil || c.Servers == nil || c.Schema != mcpSchema {
		return []string{"mcp.json is not a valid Agent Plugins 1.0.0 MCP configuration: MCP disabled for the plugin"}
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
		return nil, fmt.Errorf("%s is over %d bytes", name, maxManifest)
	}
	return data, err
}

// OpenPlugins opens the plugin in dir (a plugin.json at its root), or
// each plugin of a folder of plugins: a source of kind "plugin" per
// plugin, labelled with its name (label instead, if given, for a single
// plugin; label, a slash and the name in a folder of plugins), serving
// its skills/. Everything of a
// plugin is read through its own root (os.Root): a plugin.json or a
// skills location that resolves outside the plugin is refused, as §4.1
// asks. found is false when dir holds no plugin.
//
// A folder is a folder of plugins when some of its folders hold a
// plugin.json and none holds a SKILL.md (a folder of skills with a plugin
// among them stays a folder of skills, and the plugins are noted). A
// plugin refused as a whole (ErrInvalidPlugin) fails the call when dir is
// that plugin; in a folder of plugins it is noted, as is a second plugin
// of a name already served, and the others are served. Notes say what was
// reported and ignored, each prefixed with its plugin.
func OpenPlugins(dir, shown, label string) (srcs []store.Source, notes []string, found bool, err error) {
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return nil, nil, false, nil // the source's own opening says why
	case st.Mode().IsRegular():
		switch strings.ToLower(filepath.Ext(dir)) {
		case ".zip", ".skill":
			return archivePlugins(dir, shown, label)
		}
		return nil, nil, false, nil
	}
	return plugins(os.DirFS(dir), shown, label, func(name, shown string) (store.Source, []string, error) {
		return openPlugin(filepath.Join(dir, name), shown)
	})
}

// plugins is OpenPlugins over fsys, what a folder or an archive holds
// (links to folders followed at this level: the folder of plugins is no
// plugin's root), each plugin opened by open from its folder's name.
func plugins(fsys fs.FS, shown, label string, open func(name, shown string) (store.Source, []string, error)) ([]store.Source, []string, bool, error) {
	root, found, skills := layout(fsys)
	if root {
		src, n, err := open(".", shown)
		if err != nil {
			return nil, nil, true, err
		}
		if label != "" {
			src.Label = label
		}
		return []store.Source{src}, n, true, nil
	}
	switch {
	case len(found) == 0:
		return nil, nil, false, nil
	case skills:
		return nil, []string{fmt.Sprintf("%s holds skill folders and %d plugins: read as a folder of skills, its plugins left out", store.Echo(shown), len(found))}, false, nil
	}
	var srcs []store.Source
	var notes []string
	seen := map[string]bool{}
	for _, name := range found {
		src, n, err := open(name, shown+"/"+store.Echo(name))
		if err != nil {
			notes = append(notes, store.Echo(name)+": refused: "+err.Error())
			continue
		}
		if label != "" {
			src.Label = label + "/" + src.Label
		}
		if seen[src.Label] {
			src.Close()
			notes = append(notes, store.Echo(name)+": refused: another plugin of the folder is called "+src.Label)
			continue
		}
		seen[src.Label] = true
		srcs, notes = append(srcs, src), append(notes, n...)
	}
	return srcs, notes, true, nil
}

// layout says what fsys holds: a plugin at its root, else the folders
// that hold a plugin.json and no skill document, and whether some folder
// holds a skill document.
func layout(fsys fs.FS) (root bool, plugins []string, skills bool) {
	if _, err := fs.Stat(fsys, "plugin.json"); err == nil {
		return true, nil, false
	}
	ents, _ := fs.ReadDir(fsys, ".")
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if st, err := fs.Stat(fsys, e.Name()); err != nil || !st.IsDir() {
			continue
		}
		if hasDoc(fsys, e.Name()) {
			skills = true // a skill folder, even if it holds a plugin.json
		} else if _, err := fs.Stat(fsys, path.Join(e.Name(), "plugin.json")); err == nil {
			plugins = append(plugins, e.Name())
		}
	}
	return false, plugins, skills
}

// hasDoc reports whether folder dir of fsys holds a skill document under
// any name the store accepts.
func hasDoc(fsys fs.FS, dir string) bool {
	for _, n := range store.DocNames() {
		if _, err := fs.Stat(fsys, path.Join(dir, n)); err == nil {
			return true
		}
	}
	return false
}

// archivePlugins is OpenPlugins for a zip archive (the archive rules
// apply: no link, no path out of it): a plugin at its root, or a folder of
// plugins. Its sources share the archive, closed by the last one closed;
// each has the archive's revision (its SHA-256). Whether it holds any
// plugin is read from its directory alone: an archive of skills is not
// read whole here, only when it is opened as a source.
func archivePlugins(file, shown, label string) ([]store.Source, []string, bool, error) {
	zr, err := zip.OpenReader(file)
	if err != nil {
		return nil, nil, false, nil // not an archive this way: the source's own opening says why
	}
	root, found, _ := layout(zr)
	zr.Close()
	if !root && len(found) == 0 {
		return nil, nil, false, nil
	}
	a, err := OpenArchive(file, ArchiveOptions{})
	if err != nil {
		return nil, nil, false, nil
	}
	share := &sharedClose{c: a, n: 1} // this call's own hold, given back when it returns
	defer share.close()
	return plugins(a, shown, label, func(dir, shown string) (store.Source, []string, error) {
		root, err := fs.Sub(a, dir)
		if err != nil {
			return store.Source{}, nil, err
		}
		return loadPlugin(root, shown, func() (fs.FS, error) {
			sub, err := fs.Sub(a, path.Join(dir, "skills"))
			if err != nil {
				return nil, err
			}
			share.hold()
			return &archiveView{FS: sub, a: a, share: share}, nil
		})
	})
}

// archiveView is a folder of an archive as a source: the archive's
// revision, and a share of closing it.
type archiveView struct {
	fs.FS
	a      *ArchiveFS
	share  *sharedClose
	closed sync.Once
}

var (
	_ store.RevisionFS = (*archiveView)(nil)
	_ io.Closer        = (*archiveView)(nil)
)

func (v *archiveView) Revision() string { return v.a.Revision() }

// Close gives back the view's hold on the archive, once however often
// it is called.
func (v *archiveView) Close() (err error) {
	v.closed.Do(func() { err = v.share.close() })
	return err
}

// sharedClose closes c when the last of n holders closes it.
type sharedClose struct {
	mu sync.Mutex
	n  int
	c  io.Closer
}

func (s *sharedClose) hold() {
	s.mu.Lock()
	s.n++
	s.mu.Unlock()
}

func (s *sharedClose) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n--; s.n == 0 {
		return s.c.Close()
	}
	return nil
}

// openPlugin opens the plugin at dir, every path of it through its root.
func openPlugin(dir, shown string) (store.Source, []string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return store.Source{}, nil, fmt.Errorf("%w: its folder cannot be opened (%v)", ErrInvalidPlugin, pluginPathError(err))
	}
	defer root.Close() // the skills' LocalFS has a root of its own
	return loadPlugin(&LocalFS{root: root, fsys: root.FS()}, shown, func() (fs.FS, error) {
		sr, err := root.OpenRoot("skills") // through the root: what is opened is what was checked, or fails
		if err != nil {
			return nil, err
		}
		return &LocalFS{root: sr, fsys: sr.FS()}, nil
	})
}

// loadPlugin reads the plugin whose root is fsys (which confines reads
// to it): its manifest, its MCP servers (noted), and its skills location,
// opened by skills once checked.
func loadPlugin(fsys fs.FS, shown string, skills func() (fs.FS, error)) (store.Source, []string, error) {
	data, err := readSmallFile(fsys, "plugin.json")
	if err != nil {
		return store.Source{}, nil, fmt.Errorf("%w: plugin.json cannot be read (%v)", ErrInvalidPlugin, pluginPathError(err))
	}
	p, err := ParsePlugin(data)
	if err != nil {
		return store.Source{}, nil, err
	}
	notes := append(p.Notes, mcpNotes(fsys)...)
	for i := range notes {
		notes[i] = p.Name + ": " + notes[i]
	}
	src := store.Source{Label: p.Name, Location: shown, Kind: "plugin", FS: emptyFS{}, Conforming: true} // §7.1: skip a skill that breaks the specification
	st, err := fs.Stat(fsys, "skills")                                                                   // a link out of the plugin fails
	switch {
	case errors.Is(err, fs.ErrNotExist) && !errors.Is(err, store.ErrPathEscapes) && !errors.Is(escaped(err), store.ErrPathEscapes):
		return src, notes, nil // no skills location: not an error (§6.2)
	case err == nil && !st.IsDir():
		return src, append(notes, p.Name+": skills is not a folder: no skills"), nil
	}
	var sub fs.FS
	if err == nil {
		sub, err = skills()
	}
	if err != nil {
		// §4.1, §6.2: the component type is invalid; the plugin loads.
		return src, append(notes, p.Name+": its skills location cannot be used ("+pluginPathError(err).Error()+"): no skills"), nil
	}
	src.FS = sub
	return src, notes, nil
}

// pluginPathError says why a path of a plugin cannot be used, in the
// plugin's words.
func pluginPathError(err error) error {
	switch {
	case errors.Is(escaped(err), store.ErrPathEscapes):
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

// emptyFS is a source with nothing in it.
type emptyFS struct{}

func (emptyFS) Open(name string) (fs.File, error) {
	if name == "." {
		return fsdir.Open(".", nil), nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}
