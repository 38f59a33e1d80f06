// Command fleetbench is the measuring half of scripts/fleet-bench.sh
// (issue 22): it times a cold replica as a new MCP client sees it, and
// counts the requests an S3 gateway (versitygw) logged.
//
//	fleetbench replica -skill NAME [-log ACCESS_LOG] [-idle 32s] -- skillstore serve --source URL …
//
// starts the command (a stdio MCP server) and, from the moment it is
// started, sends initialize (then notifications/initialized), tools/call
// list_skills, tools/call get_skill for NAME and skills/list (its first
// page), each once the previous one is answered, and prints the time
// from the start to each answer. It then reads the process's peak
// resident set (VmHWM in /proc/PID/status) and stops it. With -log, it
// also prints the requests versitygw logged in that file from just before
// the start to the stop; with -idle D, it keeps the replica idle for D
// after the last answer and prints the requests logged meanwhile. An
// answer that is an error (a JSON-RPC error, a tool result with isError,
// an empty skills/list) fails the run: a fast error is no measurement.
//
//	fleetbench requests -log ACCESS_LOG [-since BYTES]
//
// prints the requests logged after the first BYTES bytes of the file.
//
// Output is one "key value" line per figure, for the script to read:
// times in seconds, memory in KiB, requests as "GetObject=2 HeadObject=1"
// (or "none"), and for the replica the first 12 requests in order, each
// with the end of its key ("requests_seq GetObject .skillstore/current.json,
// …"). Linux only (VmHWM).
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"time"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("fleetbench: ")
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "replica":
		replicaMain(os.Args[2:])
	case "requests":
		requestsMain(os.Args[2:])
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: fleetbench replica -skill NAME [-log FILE] [-idle D] [-timeout D] -- COMMAND ARGS…\n       fleetbench requests -log FILE [-since BYTES]")
	os.Exit(2)
}

func replicaMain(args []string) {
	fs := flag.NewFlagSet("replica", flag.ExitOnError)
	var o replicaOptions
	fs.StringVar(&o.skill, "skill", "", "the skill get_skill asks for")
	fs.StringVar(&o.accessLog, "log", "", "versitygw's access log, to count the replica's requests")
	fs.DurationVar(&o.idle, "idle", 0, "after the answers, keep the replica idle this long and count its requests meanwhile (needs -log)")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "give up on an answer after this long")
	fs.Parse(args)
	o.command = fs.Args()
	if o.skill == "" || len(o.command) == 0 || (o.idle > 0 && o.accessLog == "") {
		usage()
	}
	r, err := runReplica(o)
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range r.answers {
		fmt.Printf("%s %.3f\n", a.label, a.after.Seconds())
	}
	fmt.Printf("peak_rss_kib %d\n", r.peakKiB)
	if o.accessLog != "" {
		fmt.Printf("requests %s\n", r.requests)
		fmt.Printf("requests_seq %s\n", r.requests.Sequence())
	}
	if o.idle > 0 {
		fmt.Printf("idle_requests %s\n", r.idleRequests)
		fmt.Printf("idle_requests_seq %s\n", r.idleRequests.Sequence())
	}
}

func requestsMain(args []string) {
	fs := flag.NewFlagSet("requests", flag.ExitOnError)
	file := fs.String("log", "", "versitygw's access log")
	since := fs.Int64("since", 0, "count only what comes after this many bytes of the log")
	fs.Parse(args)
	if *file == "" || fs.NArg() > 0 {
		usage()
	}
	ops, err := countRange(*file, *since, -1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ops)
}
