package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/testutil"
)

// lines splits out into its lines, each decoded.
func lines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var got []map[string]any
	for _, l := range strings.SplitAfter(out, "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || !strings.HasSuffix(l, "\n") {
			t.Fatalf("line %q: %v", l, err)
		}
		delete(m, "time")
		got = append(got, m)
	}
	return got
}

// gateWriter blocks each Write until the test lets it through, and can
// be told to fail.
type gateWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	entered chan struct{} // a Write started
	release chan struct{} // let one Write go on
	fail    error         // when set, writes write half and fail
}

func newGate() *gateWriter {
	return &gateWriter{entered: make(chan struct{}, 100), release: make(chan struct{}, 100)}
}

func (g *gateWriter) Write(p []byte) (int, error) {
	g.entered <- struct{}{}
	<-g.release
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.fail != nil {
		g.buf.Write(p[:len(p)/2])
		return len(p) / 2, g.fail
	}
	return g.buf.Write(p)
}

func (g *gateWriter) setFail(err error) { g.mu.Lock(); g.fail = err; g.mu.Unlock() }

func (g *gateWriter) String() string { g.mu.Lock(); defer g.mu.Unlock(); return g.buf.String() }

// pass lets n writes through, waiting for each to start.
func (g *gateWriter) pass(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-g.entered:
		case <-time.After(10 * time.Second):
			t.Fatal("no write came")
		}
		g.release <- struct{}{}
	}
}

func ev(skill string) Event { return Event{Skill: skill, Decision: Allow} }

func TestQueueFullDropsAndNotes(t *testing.T) {
	g := newGate()
	l := New(g, Options{QueueSize: 4, Logger: slog.New(slog.DiscardHandler)})
	l.Log(ev("first"))
	<-g.entered // the writer holds "first"; the queue is empty
	start := time.Now()
	for i := range 100 {
		l.Log(ev(fmt.Sprint(i)))
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Log blocked: %v for 100 events", d)
	}
	if diff := cmp.Diff(Stats{Dropped: 96, Queued: 4}, l.Stats()); diff != "" {
		t.Errorf("stats while blocked (-want +got):\n%s", diff)
	}
	g.release <- struct{}{}
	g.pass(t, 2) // the four queued, then the note
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"skill": "first", "decision": "allow"},
		{"skill": "0", "decision": "allow"}, {"skill": "1", "decision": "allow"},
		{"skill": "2", "decision": "allow"}, {"skill": "3", "decision": "allow"},
		{"dropped": 96.0, "failed": 0.0},
	}
	if diff := cmp.Diff(want, lines(t, g.String())); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Stats{Logged: 5, Dropped: 96}, l.Stats()); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	l.Log(ev("late"))
	if l.Stats().Dropped != 97 {
		t.Error("an event after Close was not counted as dropped")
	}
}

func TestWriteFailures(t *testing.T) { synctest.Test(t, testWriteFailures) }

func testWriteFailures(t *testing.T) {
	g := newGate()
	var logs bytes.Buffer
	var reported []error
	l := New(g, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil)), ErrorInterval: time.Hour,
		OnError: func(err error) { reported = append(reported, err) }})
	full := &os.PathError{Op: "write", Path: "/var/lib/secret/dir/audit.log", Err: syscall.ENOSPC}
	g.setFail(full)
	for i := range 3 { // three failed writes, one event each
		l.Log(ev(fmt.Sprint("lost", i)))
		g.pass(t, 1)
	}
	waitStats(t, l, func(s Stats) bool { return s.WriteErrors == 3 })
	g.setFail(nil)
	l.Log(ev("back"))
	g.pass(t, 3) // the newline ending the torn line, the event, the note
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// The torn half line stands alone; every other line is whole.
	out := strings.SplitN(g.String(), "\n", 2)
	if !strings.HasPrefix(out[0], `{"time":"`) || json.Valid([]byte(out[0])) {
		t.Errorf("first line is not the torn half: %q", out[0])
	}
	want := []map[string]any{{"skill": "back", "decision": "allow"}, {"dropped": 0.0, "failed": 3.0}}
	if diff := cmp.Diff(want, lines(t, out[1])); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Stats{Logged: 1, Failed: 3, WriteErrors: 3}, l.Stats()); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	// Reported once for the spell (the interval is an hour), without the
	// host path; the recovery is logged.
	if len(reported) != 1 || !errors.Is(reported[0], syscall.ENOSPC) || strings.Contains(reported[0].Error(), "secret") {
		t.Errorf("reported %v", reported)
	}
	if s := logs.String(); strings.Count(s, "cannot write the audit log") != 1 ||
		!strings.Contains(s, "the audit log is written again") || strings.Contains(s, "secret") {
		t.Errorf("log:\n%s", s)
	}
}

// waitStats waits until every goroutine of the test's bubble is blocked
// (the Logger has written what it was given), then checks cond.
func waitStats(t *testing.T, l *Logger, cond func(Stats) bool) {
	t.Helper()
	synctest.Wait()
	if !cond(l.Stats()) {
		t.Fatalf("stats: %+v", l.Stats())
	}
}

func TestDevFull(t *testing.T) { synctest.Test(t, testDevFull) }

func testDevFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	var mu sync.Mutex
	var reported []error
	l, err := Open("/dev/full", Options{Logger: slog.New(slog.DiscardHandler), ErrorInterval: time.Hour,
		OnError: func(err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		l.Log(ev("x"))
	}
	waitStats(t, l, func(s Stats) bool { return s.Failed+s.Dropped == 10 })
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reported) != 1 || !errors.Is(reported[0], syscall.ENOSPC) || reported[0].Error() != "write full: no space left on device" {
		t.Errorf("reported %v", reported)
	}
	if s := l.Stats(); s.Logged != 0 || s.WriteErrors == 0 {
		t.Errorf("stats %+v", s)
	}
}

func TestReopen(t *testing.T) { synctest.Test(t, testReopen) }

func testReopen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "audit.log")
	l, err := Open(file, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	l.Log(ev("before"))
	waitStats(t, l, func(s Stats) bool { return s.Logged == 1 })
	if err := os.Rename(file, file+".1"); err != nil {
		t.Fatal(err)
	}
	if err := l.Reopen(); err != nil {
		t.Fatal(err)
	}
	l.Log(ev("after"))
	waitStats(t, l, func(s Stats) bool { return s.Logged == 2 })

	// A reopen that fails keeps writing to the old file.
	if err := os.Rename(dir, dir+".gone"); err != nil {
		t.Fatal(err)
	}
	defer os.Rename(dir+".gone", dir)
	err = l.Reopen()
	if !errors.Is(err, os.ErrNotExist) || strings.Contains(err.Error(), dir) {
		t.Errorf("reopen in a missing directory: %v", err)
	}
	l.Log(ev("still"))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Reopen(); err != nil {
		t.Errorf("Reopen after Close: %v", err)
	}
	os.Rename(dir+".gone", dir)
	wantSkills(t, map[string]string{file + ".1": "before", file: "after still"})
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode: %v %v", fi.Mode(), err)
	}
	if _, err := Open(filepath.Join(dir, "no", "such", "audit.log"), Options{}); err == nil || strings.Contains(err.Error(), dir) {
		t.Errorf("Open in a missing directory: %v", err)
	}
}

func TestStderr(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stderr
	os.Stderr = w
	l, err := Open("-", Options{})
	os.Stderr = old
	if err != nil {
		t.Fatal(err)
	}
	l.Log(ev("to stderr"))
	if err := l.Reopen(); err != nil {
		t.Error(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var buf bytes.Buffer
	buf.ReadFrom(r)
	want := []map[string]any{{"skill": "to stderr", "decision": "allow"}}
	if diff := cmp.Diff(want, lines(t, buf.String())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestShutdownDeadline(t *testing.T) {
	g := newGate()
	l := New(g, Options{})
	l.Log(ev("stuck"))
	<-g.entered
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := l.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown with a hung writer: %v", err)
	}
	g.release <- struct{}{}
	if err := l.Close(); err != nil { // the writer came back: Close finishes
		t.Error(err)
	}
	if got := lines(t, g.String()); len(got) != 1 {
		t.Errorf("lines: %v", got)
	}
}

// TestConcurrent logs from many goroutines while reopening, under -race:
// every event is written or counted as dropped.
func TestConcurrent(t *testing.T) {
	file := filepath.Join(t.TempDir(), "audit.log")
	l, err := Open(file, Options{QueueSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 500 {
				l.Log(Event{Skill: fmt.Sprint(w, "-", i), Decision: Deny, Groups: []string{"g"}})
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			if err := l.Reopen(); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	s := l.Stats()
	data, _ := os.ReadFile(file)
	events, dropped := 0, 0.0
	for _, m := range lines(t, string(data)) {
		if d, ok := m["dropped"]; ok {
			dropped += d.(float64)
		} else {
			events++
		}
	}
	if s.Logged+s.Dropped != 4000 || uint64(events) != s.Logged || uint64(dropped) != s.Dropped || s.Failed != 0 {
		t.Errorf("stats %+v; %d events and %v dropped in the file", s, events, dropped)
	}
}

// TestFollowsTheFile: a file deleted or moved away with no SIGHUP after it
// is not written to any more; the next events go to a new file by the
// Logger's path, and the log says so by the file's base name.
func TestFollowsTheFile(t *testing.T) { synctest.Test(t, testFollowsTheFile) }

func testFollowsTheFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "audit.log")
	var logs testutil.SyncBuffer
	l, err := Open(file, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	l.Log(ev("gone"))
	waitStats(t, l, func(s Stats) bool { return s.Logged == 1 })
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	l.Log(ev("deleted"))
	waitStats(t, l, func(s Stats) bool { return s.Logged == 2 })
	if err := os.Rename(file, file+".1"); err != nil {
		t.Fatal(err)
	}
	l.Log(ev("moved"))
	waitStats(t, l, func(s Stats) bool { return s.Logged == 3 })
	l.Log(ev("same"))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	wantSkills(t, map[string]string{file + ".1": "deleted", file: "moved same"})
	if s := logs.String(); strings.Count(s, "the audit file was deleted or moved") != 2 || strings.Contains(s, dir) {
		t.Errorf("log:\n%s", s)
	}
}

// wantSkills checks that each file holds events of the skills named, in
// that order (space-separated).
func wantSkills(t *testing.T, want map[string]string) {
	t.Helper()
	for file, skills := range want {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range lines(t, string(data)) {
			got = append(got, m["skill"].(string))
		}
		if diff := cmp.Diff(strings.Fields(skills), got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", filepath.Base(file), diff)
		}
	}
}
