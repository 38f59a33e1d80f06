// Package tools is skillstore's tool layer: the four skill tools of the
// contracts (list_skills, get_skill, read_file_in_skill and Skill), and
// search_skills for catalogs too large to list, as typed handlers over a
// store.Store. The MCP server and plain function-calling
// agents use the same handlers: Definitions returns OpenAI-style function
// definitions and Call returns the tool-result content the contracts give,
// so an agent that does not speak MCP gets the same tools.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"reflect"
	"strings"

	"github.com/skillstore/skillstore/internal/logtext"
	"github.com/skillstore/skillstore/store"
)

// Tool names.
const (
	ListSkills      = "list_skills"
	GetSkill        = "get_skill"
	ReadFileInSkill = "read_file_in_skill"
	SkillTool       = "Skill"
	SearchSkills    = "search_skills"
)

// Names returns the tools' names in the order they are offered.
func Names() []string {
	names := make([]string, len(toolList))
	for i, tl := range toolList {
		names[i] = tl.name
	}
	return names
}

// Options tune a Tools.
type Options struct {
	// CreateDir is the folder the Skill tool tells users to create new skills
	// in (default "~/.agents/skills").
	CreateDir string
	// MaxListed bounds how many skills the Skill tool's description lists
	// (default 50); the rest are counted and left to list_skills.
	MaxListed int
	// MaxDescriptionBytes bounds the Skill tool's whole description (default 8 KiB).
	MaxDescriptionBytes int
	// TextBudget bounds the text of a catalog answer (list_skills,
	// search_skills), in bytes (default DefaultTextBudget). Over it,
	// list_skills gives names only, then a count and a pointer to
	// search_skills; its structured "skills" still holds every name.
	// File contents (get_skill, Skill, read_file_in_skill) are bounded by
	// the store's MaxFileSize instead: a skill's instructions are never cut.
	TextBudget int
}

// DefaultTextBudget is the default Options.TextBudget: 64 KB, about 16,000
// tokens, a fraction of any model's context window.
const DefaultTextBudget = 64 << 10

// Tools runs the skill tools over a store. It is safe for concurrent use.
// Tools from New see every skill; With gives a caller's view.
type Tools struct {
	store *store.Store // the store the tools run over
	view  *store.View  // what the tools read: the whole store, or a caller's view of it (With)
	opts  Options
	// remote: the tools answer a remote caller, who is shown where a
	// source is only as RemoteLocation gives it (Remote).
	remote bool
}

// New returns the tools over s.
func New(s *store.Store, opts Options) *Tools {
	if opts.CreateDir == "" {
		opts.CreateDir = "~/.agents/skills"
	}
	if opts.MaxListed <= 0 {
		opts.MaxListed = 50
	}
	if opts.MaxDescriptionBytes <= 0 {
		opts.MaxDescriptionBytes = 8 << 10
	}
	if opts.TextBudget <= 0 {
		opts.TextBudget = DefaultTextBudget
	}
	return &Tools{store: s, view: s.View(nil), opts: opts}
}

// Store returns the store the tools read.
func (t *Tools) Store() *store.Store { return t.store }

// With returns t reading through v, a view of t's store (store.View):
// every tool, the Skill tool's description included, sees what v
// includes. For the view t reads already it returns t itself.
func (t *Tools) With(v *store.View) *Tools {
	if v == t.view {
		return t
	}
	c := *t
	c.view = v
	return &c
}

// View returns the view t reads the store through.
func (t *Tools) View() *store.View { return t.view }

// Result is the outcome of one tool call.
type Result struct {
	// Display is the human-readable text an MCP client shows: the Markdown
	// for get_skill, the file for read_file_in_skill, a list for list_skills.
	Display string
	// Structured is the JSON object of the result: the tool's result type
	// on success; on error nil, except read_file_in_skill's ReadFileError.
	// MCP sends it only on success.
	Structured any
	// IsError reports a failed call; Content and Display then say why and
	// what to do next.
	IsError bool
	// Provenance says where the content of a successful get_skill, Skill
	// or read_file_in_skill call comes from: the skill's (store.Skill).
	// Nil for failures and for the catalog tools; MCP sends it in the
	// result's _meta, and function calling leaves it out.
	Provenance *store.Provenance

	content  string // the function-calling content, when it is text
	jsonBody any    // the function-calling content, when it is JSON (built on demand)
}

// Content returns the tool-result message content the contracts give for
// function calling: JSON for list_skills and get_skill, the file's text
// (or "ERROR: …") for read_file_in_skill, the formatted text for Skill.
// JSON is built on demand, since the MCP surface does not need it.
func (r Result) Content() string {
	if r.jsonBody != nil {
		return mustJSON(r.jsonBody)
	}
	return r.content
}

// SkillURI returns the canonical resource URI of a skill's document:
// skill://NAME/SKILL.md, and for a plugin's skill, named PLUGIN:SKILL,
// skill://PLUGIN/SKILL/SKILL.md (SEP-2640's skill path of two segments).
func SkillURI(name string) string {
	if g, f, ok := store.SplitGroup(name); ok {
		return "skill://" + g + "/" + f + "/" + store.DocName
	}
	return "skill://" + name + "/" + store.DocName
}

// FileURI returns the resource URI of a file in a skill's folder, with each
// path segment percent-encoded (see SkillURI for a plugin's skill).
func FileURI(name, filePath string) string {
	if g, f, ok := store.SplitGroup(name); ok {
		return "skill://" + url.PathEscape(g) + "/" + url.PathEscape(f) + "/" + EscapePath(filePath)
	}
	return "skill://" + url.PathEscape(name) + "/" + EscapePath(filePath)
}

// EscapePath percent-encodes each segment of a slash-separated path, as
// a URI's path holds it.
func EscapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// Call runs the named tool with arguments as JSON text, as a model emits
// them, and returns the tool-result message content for the model, in the
// contracts' words. err is not nil when the call itself is wrong: an
// unknown tool (*UnknownToolError) or arguments that do not fit the tool's
// schema (*ArgumentError); content then says so, for the model, so a
// function-calling loop can send it back either way. A well-formed call
// that fails (a skill that does not exist) is not an error: content says
// what went wrong and what to do.
func (t *Tools) Call(ctx context.Context, name, arguments string) (content string, err error) {
	res, err := t.Run(ctx, name, []byte(arguments))
	return res.Content(), err
}

// Run runs the named tool with JSON arguments and returns its result for
// every surface (Display and Structured for MCP, Content for function
// calling), with the error of Call.
func (t *Tools) Run(ctx context.Context, name string, arguments []byte) (Result, error) {
	tl, ok := lookup(name)
	if !ok {
		err := &UnknownToolError{Name: name}
		return errorResult(err.Error(), ""), err
	}
	return tl.run(t, ctx, arguments)
}

// tool is one tool, described once: its name, title and description, the
// Go types of its arguments and of its structured result, from which its
// JSON Schemas are derived (and, in package mcpserver, its encoder), and
// how a call runs and is presented.
type tool struct {
	name, title, description string
	describe                 func(*Tools, context.Context) string // a description that lists the skills; else description
	in, out                  reflect.Type
	inSchema, outSchema      json.RawMessage
	run                      func(*Tools, context.Context, []byte) (Result, error)
}

// define describes a tool with arguments In and structured result Out.
// work does the call, as the tool's typed Go method does, and gives the
// provenance of the skill it read, if any (see plain); show presents its
// result; fail presents an error — bad arguments or a failed call — in the
// contract's words.
func define[In, Out any](name, title, description string,
	work func(*Tools, context.Context, In) (Out, *store.Provenance, error),
	show func(*Tools, Out) Result,
	fail func(*Tools, context.Context, In, error) Result,
) tool {
	in, out := reflect.TypeFor[In](), reflect.TypeFor[Out]()
	return tool{
		name: name, title: title, description: description, in: in, out: out,
		inSchema: schemaFor(in, true), outSchema: schemaFor(out, false),
		run: func(t *Tools, ctx context.Context, raw []byte) (Result, error) {
			var args In
			if err := decodeArgs(name, raw, &args); err != nil {
				return fail(t, ctx, args, err), err
			}
			res, prov, err := work(t, ctx, args)
			var argErr *ArgumentError
			if errors.As(err, &argErr) {
				return fail(t, ctx, args, err), err
			}
			if err != nil {
				return fail(t, ctx, args, err), nil
			}
			r := show(t, res)
			r.Provenance = prov
			return r, nil
		},
	}
}

// plain is the work of a tool that reads no one skill's content (the
// catalog tools): its typed method, with no provenance.
func plain[In, Out any](method func(*Tools, context.Context, In) (Out, error)) func(*Tools, context.Context, In) (Out, *store.Provenance, error) {
	return func(t *Tools, ctx context.Context, args In) (Out, *store.Provenance, error) {
		res, err := method(t, ctx, args)
		return res, nil, err
	}
}

// toolList is every tool, in the order they are offered.
var toolList = [...]tool{
	define(ListSkills, "List skills",
		"List all available skills in the skills folder. Returns skill names as a JSON array (\"skills\"), sorted, and for each skill its description and skill:// URI (\"details\") so you can choose one.",
		plain((*Tools).ListSkills), showListSkills, failJSON[ListSkillsArgs]),
	define(GetSkill, "Get skill",
		"Read the SKILL.MD documentation for a specific skill. Returns the full text content of the documentation file. Give skill_name (the folder name), or uri (skill://NAME/SKILL.md) if you have the skill's resource URI; not both.",
		(*Tools).getSkill, showGetSkill, failGetSkill),
	define(ReadFileInSkill, "Read file in skill",
		"Read any file within a skill's folder. Use this when SKILL.MD references additional documentation, examples, or configuration files. Path must be relative to skill folder.",
		(*Tools).readFile, showReadFile, failReadFile),
	withDescription(define(SkillTool, "Skill", "", (*Tools).skill, showSkill, failSkill), (*Tools).SkillDescription),
	define(SearchSkills, "Search skills",
		"Find the skills that fit a task, best first, when there are too many skills to list. Describe the task in a few words (\"fill a PDF form\", \"review a pull request\"); returns skill names ranked by relevance (\"skills\") and each one's description and skill:// URI (\"details\"). Then load the best fit with get_skill.",
		plain((*Tools).SearchSkills), showSearchSkills, failJSON[SearchSkillsArgs]),
}

func withDescription(tl tool, describe func(*Tools, context.Context) string) tool {
	tl.describe = describe
	return tl
}

// lookup finds a tool by name.
func lookup(name string) (*tool, bool) {
	for i := range toolList {
		if toolList[i].name == name {
			return &toolList[i], true
		}
	}
	return nil, false
}

// ListSkillsArgs are list_skills' arguments: none.
type ListSkillsArgs struct{}

// GetSkillArgs are get_skill's arguments: the skill's name or its URI.
// An empty string counts as absent.
type GetSkillArgs struct {
	SkillName string `json:"skill_name,omitempty" jsonschema:"Name of the skill (folder name)"`
	URI       string `json:"uri,omitempty" jsonschema:"The skill's URI, skill://NAME/SKILL.md, as list_skills and resources/list give it; use instead of skill_name"`
}

// ReadFileArgs are read_file_in_skill's arguments.
type ReadFileArgs struct {
	SkillName string `json:"skill_name" jsonschema:"Name of the skill (folder name containing the file)"`
	FilePath  string `json:"file_path" jsonschema:"Relative path to file within skill folder (e.g., 'examples/usage.py', 'docs/api.md')"`
}

// SkillArgs are the Skill tool's arguments.
type SkillArgs struct {
	SkillName string `json:"skill_name" jsonschema:"Name of the skill to invoke from available skills"`
}

// SkillSummary describes one skill in list_skills' result.
type SkillSummary struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	URI         string `json:"uri"`
	Source      string `json:"source"`
}

// ListSkillsResult is list_skills' result: the contract's sorted "skills"
// array of names, and a summary of each so a model can choose.
type ListSkillsResult struct {
	Skills  []string       `json:"skills"`
	Details []SkillSummary `json:"details"`
}

// ListSkills lists the servable skills, sorted by name.
func (t *Tools) ListSkills(ctx context.Context, _ ListSkillsArgs) (ListSkillsResult, error) {
	list, err := t.view.List(ctx)
	if err != nil {
		return ListSkillsResult{}, err
	}
	names, details := summaries(list)
	return ListSkillsResult{Skills: names, Details: details}, nil
}

// summaries are the names and summaries of skills, in their order.
func summaries(list []*store.Skill) ([]string, []SkillSummary) {
	names, details := make([]string, len(list)), make([]SkillSummary, len(list))
	for i, sk := range list {
		names[i] = sk.Name
		details[i] = SkillSummary{Name: sk.Name, Description: sk.Description, URI: SkillURI(sk.Name), Source: sk.Source.Label}
	}
	return names, details
}

// showListSkills presents every skill with its description while that
// fits the text budget; over it, the names only (as many as fit), a count
// and a pointer to search_skills. The structured result then holds every
// name, as the contract has it, and no details; the function-calling
// content, which is all a model reads, the names that fit the budget.
func showListSkills(t *Tools, res ListSkillsResult) Result {
	var b strings.Builder
	fmt.Fprintf(&b, "%d skills available. Load one with get_skill (skill_name) or read its URI as a resource.\n", len(res.Skills))
	for _, d := range res.Details {
		fmt.Fprintf(&b, "\n- %s: %s (%s)", d.Name, oneLine(d.Description, 300), d.URI)
		if b.Len() > t.opts.TextBudget {
			break
		}
	}
	if b.Len() <= t.opts.TextBudget {
		return Result{jsonBody: res, Display: b.String(), Structured: res}
	}
	brief := ListSkillsResult{Skills: res.Skills, Details: []SkillSummary{}}
	content := listSkillsOverBudget{Count: len(res.Skills), Hint: overBudgetHint}
	room := t.opts.TextBudget - len(mustJSON(content)) - len(`,"truncated":true`)
	for _, name := range res.Skills {
		if room -= len(name) + 3; room < 0 { // the quotes and a comma
			content.Truncated = true
			break
		}
		content.Skills = append(content.Skills, name)
	}
	b.Reset()
	fmt.Fprintf(&b, "%d skills available: too many to describe here. Call search_skills with a few words describing the task to find the right one, then load it with get_skill (skill_name). Every name is in the structured result (\"skills\"):\n", len(res.Skills))
	for i, name := range res.Skills {
		tail := fmt.Sprintf("\n… and %d more.", len(res.Skills)-i)
		if b.Len()+1+len(name)+len(tail) > t.opts.TextBudget {
			b.WriteString(tail)
			break
		}
		b.WriteString("\n" + name)
	}
	return Result{jsonBody: content, Display: b.String(), Structured: brief}
}

// listSkillsOverBudget is list_skills' function-calling content when the
// catalog does not fit the text budget: the names that fit, in order,
// how many skills there are, and what to do instead.
type listSkillsOverBudget struct {
	Skills    []string `json:"skills"`
	Count     int      `json:"count"`
	Truncated bool     `json:"truncated,omitempty"`
	Hint      string   `json:"hint"`
}

const overBudgetHint = "Too many skills to describe here: call search_skills with a few words describing the task to find the right one, then get_skill."

// failJSON presents a failure as list_skills and get_skill do: the
// contract's {"error": "..."}, with a hint.
func failJSON[In any](_ *Tools, _ context.Context, _ In, err error) Result {
	var argErr *ArgumentError
	if errors.As(err, &argErr) {
		return errorResult(argErr.Message, argErr.Hint)
	}
	return storeError(err)
}

// GetSkillResult is get_skill's result: the contract's skill_name and
// documentation, and the URI and MIME type of the same resource.
type GetSkillResult struct {
	SkillName     string `json:"skill_name"`
	Documentation string `json:"documentation"`
	URI           string `json:"uri"`
	MimeType      string `json:"mimeType"`
}

// GetSkill reads a skill's SKILL.md, by name or by URI.
func (t *Tools) GetSkill(ctx context.Context, args GetSkillArgs) (GetSkillResult, error) {
	res, _, err := t.getSkill(ctx, args)
	return res, err
}

// getSkill is GetSkill, with the provenance of the document read.
func (t *Tools) getSkill(ctx context.Context, args GetSkillArgs) (GetSkillResult, *store.Provenance, error) {
	name, uri := strings.TrimSpace(args.SkillName), args.URI
	switch {
	case args.SkillName != "" && uri != "":
		return GetSkillResult{}, nil, &ArgumentError{Tool: GetSkill, Message: "Give either 'skill_name' or 'uri' to get_skill, not both"}
	case uri != "": // ParseSkillURI says what is wrong with one of blanks
		var err error
		if name, err = ParseSkillURI(ctx, t.view, uri); err != nil {
			return GetSkillResult{}, nil, &ArgumentError{Tool: GetSkill, Message: err.Error(), Err: err, Hint: "Call list_skills (or resources/list) to discover supported skill URIs."}
		}
	case args.SkillName == "":
		return GetSkillResult{}, nil, &ArgumentError{Tool: GetSkill,
			Message: "Missing argument: give 'skill_name' (e.g. \"pdf\") or a non-empty 'uri' (e.g. \"skill://pdf/SKILL.md\")",
			Hint:    "Call list_skills to discover skill names and URIs."}
	}
	doc, err := t.view.Document(ctx, name, nil)
	if err != nil {
		return GetSkillResult{}, nil, err
	}
	return GetSkillResult{SkillName: name, Documentation: doc.Text, URI: SkillURI(name), MimeType: "text/markdown"}, doc.Skill.Provenance, nil
}

func showGetSkill(_ *Tools, res GetSkillResult) Result {
	return Result{jsonBody: res, Display: res.Documentation, Structured: res}
}

func failGetSkill(t *Tools, ctx context.Context, args GetSkillArgs, err error) Result {
	if uri := strings.TrimSpace(args.URI); uri != "" && errors.Is(err, store.ErrSkillNotFound) {
		name, _ := ParseSkillURI(ctx, t.view, uri)
		return errorResult(fmt.Sprintf("Unsupported skill URI '%s': no skill named '%s' is registered", clip(uri), clip(name)),
			"Call list_skills (or resources/list) to discover supported skill URIs.")
	}
	return failJSON(t, ctx, args, err)
}

// ParseSkillURI returns the skill name of a skill://NAME/SKILL.md (or
// skill://PLUGIN/SKILL/SKILL.md) URI, resolved in v (see ResolveURI).
// The name is percent-decoded and then checked with store.CheckName, so an
// encoded traversal ("skill://..%2F..%2Fetc/SKILL.md") is refused.
func ParseSkillURI(ctx context.Context, v *store.View, uri string) (string, error) {
	name, p, err := ResolveURI(ctx, v, uri)
	if err != nil {
		return "", err
	}
	if !store.IsDocName(p) {
		return "", fmt.Errorf("Unsupported URI '%s': get_skill reads only skill://NAME/SKILL.md; read other files with read_file_in_skill or resources/read", clip(uri))
	}
	return name, nil
}

// ResolveURI is SplitURI, the skill path resolved in v:
// skill://PLUGIN/SKILL/PATH names the plugin's skill PLUGIN:SKILL (and
// PATH in it) when v serves that skill, or reports it left out with a
// problem and knows no skill PLUGIN; else the file SKILL/PATH of the
// skill PLUGIN. (A catalog never serves both a skill and a plugin of one
// name: see store.Catalog.) A skill v hides is not known to it, so the
// answer to a caller who may not see a plugin's skill is the answer it
// would get if the skill did not exist.
func ResolveURI(ctx context.Context, v *store.View, uri string) (name, filePath string, err error) {
	name, filePath, err = SplitURI(uri)
	if err != nil || strings.Contains(name, store.GroupSep) {
		return name, filePath, err
	}
	if c, err := v.Catalog(ctx); err == nil && !c.HasGroup(name) {
		return name, filePath, nil // the common case, answered without a lookup that fails
	}
	seg, rest, _ := strings.Cut(filePath, "/")
	if seg == "" {
		return name, filePath, nil
	}
	q := name + store.GroupSep + seg
	if store.CheckName(q) != nil {
		return name, filePath, nil
	}
	switch _, err := v.Skill(ctx, q); {
	case err == nil:
		return q, rest, nil
	case !knows(q, err):
		return name, filePath, nil
	}
	if _, err := v.Skill(ctx, name); !knows(name, err) {
		return q, rest, nil // the errors say what is wrong with the plugin's skill
	}
	return name, filePath, nil
}

// knows reports whether err, a view's answer for the skill called name,
// says that the view serves or reports the skill.
func knows(name string, err error) bool {
	var se *store.Error
	return err == nil || errors.As(err, &se) && se.Skill == name && se.Kind != store.ErrSkillNotFound
}

// SplitURI splits skill://NAME/PATH into its percent-decoded name and path,
// checking the name with store.CheckName. The path is returned as decoded;
// callers clean it with store.CleanPath.
func SplitURI(uri string) (name, filePath string, err error) {
	uri = strings.TrimSpace(uri)
	if uri == "" {
		return "", "", errors.New("Missing or empty 'uri': provide a non-empty skill:// URI such as skill://NAME/SKILL.md")
	}
	rest, ok := cutPrefixFold(uri, "skill://")
	if !ok {
		return "", "", fmt.Errorf("Unsupported URI '%s': only skill:// URIs are supported, such as skill://NAME/SKILL.md", clip(uri))
	}
	rawName, rawPath, _ := strings.Cut(rest, "/")
	if name, err = url.PathUnescape(rawName); err != nil {
		return "", "", fmt.Errorf("Malformed URI '%s': bad percent-encoding in the skill name", clip(uri))
	}
	if err := store.CheckName(name); err != nil {
		return "", "", described(err)
	}
	if filePath, err = url.PathUnescape(rawPath); err != nil {
		return "", "", fmt.Errorf("Malformed URI '%s': bad percent-encoding in the path", clip(uri))
	}
	return name, filePath, nil
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// ReadFileResult is read_file_in_skill's successful result.
type ReadFileResult struct {
	Success   bool   `json:"success"`
	SkillName string `json:"skill_name"`
	FilePath  string `json:"file_path"`
	Content   string `json:"content"`
	SizeBytes int64  `json:"size_bytes"`
	Encoding  string `json:"encoding"`
}

// ReadFileError is read_file_in_skill's failed result.
type ReadFileError struct {
	Success   bool   `json:"success"`
	SkillName string `json:"skill_name"`
	FilePath  string `json:"file_path"`
	Error     string `json:"error"`
}

// ReadFile reads a text file in a skill's folder.
func (t *Tools) ReadFile(ctx context.Context, args ReadFileArgs) (ReadFileResult, error) {
	res, _, err := t.readFile(ctx, args)
	return res, err
}

// readFile is ReadFile, with the provenance of the file read.
func (t *Tools) readFile(ctx context.Context, args ReadFileArgs) (ReadFileResult, *store.Provenance, error) {
	name := strings.TrimSpace(args.SkillName)
	f, err := t.view.ReadFile(ctx, name, args.FilePath, &store.ReadOptions{Text: true})
	if err != nil {
		return ReadFileResult{}, nil, err
	}
	return ReadFileResult{Success: true, SkillName: name, FilePath: f.Path, Content: f.Text, SizeBytes: f.Size, Encoding: f.Encoding}, f.Skill.Provenance, nil
}

func showReadFile(_ *Tools, res ReadFileResult) Result {
	return Result{content: res.Content, Display: res.Content, Structured: res}
}

func failReadFile(_ *Tools, _ context.Context, args ReadFileArgs, err error) Result {
	var argErr *ArgumentError
	if errors.As(err, &argErr) {
		return Result{content: "ERROR: " + argErr.Message, Display: argErr.Message, IsError: true}
	}
	msg, hint := Describe(err)
	return Result{content: "ERROR: " + msg, Display: withHint(msg, hint), IsError: true,
		Structured: ReadFileError{SkillName: strings.TrimSpace(args.SkillName), FilePath: args.FilePath, Error: msg}}
}

// SkillResult is the Skill tool's successful result.
type SkillResult struct {
	SkillName   string `json:"skill_name"`
	Type        string `json:"type"`
	Path        string `json:"path"`
	Revision    string `json:"revision,omitempty"` // the source's revision: a git commit, a published snapshot's ID, an archive's digest
	Description string `json:"description"`
	Content     string `json:"content"`
	ShortResult string `json:"shortResult"`
}

// Skill invokes a skill: its SKILL.md, with where it comes from.
func (t *Tools) Skill(ctx context.Context, args SkillArgs) (SkillResult, error) {
	res, _, err := t.skill(ctx, args)
	return res, err
}

// skill is Skill, with the provenance of the document read.
func (t *Tools) skill(ctx context.Context, args SkillArgs) (SkillResult, *store.Provenance, error) {
	doc, err := t.view.Document(ctx, strings.TrimSpace(args.SkillName), nil)
	if err != nil {
		return SkillResult{}, nil, err
	}
	sk := doc.Skill
	where := sk.Source.Location
	if t.remote {
		where = RemoteLocation(sk.Source.Label, where)
	}
	return SkillResult{SkillName: sk.Name, Type: sk.Source.Label, Path: SkillLocation(where, sk.Folder()), Revision: sk.Revision(),
		Description: sk.Description, Content: doc.Text, ShortResult: sk.Name + ": " + oneLine(sk.Description, 200)}, sk.Provenance, nil
}

func showSkill(_ *Tools, res SkillResult) Result {
	where := res.Path
	switch {
	case isCommit(res.Revision):
		where += " (commit " + res.Revision[:12] + ")"
	case res.Revision != "": // a snapshot's ID, an archive's digest: no prefix names one
		where += " (revision " + res.Revision + ")"
	}
	text := "Skill: " + res.SkillName + " (Type: " + res.Type + ")\nPath: " + where + "\n\n" + res.Content
	return Result{content: text, Display: text, Structured: res}
}

// isCommit reports a git commit ID: 40 (SHA-1) or 64 (SHA-256) hex digits.
func isCommit(rev string) bool {
	if len(rev) != 40 && len(rev) != 64 {
		return false
	}
	for _, c := range []byte(rev) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func failSkill(t *Tools, ctx context.Context, args SkillArgs, err error) Result {
	var argErr *ArgumentError
	if errors.As(err, &argErr) {
		return errorText(argErr.Message)
	}
	return errorText(t.skillError(ctx, strings.TrimSpace(args.SkillName), err))
}

// skillError formats a failure the way the Skill tool's contract does:
// the error, what to do about it, and the skills that are available.
func (t *Tools) skillError(ctx context.Context, name string, err error) string {
	var b strings.Builder
	switch {
	case errors.Is(err, store.ErrSkillNotFound):
		fmt.Fprintf(&b, "Skill '%s' not found.\n\n", quoteName(name))
		t.writeAvailable(ctx, &b)
		fmt.Fprintf(&b, "\nTo create this skill:\n1. Create directory %s/%s/\n2. Add SKILL.md file with proper YAML frontmatter\n", t.opts.CreateDir, suggestFolder(name))
	case errors.Is(err, store.ErrSkillInvalid):
		msg, _ := Describe(err)
		b.WriteString(msg)
		b.WriteString("\n\nFix by:\n")
		fixes := t.fixesFor(ctx, name)
		if len(fixes) == 0 {
			fixes = []string{"correct the YAML frontmatter at the top of SKILL.md (between the two '---' lines)", "run `skillstore validate` on the skill folder to see every problem"}
		}
		for _, f := range fixes {
			b.WriteString("- " + f + "\n")
		}
		b.WriteString("\nSkill will be available after fixing these issues.\n")
	default:
		msg, hint := Describe(err)
		fmt.Fprintf(&b, "Error invoking skill '%s': %s\n", quoteName(name), withHint(msg, hint))
		b.WriteString("\n")
		t.writeAvailable(ctx, &b)
	}
	return strings.TrimRight(b.String(), "\n")
}

func (t *Tools) writeAvailable(ctx context.Context, b *strings.Builder) {
	list, err := t.view.List(ctx)
	if err != nil || len(list) == 0 {
		b.WriteString("Available skills: none\n")
		return
	}
	b.WriteString("Available skills:\n")
	for i, sk := range list {
		if i == t.opts.MaxListed {
			fmt.Fprintf(b, "- … and %d more; call search_skills to find one by what it does, or list_skills to see them all\n", len(list)-i)
			break
		}
		fmt.Fprintf(b, "- %s: %s\n", sk.Name, oneLine(sk.Description, 200))
	}
}

func (t *Tools) fixesFor(ctx context.Context, name string) []string {
	c, err := t.view.Catalog(ctx)
	if err != nil {
		return nil
	}
	p, ok := c.Problem(name) // the caller's own copy, not a hidden one listed first
	if !ok {
		return nil
	}
	var fixes []string
	for _, d := range p.Diagnostics {
		fixes = append(fixes, d.Field+": "+d.Message+" — "+d.Fix)
	}
	return fixes
}

// SkillDescription is the Skill tool's description: what it does and the
// skills available, bounded by MaxListed and MaxDescriptionBytes; with more
// skills it gives a count and points to list_skills.
func (t *Tools) SkillDescription(ctx context.Context) string {
	const head = "Invoke a skill to apply specialized expertise and capabilities. Call it with the skill's name when a task matches a skill's description; the result is the skill's instructions (SKILL.md), to follow step by step."
	list, err := t.view.List(ctx)
	if err != nil || len(list) == 0 {
		return head + "\n\nNo skills are available right now; call list_skills to check again."
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString("\n\nAvailable skills:")
	for i, sk := range list {
		line := "\n- " + sk.Name + ": " + oneLine(sk.Description, 160)
		if i == t.opts.MaxListed || b.Len()+len(line) > t.opts.MaxDescriptionBytes-240 {
			fmt.Fprintf(&b, "\n- … and %d more skills (%d in all); call search_skills with a few words describing the task to find the right one, or list_skills to see every skill.", len(list)-i, len(list))
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

// Remote returns the tools as they answer a remote caller (over HTTP):
// the Skill tool's "Path:" line names a source by RemoteLocation, so no
// host path of the server reaches a remote caller. Views (For) keep it.
// t itself is unchanged; the copy shares its state.
func (t *Tools) Remote() *Tools {
	c := *t
	c.remote = true
	return &c
}

// RemoteLocation is where a source is, as a remote caller is shown it: a
// URL's location as it is (a source's location never holds a credential:
// backends.Redact), and for a source on the server's own disk (a folder,
// an archive, a file:// URL), whose location is a host path, its label.
func RemoteLocation(label, location string) string {
	if scheme, _, isURL := strings.Cut(location, "://"); isURL && !strings.EqualFold(scheme, "file") && !strings.ContainsAny(scheme, `/\`) {
		return location
	}
	return label
}

// SkillLocation is where a skill lives, for the Skill tool's "Path:" line:
// the source location joined with the skill's folder. Locations carry no
// credentials (see backends.Redact), and a folder under the user's home
// is shown from "~" (a file:// URL too), so no home path reaches a model.
// The folder "." is the source itself (a source that is one skill).
func SkillLocation(source, name string) string {
	if source == "" {
		return name
	}
	if name == "." { // the source is the skill's folder (store.Skill.Folder)
		if strings.Contains(source, "://") {
			return source
		}
		return store.HomeRelative(source)
	}
	if i := strings.Index(source, "://"); i > 0 {
		u, err := url.Parse(source)
		if err != nil {
			return source + " " + name
		}
		if u.Scheme == "file" {
			return SkillLocation(u.Path, name)
		}
		q := u.Query()
		switch {
		case q.Get("prefix") != "": // a bucket
			q.Set("prefix", strings.TrimSuffix(q.Get("prefix"), "/")+"/"+name+"/")
			u.RawQuery = q.Encode()
		case strings.HasPrefix(u.Scheme, "git+"): // a repository's folder, as gitfs shows its location
			q.Set("path", path.Join(q.Get("path"), name)+"/")
			u.RawQuery = strings.ReplaceAll(q.Encode(), "%2F", "/")
		default: // a .well-known index names the folder its skills are published under
			u.Path = path.Join("/", strings.TrimSuffix(u.Path, "/index.json"), name)
		}
		return u.String()
	}
	return strings.TrimSuffix(store.HomeRelative(source), "/") + "/" + name
}

// storeError is the result for a failed list_skills or get_skill call:
// the contract's {"error": "..."} with a hint on what to do next.
func storeError(err error) Result {
	msg, hint := Describe(err)
	return errorResult(msg, hint)
}

// ErrorResult is the JSON error object of list_skills and get_skill.
type ErrorResult struct {
	Error string `json:"error"`
	Hint  string `json:"hint,omitempty"`
}

func errorResult(msg, hint string) Result {
	return Result{jsonBody: ErrorResult{msg, hint}, Display: withHint(msg, hint), IsError: true}
}

func errorText(msg string) Result { return Result{content: msg, Display: msg, IsError: true} }

func withHint(msg, hint string) string {
	if hint == "" {
		return msg
	}
	return msg + "\n\n" + hint
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only fixed types are marshalled here
	}
	return string(b)
}

// oneLine collapses white space and cuts s to about n bytes.
func oneLine(s string, n int) string {
	return logtext.Clip(strings.Join(strings.Fields(s), " "), n)
}

// quoteName echoes a caller's skill name safely in a message.
func quoteName(name string) string { return store.Echo(name) }

// suggestFolder turns a requested name into a folder name worth creating.
func suggestFolder(name string) string {
	if store.CheckName(name) != nil {
		return "NAME"
	}
	return quoteName(name)
}
