package store

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Skill is the metadata of one servable skill. Skills returned by a Store
// are shared and must not be modified.
type Skill struct {
	// Name is the skill's folder name: the name callers use to address it.
	Name string
	// DocPath is the document's file name as stored: "SKILL.md", or
	// "SKILL.MD" or "skill.md" for older skills.
	DocPath string
	// Source is where the skill was found: one value for each source,
	// shared by its skills; it must not be modified.
	Source *SourceRef
	// Frontmatter is the parsed SKILL.md header.
	Frontmatter
	// Diagnostics lists the ways the skill breaks the specification;
	// empty for a valid skill.
	Diagnostics []Diagnostic
	// Findings lists the text in the skill that a model reads and a person
	// does not see (hidden instructions; see Finding): in SKILL.md as
	// discovery read it, and, for a skill from a published snapshot, in
	// every text file its publisher read. A skill with findings is valid,
	// and served unless Options.Strict is set (which also scans its other
	// text files at discovery). Store.ScanSkill scans every text file.
	Findings []Finding
	// Shadows lists lower-priority sources that hold a skill of the same
	// name, hidden by this one.
	Shadows []SourceRef
	// DocSize is the size of SKILL.md when the catalog was built
	// (DocModTime its time).
	DocSize int64
	// Provenance says where the skill comes from: its source, that
	// source's revision and, when verified, its signer. Skills found in
	// one snapshot of a source share the value; it must not be modified.
	Provenance *Provenance

	// The fields below are kept small: a replica of 100,000 skills holds
	// 100,000 of these (320 bytes each, the size class they fill: a byte
	// more costs 32).
	docMod    int64  // SKILL.md's time when the catalog was built (unixNano)
	fsys      fs.FS  // the source, or the snapshot of it this skill was found in
	gen       uint64 // fsys's snapshot generation, for snapshots with no revision (see snapshotGen)
	dir       string // the folder in fsys, for a group's skill (see Folder); else empty: the folder is Name
	src       int32  // the source's index
	group     uint16 // for a skill of a folder group: the length of the group's folder, dir's first bytes
	published bool   // the frontmatter came from a PublishedFS: check it against the document
	unscanned bool   // published, and its findings are not known (PublishedSkill.Scanned): scan what is read
}

// newSkill is the Skill of folder sd of fsys, its other fields unset.
func newSkill(sd skillDir, fsys fs.FS) *Skill {
	sk := &Skill{Name: sd.name, fsys: fsys}
	if sd.dir != sd.name {
		sk.dir = sd.dir
	}
	sk.group = uint16(len(sd.group)) // groupDirs refuses a longer group folder name
	return sk
}

// folderFS returns the skill's folder in fsys (its source, or a view of
// it) as a filesystem of its own (see skillDir.at).
func (sk *Skill) folderFS(fsys fs.FS) (fs.FS, error) {
	at, dir, err := sk.at(fsys)
	if err != nil || dir == "." {
		return at, err
	}
	return fs.Sub(at, dir)
}

// at is skillDir.at for the folder sk was found in.
func (sk *Skill) at(fsys fs.FS) (fs.FS, string, error) {
	d := sk.Folder()
	return skillDir{name: sk.Name, dir: d, group: d[:sk.group]}.at(fsys)
}

// Folder is the skill's folder in its source: Name, or for a skill of a
// group (a plugin's, named PLUGIN:SKILL; see Grouper) the folder the group
// keeps it in.
func (sk *Skill) Folder() string {
	if sk.dir != "" {
		return sk.dir
	}
	return sk.Name
}

// unixNano is t as Skill.docMod holds it: its Unix nanoseconds with the
// sign bit flipped, so that 0, a Skill's zero value, is the zero time
// (whose Unix nanoseconds are not defined). Only equality is asked of it.
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano() ^ math.MinInt64
}

// DocModTime is the modification time of SKILL.md when the catalog was
// built (the zero time if its source gives none).
func (sk *Skill) DocModTime() time.Time {
	if sk.docMod == 0 {
		return time.Time{}
	}
	return time.Unix(0, sk.docMod^math.MinInt64)
}

// Revision is the version of the source the skill was read from (a git
// commit, a published snapshot's ID, an archive's digest), for sources
// that have one (RevisionFS); else empty. It is Provenance.Revision.
func (sk *Skill) Revision() string {
	if sk.Provenance == nil {
		return ""
	}
	return sk.Provenance.Revision
}

// Valid reports whether the skill meets the specification.
func (sk *Skill) Valid() bool { return len(sk.Diagnostics) == 0 }

// Problem is a skill folder or a source that could not be served.
type Problem struct {
	Source SourceRef `json:"source"`
	// Skill is the folder name; empty when the whole source failed.
	Skill string `json:"skill,omitempty"`
	// Message says what is wrong, naming only relative paths (tools.Describe
	// of Err gives the sentence the tool contracts use).
	Message string `json:"message"`
	// Diagnostics lists specification breaches (strict mode).
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	// Findings lists the hidden text that strict mode withholds the skill for.
	Findings []Finding `json:"findings,omitempty"`

	err *Error // what lookups of this folder return
}

// Err returns the problem as an *Error, whose Kind says what went wrong
// (ErrNoSkillDoc for a folder without SKILL.md, ErrSkillInvalid, ...).
func (p Problem) Err() error { return p.err }

// Shadowed is a copy of a skill hidden by a higher-priority source.
type Shadowed struct {
	Name     string    `json:"name"`
	Hidden   SourceRef `json:"hidden"`
	WinnerIn SourceRef `json:"winner"`
	// By names what hides it when that is not a copy of the same name: a
	// plain skill hiding a group's skill of its name, or a group's skill
	// hiding a plain skill named as the group (see Catalog).
	By string `json:"by,omitempty"`
}

// Catalog is one snapshot of everything a Store serves. It is immutable.
type Catalog struct {
	// Skills are the servable skills, sorted by name.
	Skills []*Skill
	// Problems are skill folders left out and sources that failed, in
	// source order then folder order. One bad skill never hides the others.
	Problems []Problem
	// Shadowed lists every copy of a skill hidden by an earlier source.
	Shadowed []Shadowed
	// Groups lists the groups of skills (plugins) found in the sources and
	// served, in source order then folder order; a refused group is a
	// Problem instead.
	Groups []FoundGroup
	// Built is when the snapshot was taken. A refresh whose sources all
	// give what this catalog was built from keeps it, and its time.
	Built time.Time

	byName   map[string]*Skill
	problems map[string]*Problem // first problem per folder name
	groups   map[string]bool     // the groups with a skill served or left out with a problem (nil: none)
	hidden   map[folder]*Skill   // the shadowed copies; with byName, every skill read (see inFolder)
	results  []*sourceResult     // the loads it was built from, one per source
	withheld map[*Skill]*Problem // the copies Options.Pins withheld from it (see layer)
}

// folder is a skill folder in one source.
type folder struct {
	src int
	dir string
}

// inFolder returns the skill the catalog read in a folder of a source,
// served or shadowed, or nil. Most skills are served: only the shadowed
// have a map of their own (a second map of 100,000 entries costs ~50 B a skill).
func (c *Catalog) inFolder(f folder) *Skill {
	if sk := c.byName[f.dir]; sk != nil && int(sk.src) == f.src {
		return sk
	}
	return c.hidden[f]
}

// lookup finds a servable skill or explains why the name is not served.
func (c *Catalog) lookup(name string) (*Skill, error) {
	if sk, ok := c.byName[name]; ok {
		return sk, nil
	}
	if p, ok := c.problems[name]; ok {
		e := *p.err // a copy: callers may annotate the error they get
		return nil, &e
	}
	return nil, &Error{Kind: ErrSkillNotFound, Skill: name}
}

// noteGroup records the group of the skill called name, if it has one.
func (c *Catalog) noteGroup(name string) {
	if g, _, ok := SplitGroup(name); ok {
		if c.groups == nil {
			c.groups = map[string]bool{}
		}
		c.groups[g] = true
	}
}

// HasGroup reports whether a skill of the group called name is served
// or left out with a problem: if not, no name GROUP:… is known to the
// catalog, and an address NAME/… is inside skill NAME's folder.
func (c *Catalog) HasGroup(name string) bool { return c.groups[name] }

// ServedGroups returns c's groups of skills (plugins) of which c serves
// at least one skill, each with Skills set to how many it serves, in c's
// order: a group all of whose skills are shadowed, or hidden from a view,
// is no plugin to use.
func (c *Catalog) ServedGroups() []FoundGroup {
	type key struct {
		src  SourceRef
		name string
	}
	served := map[key]int{}
	for _, sk := range c.Skills {
		if g, _, ok := SplitGroup(sk.Name); ok {
			served[key{*sk.Source, g}]++
		}
	}
	var out []FoundGroup
	for _, g := range c.Groups {
		if n := served[key{g.Source, g.Name}]; n > 0 {
			g.Skills = n
			out = append(out, g)
		}
	}
	return out
}

// Problem returns the reason the named folder is not served, if any.
func (c *Catalog) Problem(name string) (Problem, bool) {
	if p, ok := c.problems[name]; ok {
		return *p, true
	}
	return Problem{}, false
}

// found is the outcome of reading one skill folder during discovery.
type found struct {
	skill   *Skill
	problem *Problem
}

// build loads every source (see load.go) and layers the results. A skill
// of prev whose document has the same size and modification time is
// reused without reading it again, so refreshing an unchanged
// object-storage source costs its listing only. refresh asks sources that
// keep a snapshot (Refresher) to refresh it first. A source slower than
// Options.SourceTimeout is served from its last finished load, or left
// out with a Problem, while another source has skills to serve.
func (s *Store) build(ctx context.Context, prev *Catalog, refresh bool) (*Catalog, error) {
	results, pending, err := s.loadAll(ctx, prev, refresh)
	if err != nil {
		return nil, err
	}
	if prev != nil && slices.Equal(results, prev.results) {
		// Every source gave the load prev was built from: prev is the
		// catalog (and what caches keyed by it hold stays good).
		return prev, nil
	}
	var withheld map[*Skill]*Problem
	if s.opts.Pins != nil {
		withheld = s.verifyPins(ctx, results)
	}
	c := layer(results, withheld, nil)
	var sourceErrs []error
	for _, r := range results {
		if r.problem != nil {
			sourceErrs = append(sourceErrs, r.problem.err)
		}
	}
	// Every source failing is an error, and keeps the last catalog served
	// (an outage); but a source that fails because what it served is no
	// longer trusted (its signer was removed from the trusted signers) is
	// not served from a catalog of before: the catalog is built without
	// it, empty if it must be.
	if len(sourceErrs) == len(s.sources) && (prev == nil || !slices.ContainsFunc(sourceErrs, func(err error) bool { return errors.Is(err, ErrUnverified) })) {
		return nil, sourceErrs[0]
	}
	s.logFindings(prev, c)
	s.logLeftOut(prev, c)
	s.pruneIndex(c, pending)
	s.indexPending()
	return c, nil
}

// layer layers the loads of the sources, in priority order (see build),
// leaving out the sources skip reports (nil: none), as though the store
// had none of them: their copies neither serve nor shadow. withheld holds
// the copies Options.Pins withholds, each with its problem (nil: none).
// A View that excludes a source whole layers its catalog so.
func layer(results []*sourceResult, withheld map[*Skill]*Problem, skip func(src int) bool) *Catalog {
	if skip == nil {
		skip = func(int) bool { return false }
	}
	n := 0
	for i, r := range results {
		if !skip(i) {
			n += len(r.found)
		}
	}
	c := &Catalog{Built: time.Now(), byName: make(map[string]*Skill, n), problems: map[string]*Problem{}, hidden: map[folder]*Skill{}, results: results, withheld: withheld}
	// Results are shared with other builds (a slow source's last load):
	// a winner that shadows another copy is copied before it is changed.
	copied := map[*Skill]bool{}
	// A plain skill's name and a group's name are one namespace: the
	// address of a file inside skill NAME's folder, NAME/SKILL/…, is the
	// address of group NAME's skill SKILL. The first served skill to take
	// a name (in source order, a source's plain skills before its groups')
	// keeps it; a skill of the other kind is then hidden, as a shadowed
	// copy is (a caller who may see only it sees no skill), so no catalog
	// serves both.
	type claim struct {
		group bool
		src   SourceRef
		name  string
	}
	claims := map[string]claim{}
	for i, r := range results {
		if skip(i) {
			continue
		}
		if r.problem != nil {
			c.Problems = append(c.Problems, *r.problem)
			continue
		}
		c.Groups = append(c.Groups, r.groups...)
		for _, f := range r.found {
			switch {
			case f.skill != nil:
				sk := f.skill
				if p, ok := withheld[sk]; ok {
					if p != nil {
						c.Problems = append(c.Problems, *p)
					}
					continue
				}
				if winner, ok := c.byName[sk.Name]; ok {
					c.hidden[folder{int(sk.src), sk.Name}] = sk
					if !copied[winner] {
						w := *winner
						w.Shadows = nil
						winner = &w
						copied[winner] = true
						c.byName[sk.Name] = winner
					}
					winner.Shadows = append(winner.Shadows, *sk.Source)
					c.Shadowed = append(c.Shadowed, Shadowed{Name: sk.Name, Hidden: *sk.Source, WinnerIn: *winner.Source})
					continue
				}
				ns, _, grouped := SplitGroup(sk.Name)
				if !grouped {
					ns = sk.Name
				}
				if cl, ok := claims[ns]; !ok {
					claims[ns] = claim{grouped, *sk.Source, sk.Name}
				} else if cl.group != grouped {
					c.hidden[folder{int(sk.src), sk.Name}] = sk
					c.Shadowed = append(c.Shadowed, Shadowed{Name: sk.Name, Hidden: *sk.Source, WinnerIn: cl.src, By: cl.name})
					continue
				}
				c.byName[sk.Name] = sk
			case f.problem != nil:
				c.Problems = append(c.Problems, *f.problem)
			}
		}
	}
	c.Skills = make([]*Skill, 0, len(c.byName))
	for name, sk := range c.byName {
		c.Skills = append(c.Skills, sk)
		c.noteGroup(name)
	}
	for i := range c.Problems {
		if p := &c.Problems[i]; p.Skill != "" && c.problems[p.Skill] == nil {
			c.problems[p.Skill] = p
			c.noteGroup(p.Skill)
		}
	}
	sort.Slice(c.Skills, func(i, j int) bool { return c.Skills[i].Name < c.Skills[j].Name })
	return c
}

// sourceError explains why a source's root could not be listed.
func (s *Store) sourceError(src Source, err error) *Error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Error{Kind: ErrSourceNotFound, Location: src.Location, cause: err}
	case errors.Is(err, fs.ErrPermission):
		return &Error{Kind: ErrSourcePermission, Location: src.Location, cause: err}
	}
	// Logged once an outage by noteListing, not at every catalog built
	// while it lasts.
	return &Error{Kind: ErrUnavailable, Detail: publicDetail(err), Location: src.Location, cause: err}
}

func ref(src Source) SourceRef { return SourceRef{src.Label, src.Location} }

// discoverOrReuse returns prev's copy of a skill when its document is
// unchanged (one Stat, free for a listing snapshot), else reads the
// document. fsys is the source (or the snapshot of it) being listed.
func (s *Store) discoverOrReuse(i int, fsys fs.FS, gen uint64, sd skillDir, prev *Catalog) found {
	if prev != nil {
		if old := prev.inFolder(folder{i, sd.name}); old != nil && old.Folder() == sd.dir && int(old.group) == len(sd.group) && sameFS(old.fsys, fsys) {
			at, dir, err := old.at(fsys)
			var fi fs.FileInfo
			if err == nil {
				fi, err = fs.Stat(at, path.Join(dir, old.DocPath))
			}
			if err == nil && !fi.IsDir() && versionOf(fi) == (version{old.DocSize, old.docMod}) {
				sk := *old
				sk.Shadows = nil // recomputed by layering
				return found{skill: &sk}
			}
		}
	}
	return s.discover(i, fsys, gen, sd)
}

// sameFS reports whether a and b are the same filesystem value (the same
// snapshot of a source). Values of types that cannot be compared with ==
// (a map such as fstest.MapFS) are the same if they share their data.
func sameFS(a, b fs.FS) (same bool) {
	ta := reflect.TypeOf(a)
	if ta != reflect.TypeOf(b) {
		return false
	}
	defer func() {
		if recover() != nil {
			same = false // a comparable type holding an uncomparable value
		}
	}()
	if ta.Comparable() {
		return a == b
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	switch va.Kind() {
	case reflect.Map, reflect.Slice, reflect.Func:
		return va.UnsafePointer() == vb.UnsafePointer()
	}
	return false
}

// discover reads one skill folder's document and frontmatter.
func (s *Store) discover(i int, fsys fs.FS, gen uint64, sd skillDir) found {
	if f, ok := s.reserved(i, sd); ok {
		return f
	}
	src := s.sources[i]
	name := sd.name
	bad := func(err *Error, d []Diagnostic) found {
		return found{problem: &Problem{Source: ref(src), Skill: name, Message: err.reason(), Diagnostics: d, err: err}}
	}
	invalid := func(msg string, d []Diagnostic) found {
		return bad(&Error{Kind: ErrSkillInvalid, Skill: name, Detail: msg}, d)
	}
	at, dir, err := sd.at(fsys)
	var data []byte
	var fi fs.FileInfo
	var docPath string
	if err == nil {
		data, fi, docPath, err = s.readDoc(at, dir)
	}
	if err != nil {
		var se *Error
		if !errors.As(s.fail(err, name, docName, docName), &se) {
			se = &Error{Kind: ErrUnavailable, Skill: name, Detail: unavailableDetail}
		}
		if se.Kind == ErrSkillNotFound || se.Kind == ErrIsDir || sd.conforming && se.Kind == ErrNoSkillDoc {
			return found{} // a plain file, vanished since the listing, or a group's folder that is no skill
		}
		if se.Skill != name {
			c := *se
			c.Skill = name
			se = &c
		}
		return bad(se, nil)
	}
	text, ok := decodeUTF8Strict(data)
	if !ok {
		return invalid("SKILL.md is not valid UTF-8 text", nil)
	}
	// Loads run under a context that never ends (see runLoad): none is
	// passed down to here.
	found := s.discoveryFindings(context.Background(), fsys, sd, docPath, text)
	f := s.skillFrom(i, fsys, sd, docPath, documentText(text), fi, found, false)
	if f.skill != nil {
		f.skill.gen = gen
	}
	return f
}

// docText is what a catalog entry is built from: a document's
// frontmatter (or why it has none) and what the search index reads past
// it, the Markdown body or, for a published skill, its listed headings.
type docText struct {
	header   string // the YAML between the '---' lines
	err      error  // why the document has no frontmatter to parse
	body     string // the Markdown after the frontmatter
	headings string // a published skill's headings, one a line
}

// documentText splits a SKILL.md read by discovery. Its header is copied,
// so the skill keeps none of the document.
func documentText(doc string) docText {
	header, body, err := SplitDocument(doc)
	if len(header) <= MaxFrontmatterBytes {
		header = strings.Clone(header)
	}
	return docText{header: header, err: err, body: body}
}

func (t docText) frontmatter() (Frontmatter, []Diagnostic, error) {
	if t.err != nil {
		return Frontmatter{}, nil, t.err
	}
	return parseHeader(t.header)
}

// skillFrom parses and validates a skill's document (only its frontmatter
// is needed) into a servable skill or a problem. hiddenText is the text
// found hidden in the skill, which strict mode withholds it for.
func (s *Store) skillFrom(i int, fsys fs.FS, sd skillDir, docPath string, t docText, fi fs.FileInfo, hiddenText []Finding, published bool) found {
	src := s.sources[i]
	invalid := func(msg string, d []Diagnostic, h []Finding) found {
		err := &Error{Kind: ErrSkillInvalid, Skill: sd.name, Detail: msg}
		if len(h) > 0 {
			err.cause = ErrHiddenText
		}
		return found{problem: &Problem{Source: ref(src), Skill: sd.name, Message: err.reason(), Diagnostics: d, Findings: h, err: err}}
	}
	fm, diags, err := t.frontmatter()
	if err != nil {
		return invalid(err.Error(), nil, nil)
	}
	diags = append(diags, Validate(sd.folderName(), fm)...)
	if sd.conforming && docPath != DocName {
		// Served otherwise for older tools; the specification names it
		// SKILL.md, exactly (and Agent Plugins' §7.1 finds no other).
		diags = append(diags, Diagnostic{DocName, "is named " + Echo(docPath), "rename it " + DocName})
	}
	if strings.TrimSpace(fm.Description) == "" {
		return invalid("the frontmatter has no description; add one that says what the skill does and when to use it", diags, nil)
	}
	if s.opts.Strict && len(diags)+len(hiddenText) > 0 || sd.conforming && len(diags) > 0 {
		if !s.opts.Strict { // Conforming withholds breaches of the specification, not hidden text: reported, not the reason
			f := invalid("it breaks the Agent Skills specification: "+diagText(diags), diags, nil)
			f.problem.Findings = hiddenText
			return f
		}
		var why []string
		if len(diags) > 0 {
			why = append(why, "it breaks the Agent Skills specification: "+diagText(diags))
		}
		if len(hiddenText) > 0 {
			why = append(why, findingsDetail(hiddenText))
		}
		return invalid(strings.Join(why, "; "), diags, hiddenText)
	}
	sk := newSkill(sd, fsys)
	sk.DocPath, sk.Source, sk.Frontmatter, sk.Diagnostics = docPath, &s.refs[i], fm, slices.Clip(diags)
	sk.Findings, sk.DocSize, sk.docMod, sk.src, sk.published = slices.Clip(hiddenText), fi.Size(), unixNano(fi.ModTime()), int32(i), published
	sk.Provenance = s.provenance(i, fsys) // once per snapshot, shared by its skills
	s.index(sk, t)
	return found{skill: sk}
}

// diagText joins diagnostics as a reason says them.
func diagText(diags []Diagnostic) string {
	msgs := make([]string, len(diags))
	for i, d := range diags {
		msgs[i] = d.String()
	}
	return strings.Join(msgs, "; ")
}

// readDoc reads dir's document, trying the canonical name first, then the
// accepted variants found by listing the folder.
func (s *Store) readDoc(fsys fs.FS, dir string) ([]byte, fs.FileInfo, string, error) {
	data, fi, err := s.readSmall(fsys, path.Join(dir, docName))
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return data, fi, docName, err
	}
	ents, lerr := fs.ReadDir(fsys, dir)
	if lerr != nil {
		if errors.Is(lerr, fs.ErrNotExist) || errors.Is(lerr, syscall.ENOTDIR) {
			return nil, nil, "", &Error{Kind: ErrSkillNotFound, Skill: dir}
		}
		return nil, nil, "", lerr
	}
	for _, alt := range docNames[1:] {
		for _, d := range ents {
			if d.Name() == alt {
				data, fi, err := s.readSmall(fsys, path.Join(dir, alt))
				return data, fi, alt, err
			}
		}
	}
	return nil, nil, "", &Error{Kind: ErrNoSkillDoc, Skill: dir}
}

// readSmall reads a document for discovery, refusing files over the limit.
func (s *Store) readSmall(fsys fs.FS, name string) ([]byte, fs.FileInfo, error) {
	data, fi, err := s.readBounded(fsys, name)
	skill, _, _ := strings.Cut(name, "/")
	switch {
	case errors.Is(err, ErrIsDir):
		return nil, nil, &Error{Kind: ErrIsDir}
	case errors.Is(err, ErrTooLarge):
		return nil, nil, &Error{Kind: ErrTooLarge, Skill: skill, Limit: s.opts.MaxFileSize}
	}
	return data, fi, err
}

// Changes reports how a catalog differs from the one before it.
type Changes struct {
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Updated []string `json:"updated,omitempty"`
}

// Empty reports whether nothing changed.
func (c Changes) Empty() bool { return len(c.Added)+len(c.Removed)+len(c.Updated) == 0 }

// Diff reports how cur differs from old in the skills each serves: what
// Refresh reports, for any two catalogs (a view's of two store catalogs,
// View.CatalogOf, say). A nil old is empty.
func Diff(old, cur *Catalog) Changes { return diffCatalogs(old, cur) }

// ChangedCopies returns, sorted, the names of the skills some copy of
// which, served or shadowed, is in one of old and cur and not the other,
// or changed between them (its document's size, time or frontmatter, its
// folder): every name a view of the two catalogs may report as changed
// (Diff of its View.CatalogOf of each), whichever sources it excludes.
func ChangedCopies(old, cur *Catalog) []string {
	type copyKey struct {
		src  int32
		name string
	}
	copies := func(c *Catalog) map[copyKey]*Skill {
		m := map[copyKey]*Skill{}
		if c == nil {
			return m
		}
		for _, sk := range c.Skills {
			m[copyKey{sk.src, sk.Name}] = sk
		}
		for _, sk := range c.hidden {
			m[copyKey{sk.src, sk.Name}] = sk
		}
		return m
	}
	before, after := copies(old), copies(cur)
	names := map[string]bool{}
	for k, a := range after {
		b, ok := before[k]
		if !ok || b.DocSize != a.DocSize || b.docMod != a.docMod || b.Raw != a.Raw || b.Folder() != a.Folder() {
			names[k.name] = true
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			names[k.name] = true
		}
	}
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func diffCatalogs(old, cur *Catalog) Changes {
	var ch Changes
	if old == nil {
		for _, sk := range cur.Skills {
			ch.Added = append(ch.Added, sk.Name)
		}
		return ch
	}
	for _, sk := range cur.Skills {
		prev, ok := old.byName[sk.Name]
		switch {
		case !ok:
			ch.Added = append(ch.Added, sk.Name)
		case *prev.Source != *sk.Source || prev.DocSize != sk.DocSize || prev.docMod != sk.docMod || prev.Raw != sk.Raw || prev.Folder() != sk.Folder():
			ch.Updated = append(ch.Updated, sk.Name)
		}
	}
	for _, sk := range old.Skills {
		if _, ok := cur.byName[sk.Name]; !ok {
			ch.Removed = append(ch.Removed, sk.Name)
		}
	}
	return ch
}
