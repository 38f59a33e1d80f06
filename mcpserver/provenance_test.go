package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// TestProvenanceEncoding: the provenance is written as encoding/json
// writes a store.Provenance (without HTML escaping, as every answer is).
func TestProvenanceEncoding(t *testing.T) {
	for _, p := range []store.Provenance{
		{},
		{Source: "project", Kind: "local", Location: "./skills"},
		{Source: "org", Kind: "git", Location: "git+https://git.example.com/o/s.git?path=skills/&ref=v1", Revision: "0123456789abcdef0123456789abcdef01234567"},
		{Source: "o\"dd\\ <&>", Kind: "s3", Location: "s3://b?prefix=a\u2028b\x01", Revision: "20260101T000000.000000000Z-0123456789ab",
			Signer: store.Signer{Fingerprint: "SHA256:uYl4lG2jm0yRM/ZkmhOmqAx9Ck4nk5e7d1hVqWdnQfU", Principal: "release@example.com", Kind: "ssh"}},
		{Source: "org", Signer: store.Signer{Kind: "openpgp"}},
		{Source: "registry", Kind: "registry", Location: "s3://b", Revision: "log-7", Version: &store.SkillVersion{
			ID: "skver_01", Digest: "sha256:00ff", CreatedBy: "ana \"q\"", Created: time.Date(2026, 12, 2, 13, 45, 1, 123456000, time.UTC)}},
		{Source: "registry", Version: &store.SkillVersion{ID: "skver_02", Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("", 3600)),
			Signer: store.Signer{Fingerprint: "SHA256:x", Principal: "registry", Kind: "ssh"}}},
		{Source: "registry@canary", Version: &store.SkillVersion{ID: "skver_03", Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Channel: "canary",
			Review: &store.VersionReview{By: "rita <r>", Time: time.Date(2026, 1, 2, 3, 5, 0, 7, time.UTC), Signer: store.Signer{Fingerprint: "SHA256:y", Principal: "rita", Kind: "ssh"}}}},
		{Source: "registry", Version: &store.SkillVersion{ID: "skver_04", Review: &store.VersionReview{By: "rex"}}},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(p); err != nil {
			t.Fatal(err)
		}
		if got := appendProvenance(nil, &p); string(got) != strings.TrimSuffix(want.String(), "\n") {
			t.Errorf("%+v:\n got %s\nwant %s", p, got, want.String())
		}
	}
}

// signedSource is a source at one revision, verified as signed by one
// key (store.RevisionFS, store.SignedFS), as the lead's signed snapshots
// and verified git commits will be.
type signedSource struct {
	fstest.MapFS
	rev    string
	signer store.Signer
}

func (s signedSource) Revision() string             { return s.rev }
func (s signedSource) Signer() (store.Signer, bool) { return s.signer, true }

// provenanceServer serves two sources: org, signed at one revision, and
// vault, which only the viewer's policy hides; want is org's provenance
// as JSON decodes it.
func provenanceServer(t *testing.T) (srv *Server, viewer *caller, want map[string]any) {
	doc := func(name string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: The " + name + " skill.\n---\n# " + name + "\n")}
	}
	signed := signedSource{
		MapFS:  fstest.MapFS{"pdf/SKILL.md": doc("pdf"), "pdf/forms.md": {Data: []byte("Forms.")}},
		rev:    "20260101T000000.000000000Z-0123456789ab",
		signer: store.Signer{Fingerprint: "SHA256:uYl4lG2jm0yRM/ZkmhOmqAx9Ck4nk5e7d1hVqWdnQfU", Principal: "release@example.com", Kind: "ssh"},
	}
	vault := fstest.MapFS{"keys/SKILL.md": doc("keys"), "keys/notes.md": {Data: []byte("Notes.")}}
	st, err := store.New([]store.Source{
		{Label: "org", Kind: "s3", Location: "s3://skills?prefix=team/", FS: signed},
		{Label: "vault", Kind: "gs", Location: "gs://vault-bucket-7f3a", FS: vault},
	}, store.Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	pol, err := access.Parse("policy.yaml", []byte("default: deny\nrules:\n  - {groups: [team], sources: [org], skills: [\"*\"]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if srv, err = New(context.Background(), tools.New(st, tools.Options{}), Options{Logger: quiet(), Access: policyOf{pol}}); err != nil {
		t.Fatal(err)
	}
	want = map[string]any{"source": "org", "kind": "s3", "location": "s3://skills?prefix=team/", "revision": signed.rev,
		"signer": map[string]any{"fingerprint": signed.signer.Fingerprint, "principal": "release@example.com", "kind": "ssh"}}
	return srv, srv.callerFor(&access.Principal{Subject: "ana", Groups: []string{"team"}}), want
}

// provenanceIn is the provenance member of a _meta object, or nil.
func provenanceIn(meta any) any {
	m, _ := meta.(map[string]any)
	return m[ProvenanceMetaKey]
}

// Where answers carry provenance: in the result's _meta, in the first
// item's of a list member, in the pdf entry's of a skills/list, in the
// skills/get entry's; an error carries none.
func resultOf(m map[string]any) map[string]any { r, _ := m["result"].(map[string]any); return r }

func resultMeta(m map[string]any) any { return resultOf(m)["_meta"] }

func contentsMeta(m map[string]any) any {
	items, _ := resultOf(m)["contents"].([]any)
	if len(items) == 0 {
		return nil
	}
	i, _ := items[0].(map[string]any)
	return i["_meta"]
}

func pdfEntryMeta(m map[string]any) any {
	skills, _ := resultOf(m)["skills"].([]any)
	for _, e := range skills {
		if e, _ := e.(map[string]any); e["uri"] == "skill://pdf/SKILL.md" {
			return e["_meta"]
		}
	}
	return nil
}

func skillMeta(m map[string]any) any {
	s, _ := resultOf(m)["skill"].(map[string]any)
	return s["_meta"]
}

func errorMeta(m map[string]any) any { return m["error"] }

// TestProvenanceOnEveryAnswer: on both protocol eras, every answer that
// serves a skill's content or manifest carries its provenance — the
// source's label, kind, location, revision and signer — where the
// protocol puts per-item or per-result metadata; lists of many skills,
// folder listings and failures carry none; and a caller never gets the
// provenance of a skill it may not see.
func TestProvenanceOnEveryAnswer(t *testing.T) {
	srv, viewer, want := provenanceServer(t)
	for _, modern := range []bool{false, true} {
		send := func(who *caller, method, params string) map[string]any {
			t.Helper()
			if modern {
				params = withMeta(params)
			}
			a := srv.handle(context.Background(), source{caller: who}, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
			if strings.Contains(string(a.body), "vault-bucket-7f3a") && who != nil {
				t.Errorf("modern=%v %s %s: the answer names a source the caller may not see: %s", modern, method, params, a.body)
			}
			return decode(t, a.body).(map[string]any)
		}
		for _, tc := range []struct {
			who            *caller
			method, params string
			where          func(map[string]any) any
			want           any
		}{
			{nil, "tools/call", `{"name":"get_skill","arguments":{"skill_name":"pdf"}}`, resultMeta, want},
			{nil, "tools/call", `{"name":"Skill","arguments":{"skill_name":"pdf"}}`, resultMeta, want},
			{nil, "tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"pdf","file_path":"forms.md"}}`, resultMeta, want},
			{nil, "resources/read", `{"uri":"skill://pdf/SKILL.md"}`, contentsMeta, want},
			{nil, "resources/read", `{"uri":"skill://pdf/forms.md"}`, contentsMeta, want},
			{nil, "prompts/get", `{"name":"pdf"}`, resultMeta, want},
			{nil, "skills/list", `{}`, pdfEntryMeta, want},
			{nil, "skills/get", `{"uri":"skill://pdf/SKILL.md"}`, skillMeta, want},
			{viewer, "skills/list", `{}`, pdfEntryMeta, want},
			{viewer, "skills/get", `{"uri":"skill://pdf/SKILL.md"}`, skillMeta, want},
			// none: lists, folder listings, failures, hidden skills
			{nil, "tools/call", `{"name":"list_skills","arguments":{}}`, resultMeta, nil},
			{nil, "resources/directory/read", `{"uri":"skill://pdf"}`, resultMeta, nil},
			{nil, "tools/call", `{"name":"get_skill","arguments":{"skill_name":"nope"}}`, resultMeta, nil},
			{viewer, "tools/call", `{"name":"get_skill","arguments":{"skill_name":"keys"}}`, resultMeta, nil},
			{viewer, "tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"keys","file_path":"notes.md"}}`, resultMeta, nil},
			{viewer, "resources/read", `{"uri":"skill://keys/SKILL.md"}`, errorMeta, nil},
			{viewer, "prompts/get", `{"name":"keys"}`, errorMeta, nil},
			{viewer, "skills/get", `{"uri":"skill://keys/SKILL.md"}`, errorMeta, nil},
		} {
			if diff := cmp.Diff(tc.want, provenanceIn(tc.where(send(tc.who, tc.method, tc.params)))); diff != "" {
				t.Errorf("modern=%v %s %s: provenance (-want +got):\n%s", modern, tc.method, tc.params, diff)
			}
		}
		if skills, _ := resultOf(send(viewer, "skills/list", `{}`))["skills"].([]any); len(skills) != 1 {
			t.Errorf("modern=%v: the viewer's skills/list has %d skills; want its one", modern, len(skills))
		}
		// On 2026-07-28 the result _meta keeps the server's identity beside it.
		if m, _ := resultMeta(send(nil, "tools/call", `{"name":"get_skill","arguments":{"skill_name":"pdf"}}`)).(map[string]any); modern != (m["io.modelcontextprotocol/serverInfo"] != nil) {
			t.Errorf("modern=%v: get_skill's _meta %v", modern, m)
		}
	}
}

// TestProvenanceLocationHasNoSecret: a source opened from a URL holding
// user information and a token is served with a provenance that holds
// neither, on any answer.
func TestProvenanceLocationHasNoSecret(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pdf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pdf", "SKILL.md"), []byte("---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := backends.Open(context.Background(), "file://ana:hunter2-pw@localhost"+filepath.ToSlash(dir)+"?token=tok-5e1f&sig=sig-9c2d")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	st, err := store.New([]store.Source{src}, store.Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(context.Background(), tools.New(st, tools.Options{}), Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"skill://pdf/SKILL.md"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"pdf"}}}`,
	} {
		a := srv.handle(context.Background(), source{}, []byte(msg))
		if !strings.Contains(string(a.body), `"`+ProvenanceMetaKey+`":{"source":"project","kind":"local","location":`) {
			t.Errorf("%s: no provenance: %s", msg, a.body)
		}
		for _, secret := range []string{"hunter2-pw", "tok-5e1f", "sig-9c2d", "ana:"} {
			if strings.Contains(string(a.body), secret) {
				t.Errorf("%s: the answer holds %q: %s", msg, secret, a.body)
			}
		}
	}
}
