package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
)

// Exit statuses, as main chooses them (exitStatus).
const (
	exitOK   = 0 // the command did what it was asked
	exitFail = 1 // any error, a wrong argument or flag included; stderr says what
	// exitTrouble is diff's error status (troubleError), as diff(1)'s:
	// its exitFail says the two differ.
	exitTrouble = 2
)

// exitStatus is the status main exits with after the command returned
// err: an exitCode's own, else exitFail for any error.
func exitStatus(err error) int {
	if err == nil {
		return exitOK
	}
	var ec exitCode
	if errors.As(err, &ec) {
		return int(ec)
	}
	var te troubleError
	if errors.As(err, &te) {
		return exitTrouble
	}
	return exitFail
}

// helpDoc is what a command's --help shows besides its description: its
// examples, and its exit statuses with what each means for it.
type helpDoc struct {
	examples string
	codes    map[int]string
}

// failWords is what exit status 1 means for most commands.
const failWords = "an error: a wrong argument or flag, or a source that cannot be read; stderr says what"

// helpDocs holds every command's examples and exit statuses, by name
// ("" is the root).
var helpDocs = map[string]helpDoc{
	"": {"  skillstore serve\n  skillstore list -s ./skills\n  skillstore get pdf-tools", map[int]string{exitOK: "success", exitFail: failWords}},
	"serve": {"  skillstore serve -s ./skills\n  skillstore serve --http 127.0.0.1:8080 -s s3://corp-skills?prefix=skills/",
		map[int]string{exitOK: "stopped by a signal or the client closing stdio", exitFail: failWords}},
	"connect": {"", map[int]string{exitOK: "the entries were printed", exitFail: failWords}},
	"list":    {"  skillstore list\n  skillstore list --source ./skills --json", map[int]string{exitOK: "the catalog was printed", exitFail: failWords}},
	"search":  {"  skillstore search pdf\n  skillstore search --json \"fill a form\"", map[int]string{exitOK: "the results were printed (none found included)", exitFail: failWords}},
	"get":     {"  skillstore get pdf-tools\n  skillstore get skill://pdf-tools/SKILL.md", map[int]string{exitOK: "the skill was printed", exitFail: "no such skill, or " + failWords}},
	"read":    {"  skillstore read pdf-tools scripts/fill.py", map[int]string{exitOK: "the file was printed", exitFail: "no such skill or file, or " + failWords}},
	"files":   {"  skillstore files pdf-tools", map[int]string{exitOK: "the file list was printed", exitFail: "no such skill, or " + failWords}},
	"validate": {"  skillstore validate ./skills/pdf-tools\n  skillstore validate --json -s ./skills",
		map[int]string{exitOK: "every skill is valid", exitFail: "a skill is invalid, or " + failWords}},
	"publish": {"  skillstore publish ./skills s3://corp-skills?prefix=skills/", map[int]string{exitOK: "the snapshot was published", exitFail: failWords}},
	"push": {"  skillstore push ./skills/pdf-tools https://skills.example.com\n  skillstore push --token-file ~/.skillstore-token ./pdf-tools https://skills.example.com",
		map[int]string{exitOK: "the skill or its new version was created", exitFail: "the skill is invalid, the server refused it (stderr gives its error type and message), or " + failWords}},
	"diff": {"  skillstore diff ./old/pdf-tools ./skills/pdf-tools\n  skillstore diff pdf-tools https://skills.example.com --from skver_01JDX4Y8Z3 --json",
		map[int]string{exitOK: "the two are the same", exitFail: "they differ: the diff was printed", exitTrouble: failWords + "; or the server refused (stderr gives its error type and message)"}},
	"versions": {"  skillstore versions pdf-tools https://skills.example.com", map[int]string{exitOK: "the versions were printed", exitFail: "no such skill, the server refused, or " + failWords}},
	"review": {"  skillstore review pdf-tools skver_01J… https://skills.example.com --approve --sign ~/.ssh/id_ed25519 --as alice@example.com\n  skillstore review pdf-tools latest https://skills.example.com --reject --reason \"calls an unknown host\"",
		map[int]string{exitOK: "the decision was recorded", exitFail: "the files downloaded are not the version's, the server refused the decision (stderr gives its error type and message), or " + failWords}},
	"promote": {"  skillstore promote pdf-tools skver_01J… canary https://skills.example.com", map[int]string{exitOK: "the channel points at the version", exitFail: "the server refused (stderr gives its error type and message), or " + failWords}},
	"pending": {"  skillstore pending https://skills.example.com", map[int]string{exitOK: "the pending versions were printed", exitFail: "the server refused, or " + failWords}},
	"install": {"  skillstore install ./skills pdf-tools --agent claude-code\n  skillstore install https://skills.example.com/.well-known/agent-skills/ --agent codex --agent cursor\n  skillstore install --frozen --agent claude-code",
		map[int]string{exitOK: "every skill was installed or already was", exitFail: "a skill was not installed (stderr says which and why; the others were), or " + failWords}},
	"update": {"  skillstore update\n  skillstore update pdf-tools --agent claude-code",
		map[int]string{exitOK: "every skill was reinstalled and its pin moved, or already was current", exitFail: "a skill was not updated (stderr says which and why; the others were), or " + failWords}},
	"lock": {"  skillstore lock --check\n  skillstore lock --check --agent claude-code --source ./skills",
		map[int]string{exitOK: "every installed skill matches the lock", exitFail: "a skill drifted (stdout lists what), or " + failWords}},
	"bundle":  {"  skillstore bundle ./skills -o team-skills", map[int]string{exitOK: "the executable was written", exitFail: failWords}},
	"tools":   {"  skillstore tools\n  skillstore tools --format mcp", map[int]string{exitOK: "the definitions were printed", exitFail: failWords}},
	"usage":   {"  skillstore usage --file /var/lib/skillstore/usage.json -s ./skills\n  skillstore usage --file usage.json --json", map[int]string{exitOK: "the usage was printed", exitFail: "the file is missing or not a usage file, or " + failWords}},
	"version": {"  skillstore version", map[int]string{exitOK: "the version was printed", exitFail: "a wrong argument or flag"}},
}

// exitCodesAnnotation holds a command's exit statuses, one a line, for
// the usage template.
const exitCodesAnnotation = "exit-codes"

// document gives root and each of its commands their examples and exit
// statuses from helpDocs, shown by --help under "Examples:" and
// "Exit codes:". A command's own Example is kept.
func document(root *cobra.Command) {
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		name := c.Name()
		if c == root {
			name = ""
		}
		d, ok := helpDocs[name]
		if !ok {
			continue
		}
		if c.Example == "" {
			c.Example = d.examples
		}
		var b strings.Builder
		for _, code := range []int{exitOK, exitFail, exitTrouble} {
			if w, ok := d.codes[code]; ok {
				b.WriteString("  " + string(rune('0'+code)) + "  " + w + "\n")
			}
		}
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[exitCodesAnnotation] = strings.TrimRight(b.String(), "\n")
	}
	root.SetUsageTemplate(strings.Replace(root.UsageTemplate(), "{{.Example}}{{end}}",
		"{{.Example}}{{end}}{{with index .Annotations \""+exitCodesAnnotation+"\"}}\n\nExit codes:\n{{.}}{{end}}", 1))
}
