package skillgen

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// renderer writes the text of one skill.
type renderer struct {
	g     *gen
	c     *concept
	title string
	words []string // the family's and the concept's options' words
}

func (r *renderer) init() {
	if r.words != nil {
		return
	}
	f := r.c.fam
	r.words = append(r.words, f.vocab...)
	for i := range f.slots {
		// Options' words count twice: they are what this skill is about.
		v := r.c.opt(i).vocab
		r.words = append(r.words, v...)
		r.words = append(r.words, v...)
	}
	if len(r.words) == 0 {
		r.words = f.dom.gloss
	}
	r.title = r.text(r.g.pick(f.titles))
}

// text renders a template; the words it draws are distinct where the
// pools allow.
func (r *renderer) text(tmpl string) string {
	f := r.c.fam
	seen := map[string]bool{}
	draw := func(pool []string) string {
		var w string
		for range 8 {
			if w = r.g.pick(pool); !seen[w] {
				break
			}
		}
		seen[w] = true
		return w
	}
	return expand(tmpl, func(key, mod string) string {
		switch key {
		case "v":
			return draw(r.words)
		case "g":
			if len(f.dom.gloss) == 0 {
				return draw(r.words)
			}
			return draw(f.dom.gloss)
		case "t":
			return draw(tangents)
		case "title":
			return strings.ToLower(r.title[:1]) + r.title[1:]
		case "x":
			i := r.g.rng.IntN(len(f.slots))
			return r.c.opt(i).label
		}
		for i, sl := range f.slots {
			if sl.key != key {
				continue
			}
			o := r.c.opt(i)
			switch mod {
			case "slug":
				return o.slug
			case "v":
				if len(o.vocab) == 0 {
					return o.label
				}
				return draw(o.vocab)
			}
			return o.label
		}
		panic(fmt.Sprintf("skillgen: family %s: template %q: unknown {%s}", f.id, tmpl, key))
	})
}

// sentence renders a template as a sentence: first letter in upper case.
func (r *renderer) sentence(tmpl string) string {
	s := r.text(tmpl)
	c, size := utf8.DecodeRuneInString(s)
	if unicode.IsLower(c) {
		s = string(unicode.ToUpper(c)) + s[size:]
	}
	return s
}

var covers = []string{
	"Covers {v}, {v} and {v}.",
	"Handles {v}, {v} and {v}.",
	"Includes guidance on {v} and {v}.",
	"Knows about {v}, {v}, and {v}.",
	"Also helps with {v} and {v}.",
	"Works with {v} and {v}.",
}

// description returns version v's description, at most 1024 characters.
func (r *renderer) description(v int, name string) string {
	r.init()
	g := r.g
	f := r.c.fam
	desc := r.sentence(g.pick(f.descs))
	use := r.sentence(g.pick(f.uses))
	parts := []string{desc}
	if g.rng.IntN(2) == 0 {
		parts = append(parts, r.sentence(g.pick(covers)))
	}
	switch n := g.rng.IntN(10); {
	case n < 1 && strings.HasPrefix(use, "Use when "):
		// "Use this skill whenever …" first, as some authors write.
		parts = append([]string{"Use this skill whenever " + strings.TrimPrefix(use, "Use when ")}, parts...)
	case n < 2 && strings.HasPrefix(use, "Use when "):
		parts = append(parts, "Trigger when "+strings.TrimPrefix(use, "Use when "))
	default:
		parts = append(parts, use)
	}
	if v > 0 {
		for _, o := range orgs {
			if strings.HasPrefix(name, o+"-") && g.rng.IntN(2) == 0 {
				parts = append(parts, fmt.Sprintf("Follows %s%s conventions.", strings.ToUpper(o[:1])+o[1:], "'s"))
				break
			}
		}
	}
	var b strings.Builder
	for _, p := range parts {
		if b.Len()+len(p)+1 > 1024 {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	return b.String()
}

// body returns the skill's Markdown body, and the text of its supporting
// reference.md if it has one ("" if not).
func (r *renderer) body(name string) (string, string) {
	r.init()
	g := r.g
	target := g.bodyWords()
	w := &bodyWriter{r: r, used: map[string]bool{}}
	w.para("# " + r.title)
	w.para(r.sentence(g.pick(r.c.fam.descs)) + " " + w.sentences(intros, 1+g.rng.IntN(2)))
	w.usage()
	w.steps()
	w.example()
	w.familySections()
	w.pitfalls()
	w.fill(target)
	w.closing()
	var ref string
	if hash(name)%4 == 0 {
		w.para("## References")
		w.para(fmt.Sprintf("Read `reference.md` for %s when %s.", r.text(g.pick(refWhat)), r.text(g.pick(refWhen))))
		ref = r.reference()
	}
	return strings.TrimSuffix(w.b.String(), "\n"), ref
}

// bodyWriter writes a skill's body: paragraphs, whose words it counts,
// and generic sentences, which it does not repeat within the body. Its
// sections draw from the generator in the order body calls them, so a
// seed gives one body.
type bodyWriter struct {
	r     *renderer
	b     strings.Builder
	words int
	used  map[string]bool // generic sentences already in the body
}

// para writes a paragraph.
func (w *bodyWriter) para(s string) {
	w.b.WriteString(s)
	w.b.WriteString("\n\n")
	w.words += len(strings.Fields(s))
}

// fresh is a sentence from pool that the body does not have yet, if one
// of a few draws finds one.
func (w *bodyWriter) fresh(pool []string) string {
	var t string
	for range 8 {
		if t = w.r.g.pick(pool); !w.used[t] {
			break
		}
	}
	w.used[t] = true
	return w.r.sentence(t)
}

// sentences is n fresh sentences from pool.
func (w *bodyWriter) sentences(pool []string, n int) string {
	var ss []string
	for range n {
		ss = append(ss, w.fresh(pool))
	}
	return strings.Join(ss, " ")
}

// list writes items as a list, numbered or not.
func (w *bodyWriter) list(items []string, numbered bool) {
	var lb strings.Builder
	for i, it := range items {
		if numbered {
			fmt.Fprintf(&lb, "%d. %s\n", i+1, it)
		} else {
			fmt.Fprintf(&lb, "- %s\n", it)
		}
	}
	w.para(strings.TrimSuffix(lb.String(), "\n"))
}

// usage writes, sometimes, when to use the skill and what it needs.
func (w *bodyWriter) usage() {
	g, f := w.r.g, w.r.c.fam
	if g.rng.IntN(4) != 0 {
		w.para("## " + g.pick(whenHeadings))
		items := []string{w.r.sentence(g.pick(f.uses))}
		for range 2 + g.rng.IntN(3) {
			items = append(items, w.fresh(triggers))
		}
		w.list(items, false)
	}
	if g.rng.IntN(2) == 0 {
		w.para("## " + g.pick(prereqHeadings))
		var items []string
		for range 2 + g.rng.IntN(3) {
			items = append(items, w.fresh(prereqs))
		}
		w.list(items, false)
	}
}

// steps writes the family's steps, with generic ones among them.
func (w *bodyWriter) steps() {
	g, f := w.r.g, w.r.c.fam
	w.para("## " + g.pick(stepHeadings))
	var steps []string
	for i, s := range f.steps {
		steps = append(steps, w.r.sentence(s))
		if g.rng.IntN(3) == 0 || i == 0 && g.rng.IntN(2) == 0 {
			steps = append(steps, w.fresh(genericSteps))
		}
	}
	if g.rng.IntN(2) == 0 {
		steps = append(steps, w.fresh(finalSteps))
	}
	w.list(steps, true)
}

// example writes, sometimes, a code example: the family's own code most
// often; otherwise, sometimes, its domain's.
func (w *bodyWriter) example() {
	g, f := w.r.g, w.r.c.fam
	code := f.code
	if len(code) == 0 && g.rng.IntN(5) < 2 {
		code = f.dom.code
	}
	if len(code) > 0 && g.rng.IntN(5) < 3 {
		cb := code[g.rng.IntN(len(code))]
		w.para("## " + g.pick(exampleHeadings))
		w.para(w.r.sentence(g.pick(codeIntros)))
		w.b.WriteString("```" + cb.lang + "\n" + cb.text + "\n```\n\n")
		w.words += len(strings.Fields(cb.text))
	}
}

// familySections writes most of the family's own sections.
func (w *bodyWriter) familySections() {
	g := w.r.g
	for _, sec := range w.r.c.fam.sections {
		if g.rng.IntN(10) < 7 {
			w.para("## " + w.r.sentence(sec.heading))
			var ss []string
			for _, l := range sec.lines {
				ss = append(ss, w.r.sentence(l))
			}
			w.para(strings.Join(ss, " "))
		}
	}
}

// pitfalls writes the family's notes and generic pitfalls.
func (w *bodyWriter) pitfalls() {
	g := w.r.g
	w.para("## " + g.pick(pitfallHeadings))
	var notes []string
	for _, n := range w.r.c.fam.notes {
		notes = append(notes, w.r.sentence(n))
	}
	for range 1 + g.rng.IntN(3) {
		notes = append(notes, w.fresh(pitfalls))
	}
	w.list(notes, false)
}

// fill writes sections of advice until the body has target words.
func (w *bodyWriter) fill(target int) {
	g := w.r.g
	hs := append([]string(nil), extraHeadings...)
	g.rng.Shuffle(len(hs), func(i, j int) { hs[i], hs[j] = hs[j], hs[i] })
	for i := 0; w.words < target && i < len(hs); i++ {
		w.para("## " + hs[i])
		for range 1 + g.rng.IntN(2) {
			w.para(w.sentences(advice, 3+g.rng.IntN(3)))
			if w.words >= target {
				break
			}
		}
	}
}

// closing writes, sometimes, a checklist and what the skill produces.
func (w *bodyWriter) closing() {
	g := w.r.g
	if g.rng.IntN(5) < 2 {
		w.para("## Checklist")
		var items []string
		for range 3 + g.rng.IntN(3) {
			items = append(items, "[ ] "+w.fresh(checks))
		}
		w.list(items, false)
	}
	if g.rng.IntN(2) == 0 {
		w.para("## " + g.pick(outputHeadings))
		w.para(w.sentences(outputs, 2))
	}
}

// reference returns a short supporting file.
func (r *renderer) reference() string {
	g := r.g
	var b strings.Builder
	fmt.Fprintf(&b, "# Reference: %s\n\n", r.title)
	fmt.Fprintf(&b, "%s\n\n## Terms\n\n", r.sentence(g.pick(intros)))
	for range 4 + g.rng.IntN(4) {
		fmt.Fprintf(&b, "- **%s**: %s\n", r.text("{v}"), r.sentence(g.pick(advice)))
	}
	return b.String()
}
