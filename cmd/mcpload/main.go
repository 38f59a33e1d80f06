// Command mcpload measures an MCP server over stdio or Streamable HTTP:
// throughput and latency of one request repeated at given concurrencies,
// and start-to-first-answer time. It speaks protocol 2025-11-25 (and
// earlier: initialize handshake, HTTP session) or 2026-07-28 (no
// handshake: server/discover, then _meta on every request and, on HTTP,
// the Mcp-Method/Mcp-Name headers), chosen with -protocol.
//
//	mcpload -call '{"name":"get_skill","arguments":{"skill_name":"pdf"}}' -c 1,16 -d 5s -- skillstore serve
//	mcpload -protocol 2026-07-28 -read skill://pdf/SKILL.md -- skillstore serve
//	mcpload -method skills/get -params '{"uri":"skill://pdf/SKILL.md"}' -http http://127.0.0.1:8080/mcp
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

const usage = `usage: mcpload [-protocol V] REQUEST [-c 1,16 -d 5s] [-startup N] -- COMMAND [ARGS...]
       mcpload [-protocol V] -http URL [-H 'Name: value']... REQUEST [-c 1,16 -d 5s]
REQUEST is one of  -call TOOLS_CALL_PARAMS  |  -read URI  |  -method NAME [-params JSON]`

func main() {
	protocol := flag.String("protocol", mcpload.DefaultProtocol, "MCP protocol `version`: 2025-11-25 or earlier (initialize handshake, HTTP session) or "+mcpload.Stateless+" (server/discover, _meta on every request)")
	call := flag.String("call", "", "load tools/call with these params: {\"name\":…,\"arguments\":{…}}")
	read := flag.String("read", "", "load resources/read of `URI`")
	method := flag.String("method", "", "load this JSON-RPC `method` (skills/list, skills/get, tools/list…) with -params")
	params := flag.String("params", "", "params of -method as a JSON object (optional)")
	conc := flag.String("c", "1,16", "comma-separated numbers of requests in flight")
	dur := flag.Duration("d", 5*time.Second, "duration of each run")
	startups := flag.Int("startup", 0, "measure start-to-first-answer (initialize, or server/discover) this many times")
	label := flag.String("label", "", "label printed before each result line")
	httpURL := flag.String("http", "", "measure a Streamable HTTP endpoint at `URL` instead of a command's stdio")
	var headers headerFlags
	flag.Var(&headers, "H", "HTTP header `Name: value` (repeatable), e.g. -H 'Authorization: Bearer TOKEN'")
	flag.Parse()
	argv := flag.Args()

	reqMethod, reqParams, n := request(*call, *read, *method, *params)
	switch {
	case n > 1:
		fail(fmt.Errorf("-call, -read and -method are exclusive"))
	case (len(argv) == 0 && *httpURL == "") || (n == 0 && *startups == 0):
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	case *startups > 0 && len(argv) == 0:
		fail(fmt.Errorf("-startup needs a COMMAND"))
	}
	if len(reqParams) > 0 && !json.Valid(reqParams) {
		fail(fmt.Errorf("the params of %s are not valid JSON", reqMethod))
	}
	opts := mcpload.Options{Protocol: *protocol, Header: http.Header(headers)}

	prefix := ""
	if *label != "" {
		prefix = *label + "  "
	}
	if *startups > 0 {
		startup(opts, argv, *startups, prefix)
	}
	if n == 0 {
		return
	}
	var conn mcpload.Caller
	var err error
	if *httpURL != "" {
		conn, err = mcpload.DialHTTP(*httpURL, opts)
	} else {
		conn, err = mcpload.StartWith(opts, argv[0], argv[1:]...)
	}
	if err != nil {
		fail(err)
	}
	defer conn.Close()
	load(conn, reqMethod, reqParams, *conc, *dur, prefix)
}

// request is the request the flags ask to load (-call, -read or
// -method with -params) and how many of those flags were given.
func request(call, read, method, params string) (reqMethod string, reqParams json.RawMessage, n int) {
	if call != "" {
		n++
		reqMethod, reqParams = "tools/call", json.RawMessage(call)
	}
	if read != "" {
		n++
		p, _ := json.Marshal(map[string]string{"uri": read})
		reqMethod, reqParams = "resources/read", p
	}
	if method != "" {
		n++
		reqMethod, reqParams = method, json.RawMessage(params)
	} else if params != "" {
		fail(fmt.Errorf("-params needs -method"))
	}
	return reqMethod, reqParams, n
}

// startup starts the command argv runs times and prints the times to
// its first answer.
func startup(opts mcpload.Options, argv []string, runs int, prefix string) {
	var ds []time.Duration
	for range runs {
		d, err := mcpload.StartupWith(opts, argv[0], argv[1:]...)
		if err != nil {
			fail(err)
		}
		ds = append(ds, d)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	first := "initialize"
	if opts.Protocol >= mcpload.Stateless {
		first = "server/discover"
	}
	fmt.Printf("%sstartup to %s: median %v  min %v  max %v  (%d runs)\n", prefix, first,
		ds[len(ds)/2].Round(10*time.Microsecond), ds[0].Round(10*time.Microsecond), ds[len(ds)-1].Round(10*time.Microsecond), len(ds))
}

// load runs the request on conn at each concurrency of conc (comma-
// separated) for dur, and prints the results. It closes conn before it
// fails.
func load(conn mcpload.Caller, reqMethod string, reqParams json.RawMessage, conc string, dur time.Duration, prefix string) {
	info := conn.Info()
	session := ""
	if info.SessionID != "" {
		session = ", session " + info.SessionID
	}
	fmt.Fprintf(os.Stderr, "mcpload: %s %s, protocol %s%s; loading %s\n", info.Server.Name, info.Server.Version, info.Protocol, session, reqMethod)
	req, err := conn.Prepare(reqMethod, reqParams)
	if err != nil {
		conn.Close()
		fail(err)
	}
	for _, c := range strings.Split(conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			conn.Close()
			fail(fmt.Errorf("bad -c value %q", c))
		}
		s, err := mcpload.Run(context.Background(), conn, req, n, dur)
		if err != nil {
			conn.Close()
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
