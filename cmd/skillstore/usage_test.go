package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/usage"
)

// usageSkills is a catalog of three skills for the usage tests.
func usageSkills(t *testing.T) string {
	files := map[string][]byte{}
	for _, n := range []string{"alpha", "beta", "gamma"} {
		files[n+"/SKILL.md"] = []byte("---\nname: " + n + "\ndescription: The " + n + " skill.\n---\n# " + n + "\n")
	}
	return writeFixture(t, files)
}

// writeUsage writes a usage file with loads, each at its time.
func writeUsage(t *testing.T, path string, loads []struct {
	skill, who string
	at         time.Time
}) {
	t.Helper()
	i := 0
	c, err := usage.Open(path, usage.Options{Now: func() time.Time { return loads[i].at }})
	if err != nil {
		t.Fatal(err)
	}
	for i = range loads {
		c.Record(loads[i].skill, loads[i].who)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
}

// TestUsageCommand: every skill of the catalog and of the file, most
// loaded first, with principals counted, the last use, and the catalog's
// skills unused for 30 days marked.
func TestUsageCommand(t *testing.T) {
	dir := usageSkills(t)
	path := filepath.Join(t.TempDir(), "usage.json")
	hourAgo, longAgo := time.Now().Add(-time.Hour), time.Now().Add(-40*24*time.Hour)
	writeUsage(t, path, []struct {
		skill, who string
		at         time.Time
	}{{"beta", "alice", longAgo}, {"alpha", "alice", longAgo}, {"alpha", "bob", hourAgo}, {"alpha", "alice", hourAgo}, {"gone", "bob", hourAgo}})
	day := func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04Z") }

	res := runInProcess("usage", "--file", path, "-s", dir)
	want := "SKILL  LOADS  PRINCIPALS  LAST USED          NOTE\n" +
		"alpha  3      2           " + day(hourAgo) + "  \n" +
		"beta   1      1           " + day(longAgo) + "  unused 30d\n" +
		"gone   1      1           " + day(hourAgo) + "  not in the catalog\n" +
		"gamma  0      0           never              unused 30d\n"
	if diff := cmp.Diff(cliResult{Stdout: want}, res); diff != "" {
		t.Errorf("usage (-want +got)\n%s", diff)
	}

	res = runInProcess("usage", "--file", path, "-s", dir, "--json")
	var got struct {
		Loads  uint64 `json:"loads"`
		Skills []struct {
			Skill      string `json:"skill"`
			Loads      uint64 `json:"loads"`
			Principals int    `json:"principals"`
			InCatalog  bool   `json:"in_catalog"`
			Unused     bool   `json:"unused_30_days"`
		} `json:"skills"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &got); err != nil || res.Code != 0 {
		t.Fatalf("usage --json: %v\n%+v", err, res)
	}
	type row struct {
		Skill             string
		Loads             uint64
		Principals        int
		InCatalog, Unused bool
	}
	var rows []row
	for _, s := range got.Skills {
		rows = append(rows, row{s.Skill, s.Loads, s.Principals, s.InCatalog, s.Unused})
	}
	wantRows := []row{{"alpha", 3, 2, true, false}, {"beta", 1, 1, true, true}, {"gone", 1, 1, false, false}, {"gamma", 0, 0, true, true}}
	if diff := cmp.Diff(wantRows, rows); diff != "" || got.Loads != 5 {
		t.Errorf("usage --json: %d loads, rows (-want +got)\n%s", got.Loads, diff)
	}
}

// TestUsageCommandBadFile: a missing or corrupt file is an error that
// says what is wrong.
func TestUsageCommandBadFile(t *testing.T) {
	dir := usageSkills(t)
	missing := filepath.Join(t.TempDir(), "none.json")
	corrupt := filepath.Join(t.TempDir(), "corrupt.json")
	os.WriteFile(corrupt, []byte("{"), 0o600)
	for file, want := range map[string]string{
		missing: "skillstore: --file " + missing + " does not exist: serve --usage-file " + missing + " writes it\n",
		corrupt: "skillstore: usage file " + corrupt + " is not a usage file: unexpected EOF\n",
	} {
		if res := runInProcess("usage", "--file", file, "-s", dir); res != (cliResult{Stderr: want, Code: 1}) {
			t.Errorf("usage --file %s: %+v, want stderr %q", file, res, want)
		}
	}
}

// TestServeUsageFile: serve --usage-file counts the loads and writes them
// at shutdown; a corrupt file at start is set aside and serving goes on.
func TestServeUsageFile(t *testing.T) {
	dir := usageSkills(t)
	path := filepath.Join(t.TempDir(), "usage.json")
	os.WriteFile(path, []byte("not json"), 0o600)
	c, ctx := serveStdio(t, t.TempDir(), "-s", dir, "--usage-file", path)
	for _, call := range []mcp.CallToolParams{
		{Name: "get_skill", Arguments: map[string]any{"skill_name": "alpha"}},
		{Name: "read_file_in_skill", Arguments: map[string]any{"skill_name": "alpha", "file_path": "SKILL.md"}},
		{Name: "get_skill", Arguments: map[string]any{"skill_name": "no-such"}},
		{Name: "list_skills", Arguments: map[string]any{}},
	} {
		if _, err := c.CallTool(ctx, mcp.CallToolRequest{Params: call}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "skill://beta/SKILL.md"}}); err != nil {
		t.Fatal(err)
	}
	c.Close() // the server ends on stdin's end and saves
	var f usage.File
	testutil.Eventually(t, "the usage file is written at shutdown", func() bool {
		var err error
		f, err = usage.ReadFile(path)
		return err == nil
	})
	var got []string
	for _, s := range f.Skills {
		got = append(got, s.Skill+":"+strings.Repeat("*", int(s.Loads)))
	}
	if diff := cmp.Diff([]string{"alpha:**", "beta:*"}, got); diff != "" || f.Loads != 3 {
		t.Errorf("%d loads; skills (-want +got)\n%s", f.Loads, diff)
	}
	if b, err := os.ReadFile(path + ".corrupt"); err != nil || string(b) != "not json" {
		t.Errorf("the corrupt file was not set aside: %q %v", b, err)
	}
}
