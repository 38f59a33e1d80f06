package mcpserver_test

import (
	"context"
	"embed"
	"io/fs"
	"log"
	"os"

	"github.com/skillstore/skillstore/mcpserver"
)

//go:embed testdata/embedded/skills
var embedded embed.FS

// Serve the skills compiled into a program over MCP on stdin and stdout,
// in one call. An embed.FS holds the folder it embeds, so fs.Sub takes
// the skills folder itself. Here stdin holds one request, reading a
// skill's document, as a client would write it.
func ExampleServeStdio() {
	skills, err := fs.Sub(embedded, "testdata/embedded/skills")
	if err != nil {
		log.Fatal(err)
	}
	os.Stdin = requests(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://pdf/SKILL.md"}}`) // a client launching the program writes these
	if err := mcpserver.ServeStdio(context.Background(), skills); err != nil {
		log.Fatal(err)
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"skill://pdf/SKILL.md","mimeType":"text/markdown","text":"---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n\nUse the form's field names.\n","_meta":{"io.github.skillstore/provenance":{"source":"builtin","kind":"embedded","location":"embedded"}}}]}}
}

// requests is a stdin holding lines, closed after them.
func requests(lines ...string) *os.File {
	r, w, err := os.Pipe()
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		for _, l := range lines {
			w.WriteString(l + "\n")
		}
		w.Close()
	}()
	return r
}
