package backends_test

import (
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
		"outside/SKILL.md":              []byte(doc),
		"escape/plugin.json":            []byte(`{` + schema + `, "name": "escape"}`),
	})
	if err := os.Symlink(filepath.Join(dir, "outside"), filepath.Join(dir, "escape", "skills")); err != nil {
		t.Fatal(err)
	}

	srcs, notes, found, err := backends.OpenPlugins(filepath.Join(dir, "good"), "good")
	if err != nil || !found || len(srcs) != 1 {
		t.Fatalf("one plugin: %v %v %v", srcs, found, err)
	}
	if s := srcs[0]; s.Label != "acme.deploy" || s.Kind != "plugin" {
		t.Errorf("source %+v", s)
	}
	if b, err := fs.ReadFile(srcs[0].FS, "deploy/run.sh"); err != nil || string(b) != "echo\n" {
		t.Errorf("deploy/run.sh: %q %v", b, err)
	}
	if got := strings.Join(notes, "|"); !strings.Contains(got, `acme.deploy: unknown field "hooks": ignored`) || !strings.Contains(got, "MCP servers db: not started") {
		t.Errorf("notes %q", notes)
	}
	srcs[0].Close()

	if _, _, found, err := backends.OpenPlugins(filepath.Join(dir, "bad"), "bad"); !found || !errors.Is(err, backends.ErrInvalidPlugin) {
		t.Errorf("an invalid plugin: %v %v", found, err)
	}
	if _, _, found, err := backends.OpenPlugins(filepath.Join(dir, "escape"), "escape"); !found || err == nil || !strings.Contains(err.Error(), "outside the plugin") {
		t.Errorf("skills out of the plugin: %v %v", found, err)
	}
	if _, _, found, err := backends.OpenPlugins(filepath.Join(dir, "outside"), "outside"); found || err != nil {
		t.Errorf("not a plugin: %v %v", found, err)
	}

	srcs, notes, found, err = backends.OpenPlugins(dir, "all")
	if err != nil || !found {
		t.Fatal(found, err)
	}
	var labels []string
	for _, s := range srcs {
		labels = append(labels, s.Label)
		s.Close()
	}
	if got := strings.Join(labels, ","); got != "fileskills,acme.deploy,noskills" {
		t.Errorf("a folder of plugins: %s", got)
	}
	if got := strings.Join(notes, "|"); !strings.Contains(got, "bad: refused:") || !strings.Contains(got, "escape: refused:") || !strings.Contains(got, "fileskills: skills is not a folder") {
		t.Errorf("notes %q", notes)
	}
}
