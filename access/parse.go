package access

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillstore/skillstore/internal/editdist"
	"github.com/skillstore/skillstore/internal/reload"
)

// MaxPolicySize bounds a policy file; a larger one is refused before it is
// parsed.
const MaxPolicySize = 1 << 20

// MaxRules bounds the rules of one policy.
const MaxRules = 10000

// MaxGlob bounds the length of a source or skill glob, in bytes.
const MaxGlob = 1024

// maxProblems bounds how many problems one error lists.
const maxProblems = 20

// LineError is one problem in a policy file, at a line.
type LineError struct {
	File string // the file's base name, never a host path
	Line int    // 1-based; 0 when the problem has no line (an empty file)
	Msg  string
}

// Error returns "file:line: message", or "file: message" without a line.
func (e *LineError) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
}

// Load reads and parses the policy file at name (see Parse). Errors name
// the file by its base name only, never its directory.
func Load(name string) (*Policy, error) {
	data, err := reload.ReadFile(name, MaxPolicySize)
	if err != nil {
		return nil, err
	}
	return Parse(filepath.Base(name), data)
}

// Parse compiles a policy from the YAML text data; file names it in
// errors ("policy.yaml:7: unknown key …"). The format is described on
// Policy. Every problem found is reported (up to 20, each a *LineError,
// joined with errors.Join); nothing of a refused file is used.
func Parse(file string, data []byte) (*Policy, error) {
	ps := &parser{file: file}
	if len(data) > MaxPolicySize {
		ps.errorf(0, "larger than %d bytes", MaxPolicySize)
		return nil, ps.err()
	}
	root := ps.document(data)
	if root == nil {
		return nil, ps.err()
	}
	p := ps.policy(root)
	if err := ps.err(); err != nil {
		return nil, err
	}
	p.compile()
	return p, nil
}

type parser struct {
	file     string
	problems []error
}

func (ps *parser) errorf(line int, format string, args ...any) {
	if len(ps.problems) < maxProblems {
		ps.problems = append(ps.problems, &LineError{File: ps.file, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
}

// err returns the problems found, in line order.
func (ps *parser) err() error {
	slices.SortStableFunc(ps.problems, func(a, b error) int {
		return a.(*LineError).Line - b.(*LineError).Line
	})
	return errors.Join(ps.problems...)
}

// document decodes data's one YAML document and returns its top-level
// mapping, or nil after reporting why there is none.
func (ps *parser) document(data []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			ps.errorf(0, "empty policy")
		} else {
			ps.yamlError(err)
		}
		return nil
	}
	var next yaml.Node
	if err := dec.Decode(&next); err != io.EOF {
		ps.errorf(next.Line, "more than one YAML document")
		return nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		ps.errorf(0, "empty policy")
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		ps.errorf(root.Line, "want a mapping with default and rules, got %s", kindName(root))
		return nil
	}
	return root
}

// yamlError reports a syntax error from the YAML decoder, moving its line
// number ("yaml: line 3: …") to the front. The decoder numbers the lines
// of its parser's errors (not its scanner's) from 0, and leaves out line
// 0; they are put right here.
func (ps *parser) yamlError(err error) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, after, ok := strings.Cut(rest, ": "); ok {
			if l, err := strconv.Atoi(n); err == nil {
				line, msg = l, after
			}
		}
	}
	if parserErrors[msg] {
		line++
	}
	ps.errorf(line, "%s", msg)
}

// parserErrors are the messages of the YAML decoder's parser, whose lines
// it numbers from 0.
var parserErrors = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found undefined tag handle":             true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
}

var (
	topKeys   = []string{"default", "rules", "writes", "reviews", "review", "channels", "stdio"}
	ruleKeys  = []string{"groups", "subjects", "scopes", "sources", "skills"}
	writeKeys = []string{"groups", "subjects", "scopes", "skills", "ops"}
	stdioKeys = []string{"subject", "groups", "scopes"}
)

// policy reads the top-level mapping.
func (ps *parser) policy(root *yaml.Node) *Policy {
	p := &Policy{file: ps.file}
	f := ps.fields(root, topKeys)
	if d := f["default"]; d == nil {
		ps.errorf(root.Line, `no "default" (write default: deny, or default: allow)`)
	} else if s, ok := ps.scalar("default", d); ok {
		switch s {
		case "allow":
			p.allow = true
		case "deny":
		default:
			ps.errorf(d.Line, `default: want "allow" or "deny", got %q`, s)
		}
	}
	if r := f["rules"]; r == nil {
		ps.errorf(root.Line, `no "rules"`)
	} else {
		p.rules = ps.rules(r)
	}
	if w := f["writes"]; w != nil {
		p.writes = ps.writes(w)
	}
	if r := f["reviews"]; r != nil {
		p.reviewRules = ps.reviews(r)
	}
	if r := f["review"]; r != nil {
		p.required = ps.review(r)
	}
	if c := f["channels"]; c != nil {
		p.channels = ps.channelRules(c)
	}
	if s := f["stdio"]; s != nil {
		p.stdio = ps.stdio(s)
	}
	return p
}

func (ps *parser) rules(n *yaml.Node) []rule {
	return list(ps, n, "rules", "rules", "rules: empty list", ps.rule)
}

// list reads a list of at most MaxRules items under key, each by item,
// refusing an empty one with empty.
func list[T any](ps *parser, n *yaml.Node, key, items, empty string, item func(*yaml.Node) (T, bool)) []T {
	if !ps.want(n, yaml.SequenceNode, key, "a list of "+items) {
		return nil
	}
	if len(n.Content) == 0 {
		ps.errorf(n.Line, "%s", empty)
		return nil
	}
	if len(n.Content) > MaxRules {
		ps.errorf(n.Line, "%s: more than %d %s", key, MaxRules, items)
		return nil
	}
	out := make([]T, 0, len(n.Content))
	for _, c := range n.Content {
		if v, ok := item(c); ok {
			out = append(out, v)
		}
	}
	return out
}

// ruleHead reads what a rule of either kind starts with: a mapping
// that is not empty, its fields (of keys), and its selectors.
func (ps *parser) ruleHead(n *yaml.Node, what string, keys []string) (map[string]*yaml.Node, selectors, bool) {
	sel := selectors{line: n.Line}
	if !ps.want(n, yaml.MappingNode, what, "a mapping") {
		return nil, sel, false
	}
	if len(n.Content) == 0 {
		ps.errorf(n.Line, "empty %s", what)
		return nil, sel, false
	}
	f := ps.fields(n, keys)
	sel.groups = ps.callers("groups", f["groups"])
	sel.subjects = ps.callers("subjects", f["subjects"])
	sel.scopes = ps.callers("scopes", f["scopes"])
	return f, sel, true
}

func (ps *parser) rule(n *yaml.Node) (rule, bool) {
	f, sel, ok := ps.ruleHead(n, "rule", ruleKeys)
	r := rule{selectors: sel}
	if !ok {
		return r, false
	}
	for _, k := range []string{"sources", "skills"} {
		if f[k] == nil {
			ps.errorf(n.Line, `rule has no %q (write %s: ["*"] for all)`, k, k)
		}
	}
	r.sources = ps.patterns("sources", f["sources"], "")
	r.skills = ps.patterns("skills", f["skills"], " (choose sources with sources:)")
	return r, true
}

// writes reads the "writes:" list. Unlike rules, it may be left out
// (nobody writes), but not given empty.
func (ps *parser) writes(n *yaml.Node) []writeRule {
	return list(ps, n, "writes", "write rules", "writes: empty list (leave writes out: nobody may write)", ps.writeRule)
}

func (ps *parser) writeRule(n *yaml.Node) (writeRule, bool) {
	f, sel, ok := ps.ruleHead(n, "write rule", writeKeys)
	w := writeRule{selectors: sel}
	if !ok {
		return w, false
	}
	if f["skills"] == nil {
		ps.errorf(n.Line, `write rule has no "skills" (write skills: ["*"] for all)`)
	}
	if f["ops"] == nil {
		ps.errorf(n.Line, `write rule has no "ops" (write ops: [create, version, delete] for all)`)
	}
	w.skills = ps.patterns("skills", f["skills"], "")
	w.ops = ps.ops(f["ops"])
	return w, true
}

// ops reads a write rule's operations as a bitset of 1<<WriteOp.
func (ps *parser) ops(n *yaml.Node) uint8 {
	names, lines := ps.list("ops", n)
	known := writeOpNames[1:]
	var ops uint8
	for i, s := range names {
		op := slices.Index(known, s)
		if op < 0 {
			if k := suggest(s, known); k != "" {
				ps.errorf(lines[i], "ops: unknown operation %q (did you mean %q?)", s, k)
			} else {
				ps.errorf(lines[i], "ops: unknown operation %q (known: %s)", s, strings.Join(known, ", "))
			}
			continue
		}
		ops |= 1 << (op + 1)
	}
	return ops
}

func (ps *parser) stdio(n *yaml.Node) *Principal {
	if !ps.want(n, yaml.MappingNode, "stdio", "a mapping with subject, groups or scopes") {
		return nil
	}
	f := ps.fields(n, stdioKeys)
	p := &Principal{}
	if s := f["subject"]; s != nil {
		if v, ok := ps.scalar("stdio.subject", s); ok {
			if v == "" {
				ps.errorf(s.Line, "stdio.subject: empty")
			}
			p.Subject = v
		}
	}
	groups, _ := ps.list("stdio.groups", f["groups"])
	scopes, _ := ps.list("stdio.scopes", f["scopes"])
	p.Groups, p.Scopes = dedupe(groups), dedupe(scopes)
	return p
}

// callers reads a caller selector: a list of names, none of them "*".
func (ps *parser) callers(key string, n *yaml.Node) []string {
	names, lines := ps.list(key, n)
	for i, s := range names {
		if s == "*" {
			ps.errorf(lines[i], `%s: "*" is not a wildcard here; leave %s out to match every caller`, key, key)
		}
	}
	return names
}

// patterns reads a list of path.Match globs, each checked; slashHint
// follows the complaint about a "/" in a skill glob.
func (ps *parser) patterns(key string, n *yaml.Node, slashHint string) []string {
	pats, lines := ps.list(key, n)
	for i, p := range pats {
		line := lines[i]
		if len(p) > MaxGlob {
			ps.errorf(line, "%s: a glob of %d bytes (at most %d)", key, len(p), MaxGlob)
		} else if _, err := path.Match(p, ""); err != nil {
			ps.errorf(line, "%s: bad glob %q: %v", key, p, err)
		} else if (key == "skills" || key == "required") && strings.Contains(p, "/") {
			ps.errorf(line, "%s: %q contains \"/\"; skill names have none%s", key, p, slashHint)
		}
	}
	return pats
}

// list reads a non-empty list of non-empty scalars, with their lines; a
// nil node is an absent key and yields nil without complaint.
func (ps *parser) list(key string, n *yaml.Node) (out []string, lines []int) {
	if n == nil || !ps.want(n, yaml.SequenceNode, key, "a list") {
		return nil, nil
	}
	if len(n.Content) == 0 {
		switch key {
		case "sources", "skills":
			ps.errorf(n.Line, `%s: empty list (a rule must grant something; ["*"] for all)`, key)
		case "required":
			ps.errorf(n.Line, `required: empty list (leave review out: no skill needs review)`)
		case "ops":
			ps.errorf(n.Line, "ops: empty list (a write rule must allow something: create, version, delete)")
		default:
			ps.errorf(n.Line, "%s: empty list (leave the key out instead)", key)
		}
		return nil, nil
	}
	for _, e := range n.Content {
		s, ok := ps.scalar(key, e)
		if !ok {
			continue
		}
		if s == "" {
			ps.errorf(e.Line, "%s: empty name", key)
			continue
		}
		out = append(out, s)
		lines = append(lines, e.Line)
	}
	return out, lines
}

// scalar reads a string value.
func (ps *parser) scalar(key string, n *yaml.Node) (string, bool) {
	if !ps.want(n, yaml.ScalarNode, key, "a string") {
		return "", false
	}
	if n.Tag == "!!null" {
		ps.errorf(n.Line, "%s: no value", key)
		return "", false
	}
	return n.Value, true
}

// want reports whether n is of kind k, and reports it when it is not.
func (ps *parser) want(n *yaml.Node, k yaml.Kind, key, what string) bool {
	if n.Kind == k {
		return true
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		ps.errorf(n.Line, "%s: no value (want %s)", key, what)
	} else {
		ps.errorf(n.Line, "%s: want %s, got %s", key, what, kindName(n))
	}
	return false
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias (anchors and aliases are not supported)"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "nothing"
}

// fields returns a mapping's values by key, reporting keys that are not
// strings, unknown (with a suggestion) or repeated.
func (ps *parser) fields(m *yaml.Node, known []string) map[string]*yaml.Node {
	out := make(map[string]*yaml.Node, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			ps.errorf(k.Line, "want a key, got %s", kindName(k))
			continue
		}
		if !slices.Contains(known, k.Value) {
			if s := suggest(k.Value, known); s != "" {
				ps.errorf(k.Line, "unknown key %q (did you mean %q?)", k.Value, s)
			} else {
				ps.errorf(k.Line, "unknown key %q (known: %s)", k.Value, strings.Join(known, ", "))
			}
			continue
		}
		if _, dup := out[k.Value]; dup {
			ps.errorf(k.Line, "duplicate key %q", k.Value)
			continue
		}
		if v.Kind == yaml.AliasNode {
			ps.errorf(v.Line, "%s: anchors and aliases are not supported", k.Value)
			continue
		}
		out[k.Value] = v
	}
	return out
}

// suggest returns the known key closest to s, if it is close: the same
// but for case, or at most two edits away.
func suggest(s string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if strings.EqualFold(s, k) {
			return k
		}
		if d := editdist.Distance(strings.ToLower(s), k, bestD-1); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func dedupe(list []string) []string {
	var out []string
	for _, s := range list {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
