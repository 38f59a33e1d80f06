package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/fixture"
	"github.com/skillstore/skillstore/internal/testutil"
)

var binary string // the skillstore command, built by TestMain

func TestMain(m *testing.M) { os.Exit(testutil.MainWithBinary(m, "../../cmd/skillstore", &binary)) }

// Lines as versitygw v1.8.0 writes them with --access-log.
const (
	logStart = "log starts 2026-11-25 00:38:17.721364459 +0000 UTC m=+0.075251338\n"
	getLine  = "- fleet [25/November/2026:00:38:19 +0000] 127.0.0.1 fleet-bench 1ATZ s3_GetObject skills/pointer.json /fleet/skills/pointer.json 200 - 312 312 0 0 - aws-sdk-go-v2/1.39.6 - yGX0= SigV4 - AuthHeader s3.us-east-1.amazonaws.com - arn:aws:s3:::/fleet/skills/pointer.json Yes\n"
	headLine = "- fleet [25/November/2026:00:38:29 +0000] 127.0.0.1 fleet-bench 2BQX s3_HeadObject skills/pointer.json /fleet/skills/pointer.json 304 NotModified 0 0 0 0 - aws-sdk-go-v2/1.39.6 - yGX1= SigV4 - AuthHeader s3.us-east-1.amazonaws.com - arn:aws:s3:::/fleet/skills/pointer.json Yes\n"
	putLine  = "- fleet [25/November/2026:00:38:30 +0000] 127.0.0.1 fleet-bench 3CRY s3_PutObject skills/blobs/ab /fleet/skills/blobs/ab?x-id=PutObject 200 - 0 4096 1 1 - aws-sdk-go-v2/1.39.6 - yGX2= SigV4 - AuthHeader s3.us-east-1.amazonaws.com - arn:aws:s3:::/fleet/skills/blobs/ab Yes\n"
)

// TestCountOps counts requests in log excerpts, whole and between offsets.
func TestCountOps(t *testing.T) {
	log := logStart + getLine + headLine + putLine + headLine + "not a request line\n" + strings.TrimSuffix(getLine, "\n")
	file := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(file, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	at := func(line string) int64 { return int64(strings.Index(log, line)) }
	for _, tc := range []struct {
		name     string
		from, to int64
		want     string
	}{
		{"whole log", 0, -1, "GetObject=2 HeadObject=2 PutObject=1"},
		{"after the first GET", at(headLine), -1, "GetObject=1 HeadObject=2 PutObject=1"},
		{"one PUT", at(putLine), at(putLine) + int64(len(putLine)), "PutObject=1"},
		{"the start line only", 0, int64(len(logStart)), "none"},
		{"nothing yet", int64(len(log)), -1, "none"},
	} {
		got, err := countRange(file, tc.from, tc.to)
		if err != nil || got.String() != tc.want {
			t.Errorf("%s: %v, %v; want %s", tc.name, got, err, tc.want)
		}
	}
	whole, _ := countRange(file, 0, -1)
	if got, want := whole.Sequence(), "GetObject skills/pointer.json, HeadObject skills/pointer.json, PutObject blobs/ab, HeadObject skills/pointer.json, GetObject skills/pointer.json"; got != want {
		t.Errorf("sequence %q; want %q", got, want)
	}
	many := filepath.Join(t.TempDir(), "many.log")
	if err := os.WriteFile(many, []byte(strings.Repeat(headLine, maxSeq+3)), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := countRange(many, 0, -1); got.String() != "HeadObject=15" || !strings.HasSuffix(got.Sequence(), "HeadObject skills/pointer.json and 3 more") || strings.Count(got.Sequence(), ",") != maxSeq-1 {
		t.Errorf("15 requests: %s; %s", got, got.Sequence())
	}
	if _, err := countRange(filepath.Join(t.TempDir(), "missing.log"), 0, -1); err == nil || strings.Contains(err.Error(), os.TempDir()) {
		t.Errorf("a missing log: %v; want an error without its path", err)
	}
	if n, err := logSize(filepath.Join(t.TempDir(), "missing.log")); n != 0 || err != nil {
		t.Errorf("size of a log not yet written: %d, %v; want 0", n, err)
	}
}

// TestReplica drives the real command over a folder of skills: every
// step is answered, in order, the peak memory is read, and requests are
// counted from the log from just before the start. A step answered with
// an error, or a server that exits, fails the run.
func TestReplica(t *testing.T) {
	dir := testutil.TempTree(t, fixture.Skills())
	accessLog := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(accessLog, []byte(logStart+putLine), 0o644); err != nil {
		t.Fatal(err)
	}
	// The server's wrapper logs a GET before the server starts: the run
	// counts it, and not the PUT logged before the run.
	wrapper := []string{"sh", "-c", `printf '%s' "$1" >> "$2"; shift 2; exec "$@"`, "sh", getLine, accessLog,
		binary, "serve", "--source", dir}
	r, err := runReplica(replicaOptions{skill: "weather", accessLog: accessLog, idle: time.Millisecond, timeout: time.Minute, command: wrapper})
	if err != nil {
		t.Fatal(err)
	}
	if r.idleRequests.String() != "none" {
		t.Errorf("idle requests %v; want none (a folder source)", r.idleRequests)
	}
	var labels []string
	var last time.Duration
	for _, a := range r.answers {
		labels = append(labels, a.label)
		if a.after < last {
			t.Errorf("%s answered at %v, before the previous answer (%v)", a.label, a.after, last)
		}
		last = a.after
	}
	if diff := cmp.Diff([]string{"initialize", "list_skills", "get_skill", "skills_list"}, labels); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if r.peakKiB < 1024 {
		t.Errorf("peak RSS %d KiB; want a real process's", r.peakKiB)
	}
	if r.requests.String() != "GetObject=1" {
		t.Errorf("requests %v; want the wrapper's GET only", r.requests)
	}

	for _, tc := range []struct {
		name    string
		o       replicaOptions
		wantErr string
	}{
		{"missing skill", replicaOptions{skill: "no-such-skill", command: []string{binary, "serve", "--source", dir}}, "get_skill: the tool failed"},
		{"server exits", replicaOptions{skill: "weather", command: []string{"true"}}, "initialize: the server closed its"},
		{"no server", replicaOptions{skill: "weather", command: []string{filepath.Join(dir, "no-such-command")}}, "starting"},
	} {
		tc.o.timeout = time.Minute
		if _, err := runReplica(tc.o); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.wantErr)
		}
	}
}
