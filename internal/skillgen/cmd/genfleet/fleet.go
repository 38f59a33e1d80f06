package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// fleetSeed seeds every skill's random choices (with the skill's index).
const fleetSeed = 0xf1ee7

// Target sizes: a SKILL.md of 3.5–4.5 KB (about 4 KB), a guide of about
// 600 B and a script of about 200 B; about 4.8 KB per skill.
const (
	docMin, docSpread     = 3584, 1024
	guideMin, guideSpread = 520, 160
	scriptMin             = 180
)

// words draws words as prose does: a few common ones most of the time,
// and a long tail of rare ones (Zipf over vocab).
type words struct {
	rng  *rand.Rand
	zipf *rand.Zipf
}

func newWords(rng *rand.Rand) *words {
	return &words{rng: rng, zipf: rand.NewZipf(rng, 1.07, 2, uint64(len(vocab)-1))}
}

func (w *words) word() string { return vocab[w.zipf.Uint64()] }

func (w *words) pick(xs []string) string { return xs[w.rng.IntN(len(xs))] }

// sentence returns a sentence of 6 to 17 words, capitalised, with a full stop.
func (w *words) sentence() string {
	n := 6 + w.rng.IntN(12)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		word := w.word()
		if i == 0 {
			word = strings.ToUpper(word[:1]) + word[1:]
		}
		b.WriteString(word)
	}
	b.WriteByte('.')
	return b.String()
}

// paragraph returns 2 to 5 sentences, fewer if they would pass max bytes
// (at least one).
func (w *words) paragraph(max int) string {
	n := 2 + w.rng.IntN(4)
	var b strings.Builder
	for i := 0; i < n; i++ {
		s := w.sentence()
		if i > 0 && b.Len()+1+len(s) > max {
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String()
}

// rare returns a word of the vocabulary's long tail.
func (w *words) rare() string { return vocab[len(common)+w.rng.IntN(len(vocab)-len(common))] }

// skill is one generated skill's three files.
type skill struct {
	name               string
	doc, guide, script []byte
}

// rngFor returns skill i's random source; rev > 0 gives the source of a
// rewrite (-touch) of it.
func rngFor(i int, rev uint64) *rand.Rand {
	return rand.New(rand.NewPCG(fleetSeed^rev*0x9e3779b97f4a7c15, uint64(i)))
}

// skillName is skill i's name: a verb, a subject and the index, so that
// names are unique, valid and sort by index within a verb and subject.
func skillName(i int) string {
	w := newWords(rngFor(i, 0))
	return fmt.Sprintf("%s-%s-%06d", w.pick(verbs), w.pick(subjects), i)
}

// generate returns skill i.
func generate(i int) skill {
	rng := rngFor(i, 0)
	w := newWords(rng)
	verb, subject := w.pick(verbs), w.pick(subjects)
	name := fmt.Sprintf("%s-%s-%06d", verb, subject, i)
	desc := fmt.Sprintf("%s %s for %s teams, checking %s and %s. Use when someone asks to %s %s or mentions %s.",
		strings.ToUpper(verb[:1])+verb[1:]+"s", subject, w.pick(teams), w.pick(subjects), w.rare(), verb, subject, w.rare())
	fm := fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n", name, desc)
	return skill{
		name:   name,
		doc:    []byte(fm + body(w, verb, subject, docMin+rng.IntN(docSpread)-len(fm))),
		guide:  []byte(guide(w, subject, guideMin+rng.IntN(guideSpread))),
		script: []byte(script(w, name)),
	}
}

// body returns a SKILL.md body of about size bytes (within a sentence's
// length): a title, then ## sections of paragraphs and numbered steps.
func body(w *words, verb, subject string, size int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s %s\n\n%s\n", strings.ToUpper(verb[:1])+verb[1:], subject, w.paragraph(size/4))
	for b.Len() < size-100 {
		fmt.Fprintf(&b, "\n## %s\n\n", w.pick(headings))
		if w.rng.IntN(3) == 0 {
			for n := range 2 + w.rng.IntN(4) {
				fmt.Fprintf(&b, "%d. %s\n", n+1, w.sentence())
			}
			continue
		}
		for k := 1 + w.rng.IntN(2); k > 0 && b.Len() < size-100; k-- {
			fmt.Fprintf(&b, "%s\n\n", w.paragraph(size-b.Len()))
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// guide returns references/guide.md, of about size bytes.
func guide(w *words, subject string, size int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Guide to %s\n\n", subject)
	for b.Len() < size-60 {
		fmt.Fprintf(&b, "%s\n\n", w.paragraph(size-b.Len()))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// script returns scripts/run.sh, of at least scriptMin bytes.
func script(w *words, name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# Runs %s on the files given.\nset -eu\n", name)
	for b.Len() < scriptMin {
		fmt.Fprintf(&b, "echo \"%s: %s %s\" >&2\n", name, w.word(), w.word())
	}
	b.WriteString("exec \"$@\"\n")
	return b.String()
}

// rewrite returns a new SKILL.md for skill i whose current text is old:
// the same frontmatter and another body whose size differs from the old
// one's. It depends only on i and old, so it is deterministic, and a
// second rewrite changes the text again.
func rewrite(i int, old []byte) ([]byte, error) {
	text := string(old)
	end := strings.Index(text, "\n---\n")
	if !strings.HasPrefix(text, "---\n") || end < 0 {
		return nil, fmt.Errorf("%s/SKILL.md: no frontmatter", skillName(i))
	}
	fm := text[:end+5] + "\n"
	rng := rngFor(i, fnv(old)|1)
	w := newWords(rng)
	size := docMin + rng.IntN(docSpread) - len(fm)
	out := fm + body(w, w.pick(verbs), w.pick(subjects), size)
	if len(out) == len(old) {
		out += "\nRevised.\n"
	}
	return []byte(out), nil
}

// fnv is FNV-1a of b.
func fnv(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}
