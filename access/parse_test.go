package access

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       string // the whole error text
	}{
		{"unknown rule key", `
default: deny
rules:
  - group: [finance]
    sources: ["*"]
    skills: ["*"]`, `policy.yaml:4: unknown key "group" (did you mean "groups"?)`},
		{"unknown top key", `
default: deny
rule: []`, "policy.yaml:2: no \"rules\"\npolicy.yaml:3: unknown key \"rule\" (did you mean \"rules\"?)"},
		{"unknown key far from any", `
default: deny
colour: blue
rules: [{sources: ["*"], skills: ["*"]}]`, `policy.yaml:3: unknown key "colour" (known: default, rules, writes, reviews, review, channels, stdio)`},
		{"key in capitals", `
Default: deny
rules: [{sources: ["*"], skills: ["*"]}]`, "policy.yaml:2: unknown key \"Default\" (did you mean \"default\"?)\npolicy.yaml:2: no \"default\" (write default: deny, or default: allow)"},
		{"bad glob", `
default: deny
rules:
  - sources: ["*"]
    skills: ["ok-*", "[a-"]`, `policy.yaml:5: skills: bad glob "[a-": syntax error in pattern`},
		{"bad source glob", `
default: deny
rules:
  - sources: ["fin\\"]
    skills: ["*"]`, `policy.yaml:4: sources: bad glob "fin\\": syntax error in pattern`},
		{"slash in skill glob", `
default: deny
rules:
  - sources: ["*"]
    skills: ["finance/*"]`, `policy.yaml:5: skills: "finance/*" contains "/"; skill names have none (choose sources with sources:)`},
		{"empty rules", `
default: deny
rules: []`, `policy.yaml:3: rules: empty list`},
		{"rules not a list", `
default: deny
rules: {sources: ["*"]}`, `policy.yaml:3: rules: want a list of rules, got a mapping`},
		{"empty rule", `
default: deny
rules:
  - {}`, `policy.yaml:4: empty rule`},
		{"rule not a mapping", `
default: deny
rules:
  - finance`, `policy.yaml:4: rule: want a mapping, got "finance"`},
		{"rule without skills", `
default: deny
rules:
  - groups: [finance]
    sources: [finance]`, `policy.yaml:4: rule has no "skills" (write skills: ["*"] for all)`},
		{"rule without sources or skills", `
default: deny
rules:
  - groups: [finance]`, "policy.yaml:4: rule has no \"sources\" (write sources: [\"*\"] for all)\npolicy.yaml:4: rule has no \"skills\" (write skills: [\"*\"] for all)"},
		{"groups not a list", `
default: deny
rules:
  - groups: finance
    sources: ["*"]
    skills: ["*"]`, `policy.yaml:4: groups: want a list, got "finance"`},
		{"groups without value", `
default: deny
rules:
  - groups:
    sources: ["*"]
    skills: ["*"]`, `policy.yaml:4: groups: no value (want a list)`},
		{"empty groups", `
default: deny
rules:
  - groups: []
    sources: ["*"]
    skills: ["*"]`, `policy.yaml:4: groups: empty list (leave the key out instead)`},
		{"empty skills", `
default: deny
rules:
  - sources: ["*"]
    skills: []`, `policy.yaml:5: skills: empty list (a rule must grant something; ["*"] for all)`},
		{"nested list", `
default: deny
rules:
  - groups: [[finance]]
    sources: ["*"]
    skills: ["*"]`, `policy.yaml:4: groups: want a string, got a list`},
		{"null in list", `
default: deny
rules:
  - groups: [finance, ~]
    sources: ["*"]
    skills: ["*"]`, `policy.yaml:4: groups: no value`},
		{"empty name", `
default: deny
rules:
  - subjects: [""]
    sources: ["*"]
    skills: ["*"]`, `policy.yaml:4: subjects: empty name`},
		{"star selector", `
default: deny
rules:
  - groups:
      - finance
      - "*"
    sources: ["*"]
    skills: ["*"]`, `policy.yaml:6: groups: "*" is not a wildcard here; leave groups out to match every caller`},
		{"duplicate top key", `
default: deny
default: allow
rules: [{sources: ["*"], skills: ["*"]}]`, `policy.yaml:3: duplicate key "default"`},
		{"duplicate rule key", `
default: deny
rules:
  - sources: ["*"]
    skills: ["a"]
    skills: ["b"]`, `policy.yaml:6: duplicate key "skills"`},
		{"no default", `
rules: [{sources: ["*"], skills: ["*"]}]`, `policy.yaml:2: no "default" (write default: deny, or default: allow)`},
		{"bad default", `
default: maybe
rules: [{sources: ["*"], skills: ["*"]}]`, `policy.yaml:2: default: want "allow" or "deny", got "maybe"`},
		{"default a list", `
default: [deny]
rules: [{sources: ["*"], skills: ["*"]}]`, `policy.yaml:2: default: want a string, got a list`},
		{"alias", `
default: deny
base: &b ["*"]
rules:
  - sources: *b
    skills: ["*"]`, "policy.yaml:3: unknown key \"base\" (known: default, rules, writes, reviews, review, channels, stdio)\npolicy.yaml:5: sources: anchors and aliases are not supported\npolicy.yaml:5: rule has no \"sources\" (write sources: [\"*\"] for all)"},
		{"stdio unknown key", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
stdio:
  subjects: [alice]`, `policy.yaml:5: unknown key "subjects" (did you mean "subject"?)`},
		{"stdio a string", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
stdio: alice`, `policy.yaml:4: stdio: want a mapping with subject, groups or scopes, got "alice"`},
		{"stdio empty subject", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
stdio: {subject: ""}`, `policy.yaml:4: stdio.subject: empty`},
		{"top level list", `
- default: deny`, `policy.yaml:2: want a mapping with default and rules, got a list`},
		{"empty file", ``, `policy.yaml: empty policy`},
		{"only comments", "# nothing yet\n", `policy.yaml: empty policy`},
		{"two documents", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
---
default: allow`, `policy.yaml:4: more than one YAML document`},
		{"syntax error", "default: deny\nrules:\n  - sources: [\"*\"\n    skills: [\"*\"]\n", `policy.yaml:3: did not find expected ',' or ']'`},
		{"unclosed list at the end", "default: [deny\n", `policy.yaml:2: did not find expected ',' or ']'`},
		{"bad indentation", "default: deny\n rules: []\n", `policy.yaml:2: mapping values are not allowed in this context`},
		{"tab indentation", "default: deny\nrules:\n\t- sources: [\"*\"]\n", `policy.yaml:3: found character that cannot start any token`},
		{"writes not a list", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
writes: {skills: ["*"], ops: [create]}`, `policy.yaml:4: writes: want a list of write rules, got a mapping`},
		{"writes empty", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
writes: []`, `policy.yaml:4: writes: empty list (leave writes out: nobody may write)`},
		{"write rule empty", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
writes:
  - {}`, `policy.yaml:5: empty write rule`},
		{"write rule a string", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
writes:
  - platform`, `policy.yaml:5: write rule: want a mapping, got "platform"`},
		{"write rule without ops", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
writes:
  - groups: [platform]
    skills: ["*"]`, `policy.yaml:5: write rule has no "ops" (write ops: [create, version, delete] for all)`},
		{"write rule without skills or ops", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
writes:
  - groups: [platform]`, "policy.yaml:5: write rule has no \"skills\" (write skills: [\"*\"] for all)\npolicy.yaml:5: write rule has no \"ops\" (write ops: [create, version, delete] for all)"},
		{"empty ops", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
writes:
  - skills: ["*"]
    ops: []`, `policy.yaml:6: ops: empty list (a write rule must allow something: create, version, delete)`},
		{"op misspelt", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
writes:
  - skills: ["*"]
    ops: [create, versions]`, `policy.yaml:6: ops: unknown operation "versions" (did you mean "version"?)`},
		{"op unknown", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
writes:
  - skills: ["*"]
    ops:
      - create
      - "*"
      - publish`, "policy.yaml:8: ops: unknown operation \"*\" (known: create, version, delete)\npolicy.yaml:9: ops: unknown operation \"publish\" (known: create, version, delete)"},
		{"op in capitals", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
writes:
  - skills: ["*"]
    ops: [Delete]`, `policy.yaml:6: ops: unknown operation "Delete" (did you mean "delete"?)`},
		{"ops a string", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
writes:
  - skills: ["*"]
    ops: create`, `policy.yaml:6: ops: want a list, got "create"`},
		{"sources in a write rule", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
writes:
  - sources: [registry]
    skills: ["*"]
    ops: [create]`, `policy.yaml:5: unknown key "sources" (known: groups, subjects, scopes, skills, ops)`},
		{"ops in a read rule", `
default: deny
rules:
  - sources: ["*"]
    skills: ["*"]
    ops: [create]`, `policy.yaml:6: unknown key "ops" (known: groups, subjects, scopes, sources, skills)`},
		{"write key misspelt", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
write:
  - skills: ["*"]
    ops: [create]`, `policy.yaml:4: unknown key "write" (did you mean "writes"?)`},
		{"write glob bad", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
writes:
  - skills: ["team-[", "a/b"]
    ops: [create]`, "policy.yaml:5: skills: bad glob \"team-[\": syntax error in pattern\npolicy.yaml:5: skills: \"a/b\" contains \"/\"; skill names have none"},
		{"write star selector", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
writes:
  - subjects: ["*"]
    skills: ["*"]
    ops: [delete]`, `policy.yaml:5: subjects: "*" is not a wildcard here; leave subjects out to match every caller`},
		{"write rule alias", `
default: deny
rules: [{sources: ["*"], skills: &all ["*"]}]
writes:
  - skills: *all
    ops: [delete]`, "policy.yaml:5: skills: anchors and aliases are not supported\npolicy.yaml:5: write rule has no \"skills\" (write skills: [\"*\"] for all)"},
		{"duplicate writes", `
default: deny
rules: [{sources: ["*"], skills: ["*"]}]
writes: [{skills: ["*"], ops: [create]}]
writes: [{skills: ["*"], ops: [delete]}]`, `policy.yaml:5: duplicate key "writes"`},
		{"several problems", `
default: nope
rules:
  - groups: [a]
    sources: ["["]
    skills: ["*"]
  - scope: [x]
    sources: ["*"]
    skills: ["*"]`, "policy.yaml:2: default: want \"allow\" or \"deny\", got \"nope\"\npolicy.yaml:5: sources: bad glob \"[\": syntax error in pattern\npolicy.yaml:7: unknown key \"scope\" (did you mean \"scopes\"?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("policy.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatalf("accepted: %+v", p)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			var le *LineError
			if !errors.As(err, &le) || le.File != "policy.yaml" {
				t.Errorf("not a *LineError naming the file: %#v", err)
			}
		})
	}
}

func TestParseBounds(t *testing.T) {
	big := "default: deny\nrules: [{sources: [\"*\"], skills: [\"*\"]}]\n#" + strings.Repeat("x", MaxPolicySize)
	_, err := Parse("p.yaml", []byte(big))
	if diff := cmp.Diff("p.yaml: larger than 1048576 bytes", errString(err)); diff != "" {
		t.Error(diff)
	}
	var b strings.Builder
	b.WriteString("default: deny\nrules:\n")
	for range MaxRules + 1 {
		b.WriteString("- {sources: [a], skills: [b]}\n")
	}
	_, err = Parse("p.yaml", []byte(b.String()))
	if diff := cmp.Diff("p.yaml:3: rules: more than 10000 rules", errString(err)); diff != "" {
		t.Error(diff)
	}
	// Many problems: the first 20 are reported.
	b.Reset()
	b.WriteString("default: deny\nrules:\n")
	for range 50 {
		b.WriteString("- {sources: [a], skills: [\"[\"]}\n")
	}
	_, err = Parse("p.yaml", []byte(b.String()))
	if n := strings.Count(errString(err), "\n") + 1; n != maxProblems {
		t.Errorf("%d problems reported; want %d", n, maxProblems)
	}
}

func TestParseWriteBounds(t *testing.T) {
	head := "default: deny\nrules: [{sources: [\"*\"], skills: [\"*\"]}]\nwrites:\n"
	var b strings.Builder
	b.WriteString(head)
	for range MaxRules + 1 {
		b.WriteString("- {groups: [g], skills: [b], ops: [create]}\n")
	}
	_, err := Parse("p.yaml", []byte(b.String()))
	if diff := cmp.Diff("p.yaml:4: writes: more than 10000 write rules", errString(err)); diff != "" {
		t.Error(diff)
	}
	// A glob over MaxGlob is refused; one of MaxGlob is taken, and a
	// hostile one (a star per byte) matches in time linear in the name.
	long := strings.Repeat("*a", MaxGlob/2)
	_, err = Parse("p.yaml", []byte(head+"  - skills: [\"x\", \""+long+"*\"]\n    ops: [create]\n"))
	if diff := cmp.Diff("p.yaml:4: skills: a glob of 1025 bytes (at most 1024)", errString(err)); diff != "" {
		t.Error(diff)
	}
	_, err = Parse("p.yaml", []byte("default: deny\nrules:\n  - sources: [\""+long+"b\"]\n    skills: [\"*\"]\n"))
	if diff := cmp.Diff("p.yaml:3: sources: a glob of 1025 bytes (at most 1024)", errString(err)); diff != "" {
		t.Error(diff)
	}
	p, err := Parse("p.yaml", []byte(head+"  - skills: [\""+long+"\"]\n    ops: [create]\n"))
	if err != nil {
		t.Fatal(err)
	}
	pr := &Principal{Scopes: []string{WriteScope}}
	name := strings.Repeat("a", 511) + "b"
	if ok, why := p.MayWrite(pr, WriteCreate, "reg", name); ok {
		t.Errorf("a hostile glob matched %q: %s", name, why)
	}
	if ok, why := p.MayWrite(pr, WriteCreate, "reg", strings.Repeat("a", 512)); !ok {
		t.Errorf("a hostile glob did not match its own letters: %s", why)
	}
	// Many problems across rules and write rules: the first 20, in line order.
	b.Reset()
	b.WriteString("default: deny\nrules:\n")
	for range 5 {
		b.WriteString("- {sources: [a], skills: [\"[\"]}\n")
	}
	b.WriteString("writes:\n")
	for range 50 {
		b.WriteString("- {skills: [b], ops: [nope]}\n")
	}
	_, err = Parse("p.yaml", []byte(b.String()))
	lines := strings.Split(errString(err), "\n")
	if len(lines) != maxProblems || !strings.HasPrefix(lines[0], "p.yaml:3: ") || !strings.HasPrefix(lines[5], "p.yaml:9: ops: ") {
		t.Errorf("problems:\n%s", errString(err))
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "team-policy.yaml")
	if err := os.WriteFile(file, []byte("default: allow\nrules:\n  - {groups: [x], sources: [a], skills: [\"*\"]}\n  - {groups: [x], sources: [b], skills: [oops/]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(file)
	want := `team-policy.yaml:4: skills: "oops/" contains "/"; skill names have none (choose sources with sources:)`
	if diff := cmp.Diff(want, errString(err)); diff != "" {
		t.Error(diff)
	}
	_, err = Load(filepath.Join(dir, "missing.yaml"))
	if !errors.Is(err, os.ErrNotExist) || strings.Contains(err.Error(), dir) {
		t.Errorf("missing file: %v; want ErrNotExist without the directory", err)
	}
}
