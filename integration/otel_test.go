package integration

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/testutil"
)

// jaegerBin is Jaeger v2 (an OpenTelemetry Collector distribution), built
// by the test command from the separate module internal/tools/jaeger.
var jaegerBin = binPath("SKILLSTORE_IT_JAEGER", "../.cache/bin/jaeger")

// startJaeger runs Jaeger on 127.0.0.1 with in-memory storage, an OTLP/HTTP
// receiver and its query API on free ports, and returns their base URLs.
func startJaeger(t *testing.T) (otlp, query string) {
	t.Helper()
	if _, err := os.Stat(jaegerBin); err != nil && os.Getenv("SKILLSTORE_WITH_JAEGER") != "1" {
		t.Skip("Jaeger is not built (scripts/test.sh builds it with SKILLSTORE_WITH_JAEGER=1)")
	}
	requireBinary(t, jaegerBin, "Jaeger (cd internal/tools/jaeger && go build -o ../../../.cache/bin/jaeger github.com/jaegertracing/jaeger/cmd/jaeger)")
	ran(t, "OpenTelemetry collector (Jaeger)")
	addr := func() string { return fmt.Sprintf("127.0.0.1:%d", freePort(t)) }
	otlpAddr, queryAddr, queryGRPC, health := addr(), addr(), addr(), addr()
	config := filepath.Join(t.TempDir(), "jaeger.yaml")
	err := os.WriteFile(config, []byte(`service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: `+queryAddr+`
    grpc:
      endpoint: `+queryGRPC+`
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 1000
  healthcheckv2:
    use_v2: true
    http:
      endpoint: `+health+`
receivers:
  otlp:
    protocols:
      http:
        endpoint: `+otlpAddr+`
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	cmd := launch(t, queryAddr, jaegerBin, []string{"--config", config}, nil)
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	listening := func() bool {
		c, err := net.DialTimeout("tcp", otlpAddr, 200*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err == nil
	}
	if !testutil.Within(60*time.Second, listening) {
		t.Fatalf("Jaeger's OTLP receiver did not listen on %s", otlpAddr)
	}
	return "http://" + otlpAddr, "http://" + queryAddr
}

// jaegerTrace is what Jaeger's query API (/api/traces/ID) answers.
type jaegerTrace struct {
	Data []struct {
		Spans []struct {
			SpanID        string `json:"spanID"`
			OperationName string `json:"operationName"`
			References    []struct {
				RefType string `json:"refType"`
				TraceID string `json:"traceID"`
				SpanID  string `json:"spanID"`
			} `json:"references"`
			Tags []struct {
				Key   string `json:"key"`
				Value any    `json:"value"`
			} `json:"tags"`
			ProcessID string `json:"processID"`
		} `json:"spans"`
		Processes map[string]struct {
			ServiceName string `json:"serviceName"`
		} `json:"processes"`
	} `json:"data"`
}

func randomHex(t *testing.T, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// TestTraceReachesCollector: the built binary, with only
// OTEL_EXPORTER_OTLP_ENDPOINT set, exports over OTLP to a real collector;
// a trace an MCP client started with params._meta.traceparent continues
// through skillstore: the server span is the client span's child, with
// the MCP semantic conventions' name and attributes, and the store's
// spans are its children.
func TestTraceReachesCollector(t *testing.T) {
	otlp, query := startJaeger(t)
	url := serveHTTPEnv(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + otlp, "OTEL_SERVICE_NAME=skillstore-it", "OTEL_BSP_SCHEDULE_DELAY=100"},
		"--source", "builtin://", "--stateless")
	traceID, clientSpan := randomHex(t, 16), randomHex(t, 8)
	call := `{"jsonrpc":"2.0","id":"req-1","method":"tools/call","params":{"_meta":{"traceparent":"00-` + traceID + `-` + clientSpan + `-01"},"name":"get_skill","arguments":{"skill_name":"code-review"}}}`
	resp, body := testutil.SendMCP(t, http.MethodPost, url, call, map[string]string{"MCP-Protocol-Version": "2025-11-25"})
	if resp.StatusCode != 200 || !strings.Contains(body, `"id":"req-1","result"`) {
		t.Fatalf("tools/call: %d %s", resp.StatusCode, body)
	}
	var tr jaegerTrace
	found := func() bool {
		resp, b := testutil.Request(t, http.MethodGet, query+"/api/traces/"+traceID)
		tr = jaegerTrace{}
		if resp.StatusCode != 200 || json.Unmarshal(b, &tr) != nil || len(tr.Data) != 1 {
			return false
		}
		return len(tr.Data[0].Spans) >= 3 // the server span, a cache miss, a backend read
	}
	if !testutil.Within(60*time.Second, found) {
		t.Fatalf("Jaeger has no trace %s with 3 spans: %+v", traceID, tr)
	}
	var server string
	got := map[string]string{} // span name → parent span name
	spans := tr.Data[0].Spans
	for _, s := range spans {
		if s.OperationName != "tools/call get_skill" {
			continue
		}
		server = s.SpanID
		tags := map[string]any{}
		for _, tag := range s.Tags {
			tags[tag.Key] = tag.Value
		}
		want := map[string]any{"mcp.method.name": "tools/call", "gen_ai.tool.name": "get_skill", "gen_ai.operation.name": "execute_tool",
			"jsonrpc.request.id": "req-1", "mcp.protocol.version": "2025-11-25", "span.kind": "server", "network.transport": "tcp"}
		for k := range tags {
			if _, ok := want[k]; !ok {
				delete(tags, k) // the SDK's and Jaeger's own tags
			}
		}
		if diff := cmp.Diff(want, tags); diff != "" {
			t.Errorf("server span's tags (-want +got)\n%s", diff)
		}
		if name := tr.Data[0].Processes[s.ProcessID].ServiceName; name != "skillstore-it" {
			t.Errorf("service %q", name)
		}
	}
	names := map[string]string{clientSpan: "the client's span"}
	for _, s := range spans {
		names[s.SpanID] = s.OperationName
	}
	for _, s := range spans {
		for _, r := range s.References {
			if r.RefType == "CHILD_OF" && r.TraceID == traceID {
				got[s.OperationName] = names[r.SpanID]
			}
		}
	}
	want := map[string]string{
		"tools/call get_skill":    "the client's span",
		"skillstore.cache.miss":   "tools/call get_skill",
		"skillstore.backend.read": "skillstore.cache.miss",
	}
	if server == "" {
		t.Errorf("no span named tools/call get_skill")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("span → parent (-want +got)\n%s", diff)
	}
	// /metrics counts what was exported.
	metricsURL := strings.TrimSuffix(url, "/mcp") + "/metrics"
	exported := func() bool {
		_, b := testutil.Request(t, http.MethodGet, metricsURL)
		return strings.Contains(string(b), "skillstore_trace_spans_exported_total ") && !strings.Contains(string(b), "skillstore_trace_spans_exported_total 0\n")
	}
	if !testutil.Within(30*time.Second, exported) {
		t.Errorf("/metrics shows no exported span")
	}
}
