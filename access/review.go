package access

import (
	"strconv"

	"go.yaml.in/yaml/v3"
)

// ReviewScope is the OAuth scope (or static token scope) that lets a
// principal review: MayReview accepts a token granting it or WriteScope,
// so a reviewer may hold a token that can approve but not upload.
const ReviewScope = "skills:review"

// reviewRule is one entry of the file's "reviews:" list: who may review
// which skills.
type reviewRule struct {
	selectors
	skills   []string
	need     uint8   // selector kinds the rule has
	skillSet nameSet // compiled skills
}

var (
	reviewKeys         = []string{"groups", "subjects", "scopes", "skills"}
	reviewSectionKeys  = []string{"required"}
	reasonNoReviewRule = "no review rule grants it"
	reasonNoReviews    = "the policy has no review rules"
	reasonNoReviewer   = "the token lacks the " + ReviewScope + " (or " + WriteScope + ") scope"
	reasonNoPolicyRev  = "no access policy (reviews need review rules)"
)

// reviews reads the "reviews:" list. Like writes, it may be left out
// (nobody reviews), but not given empty.
func (ps *parser) reviews(n *yaml.Node) []reviewRule {
	return list(ps, n, "reviews", "review rules", "reviews: empty list (leave reviews out: nobody may review)", ps.reviewRule)
}

func (ps *parser) reviewRule(n *yaml.Node) (reviewRule, bool) {
	f, sel, ok := ps.ruleHead(n, "review rule", reviewKeys)
	r := reviewRule{selectors: sel}
	if !ok {
		return r, false
	}
	if f["skills"] == nil {
		ps.errorf(n.Line, `review rule has no "skills" (write skills: ["*"] for all)`)
	}
	r.skills = ps.patterns("skills", f["skills"], "")
	return r, true
}

// review reads the "review:" mapping: required, the globs of the skills
// whose versions need review before they are served.
func (ps *parser) review(n *yaml.Node) []string {
	if !ps.want(n, yaml.MappingNode, "review", "a mapping with required") {
		return nil
	}
	f := ps.fields(n, reviewSectionKeys)
	if f["required"] == nil {
		ps.errorf(n.Line, `review has no "required" (write required: ["*"] for every skill)`)
		return nil
	}
	return ps.patterns("required", f["required"], "")
}

// MayReview reports whether principal pr may approve or reject versions
// of the skill named skill, and why: "rule policy.yaml:40" (the first
// review rule allowing it) or the reason for a refusal. A review is
// allowed only when all of these hold:
//
//   - the policy exists and has review rules ("reviews:");
//   - pr is not nil: a transport that authenticated nobody cannot review;
//   - pr's token grants ReviewScope or WriteScope (explicitly, as for
//     MayWrite);
//   - a review rule matches pr (its selectors as a read rule's) and
//     matches skill with one of its skill globs.
//
// MayReview knows nothing of versions: that a reviewer is not the
// uploader of the version, and that the skill needs review at all
// (NeedsReview), are the registry's to check; that pr may see the skill
// is the caller's (a version it may not see is answered as missing
// before MayReview is asked). A refusal's reason never names another
// principal's rule. Reviews are rare: nothing is cached.
func (p *Policy) MayReview(pr *Principal, skill string) (ok bool, reason string) {
	switch {
	case p == nil:
		return false, reasonNoPolicyRev
	case pr == nil:
		return false, reasonNoCaller
	case !pr.HasScope(ReviewScope) && !pr.HasScope(WriteScope):
		return false, reasonNoReviewer
	case skill == "":
		return false, reasonEmptyName
	case len(p.reviewRules) == 0:
		return false, reasonNoReviews
	}
	hit := make([]uint8, len(p.reviewRules))
	p.reviewSel.mark(pr, hit)
	for i := range p.reviewRules {
		r := &p.reviewRules[i]
		if hit[i]&r.need == r.need && r.skillSet.match(skill) {
			return true, "rule " + p.file + ":" + strconv.Itoa(r.line)
		}
	}
	return false, reasonNoReviewRule
}

// NeedsReview reports whether versions of the skill named name need an
// approval before they are served: whether a glob of the file's
// "review: required:" matches it. A nil Policy needs none.
func (p *Policy) NeedsReview(name string) bool {
	return p != nil && name != "" && p.reviewRequired.match(name)
}

// AllowsReviews reports whether the policy has review rules: without
// them MayReview refuses every review, so a server may say so at start.
func (p *Policy) AllowsReviews() bool { return p != nil && len(p.reviewRules) > 0 }
