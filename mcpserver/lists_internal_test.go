package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/skillstore/skillstore/access"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// hostileDescriptions are frontmatter descriptions (YAML double-quoted
// where they need escapes) whose JSON takes every kind of escape
// encoding/json makes: quotes and backslashes, control characters, HTML's
// <, > and &, JavaScript's line ends, and runes it copies as they are.
var hostileDescriptions = []string{
	`Plain description of a skill.`,
	`"Say \"hi\" \\ back, <b>bold</b> & </script><script>alert(1)</script>"`,
	`"Controls \x01\x02\x1f, DEL \x7f, \b\f\t\r\n and the end"`,
	`"JavaScript's line \u2028 and paragraph \u2029 separators, NEL \u0085, BOM \ufeff"`,
	`"Replacement \ufffd, emoji \U0001F600, accents é, 中文, bidi \u202e reversed"`,
	`"A trailing backslash \\"`,
}

// skillDoc is a SKILL.md with the frontmatter description desc (as
// written in YAML) and body.
func skillDoc(name, desc, body string) []byte {
	return []byte("---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body)
}

// hostileSources are two sources of n skills in all, skill-00000 on:
// "team" holds those whose number is not a multiple of 3, "other" the
// rest; descriptions cycle through hostileDescriptions.
func hostileSources(n int) (team, other fstest.MapFS) {
	team, other = fstest.MapFS{}, fstest.MapFS{}
	for i := range n {
		name := fmt.Sprintf("skill-%05d", i)
		m := team
		if i%3 == 0 {
			m = other
		}
		m[name+"/SKILL.md"] = &fstest.MapFile{Data: skillDoc(name, hostileDescriptions[i%len(hostileDescriptions)], "# "+name+"\n"), ModTime: time.Unix(1, 0)}
	}
	return team, other
}

// teamPolicy lets the group team see the source team only.
const teamPolicy = "default: deny\nrules:\n  - {groups: [team], sources: [team], skills: [\"*\"]}\n  - {groups: [other], sources: [other], skills: [\"*\"]}\n"

// hostileServer serves team and other under teamPolicy, its first lists built.
func hostileServer(t *testing.T, team, other fstest.MapFS) (*Server, *store.Store) {
	t.Helper()
	st, err := store.New([]store.Source{{Label: "team", FS: team}, {Label: "other", FS: other}}, store.Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	return policedServer(t, st, teamPolicy), st
}

// walk lists every page of method (resources/list or prompts/list) as p
// sees it (nil: everyone, as stdio without a principal), following
// nextCursor, and returns each item's JSON as sent and each page's length.
func walk(t *testing.T, srv *Server, p *access.Principal, method string) (items []string, pages []int) {
	t.Helper()
	src := source{}
	if p != nil {
		src.caller = srv.callerFor(p)
	}
	cursor := ""
	for range 10 {
		params := `{}`
		if cursor != "" {
			params = `{"cursor":"` + cursor + `"}`
		}
		a := srv.handle(context.Background(), src, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
		var res struct {
			Result struct {
				Resources  []json.RawMessage `json:"resources"`
				Prompts    []json.RawMessage `json:"prompts"`
				NextCursor string            `json:"nextCursor"`
			} `json:"result"`
		}
		if err := json.Unmarshal(a.body, &res); err != nil || a.code != 0 {
			t.Fatalf("%s after %q: %d %v %.300s", method, cursor, a.code, err, a.body)
		}
		page := append(res.Result.Resources, res.Result.Prompts...)
		pages = append(pages, len(page))
		for _, it := range page {
			items = append(items, string(it))
		}
		if cursor = res.Result.NextCursor; cursor == "" {
			return items, pages
		}
	}
	t.Fatalf("%s: more than 10 pages", method)
	return nil, nil
}

// marshalItem is the JSON of sk's item in method's list as mcp-go's types
// encode it: what the list methods must send, byte for byte.
func marshalItem(t *testing.T, method string, sk *store.Skill) string {
	t.Helper()
	var v any = mcp.NewPrompt(sk.Name, mcp.WithPromptDescription(sk.Description))
	if method == "resources/list" {
		v = mcp.NewResource(tools.SkillURI(sk.Name), sk.Name, mcp.WithResourceDescription(sk.Description),
			mcp.WithMIMEType("text/markdown"), mcp.WithResourceSize(sk.DocSize))
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(j)
}

// TestListPagesEncodeAsMCP: resources/list and prompts/list, walked page
// by page over a catalog of more than two pages with hostile
// descriptions, send each skill once, in name order, as json.Marshal
// encodes mcp-go's Resource and Prompt; a restricted view sends its
// skills only, the same way.
func TestListPagesEncodeAsMCP(t *testing.T) {
	const n = 2*ListPageSize + 37
	team, other := hostileSources(n)
	srv, st := hostileServer(t, team, other)
	all, err := st.View(nil).List(context.Background())
	if err != nil || len(all) != n {
		t.Fatalf("the store lists %d skills, %v; want %d", len(all), err, n)
	}
	for _, desc := range []string{"\x7f", "\u2028", "</script>", "\"hi\"", "\\"} {
		if !bytes.Contains([]byte(all[1].Description+all[2].Description+all[3].Description+all[4].Description+all[5].Description), []byte(desc)) {
			t.Fatalf("no description holds %q: the catalog is not hostile enough", desc)
		}
	}
	for _, view := range []struct {
		name  string
		p     *access.Principal
		pages []int
	}{
		{"everyone", nil, []int{1000, 1000, 37}},
		{"team", &access.Principal{Subject: "t", Groups: []string{"team"}}, []int{1000, 358}},
		{"other", &access.Principal{Subject: "o", Groups: []string{"other"}}, []int{679}},
	} {
		for _, method := range []string{"resources/list", "prompts/list"} {
			var want []string
			for _, sk := range all {
				if view.p == nil || sk.Source.Label == view.name {
					want = append(want, marshalItem(t, method, sk))
				}
			}
			got, pages := walk(t, srv, view.p, method)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s, %s: items (-want +got):\n%s", view.name, method, diff)
			}
			if diff := cmp.Diff(view.pages, pages); diff != "" {
				t.Errorf("%s, %s: page sizes (-want +got):\n%s", view.name, method, diff)
			}
		}
	}
}

// TestListChangedFollowsItems: Sync tells a list changed exactly when an
// item of it as sent changed: a skill's description (resources, prompts,
// and tools, whose Skill tool lists descriptions), its SKILL.md's size
// alone (resources), and nothing for a re-sync of the same catalog or for
// a skill whose SKILL.md changed in neither. Restricted views hear of
// their own lists only.
func TestListChangedFollowsItems(t *testing.T) {
	team, other := hostileSources(2*ListPageSize + 37)
	srv, st := hostileServer(t, team, other)
	recs := map[string]*recorder{}
	for name, p := range map[string]*access.Principal{
		"everyone": nil,
		"team":     {Subject: "t", Groups: []string{"team"}},
		"other":    {Subject: "o", Groups: []string{"other"}},
	} {
		rec := &recorder{}
		recs[name] = rec
		ss := srv.newSession(rec)
		if p != nil {
			ss.who = srv.sessionCaller(p)
		}
		ss.initialized()
		defer ss.end()
	}
	const (
		toolsChanged     = "notifications/tools/list_changed "
		resourcesChanged = "notifications/resources/list_changed "
		promptsChanged   = "notifications/prompts/list_changed "
	)
	ctx := context.Background()
	const name = "skill-00001" // a team skill
	doc := func(desc, body string, mod int64) *fstest.MapFile {
		return &fstest.MapFile{Data: skillDoc(name, desc, body), ModTime: time.Unix(mod, 0)}
	}
	body := "# " + name + "\n"
	renamed := strings.Replace(hostileDescriptions[1], "hi", "ho", 1) // as long as the description was
	steps := []struct {
		name   string
		change *fstest.MapFile // the skill's new SKILL.md; nil: none
		want   map[string][]string
	}{
		{"the same catalog re-synced", nil, map[string][]string{"everyone": nil, "team": nil, "other": nil}},
		{"SKILL.md rewritten as it was", doc(hostileDescriptions[1], body, 2), map[string][]string{"everyone": nil, "team": nil, "other": nil}},
		{"only its description changed, to one of the same length", doc(renamed, body, 3),
			map[string][]string{"everyone": {promptsChanged, resourcesChanged, toolsChanged}, "team": {promptsChanged, resourcesChanged, toolsChanged}, "other": nil}},
		{"only its size changed", doc(renamed, body+"More.\n", 4),
			map[string][]string{"everyone": {resourcesChanged}, "team": {resourcesChanged}, "other": nil}},
	}
	for _, step := range steps {
		if step.change != nil {
			team[name+"/SKILL.md"] = step.change
			changes, err := st.Refresh(ctx)
			if err != nil || fmt.Sprint(changes.Updated) != "["+name+"]" {
				t.Fatalf("%s: refresh found %+v, %v", step.name, changes, err)
			}
		}
		if err := srv.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		got := map[string][]string{}
		for who, rec := range recs {
			if got[who] = rec.take(); len(got[who]) == 0 {
				got[who] = nil
			}
		}
		if diff := cmp.Diff(step.want, got); diff != "" {
			t.Errorf("%s: notifications (-want +got):\n%s", step.name, diff)
		}
	}
}

// itemCases are skills whose names, descriptions and sizes an encoder
// could get wrong; invalid UTF-8 reaches no catalog today (the store
// refuses it) but is encoded as json.Marshal does anyway.
var itemCases = []*store.Skill{
	{Name: "plain", Frontmatter: store.Frontmatter{Description: "Plain."}, DocSize: 42},
	{Name: "empty-description", DocSize: 0},
	{Name: "negative-size", Frontmatter: store.Frontmatter{Description: "d"}, DocSize: -1},
	{Name: "big-size", Frontmatter: store.Frontmatter{Description: "d"}, DocSize: 1<<63 - 1},
	{Name: "quotes", Frontmatter: store.Frontmatter{Description: `"q" \ '`}, DocSize: 1},
	{Name: "html", Frontmatter: store.Frontmatter{Description: "<a href='x'>&amp;</a>"}, DocSize: 1},
	{Name: "controls", Frontmatter: store.Frontmatter{Description: "\x00\x01\b\f\n\r\t\x1f\x7f"}, DocSize: 1},
	{Name: "separators", Frontmatter: store.Frontmatter{Description: "a\u2028b\u2029c\u0085d"}, DocSize: 1},
	{Name: "invalid", Frontmatter: store.Frontmatter{Description: "a\xffb\xc3"}, DocSize: 1},
	{Name: "invalid-too", Frontmatter: store.Frontmatter{Description: "a\xfeb\xc0"}, DocSize: 1}, // encodes as "invalid" does
	{Name: "replacement", Frontmatter: store.Frontmatter{Description: "a\ufffdb\ufffd"}, DocSize: 1},
	{Name: "runes", Frontmatter: store.Frontmatter{Description: "é 中文 \U0001F600 \u202e"}, DocSize: 1},
	{Name: "na\"me<&>\u2028\xff", Frontmatter: store.Frontmatter{Description: "Hostile name."}, DocSize: 7},
}

// TestItemEncoding: each skill's list items encode as json.Marshal
// encodes the mcp values, and two skills' items compare the same (for
// list_changed) exactly when those encodings are equal. Every ASCII byte
// and the runes an encoder may treat apart are tried alone, in a name and
// in a description.
func TestItemEncoding(t *testing.T) {
	cases := slices.Clone(itemCases)
	var alone []string
	for c := range utf8.RuneSelf {
		alone = append(alone, string(rune(c)))
	}
	alone = append(alone, "\x80", "\xff", "\xc3", "\xe2\x80", "\u0085", "\u00a0", "\u2027", "\u2028", "\u2029", "\u202a", "\ufeff", "\ufffd", "\U0001F600", "\U0010FFFF")
	for _, r := range alone {
		cases = append(cases, &store.Skill{Name: "n" + r + "n", Frontmatter: store.Frontmatter{Description: "d" + r + "d"}, DocSize: 1})
	}
	for _, sk := range cases {
		if diff := cmp.Diff(marshalItem(t, "resources/list", sk), string(appendResource([]byte("x"), sk)[1:])); diff != "" {
			t.Errorf("%q: resource (-json.Marshal +sent):\n%s", sk.Name, diff)
		}
		if diff := cmp.Diff(marshalItem(t, "prompts/list", sk), string(appendPrompt(nil, sk))); diff != "" {
			t.Errorf("%q: prompt (-json.Marshal +sent):\n%s", sk.Name, diff)
		}
	}
	for _, a := range itemCases {
		for _, b := range itemCases {
			for _, b := range []*store.Skill{b, {Name: a.Name, Frontmatter: b.Frontmatter, DocSize: b.DocSize}} {
				for method, same := range map[string]func(a, b *store.Skill) bool{"resources/list": sameResource, "prompts/list": samePrompt} {
					if want := marshalItem(t, method, a) == marshalItem(t, method, b); same(a, b) != want {
						t.Errorf("%s: %q (%q, %d) and %q (%q, %d): same is %v, want %v", method, a.Name, a.Description, a.DocSize, b.Name, b.Description, b.DocSize, !want, want)
					}
				}
			}
		}
	}
}

// FuzzItemEncoding holds the list items' encoding and comparison to
// json.Marshal's for any name, description and size.
func FuzzItemEncoding(f *testing.F) {
	for _, sk := range itemCases {
		f.Add(sk.Name, sk.Description, sk.DocSize, "a\xffb")
	}
	f.Fuzz(func(t *testing.T, name, desc string, size int64, other string) {
		sk := &store.Skill{Name: name, Frontmatter: store.Frontmatter{Description: desc}, DocSize: size}
		if got, want := string(appendResource(nil, sk)), marshalItem(t, "resources/list", sk); got != want {
			t.Errorf("resource: sent %s, json.Marshal %s", got, want)
		}
		if got, want := string(appendPrompt(nil, sk)), marshalItem(t, "prompts/list", sk); got != want {
			t.Errorf("prompt: sent %s, json.Marshal %s", got, want)
		}
		sk2 := &store.Skill{Name: name, Frontmatter: store.Frontmatter{Description: other}, DocSize: size}
		if want := marshalItem(t, "prompts/list", sk) == marshalItem(t, "prompts/list", sk2); samePrompt(sk, sk2) != want {
			t.Errorf("%q and %q: samePrompt is %v, want %v", desc, other, !want, want)
		}
	})
}

// TestBuildListsSortsACopy: lists built from skills out of name order
// hold them in order, and the caller's slice (the catalog's) is left as
// it was.
func TestBuildListsSortsACopy(t *testing.T) {
	in := []*store.Skill{{Name: "c"}, {Name: "a"}, {Name: "b"}}
	l, err := buildLists(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := func(list []*store.Skill) (out []string) {
		for _, sk := range list {
			out = append(out, sk.Name)
		}
		return out
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, names(l.skills)); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"c", "a", "b"}, names(in)); diff != "" {
		t.Errorf("the catalog's slice (-want +got):\n%s", diff)
	}
}
