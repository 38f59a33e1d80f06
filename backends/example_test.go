package backends_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// Open a source, build a store over it, and answer a model's tool call the
// way a function-calling agent does. This is the README's library example.
func ExampleOpen() {
	ctx := context.Background()
	// README:begin
	src, err := backends.Open(ctx, "examples") // a folder, a .zip, builtin://; s3://, gs://, azblob:// with their drivers
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	s, err := store.New([]store.Source{src}, store.Options{})
	if err != nil {
		log.Fatal(err)
	}
	t := tools.New(s, tools.Options{})
	content, err := t.Call(ctx, "read_file_in_skill", `{"skill_name":"code-review","file_path":"references/checklist.md"}`)
	if err != nil { // an unknown tool or bad arguments; content tells the model
		log.Print(err)
	}
	// README:end
	fmt.Println(src.Label, src.Kind)
	fmt.Println(strings.SplitN(content, "\n", 2)[0])
	// Output:
	// project local
	// # Review checklist
}

// TestReadmeExample: the README shows ExampleOpen's code, word for word.
func TestReadmeExample(t *testing.T) {
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, code, _ := bytes.Cut(src, []byte("// README:begin\n"))
	code, _, _ = bytes.Cut(code, []byte("\t// README:end"))
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(string(code), "\n\t", "\n")
	want = strings.TrimPrefix(want, "\t")
	if !strings.Contains(string(readme), want) {
		t.Errorf("README.md does not show ExampleOpen's code; it should contain:\n%s", want)
	}
}
