package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	channelname "github.com/skillstore/skillstore/internal/channel"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/skillstore/skillstore/backends/snapshot"
	"github.com/skillstore/skillstore/internal/hidden"
	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/skillsapi"
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
	// intact is whether Files give Digest (digestOf), checked as the
	// version is read: a record edited by hand is never approved.
	intact bool
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

// skill is one skill: its versions oldest first, the last decision on
// each version reviewed, and its channels.
type skill struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	DisplayName string     `json:"display_name"`
	Created     time.Time  `json:"created"`
	Updated     time.Time  `json:"updated"`
	Versions    []*version `json:"versions"`
	// Reviews is the last decision on each version, by version ID.
	Reviews map[string]*review `json:"reviews,omitempty"`
	// Channels are the skill's channel pointers, by channel name.
	Channels map[string]*channel `json:"channels,omitempty"`
}

// review is a decision on one version, as its log entry records it.
type review struct {
	Seq     uint64    `json:"seq"` // the log entry that made it
	Approve bool      `json:"approve"`
	By      string    `json:"by"`
	Time    time.Time `json:"time"` // when the registry recorded it
	// ReviewerTime is when the reviewer decided, to the second: the time
	// of the signed statement.
	ReviewerTime time.Time `json:"reviewer_time"`
	Reason       string    `json:"reason,omitempty"`
	Digest       string    `json:"digest"`
	// Per replica, never in a checkpoint: the reviewer's signature, and
	// whether a trust list verified the entry's own.
	sig    string
	signed bool
	signer store.Signer
	// checked is the reviewer's signature checked against one
	// Options.Reviewers list: checked again when the list changes.
	checked atomic.Pointer[reviewerCheck]
}

// reviewerCheck is a reviewer signature's check against one list.
type reviewerCheck struct {
	list   *sshsig.AllowedSigners
	ok     bool
	signer store.Signer
}

// channel is a channel's pointer for one skill.
type channel struct {
	Version string    `json:"version_id"`
	Seq     uint64    `json:"seq"` // the promote that set it
	By      string    `json:"by,omitempty"`
	Time    time.Time `json:"time"`
	History []move    `json:"history,omitempty"` // newest first, at most maxHistory
	// signed is whether a trust list verified the promote's signature
	// (never in a checkpoint: each replica checks).
	signed bool
}

// move is one earlier position of a channel.
type move struct {
	Version string    `json:"version_id"`
	By      string    `json:"by,omitempty"`
	Time    time.Time `json:"time"`
}

// maxHistory bounds the earlier positions a channel keeps.
const maxHistory = 20

// channelsAt lists the channels of sk pointing at version id, by name.
func (s *skill) channelsAt(id string) []string {
	var out []string
	for name, c := range s.Channels {
		if c.Version == id {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
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
		if names := sk.channelsAt(v.ID); len(names) > 0 {
			return "a delete of a version channel " + names[0] + " points at"
		}
		c := *sk
		c.Versions = slices.Delete(slices.Clone(sk.Versions), i, i+1)
		if sk.Reviews[v.ID] != nil {
			c.Reviews = maps.Clone(sk.Reviews)
			delete(c.Reviews, v.ID)
		}
		c.Updated = e.Time
		st.put(&c)
	case opDeleteSkill:
		if st.skills[e.Skill] == nil {
			return "a delete of no skill"
		}
		st.remove(e.Skill)
	case opReview:
		return st.applyReview(e)
	case opPromote:
		return st.applyPromote(e)
	default:
		return "an operation this version does not know"
	}
	return ""
}

// applyReview records a decision: on a version of the skill, by someone
// other than its uploader, on its digest, made within MaxDecisionAge of
// when it was recorded and after the version's last decision (to the
// second, the statement's resolution), so a decision copied into a
// later entry does not apply. Whether it counts (its signatures) is each
// replica's to check when it serves.
func (st *state) applyReview(e *entry) string {
	sk := st.skills[e.Skill]
	if sk == nil {
		return "a review of no skill"
	}
	_, v := sk.find(e.VersionID)
	if v == nil {
		return "a review of no version"
	}
	at := e.ReviewerTime.UTC().Truncate(time.Second)
	switch prev := sk.Reviews[v.ID]; {
	case e.By == "" || e.By == v.By:
		return "a review by no one, or by the version's uploader"
	case e.Digest != v.Digest:
		return "a review of files that are not the version's"
	case e.Time.Sub(at) > skillsapi.MaxDecisionAge || at.Sub(e.Time) > skillsapi.MaxDecisionAge:
		return "a decision recorded more than " + skillsapi.MaxDecisionAge.String() + " from when it was made: replayed"
	case prev != nil && !at.After(prev.ReviewerTime):
		return "a decision no later than the version's last one: replayed"
	}
	c := *sk
	c.Reviews = maps.Clone(sk.Reviews)
	if c.Reviews == nil {
		c.Reviews = map[string]*review{}
	}
	c.Reviews[v.ID] = &review{Seq: e.Seq, Approve: e.Approve, By: e.By, Time: e.Time, ReviewerTime: at,
		Reason: e.Reason, Digest: e.Digest, sig: e.ReviewerSig, signed: e.signed, signer: e.signer}
	st.put(&c)
	return ""
}

// applyPromote points a channel at a version the skill has. Whether the
// version may be served is each replica's to check when it serves.
func (st *state) applyPromote(e *entry) string {
	sk := st.skills[e.Skill]
	if sk == nil {
		return "a promote of no skill"
	}
	if validChannel(e.Channel) != nil {
		return "a promote to a channel of no valid name"
	}
	_, v := sk.find(e.VersionID)
	if v == nil {
		return "a promote to no version (unknown or deleted)"
	}
	c := *sk
	c.Channels = maps.Clone(sk.Channels)
	if c.Channels == nil {
		c.Channels = map[string]*channel{}
	}
	ch := &channel{Version: v.ID, Seq: e.Seq, By: e.By, Time: e.Time, signed: e.signed}
	if old := sk.Channels[e.Channel]; old != nil {
		ch.History = append([]move{{Version: old.Version, By: old.By, Time: old.Time}}, old.History...)
		ch.History = slices.Clip(ch.History[:min(len(ch.History), maxHistory)])
	}
	c.Channels[e.Channel] = ch
	st.put(&c)
	return ""
}

// validChannel says what is wrong with a channel name, or nil: the rule
// the access policy's channels: rules follow (internal/channel), so a
// channel promoted here is one a policy can name.
func validChannel(name string) error {
	if err := channelname.Check(name); err != nil {
		return fmt.Errorf("channel %q: %v", store.Echo(name), err)
	}
	return nil
}

// checkpoint is a state as a checkpoint object holds it (gob, gzipped).
type checkpoint struct {
	Format int      `json:"format"`
	Seq    uint64   `json:"seq"`
	Skills []*skill `json:"skills"` // by ID
}

// checkpointFormat is the format written. 1 was JSON; 2 had no reviews
// or channels: a replica that knew no review entries skipped them, so
// its checkpoint may lack some. A checkpoint of another format is
// skipped and the log read from the start instead.
const checkpointFormat = 3

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
			v.intact = digestOf(v.Files) == v.Digest
		}
		maps.DeleteFunc(sk.Reviews, func(_ string, rv *review) bool { return rv == nil })
		maps.DeleteFunc(sk.Channels, func(_ string, c *channel) bool { return c == nil })
		st.skills[sk.ID] = sk
		st.byName[sk.Name] = sk.ID
		st.ids = append(st.ids, sk.ID)
	}
	slices.Sort(st.ids)
	return st
}
