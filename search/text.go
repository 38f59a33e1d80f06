package search

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Tokens splits text into the terms the index matches: words of letters
// and digits (so punctuation, hyphens and underscores separate words, and
// "pdf-forms" and "pdf_forms" both give the terms of "pdf" and "forms"),
// folded to lower case, without English stop words, and reduced to their
// stems (Porter2), so that "deploy", "deploys", "deploying" and
// "deployment" are one term, as are "policy" and "policies", "classify"
// and "classification", "PDF" and "PDFs". Invalid UTF-8 separates words.
// A camelCase word stays whole: product names (TypeScript, GitHub,
// BibTeX) are written that way, and split they would match other words.
func Tokens(text string) []string {
	var out []string
	words(text, func(w string) {
		if t := lookupTerm(w); t != "" {
			out = append(out, t)
		}
	})
	return out
}

// maxWord is the longest word kept, in bytes: longer runs of letters are
// not words anyone searches for (base64, hashes), and stemming them costs.
const maxWord = 64

// words calls fn with each word of text, as it is written. ASCII text
// takes a fast path; other letters and digits are told by package unicode.
func words(text string, fn func(string)) {
	start := -1
	for i := 0; i < len(text); {
		var class byte
		size := 1
		if c := text[i]; c < utf8.RuneSelf {
			class = asciiClass[c]
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			switch {
			case r == utf8.RuneError:
			case unicode.IsUpper(r):
				class = upper
			case unicode.IsLetter(r):
				class = lower // lower case, or a script without case
			case unicode.IsDigit(r):
				class = digit
			}
		}
		if class == other {
			if start >= 0 && i-start <= maxWord {
				fn(text[start:i])
			}
			start = -1
		}
		if class != other && start < 0 {
			start = i
		}
		i += size
	}
	if start >= 0 && len(text)-start <= maxWord {
		fn(text[start:])
	}
}

// Character classes for words.
const (
	other byte = iota
	lower
	upper
	digit
)

var asciiClass = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		switch {
		case 'a' <= c && c <= 'z':
			t[c] = lower
		case 'A' <= c && c <= 'Z':
			t[c] = upper
		case '0' <= c && c <= '9':
			t[c] = digit
		}
	}
	return t
}()

// terms caches the term of each word as written, up to maxCached words
// (a catalog repeats its vocabulary, and folding and stemming a word
// costs far more than a lookup); "" marks a stop word.
var (
	terms     sync.Map // word → term
	numCached atomic.Int64
)

const maxCached = 1 << 18

// lookupTerm is term for a query's words: from the cache if there, but
// never added to it, so queries (which anyone can send) cannot fill the
// cache the catalog's vocabulary needs.
func lookupTerm(w string) string {
	if t, ok := terms.Load(w); ok {
		return t.(string)
	}
	return fold(w)
}

// fold folds a word and stems it (Porter2), or returns "" for a stop word.
func fold(w string) string {
	lw := strings.ToLower(w)
	if stopWords[lw] {
		return ""
	}
	return stemWord(lw)
}

// term folds a word and stems it (Porter2), or returns "" for a stop word.
func term(w string) string {
	if hasDigit(w) { // not stemmed, and often unique (a version, an ID): not worth a cache entry
		return fold(w)
	}
	if t, ok := terms.Load(w); ok {
		return t.(string)
	}
	t := fold(w)
	if numCached.Load() < maxCached {
		key := strings.Clone(w) // the cache must not pin the text w was cut from
		if t == w {
			t = key
		} else if t != "" {
			t = strings.Clone(t)
		}
		if _, loaded := terms.LoadOrStore(key, t); !loaded {
			numCached.Add(1)
		}
	}
	return t
}

// stemWord stems a folded word: Porter2, then two fixes. The plural of an
// acronym ("pdfs", "prs", "apis": an "s" after letters without a vowel, or
// after "pi") loses its "s", which Porter2 keeps. A stem ending in "i"
// loses it, so that "classify" and "classification" ("classifi" and
// "classif"), "verify" and "verification", are one term.
func stemWord(w string) string {
	if len(w) <= 2 || hasDigit(w) {
		return w
	}
	if n := len(w); w[n-1] == 's' && n <= 6 && (!strings.ContainsAny(w[:n-1], "aeiouy") || strings.HasSuffix(w, "apis")) {
		return w[:n-1]
	}
	st := english.Stem(w, true)
	if st == "" {
		return w
	}
	if n := len(st); n > 4 && st[n-1] == 'i' {
		st = st[:n-1]
	}
	return st
}

func hasDigit(w string) bool {
	for i := 0; i < len(w); i++ {
		if '0' <= w[i] && w[i] <= '9' {
			return true
		}
	}
	return false
}

// stopWords are common English words that say nothing about a skill, and
// the words people wrap a request in ("how do I", "please help me").
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be but by can could do does for from how i if in into
		is it its me my of on or our should so that the their them then there these this to
		was we what when where which who why will with would you your want need help please
		i'm im i've let lets let's some any all just get got able way something thing
		s t d m re ve ll don doesn didn isn aren wasn weren won wouldn shouldn couldn can't`) {
		m[w] = true
	}
	return m
}()

// synonyms are groups of words and abbreviations people use for the
// same thing. A query term in a group also matches the group's other
// terms, at expandWeight of its weight: a skill that uses the query's
// own word ranks first.
var synonyms = [][]string{
	{"pr", "pull request", "merge request", "mr"},
	{"k8s", "kubernetes"},
	{"db", "database"},
	{"js", "javascript"},
	{"ts", "typescript"},
	{"py", "python"},
	{"ci", "continuous integration", "pipeline"},
	{"cd", "continuous delivery", "continuous deployment"},
	{"repo", "repository"},
	{"doc", "docs", "documentation", "document"},
	{"config", "configuration", "settings"},
	{"env", "environment"},
	{"infra", "infrastructure"},
	{"auth", "authentication", "authorization", "login", "sso"},
	{"ml", "machine learning"},
	{"ai", "artificial intelligence"},
	{"llm", "language model"},
	{"ui", "user interface", "frontend"},
	{"ux", "user experience"},
	{"app", "application"},
	{"deps", "dependency"},
	{"perf", "performance", "latency", "speed"},
	{"spreadsheet", "excel", "xlsx"},
	{"slides", "slide deck", "presentation", "powerpoint", "pptx", "deck"},
	{"word", "docx"},
	{"email", "mail", "e-mail"},
	{"bug", "defect", "error", "issue"},
	{"i18n", "internationalization", "localization", "l10n", "translation"},
	{"a11y", "accessibility"},
	{"gh", "github"},
	{"tf", "terraform"},
	{"gcp", "google cloud"},
	{"aws", "amazon web services"},
	{"postgres", "postgresql"},
	{"image", "picture", "photo"},
	{"chart", "graph", "plot", "visualization"},
	{"invoice", "bill"},
	{"contract", "agreement"},
	{"test", "spec"},
	{"fix", "repair", "debug", "troubleshoot"},
	{"summarize", "summary", "tldr", "recap"},
	{"translate", "translation"},
	{"secret", "credential", "password", "token"},
	{"vuln", "vulnerability", "cve"},
	{"cli", "command line", "terminal", "shell"},
	{"pdf", "acrobat"},
	{"md", "markdown"},
	{"yml", "yaml"},
	{"readme", "documentation"},
	{"k8", "kubernetes"},
	{"regex", "regexp", "regular expression"},
	{"experiment", "split test", "ab test"},
	{"compress", "shrink", "minify"},
	{"redact", "black out", "anonymize"},
	{"migrate", "move"},
	{"permission", "rbac", "access control"},
	{"flaky", "intermittent", "randomly fail"},
	{"postmortem", "incident review", "retrospective"},
	{"onboard", "new hire"},
	{"gif", "animation"},
}

// expandWeight is the weight a query term lends its synonyms, shared
// among them: a group's words together count less than the query's own.
const expandWeight = 0.6

// related maps a term to the terms of its synonym groups, with weights.
var related = func() map[string][]queryTerm {
	m := map[string][]queryTerm{}
	for _, group := range synonyms {
		var stemsOf [][]string
		for _, phrase := range group {
			stemsOf = append(stemsOf, Tokens(phrase))
		}
		for i, ts := range stemsOf {
			if len(ts) != 1 {
				continue // a phrase expands from its words, not into one
			}
			w := expandWeight / float64(len(group)-1)
			for j, other := range stemsOf {
				if i == j {
					continue
				}
				for _, o := range other {
					if o == ts[0] {
						continue
					}
					k := slices.IndexFunc(m[ts[0]], func(q queryTerm) bool { return q.term == o })
					if k < 0 {
						m[ts[0]] = append(m[ts[0]], queryTerm{o, w})
					} else {
						m[ts[0]][k].weight = max(m[ts[0]][k].weight, w)
					}
				}
			}
		}
	}
	return m
}()

// queryTerm is a term of a query with its weight.
type queryTerm struct {
	term   string
	weight float64
}

// queryTerms are the distinct terms of a query, each at weight 1, then
// the terms its words stand for (synonyms, abbreviations) at a lower
// weight when the query does not hold them already.
func queryTerms(query string) []queryTerm {
	var out []queryTerm
	seen := map[string]bool{}
	for _, t := range Tokens(query) {
		if !seen[t] {
			seen[t] = true
			out = append(out, queryTerm{t, 1})
		}
	}
	for _, q := range out[:len(out):len(out)] {
		for _, r := range related[q.term] {
			if !seen[r.term] {
				seen[r.term] = true
				out = append(out, r)
			}
		}
	}
	return out
}

// SkillDoc is the document of a skill: its name, its description, and
// its SKILL.md body (the Markdown after the frontmatter) split into the
// headings (ATX headings, "#" to "######" and a space, without their #s)
// and the rest. Lines in fenced code blocks are text, never headings.
func SkillDoc(id, name, description, body string) Doc {
	var headings, text strings.Builder
	text.Grow(len(body))
	fence := ""
	for line := range strings.Lines(body) {
		t := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
		default:
			if h := strings.TrimLeft(t, "#"); len(h) < len(t) && len(t)-len(h) <= 6 && (h == "" || h[0] == ' ') {
				headings.WriteString(strings.TrimSpace(h))
				headings.WriteByte('\n')
				continue
			}
		}
		text.WriteString(line)
	}
	return Doc{ID: id, Fields: [numFields]string{name, description, headings.String(), text.String()}}
}
