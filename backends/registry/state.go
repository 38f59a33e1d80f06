package registry

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/hidden"
	"github.com/skillstore/skillstore/store"
)

// version is one immutable version, as its log entry records it.
type version struct {
	ID          string           `json:"id"`
	Seq         uint64           `json:"seq"` // the log entry that made it
	Created     time.Time        `json:"created"`
	By          string           `json:"by,omitempty"`
	Description string           `json:"description"`
	Digest      string           `json:"digest"`
	DocPath     string           `json:"doc"`
	Frontmatter string           `json:"frontmatter"`
	Headings    string           `json:"headings,omitempty"`
	Files       fileList         `json:"files"`
	Findings    []hidden.Finding `json:"findings,omitempty"`
	// Signer is who signed the entry, when a trust list verified it;
	// signed is whether one did (never in the JSON: each replica checks).
	Signer store.Signer `json:"-"`
	signed bool
}

// fileList is a version's files, each in JSON as one string
// "SHA256 SIZE PATH" (a path may hold spaces): a checkpoint of 100,000
// skills decodes 300,000 strings, not 300,000 objects. Every file's
// ModTime is its version's time, set when the version is decoded.
type fileList []snapshot.File

func (l fileList) MarshalJSON() ([]byte, error) {
	out := make([]string, len(l))
	for i, f := range l {
		out[i] = f.SHA256 + " " + strconv.FormatInt(f.Size, 10) + " " + f.Path
	}
	return json.Marshal(out)
}

func (l *fileList) UnmarshalJSON(data []byte) error {
	var in []string
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	*l = make(fileList, len(in))
	for i, s := range in {
		sum, rest, ok1 := strings.Cut(s, " ")
		size, p, ok2 := strings.Cut(rest, " ")
		n, err := strconv.ParseInt(size, 10, 64)
		if !ok1 || !ok2 || err != nil || n < 0 {
			return errors.New("a file entry is not \"SHA256 SIZE PATH\"")
		}
		(*l)[i] = snapshot.File{SHA256: sum, Size: n, Path: p}
	}
	return nil
}

// UnmarshalJSON decodes a version, giving its files its time.
func (v *version) UnmarshalJSON(data []byte) error {
	type plain version
	if err := json.Unmarshal(data, (*plain)(v)); err != nil {
		return err
	}
	for i := range v.Files {
		v.Files[i].ModTime = v.Created
	}
	return nil
}

// skill is one skill: its versions oldest first.
type skill struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	DisplayName string     `json:"display_name"`
	Created     time.Time  `json:"created"`
	Updated     time.Time  `json:"updated"`
	Versions    []*version `json:"versions"`
}

// latest is the newest version, or nil.
func (s *skill) latest() *version {
	if len(s.Versions) == 0 {
		return nil
	}
	return s.Versions[len(s.Versions)-1]
}

// find returns the version of ID id, or nil.
func (s *skill) find(id string) (int, *version) {
	for i, v := range s.Versions {
		if v.ID == id {
			return i, v
		}
	}
	return -1, nil
}

// state is what the log says after entry Seq. Registry.mu guards it:
// apply changes it in place (a write costs the same at 100,000 skills as
// at 10); readers copy what they answer. Skills and versions are not
// changed once in it: a change puts a new *skill.
type state struct {
	Seq    uint64
	skills map[string]*skill // by ID
	byName map[string]string // name → ID
	ids    []string          // sorted
	// problems are the entries skipped, by sequence, and why.
	problems map[uint64]string
}

func newState() *state {
	return &state{skills: map[string]*skill{}, byName: map[string]string{}, problems: map[uint64]string{}}
}

// put adds or replaces sk.
func (st *state) put(sk *skill) {
	if _, ok := st.skills[sk.ID]; !ok {
		i, _ := slices.BinarySearch(st.ids, sk.ID)
		st.ids = slices.Insert(st.ids, i, sk.ID)
	}
	st.skills[sk.ID] = sk
	st.byName[sk.Name] = sk.ID
}

// remove deletes skill id.
func (st *state) remove(id string) {
	sk := st.skills[id]
	if sk == nil {
		return
	}
	delete(st.skills, id)
	if st.byName[sk.Name] == id {
		delete(st.byName, sk.Name)
	}
	if i, ok := slices.BinarySearch(st.ids, id); ok {
		st.ids = slices.Delete(st.ids, i, i+1)
	}
}

// apply changes st by e, or, when it cannot, leaves st as it was. It returns why e cannot apply, ""
// when it did: an entry a writer made against the state before it always
// applies; one that does not was edited by hand.
func (st *state) apply(e *entry) string {
	switch e.Op {
	case opCreate:
		if e.Version == nil || e.Name == "" || !strings.HasPrefix(e.Skill, skillPrefix) {
			return "a create without a skill or version"
		}
		if _, ok := st.byName[e.Name]; ok {
			return "a create of a name taken"
		}
		if _, ok := st.skills[e.Skill]; ok {
			return "a create of an ID taken"
		}
		st.put(&skill{ID: e.Skill, Name: e.Name, DisplayName: e.DisplayName, Created: e.Time, Updated: e.Time, Versions: []*version{e.Version}})
	case opVersion:
		sk := st.skills[e.Skill]
		if sk == nil || e.Version == nil {
			return "a version of no skill"
		}
		if _, v := sk.find(e.Version.ID); v != nil {
			return "a version ID taken"
		}
		c := *sk
		c.Versions = append(slices.Clip(sk.Versions), e.Version)
		c.Updated = e.Time
		st.put(&c)
	case opDeleteVersion:
		sk := st.skills[e.Skill]
		if sk == nil {
			return "a delete of no skill"
		}
		i, v := sk.find(e.VersionID)
		if v == nil || len(sk.Versions) == 1 {
			return "a delete of no version, or of the last"
		}
		c := *sk
		c.Versions = slices.Delete(slices.Clone(sk.Versions), i, i+1)
		c.Updated = e.Time
		st.put(&c)
	case opDeleteSkill:
		if st.skills[e.Skill] == nil {
			return "a delete of no skill"
		}
		st.remove(e.Skill)
	default:
		return "an operation this version does not know"
	}
	return ""
}

// checkpoint is a state as a checkpoint object holds it (gob, gzipped).
type checkpoint struct {
	Format int      `json:"format"`
	Seq    uint64   `json:"seq"`
	Skills []*skill `json:"skills"` // by ID
}

const checkpointFormat = 2 // 1 was JSON

func (st *state) checkpoint() checkpoint {
	c := checkpoint{Format: checkpointFormat, Seq: st.Seq, Skills: make([]*skill, 0, len(st.ids))}
	for _, id := range st.ids {
		c.Skills = append(c.Skills, st.skills[id])
	}
	return c
}

// stateOf rebuilds a state from a checkpoint.
func stateOf(c *checkpoint) *state {
	st := newState()
	st.Seq = c.Seq
	st.ids = make([]string, 0, len(c.Skills))
	for _, sk := range c.Skills {
		if sk == nil || sk.ID == "" || len(sk.Versions) == 0 || st.skills[sk.ID] != nil {
			continue
		}
		for _, v := range sk.Versions {
			v.Signer = store.Signer{} // each replica checks signatures itself
		}
		st.skills[sk.ID] = sk
		st.byName[sk.Name] = sk.ID
		st.ids = append(st.ids, sk.ID)
	}
	slices.Sort(st.ids)
	return st
}
