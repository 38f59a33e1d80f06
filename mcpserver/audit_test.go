package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/audit"
	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
)

// TestAuditLog: one line per decision on skill content, allowed or
// denied, on every surface that reads it, and one per refused request;
// nothing for lists or for skills that exist nowhere; never a token.
func TestAuditLog(t *testing.T) {
	var buf testutil.SyncBuffer
	log := audit.New(&buf, audit.Options{})
	w := newWorld(t, worldOptions{policy: fixture.TeamPolicy, audit: log})
	const trace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

	post(t, w.url, "", initialize, "X-Request-Id", "req-1")          // no token
	post(t, w.url, aliceToken+"x", initialize, "Traceparent", trace) // unknown token
	post(t, w.url, noScopeToken, initialize)                         // no scope
	bob := dialRPC(t, w.url, bobToken, "2025-11-25")
	bob.call("tools/call", `{"name":"get_skill","arguments":{"skill_name":"ledger"}}`)  // hidden
	bob.call("tools/call", `{"name":"get_skill","arguments":{"skill_name":"no-such"}}`) // exists nowhere: no line
	bob.call("tools/call", `{"name":"list_skills","arguments":{}}`)                     // a list: no line
	bob.call("tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"deploy","file_path":"scripts/run.sh"}}`)
	modern := dialRPC(t, w.url, bobToken, "2026-07-28")
	modern.call("resources/read", `{"uri":"skill://deploy/SKILL.md"}`)
	modern.call("skills/get", `{"uri":"skill://broken-books/SKILL.md"}`) // left out with a problem, in finance
	alice := dialRPC(t, w.url, aliceToken, "2025-06-18")
	alice.call("prompts/get", `{"name":"payroll"}`)
	alice.call("resources/directory/read", `{"uri":"skill://ledger/references"}`)
	post(t, w.url, aliceToken, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, "Mcp-Session-Id", bob.session, "Mcp-Protocol-Version", "2025-11-25") // bob's session
	post(t, w.ts.URL+"/.well-known/agent-skills/ledger.zip", aliceToken, "", "Traceparent", trace)
	post(t, w.ts.URL+"/.well-known/agent-skills/deploy.zip", aliceToken, "")
	if err := log.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	bobWho := map[string]any{"sub": "bob", "groups": []any{"eng"}}
	aliceWho := map[string]any{"sub": "alice", "groups": []any{"finance"}}
	carolWho := map[string]any{"sub": "carol", "groups": []any{"finance"}} // verified, refused for its scopes
	line := func(who map[string]any, m map[string]any) map[string]any {
		for k, v := range who {
			m[k] = v
		}
		m["time"], m["client_addr"] = "T", "127.0.0.1"
		return m
	}
	want := []map[string]any{
		line(nil, map[string]any{"request_id": "req-1", "method": "POST /mcp", "decision": "deny", "reason": "a bearer token is required"}),
		line(nil, map[string]any{"trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "method": "POST /mcp", "decision": "deny", "reason": "the token is not known"}),
		line(carolWho, map[string]any{"method": "POST /mcp", "decision": "deny", "reason": "the token lacks a required scope"}),
		line(bobWho, map[string]any{"request_id": "7", "method": "tools/call", "tool": "get_skill", "source": "finance", "skill": "ledger", "decision": "deny", "reason": "no rule grants it", "protocol_version": "2025-11-25"}),
		line(bobWho, map[string]any{"request_id": "7", "method": "tools/call", "tool": "read_file_in_skill", "source": "eng", "skill": "deploy", "file": "scripts/run.sh", "decision": "allow", "reason": "rule policy.yaml:6", "protocol_version": "2025-11-25"}),
		line(bobWho, map[string]any{"request_id": "7", "method": "resources/read", "source": "eng", "skill": "deploy", "file": "SKILL.md", "uri": "skill://deploy/SKILL.md", "decision": "allow", "reason": "rule policy.yaml:6", "protocol_version": "2026-07-28"}),
		line(bobWho, map[string]any{"request_id": "7", "method": "skills/get", "source": "finance", "skill": "broken-books", "file": "SKILL.md", "uri": "skill://broken-books/SKILL.md", "decision": "deny", "reason": "no rule grants it", "protocol_version": "2026-07-28"}),
		line(aliceWho, map[string]any{"request_id": "7", "method": "prompts/get", "source": "finance", "skill": "payroll", "decision": "allow", "reason": "rule policy.yaml:3", "protocol_version": "2025-06-18"}),
		line(aliceWho, map[string]any{"request_id": "7", "method": "resources/directory/read", "source": "finance", "skill": "ledger", "file": "references", "uri": "skill://ledger/references", "decision": "allow", "reason": "rule policy.yaml:3", "protocol_version": "2025-06-18"}),
		line(aliceWho, map[string]any{"method": "POST /mcp", "decision": "deny", "reason": "the session belongs to another principal", "protocol_version": "2025-11-25"}),
		line(aliceWho, map[string]any{"trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "method": "GET /.well-known/agent-skills/ledger.zip", "source": "finance", "skill": "ledger", "decision": "allow", "reason": "rule policy.yaml:3"}),
		line(aliceWho, map[string]any{"method": "GET /.well-known/agent-skills/deploy.zip", "source": "eng", "skill": "deploy", "decision": "deny", "reason": "no rule grants it"}),
	}
	var got []map[string]any
	sc := bufio.NewScanner(strings.NewReader(buf.String()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON line: %s", sc.Text())
		}
		if ts, _ := m["time"].(string); ts != "" {
			if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
				t.Errorf("time %q: %v", ts, err)
			}
			m["time"] = "T"
		}
		if a, _ := m["client_addr"].(string); strings.HasPrefix(a, "127.0.0.1:") {
			m["client_addr"] = "127.0.0.1"
		}
		got = append(got, m)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit lines (-want +got)\n%s", diff)
	}
	noSecrets(t, "audit log", buf.String())
	for _, content := range []string{"Reconcile", "echo deploy", "exchange rates", "# Payroll"} {
		if strings.Contains(buf.String(), content) {
			t.Errorf("the audit log holds content %q", content)
		}
	}
}

// failingWriter fails every write, as a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestAuditLossCounted: /metrics counts the audit events lost, so that an
// audit log that cannot be written is seen by those who watch the server.
func TestAuditLossCounted(t *testing.T) {
	log := audit.New(failingWriter{}, audit.Options{Logger: slog.New(slog.DiscardHandler)})
	defer log.Close()
	w := newWorld(t, worldOptions{audit: log})
	post(t, w.url, "", initialize) // refused, and audited
	testutil.Eventually(t, "the event's write failed", func() bool { return log.Stats().Failed > 0 })
	got, _ := post(t, w.ts.URL+"/metrics", "", "")
	for _, want := range []string{
		"# TYPE skillstore_audit_events_lost_total counter\n",
		`skillstore_audit_events_lost_total{reason="dropped"} 0` + "\n",
		fmt.Sprintf(`skillstore_audit_events_lost_total{reason="failed"} %d`+"\n", log.Stats().Failed),
	} {
		if !strings.Contains(got.Body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, got.Body)
		}
	}
}
