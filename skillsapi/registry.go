package skillsapi

import (
	"context"
	"io"

	"github.com/skillstore/skillstore/internal/skillcheck"
)

// Registry is what the handler serves: skills, their immutable versions
// and a latest pointer each. backends/registry keeps one in object
// storage. Its methods return *Error for what the caller should be told
// (404 for an unknown skill or version, 409 for a name taken, 400 for a
// version whose name is not the skill's); any other error is a 500 whose
// text is not sent. A skill's ID and Name never change.
//
// Visible, where a method takes it, is the caller's view: a skill whose
// name it refuses is answered as one that does not exist, in content and
// in cost (it is skipped without being read).
type Registry interface {
	// CreateSkill stores sk as a new skill and its first version,
	// uploaded by by. displayName "" takes the frontmatter's name.
	CreateSkill(ctx context.Context, by string, sk *skillcheck.Skill, displayName string) (Skill, Version, error)
	// CreateVersion stores sk as skill id's newest version.
	CreateVersion(ctx context.Context, by string, id string, sk *skillcheck.Skill, visible func(name string) bool) (Version, error)
	// Skill returns skill id.
	Skill(ctx context.Context, id string, visible func(name string) bool) (Skill, error)
	// SkillByName returns the skill named name (its slug), as Skill
	// does: a 404 when there is none or visible refuses it.
	SkillByName(ctx context.Context, name string, visible func(name string) bool) (Skill, error)
	// Skills lists up to limit skills after the ID after ("" for the
	// first), oldest first; more says whether any are left.
	Skills(ctx context.Context, after string, limit int, visible func(name string) bool) (page []Skill, more bool, err error)
	// Versions lists up to limit versions of skill id after the version
	// ID after, newest first.
	Versions(ctx context.Context, id, after string, limit int, visible func(name string) bool) (page []Version, more bool, err error)
	// Version returns a version of skill id: its ID, or "latest".
	Version(ctx context.Context, id, version string, visible func(name string) bool) (Version, error)
	// DeleteSkill deletes skill id and all its versions.
	DeleteSkill(ctx context.Context, by string, id string, visible func(name string) bool) error
	// DeleteVersion deletes one version, named by its ID. The last
	// version of a skill is refused (delete the skill).
	DeleteVersion(ctx context.Context, by string, id, version string, visible func(name string) bool) (Version, error)
	// WriteZip writes a version's files as one zip archive: one top folder
	// named as the skill, every file's bytes as uploaded. version may be
	// "latest". It fails before writing anything when the version is
	// unknown or hidden.
	WriteZip(ctx context.Context, w io.Writer, id, version string, visible func(name string) bool) error
}
