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

// TestProvenanceOnEveryAnswer: on both protocol eras, every answer that
// serves a skill's content or manifest carries its provenance — the
// source's label, kind, location, revision and signer — where the
// protocol puts per-item or per-result metadata; lists of many skills,
// folder listings and failures carry none; and a caller never gets the
// provenance of a skill it may not see.
func TestProvenanceOnEveryAnswer(t *testing.T) {
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
	srv, err := New(context.Background(), tools.New(st, tools.Options{}), Options{Logger: quiet(), Access: policyOf{pol}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"source": "org", "kind": "s3", "location": "s3://skills?prefix=team/", "revision": signed.rev,
		"signer": map[string]any{"fingerprint": signed.signer.Fingerprint, "principal": "release@example.com", "kind": "ssh"}}
	viewer := srv.callerFor(&access.Principal{Subject: "ana", Groups: []string{"team"}})
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
		prov := func(meta any) any {
			m, _ := meta.(map[string]any)
			return m[ProvenanceMetaKey]
		}
		result := func(m map[string]any) map[string]any { r, _ := m["result"].(map[string]any); return r }
		item := func(m map[string]any, list string) map[string]any {
			items, _ := result(m)[list].([]any)
			if len(items) == 0 {
				return nil
			}
			i, _ := items[0].(map[string]any)
			return i
		}
		skill := func(m map[string]any) map[string]any { s, _ := result(m)["skill"].(map[string]any); return s }
		pdfEntry := func(m map[string]any) map[string]any { // of everyone's list, which holds keys first
			skills, _ := result(m)["skills"].([]any)
			for _, e := range skills {
				if e, _ := e.(map[string]any); e["uri"] == "skill://pdf/SKILL.md" {
					return e
				}
			}
			return nil
		}
		for _, tc := range []struct {
			who            *caller
			method, params string
			where          func(map[string]any) any // where the answer carries its provenance
			want           any
		}{
			{nil, "tools/call", `{"name":"get_skill","arguments":{"skill_name":"pdf"}}`, func(m map[string]any) any { return result(m)["_meta"] }, want},
			{nil, "tools/call", `{"name":"Skill","arguments":{"skill_name":"pdf"}}`, func(m map[string]any) any { return result(m)["_meta"] }, want},
			{nil, "tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"pdf","file_path":"forms.md"}}`, func(m map[string]any) any { return result(m)["_meta"] }, want},
			{nil, "resources/read", `{"uri":"skill://pdf/SKILL.md"}`, func(m map[string]any) any { return item(m, "contents")["_meta"] }, want},
			{nil, "resources/read", `{"uri":"skill://pdf/forms.md"}`, func(m map[string]any) any { return item(m, "contents")["_meta"] }, want},
			{nil, "prompts/get", `{"name":"pdf"}`, func(m map[string]any) any { return result(m)["_meta"] }, want},
			{nil, "skills/list", `{}`, func(m map[string]any) any { return pdfEntry(m)["_meta"] }, want},
			{nil, "skills/get", `{"uri":"skill://pdf/SKILL.md"}`, func(m map[string]any) any { return skill(m)["_meta"] }, want},
			{viewer, "skills/get", `{"uri":"skill://pdf/SKILL.md"}`, func(m map[string]any) any { return skill(m)["_meta"] }, want},
			// none: lists, folder listings, failures, hidden skills
			{nil, "tools/call", `{"name":"list_skills","arguments":{}}`, func(m map[string]any) any { return result(m)["_meta"] }, nil},
			{nil, "resources/directory/read", `{"uri":"skill://pdf"}`, func(m map[string]any) any { return result(m)["_meta"] }, nil},
			{nil, "tools/call", `{"name":"get_skill","arguments":{"skill_name":"nope"}}`, func(m map[string]any) any { return result(m)["_meta"] }, nil},
			{viewer, "tools/call", `{"name":"get_skill","arguments":{"skill_name":"keys"}}`, func(m map[string]any) any { return result(m)["_meta"] }, nil},
			{viewer, "tools/call", `{"name":"read_file_in_skill","arguments":{"skill_name":"keys","file_path":"notes.md"}}`, func(m map[string]any) any { return result(m)["_meta"] }, nil},
			{viewer, "resources/read", `{"uri":"skill://keys/SKILL.md"}`, func(m map[string]any) any { return m["error"] }, nil},
			{viewer, "prompts/get", `{"name":"keys"}`, func(m map[string]any) any { return m["error"] }, nil},
			{viewer, "skills/get", `{"uri":"skill://keys/SKILL.md"}`, func(m map[string]any) any { return m["error"] }, nil},
		} {
			got := tc.where(send(tc.who, tc.method, tc.params))
			if diff := cmp.Diff(tc.want, prov(got)); diff != "" {
				t.Errorf("modern=%v %s %s: provenance (-want +got):\n%s", modern, tc.method, tc.params, diff)
			}
		}
		// skills/list through the viewer's view: only the skills it sees,
		// each with its own provenance.
		list := send(viewer, "skills/list", `{}`)
		if skills, _ := result(list)["skills"].([]any); len(skills) != 1 || cmp.Diff(want, prov(skills[0].(map[string]any)["_meta"])) != "" {
			t.Errorf("modern=%v: the viewer's skills/list: %v", modern, list)
		}
		// On 2026-07-28 the result _meta keeps the server's identity beside it.
		if m := result(send(nil, "tools/call", `{"name":"get_skill","arguments":{"skill_name":"pdf"}}`))["_meta"].(map[string]any); modern != (m["io.modelcontextprotocol/serverInfo"] != nil) {
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
