package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing/fstest"

	"github.com/skillstore/skillstore/mcpserver"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// exampleServer is an MCP server over one skill held in memory.
func exampleServer() *mcpserver.Server {
	skills := fstest.MapFS{"pdf/SKILL.md": {Data: []byte("---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n")}}
	s, err := store.New([]store.Source{{Label: "project", Location: "./skills", FS: skills}}, store.Options{})
	if err != nil {
		log.Fatal(err)
	}
	srv, err := mcpserver.New(context.Background(), tools.New(s, tools.Options{}), mcpserver.Options{Name: "example", Version: "1.0.0"})
	if err != nil {
		log.Fatal(err)
	}
	return srv
}

// Serve MCP over stdio, as a client that launches the server as a
// subprocess expects: one JSON-RPC message per line in, answers out.
// Here the messages come from a string and the answers go to a pipe.
func ExampleServer_ServeStdio() {
	srv := exampleServer()
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"example","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_skill","arguments":{"skill_name":"pdf"}}}
`)
	r, w := io.Pipe()
	go func() {
		srv.ServeStdio(context.Background(), in, w) // returns when in ends (os.Stdin, os.Stdout in a real server)
		w.Close()
	}()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
				Structured      struct {
					SkillName string `json:"skill_name"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			log.Fatal(err)
		}
		fmt.Println(msg.ID, msg.Result.ProtocolVersion+msg.Result.Structured.SkillName)
	}
	// Answers may come in any order: each carries its request's id.

	// Unordered output:
	// 1 2025-11-25
	// 2 pdf
}

// Mount the MCP endpoint (Streamable HTTP) in an existing net/http
// server, at /skills/mcp. Package site serves the whole HTTP site: the
// endpoint behind its guard, probes, metrics and pages.
func ExampleServer_HTTPHandler() {
	srv := exampleServer()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "the application") })
	mux.Handle("/skills/mcp", srv.HTTPHandler(mcpserver.HTTPOptions{Stateless: true}))

	ts := httptest.NewServer(mux) // http.ListenAndServe(addr, mux) in a real program
	defer ts.Close()
	resp, err := http.Post(ts.URL+"/skills/mcp", "application/json", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}`))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var answer struct {
		Result struct {
			Structured tools.ListSkillsResult `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, answer.Result.Structured.Skills)
	// Output:
	// 200 [pdf]
}
