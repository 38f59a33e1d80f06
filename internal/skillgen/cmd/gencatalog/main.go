// Command gencatalog writes a generated catalog of skills (see package
// skillgen) as a folder of skills, with the built-in examples, and the
// query set with its expected answers as JSON:
//
//	go run ./internal/skillgen/cmd/gencatalog -n 10000 -out /tmp/catalog
//
// writes /tmp/catalog/skills/NAME/SKILL.md for every skill and
// /tmp/catalog/queries.json ([{"text": …, "want": [names…]}, …]).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/skillstore/skillstore/backends"
	"github.com/skillstore/skillstore/internal/skillgen"
)

func main() {
	n := flag.Int("n", 10_000, "number of generated skills")
	out := flag.String("out", "", "folder to write (skills/ and queries.json); required")
	noExamples := flag.Bool("no-examples", false, "leave out the built-in example skills")
	flag.Parse()
	if *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	skills := skillgen.Catalog(*n)
	if !*noExamples {
		ex, err := skillgen.ReadTree(backends.Examples())
		if err != nil {
			log.Fatal(err)
		}
		skills = skillgen.WithExamples(skills, ex)
	}
	if err := skillgen.WriteTree(filepath.Join(*out, "skills"), skills); err != nil {
		log.Fatal(err)
	}
	type query struct {
		Text string   `json:"text"`
		Want []string `json:"want"`
	}
	var qs []query
	for _, q := range skillgen.Queries(skills) {
		qs = append(qs, query{q.Text, q.Want})
	}
	data, err := json.MarshalIndent(qs, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*out, "queries.json"), append(data, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("wrote %d skills and %d queries to %s\n", len(skills), len(qs), *out)
}
