// Package discovery is the Agent Skills discovery index (RFC v0.2.0),
// the index.json a site publishes under /.well-known/agent-skills/: its
// format (its schema, its types, and the checks of an entry), defined
// once for the publication that writes it (Publisher, which package site
// mounts) and the source that reads it (backends/wellknown).
package discovery

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Schema is the $schema of a v0.2.0 index, the version with digests.
const Schema = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"

// The types of an entry: a skill published as its SKILL.md alone, or as a
// zip archive of its files.
const (
	TypeSkillMD = "skill-md"
	TypeArchive = "archive"
)

// Index is a discovery index.
type Index struct {
	Schema string  `json:"$schema"`
	Skills []Entry `json:"skills"`
}

// Entry is one skill of an Index.
type Entry struct {
	Name        string `json:"name"`
	Type        string `json:"type"` // TypeSkillMD or TypeArchive
	Description string `json:"description"`
	URL         string `json:"url"`
	Digest      string `json:"digest"` // "sha256:" and 64 lowercase hex digits
}

// HexDigest returns the hex digits of e's digest, or false when it is not
// "sha256:" and 64 lowercase hex digits.
func (e Entry) HexDigest() (string, bool) {
	h, ok := strings.CutPrefix(e.Digest, "sha256:")
	if !ok || len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
		return "", false
	}
	return h, true
}

// KnownType reports whether e's type is one this version defines.
func (e Entry) KnownType() bool { return e.Type == TypeSkillMD || e.Type == TypeArchive }

// ErrNoSchema: an index without $schema is a v0.1.0 one, which has no
// digests.
var ErrNoSchema = errors.New("the index has no $schema: a v0.1.0 index, which has no digests")

// SchemaError is an index whose $schema is not Schema.
type SchemaError struct{ Got string }

func (e *SchemaError) Error() string {
	return fmt.Sprintf("the index's $schema %q is not one this reader knows", e.Got)
}

// Parse reads an index: JSON, with Schema as its $schema. Its entries are
// returned unchecked (see Entry.HexDigest and Entry.KnownType).
func Parse(body []byte) (Index, error) {
	var raw struct {
		Schema *string `json:"$schema"`
		Skills []Entry `json:"skills"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return Index{}, err
	}
	switch {
	case raw.Schema == nil:
		return Index{}, ErrNoSchema
	case *raw.Schema != Schema:
		return Index{}, &SchemaError{Got: *raw.Schema}
	}
	return Index{Schema: *raw.Schema, Skills: raw.Skills}, nil
}
