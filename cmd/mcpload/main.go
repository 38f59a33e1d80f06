// Command mcpload measures an MCP server over stdio: pipelined tools/call
// throughput and latency at given concurrencies, and start-to-initialize time.
//
//	mcpload -call '{"name":"get_skill","arguments":{"skill_name":"pdf"}}' -c 1,16 -d 5s -- skillstore serve
//	mcpload -startup 20 -- npx @modelcontextprotocol/server-filesystem /srv/skills
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/skillstore/skillstore/internal/mcpload"
)

func main() {
	call := flag.String("call", "", "tools/call params as JSON: {\"name\":…,\"arguments\":{…}}")
	conc := flag.String("c", "1,16", "comma-separated numbers of requests in flight")
	dur := flag.Duration("d", 5*time.Second, "duration of each run")
	startups := flag.Int("startup", 0, "measure start-to-initialize this many times")
	label := flag.String("label", "", "label printed before each result line")
	httpURL := flag.String("http", "", "measure a Streamable HTTP endpoint at `URL` instead of a command's stdio")
	var headers headerFlags
	flag.Var(&headers, "H", "HTTP header `Name: value` (repeatable), e.g. -H 'MCP-Protocol-Version: 2025-06-18'")
	flag.Parse()
	argv := flag.Args()
	if (len(argv) == 0 && *httpURL == "") || (*call == "" && *startups == 0) {
		fmt.Fprintln(os.Stderr, "usage: mcpload [-call JSON -c 1,16 -d 5s] [-startup N] -- COMMAND [ARGS...]\n       mcpload -http URL [-H 'Name: value']... -call JSON [-c 1,16 -d 5s]")
		os.Exit(2)
	}
	prefix := ""
	if *label != "" {
		prefix = *label + "  "
	}
	if *startups > 0 {
		var ds []time.Duration
		for range *startups {
			d, err := mcpload.Startup(argv[0], argv[1:]...)
			if err != nil {
				fail(err)
			}
			ds = append(ds, d)
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		fmt.Printf("%sstartup to initialize: median %v  min %v  max %v  (%d runs)\n", prefix,
			ds[len(ds)/2].Round(10*time.Microsecond), ds[0].Round(10*time.Microsecond), ds[len(ds)-1].Round(10*time.Microsecond), len(ds))
	}
	if *call == "" {
		return
	}
	if !json.Valid([]byte(*call)) {
		fail(fmt.Errorf("-call is not valid JSON"))
	}
	var conn mcpload.Caller
	if *httpURL != "" {
		conn = mcpload.DialHTTP(*httpURL, http.Header(headers))
	} else {
		c, err := mcpload.Start(argv[0], argv[1:]...)
		if err != nil {
			fail(err)
		}
		defer c.Close()
		conn = c
	}
	for _, c := range strings.Split(*conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			fail(fmt.Errorf("bad -c value %q", c))
		}
		s, err := mcpload.Run(context.Background(), conn, json.RawMessage(*call), n, *dur)
		if err != nil {
			fail(err)
		}
		fmt.Printf("%sinflight=%-3d %s\n", prefix, n, s)
	}
}

// headerFlags collects -H values.
type headerFlags http.Header

func (h *headerFlags) String() string { return "" }

func (h *headerFlags) Set(v string) error {
	name, value, ok := strings.Cut(v, ":")
	if !ok {
		return fmt.Errorf("header %q: want Name: value", v)
	}
	if *h == nil {
		*h = headerFlags{}
	}
	http.Header(*h).Add(strings.TrimSpace(name), strings.TrimSpace(value))
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mcpload:", err)
	os.Exit(1)
}
