package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/skillstore/skillstore/audit"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/usage"
)

// TestUsageCounts: each allowed load of a skill counts once, on every
// surface that loads one (get_skill, Skill, skills/get, prompts/get, a
// SKILL.md read); other files, folders, lists, refused reads of hidden
// skills and skills that exist nowhere count nothing. It holds with and
// without an audit log.
func TestUsageCounts(t *testing.T) {
	for _, withAudit := range []bool{false, true} {
		var log *audit.Logger
		if withAudit {
			log = audit.New(&testutil.SyncBuffer{}, audit.Options{})
			t.Cleanup(func() { log.Close() })
		}
		u := usage.New(usage.Options{})
		w := newWorld(t, worldOptions{policy: fixture.TeamPolicy, audit: log, usage: u})
		bob := dialRPC(t, w.url, bobToken, "2025-11-25")
		bob.call("tools/call", `{"name":"get_skill","arguments":{"skill_name":"deploy"}}`)
		bob.call("tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"deploy","file_path":"SKILL.md"}}`)
		bob.call("tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"deploy","file_path":"scripts/run.sh"}}`) // not a load
		bob.call("tools/call", `{"name":"Skill","arguments":{"skill_name":"review"}}`)
		bob.call("tools/call", `{"name":"get_skill","arguments":{"skill_name":"payroll"}}`)                                 // hidden: refused
		bob.call("tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"payroll","file_path":"SKILL.md"}}`) // hidden: refused
		bob.call("tools/call", `{"name":"get_skill","arguments":{"skill_name":"no-such"}}`)                                 // exists nowhere
		bob.call("tools/call", `{"name":"list_skills","arguments":{}}`)                                                     // a list
		bob.call("resources/read", `{"uri":"skill://payroll/SKILL.md"}`)                                                    // hidden: refused
		alice := dialRPC(t, w.url, aliceToken, "2026-07-28")
		alice.call("resources/read", `{"uri":"skill://ledger/SKILL.md"}`)
		alice.call("resources/read", `{"uri":"skill://ledger/references/fx.md"}`) // not a load
		alice.call("resources/directory/read", `{"uri":"skill://ledger/references"}`)
		alice.call("skills/get", `{"uri":"skill://payroll/SKILL.md"}`)
		alice.call("prompts/get", `{"name":"payroll"}`)
		alice.call("skills/get", `{"uri":"skill://deploy/SKILL.md"}`) // hidden: refused

		want := []usage.Stat{
			{Skill: "deploy", Loads: 2, Principals: 1},
			{Skill: "payroll", Loads: 2, Principals: 1},
			{Skill: "ledger", Loads: 1, Principals: 1},
			{Skill: "review", Loads: 1, Principals: 1},
		}
		got := u.Stats()
		for _, s := range got {
			if s.LastUsed.IsZero() {
				t.Errorf("%s: no last use", s.Skill)
			}
		}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(usage.Stat{}, "LastUsed")); diff != "" {
			t.Errorf("audit log %v: usage (-want +got)\n%s", withAudit, diff)
		}
		metrics, _ := post(t, w.ts.URL+"/metrics", "", "")
		for _, want := range []string{"skillstore_skill_loads_total 6\n", "skillstore_usage_skills 4\n", "skillstore_usage_save_failures_total 0\n"} {
			if !strings.Contains(metrics.Body, want) {
				t.Errorf("/metrics lacks %q:\n%s", want, metrics.Body)
			}
		}
		if strings.Contains(metrics.Body, "payroll") || strings.Contains(metrics.Body, `skill="`) {
			t.Errorf("/metrics names skills:\n%s", metrics.Body)
		}
	}
}
