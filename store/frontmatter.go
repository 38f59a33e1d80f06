package store

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
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

// splitFrontmatter returns the YAML header and the body of a SKILL.md. The
// document must start with a line "---" (a UTF-8 BOM is tolerated) and the
// header ends at the next line "---" or "..."; CRLF line endings are accepted.
func splitFrontmatter(doc string) (header, body string, err error) {
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

// ParseFrontmatter parses a SKILL.md header. It fails only when the header is
// missing or is not a YAML mapping; a field of the wrong type is reported as
// a Diagnostic, since one wrong field must not hide the rest of the skill.
func ParseFrontmatter(doc string) (Frontmatter, []Diagnostic, error) {
	header, _, err := splitFrontmatter(doc)
	if err != nil {
		return Frontmatter{}, nil, err
	}
	fm := Frontmatter{Raw: header}
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(header), &root); err != nil {
		return fm, nil, fmt.Errorf("the YAML frontmatter does not parse: %s", yamlMessage(err))
	}
	if root.Kind == 0 { // empty header
		return fm, nil, nil
	}
	m := root.Content[0]
	if m.Kind != yaml.MappingNode {
		return fm, nil, errors.New("the YAML frontmatter must be a mapping of keys to values")
	}
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
	}
	return fm, diags, nil
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
		d = append(d, Diagnostic{"name", fmt.Sprintf("%q must use only lowercase letters, digits and single hyphens, and must not start or end with a hyphen", quote(n)), "rename it to " + suggestName(n)})
	case n != dir:
		d = append(d, Diagnostic{"name", fmt.Sprintf("%q does not match the folder name %q", quote(n), quote(dir)), "rename the folder or set `name: " + suggestName(dir) + "`"})
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
