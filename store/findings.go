package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/internal/hidden"
	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/internal/markdown"
)

// Hidden text. A skill is instructions a model follows; text a person
// reviewing it cannot see (Unicode tag characters, bidirectional controls,
// zero-width and filler characters, bytes in variation selectors,
// terminal escapes; in Markdown files, what the pages' renderer drops:
// HTML comments, raw HTML, unused link reference definitions) is how
// malicious skills have hidden theirs, and the same characters in a
// file's name make it display as another. The store finds it, without
// reading anything it does not read anyway:
//
//   - Discovery scans each SKILL.md it reads (Skill.Findings); a published
//     snapshot's manifest lists what its publisher found in every file of
//     each skill, so a replica knows without reading a document.
//   - A text file read for a caller (a cache miss) is scanned once per
//     version, unless its findings are known already (a published
//     snapshot's files, SKILL.md in the version discovery scanned).
//   - Store.ScanSkill reads and scans every text file of a skill, and the
//     names of all its files and folders, for `skillstore validate`.
//
// By default a skill with findings is served: they are logged, one WARN
// line per skill version (a catalog rebuilt with the skill unchanged logs
// nothing; after Invalidate the next catalog logs again), and one per
// supporting file version found on read (remembered for the last 4,096
// such files). With Options.Strict such a skill is withheld as an invalid
// one is (a Problem of kind ErrSkillInvalid): discovery then scans every
// text file of each skill whose SKILL.md is clean, which costs a listing
// of its folder and a read of each file. A refresh reuses a skill whose
// SKILL.md is unchanged without scanning its folder again, so a file that
// gains hidden text after discovery does not withhold the skill until its
// SKILL.md changes (or the catalog is rebuilt from nothing: Invalidate, a
// restart); meanwhile every read of that file is refused with
// ErrSkillInvalid, so strict mode never serves the hidden text.

// Finding is one piece of hidden text in a skill's file; Path is relative
// to the skill's folder. See FindingKind for what is found.
type Finding = hidden.Finding

// FindingKind says what a Finding found; its values are stable words,
// the ones JSON carries.
type FindingKind = hidden.Kind

// The kinds of Finding (see package internal/hidden's Scan for the exact
// rules and the exemptions that spare emoji and scripts that need joiners).
const (
	FindingTagCharacters  = hidden.TagCharacters      // Unicode tag characters; Text decodes them
	FindingBidiControl    = hidden.BidiControl        // a bidirectional control; Text is "U+202E"
	FindingZeroWidth      = hidden.ZeroWidth          // a zero-width character; Text is "U+200B"
	FindingFiller         = hidden.Filler             // a Hangul filler; Text is "U+3164"
	FindingSelectors      = hidden.VariationSelectors // a run of variation selectors; Text decodes them
	FindingANSIEscape     = hidden.ANSIEscape         // a terminal escape sequence; Text is "ESC[8m"
	FindingHTMLComment    = hidden.HTMLComment        // an HTML comment in a Markdown file; Text is its text
	FindingRawHTML        = hidden.RawHTML            // raw HTML the renderer drops; Text is the HTML
	FindingLinkDefinition = hidden.LinkDefinition     // an unused link reference definition; Text is it
	FindingMore           = hidden.More               // the list of a file was cut: Text is how many more
)

// ScanFile returns the hidden text in file p of a skill whose document
// is docPath, with Path set: how servers and the publisher scan a file.
// The document and the other Markdown files (markdown.IsPath: .md,
// .markdown) are scanned as Markdown, for what the pages' renderer drops.
// Names are not scanned here (hidden.ScanPaths, once for a skill's files).
func ScanFile(p, docPath, text string) []Finding {
	found := hidden.Scan(text, p == docPath || markdown.IsPath(p))
	for i := range found {
		found[i].Path = p
	}
	return found
}

// scan is View.Scan.
func (s *Store) scan(ctx context.Context, sk *Skill) ([]Finding, error) {
	if sk.published && !sk.unscanned {
		return slices.Clone(sk.Findings), nil
	}
	return s.scanFiles(ctx, sk, "")
}

// scanFiles reads and scans sk's text files but skip.
func (s *Store) scanFiles(ctx context.Context, sk *Skill, skip string) ([]Finding, error) {
	files, err := s.walk(ctx, sk)
	if err != nil {
		return nil, s.fail(err, sk.Name, "", "")
	}
	sub, err := sk.folderFS(withContext(ctx, sk.fsys))
	if err != nil {
		return nil, s.fail(err, sk.Name, "", "")
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	out := hidden.ScanPaths(paths) // every file's name, binary and large ones too
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if f.Path == skip || f.Size > s.opts.MaxFileSize {
			continue
		}
		data, _, err := s.readBounded(sub, f.Path)
		if err != nil {
			continue // not served either; a read that succeeds later is scanned then
		}
		if text, _, ok := decodeOwned(data); ok {
			out = append(out, ScanFile(f.Path, sk.DocPath, text)...)
		}
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return strings.Compare(a.Path, b.Path) }) // a file's name first
	return out, nil
}

// discoveryFindings returns the findings discovery gives a skill whose
// document text it read: the document's, and in strict mode, when it has
// none, those of the skill's other text files (so a skill is withheld
// whole, up front).
func (s *Store) discoveryFindings(ctx context.Context, fsys fs.FS, sd skillDir, docPath, text string) []Finding {
	if s.noScan {
		return nil
	}
	found := ScanFile(docPath, docPath, text)
	if !s.opts.Strict || len(found) > 0 {
		return found
	}
	sk := newSkill(sd, fsys)
	sk.DocPath = docPath
	more, err := s.scanFiles(ctx, sk, docPath)
	if err != nil && !errors.Is(err, ErrSkillNotFound) {
		s.opts.Logger.Debug("scanning a skill's files for hidden text failed; each is scanned when read", "skill", sd.name, "err", logtext.Of(err))
	}
	return more
}

// findingsDetail says why strict mode refuses a skill or file with
// findings: the first one, and how many more there are.
func findingsDetail(found []Finding) string {
	msg := "it holds text a person cannot see, which strict mode refuses: " + describeFinding(found[0])
	if n := countFindings(found) - 1; n > 0 {
		msg += fmt.Sprintf(", and %d more (`skillstore validate` lists them)", n)
	}
	return msg
}

// countFindings is how many findings found stands for, the ones a
// FindingMore counts included.
func countFindings(found []Finding) int {
	n := 0
	for _, f := range found {
		if f.Kind == FindingMore {
			more, _ := strconv.Atoi(f.Text)
			n += more
			continue
		}
		n++
	}
	return n
}

// maxFindingEcho bounds the hidden text a message repeats.
const maxFindingEcho = 80

// describeFinding names a finding's kind, file, line and column (or the
// column in the file's name) and what it hides, for messages and logs:
// hidden text (decoded tag characters, a comment, raw HTML…) is quoted,
// cut to 80 bytes; the file's name is shown through hidden.Visible.
func describeFinding(f Finding) string {
	what := f.Text
	switch f.Kind {
	case FindingTagCharacters, FindingHTMLComment, FindingRawHTML, FindingLinkDefinition, FindingSelectors, FindingANSIEscape:
		what = strconv.Quote(logtext.Clip(f.Text, maxFindingEcho))
	}
	if f.Line == 0 { // in the file's name (hidden.ScanPaths)
		return fmt.Sprintf("%s in the name %s at column %d (%s)", f.Kind, hidden.Visible(Echo(f.Path)), f.Column, what)
	}
	return fmt.Sprintf("%s in %s at line %d, column %d (%s)", f.Kind, hidden.Visible(Echo(f.Path)), f.Line, f.Column, what)
}

// logFindings logs the hidden text of the skills c serves, and in strict
// mode of those it withholds: once per skill version, so a skill prev
// held in the same version with the same findings is not logged again.
// The lines name the source by its label, never its location.
func (s *Store) logFindings(prev, c *Catalog) {
	for _, sk := range c.Skills {
		if len(sk.Findings) == 0 {
			continue
		}
		if prev != nil {
			if old := prev.inFolder(folder{int(sk.src), sk.Name}); old != nil && old.DocSize == sk.DocSize &&
				old.docMod == sk.docMod && old.Revision() == sk.Revision() && slices.Equal(old.Findings, sk.Findings) {
				continue
			}
		}
		s.warnFindings("a skill holds text a person cannot see; it is served (--strict would withhold it): `skillstore validate` lists every finding",
			sk.Source.Label, sk.Name, sk.Findings)
	}
	for _, p := range c.Problems {
		if len(p.Findings) == 0 {
			continue
		}
		if prev != nil {
			if old, ok := prev.problems[p.Skill]; ok && old.Source == p.Source && slices.Equal(old.Findings, p.Findings) {
				continue
			}
		}
		s.warnFindings("a skill holds text a person cannot see; strict mode withholds it: `skillstore validate` lists every finding",
			p.Source.Label, p.Skill, p.Findings)
	}
}

func (s *Store) warnFindings(msg, label, skill string, found []Finding) {
	s.opts.Logger.Warn(msg, "source", label, "skill", skill, "findings", countFindings(found), "first", describeFinding(found[0]))
}

// readFindings scans a text file read for a caller, sk's file p in
// version e.ver, unless its findings are known: a published snapshot's
// manifest lists them (when trusted: PublishedSkill.Scanned), and
// discovery scanned sk's document in the version sk describes. It logs a file with findings once per version.
func (s *Store) readFindings(sk *Skill, p string, e *entry) []Finding {
	if e.binary || sk.published && !sk.unscanned || !sk.published && p == sk.DocPath && e.ver == (version{sk.DocSize, sk.docMod}) {
		return nil
	}
	found := append(hidden.ScanPaths([]string{p}), ScanFile(p, sk.DocPath, e.text)...)
	if len(found) > 0 && s.warned.first(fmt.Sprint(sk.src, "\x00", sk.Revision(), "\x00", sk.gen, "\x00", sk.Name, "\x00", p, "\x00", e.ver)) {
		s.opts.Logger.Warn("a skill's file holds text a person cannot see: `skillstore validate` lists every finding",
			"source", sk.Source.Label, "skill", sk.Name, "path", p, "findings", countFindings(found), "first", describeFinding(found[0]))
	}
	return found
}

// refuseHidden is the error of a read of e, a file of sk, that strict
// mode refuses: it holds hidden text (found when it was read).
func (s *Store) refuseHidden(sk *Skill, e *entry) error {
	if !s.opts.Strict || len(e.findings) == 0 {
		return nil
	}
	return &Error{Kind: ErrSkillInvalid, Skill: sk.Name, Detail: findingsDetail(e.findings), cause: ErrHiddenText}
}

// ErrHiddenText is wrapped, beside ErrSkillInvalid, by the errors of
// skills and files strict mode withholds for their hidden text.
var ErrHiddenText = errors.New("the skill hides text from readers")

// maxWarned bounds the file versions whose findings were logged: past it
// the set starts again (a file may then be logged twice).
const maxWarned = 4096

// warnedSet remembers what was logged.
type warnedSet struct {
	mu   sync.Mutex
	keys map[string]struct{}
}

// first reports whether key is new, and remembers it.
func (w *warnedSet) first(key string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.keys[key]; ok {
		return false
	}
	if w.keys == nil || len(w.keys) >= maxWarned {
		w.keys = map[string]struct{}{}
	}
	w.keys[key] = struct{}{}
	return true
}
