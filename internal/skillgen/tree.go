package skillgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// WriteTree writes each skill as dir/NAME/SKILL.md (frontmatter with the
// name and the description as a double-quoted, JSON-compatible YAML
// string, then the body), and a reference.md beside it for the skills
// that have one.
func WriteTree(dir string, skills []Skill) error {
	for _, s := range skills {
		d := filepath.Join(dir, s.Name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(d, "SKILL.md"), SkillMD(s), 0o644); err != nil {
			return err
		}
		if s.ref != "" {
			if err := os.WriteFile(filepath.Join(d, "reference.md"), []byte(s.ref), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// SkillMD returns the SKILL.md of s.
func SkillMD(s Skill) []byte {
	var b bytes.Buffer
	b.WriteString("---\nname: ")
	b.WriteString(s.Name)
	b.WriteString("\ndescription: ")
	b.WriteString(quote(s.Description))
	b.WriteString("\n---\n\n")
	b.WriteString(s.Body)
	if !strings.HasSuffix(s.Body, "\n") {
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// quote returns s as a double-quoted string that YAML and JSON read alike.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err) // a string always encodes
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// ReadTree reads the skills of fsys: every SKILL.md one folder deep
// (NAME/SKILL.md), sorted by folder. It reads the frontmatter's name and
// description when they are plain, double-quoted or single-quoted scalars
// on one line each, as in the built-in examples and in WriteTree's output.
func ReadTree(fsys fs.FS) ([]Skill, error) {
	ms, err := fs.Glob(fsys, "*/SKILL.md")
	if err != nil {
		return nil, err
	}
	sort.Strings(ms)
	var out []Skill
	for _, m := range ms {
		data, err := fs.ReadFile(fsys, m)
		if err != nil {
			return nil, err
		}
		s, err := ParseSkillMD(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m, err)
		}
		if s.Name != path.Dir(m) {
			return nil, fmt.Errorf("%s: name %q is not the folder's", m, s.Name)
		}
		out = append(out, s)
	}
	return out, nil
}

// ParseSkillMD reads a SKILL.md's name, description and body.
func ParseSkillMD(data []byte) (Skill, error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return Skill{}, errors.New("no frontmatter")
	}
	front, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		return Skill{}, errors.New("unterminated frontmatter")
	}
	var s Skill
	for _, line := range strings.Split(front, "\n") {
		if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
			continue // nested (metadata)
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch {
		case strings.HasPrefix(v, `"`):
			u, err := strconv.Unquote(v)
			if err != nil {
				return Skill{}, fmt.Errorf("%s: %v", k, err)
			}
			v = u
		case strings.HasPrefix(v, "'"):
			v = strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(v, "'"), "'"), "''", "'")
		case v == "|" || v == ">" || v == "|-" || v == ">-":
			return Skill{}, fmt.Errorf("%s: block scalars are not supported", k)
		}
		switch k {
		case "name":
			s.Name = v
		case "description":
			s.Description = v
		}
	}
	if s.Name == "" || s.Description == "" {
		return Skill{}, errors.New("frontmatter lacks a name or a description")
	}
	s.Body = strings.TrimLeft(body, "\n")
	return s, nil
}
