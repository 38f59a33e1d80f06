package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/hostile"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// TestHostile drives the hostile-input table (internal/hostile) through
// every tool that takes a skill name, a path or a URI, as function calling
// sends them (JSON arguments): read_file_in_skill, get_skill by name and
// by URI, and Skill. Each answer is compared whole: the function-calling
// content, the text MCP shows, the structured result and the Go error.
// Each case runs in two columns: the tools of an unrestricted caller give
// its Want, and those of a caller whose view hides the skill named
// (hostile.Filter) its Hidden column, in the same words as for a skill
// that does not exist.
func TestHostile(t *testing.T) {
	s, err := store.New([]store.Source{{Label: "project", Location: "./skills", FS: fixture.MapFS()}}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := tools.New(s, tools.Options{})
	hiding := all.With(s.View(hostile.Filter{}))
	for _, c := range hostile.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			t.Run("visible", func(t *testing.T) { hostileTools(t, all, c) })
			t.Run("hidden", func(t *testing.T) { hostileTools(t, hiding, c.Hiding()) })
		})
	}
}

// hostileTools runs case c through every tool of tl.
func hostileTools(t *testing.T, tl *tools.Tools, c hostile.Case) {
	if !c.URIOnly {
		hostileReadFile(t, tl, c)
	}
	if !c.Doc {
		return
	}
	if !c.URIOnly {
		hostileGetSkill(t, tl, c, tools.GetSkillArgs{SkillName: c.Skill}, hostile.GetSkillByName(c), c.For(hostile.GetSkill, hostile.Args))
		hostileSkill(t, tl, c)
	}
	for _, uri := range c.URIs {
		hostileGetSkill(t, tl, c, tools.GetSkillArgs{URI: uri}, hostile.GetSkillByURI(c, uri), c.For(hostile.URI))
	}
}

// hostileRun calls a tool with args as JSON and checks its answer against
// want; it returns the structured result. wantArgErr says the call is an
// *ArgumentError (a refusal before any lookup), and kind, if not nil, the
// store error it wraps.
func hostileRun(t *testing.T, tl *tools.Tools, tool string, args any, want hostile.ToolResult, wantArgErr bool, kind error) any {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tl.Run(context.Background(), tool, raw)
	var argErr *tools.ArgumentError
	if errors.As(err, &argErr) != wantArgErr || err != nil && !wantArgErr {
		t.Errorf("%s %s: Go error %v; want an *ArgumentError: %v", tool, raw, err, wantArgErr)
	}
	if kind != nil && !errors.Is(err, kind) {
		t.Errorf("%s %s: Go error %v; want one that keeps its kind, %v", tool, raw, err, kind)
	}
	got := hostile.ToolResult{IsError: res.IsError, Display: res.Display, Content: res.Content()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s %s (-want +got):\n%s", tool, raw, diff)
	}
	return res.Structured
}

func hostileReadFile(t *testing.T, tl *tools.Tools, c hostile.Case) {
	w := c.For(hostile.Args)
	args := map[string]string{"skill_name": c.Skill, "file_path": c.File()}
	got := hostileRun(t, tl, tools.ReadFileInSkill, args, hostile.ReadFileInSkill(c), false, nil)
	var want any = tools.ReadFileError{SkillName: c.ArgName(), FilePath: hostile.ViaJSON(c.File()), Error: w.Msg}
	if w.Outcome == hostile.Served {
		_, clean, _ := strings.Cut(w.File, "/")
		text := hostile.Content(w.File)
		want = tools.ReadFileResult{Success: true, SkillName: c.ArgName(), FilePath: clean, Content: text, SizeBytes: int64(len(text)), Encoding: "utf-8"}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read_file_in_skill structured result (-want +got):\n%s", diff)
	}
}

func hostileGetSkill(t *testing.T, tl *tools.Tools, c hostile.Case, args tools.GetSkillArgs, want hostile.ToolResult, w hostile.Want) {
	t.Helper()
	byURI := args.URI != ""
	argErr := w.Outcome == hostile.BadArgument || byURI && w.Outcome == hostile.InvalidName
	var kind error // a bad URI is an argument error that says what is wrong with the name
	if argErr {
		kind = w.Outcome.Err()
	}
	got := hostileRun(t, tl, tools.GetSkill, args, want, argErr, kind)
	var wantStructured any
	if w.Outcome == hostile.Served {
		name := c.ArgName()
		if byURI {
			name = c.Skill
		}
		wantStructured = tools.GetSkillResult{SkillName: name, Documentation: hostile.Content(w.File), URI: tools.SkillURI(name), MimeType: "text/markdown"}
	}
	if diff := cmp.Diff(wantStructured, got); diff != "" {
		t.Errorf("get_skill %+v structured result (-want +got):\n%s", args, diff)
	}
}

func hostileSkill(t *testing.T, tl *tools.Tools, c hostile.Case) {
	w := c.For(hostile.Args)
	location := "./skills/" + c.ArgName()
	got := hostileRun(t, tl, tools.SkillTool, tools.SkillArgs{SkillName: c.Skill}, hostile.SkillTool(c, location), false, nil)
	var want any
	if w.Outcome == hostile.Served {
		want = tools.SkillResult{SkillName: c.ArgName(), Type: "project", Path: location, Description: "Basic arithmetic operations.",
			Content: hostile.Content(w.File), ShortResult: "calculator: Basic arithmetic operations."}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Skill structured result (-want +got):\n%s", diff)
	}
}
