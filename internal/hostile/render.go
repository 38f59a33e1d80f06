package hostile

import (
	"encoding/json"
	"strings"

	"github.com/skillstore/skillstore/store"
)

// The hints the tools add to a failure, by outcome (seed 002: a failure
// says what to do next).
const (
	// URIHint follows every failure of get_skill's uri argument, but those
	// of a skill that exists and cannot be read.
	URIHint = "Call list_skills (or resources/list) to discover supported skill URIs."
	// MissingArgumentHint follows get_skill's missing-argument failure.
	MissingArgumentHint = "Call list_skills to discover skill names and URIs."
)

// Hint is the hint the tools add to a store failure, "" if none.
func Hint(o Outcome) string {
	switch o {
	case SkillNotFound:
		return "Call list_skills to see the available skill names."
	case InvalidName:
		return "Pass the skill's folder name exactly as list_skills returns it."
	case NoSkillDoc:
		return "The folder has no SKILL.md; add one with YAML frontmatter (name, description)."
	case FileNotFound:
		return "Paths are relative to the skill folder; SKILL.md names the files it references."
	case PathEscapes, InvalidPath:
		return "Give a path relative to the skill folder, such as 'references/guide.md', without '..' or a leading '/'."
	case NoResource:
		return "Call resources/list or skills/list to see what it serves"
	}
	return ""
}

// Available is the list of the fixture's skills the Skill tool's failures end with.
const Available = "Available skills:\n- calculator: Basic arithmetic operations.\n- weather: Weather forecasts by location."

// AvailableHiding is Available as a view that hides HiddenSkills lists it.
const AvailableHiding = "Available skills:\n- weather: Weather forecasts by location."

// available is the list the Skill tool's failures end with in c's column.
func (c Case) available() string {
	if c.hiding {
		return AvailableHiding
	}
	return Available
}

// ToolResult is what one tool call must give.
type ToolResult struct {
	IsError bool
	// Display is the text MCP clients and the CLI show.
	Display string
	// Content is the function-calling tool-result content.
	Content string
}

// errorJSON is get_skill's failure, the contract's {"error": ...} with a hint.
func errorJSON(msg, hint string) ToolResult {
	b, _ := json.Marshal(struct {
		Error string `json:"error"`
		Hint  string `json:"hint,omitempty"`
	}{msg, hint})
	return ToolResult{IsError: true, Display: withHint(msg, hint), Content: string(b)}
}

func withHint(msg, hint string) string {
	if hint == "" {
		return msg
	}
	return msg + "\n\n" + hint
}

// document is get_skill's success for the named skill, serving file.
func document(name, file string) ToolResult {
	doc := Content(file)
	b, _ := json.Marshal(struct {
		SkillName     string `json:"skill_name"`
		Documentation string `json:"documentation"`
		URI           string `json:"uri"`
		MimeType      string `json:"mimeType"`
	}{name, doc, "skill://" + name + "/" + store.DocName, "text/markdown"})
	return ToolResult{Display: doc, Content: string(b)}
}

// ArgName is a case's skill name as the tools take it: through JSON, trimmed.
func (c Case) ArgName() string { return strings.TrimSpace(ViaJSON(c.Skill)) }

// GetSkillByName is get_skill's answer to {"skill_name": c.Skill}.
func GetSkillByName(c Case) ToolResult {
	w := c.For(GetSkill, Args)
	switch w.Outcome {
	case Served:
		return document(c.ArgName(), w.File)
	case BadArgument:
		return errorJSON(w.Msg, MissingArgumentHint)
	}
	return errorJSON(w.Msg, Hint(w.Outcome))
}

// GetSkillByURI is get_skill's answer to {"uri": uri}, one of c.URIs.
// Messages repeat the URI and name as given, unescaped (see ViaJSON for
// what JSON makes of them).
func GetSkillByURI(c Case, uri string) ToolResult {
	w := c.For(URI)
	switch w.Outcome {
	case Served:
		return document(c.Skill, w.File)
	case SkillNotFound:
		return errorJSON("Unsupported skill URI '"+strings.TrimSpace(uri)+"': no skill named '"+c.Skill+"' is registered", URIHint)
	case InvalidName, BadArgument:
		return errorJSON(w.Msg, URIHint)
	}
	return errorJSON(w.Msg, Hint(w.Outcome))
}

// ReadFileInSkill is read_file_in_skill's answer to c.Skill and c.File().
func ReadFileInSkill(c Case) ToolResult {
	w := c.For(Args)
	if w.Outcome == Served {
		text := Content(w.File)
		return ToolResult{Display: text, Content: text}
	}
	return ToolResult{IsError: true, Display: withHint(w.Msg, Hint(w.Outcome)), Content: "ERROR: " + w.Msg}
}

// SkillTool is the Skill tool's answer to c.Skill; location is where the
// source says the skill lives (the "Path:" line of a success).
func SkillTool(c Case, location string) ToolResult {
	w := c.For(Args)
	name := Echo(c.ArgName())
	var text string
	switch w.Outcome {
	case Served:
		text = "Skill: " + c.ArgName() + " (Type: project)\nPath: " + location + "\n\n" + Content(w.File)
		return ToolResult{Display: text, Content: text}
	case SkillNotFound:
		text = "Skill '" + name + "' not found.\n\n" + c.available() +
			"\n\nTo create this skill:\n1. Create directory ~/.agents/skills/" + name + "/\n2. Add SKILL.md file with proper YAML frontmatter"
	default:
		text = "Error invoking skill '" + name + "': " + withHint(w.Msg, Hint(w.Outcome)) + "\n\n" + c.available()
	}
	return ToolResult{IsError: true, Display: text, Content: text}
}
