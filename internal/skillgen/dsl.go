package skillgen

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// The families are written in a small line-based language (see the
// families_*.go files), parsed once:
//
//	=domain                       starts a domain
//	gloss a, b c, d               adds to the domain's glossary (body vocabulary)
//	$list slug=Label{v, w} | …    defines a shared option list
//	# family-id                   starts a family in the current domain
//	slot key $list                a slot taking a shared list's options
//	slot key slug=Label{v} | …    a slot with its own options
//	name {key}-{key}-review       a name pattern (slots give their slugs)
//	title, desc, use, step, note  templates of a title, a description's first
//	                              sentence, its "Use when" sentence, a body
//	                              step, a pitfall
//	sec Heading: line || line     a section of the body
//	vocab a, b c                  the family's words for the body
//	distinct key key              two slots never take the same slug
//	code lang … end               a code block (of the domain, before any family)
//
// In templates, {key} is the slot's label, {key:slug} its slug, {key:v} one
// of its words; {v} is one of the family's or its options' words, {g} one
// of the domain's, {t} a word from anywhere in a workplace, {title} the
// skill's title. § stands for a backquote.

type option struct {
	slug, label string
	vocab       []string
}

type slot struct {
	key  string
	opts []option
}

type section struct {
	heading string
	lines   []string
}

type codeBlock struct{ lang, text string }

type domain struct {
	id    string
	gloss []string
	code  []codeBlock
}

type family struct {
	dom                                      *domain
	id                                       string
	slots                                    []slot
	names, titles, descs, uses, steps, notes []string
	sections                                 []section
	code                                     []codeBlock
	vocab                                    []string
	distinct                                 [][2]int // slots that must not take the same slug
}

// sources are the texts of the families, one per file.
var sources = []string{devopsText, dataText, businessText, creativeText, codeText}

var (
	familiesOnce sync.Once
	familyList   []*family
	familyByID   map[string]*family
)

// families returns every family, parsed from sources.
func families() []*family {
	familiesOnce.Do(func() {
		fams, err := parse(sources)
		if err != nil {
			panic(err)
		}
		familyList = fams
		familyByID = map[string]*family{}
		for _, f := range fams {
			familyByID[f.id] = f
		}
	})
	return familyList
}

// parse reads the families from texts (one per file).
func parse(texts []string) ([]*family, error) {
	lists, err := sharedLists(texts)
	if err != nil {
		return nil, err
	}
	p := &parser{lists: lists, seen: map[string]bool{}}
	for _, text := range texts {
		if err := p.text(text); err != nil {
			return nil, err
		}
	}
	for _, f := range p.fams {
		switch {
		case len(f.names) == 0, len(f.titles) == 0, len(f.descs) == 0, len(f.uses) == 0, len(f.steps) == 0:
			return nil, fmt.Errorf("skillgen: family %s lacks a name, title, desc, use or step", f.id)
		case len(f.slots) == 0:
			return nil, fmt.Errorf("skillgen: family %s has no slot", f.id)
		}
	}
	return p.fams, nil
}

// sharedLists collects the shared option lists ($list) of every text:
// one may be used before it is defined (in another file).
func sharedLists(texts []string) (map[string][]option, error) {
	lists := map[string][]option{}
	for _, text := range texts {
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "$") {
				key, rest, _ := strings.Cut(line, " ")
				opts, err := parseOptions(rest)
				if err != nil {
					return nil, fmt.Errorf("%s: %v", key, err)
				}
				lists[key] = opts
			}
		}
	}
	return lists, nil
}

// parser holds what parse has read so far: the families, and the domain
// and family the current text's lines add to.
type parser struct {
	lists map[string][]option
	fams  []*family
	seen  map[string]bool // family ids
	dom   *domain
	fam   *family
}

// text parses one file's text; its first domain line starts its domain.
func (p *parser) text(text string) error {
	p.dom, p.fam = nil, nil
	lines := strings.Split(strings.ReplaceAll(text, "§", "`"), "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "$") {
			continue
		}
		fail := func(format string, args ...any) error {
			return fmt.Errorf("skillgen: line %q: %s", line, fmt.Sprintf(format, args...))
		}
		if strings.HasPrefix(line, "=") {
			p.dom = &domain{id: line[1:]}
			p.fam = nil
			continue
		}
		if p.dom == nil {
			return fail("no domain")
		}
		if strings.HasPrefix(line, "# ") {
			id := strings.TrimSpace(line[2:])
			if p.seen[id] {
				return fail("family %s twice", id)
			}
			p.seen[id] = true
			p.fam = &family{dom: p.dom, id: id}
			p.fams = append(p.fams, p.fam)
			continue
		}
		key, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch {
		case key == "code":
			i = p.code(lines, i, rest)
		case key == "gloss":
			p.dom.gloss = append(p.dom.gloss, splitList(rest)...)
		case p.fam == nil:
			return fail("no family")
		default:
			if err := p.familyLine(key, rest); err != nil {
				return fail("%v", err)
			}
		}
	}
	return nil
}

// code reads the code block whose "code LANG" line is lines[i], up to
// its "end" line, into the current family (or domain, before any), and
// returns the index of the "end" line.
func (p *parser) code(lines []string, i int, lang string) int {
	var b []string
	for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "end"; i++ {
		b = append(b, strings.TrimPrefix(lines[i], "\t"))
	}
	cb := codeBlock{lang: lang, text: strings.Join(b, "\n")}
	if p.fam != nil {
		p.fam.code = append(p.fam.code, cb)
	} else {
		p.dom.code = append(p.dom.code, cb)
	}
	return i
}

// familyLine adds a line of the current family: key and the rest.
func (p *parser) familyLine(key, rest string) error {
	fam := p.fam
	switch key {
	case "slot":
		k, spec, _ := strings.Cut(rest, " ")
		var opts []option
		if strings.HasPrefix(spec, "$") {
			var ok bool
			if opts, ok = p.lists[spec]; !ok {
				return fmt.Errorf("no list %s", spec)
			}
		} else {
			var err error
			if opts, err = parseOptions(spec); err != nil {
				return err
			}
		}
		fam.slots = append(fam.slots, slot{key: k, opts: opts})
	case "distinct":
		a, b, _ := strings.Cut(rest, " ")
		ia, ib := -1, -1
		for i, sl := range fam.slots {
			switch sl.key {
			case a:
				ia = i
			case b:
				ib = i
			}
		}
		if ia < 0 || ib < 0 {
			return errors.New("distinct: no such slots")
		}
		fam.distinct = append(fam.distinct, [2]int{ia, ib})
	case "name":
		fam.names = append(fam.names, rest)
	case "title":
		fam.titles = append(fam.titles, rest)
	case "desc":
		fam.descs = append(fam.descs, rest)
	case "use":
		fam.uses = append(fam.uses, rest)
	case "step":
		fam.steps = append(fam.steps, rest)
	case "note":
		fam.notes = append(fam.notes, rest)
	case "vocab":
		fam.vocab = append(fam.vocab, splitList(rest)...)
	case "sec":
		h, body, ok := strings.Cut(rest, ": ")
		if !ok {
			return errors.New("section without ': '")
		}
		fam.sections = append(fam.sections, section{heading: h, lines: strings.Split(body, " || ")})
	default:
		return fmt.Errorf("unknown key %q", key)
	}
	return nil
}

// parseOptions parses "slug=Label{v, w} | slug2{…} | slug3=Label".
func parseOptions(s string) ([]option, error) {
	var opts []option
	for _, part := range strings.Split(s, " | ") {
		part = strings.TrimSpace(part)
		var o option
		if i := strings.IndexByte(part, '{'); i >= 0 {
			if !strings.HasSuffix(part, "}") {
				return nil, fmt.Errorf("option %q: unclosed {", part)
			}
			o.vocab = splitList(part[i+1 : len(part)-1])
			part = part[:i]
		}
		slug, label, ok := strings.Cut(part, "=")
		if !ok {
			label = slug
		}
		o.slug, o.label = strings.TrimSpace(slug), strings.TrimSpace(label)
		if o.slug == "" || clean(o.slug) != o.slug {
			return nil, fmt.Errorf("option %q: slug %q is not lowercase-with-hyphens", part, o.slug)
		}
		opts = append(opts, o)
	}
	return opts, nil
}

func splitList(s string) []string {
	var out []string
	for _, w := range strings.Split(s, ",") {
		if w = strings.TrimSpace(w); w != "" {
			out = append(out, w)
		}
	}
	return out
}
