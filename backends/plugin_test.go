package backends_test

import (
	"archive/zip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/testutil"
)

const schema = `"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"`

// TestParsePlugin: plugin.json as the Agent Plugins 1.0.0 specification
// reads it: its own examples load; unknown fields and a non-object
// extensions are reported and ignored (§5.2, §8.1); every other
// violation refuses the plugin, naming the field (§5.3–§5.5).
func TestParsePlugin(t *testing.T) {
	for _, c := range []struct {
		name, json string
		fatal      string // in the error; "" if it loads
		notes      []string
	}{
		{"the minimal example", `{` + schema + `, "name": "minimal-plugin"}`, "", nil},
		{"the full example", `{` + schema + `, "name": "plugin-name", "version": "1.2.0", "description": "Brief plugin description",
			"author": {"name": "Author Name", "email": "author@example.com", "url": "https://example.com"},
			"homepage": "https://docs.example.com/plugin", "repository": "https://github.com/example/plugin", "license": "MIT",
			"keywords": ["keyword1", "keyword2"], "extensions": {"com.example.client": {"setting": true}}}`, "", nil},
		{"valid names", `{` + schema + `, "name": "acme.tools"}`, "", nil},
		{"a one-letter name", `{` + schema + `, "name": "a"}`, "", nil},
		{"semver is not required", `{` + schema + `, "name": "p", "version": "banana", "homepage": "not a url", "license": "whatever"}`, "", nil},
		{"an unknown field", `{` + schema + `, "name": "p", "hooks": {}, "commands": []}`, "", []string{`unknown field "commands": ignored`, `unknown field "hooks": ignored`}},
		{"extensions not an object", `{` + schema + `, "name": "p", "extensions": [1]}`, "", []string{`"extensions" is not an object: ignored`}},
		{"not an object", `[1]`, "not a JSON object", nil},
		{"not JSON", `{`, "not a JSON object", nil},
		{"no $schema", `{"name": "p"}`, `no "$schema"`, nil},
		{"another version", `{"$schema": "https://agent-plugins.org/schemas/2.0.0/plugin.schema.json", "name": "p"}`, "targets", nil},
		{"no name", `{` + schema + `}`, `no "name"`, nil},
		{"an empty name", `{` + schema + `, "name": ""}`, `"name" is empty`, nil},
		{"a name that is a number", `{` + schema + `, "name": 7}`, `"name" is not a string`, nil},
		{"uppercase", `{` + schema + `, "name": "My-Plugin"}`, "§5.5", nil},
		{"a leading hyphen", `{` + schema + `, "name": "-start"}`, "§5.5", nil},
		{"consecutive hyphens", `{` + schema + `, "name": "has--double"}`, "§5.5", nil},
		{"consecutive periods", `{` + schema + `, "name": "too.many..dots"}`, "§5.5", nil},
		{"65 characters", `{` + schema + `, "name": "` + strings.Repeat("a", 65) + `"}`, "§5.5", nil},
		{"an author with another field", `{` + schema + `, "name": "p", "author": {"name": "x", "twitter": "y"}}`, `"twitter"`, nil},
		{"an author that is a string", `{` + schema + `, "name": "p", "author": "x"}`, `"author" is not an object`, nil},
		{"an author's name that is a number", `{` + schema + `, "name": "p", "author": {"name": 1}}`, `"author.name" is not a string`, nil},
		{"keywords with a number", `{` + schema + `, "name": "p", "keywords": ["a", 1]}`, `"keywords"`, nil},
		{"keywords with null", `{` + schema + `, "name": "p", "keywords": ["a", null]}`, `"keywords"`, nil},
		{"an extension that is not an object", `{` + schema + `, "name": "p", "extensions": {"com.x": 1}}`, `"extensions" member "com.x"`, nil},
		{"many unknown fields", `{` + schema + `, "name": "p", "a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1, "g": 1, "h": 1, "i": 1, "j": 1, "k": 1, "l": 1}`, "", []string{
			`unknown field "a": ignored`, `unknown field "b": ignored`, `unknown field "c": ignored`, `unknown field "d": ignored`, `unknown field "e": ignored`,
			`unknown field "f": ignored`, `unknown field "g": ignored`, `unknown field "h": ignored`, `unknown field "i": ignored`, `unknown field "j": ignored`, "2 more unknown fields: ignored"}},
		{"a version that is null", `{` + schema + `, "name": "p", "version": null}`, `"version" is not a string`, nil},
	} {
		p, err := backends.ParsePlugin([]byte(c.json))
		switch {
		case c.fatal == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.fatal != "" && (!errors.Is(err, backends.ErrInvalidPlugin) || !strings.Contains(err.Error(), c.fatal)):
			t.Errorf("%s: %v, want %q", c.name, err, c.fatal)
		case c.fatal == "" && strings.Join(p.Notes, "|") != strings.Join(c.notes, "|"):
			t.Errorf("%s: notes %q, want %q", c.name, p.Notes, c.notes)
		}
	}
}

// TestOpenPlugins: a plugin folder, and a folder of plugins, serve their
// skills/ as a source each, labelled with the plugin's name; MCP servers
// are reported, not started; a plugin whose skills folder leaves it, or
// whose plugin.json is invalid, is refused (alone, in a folder of
// plugins); a folder without plugin.json is not a plugin.
func TestOpenPlugins(t *testing.T) {
	doc := "---\nname: deploy\ndescription: Deploy.\n---\nSteps.\n"
	dir := testutil.TempTree(t, map[string][]byte{
		"good/plugin.json":              []byte(`{` + schema + `, "name": "acme.deploy", "hooks": 1}`),
		"good/skills/deploy/SKILL.md":   []byte(doc),
		"good/skills/deploy/run.sh":     []byte("echo\n"),
		"good/skills/nested/a/SKILL.md": []byte(doc), // not an immediate child: not a skill (§7.1)
		"good/mcp.json":                 []byte(`{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {"db": {"type": "stdio", "command": "./bin/db"}}}`),
		"bad/plugin.json":               []byte(`{` + schema + `, "name": "Bad"}`),
		"bad/skills/x/SKILL.md":         []byte(doc),
		"noskills/plugin.json":          []byte(`{` + schema + `, "name": "noskills"}`),
		"fileskills/plugin.json":        []byte(`{` + schema + `, "name": "fileskills"}`),
		"fileskills/skills":             []byte("not a folder"),
		"escape/plugin.json":            []byte(`{` + schema + `, "name": "escape"}`),
		"twin/plugin.json":              []byte(`{` + schema + `, "name": "twin"}`),
		"twin2/plugin.json":             []byte(`{` + schema + `, "name": "twin"}`),
	})
	outside := testutil.TempTree(t, map[string][]byte{"SKILL.md": []byte(doc)}) // not in the plugin
	if err := os.Symlink(outside, filepath.Join(dir, "escape", "skills")); err != nil {
		t.Fatal(err)
	}

	srcs, notes, found, err := backends.OpenPlugins(filepath.Join(dir, "good"), "good", "")
	if err != nil || !found || len(srcs) != 1 {
		t.Fatalf("one plugin: %v %v %v", srcs, found, err)
	}
	if s := srcs[0]; s.Label != "acme.deploy" || s.Kind != "plugin" {
		t.Errorf("source %+v", s)
	}
	if !srcs[0].Conforming {
		t.Error("a plugin's source serves skills that break the specification (§7.1)")
	}
	if _, err := fs.Stat(srcs[0].FS, "nested/a/SKILL.md"); err != nil {
		t.Errorf("the nested folder is in the source: %v", err) // the store, listing immediate children, finds no skill in it
	}
	if b, err := fs.ReadFile(srcs[0].FS, "deploy/run.sh"); err != nil || string(b) != "echo\n" {
		t.Errorf("deploy/run.sh: %q %v", b, err)
	}
	if got := strings.Join(notes, "|"); !strings.Contains(got, `acme.deploy: unknown field "hooks": ignored`) || !strings.Contains(got, "MCP servers db: not started") {
		t.Errorf("notes %q", notes)
	}
	srcs[0].Close()

	if _, _, found, err := backends.OpenPlugins(filepath.Join(dir, "bad"), "bad", ""); !found || !errors.Is(err, backends.ErrInvalidPlugin) {
		t.Errorf("an invalid plugin: %v %v", found, err)
	}
	// A skills location out of the plugin: that component type is
	// invalid, the plugin loads with no skills (§4.1, §6.2).
	srcs, notes, found, err = backends.OpenPlugins(filepath.Join(dir, "escape"), "escape", "mine")
	if err != nil || !found || len(srcs) != 1 || srcs[0].Label != "mine" || !strings.Contains(strings.Join(notes, "|"), "resolves outside the plugin folder") {
		t.Errorf("skills out of the plugin: %v %v %q", found, err, notes)
	} else if ents, _ := fs.ReadDir(srcs[0].FS, "."); len(ents) != 0 {
		t.Errorf("skills out of the plugin serve %v", ents)
	}
	if _, _, found, err := backends.OpenPlugins(outside, "outside", ""); found || err != nil {
		t.Errorf("not a plugin: %v %v", found, err)
	}

	srcs, notes, found, err = backends.OpenPlugins(dir, "all", "")
	if err != nil || !found {
		t.Fatal(found, err)
	}
	var labels []string
	for _, s := range srcs {
		labels = append(labels, s.Label)
		s.Close()
	}
	if got := strings.Join(labels, ","); got != "escape,fileskills,acme.deploy,noskills,twin" {
		t.Errorf("a folder of plugins: %s", got)
	}
	if got := strings.Join(notes, "|"); !strings.Contains(got, "bad: refused:") || !strings.Contains(got, "twin2: refused: another plugin of the folder is called twin") ||
		!strings.Contains(got, "fileskills: skills is not a folder: no skills") {
		t.Errorf("notes %q", notes)
	}
	srcs, _, _, _ = backends.OpenPlugins(dir, "all", "team")
	if srcs[0].Label != "team/escape" {
		t.Errorf("a folder of plugins under a label: %q", srcs[0].Label)
	}
	for _, s := range srcs {
		s.Close()
	}

	// A folder of skills with a plugin among them stays a folder of
	// skills, and says so.
	mixed := testutil.TempTree(t, map[string][]byte{
		"alpha/SKILL.md":          []byte(doc),
		"beta/SKILL.md":           []byte(doc),
		"beta/plugin.json":        []byte(`{` + schema + `, "name": "beta"}`), // a skill folder, whatever else it holds
		"gamma/plugin.json":       []byte(`{` + schema + `, "name": "gamma"}`),
		"gamma/skills/g/SKILL.md": []byte(doc),
	})
	if srcs, notes, found, err := backends.OpenPlugins(mixed, "mixed", ""); found || err != nil || len(srcs) != 0 || !strings.Contains(strings.Join(notes, "|"), "read as a folder of skills") {
		t.Errorf("a mixed folder: %v %v %v %q", srcs, found, err, notes)
	}
	// A plugin.json out of the plugin, or not a regular file: refused.
	out := testutil.TempTree(t, map[string][]byte{"elsewhere.json": []byte(`{` + schema + `, "name": "x"}`), "p/skills/s/SKILL.md": []byte(doc)})
	os.Symlink(filepath.Join(out, "elsewhere.json"), filepath.Join(out, "p", "plugin.json"))
	if _, _, found, err := backends.OpenPlugins(filepath.Join(out, "p"), "p", ""); !found || !errors.Is(err, backends.ErrInvalidPlugin) || !strings.Contains(err.Error(), "outside the plugin folder") {
		t.Errorf("a plugin.json linked out: %v %v", found, err)
	}
}

// writeZip writes files to a zip archive in a temporary folder.
func writeZip(t *testing.T, name string, files map[string]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for n, body := range files {
		w, _ := zw.Create(n)
		w.Write([]byte(body))
	}
	zw.Close()
	f.Close()
	return p
}

// TestArchivePlugins: a plugin, or a folder of plugins, in a zip archive
// is served as from a folder, with the archive's revision; the archive is
// closed with the last of its sources.
func TestArchivePlugins(t *testing.T) {
	doc := "---\nname: deploy\ndescription: Deploy.\n---\nSteps.\n"
	one := writeZip(t, "one.zip", map[string]string{
		"plugin.json":            `{` + schema + `, "name": "zipped", "extra": 1}`,
		"skills/deploy/SKILL.md": doc,
		"skills/deploy/run.sh":   "echo\n",
	})
	srcs, notes, found, err := backends.OpenPlugins(one, "one.zip", "")
	if err != nil || !found || len(srcs) != 1 || srcs[0].Label != "zipped" || !strings.Contains(strings.Join(notes, "|"), `unknown field "extra"`) {
		t.Fatalf("one plugin: %v %v %v %q", srcs, found, err, notes)
	}
	if b, err := fs.ReadFile(srcs[0].FS, "deploy/run.sh"); err != nil || string(b) != "echo\n" {
		t.Errorf("deploy/run.sh: %q %v", b, err)
	}
	if rev := srcs[0].FS.(interface{ Revision() string }).Revision(); !strings.HasPrefix(rev, "sha256:") {
		t.Errorf("revision %q", rev)
	}
	srcs[0].Close()

	many := writeZip(t, "many.zip", map[string]string{
		"a/plugin.json":            `{` + schema + `, "name": "a"}`,
		"a/skills/deploy/SKILL.md": doc,
		"b/plugin.json":            `{` + schema + `, "name": "b"}`,
		"b/skills/deploy/SKILL.md": doc,
		"c/plugin.json":            `{` + schema + `, "name": "NOT valid"}`,
	})
	srcs, notes, found, err = backends.OpenPlugins(many, "many.zip", "team")
	if err != nil || !found || len(srcs) != 2 || srcs[0].Label != "team/a" || srcs[1].Label != "team/b" || !strings.Contains(strings.Join(notes, "|"), "c: refused") {
		t.Fatalf("a folder of plugins: %v %v %v %q", srcs, found, err, notes)
	}
	for _, s := range srcs {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}
	if _, err := fs.ReadFile(srcs[0].FS, "deploy/SKILL.md"); err == nil {
		t.Error("the archive is still open after its last source closed")
	}

	skills := writeZip(t, "skills.zip", map[string]string{"deploy/SKILL.md": doc})
	if _, _, found, err := backends.OpenPlugins(skills, "skills.zip", ""); found || err != nil {
		t.Errorf("a zip of skills: %v %v", found, err)
	}
}

// TestArchivePluginsShared: a duplicate refused while a zip's plugins are
// opened does not close the archive under the others; a source closed
// twice gives back its hold once.
func TestArchivePluginsShared(t *testing.T) {
	doc := "---\nname: deploy\ndescription: Deploy.\n---\nSteps.\n"
	z := writeZip(t, "dups.zip", map[string]string{
		"a/plugin.json":            `{` + schema + `, "name": "x"}`,
		"b/plugin.json":            `{` + schema + `, "name": "x"}`,
		"b/skills/deploy/SKILL.md": doc,
		"c/plugin.json":            `{` + schema + `, "name": "y"}`,
		"c/skills/deploy/SKILL.md": doc,
		"d/plugin.json":            `{` + schema + `, "name": "z"}`,
		"d/skills/deploy/SKILL.md": doc,
	})
	srcs, notes, _, err := backends.OpenPlugins(z, "dups.zip", "")
	if err != nil || len(srcs) != 3 || srcs[1].Label != "y" || srcs[2].Label != "z" || !strings.Contains(strings.Join(notes, "|"), "b: refused: another plugin of the folder is called x") {
		t.Fatalf("%v %v %q", srcs, err, notes)
	}
	srcs[1].Close()
	srcs[1].Close()
	if b, err := fs.ReadFile(srcs[2].FS, "deploy/SKILL.md"); err != nil || string(b) != doc {
		t.Errorf("after its sibling closed twice: %q %v", b, err)
	}
	srcs[0].Close()
	srcs[2].Close()
}

// TestPluginsBesideOldSkills: a skill folder whose document is spelled
// skill.md still makes its folder a folder of skills.
func TestPluginsBesideOldSkills(t *testing.T) {
	dir := testutil.TempTree(t, map[string][]byte{
		"old/skill.md":  []byte("---\nname: old\ndescription: Old.\n---\n"),
		"p/plugin.json": []byte(`{` + schema + `, "name": "p"}`),
	})
	if srcs, notes, found, err := backends.OpenPlugins(dir, "dir", ""); found || err != nil || len(srcs) != 0 || len(notes) != 1 {
		t.Errorf("%v %v %v %q", srcs, found, err, notes)
	}
	z := writeZip(t, "mixed.zip", map[string]string{"old/SKILL.MD": "x", "p/plugin.json": `{` + schema + `, "name": "p"}`})
	if srcs, notes, found, err := backends.OpenPlugins(z, "mixed.zip", ""); found || err != nil || len(srcs) != 0 || len(notes) != 1 {
		t.Errorf("a zip: %v %v %v %q", srcs, found, err, notes)
	}
}
