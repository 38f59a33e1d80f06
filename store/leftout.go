package store

import (
	"errors"
	"slices"
)

// logLeftOut logs what c does not serve as its author meant: each skill
// folder left out (a Problem of a folder; a source's own failure is logged
// when it begins, and hidden text by logFindings) and each skill served
// although it breaks the specification. Each is logged once per change:
// what prev reported alike is not logged again, so a refresh that changes
// nothing of it says nothing. Lines name the source by its label and the
// skill by its name in that source, never a location, and say what to
// run. Options.ReportsProblems turns them off.
func (s *Store) logLeftOut(prev, c *Catalog) {
	if s.opts.ReportsProblems {
		return
	}
	type said struct {
		src           SourceRef
		skill, reason string
	}
	var before map[said]bool
	if prev != nil {
		before = make(map[said]bool, len(prev.Problems))
		for _, p := range prev.Problems {
			before[said{p.Source, p.Skill, p.Message}] = true
		}
	}
	for _, p := range c.Problems {
		if p.Skill == "" || len(p.Findings) > 0 || before[said{p.Source, p.Skill, p.Message}] {
			continue
		}
		if p.err != nil && errors.Is(p.err, ErrNotPinned) {
			s.opts.Logger.Warn("a skill is withheld: "+leftOutReason(p)+"; restore the pinned copy in the source, or update the lock",
				"source", p.Source.Label, "skill", p.Skill)
			continue
		}
		s.opts.Logger.Warn("a skill folder is left out: "+leftOutReason(p)+"; `skillstore validate DIR`, DIR the source's folder, says what to fix",
			"source", p.Source.Label, "skill", p.Skill)
	}
	for _, sk := range c.Skills {
		if sk.Valid() {
			continue
		}
		if prev != nil {
			if old := prev.inFolder(folder{int(sk.src), sk.Name}); old != nil && slices.Equal(old.Diagnostics, sk.Diagnostics) {
				continue
			}
		}
		s.opts.Logger.Warn("a skill breaks the Agent Skills specification: "+diagText(sk.Diagnostics)+"; it is served, --strict would leave it out; `skillstore validate DIR`, DIR the source's folder, says how to fix it",
			"source", sk.Source.Label, "skill", sk.Name)
	}
}

// leftOutReason says why p's folder is left out, in a clause.
func leftOutReason(p Problem) string {
	switch {
	case p.err == nil:
		return p.Message
	case p.err.Kind == ErrNoSkillDoc && p.err.Detail == "":
		return "it holds no " + DocName
	case p.err.Kind == ErrSkillInvalid && p.err.Detail != "":
		return p.err.Detail
	}
	return p.Message
}
