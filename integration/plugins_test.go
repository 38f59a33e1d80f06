package integration

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/gittest"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/tools"
)

// The Agent Plugins 1.0.0 tests: plugins found by the built binary in a
// local folder, a real git repository (git http-backend) and a real OCI
// registry (distribution), their skills named PLUGIN:SKILL and served at
// skill://PLUGIN/SKILL/…, byte for byte, over the pages and over MCP.

const pluginSchemaURL = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"

// pluginManifest is a plugin.json naming the plugin name, with the extra
// members extra (`"k":v,…`, or "").
func pluginManifest(name, extra string) []byte {
	if extra != "" {
		extra = "," + extra
	}
	return []byte(`{"$schema":"` + pluginSchemaURL + `","name":"` + name + `","version":"1.0.0"` + extra + "}\n")
}

// pluginSkill is a SKILL.md whose frontmatter names name, saying body.
func pluginSkill(name, body string) []byte {
	return []byte("---\nname: " + name + "\ndescription: " + body + "\n---\n# " + body + "\n")
}

// twoPlugins is a folder of two plugins, a and b, each with a skill
// called deploy (different texts), a's with a supporting file and an
// mcp.json, b's manifest with an unknown field and a skill whose
// frontmatter name is not its folder's (left out). It returns the tree
// (path → bytes) and what must be served (PLUGIN:SKILL/FILE → bytes).
func twoPlugins() (tree, want map[string][]byte) {
	tree = map[string][]byte{
		"a/plugin.json":                  pluginManifest("a", ""),
		"a/mcp.json":                     []byte(`{"$schema":"https://agent-plugins.org/schemas/1.0.0/mcp.schema.json","mcpServers":{"db":{"command":"db-server"}}}`),
		"a/skills/deploy/SKILL.md":       pluginSkill("deploy", "Deploy with plugin A."),
		"a/skills/deploy/scripts/run.sh": []byte("#!/bin/sh\necho deploying with a\n"),
		"b/plugin.json":                  pluginManifest("b", `"hooks":{}`),
		"b/skills/deploy/SKILL.md":       pluginSkill("deploy", "Deploy with plugin B, differently."),
		"b/skills/misnamed/SKILL.md":     pluginSkill("other", "Breaks the specification."),
	}
	want = map[string][]byte{
		"a:deploy/SKILL.md":       tree["a/skills/deploy/SKILL.md"],
		"a:deploy/scripts/run.sh": tree["a/skills/deploy/scripts/run.sh"],
		"b:deploy/SKILL.md":       tree["b/skills/deploy/SKILL.md"],
	}
	return tree, want
}

// TestPluginSources serves plugins from a folder, from a git repository
// whose commits change its plugins (followed on refresh), and from an OCI
// artifact, and lists them with their qualified names.
func TestPluginSources(t *testing.T) {
	tree, want := twoPlugins()
	absent := []string{"b:misnamed", "b:other", "deploy", "misnamed"}

	t.Run("folder", func(t *testing.T) {
		dir := testutil.TempTree(t, tree)
		out, errOut, err := run(t, t.TempDir(), binary, "list", "--source", "team="+dir)
		if err != nil || !regexp.MustCompile(`(?m)^a:deploy\s+team\s+Deploy with plugin A\.$`).MatchString(out) ||
			!regexp.MustCompile(`(?m)^b:deploy\s+team\s+Deploy with plugin B, differently\.$`).MatchString(out) ||
			strings.Count(out, "\n") != 3 {
			t.Errorf("list: %v\n%s%s", err, out, errOut)
		}
		// The skill that breaks the specification is a problem; the MCP
		// server and the unknown field are notes.
		for _, s := range []string{"not served: b:misnamed", `does not match the folder name "misnamed"`, "a: MCP servers db: not started", "b: unknown field", "hooks"} {
			if !strings.Contains(errOut, s) {
				t.Errorf("list's stderr does not say %q:\n%s", s, errOut)
			}
		}

		base := serveIn(t, binary, t.TempDir(), "--stateless", "--source", dir)
		checkServed(t, base, want)
		checkPluginsMCP(t, base+"/mcp", want, absent)
	})

	t.Run("git", func(t *testing.T) {
		s := gittest.NewServer(t)
		r := s.Repo(t, "team/plugins")
		sha := r.Commit("main", tree)

		out, errOut, err := run(t, t.TempDir(), binary, "list", "--source", r.URL)
		if err != nil || !regexp.MustCompile(`(?m)^a:deploy\s+org@`+sha[:12]+`\s+Deploy with plugin A\.$`).MatchString(out) ||
			!regexp.MustCompile(`(?m)^b:deploy\s+org@`+sha[:12]+`\s`).MatchString(out) {
			t.Errorf("list: %v\n%s%s", err, out, errOut)
		}

		base := serveIn(t, binary, t.TempDir(), "--stateless", "--refresh", "200ms", "--source", r.URL)
		checkServed(t, base, want)
		checkPluginsMCP(t, base+"/mcp", want, absent)

		// The next commit removes plugin a, changes b's deploy and adds
		// plugin c: the server's set of plugins follows the commit.
		changed := map[string][]byte{
			"b/skills/deploy/SKILL.md":  pluginSkill("deploy", "Deploy with plugin B, second commit."),
			"c/plugin.json":             pluginManifest("c", ""),
			"c/skills/deploy/SKILL.md":  pluginSkill("deploy", "Deploy with plugin C."),
			"c/skills/deploy/refs/x.md": []byte("C's reference.\n"),
		}
		for p := range tree {
			if strings.HasPrefix(p, "a/") {
				changed[p] = nil
			}
		}
		r.Commit("main", changed)
		want2 := map[string][]byte{
			"b:deploy/SKILL.md":  changed["b/skills/deploy/SKILL.md"],
			"c:deploy/SKILL.md":  changed["c/skills/deploy/SKILL.md"],
			"c:deploy/refs/x.md": changed["c/skills/deploy/refs/x.md"],
		}
		if !testutil.Within(20*time.Second, func() bool { _, code := fetch(t, base+"/skills/c:deploy/raw/SKILL.md"); return code == 200 }) {
			t.Fatal("the server did not follow the new commit: no c:deploy")
		}
		checkServed(t, base, want2)
		checkPluginsMCP(t, base+"/mcp", want2, append(absent, "a:deploy"))
		if _, code := fetch(t, base+"/skills/a:deploy/raw/SKILL.md"); code != 404 {
			t.Errorf("a:deploy after its plugin was removed: %d", code)
		}
	})

	t.Run("bucket", func(t *testing.T) {
		// Copied to a bucket prefix as files (not published): read as the
		// folder is, each listing looking for plugins again.
		r := startS3(t)
		useEnv(t, r.env)
		r.createBucket(t, "skills")
		seed(t, r, "skills", "team/", tree)
		src := r.url("skills", "team/")
		base := serveIn(t, binary, t.TempDir(), "--stateless", "--refresh", "200ms", "--source", src)
		checkServed(t, base, want)
		checkPluginsMCP(t, base+"/mcp", want, absent)

		seed(t, r, "skills", "team/", map[string][]byte{"c/plugin.json": pluginManifest("c", ""), "c/skills/ship/SKILL.md": pluginSkill("ship", "Ship with plugin C.")})
		if !testutil.Within(20*time.Second, func() bool {
			got, code := fetch(t, base+"/skills/c:ship/raw/SKILL.md")
			return code == 200 && bytes.Contains(got, []byte("Ship with plugin C."))
		}) {
			t.Fatal("the server did not find the plugin added to the bucket")
		}
	})

	t.Run("oci", func(t *testing.T) {
		host, _ := startRegistry(t)
		// Pushed by another tool, under its own artifact type: the plugin
		// at the root of one tar+gzip layer.
		plugin := map[string][]byte{
			"plugin.json":                pluginManifest("acme.tools", `"description":"Acme's tools."`),
			"skills/lint/SKILL.md":       pluginSkill("lint", "Lint with Acme's rules."),
			"skills/lint/rules/style.md": []byte("No tabs.\n"),
			"skills/deploy/SKILL.md":     pluginSkill("deploy", "Deploy the Acme way."),
		}
		ref := "oci://" + host + "/acme/tools:v1"
		pushPluginArtifact(t, host, "acme/tools", "v1", plugin)
		ociWant := map[string][]byte{
			"acme.tools:lint/SKILL.md":       plugin["skills/lint/SKILL.md"],
			"acme.tools:lint/rules/style.md": plugin["skills/lint/rules/style.md"],
			"acme.tools:deploy/SKILL.md":     plugin["skills/deploy/SKILL.md"],
		}
		out, errOut, err := run(t, t.TempDir(), binary, "list", "--source", ref)
		if err != nil || !regexp.MustCompile(`(?m)^acme\.tools:lint\s+\S+\s+Lint with Acme's rules\.$`).MatchString(out) ||
			!regexp.MustCompile(`(?m)^acme\.tools:deploy\s`).MatchString(out) {
			t.Errorf("list: %v\n%s%s", err, out, errOut)
		}
		base := serveIn(t, binary, t.TempDir(), "--stateless", "--source", ref)
		checkServed(t, base, ociWant)
		checkPluginsMCP(t, base+"/mcp", ociWant, []string{"lint", "deploy", "acme:lint"})

		// Published by the binary: a folder holding a plugin and a skill,
		// each plugin whole (its other components too, hidden files left
		// out). A bucket's snapshot lists skills only: refused, saying why.
		tree := map[string][]byte{
			"acme/plugin.json":                plugin["plugin.json"],
			"acme/commands/ship.md":           []byte("Ship it.\n"),
			"acme/.secret":                    []byte("never published\n"),
			"acme/skills/lint/SKILL.md":       plugin["skills/lint/SKILL.md"],
			"acme/skills/lint/rules/style.md": plugin["skills/lint/rules/style.md"],
			"solo/SKILL.md":                   pluginSkill("solo", "A skill beside the plugin."),
		}
		dir := testutil.TempTree(t, tree)
		out, errOut, err = run(t, t.TempDir(), binary, "publish", dir, "oci://"+host+"/acme/all:v1")
		if err != nil || !strings.Contains(out, "2 skills, 5 files") {
			t.Fatalf("publish of a folder with a plugin: %v\n%s%s", err, out, errOut)
		}
		base = serveIn(t, binary, t.TempDir(), "--stateless", "--source", "oci://"+host+"/acme/all:v1")
		published := map[string][]byte{
			"acme.tools:lint/SKILL.md":       tree["acme/skills/lint/SKILL.md"],
			"acme.tools:lint/rules/style.md": tree["acme/skills/lint/rules/style.md"],
			"solo/SKILL.md":                  tree["solo/SKILL.md"],
		}
		checkServed(t, base, published)
		checkPluginsMCP(t, base+"/mcp", published, []string{"lint", "acme.tools:deploy"})
		out, errOut, err = run(t, t.TempDir(), binary, "publish", "--dry-run", dir, "mem://")
		if err == nil || !strings.Contains(errOut, "holds Agent Plugins (acme.tools)") {
			t.Errorf("publish of plugins to a bucket: %v\n%s%s", err, out, errOut)
		}

		// Bundled: the same folder, carried by a copy of the binary moved
		// to an empty folder.
		empty := t.TempDir()
		made := filepath.Join(empty, "corp-skills")
		out, errOut, err = run(t, t.TempDir(), binary, "bundle", dir, "-o", made)
		if err != nil || !strings.Contains(out, "2 skills, 5 files") {
			t.Fatalf("bundle of a folder with a plugin: %v\n%s%s", err, out, errOut)
		}
		base = serveIn(t, made, empty, "--stateless")
		checkServed(t, base, published)
		checkPluginsMCP(t, base+"/mcp", published, []string{"lint", "acme.tools:deploy"})
	})
}

// checkPluginsMCP checks over MCP (plain JSON-RPC POSTs to a stateless
// server at mcpURL) that the skills of want (PLUGIN:SKILL/FILE → bytes)
// are exactly those skills/list lists, at skill://PLUGIN/SKILL/SKILL.md;
// that skills/get lists each one's files with their digests and sizes;
// that resources/read and read_file_in_skill return each file byte for
// byte; and that the names of absent are not served.
func checkPluginsMCP(t *testing.T, mcpURL string, want map[string][]byte, absent []string) {
	t.Helper()
	files := map[string]map[string][]byte{} // skill name → file URI → bytes
	for p, b := range want {
		name, file, _ := strings.Cut(p, "/")
		if files[name] == nil {
			files[name] = map[string][]byte{}
		}
		files[name][tools.FileURI(name, file)] = b
	}
	type entry struct {
		URI       string `json:"uri"`
		Resources []struct {
			URI    string `json:"uri"`
			Digest string `json:"digest"`
			Size   int64  `json:"size"`
		} `json:"resources"`
	}
	checkEntry := func(name string, e entry) {
		t.Helper()
		if len(e.Resources) != len(files[name]) {
			t.Errorf("%s lists %d files, want %d: %+v", name, len(e.Resources), len(files[name]), e.Resources)
		}
		for _, r := range e.Resources {
			b, ok := files[name][r.URI]
			sum := sha256.Sum256(b)
			if !ok || r.Digest != "sha256:"+hex.EncodeToString(sum[:]) || r.Size != int64(len(b)) {
				t.Errorf("%s lists %+v, not one of its files", name, r)
			}
		}
	}

	var list struct {
		Result struct{ Skills []entry } `json:"result"`
	}
	body := rpc(t, mcpURL, "skills/list", `{}`)
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatalf("skills/list: %v: %.500s", err, body)
	}
	var gotURIs, wantURIs []string
	for name := range files {
		wantURIs = append(wantURIs, tools.SkillURI(name))
	}
	for _, e := range list.Result.Skills {
		gotURIs = append(gotURIs, e.URI)
	}
	sort.Strings(gotURIs)
	sort.Strings(wantURIs)
	if !slices.Equal(gotURIs, wantURIs) {
		t.Errorf("skills/list lists %q, want %q", gotURIs, wantURIs)
	}

	for name := range files {
		uri := tools.SkillURI(name)
		if plugin, skill, ok := strings.Cut(name, ":"); ok && uri != "skill://"+plugin+"/"+skill+"/SKILL.md" || !ok && uri != "skill://"+name+"/SKILL.md" {
			t.Errorf("the URI of %s is %s", name, uri)
		}
		var got struct {
			Result struct{ Skill entry } `json:"result"`
		}
		body := rpc(t, mcpURL, "skills/get", `{"uri":"`+uri+`"}`)
		if err := json.Unmarshal(body, &got); err != nil || got.Result.Skill.URI != uri {
			t.Errorf("skills/get %s: %v: %.500s", uri, err, body)
			continue
		}
		checkEntry(name, got.Result.Skill)
	}

	for name, fs := range files {
		for uri, b := range fs {
			var read struct {
				Result struct {
					Contents []struct{ URI, Text string } `json:"contents"`
				} `json:"result"`
			}
			body := rpc(t, mcpURL, "resources/read", `{"uri":"`+uri+`"}`)
			if err := json.Unmarshal(body, &read); err != nil || len(read.Result.Contents) != 1 ||
				read.Result.Contents[0].URI != uri || read.Result.Contents[0].Text != string(b) {
				t.Errorf("resources/read %s: %v: %.500s", uri, err, body)
			}
			file := strings.TrimPrefix(uri, strings.TrimSuffix(tools.SkillURI(name), "SKILL.md"))
			args, _ := json.Marshal(map[string]any{"name": "read_file_in_skill", "arguments": map[string]string{"skill_name": name, "file_path": file}})
			text, isError := toolText(t, string(rpc(t, mcpURL, "tools/call", string(args))))
			if isError || !strings.Contains(text, string(b)) {
				t.Errorf("read_file_in_skill %s %s: %v %.500s", name, file, isError, text)
			}
		}
	}

	for _, name := range absent {
		var uri string
		if plugin, skill, ok := strings.Cut(name, ":"); ok {
			uri = "skill://" + plugin + "/" + skill + "/SKILL.md"
		} else {
			uri = "skill://" + name + "/SKILL.md"
		}
		if body := rpc(t, mcpURL, "resources/read", `{"uri":"`+uri+`"}`); !bytes.Contains(body, []byte(`"error"`)) {
			t.Errorf("resources/read %s of a skill not served: %.500s", uri, body)
		}
	}
}

// pushPluginArtifact pushes files (path → bytes) as an Agent Plugins
// artifact of one tar+gzip layer to the registry at host, as repo:tag.
func pushPluginArtifact(t *testing.T, host, repo, tag string, files map[string][]byte) {
	t.Helper()
	pushArtifact(t, host, repo, tag, "application/vnd.agent-plugins.plugin.v1", nil, tarGzLayer(t, files))
}
