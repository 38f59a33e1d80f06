// Package skillgen generates a large, deterministic catalog of realistic
// Agent Skills, and a set of queries written the way people ask for them,
// each with the skills that answer it: a test bed for skill search.
//
// The catalog is built from families of skills (reviewing Terraform for a
// cloud, extracting tables from invoices, writing a job description for a
// role…), each with slots (the tool, the cloud, the document type…) whose
// every combination is one concept. Every concept appears once before any
// appears twice; the rest of the catalog is further versions of popular
// concepts under other names (another team's "pdf-form-filler"), as in a
// real marketplace. So at 10,000 skills there are many near neighbours:
// several skills about PDFs, dozens about Kubernetes, and skills that
// differ in one word ("terraform-aws-review", "terraform-gcp-review").
//
// The queries (queries.go) are written by hand, independently of the
// descriptions' wording; each names the concept it asks for (a family and
// slot values, or a skill's name for the built-in examples), and Queries
// resolves that to the names of every skill in a catalog that answers it.
//
// Only the standard library is used.
package skillgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
)

// Skill is one generated (or read) skill.
type Skill struct {
	Name        string // a valid Agent Skills name, unique in a catalog
	Description string // at most 1024 characters
	Body        string // the Markdown after the frontmatter

	concept *concept // the concept it was generated from; nil if read
	ref     string   // a supporting reference.md, if any
}

// seed1 and seed2 seed the catalog's random choices.
const seed1, seed2 = 0x5eed5c11, 0x5ca1ab1e

// Catalog returns n generated skills, always the same: Catalog(n) is the
// first n skills of Catalog(m) for any m > n. Every concept the generator
// knows (4,269 today) appears once before any appears twice, so from
// 10,000 skills on every query of Queries has an answer.
func Catalog(n int) []Skill { return CatalogSeed(n, 0) }

// CatalogSeed is Catalog drawn with other random choices: the same
// concepts and queries, other names, wording, versions and order. Seed 0
// gives Catalog's. Measuring on a few seeds tells a real change in ranking
// from the luck of one catalog.
func CatalogSeed(n int, seed uint64) []Skill {
	if n <= 0 {
		return nil
	}
	u := universe()
	rng := rand.New(rand.NewPCG(seed1, seed2^seed))
	order := make([]int, len(u))
	for i := range order {
		order[i] = i
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })

	g := &gen{rng: rng, used: map[string]bool{}}
	for _, name := range reserved {
		g.used[name] = true
	}
	versions := make([]int, len(u))
	out := make([]Skill, 0, n)
	for _, ci := range order {
		if len(out) == n {
			break
		}
		out = append(out, g.skill(u[ci], versions[ci]))
		versions[ci]++
	}
	// Further versions of popular concepts: popularity follows a skewed
	// distribution over the shuffled order (the k-th concept is drawn with
	// a probability falling as k^-0.3), so some concepts get several
	// versions and others none.
	for len(out) < n {
		ci := order[int(float64(len(order))*math.Pow(rng.Float64(), 1.4))]
		out = append(out, g.skill(u[ci], versions[ci]))
		versions[ci]++
	}
	return out
}

// reserved are the built-in examples' names, which generated skills never
// take (so that WithExamples can add them).
var reserved = []string{"code-review", "commit-messages", "writing-skills"}

// WithExamples returns skills followed by examples; a generated skill
// whose name an example has is dropped, so names stay unique.
func WithExamples(skills []Skill, examples []Skill) []Skill {
	names := map[string]bool{}
	for _, e := range examples {
		names[e.Name] = true
	}
	out := make([]Skill, 0, len(skills)+len(examples))
	for _, s := range skills {
		if !names[s.Name] {
			out = append(out, s)
		}
	}
	return append(out, examples...)
}

// concept is one combination of a family's slot values.
type concept struct {
	fam  *family
	pick []int // option index, per slot
}

func (c *concept) opt(slot int) *option { return &c.fam.slots[slot].opts[c.pick[slot]] }

// matches reports whether the concept has every value asked for.
func (c *concept) matches(fam string, want map[string][]string) bool {
	if c.fam.id != fam {
		return false
	}
	for i, sl := range c.fam.slots {
		if vals, ok := want[sl.key]; ok && !slices.Contains(vals, c.opt(i).slug) {
			return false
		}
	}
	return true
}

// maxCombos caps the concepts one family contributes, so that no family
// with many slots drowns the others.
const maxCombos = 96

// universe returns every concept, in a fixed order.
var universe = sync.OnceValue(func() []*concept {
	var u []*concept
	for _, f := range families() {
		var all []*concept
		pick := make([]int, len(f.slots))
		var walk func(i int)
		walk = func(i int) {
			if i == len(f.slots) {
				for _, d := range f.distinct {
					if f.slots[d[0]].opts[pick[d[0]]].slug == f.slots[d[1]].opts[pick[d[1]]].slug {
						return
					}
				}
				all = append(all, &concept{fam: f, pick: slices.Clone(pick)})
				return
			}
			for j := range f.slots[i].opts {
				pick[i] = j
				walk(i + 1)
			}
		}
		walk(0)
		if len(all) > maxCombos {
			// A fixed, family-specific sample that keeps every option
			// of every slot in at least one concept.
			r := rand.New(rand.NewPCG(hash(f.id), 7))
			r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
			keep := all[:0:0]
			seen := map[string]bool{}
			for _, c := range all {
				fresh := false
				for i := range f.slots {
					k := fmt.Sprint(i, c.pick[i])
					if !seen[k] {
						seen[k] = true
						fresh = true
					}
				}
				if fresh || len(keep) < maxCombos {
					keep = append(keep, c)
				}
			}
			all = keep
		}
		u = append(u, all...)
	}
	return u
})

// hash is FNV-1a.
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// gen holds the state of one catalog's generation.
type gen struct {
	rng  *rand.Rand
	used map[string]bool
}

func (g *gen) pick(xs []string) string { return xs[g.rng.IntN(len(xs))] }

// skill makes version v (0 for the first) of concept c.
func (g *gen) skill(c *concept, v int) Skill {
	r := &renderer{g: g, c: c}
	name := g.name(c, v)
	s := Skill{Name: name, concept: c}
	s.Description = r.description(v, name)
	s.Body, s.ref = r.body(name)
	return s
}

// orgs and qualifiers tell apart further versions of a concept, as teams
// and authors do in a shared marketplace.
var orgs = []string{"acme", "contoso", "globex", "initech", "umbrella", "hooli", "vandelay", "wayne", "stark",
	"tyrell", "cyberdyne", "soylent", "wonka", "gringotts", "aperture", "oscorp", "massive", "northwind",
	"fabrikam", "tailspin", "adventure", "litware", "proseware", "wingtip", "lucerne", "margie", "blue-yonder",
	"alpine", "coho", "datum"}

var qualifiers = []string{"helper", "toolkit", "assistant", "pro", "lite", "kit", "guide", "workflow",
	"automation", "plus", "basics", "expert", "studio", "copilot", "playbook", "advisor", "wizard", "starter"}

// name returns a fresh, valid name for version v of c.
func (g *gen) name(c *concept, v int) string {
	f := c.fam
	base := func(pattern string) string {
		return clean(expand(pattern, func(key, mod string) string {
			for i, sl := range f.slots {
				if sl.key == key {
					return c.opt(i).slug
				}
			}
			panic(fmt.Sprintf("skillgen: family %s: name pattern %q: no slot %q", f.id, pattern, key))
		}))
	}
	if v < len(f.names) {
		// The versions of a concept cycle through the family's patterns,
		// starting at a concept-specific one.
		p := f.names[(hash(fmt.Sprint(f.id, c.pick))+uint64(v))%uint64(len(f.names))]
		if n := base(p); !g.used[n] {
			g.used[n] = true
			return n
		}
	}
	for {
		n := base(g.pick(f.names))
		switch g.rng.IntN(3) {
		case 0:
			n = g.pick(orgs) + "-" + n
		case 1:
			n = n + "-" + g.pick(qualifiers)
		default:
			n = g.pick(orgs) + "-" + n + "-" + g.pick(qualifiers)
		}
		n = clean(n)
		if !g.used[n] {
			g.used[n] = true
			return n
		}
	}
}

// clean makes s a valid name: lowercase letters, digits and single
// hyphens, no hyphen at either end, at most 64 characters.
func clean(s string) string {
	var b strings.Builder
	dash := true
	for _, r := range strings.ToLower(s) {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	n := strings.TrimSuffix(b.String(), "-")
	for len(n) > 64 {
		i := strings.LastIndexByte(n[:64], '-')
		if i <= 0 {
			n = n[:64]
			break
		}
		n = n[:i]
	}
	return n
}

// expand replaces each {key} or {key:mod} in s with fn(key, mod).
func expand(s string, fn func(key, mod string) string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		key, mod, _ := strings.Cut(s[i+1:i+j], ":")
		b.WriteString(fn(key, mod))
		s = s[i+j+1:]
	}
}

// bodyWords draws a body's target length in words: log-normal around 650,
// within 150 and 1,500.
func (g *gen) bodyWords() int {
	w := math.Exp(6.45 + 0.5*g.rng.NormFloat64())
	return int(min(max(w, 150), 1500))
}
