package site_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"testing/fstest"

	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/site"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// Mount the HTTP site in an existing net/http server, under a prefix:
// MCP (Streamable HTTP) at /skills/mcp, probes at /skills/healthz and
// /skills/readyz, metrics at /skills/metrics.
func ExampleNew() {
	skills := fstest.MapFS{"pdf/SKILL.md": {Data: []byte("---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n")}}
	s, err := store.New([]store.Source{{Label: "project", Location: "./skills", FS: skills}}, store.Options{})
	if err != nil {
		log.Fatal(err)
	}
	srv, err := mcpserver.New(context.Background(), tools.New(s, tools.Options{}), mcpserver.Options{Name: "example", Version: "1.0.0"})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "the application") })
	mux.Handle("/skills/", http.StripPrefix("/skills", site.New(srv, site.Options{Stateless: true})))

	ts := httptest.NewServer(mux) // http.ListenAndServe(addr, mux) in a real program
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/skills/readyz")
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output:
	// 200
}
