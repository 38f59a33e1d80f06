// Package hostile is the one table of hostile input every surface of
// skillstore is tested with, as os/root_test.go drives every operation of
// os.Root from one rootTestCases: traversal, encoding, hidden files,
// trailing slashes, absolute and drive-letter paths, backslashes, NUL and
// control characters, overlong and look-alike Unicode, case, empty and
// blank names, each written once with the answer each surface must give.
//
// The cases run against the tree of package fixture (calculator, weather,
// nodoc and calculator's hidden files), served from one source labelled
// "project". The surfaces are the store's reads (by name, and pinned to a
// skill a caller holds), every backend's fs.FS (backendtest), the tools
// (function calling), the MCP tools, resources/read,
// resources/directory/read and skills/get on every transport (mcptest), and
// the CLI. A case's Want is the store's answer; where a surface
// legitimately answers otherwise (a backend sees raw paths the store
// cleans, the tools trim a name the store takes as it is, resources/read
// serves a document under every spelling of SKILL.md) the case says so in
// Override or FS. A second column, Hidden, is each answer when the
// caller's view hides the skill named (Case.Hiding): a missing skill's
// answer, by one rule. The exact words each surface wraps an answer in
// are in render.go.
//
// The package is for tests only: it knows the contracts' wording so that
// tests compare against it, and it is not an API.
package hostile

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/store"
)

// Outcome is what a surface answers a request with.
type Outcome int

// The outcomes. The store's failures are named after the store's sentinel
// errors (see Outcome.Err); the others are answers of one surface.
const (
	// Served: the request succeeds; Want.File names what is served.
	Served Outcome = iota + 1
	// InvalidName: store.ErrInvalidName.
	InvalidName
	// SkillNotFound: store.ErrSkillNotFound.
	SkillNotFound
	// NoSkillDoc: store.ErrNoSkillDoc.
	NoSkillDoc
	// InvalidPath: store.ErrInvalidPath (an empty path).
	InvalidPath
	// PathEscapes: store.ErrPathEscapes.
	PathEscapes
	// FileNotFound: store.ErrFileNotFound (hidden files too: nothing tells
	// a caller that they exist).
	FileNotFound
	// IsDir: store.ErrIsDir.
	IsDir
	// NotText: store.ErrNotText, from the surfaces that serve text only
	// (read_file_in_skill).
	NotText
	// NotAFolder: resources/directory/read of a URI that names a file.
	NotAFolder
	// BadArgument: the surface refuses the request before any lookup: a
	// malformed or unsupported URI, or a missing argument. Want.Msg is the
	// surface's sentence.
	BadArgument
	// NoResource: resources/read of a URI of a scheme the server does not serve.
	NoResource
)

var outcomeNames = [...]string{
	Served: "served", InvalidName: "invalid name", SkillNotFound: "skill not found", NoSkillDoc: "no SKILL.md",
	InvalidPath: "invalid path", PathEscapes: "path escapes", FileNotFound: "file not found", IsDir: "is a directory",
	NotText: "not text", NotAFolder: "not a folder", BadArgument: "bad argument", NoResource: "no such resource",
}

// String names the outcome, for test output.
func (o Outcome) String() string {
	if o > 0 && int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "outcome(" + strconv.Itoa(int(o)) + ")"
}

// Err is the store's sentinel error for o, or nil for the outcomes that
// are not the store's (Served, NotAFolder, BadArgument, NoResource).
func (o Outcome) Err() error {
	switch o {
	case InvalidName:
		return store.ErrInvalidName
	case SkillNotFound:
		return store.ErrSkillNotFound
	case NoSkillDoc:
		return store.ErrNoSkillDoc
	case InvalidPath:
		return store.ErrInvalidPath
	case PathEscapes:
		return store.ErrPathEscapes
	case FileNotFound:
		return store.ErrFileNotFound
	case IsDir:
		return store.ErrIsDir
	case NotText:
		return store.ErrNotText
	}
	return nil
}

// Want is one answer: an outcome, the contract's sentence for a failure,
// and for Served what is served.
type Want struct {
	Outcome Outcome
	// Msg is the contract's sentence for a failure, word for word, as
	// tools.Describe gives it (BadArgument: the surface's own sentence).
	Msg string
	// File is the fixture path served ("calculator/SKILL.md"), or for a
	// directory read the folder listed ("calculator/examples").
	File string
}

// Surface names a group of operations whose answers can differ from the
// store's; see Case.For.
type Surface string

// The surfaces an Override can name.
const (
	// Args: the tools' skill_name and file_path arguments (read_file_in_skill,
	// get_skill and Skill, over function calling, MCP and the CLI's get NAME).
	// The tools trim surrounding white space from a name and read text only;
	// arguments arrive as JSON, so invalid UTF-8 arrives as U+FFFD.
	Args Surface = "args"
	// GetSkill: get_skill's skill_name alone.
	GetSkill Surface = "get_skill"
	// URI: every operation that takes a skill:// URI: resources/read,
	// resources/directory/read, get_skill's uri, skills/get and the CLI's get URI.
	URI Surface = "uri"
	// Resource: resources/read alone.
	Resource Surface = "resources/read"
	// Dir: resources/directory/read alone.
	Dir Surface = "resources/directory/read"
)

// FSOutcome is what a backend's fs.FS answers for a case's raw name (see
// Case.FSName): backends see names as callers send them, unchecked,
// uncleaned and with hidden files.
type FSOutcome int

// The fs-level outcomes. Every failure must be an *fs.PathError naming the
// path as given.
const (
	// FSServed: the name is the fixture file FSName, served byte for byte.
	FSServed FSOutcome = iota + 1
	// FSInvalid: fs.ValidPath refuses the name; io/fs lets Open answer
	// fs.ErrInvalid or fs.ErrNotExist, so the suite requires one of them,
	// the same one for every such name a filesystem is asked for.
	FSInvalid
	// FSMissing: a valid name that names nothing: fs.ErrNotExist.
	FSMissing
	// FSThroughFile: a valid name under a file ("empty.txt/x"):
	// fs.ErrNotExist, or syscall.ENOTDIR from a local disk (the store takes
	// both as not found).
	FSThroughFile
	// FSNoSuchName: a valid name no file can have (a NUL byte):
	// fs.ErrNotExist, or syscall.EINVAL from a local disk.
	FSNoSuchName
)

// Case is one hostile request, in the forms the surfaces take.
type Case struct {
	// Name names the case in test output.
	Name string
	// Skill and Path are the arguments as a caller sends them: the store's
	// name and file path, the tools' skill_name and file_path, the CLI's
	// NAME and PATH. For a URIOnly case, Skill is the name the URIs decode to.
	Skill, Path string
	// Doc marks a case about a skill rather than one of its files: the
	// operations that take a name alone (the store's Document and Files,
	// get_skill, Skill, skills/get, the CLI's get and files) run it too, and
	// the file reads read SKILL.md (see File). Its URIs name the document,
	// or fail at the name.
	Doc bool
	// URIs are skill:// spellings of the same request, each sent to the
	// operations that take a URI; each decodes to Skill and Path. They are
	// shorter than 100 bytes.
	URIs []string
	// URIOnly marks a case with no Skill and Path form (a URI that cannot
	// be decoded, or another scheme).
	URIOnly bool
	// Want is the store's answer, and every surface's unless overridden.
	Want Want
	// Override holds the answers of the surfaces that differ from Want.
	Override map[Surface]Want
	// FS is what a backend answers for FSName; zero: not an fs-level case
	// (hidden files, which backends serve and some cannot store, case,
	// over-long names).
	FS FSOutcome
	// PathCheck marks a FileNotFound that the store's checks of the path
	// give, before any lookup (a trailing slash, a hidden path, one too
	// deep): a skill that is missing or hidden gets it too, but from
	// resources/directory/read, which looks the skill up first.
	PathCheck bool
	// Hidden is the column "hidden by the view": the store's answer when
	// the skill named exists but the caller's view hides it (see
	// HiddenSkills), and every surface's unless HiddenOverride says
	// otherwise. Cases fills both by one rule, for Want and for each
	// Override: a hidden skill answers as a missing one does. The checks
	// of the name and the path come first, so their failures stand (an
	// invalid name, an empty or escaping path, a bad argument, a path
	// the checks refuse: PathCheck); every other answer, a success
	// included, is the skill not found, named as the surface took it. A
	// case states Hidden or an entry of HiddenOverride only where a
	// surface answers otherwise.
	Hidden Want
	// HiddenOverride holds the Hidden answers of the surfaces that differ.
	HiddenOverride map[Surface]Want
	// hiding marks the case Hiding returns.
	hiding bool
}

// HiddenSkills are the fixture's skills the view of the Hidden column
// hides: those the cases name. It sees weather, and knows the source.
var HiddenSkills = []string{"calculator", "nodoc"}

// Filter is the store.Filter of the Hidden column: it hides HiddenSkills.
type Filter struct{}

// All reports false: the filter hides HiddenSkills.
func (Filter) All() bool { return false }

// Allows reports whether name is not one of HiddenSkills.
func (Filter) Allows(_, name string) bool { return !slices.Contains(HiddenSkills, name) }

// AllowsSource reports true: the caller knows every source.
func (Filter) AllowsSource(string) bool { return true }

// ViewKey identifies the filter.
func (Filter) ViewKey() any { return Filter{} }

// Hiding returns the case as a caller whose view hides HiddenSkills
// sees it: its Want and Override are Hidden and HiddenOverride, so
// For and the renderings (render.go) give that column.
func (c Case) Hiding() Case {
	c.Want, c.Override, c.hiding = c.Hidden, c.HiddenOverride, true
	return c
}

// hide is the rule of the Hidden column (see Case.Hidden): w is a
// surface's answer when the skill is visible, name the skill name as
// that surface took it.
func hide(w Want, name string, pathCheck bool) Want {
	switch {
	case w.Outcome == InvalidName, w.Outcome == InvalidPath, w.Outcome == PathEscapes,
		w.Outcome == BadArgument, w.Outcome == NoResource,
		w.Outcome == FileNotFound && pathCheck:
		return w
	}
	return want(SkillNotFound, noSkill(Echo(name)))
}

// nameFor is the skill name surface s looks up: the tools' arguments
// arrive through JSON and are trimmed; URIs decode to Skill.
func (c Case) nameFor(s Surface) string {
	switch s {
	case Args, GetSkill:
		return c.ArgName()
	}
	return c.Skill
}

// withHidden fills c's Hidden column by the rule where the case does
// not state it.
func withHidden(c Case) Case {
	if c.Hidden == (Want{}) {
		c.Hidden = hide(c.Want, c.Skill, c.PathCheck)
	}
	surfaces := slices.Collect(maps.Keys(c.Override))
	if c.PathCheck {
		// resources/directory/read looks the skill up before it checks
		// the path: a hidden skill, like a missing one, is not found.
		surfaces = append(surfaces, Dir)
	}
	over := maps.Clone(c.HiddenOverride)
	for _, s := range surfaces {
		if _, ok := over[s]; !ok {
			if over == nil {
				over = map[Surface]Want{}
			}
			w := c.For(s)
			if s == Dir || s == Resource {
				w = c.For(s, URI)
			}
			over[s] = hide(w, c.nameFor(s), c.PathCheck && s != Dir)
		}
	}
	c.HiddenOverride = over
	return c
}

// File is the path the file reads use: Path, or SKILL.md for a Doc case
// that has none.
func (c Case) File() string {
	if c.Doc && c.Path == "" {
		return store.DocName
	}
	return c.Path
}

// FSName is the name a backend is asked for: Skill and File joined as
// they are, with no cleaning.
func (c Case) FSName() string { return c.Skill + "/" + c.File() }

// For returns the answer of an operation that belongs to the given
// surfaces, most specific first: the first of them the case overrides, or
// Want.
func (c Case) For(surfaces ...Surface) Want {
	for _, s := range surfaces {
		if w, ok := c.Override[s]; ok {
			return w
		}
	}
	return c.Want
}

// Cases returns the table: a new slice, whose cases share their URIs,
// Override and HiddenOverride with the table's, which must not be
// modified.
func Cases() []Case { return slices.Clone(table) }

// table is the cases, their Hidden column filled.
var table = func() []Case {
	cases := slices.Concat(nameCases, pathCases)
	for i, c := range cases {
		cases[i] = withHidden(c)
	}
	return cases
}()

// Content is the content of a fixture path, as stored.
func Content(p string) string { return string(fixture.Skills()[p]) }

// hidden reports whether a fixture path has a segment starting with ".".
func hidden(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// VisibleFiles is the fixture without its hidden files: what every
// backend can store (a git tree cannot hold ".git/config") and what the
// store lists and serves.
func VisibleFiles() map[string][]byte {
	files := fixture.Skills()
	for p := range files {
		if hidden(p) {
			delete(files, p)
		}
	}
	return files
}

// Echo is how messages repeat a caller's string, the reference the
// surfaces are checked against: over 200 bytes it is cut at a rune
// boundary and "…" added; with a control character or invalid UTF-8 it is
// escaped as a Go string literal's body.
func Echo(s string) string {
	s = logtext.Clip(s, 200)
	if strings.IndexFunc(s, unicode.IsControl) < 0 && utf8.ValidString(s) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// ViaJSON is s as it arrives through a JSON string: each byte of invalid
// UTF-8 becomes U+FFFD (encoding/json's rule). Tool arguments and every
// MCP message travel so.
func ViaJSON(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	var out string
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}
