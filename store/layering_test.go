package store_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/store"
)

// chanFilter is a caller's filter under the channel-source convention
// (access.Filter's, issue 38): a source labelled BASE@CHANNEL is the
// callers of CHANNEL's only; hide is a copy ("label/name") hidden skill by
// skill, inside a source the caller sees.
type chanFilter struct {
	channel string
	hide    string
}

func (f chanFilter) All() bool { return false }
func (f chanFilter) AllowsSource(src string) bool {
	_, ch, ok := strings.Cut(src, "@")
	return !ok || ch == f.channel
}
func (f chanFilter) Allows(src, name string) bool {
	return f.AllowsSource(src) && src+"/"+name != f.hide
}
func (f chanFilter) ViewKey() any { return f }

// copyOf puts a copy of skill name at dir in fsys, that says which copy
// it is (label) in its SKILL.md, its which.txt and a file of its own
// (only-LABEL.txt); word is the skill's search word.
func copyOf(fsys fstest.MapFS, dir, name, label, word string) {
	doc := "---\nname: " + name + "\ndescription: The " + word + " skill.\n---\n\n# " + name + "\n\ncopy=" + label + "\n"
	fsys[dir+"/SKILL.md"] = &fstest.MapFile{Data: []byte(doc)}
	fsys[dir+"/which.txt"] = &fstest.MapFile{Data: []byte(label)}
	fsys[dir+"/only-"+label+".txt"] = &fstest.MapFile{Data: []byte(label)}
}

// channelStore is three sources, channel sources first as serve orders
// them: A@canary, B@stable, A.
func channelStore(t *testing.T) *store.Store {
	canary, stable, base := fstest.MapFS{}, fstest.MapFS{}, fstest.MapFS{}
	for _, c := range []struct {
		fsys  fstest.MapFS
		label string
		names []string
	}{
		{canary, "A@canary", []string{"both", "canon", "only-canary", "secret", "p"}},
		{stable, "B@stable", []string{"both"}},
		{base, "A", []string{"both", "canon", "secret", "fixed"}},
	} {
		for _, n := range c.names {
			copyOf(c.fsys, n, n, c.label, words[n])
		}
	}
	// A's group p (its skill p:x) is hidden by A@canary's plain skill p,
	// for those who see A@canary.
	base["plug/GROUP"] = &fstest.MapFile{Data: []byte("p")}
	copyOf(base, "plug/kit/x", "x", "A", words["p:x"])
	// A broken copy shadows nothing; one alone is the view's problem.
	canary["fixed/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: fixed\n---\n")}
	canary["bad/SKILL.md"] = &fstest.MapFile{Data: []byte("---\nname: bad\n---\n")}
	var srcs []store.Source
	for i, fsys := range []fstest.MapFS{canary, stable, base} {
		label := []string{"A@canary", "B@stable", "A"}[i]
		srcs = append(srcs, store.Source{Label: label, Location: "./" + label, FS: fsys, Grouper: markGroups{}})
	}
	s, err := store.New(srcs, store.Options{ReportsProblems: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var words = map[string]string{"both": "alpha", "canon": "bravo", "only-canary": "charlie", "secret": "delta", "p": "echo", "p:x": "foxtrot", "fixed": "golf", "bad": "hotel"}

// kindOf names an error as the table does.
func kindOf(err error) string {
	switch {
	case errors.Is(err, store.ErrSkillNotFound):
		return "not found"
	case errors.Is(err, store.ErrSkillInvalid):
		return "invalid"
	}
	return "error: " + err.Error()
}

var copyRE = regexp.MustCompile(`copy=(\S+)`)

// readOps are every read of a View, each giving the label of the copy of
// skill name it read (or an error). Each op's answer must agree with
// View.Skill's.
var readOps = []struct {
	name string
	read func(ctx context.Context, v *store.View, name string) (string, error)
}{
	{"Skill", func(ctx context.Context, v *store.View, name string) (string, error) {
		sk, err := v.Skill(ctx, name)
		if err != nil {
			return "", err
		}
		return sk.Source.Label, nil
	}},
	{"Provenance", func(ctx context.Context, v *store.View, name string) (string, error) {
		sk, err := v.Skill(ctx, name)
		if err != nil {
			return "", err
		}
		return sk.Provenance.Source, nil
	}},
	{"List", func(ctx context.Context, v *store.View, name string) (string, error) {
		list, err := v.List(ctx)
		if err != nil {
			return "", err
		}
		for _, sk := range list {
			if sk.Name == name {
				return sk.Source.Label, nil
			}
		}
		// A problem is not listed: answer as Skill does.
		_, err = v.Skill(ctx, name)
		if err == nil {
			err = errors.New("served but not listed")
		}
		return "", err
	}},
	{"Catalog", func(ctx context.Context, v *store.View, name string) (string, error) {
		c, err := v.Catalog(ctx)
		if err != nil {
			return "", err
		}
		for _, sk := range c.Skills {
			if sk.Name == name {
				return sk.Source.Label, nil
			}
		}
		if p, ok := c.Problem(name); ok {
			return "", p.Err()
		}
		return "", &store.Error{Kind: store.ErrSkillNotFound, Skill: name}
	}},
	{"Search", func(ctx context.Context, v *store.View, name string) (string, error) {
		found, err := v.Search(ctx, words[name], 10)
		if err != nil {
			return "", err
		}
		for _, sk := range found {
			if sk.Name == name {
				return sk.Source.Label, nil
			}
		}
		// A problem is no search hit: answer as Skill does.
		_, err = v.Skill(ctx, name)
		if err == nil {
			err = errors.New("served but not found by search")
		}
		return "", err
	}},
	{"Document", func(ctx context.Context, v *store.View, name string) (string, error) {
		d, err := v.Document(ctx, name, nil)
		if err != nil {
			return "", err
		}
		return copyRE.FindStringSubmatch(d.Text)[1], nil
	}},
	{"ReadFile", func(ctx context.Context, v *store.View, name string) (string, error) {
		f, err := v.ReadFile(ctx, name, "which.txt", nil)
		return f.Text, err
	}},
	{"Files", func(ctx context.Context, v *store.View, name string) (string, error) {
		files, err := v.Files(ctx, name, nil)
		if err != nil {
			return "", err
		}
		var own []string
		for _, f := range files {
			if l, ok := strings.CutPrefix(f.Path, "only-"); ok {
				own = append(own, strings.TrimSuffix(l, ".txt"))
			}
		}
		return strings.Join(own, ","), nil
	}},
	{"Digest", func(ctx context.Context, v *store.View, name string) (string, error) {
		sk, err := v.Skill(ctx, name)
		if err != nil {
			return "", err
		}
		files, err := v.Files(ctx, name, &store.ReadOptions{Skill: sk})
		if err != nil {
			return "", err
		}
		for _, f := range files {
			if f.Path == "which.txt" {
				d, err := v.Digest(ctx, sk, f)
				if err != nil {
					return "", err
				}
				for _, l := range []string{"A@canary", "B@stable", "A"} {
					if sum := sha256.Sum256([]byte(l)); hex.EncodeToString(sum[:]) == d.SHA256 {
						return l, nil
					}
				}
			}
		}
		return "", errors.New("no digest of which.txt")
	}},
	{"Pinned", func(ctx context.Context, v *store.View, name string) (string, error) {
		sk, err := v.Skill(ctx, name)
		if err != nil {
			return "", err
		}
		f, err := v.ReadFile(ctx, name, "which.txt", &store.ReadOptions{Skill: sk, Uncached: true})
		return f.Text, err
	}},
	{"WriteZip", func(ctx context.Context, v *store.View, name string) (string, error) {
		sk, err := v.Skill(ctx, name)
		if err != nil {
			return "", err
		}
		files, err := v.Files(ctx, name, &store.ReadOptions{Skill: sk})
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		if err := v.WriteZip(ctx, &buf, sk, files, store.ZipOptions{}); err != nil {
			return "", err
		}
		zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			return "", err
		}
		f, err := zr.Open("which.txt")
		if err != nil {
			return "", err
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		return string(b), err
	}},
}

// TestChannelLayering: a source a view excludes whole (another channel's)
// takes no part in that view's layering: its copies neither serve nor
// shadow, on every read; a copy hidden skill by skill inside a source the
// view sees still shadows (a caller who may see only a shadowed copy sees
// no skill of that name).
func TestChannelLayering(t *testing.T) {
	s := channelStore(t)
	ctx := context.Background()
	callers := map[string]*store.View{
		"all":       s.View(nil),
		"canary":    s.View(chanFilter{channel: "canary"}),
		"canary-ns": s.View(chanFilter{channel: "canary", hide: "A@canary/secret"}),
		"stable":    s.View(chanFilter{channel: "stable"}),
		"default":   s.View(chanFilter{}),
	}
	const nf, bad = "not found", "invalid"
	tests := []struct {
		skill string
		want  map[string]string // by caller: the copy's label, or the error's kind
	}{
		{"both", map[string]string{"all": "A@canary", "canary": "A@canary", "canary-ns": "A@canary", "stable": "B@stable", "default": "A"}},
		{"canon", map[string]string{"all": "A@canary", "canary": "A@canary", "canary-ns": "A@canary", "stable": "A", "default": "A"}},
		{"only-canary", map[string]string{"all": "A@canary", "canary": "A@canary", "canary-ns": "A@canary", "stable": nf, "default": nf}},
		{"secret", map[string]string{"all": "A@canary", "canary": "A@canary", "canary-ns": nf, "stable": "A", "default": "A"}},
		{"p", map[string]string{"all": "A@canary", "canary": "A@canary", "canary-ns": "A@canary", "stable": nf, "default": nf}},
		{"p:x", map[string]string{"all": nf, "canary": nf, "canary-ns": nf, "stable": "A", "default": "A"}},
		{"fixed", map[string]string{"all": "A", "canary": "A", "canary-ns": "A", "stable": "A", "default": "A"}},
		{"bad", map[string]string{"all": bad, "canary": bad, "canary-ns": bad, "stable": nf, "default": nf}},
		{"missing", map[string]string{"all": nf, "canary": nf, "canary-ns": nf, "stable": nf, "default": nf}},
	}
	for _, op := range readOps {
		t.Run(op.name, func(t *testing.T) {
			for _, tt := range tests {
				for caller, want := range tt.want {
					got, err := op.read(ctx, callers[caller], tt.skill)
					if err != nil {
						got = kindOf(err)
					}
					if got != want {
						t.Errorf("%s of %s by %s: got %q, want %q", op.name, tt.skill, caller, got, want)
					}
				}
			}
		})
	}
	// Groups: a view that does not see A@canary's plain p sees A's group p.
	for caller, want := range map[string]bool{"canary": false, "stable": true, "default": true} {
		c, err := callers[caller].Catalog(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var groups []string
		for _, g := range c.Groups {
			groups = append(groups, fmt.Sprintf("%s:%s:%d", g.Source.Label, g.Name, g.Skills))
		}
		if got := c.HasGroup("p"); got != want || want != (strings.Join(groups, ",") == "A:p:1") {
			t.Errorf("%s: HasGroup(p) = %v, groups %v", caller, got, groups)
		}
	}
	// A pinned read of a copy the view excludes fails as a missing skill's,
	// though the view serves another copy of that name.
	canaryBoth, err := s.View(nil).Skill(ctx, "both")
	if err != nil {
		t.Fatal(err)
	}
	for _, caller := range []string{"stable", "default"} {
		v := callers[caller]
		_, err := v.ReadFile(ctx, "both", "which.txt", &store.ReadOptions{Skill: canaryBoth})
		if kindOf(err) != nf {
			t.Errorf("%s: pinned read of A@canary's copy: %v", caller, err)
		}
		if _, err := v.Digest(ctx, canaryBoth, store.FileInfo{Path: "which.txt"}); kindOf(err) != nf {
			t.Errorf("%s: digest of A@canary's copy: %v", caller, err)
		}
		if v.Visible(canaryBoth) {
			t.Errorf("%s: A@canary's copy is visible", caller)
		}
	}
	// Shadows and Shadowed name no copy of a source the view excludes.
	for caller, want := range map[string]string{"all": "B@stable,A", "canary": "A", "stable": "A", "default": ""} {
		v := callers[caller]
		sk, err := v.Skill(ctx, "both")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range v.Shadows(sk) {
			got = append(got, r.Label)
		}
		c, _ := v.Catalog(ctx)
		var shadowed []string
		for _, sh := range c.Shadowed {
			if sh.Name == "both" {
				shadowed = append(shadowed, sh.Hidden.Label)
			}
		}
		if strings.Join(got, ",") != want || strings.Join(shadowed, ",") != want {
			t.Errorf("%s: Shadows %v, Shadowed %v, want %s", caller, got, shadowed, want)
		}
	}
}
