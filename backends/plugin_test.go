package backends_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

const (
	schema   = `"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"`
	schema11 = `"$schema": "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json"`
)

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
		{"1.0.0 has no displayName", `{` + schema + `, "name": "p", "displayName": "P"}`, "", []string{`unknown field "displayName": ignored`}},
		{"the 1.1.0 full example", `{` + schema11 + `, "name": "plugin-name", "displayName": "Plugin Name", "icon": "./icon.png", "version": "1.2.0", "description": "Brief plugin description",
			"author": {"name": "Author Name", "email": "author@example.com", "url": "https://example.com"},
			"homepage": "https://docs.example.com/plugin", "repository": "https://github.com/example/plugin", "license": "MIT",
			"keywords": ["keyword1", "keyword2"], "extensions": {"com.example.client": {"setting": true}}}`, "", nil},
		{"1.1.0: an icon out of the plugin is ignored", `{` + schema11 + `, "name": "p", "icon": "../x.png"}`, "", []string{`icon "../x.png" is not a plugin-relative path inside the plugin: ignored`}},
		{"1.1.0: a remote icon is ignored", `{` + schema11 + `, "name": "p", "icon": "https://example.com/x.png"}`, "", []string{`icon "https://example.com/x.png" is not a plugin-relative path inside the plugin: ignored`}},
		{"1.1.0: an icon that is a number", `{` + schema11 + `, "name": "p", "icon": 1}`, `"icon" is not a string`, nil},
		{"1.1.0: a displayName that is an object", `{` + schema11 + `, "name": "p", "displayName": {}}`, `"displayName" is not a string`, nil},
		{"1.1.0: an unknown field", `{` + schema11 + `, "name": "p", "hooks": 1}`, "", []string{`unknown field "hooks": ignored`}},
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

// pluginCatalog serves fsys as the CLI does, with Agent Plugins found by
// backends.Plugins, and returns the store, its catalog and its log.
func pluginCatalog(t *testing.T, fsys fs.FS) (*store.Store, *store.Catalog, string) {
	t.Helper()
	log, buf := testutil.TextLog()
	s, err := store.New([]store.Source{{Label: "team", Location: "plugins", FS: fsys, Grouper: backends.Plugins}}, store.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.View(nil).Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s, c, buf.String()
}

// names lists a catalog's skills, and its problems as FOLDER!MESSAGE.
func names(c *store.Catalog) (skills []string, problems []string) {
	for _, sk := range c.Skills {
		skills = append(skills, sk.Name)
	}
	for _, p := range c.Problems {
		problems = append(problems, p.Skill+"!"+p.Message)
	}
	return skills, problems
}

// TestPlugins: a plugin folder, and a folder of plugins (beside skills),
// serve their skills/ as PLUGIN:SKILL; MCP servers and unknown fields are
// reported, not acted on; a plugin whose plugin.json is invalid, linked
// out or a second of its name is refused alone, saying why; a skills
// folder that leaves the plugin leaves it without skills (§4.1, §6.2); a
// plugin's skill that breaks the specification is left out (§7.1).
func TestPlugins(t *testing.T) {
	doc := "---\nname: deploy\ndescription: Deploy.\n---\nSteps.\n"
	dir := testutil.TempTree(t, map[string][]byte{
		"good/plugin.json":              []byte(`{` + schema + `, "name": "acme.deploy", "hooks": 1}`),
		"good/skills/deploy/SKILL.md":   []byte(doc),
		"good/skills/deploy/run.sh":     []byte("echo\n"),
		"good/skills/nested/a/SKILL.md": []byte(doc), // not an immediate child: not a skill (§7.1)
		"good/skills/wrong/SKILL.md":    []byte(doc), // its name is not its folder's: left out (§7.1)
		"good/mcp.json":                 []byte(`{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {"db": {"type": "stdio", "command": "./bin/db"}}}`),
		"bad/plugin.json":               []byte(`{` + schema + `, "name": "Bad"}`),
		"bad/skills/x/SKILL.md":         []byte(doc),
		"noskills/plugin.json":          []byte(`{` + schema + `, "name": "noskills"}`),
		"fileskills/plugin.json":        []byte(`{` + schema + `, "name": "fileskills"}`),
		"fileskills/skills":             []byte("not a folder"),
		"escape/plugin.json":            []byte(`{` + schema + `, "name": "escape"}`),
		"twin/plugin.json":              []byte(`{` + schema + `, "name": "twin"}`),
		"twin/skills/deploy/SKILL.md":   []byte(doc),
		"twin2/plugin.json":             []byte(`{` + schema + `, "name": "twin"}`),
		"twin2/skills/deploy/SKILL.md":  []byte(doc),
		"deploy/SKILL.md":               []byte(doc), // a skill beside the plugins
		"newer/plugin.json":             []byte(`{` + schema11 + `, "name": "newer", "displayName": "Newer"}`),
		"newer/mcp.json":                []byte(`{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {}}`),
		"newer/skills/old/skill.md":     []byte("---\nname: old\ndescription: Spelled the old way.\n---\n"),
		"linked/skills/s/SKILL.md":      []byte(doc),
		"elsewhere.json":                []byte(`{` + schema + `, "name": "linked"}`),
	})
	if err := os.Symlink("../good/skills", filepath.Join(dir, "escape", "skills")); err != nil { // inside the source, outside the plugin
		t.Fatal(err)
	}
	if err := os.Symlink("../elsewhere.json", filepath.Join(dir, "linked", "plugin.json")); err != nil {
		t.Fatal(err)
	}
	// A skill folder linked to another plugin's, or a file linked to
	// one: inside the source, outside the plugin (§4.1).
	writeTree(t, dir, map[string][]byte{"evil/plugin.json": []byte(`{` + schema + `, "name": "evil"}`), "evil/skills/own/SKILL.md": []byte(strings.ReplaceAll(doc, "deploy", "own"))})
	if err := os.Symlink("../../good/skills/deploy", filepath.Join(dir, "evil", "skills", "deploy")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../../good/skills/deploy/run.sh", filepath.Join(dir, "evil", "skills", "own", "run.sh")); err != nil {
		t.Fatal(err)
	}
	// Links to files where folders are looked for: no skill, no plugin,
	// and no outage.
	if err := os.Symlink("deploy/SKILL.md", filepath.Join(dir, "NOTES.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("own/SKILL.md", filepath.Join(dir, "evil", "skills", "asfile")); err != nil {
		t.Fatal(err)
	}
	l, err := backends.OpenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s, c, log := pluginCatalog(t, l)
	skills, problems := names(c)
	if got := strings.Join(skills, ","); got != "acme.deploy:deploy,deploy,evil:own,twin:deploy" {
		t.Errorf("served %s", got)
	}
	for _, want := range []string{
		`bad!skill is invalid: invalid plugin: the plugin name "Bad" breaks §5.5`,
		"linked!skill is invalid: invalid plugin: plugin.json cannot be read (it resolves outside the plugin folder)",
		"twin2!skill is invalid: the folder twin holds a group of the same name, twin, which is served instead",
		"acme.deploy:wrong!skill is invalid: it breaks the Agent Skills specification",
		"evil:deploy!path escapes skill folder",
		"newer:old!skill is invalid: it breaks the Agent Skills specification: SKILL.md",
	} {
		if !strings.Contains(strings.Join(problems, "\n"), want) {
			t.Errorf("no problem %q in\n%s", want, strings.Join(problems, "\n"))
		}
	}
	if all := strings.Join(problems, "\n") + log; strings.Contains(all, "unavailable") || strings.Contains(all, dir) || strings.Contains(all, "asfile") {
		t.Errorf("problems and log:\n%s\n%s", strings.Join(problems, "\n"), log)
	}
	for _, want := range []string{`acme.deploy: unknown field \"hooks\": ignored`, "acme.deploy: MCP servers db: not started",
		"escape: its skills location cannot be used (it resolves outside the plugin folder): no skills", "fileskills: skills is not a folder: no skills",
		"newer: mcp.json is not a valid Agent Plugins 1.1.0 MCP configuration (the plugin.json's version): MCP disabled for the plugin"} {
		if !strings.Contains(log, want) {
			t.Errorf("no note %q in the log:\n%s", want, log)
		}
	}
	sk, err := s.View(nil).Skill(context.Background(), "acme.deploy:deploy")
	if err != nil || sk.Folder() != "good/skills/deploy" {
		t.Fatalf("%v %v", sk, err)
	}
	if f, err := s.View(nil).ReadFile(context.Background(), "acme.deploy:deploy", "run.sh", nil); err != nil || f.Text != "echo\n" {
		t.Errorf("run.sh: %+v %v", f, err)
	}
	if _, err := s.View(nil).ReadFile(context.Background(), "acme.deploy:deploy", "../../plugin.json", nil); !errors.Is(err, store.ErrPathEscapes) {
		t.Errorf("a path out of the skill: %v", err)
	}
	if _, err := s.View(nil).ReadFile(context.Background(), "evil:own", "run.sh", nil); err == nil {
		t.Error("a plugin's skill read another plugin's file through a link")
	}
	if files, err := s.View(nil).Files(context.Background(), "evil:own", nil); err != nil || len(files) != 1 {
		t.Errorf("evil:own's files: %v %v", files, err)
	}

	// The source's root is a plugin.
	_, c, _ = pluginCatalog(t, os.DirFS(filepath.Join(dir, "good")))
	if skills, _ := names(c); strings.Join(skills, ",") != "acme.deploy:deploy" {
		t.Errorf("one plugin: %v", skills)
	}
	_, c, _ = pluginCatalog(t, os.DirFS(filepath.Join(dir, "bad")))
	if skills, problems := names(c); len(skills) != 0 || len(problems) != 1 || !strings.Contains(problems[0], "§5.5") {
		t.Errorf("one refused plugin: %v %v", skills, problems)
	}
}

// TestPluginsInArchives: a plugin, or a folder of plugins, in a zip
// archive is served as from a folder, with the archive's revision.
func TestPluginsInArchives(t *testing.T) {
	doc := "---\nname: deploy\ndescription: Deploy.\n---\nSteps.\n"
	open := func(files map[string][]byte) *backends.ArchiveFS {
		z := testutil.Zip(t, files)
		a, err := backends.NewArchive(bytes.NewReader(z), int64(len(z)), backends.ArchiveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	s, c, log := pluginCatalog(t, open(map[string][]byte{
		"plugin.json":            []byte(`{` + schema + `, "name": "zipped", "extra": 1}`),
		"skills/deploy/SKILL.md": []byte(doc),
		"skills/deploy/run.sh":   []byte("echo\n"),
	}))
	if skills, _ := names(c); strings.Join(skills, ",") != "zipped:deploy" || !strings.Contains(log, `unknown field \"extra\"`) {
		t.Fatalf("one plugin: %v\n%s", skills, log)
	}
	if f, err := s.View(nil).ReadFile(context.Background(), "zipped:deploy", "run.sh", nil); err != nil || f.Text != "echo\n" || !strings.HasPrefix(f.Skill.Revision(), "sha256:") {
		t.Errorf("run.sh: %+v %v", f, err)
	}
	_, c, _ = pluginCatalog(t, open(map[string][]byte{
		"a/plugin.json":            []byte(`{` + schema + `, "name": "a"}`),
		"a/skills/deploy/SKILL.md": []byte(doc),
		"b/plugin.json":            []byte(`{` + schema + `, "name": "b"}`),
		"b/skills/deploy/SKILL.md": []byte(doc),
		"c/plugin.json":            []byte(`{` + schema + `, "name": "NOT valid"}`),
		"old/skill.md":             []byte("---\nname: old\ndescription: Old.\n---\n"),
	}))
	skills, problems := names(c)
	if strings.Join(skills, ",") != "a:deploy,b:deploy,old" || len(problems) != 1 || !strings.HasPrefix(problems[0], "c!") {
		t.Errorf("a folder of plugins: %v %v", skills, problems)
	}
}

// countingFS counts the reads of the plugin.json files of fsys (a file
// opened and read) and their Stats; with rev set, it is a snapshot that
// names its revision (store.RevisionFS).
type countingFS struct {
	fsys         fs.FS
	reads, stats atomic.Int64
}

func (c *countingFS) Open(name string) (fs.File, error) {
	f, err := c.fsys.Open(name)
	if err != nil || path.Base(name) != "plugin.json" {
		return f, err
	}
	return &countedFile{File: f, reads: &c.reads}, nil
}

func (c *countingFS) Stat(name string) (fs.FileInfo, error) {
	if path.Base(name) == "plugin.json" {
		c.stats.Add(1)
	}
	return fs.Stat(c.fsys, name)
}

// countedFile counts its first Read.
type countedFile struct {
	fs.File
	reads *atomic.Int64
	read  bool
}

func (f *countedFile) Read(p []byte) (int, error) {
	if !f.read {
		f.read = true
		f.reads.Add(1)
	}
	return f.File.Read(p)
}

type revisionFS struct{ *countingFS }

func (revisionFS) Revision() string { return "v1" }

// TestPluginsReadOnce: a listing reads and parses a plugin's plugin.json
// (and mcp.json) only when it changed since the last one: an idle refresh
// of 3 plugins reads none (a Stat of each plugin.json, and of the root's
// absent one, or none on a snapshot naming its revision), and a plugin.json changed, an mcp.json
// added or a skills folder made are found at the next refresh.
func TestPluginsReadOnce(t *testing.T) {
	manifest := func(name string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(`{` + schema + `, "name": "` + name + `"}`)}
	}
	doc := func(name string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: Does it.\n---\n")}
	}
	for _, c := range []struct {
		name      string
		revision  bool
		idleStats int64 // Stats of plugin.json an idle refresh costs: each plugin's, and the root's (none there)
	}{{"a folder", false, 4}, {"a snapshot with a revision", true, 0}} {
		t.Run(c.name, func(t *testing.T) {
			m := fstest.MapFS{
				"a/plugin.json":            manifest("a"),
				"a/skills/deploy/SKILL.md": doc("deploy"),
				"b/plugin.json":            manifest("b"),
				"b/skills/review/SKILL.md": doc("review"),
				"c/plugin.json":            manifest("c"),
				"c/later/x/SKILL.md":       doc("x"),
				"plain/SKILL.md":           doc("plain"),
			}
			cfs := &countingFS{fsys: m}
			var fsys fs.FS = cfs
			if c.revision {
				fsys = revisionFS{cfs}
			}
			log, buf := testutil.TextLog()
			s, err := store.New([]store.Source{{Label: "team", FS: fsys, Grouper: backends.Plugins}}, store.Options{Logger: log})
			if err != nil {
				t.Fatal(err)
			}
			cat, err := s.View(nil).Catalog(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := names(cat); strings.Join(got, ",") != "a:deploy,b:review,plain" {
				t.Fatalf("served %v\n%s", got, buf)
			}
			if n := cfs.reads.Load(); n != 3 {
				t.Fatalf("the first listing read plugin.json %d times; want 3", n)
			}
			for range 3 {
				stats := cfs.stats.Load()
				if _, err := s.Refresh(context.Background()); err != nil {
					t.Fatal(err)
				}
				if n := cfs.reads.Load(); n != 3 {
					t.Fatalf("idle refreshes read plugin.json %d times in all; want the first listing's 3", n-3)
				}
				if n := cfs.stats.Load() - stats; n != c.idleStats {
					t.Errorf("an idle refresh stated plugin.json %d times; want %d", n, c.idleStats)
				}
			}
			if c.revision {
				return // a revision's files do not change
			}
			m["a/plugin.json"] = manifest("renamed")
			m["b/mcp.json"] = &fstest.MapFile{Data: []byte(`{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {"db": {}}}`)}
			m["c/skills/x/SKILL.md"] = doc("x")
			ch, err := s.Refresh(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(ch.Added, ","); got != "c:x,renamed:deploy" {
				t.Errorf("added %s; want c:x,renamed:deploy", got)
			}
			if n := cfs.reads.Load(); n != 6 {
				t.Errorf("after three plugins changed, plugin.json was read %d times in all; want 6", n)
			}
			if !strings.Contains(buf.String(), "b: MCP servers db: not started") {
				t.Errorf("mcp.json added: no note in\n%s", buf)
			}
		})
	}
}
