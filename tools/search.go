package tools

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/skillstore/skillstore/search"
)

// Limits of search_skills' arguments.
const (
	// DefaultSearchLimit is how many skills search_skills returns when
	// the call does not say.
	DefaultSearchLimit = 10
	// MaxSearchLimit is the most skills one search_skills call returns.
	MaxSearchLimit = 50
	// MaxQueryBytes bounds a query: a request in a few words, not a
	// document.
	MaxQueryBytes = 1000
)

// SearchSkillsArgs are search_skills' arguments.
type SearchSkillsArgs struct {
	Query string `json:"query" jsonschema:"What you need a skill for, in a few words (e.g. 'fill a PDF form', 'review a pull request')"`
	Limit *int   `json:"limit,omitempty" jsonschema:"How many skills to return, best first: 1 to 50 (default 10)"`
}

// SearchSkillsResult is search_skills' result: skill names in rank order,
// best first, and a summary of each, as list_skills gives them.
type SearchSkillsResult struct {
	Skills  []string       `json:"skills"`
	Details []SkillSummary `json:"details"`

	query string // for the text
}

const searchHint = "Describe the task in a few everyday words, e.g. \"fill a PDF form\" or \"review a pull request\"."

// SearchSkills ranks the servable skills for a query over their names,
// descriptions and SKILL.md headings and text.
func (t *Tools) SearchSkills(ctx context.Context, args SearchSkillsArgs) (SearchSkillsResult, error) {
	bad := func(msg, hint string) (SearchSkillsResult, error) {
		return SearchSkillsResult{}, &ArgumentError{Tool: SearchSkills, Message: msg, Hint: hint}
	}
	limit := DefaultSearchLimit
	if args.Limit != nil {
		limit = *args.Limit
		if limit < 1 || limit > MaxSearchLimit {
			return bad(fmt.Sprintf("Argument 'limit' of tool 'search_skills' must be between 1 and %d, got %d", MaxSearchLimit, limit), "Leave limit out for the 10 best matches.")
		}
	}
	q := strings.TrimSpace(args.Query)
	switch {
	case q == "":
		return bad("Missing or empty 'query': say what you need a skill for", searchHint+" Call list_skills to see every skill.")
	case len(q) > MaxQueryBytes:
		return bad(fmt.Sprintf("The query is too long (%d bytes; the limit is %d)", len(q), MaxQueryBytes), searchHint)
	case !utf8.ValidString(q) || strings.ContainsRune(q, utf8.RuneError):
		return bad("The query is not valid UTF-8 text", searchHint)
	case len(search.Tokens(q)) == 0:
		return bad(fmt.Sprintf("The query '%s' has no words to search for: only punctuation, common words such as 'the' and 'how', or words over 64 characters", clip(q)), "Name the task or its subject in a few words, e.g. \"fill a PDF form\" or \"review a pull request\".")
	}
	list, err := t.view.Search(ctx, q, limit)
	if err != nil {
		return SearchSkillsResult{}, err
	}
	names, details := summaries(list)
	return SearchSkillsResult{Skills: names, Details: details, query: q}, nil
}

func showSearchSkills(t *Tools, res SearchSkillsResult) Result {
	var b strings.Builder
	switch len(res.Skills) {
	case 0:
		fmt.Fprintf(&b, "No skill matches %q. Try other words, or call list_skills to see every skill.", res.query)
	default:
		fmt.Fprintf(&b, "Skills matching %q, best first. Load one with get_skill (skill_name).\n", res.query)
		for i, d := range res.Details {
			line := fmt.Sprintf("\n%d. %s: %s", i+1, d.Name, oneLine(d.Description, 200))
			if b.Len()+len(line) > t.opts.TextBudget {
				fmt.Fprintf(&b, "\n… and %d more in the structured result.", len(res.Details)-i)
				break
			}
			b.WriteString(line)
		}
	}
	return Result{jsonBody: res, Display: b.String(), Structured: res}
}
