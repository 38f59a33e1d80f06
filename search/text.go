package search

import (
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
// "deployment" are one term, as are "policy" and "policies". A word is
// split where lower case meets upper case too ("camelCase" is "camel"
// and "case"), and invalid UTF-8 separates words.
func Tokens(text string) []string {
	var out []string
	words(text, func(w string) {
		if t := term(w); t != "" {
			out = append(out, t)
		}
	})
	return out
}

// maxWord is the longest word kept, in bytes: longer runs of letters are
// not words anyone searches for (base64, hashes), and stemming them costs.
const maxWord = 64

// words calls fn with each word of text, as it is written.
func words(text string, fn func(string)) {
	start := -1
	var prev rune
	flush := func(end int) {
		if start >= 0 && end-start <= maxWord {
			fn(text[start:end])
		}
		start = -1
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		wordRune := r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
		switch {
		case !wordRune:
			flush(i)
		case start < 0:
			start = i
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
			start = i
		}
		prev = r
		i += size
	}
	flush(len(text))
}

// term folds a word and stems it, or returns "" for a stop word.
func term(w string) string {
	if isLowerASCII(w) {
		if stopWords[w] {
			return ""
		}
	} else {
		w = strings.ToLower(w)
		if stopWords[w] {
			return ""
		}
	}
	return stem(w)
}

func isLowerASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}

// stems caches the stems of words seen, up to maxStems words: a catalog
// repeats its vocabulary, and Porter2 costs far more than a map lookup.
var (
	stems    sync.Map // word → stem
	numStems atomic.Int64
)

const maxStems = 1 << 17

func stem(w string) string {
	if s, ok := stems.Load(w); ok {
		return s.(string)
	}
	s := w
	if len(w) > 2 && !hasDigit(w) {
		if s = english.Stem(w, true); s == "" {
			s = w
		}
	}
	if numStems.Load() < maxStems {
		key := strings.Clone(w) // the cache must not pin the text w was cut from
		if s == w {
			s = key
		}
		if _, loaded := stems.LoadOrStore(key, s); !loaded {
			numStems.Add(1)
		}
	}
	return s
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
		i'm im i've let lets let's some any all just get got able way something thing`) {
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
	{"spreadsheet", "excel", "xlsx", "csv"},
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
	{"gif", "animation"},
}

// expandWeight is the weight of a term a query matches through synonyms.
const expandWeight = 0.6

// related maps a term to the terms of its synonym groups.
var related = func() map[string][]string {
	m := map[string][]string{}
	for _, group := range synonyms {
		var stemsOf [][]string
		for _, phrase := range group {
			stemsOf = append(stemsOf, Tokens(phrase))
		}
		for i, ts := range stemsOf {
			if len(ts) != 1 {
				continue // a phrase expands from its words, not into one
			}
			for j, other := range stemsOf {
				if i == j {
					continue
				}
				for _, o := range other {
					if o != ts[0] && !contains(m[ts[0]], o) {
						m[ts[0]] = append(m[ts[0]], o)
					}
				}
			}
		}
	}
	return m
}()

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

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
			if !seen[r] {
				seen[r] = true
				out = append(out, queryTerm{r, expandWeight})
			}
		}
	}
	return out
}
