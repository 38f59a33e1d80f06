package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/netaddr"
	"github.com/skillstore/skillstore/internal/readall"
	"github.com/skillstore/skillstore/store"
)

// tokenEnv holds the token push and versions send to a Skills API server.
const tokenEnv = "SKILLSTORE_TOKEN"

// apiFlags are the flags of the commands that talk to a Skills API server.
type apiFlags struct {
	tokenFile string
	timeout   time.Duration
}

func (f *apiFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.tokenFile, "token-file", "", "read the bearer token from `FILE` instead of "+tokenEnv)
	cmd.Flags().DurationVar(&f.timeout, "timeout", 5*time.Minute, "give up on a request the server has not answered in full within this long")
}

func pushCmd(g *globals) *cobra.Command {
	var f apiFlags
	cmd := &cobra.Command{
		Use:   "push DIR URL",
		Short: "Upload one skill folder to a Skills API server as a new skill, or as a new version of the skill of its name",
		Long: `push checks the skill in DIR (a folder holding SKILL.md, named as the skill) against the Agent
Skills specification, then uploads its files to the Skills API server at URL (its root URL, to
which /v1/skills is appended): a new skill, or a new version of the skill of that name if the
server has one. It sends the bearer token in ` + tokenEnv + ` (or --token-file), and prints the
version created: its ID, digest, files and bytes. Hidden files and folders (names starting with
".") are not uploaded. The files are held in memory while uploaded (at most 1 GiB).`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPush(cmd.Context(), g, args[0], args[1], f)
		},
	}
	f.add(cmd)
	return cmd
}

func versionsCmd(g *globals) *cobra.Command {
	var f apiFlags
	cmd := &cobra.Command{
		Use:   "versions NAME URL",
		Short: "List the versions of a skill on a Skills API server, newest first",
		Long: `versions lists the versions of the skill named NAME on the Skills API server at URL (its root
URL, to which /v1/skills is appended), newest first: each one's ID, creation time, digest and
uploader. It sends the bearer token in ` + tokenEnv + ` (or --token-file).`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVersions(cmd.Context(), g, args[0], args[1], f)
		},
	}
	f.add(cmd)
	return cmd
}

// maxPushBytes bounds the files push uploads, added up: they are held in
// memory.
const maxPushBytes = 1 << 30

// pushFile is one file of a push: its path under the skill's folder and
// its bytes as read.
type pushFile struct {
	path string
	data []byte
}

// runPush uploads the skill in dir to the server at rawURL: POST
// /v1/skills, and when the name is taken, POST /v1/skills/{id}/versions
// to the skill of that name.
func runPush(ctx context.Context, g *globals, dir, rawURL string, f apiFlags) error {
	c, err := newSkillsClient(rawURL, f, g.stderr)
	if err != nil {
		return err
	}
	name, files, err := readSkillFolder(ctx, dir, g.stderr)
	if err != nil {
		return err
	}
	body, ctype, size, err := uploadBody(name, files)
	if err != nil {
		return err
	}
	var sk apiSkill
	err = c.do(ctx, http.MethodPost, "/v1/skills", bytes.NewReader(body), ctype, &sk)
	var ae *apiError
	switch {
	case err == nil:
		v, err := c.version(ctx, sk.ID, sk.LatestVersionID)
		if err != nil {
			return fmt.Errorf("the skill was created as %s, but its version cannot be read: %w", sk.ID, err)
		}
		fmt.Fprintf(g.stdout, "created skill %s (%s): version %s, %s, %d files, %d bytes\n", sk.ID, name, v.ID, v.Digest, len(files), size)
		return nil
	case errors.As(err, &ae) && ae.Status == http.StatusConflict && ae.Code == "skill_name_taken":
	default:
		return err
	}
	sk, found, err := c.findSkill(ctx, name)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("the server says the name %s is taken, but lists no skill of that name this token may see", name)
	}
	var v apiVersion
	if err := c.do(ctx, http.MethodPost, "/v1/skills/"+url.PathEscape(sk.ID)+"/versions", bytes.NewReader(body), ctype, &v); err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "added version %s to skill %s (%s): %s, %d files, %d bytes\n", v.ID, sk.ID, name, v.Digest, len(files), size)
	return nil
}

// runVersions lists the versions of the skill named name at rawURL.
func runVersions(ctx context.Context, g *globals, name, rawURL string, f apiFlags) error {
	c, err := newSkillsClient(rawURL, f, g.stderr)
	if err != nil {
		return err
	}
	sk, err := c.skillNamed(ctx, name)
	if err != nil {
		return err
	}
	var vs []apiVersion
	err = listPages(ctx, c, "/v1/skills/"+url.PathEscape(sk.ID)+"/versions", func(v apiVersion) (bool, error) {
		vs = append(vs, v)
		return true, nil
	})
	if err != nil {
		return err
	}
	// The server lists newest first; the sort holds to it whatever it does.
	slices.SortStableFunc(vs, func(a, b apiVersion) int { return b.created().Compare(a.created()) })
	tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tCREATED\tDIGEST\tCREATED BY")
	for _, v := range vs {
		by := v.CreatedBy
		if by == "" {
			by = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", store.Echo(v.ID), store.Echo(v.CreatedAt), store.Echo(v.Digest), store.Echo(by))
	}
	return tw.Flush()
}

// readSkillFolder checks the skill in dir as publish checks a skill,
// and returns its name and files (hidden ones left out, as publish
// leaves them), bytes as read. dir must be the skill's own folder, named
// as the skill.
func readSkillFolder(ctx context.Context, dir string, stderr io.Writer) (string, []pushFile, error) {
	return readFolder(ctx, dir, stderr, true)
}

// readFolder is readSkillFolder; with strict false, a skill that breaks
// the specification, or a folder not named as its skill, is read too
// (diff compares what is there).
func readFolder(ctx context.Context, dir string, stderr io.Writer, strict bool) (string, []pushFile, error) {
	abs, err := filepath.Abs(backends.ExpandHome(dir))
	if err != nil {
		return "", nil, err
	}
	local, err := backends.OpenLocal(abs)
	if err != nil {
		return "", nil, fmt.Errorf("skill folder %s: %w", dir, stripHost(err))
	}
	defer local.Close()
	s, c, err := checkedCatalog(ctx, store.Source{Label: "push", Kind: "local", Location: abs, FS: local}, !strict, stderr)
	if err != nil {
		return "", nil, err
	}
	switch {
	case len(c.Skills) == 0:
		return "", nil, fmt.Errorf("%s holds no SKILL.md: give one skill's folder", dir)
	case len(c.Skills) > 1 || c.Skills[0].Folder() != ".":
		names := make([]string, len(c.Skills))
		for i, sk := range c.Skills {
			names[i] = sk.Name
		}
		return "", nil, fmt.Errorf("%s holds skill folders (%s), not a SKILL.md: give one skill's folder", dir, strings.Join(names, ", "))
	}
	sk := c.Skills[0]
	if base := filepath.Base(abs); strict && base != sk.Name {
		return "", nil, fmt.Errorf("the folder %s is not named as its skill %s: the Skills API takes a skill as a folder of its name; rename the folder", store.Echo(base), sk.Name)
	}
	lists, err := skillFiles(ctx, s, c.Skills)
	if err != nil {
		return "", nil, err
	}
	var total int64
	files := make([]pushFile, 0, len(lists[0].Files))
	for _, p := range lists[0].Files {
		data, err := fs.ReadFile(local, p)
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", store.Echo(p), stripHost(err))
		}
		if total += int64(len(data)); total > maxPushBytes {
			return "", nil, fmt.Errorf("the skill's files hold over %s; push uploads at most that", store.FormatSize(maxPushBytes))
		}
		files = append(files, pushFile{p, data})
	}
	return sk.Name, files, nil
}

// uploadBody is the multipart/form-data body of an upload: a files[]
// part a file, named "NAME/PATH" (the Skills API takes one folder named
// as the skill), bytes unchanged. It returns the body, its Content-Type
// and the files' bytes added up.
func uploadBody(name string, files []pushFile) ([]byte, string, int64, error) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	var size int64
	for _, f := range files {
		w, err := mw.CreateFormFile("files[]", name+"/"+f.path)
		if err != nil {
			return nil, "", 0, err
		}
		w.Write(f.data) // a bytes.Buffer's write does not fail
		size += int64(len(f.data))
	}
	if err := mw.Close(); err != nil {
		return nil, "", 0, err
	}
	return b.Bytes(), mw.FormDataContentType(), size, nil
}

// skillsClient talks to a Skills API server: Anthropic's /v1/skills
// (docs/design/skills-api.md).
type skillsClient struct {
	base  string // the root URL, without a trailing slash
	shown string // the root URL as messages show it
	token string
	http  *http.Client
}

// newSkillsClient is a client of the server at rawURL, its root URL
// (http or https, no query), with the token from f or SKILLSTORE_TOKEN.
// It warns on stderr when the token would cross the network in clear.
func newSkillsClient(rawURL string, f apiFlags, stderr io.Writer) (*skillsClient, error) {
	u, err := url.Parse(rawURL)
	switch {
	case err != nil:
		return nil, fmt.Errorf("URL %s: %w", store.Echo(rawURL), urlCause(err))
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return nil, fmt.Errorf("URL %s: give the server's root URL, http:// or https://", store.Echo(rawURL))
	case u.User != nil:
		return nil, fmt.Errorf("URL %s: put no credentials in the URL; set %s", u.Redacted(), tokenEnv)
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("URL %s: give the server's root URL, without a query", u.Redacted())
	case strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1") || strings.Contains(u.Path, "/v1/skills"):
		return nil, fmt.Errorf("URL %s: give the server's root URL, without /v1 (push appends /v1/skills)", u.Redacted())
	}
	if f.timeout <= 0 {
		return nil, errors.New("--timeout must be positive")
	}
	token, err := readToken(f.tokenFile, "--token-file", tokenEnv)
	if err != nil {
		return nil, err
	}
	for _, r := range token {
		if r <= ' ' || r > '~' {
			return nil, fmt.Errorf("the token (%s) holds a character a header cannot carry", tokenSource(f))
		}
	}
	if token != "" && u.Scheme == "http" && !netaddr.IsLoopback(u.Hostname()) {
		fmt.Fprintf(stderr, "skillstore: warning: sending the token to %s over plain http: anyone on the way can read it\n", u.Host)
	}
	base := strings.TrimRight(u.String(), "/")
	return &skillsClient{base: base, shown: base, token: token, http: &http.Client{Timeout: f.timeout}}, nil
}

// tokenSource is where the token came from, for a message.
func tokenSource(f apiFlags) string {
	if f.tokenFile != "" {
		return "--token-file"
	}
	return tokenEnv
}

// maxAnswer bounds an answer's body (a page of 1,000 skills is about
// 300 KB).
const maxAnswer = 16 << 20

// apiSkill is the Skill object as the client reads it.
type apiSkill struct {
	Type            string `json:"type"`
	ID              string `json:"id"`
	DisplayName     string `json:"display_name"`
	LatestVersionID string `json:"latest_version_id"`
}

// apiVersion is the SkillVersion object as the client reads it, with
// the registry's extra fields digest and created_by.
type apiVersion struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	SkillID   string `json:"skill_id"`
	Name      string `json:"name"`
	CreatedAt string `json:"created_at"`
	Digest    string `json:"digest"`
	CreatedBy string `json:"created_by"`
}

func (v apiVersion) created() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, v.CreatedAt)
	return t
}

// typed is an object whose "type" says what it is.
type typed interface{ objectType() (got, want string) }

func (s *apiSkill) objectType() (string, string)   { return s.Type, "skill" }
func (v *apiVersion) objectType() (string, string) { return v.Type, "skill_version" }

// apiError is a server's refusal: its status and Anthropic's error body.
type apiError struct {
	Method, Path string
	Status       int
	Type         string // error.type; "" when the body was no Skills API error
	Message      string // error.message, the token cut out
	Code         string // error.details.error_code
	RequestID    string
	ContentType  string // of a body that was no Skills API error
}

func (e *apiError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: the server answered %d", e.Method, e.Path, e.Status)
	if e.Type == "" {
		fmt.Fprintf(&b, " %s with no Skills API error (Content-Type %q): is the URL the server's root?", http.StatusText(e.Status), e.ContentType)
	} else {
		fmt.Fprintf(&b, " %s: %s", e.Type, e.Message)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " (request %s)", e.RequestID)
	}
	return b.String()
}

// hint says what to do of a refusal of the token: which variable to set.
func (e *apiError) hint() string {
	switch e.Status {
	case http.StatusUnauthorized:
		return "set " + tokenEnv + " (or --token-file FILE) to a token the server accepts"
	case http.StatusForbidden:
		return "the token may not do this: set " + tokenEnv + " (or --token-file FILE) to a token allowed to"
	}
	return ""
}

// do sends a request to the server's path (from its root) and decodes a
// 2xx answer's JSON into out, whose "type" it checks; any other answer
// is an *apiError.
func (c *skillsClient) do(ctx context.Context, method, path string, body io.Reader, contentType string, out typed) error {
	data, err := c.send(ctx, method, path, body, contentType, "application/json", maxAnswer)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: the answer is not JSON: %w", method, path, err)
	}
	if got, want := out.objectType(); got != want {
		return fmt.Errorf("%s %s: the answer is no %s object (type %q): is the URL a Skills API server's root?", method, path, want, store.Echo(got))
	}
	return nil
}

// send sends a request to the server's path and returns a 2xx answer's
// body, at most limit bytes; any other answer is an *apiError.
func (c *skillsClient) send(ctx context.Context, method, path string, body io.Reader, contentType, accept string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", "skillstore/"+versionString())
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, c.redact(urlCause(err)))
	}
	defer resp.Body.Close()
	data, err := readall.Read(resp.Body, resp.ContentLength, limit)
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, c.apiError(method, path, resp, data)
	}
	return data, nil
}

// apiError reads a refusal's body.
func (c *skillsClient) apiError(method, path string, resp *http.Response, data []byte) error {
	e := &apiError{Method: method, Path: path, Status: resp.StatusCode, RequestID: c.echo(resp.Header.Get("request-id"))}
	var body struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Details struct {
				ErrorCode string `json:"error_code"`
			} `json:"details"`
		} `json:"error"`
		RequestID string `json:"request_id"`
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "application/json" || json.Unmarshal(data, &body) != nil || body.Type != "error" || body.Error.Type == "" {
		e.ContentType = c.echo(resp.Header.Get("Content-Type"))
		return e
	}
	e.Type, e.Message, e.Code = c.echo(body.Error.Type), c.echo(body.Error.Message), body.Error.Details.ErrorCode
	if e.RequestID == "" {
		e.RequestID = c.echo(body.RequestID)
	}
	return e
}

// echo is a server's text as a message shows it: the token cut out,
// control characters escaped, clipped.
func (c *skillsClient) echo(s string) string {
	if c.token != "" {
		s = strings.ReplaceAll(s, c.token, "[token]")
	}
	return store.Echo(s)
}

// urlCause is the cause of a *url.Error, whose text repeats the URL.
func urlCause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// redact cuts the token out of an error's text.
func (c *skillsClient) redact(err error) error {
	if c.token == "" || !strings.Contains(err.Error(), c.token) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), c.token, "[token]"))
}

// version reads a version of skill id: its ID, or "latest".
func (c *skillsClient) version(ctx context.Context, id, version string) (apiVersion, error) {
	var v apiVersion
	err := c.do(ctx, http.MethodGet, "/v1/skills/"+url.PathEscape(id)+"/versions/"+url.PathEscape(version), nil, "", &v)
	return v, err
}

// skillNamed is findSkill, with the error of a name not found.
func (c *skillsClient) skillNamed(ctx context.Context, name string) (apiSkill, error) {
	sk, found, err := c.findSkill(ctx, name)
	if err == nil && !found {
		err = fmt.Errorf("no skill named %s on %s (or none this token may see)", store.Echo(name), c.shown)
	}
	return sk, err
}

// findSkill finds the skill named name. The skill object has no name:
// a skill's name is its versions'. So it lists the skills and reads the
// latest version of each, those whose display name is name first (the
// display name defaults to the name, but need not be it).
func (c *skillsClient) findSkill(ctx context.Context, name string) (apiSkill, bool, error) {
	var (
		found  apiSkill
		others []apiSkill
	)
	is := func(sk apiSkill) (bool, error) {
		v, err := c.version(ctx, sk.ID, "latest")
		var ae *apiError
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			return false, nil // deleted since it was listed
		}
		return err == nil && v.Name == name, err
	}
	err := listPages(ctx, c, "/v1/skills", func(sk apiSkill) (bool, error) {
		if sk.DisplayName != name {
			others = append(others, sk)
			return true, nil
		}
		ok, err := is(sk)
		if ok {
			found = sk
		}
		return !ok, err
	})
	if err != nil || found.ID != "" {
		return found, found.ID != "", err
	}
	for _, sk := range others {
		if ok, err := is(sk); ok || err != nil {
			return sk, ok, err
		}
	}
	return apiSkill{}, false, nil
}

// The bounds of a listing: items a page asked for, and pages read.
const (
	pageLimit = 100
	maxPages  = 10_000
)

// listPages reads the list at path page by page (the next page's token
// from next_page, until it is null), calling each with every item until
// it returns false or an error. A token the server gave before ends the
// listing with an error rather than a loop.
func listPages[T any, PT interface {
	*T
	typed
}](ctx context.Context, c *skillsClient, path string, each func(T) (bool, error)) error {
	seen := map[string]bool{}
	page := ""
	for range maxPages {
		q := url.Values{"limit": {fmt.Sprint(pageLimit)}}
		if page != "" {
			q.Set("page", page)
		}
		var p listPage[T, PT]
		if err := c.do(ctx, http.MethodGet, path+"?"+q.Encode(), nil, "", &p); err != nil {
			return err
		}
		for _, item := range p.Data {
			if got, want := PT(&item).objectType(); got != want {
				return fmt.Errorf("GET %s: an item is no %s object (type %q)", path, want, store.Echo(got))
			}
			if more, err := each(item); !more || err != nil {
				return err
			}
		}
		if p.NextPage == nil || *p.NextPage == "" {
			return nil
		}
		if page = *p.NextPage; seen[page] {
			return fmt.Errorf("GET %s: the server gave the same next_page twice", path)
		}
		seen[page] = true
	}
	return fmt.Errorf("GET %s: the list runs past %d pages", path, maxPages)
}

// listPage is one page of a list: {"data":[…],"next_page"}.
type listPage[T any, PT interface {
	*T
	typed
}] struct {
	Data     []T     `json:"data"`
	NextPage *string `json:"next_page"`
}

// objectType makes a page typed: a page has no "type", so it is checked
// item by item instead.
func (*listPage[T, PT]) objectType() (string, string) { return "", "" }
