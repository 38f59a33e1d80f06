package discovery_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/discovery"
)

// TestRoundTrip: what a writer marshals, Parse reads back unchanged.
func TestRoundTrip(t *testing.T) {
	want := discovery.Index{Schema: discovery.Schema, Skills: []discovery.Entry{
		{Name: "pdf", Type: discovery.TypeArchive, Description: "PDF forms.", URL: "/.well-known/agent-skills/pdf.zip", Digest: "sha256:" + strings.Repeat("ab", 32)},
		{Name: "calc", Type: discovery.TypeSkillMD, Description: "Sums.", URL: "https://example.com/calc/SKILL.md", Digest: "sha256:" + strings.Repeat("0", 64)},
	}}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := discovery.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestParseErrors(t *testing.T) {
	var se *discovery.SchemaError
	for _, tt := range []struct {
		name, body string
		check      func(error) bool
	}{
		{"not JSON", `{"skills":`, func(err error) bool { var je *json.SyntaxError; return errors.As(err, &je) }},
		{"no $schema (v0.1.0)", `{"skills":[]}`, func(err error) bool { return errors.Is(err, discovery.ErrNoSchema) }},
		{"another $schema", `{"$schema":"https://x/1.0.0","skills":[]}`, func(err error) bool { return errors.As(err, &se) && se.Got == "https://x/1.0.0" }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := discovery.Parse([]byte(tt.body)); !tt.check(err) {
				t.Errorf("Parse(%s): %v", tt.body, err)
			}
		})
	}
}

func TestEntryChecks(t *testing.T) {
	hex64 := strings.Repeat("0a", 32)
	for _, tt := range []struct {
		digest, hex string
		ok          bool
	}{
		{"sha256:" + hex64, hex64, true},
		{hex64, "", false},
		{"sha256:" + strings.ToUpper(hex64), "", false},
		{"sha256:" + hex64[:63], "", false},
		{"sha512:" + hex64, "", false},
		{"sha256:" + hex64[:62] + "zz", "", false},
	} {
		h, ok := discovery.Entry{Digest: tt.digest}.HexDigest()
		if h != tt.hex || ok != tt.ok {
			t.Errorf("HexDigest(%q) = %q, %v; want %q, %v", tt.digest, h, ok, tt.hex, tt.ok)
		}
	}
	for typ, known := range map[string]bool{"skill-md": true, "archive": true, "zip": false, "": false, "Archive": false} {
		if got := (discovery.Entry{Type: typ}).KnownType(); got != known {
			t.Errorf("KnownType(%q) = %v", typ, got)
		}
	}
}
