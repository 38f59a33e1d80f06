package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/skillstore/skillstore/internal/logtext"
)

// Frontmatter holds the YAML header of a SKILL.md. The known fields of the
// Agent Skills specification are parsed; Raw keeps the header text verbatim,
// so fields the specification does not name (clients add their own) are
// never lost.
type Frontmatter struct {
	Name          string
	Description   string
	License       string
	Compatibility string
	Metadata      map[string]string
	AllowedTools  []string
	// Raw is the YAML text between the two "---" lines, line endings as in the file.
	Raw string
	// Extra lists the top-level keys the specification does not define, in file order.
	Extra []string
}

// Diagnostic is one way a skill breaks the Agent Skills specification.
type Diagnostic struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	Fix     string `json:"fix"`
}

func (d Diagnostic) String() string { return d.Field + ": " + d.Message }

// errNoFrontmatter and errUnclosed describe documents without a usable header.
var (
	errNoFrontmatter = errors.New("SKILL.md must start with a YAML frontmatter block between '---' lines")
	errUnclosed      = errors.New("the YAML frontmatter block has no closing '---' line")
)

// SplitDocument splits a SKILL.md into its frontmatter (the YAML between
// the '---' lines) and its body, the Markdown after them. The document
// must start with a line "---" (a UTF-8 BOM is tolerated) and the header
// ends at the next line "---" or "..."; CRLF line endings are accepted.
func SplitDocument(doc string) (header, body string, err error) {
	doc = strings.TrimPrefix(doc, "\uFEFF")
	first, rest, ok := cutLine(doc)
	if !ok && first == "" || strings.TrimRight(first, " \t") != "---" {
		return "", "", errNoFrontmatter
	}
	start := len(doc) - len(rest)
	for pos := start; pos < len(doc); {
		line, next, _ := cutLine(doc[pos:])
		if l := strings.TrimRight(line, " \t"); l == "---" || l == "..." {
			return doc[start:pos], next, nil
		}
		pos = len(doc) - len(next)
	}
	return "", "", errUnclosed
}

// cutLine splits s after its first line, dropping the "\n" or "\r\n".
func cutLine(s string) (line, rest string, found bool) {
	line, rest, found = strings.Cut(s, "\n")
	return strings.TrimSuffix(line, "\r"), rest, found
}

// Limits on a SKILL.md's frontmatter, which every listing carries: its
// size, and the YAML nodes it may hold. YAML aliases (*name) are refused:
// expanding them lets a small document stand for an enormous one.
const (
	MaxFrontmatterBytes = 64 << 10
	maxFrontmatterNodes = 10000
)

// ParseFrontmatter parses a SKILL.md header. It fails when the header is
// missing, is not a YAML mapping, or exceeds the frontmatter limits; a field
// of the wrong type is reported as a Diagnostic, since one wrong field must
// not hide the rest of the skill.
func ParseFrontmatter(doc string) (Frontmatter, []Diagnostic, error) {
	header, _, err := SplitDocument(doc)
	if err != nil {
		return Frontmatter{}, nil, err
	}
	if len(header) <= MaxFrontmatterBytes {
		// Fields are substrings of the header: copy it so they do not pin the document.
		header = strings.Clone(header)
	}
	return parseHeader(header)
}

// parseHeader parses the YAML between a document's '---' lines. The
// fields it returns are substrings of header.
func parseHeader(header string) (Frontmatter, []Diagnostic, error) {
	if len(header) > MaxFrontmatterBytes {
		return Frontmatter{}, nil, fmt.Errorf("the YAML frontmatter is %s; the limit is %s: move long content into the Markdown body", FormatSize(int64(len(header))), FormatSize(MaxFrontmatterBytes))
	}
	if fm, ok := parseSimple(header); ok {
		return fm, nil, nil
	}
	return parseYAML(header)
}

// parseYAML parses a header with the YAML parser.
func parseYAML(header string) (Frontmatter, []Diagnostic, error) {
	fm := Frontmatter{Raw: header}
	root, err := yamlRoot(header)
	if err != nil {
		return fm, nil, err
	}
	if root == nil { // empty header
		return fm, nil, nil
	}
	m := root
	var diags []Diagnostic
	str := func(field string, v *yaml.Node) string {
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			diags = append(diags, Diagnostic{Field: field, Message: "must be a string", Fix: "write " + field + " as a single-line string"})
			return ""
		}
		return v.Value
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i].Value, m.Content[i+1]
		switch k {
		case "name":
			fm.Name = str(k, v)
		case "description":
			fm.Description = str(k, v)
		case "license":
			fm.License = str(k, v)
		case "compatibility":
			fm.Compatibility = str(k, v)
		case "allowed-tools":
			fm.AllowedTools = strings.Fields(str(k, v))
		case "metadata":
			if err := v.Decode(&fm.Metadata); err != nil || v.Kind != yaml.MappingNode {
				fm.Metadata = nil
				diags = append(diags, Diagnostic{Field: k, Message: "must be a mapping of string keys to string values", Fix: "quote every metadata value, e.g. version: \"1.0\""})
			}
		default:
			fm.Extra = append(fm.Extra, k)
		}
		if nonFinite(v) {
			diags = append(diags, Diagnostic{Field: k, Message: "holds .nan or .inf, which JSON cannot carry, so hosts that read the frontmatter are not served this skill", Fix: "quote the value, e.g. score: \".nan\""})
		}
	}
	return fm, diags, nil
}

// nonFinite reports a YAML float that is not a number or infinite,
// anywhere in n.
func nonFinite(n *yaml.Node) bool {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" {
		switch strings.ToLower(strings.TrimLeft(n.Value, "+-")) {
		case ".nan", ".inf":
			return true
		}
	}
	for _, c := range n.Content {
		if nonFinite(c) {
			return true
		}
	}
	return false
}

// yamlRoot parses a frontmatter header into its root mapping (nil when the
// header is empty), refusing aliases and more than maxFrontmatterNodes nodes.
func yamlRoot(header string) (*yaml.Node, error) {
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(header), &root); err != nil {
		return nil, fmt.Errorf("the YAML frontmatter does not parse: %s", yamlMessage(err))
	}
	if root.Kind == 0 {
		return nil, nil
	}
	nodes := 0
	var walk func(n *yaml.Node) error
	walk = func(n *yaml.Node) error {
		if n.Kind == yaml.AliasNode {
			return fmt.Errorf("the YAML frontmatter uses an alias (*%s), which skillstore does not expand: write the value out", clipAlias(n.Value))
		}
		if nodes++; nodes > maxFrontmatterNodes {
			return fmt.Errorf("the YAML frontmatter has more than %d keys and values: keep it to the fields skills use", maxFrontmatterNodes)
		}
		for _, c := range n.Content {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(&root); err != nil {
		return nil, err
	}
	m := root.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, errors.New("the YAML frontmatter must be a mapping of keys to values")
	}
	return m, nil
}

func clipAlias(s string) string { return logtext.Clip(s, 40) }

// RenderFrontmatter returns a skill's frontmatter (Skill.Raw) as a value
// encoding/json writes as an object, for hosts that read it verbatim (the
// Skills extension): keys that are not strings are formatted as strings.
// It applies ParseFrontmatter's limits, so it never expands an alias.
func RenderFrontmatter(raw string) (map[string]any, error) {
	if len(raw) > MaxFrontmatterBytes {
		return nil, fmt.Errorf("the YAML frontmatter is over %s", FormatSize(MaxFrontmatterBytes))
	}
	m, err := yamlRoot(raw)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return map[string]any{}, nil
	}
	var v map[string]any
	if err := m.Decode(&v); err != nil {
		return nil, fmt.Errorf("the YAML frontmatter cannot be rendered: %s", yamlMessage(err))
	}
	return jsonSafe(v).(map[string]any), nil
}

// jsonSafe converts YAML-decoded values to ones encoding/json accepts:
// maps with non-string keys get their keys formatted as strings.
func jsonSafe(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = jsonSafe(x)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[fmt.Sprint(k)] = jsonSafe(x)
		}
		return m
	case []any:
		for i, x := range v {
			v[i] = jsonSafe(x)
		}
		return v
	}
	return v
}

// parseSimple parses the shape nearly every SKILL.md header has, without a
// YAML parser: "key: plain value" lines and one "metadata:" block of
// indented "key: plain value" lines. It gives up (ok=false) on anything
// else — quotes, block scalars, flow collections, comments, anchors,
// multi-line values, duplicate keys, values YAML reads as null — and the
// caller falls back to the YAML parser. FuzzFrontmatter checks that both
// agree wherever parseSimple answers.
func parseSimple(header string) (fm Frontmatter, ok bool) {
	const maxSimpleKeys = 32 // more go to the YAML parser
	fm.Raw = header
	var seen []string // the top-level keys: few, so a scan beats a map
	inMeta, metaIndent := false, ""
	for rest := header; rest != ""; {
		var line string
		line, rest, _ = cutLine(rest)
		if strings.TrimLeft(line, " ") == "" {
			if line != "" {
				return fm, false
			}
			continue
		}
		if line[0] == ' ' {
			if !inMeta {
				return fm, false
			}
			indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
			if metaIndent == "" {
				metaIndent = indent
			}
			if indent != metaIndent {
				return fm, false
			}
			k, v, ok := simplePair(line[len(indent):])
			if !ok || v == "" {
				return fm, false
			}
			if _, dup := fm.Metadata[k]; dup {
				return fm, false
			}
			fm.Metadata[k] = v
			continue
		}
		if inMeta && len(fm.Metadata) == 0 {
			return fm, false // "metadata:" with no entries is null
		}
		inMeta = false
		k, v, ok := simplePair(line)
		if !ok || len(seen) == maxSimpleKeys || slices.Contains(seen, k) {
			return fm, false
		}
		seen = append(seen, k)
		if v == "" {
			if k != "metadata" {
				return fm, false
			}
			inMeta, metaIndent = true, ""
			fm.Metadata = map[string]string{}
			continue
		}
		switch k {
		case "name":
			fm.Name = v
		case "description":
			fm.Description = v
		case "license":
			fm.License = v
		case "compatibility":
			fm.Compatibility = v
		case "allowed-tools":
			fm.AllowedTools = strings.Fields(v)
		case "metadata":
			return fm, false
		default:
			fm.Extra = append(fm.Extra, k)
		}
	}
	if inMeta && len(fm.Metadata) == 0 {
		return fm, false
	}
	return fm, len(seen) > 0
}

// simplePair splits "key: value" where key is [A-Za-z0-9_-]+ and value is a
// plain scalar that YAML reads as the same text (or is empty).
func simplePair(line string) (key, value string, ok bool) {
	i := strings.IndexByte(line, ':')
	if i <= 0 || i > 1000 {
		return "", "", false // YAML limits an implicit key to 1,024 characters: let it judge
	}
	key = line[:i]
	for j := 0; j < len(key); j++ {
		c := key[j]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return "", "", false
		}
	}
	if key[0] == '-' {
		return "", "", false
	}
	rest := line[i+1:]
	if rest == "" {
		return key, "", true
	}
	if rest[0] != ' ' {
		return "", "", false
	}
	value = strings.TrimRight(strings.TrimLeft(rest, " "), " ")
	if value == "" {
		return key, "", true
	}
	if n := len(value); n >= 2 && (value[0] == '"' || value[0] == '\'') && value[n-1] == value[0] {
		// A quoted scalar without escapes, inner quotes or edge spaces is its content.
		inner := value[1 : n-1]
		if inner == "" || strings.ContainsAny(inner, "\"'\\\t") || inner[0] == ' ' || inner[len(inner)-1] == ' ' {
			return "", "", false
		}
		return key, inner, checkRunes(inner)
	}
	if strings.ContainsAny(value, "\t\r") || strings.Contains(value, ": ") || strings.Contains(value, " #") || strings.HasSuffix(value, ":") {
		return "", "", false
	}
	if strings.ContainsRune("-?:,[]{}#&*!|>'\"%@`", rune(value[0])) {
		return "", "", false
	}
	switch value {
	case "~", "null", "Null", "NULL", "---", "...":
		return "", "", false
	}
	if strings.HasPrefix(strings.TrimLeft(value, "+-"), ".") {
		return "", "", false // .nan, .inf and the like: YAML's own values
	}
	return key, value, checkRunes(value)
}

// checkRunes reports whether v holds no character YAML refuses (controls)
// or treats as a line break (NEL, LS, PS).
func checkRunes(v string) bool {
	for _, r := range v {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 || r == 0xFEFF || r == utf8.RuneError {
			return false
		}
	}
	return true
}

// yamlMessage strips the library prefix from a YAML error.
func yamlMessage(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// Limits of the Agent Skills specification (agentskills.io/specification).
const (
	MaxNameLen          = 64
	MaxDescriptionLen   = 1024
	MaxCompatibilityLen = 500
)

// Validate checks a parsed header against the Agent Skills specification for
// a skill stored in folder dir. It returns nil for a valid skill.
func Validate(dir string, fm Frontmatter) []Diagnostic {
	var d []Diagnostic
	switch n := fm.Name; {
	case n == "":
		d = append(d, Diagnostic{"name", "is missing", "add `name: " + suggestName(dir) + "` to the frontmatter"})
	case utf8.RuneCountInString(n) > MaxNameLen:
		d = append(d, Diagnostic{"name", fmt.Sprintf("is longer than %d characters", MaxNameLen), "shorten the name and rename the folder to match"})
	case !validName(n):
		d = append(d, Diagnostic{"name", fmt.Sprintf("%q must use only lowercase letters, digits and single hyphens, and must not start or end with a hyphen", Echo(n)), "rename it to " + suggestName(n)})
	case n != dir:
		d = append(d, Diagnostic{"name", fmt.Sprintf("%q does not match the folder name %q", Echo(n), Echo(dir)), "rename the folder or set `name: " + suggestName(dir) + "`"})
	}
	switch l := utf8.RuneCountInString(fm.Description); {
	case strings.TrimSpace(fm.Description) == "":
		d = append(d, Diagnostic{"description", "is missing or empty", "add a description of what the skill does and when to use it"})
	case l > MaxDescriptionLen:
		d = append(d, Diagnostic{"description", fmt.Sprintf("has %d characters; the limit is %d", l, MaxDescriptionLen), "shorten the description and move detail into the body"})
	}
	if l := utf8.RuneCountInString(fm.Compatibility); l > MaxCompatibilityLen {
		d = append(d, Diagnostic{"compatibility", fmt.Sprintf("has %d characters; the limit is %d", l, MaxCompatibilityLen), "shorten the compatibility note"})
	}
	return d
}

// SpecName reports whether n is a name the Agent Skills specification
// allows: 1 to MaxNameLen characters of a-z, 0-9 and single inner hyphens.
func SpecName(n string) bool { return len(n) <= MaxNameLen && validName(n) }

// validName reports whether n uses only a-z, 0-9 and single inner hyphens.
func validName(n string) bool {
	if n == "" || n[0] == '-' || n[len(n)-1] == '-' || strings.Contains(n, "--") {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// suggestName turns s into a name the specification accepts.
func suggestName(s string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			hyphen = false
		} else if !hyphen && b.Len() > 0 {
			b.WriteByte('-')
			hyphen = true
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if len(out) > MaxNameLen {
		out = strings.TrimRight(out[:MaxNameLen], "-")
	}
	if out == "" {
		return "my-skill"
	}
	return out
}
