package store

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"strings"
	"syscall"
)

// GroupSep separates a group's name from its skill's folder name in the
// name of a grouped skill: "PLUGIN:SKILL". No other skill's name holds it.
const GroupSep = ":"

// A Grouper finds groups of skills in a source: a folder that is no skill
// itself but keeps skill folders under a name of its own, as an Agent
// Plugins plugin keeps its skills under skills/. On every listing of the
// source (a published snapshot excepted: it lists its skills), the store
// asks it about the source's root, then, if the root is no group, about
// each folder of the root that holds no skill document. A group's skills
// are named GROUP:FOLDER, so two groups' skills of one folder name are two
// skills, and layering puts each beside skills of other sources of the
// same qualified name only.
//
// Group is given the source's snapshot being listed. It should read the
// group through fs.Sub(fsys, dir): a backend that confines a sub-folder to
// itself (backends.LocalFS) then keeps every read of the group inside the
// group's folder, and the store reads each of the group's skills from
// within the group's folder, then the skill's. It must be safe for
// concurrent use, and cheap when dir is no group (one read). Groups are
// asked concurrently.
type Grouper interface {
	Group(fsys fs.FS, dir string) (g Group, ok bool)
}

// A FileGrouper is a Grouper whose answer for a folder depends on nothing
// but the files GroupFiles names there (relative to the folder: a
// manifest, say), as fs.Stat sees them through fs.Sub of the folder. The
// store then keeps each group's answer (unless it wraps ErrUnavailable)
// and gives it again, without asking, while the source's snapshot is the
// same and its files are as they were when it was asked: each one's size
// and modification time, a folder's being a folder, an absent file's
// being absent (the change detection of skills' documents). An unchanged
// group costs a listing a Stat per file, and nothing on a snapshot that
// names its revision (RevisionFS). A folder that is no group is asked at
// every listing.
type FileGrouper interface {
	Grouper
	GroupFiles() []string
}

// Group is what a Grouper found.
type Group struct {
	// Name is the group's name: it must pass CheckName, must not start
	// with '.' and must not hold GroupSep.
	Name string
	// Skills is the folder holding the group's skill folders, relative to
	// the group's folder; empty when the group has none.
	Skills string
	// Conforming leaves out, with a problem, the group's skills that break
	// the Agent Skills specification, whatever Options.Strict says (the
	// Agent Plugins specification, §7.1, asks this of a plugin's skills).
	// Hidden text withholds a skill only under Options.Strict.
	Conforming bool
	// Err refuses the group as a whole: it is reported as a Problem of its
	// folder, and nothing of it is served. An Err wrapping ErrUnavailable
	// says the group could not be read (the backend failed), not that it
	// is invalid: callers are told so, without the backend's words unless
	// it gives public ones (PublicError).
	Err error
	// Notes are reported (logged once per source and text) and change
	// nothing: what a specification asks a reader to report and ignore.
	Notes []string
}

// FoundGroup is a group of skills a Grouper found in a source.
type FoundGroup struct {
	Source SourceRef `json:"source"`
	Name   string    `json:"name"`
	// Dir is the group's folder in its source: "." for the source's root.
	Dir string `json:"dir"`
	// Skills is how many skill folders the group holds, served or not.
	Skills int `json:"skills"`
}

// SplitGroup splits a grouped skill's name, "GROUP:FOLDER", into its two
// parts; ok is false for a skill of no group.
func SplitGroup(name string) (group, folder string, ok bool) {
	return strings.Cut(name, GroupSep)
}

// skillDir is a skill folder a listing found: the name callers use, the
// folder in the source (the name itself unless the skill is a group's),
// and whether the skill must conform to the specification to be served.
type skillDir struct {
	name, dir  string
	group      string // the folder of the skill's group, if it is a folder's (not the root's)
	conforming bool
}

// folderName is the name of sd's folder: its last element, or for the
// skill a source's root is (dir "."), its name.
func (sd skillDir) folderName() string {
	if sd.dir == "." {
		return sd.name
	}
	return path.Base(sd.dir)
}

// at returns where the files of the skill in folder sd are read from in
// fsys: fsys and the folder, or, for a folder group's skill in a backend
// whose sub-folders confine themselves (an fs.SubFS: backends.LocalFS),
// the folder taken from within the group's folder, and ".", so that a link
// from the skill's folder to another plugin's fails.
func (sd skillDir) at(fsys fs.FS) (fs.FS, string, error) {
	if _, confines := fsys.(fs.SubFS); sd.group == "" || !confines {
		// Another backend's sub-folder is fs.Sub's lexical view, which
		// confines nothing more and has no Stat: a bucket's Stat would
		// become a GET.
		return fsys, sd.dir, nil
	}
	g, err := fs.Sub(fsys, sd.group)
	if err != nil {
		return nil, "", err
	}
	sub, err := fs.Sub(g, sd.dir[len(sd.group)+1:])
	return sub, ".", err
}

// groupDirs lists the skill folders of group g, whose folder in fsys is
// dir: each one's name is g's name, GroupSep and its folder's name. A
// skills folder that is gone, is no folder, resolves out of the group or
// may not be read leaves the group without skills, noted; another failure
// to list it (the backend's) is returned.
func (s *Store) groupDirs(i int, fsys fs.FS, dir string, g Group) ([]skillDir, error) {
	if g.Skills == "" {
		return nil, nil
	}
	if len(dir) > math.MaxUint16 { // no file system names a folder so: a Skill keeps its length in 16 bits
		return nil, fmt.Errorf("the group's folder name is over %d bytes", math.MaxUint16)
	}
	at := path.Join(dir, g.Skills)
	sub, err := fs.Sub(fsys, dir) // through the group's own folder: a link out of it fails
	var ents []fs.DirEntry
	if err == nil {
		ents, err = fs.ReadDir(sub, g.Skills)
	}
	var why string
	switch {
	case err == nil:
	case errors.Is(err, ErrPathEscapes):
		why = "it resolves outside the group's folder"
	case errors.Is(err, syscall.ENOTDIR):
		why = "it is not a folder"
	case errors.Is(err, fs.ErrNotExist):
		why = "it is gone"
	case errors.Is(err, fs.ErrPermission):
		why = "permission denied"
	default:
		return nil, err
	}
	if why != "" {
		s.note(i, g.Name, "its skills folder "+Echo(g.Skills)+" cannot be listed ("+why+"), so it serves no skills")
		return nil, nil
	}
	var out []skillDir
	for _, n := range folders(ents) {
		sd := skillDir{name: g.Name + GroupSep + n, dir: path.Join(at, n), conforming: g.Conforming}
		if dir != "." {
			sd.group = dir
		}
		out = append(out, sd)
	}
	return out, nil
}

// groupAnswer is a FileGrouper's answer for a folder, which a load of the
// source keeps for the next one (see askGroup).
type groupAnswer struct {
	g     Group
	rev   string        // the snapshot's revision (RevisionFS), if it names one
	files []fileVersion // GroupFiles' versions before it was asked; none with rev
}

// askGroup returns the answer of source i's Grouper for folder dir of
// view: last's (the source's previous load), if it holds one for dir that
// still stands (see FileGrouper), else the Grouper's, and what to keep of
// it for the next load (nil: nothing).
func (s *Store) askGroup(i int, view fs.FS, dir string, last *sourceResult) (Group, bool, *groupAnswer) {
	gr := s.sources[i].Grouper
	fg, versioned := gr.(FileGrouper)
	if !versioned {
		g, ok := gr.Group(view, dir)
		return g, ok, nil
	}
	var prev *groupAnswer
	if last != nil && last.problem == nil && sameFS(last.view, view) {
		prev = last.answers[dir]
	}
	var rev string
	if r, ok := view.(RevisionFS); ok {
		rev = r.Revision()
	}
	var files []fileVersion
	var err error
	if rev == "" {
		// Stated before the files are read: a change made meanwhile is
		// found at the next listing.
		files, err = groupVersions(view, dir, fg.GroupFiles())
	}
	if prev != nil && err == nil && prev.rev == rev && slices.Equal(prev.files, files) {
		return prev.g, true, prev
	}
	g, ok := gr.Group(view, dir)
	if !ok || err != nil || errors.Is(g.Err, ErrUnavailable) {
		return g, ok, nil
	}
	return g, true, &groupAnswer{g: g, rev: rev, files: files}
}

// groupVersions returns the versions of files names of group folder dir
// in fsys, read as the group reads them (see skillDir.at): through the
// folder's own view on a backend that confines one.
func groupVersions(fsys fs.FS, dir string, names []string) ([]fileVersion, error) {
	at, in := fsys, dir
	if _, confines := fsys.(fs.SubFS); confines && dir != "." {
		sub, err := fs.Sub(fsys, dir)
		if err != nil {
			return nil, err
		}
		at, in = sub, "."
	}
	out := make([]fileVersion, len(names))
	for k, n := range names {
		fi, err := fs.Stat(at, path.Join(in, n))
		switch {
		case err == nil:
			out[k] = fileVersionOf(fi)
		case errors.Is(err, fs.ErrNotExist) && !errors.Is(err, ErrPathEscapes):
			// absent: the zero version
		default:
			return nil, err
		}
	}
	return out, nil
}

// fileVersion is what change detection knows of a group's file: a
// file's version (as a cached file's, or a skill's document's), that a
// folder is one, or that the file is absent (the zero value).
type fileVersion struct {
	kind byte // 'f' a file, 'd' a folder, 0 absent
	ver  version
}

// fileVersionOf returns fi's fileVersion.
func fileVersionOf(fi fs.FileInfo) fileVersion {
	if fi.IsDir() {
		return fileVersion{kind: 'd'}
	}
	return fileVersion{kind: 'f', ver: versionOf(fi)}
}

// reserved is the problem of a skill folder whose name holds GroupSep,
// which names a group's skills only, or false.
func (s *Store) reserved(i int, sd skillDir) (found, bool) {
	n := sd.folderName()
	if !strings.Contains(n, GroupSep) {
		return found{}, false
	}
	e := &Error{Kind: ErrSkillInvalid, Skill: sd.name, Detail: "a folder name holding '" + GroupSep + "' is reserved for the names of groups' skills (PLUGIN" + GroupSep + "SKILL for a plugin's); rename the folder"}
	return found{problem: &Problem{Source: ref(s.sources[i]), Skill: sd.name, Message: e.reason(), err: e}}, true
}

// checkGroup returns why g cannot be served, or nil.
func checkGroup(g Group) error {
	switch {
	case g.Err != nil:
		return g.Err
	case CheckName(g.Name) != nil || strings.HasPrefix(g.Name, ".") || strings.Contains(g.Name, GroupSep):
		return fmt.Errorf("its name %q cannot name skills", Echo(g.Name))
	case g.Skills != "" && !fs.ValidPath(g.Skills):
		return fmt.Errorf("its skills folder %q is not a path inside it", Echo(g.Skills))
	}
	return nil
}

// groupProblem is the problem of a group refused as a whole, or that
// could not be read (err wraps ErrUnavailable: what callers see of it is
// the backend's public explanation), reported for its folder.
func groupProblem(src Source, dir string, err error) found {
	e := &Error{Kind: ErrSkillInvalid, Skill: dir, Detail: err.Error(), cause: err}
	switch {
	case errors.Is(err, ErrUnavailable) && errors.Is(err, fs.ErrPermission):
		e.Kind, e.Detail = ErrPermission, ""
	case errors.Is(err, ErrUnavailable):
		e.Kind, e.Detail = ErrUnavailable, publicDetail(err)
	}
	return found{problem: &Problem{Source: ref(src), Skill: dir, Message: e.reason(), err: e}}
}

// note logs, once per source and text, something a group's reader asks to
// report and ignore.
func (s *Store) note(i int, group, text string) {
	src := s.sources[i]
	if s.warned.first(fmt.Sprint("group\x00", i, "\x00", group, "\x00", text)) {
		s.opts.Logger.Info("a group of skills in a source: "+group+": "+text, "source", src.Label, "location", src.Location)
	}
}

// notes logs g's notes, each once per source.
func (s *Store) notes(i int, g Group) {
	for _, n := range g.Notes {
		s.note(i, g.Name, n)
	}
}
