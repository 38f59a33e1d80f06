package access

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/testutil"
)

// policyFor returns a policy under which group g sees exactly skill
// name of source s.
func policyFor(name string) string {
	return "default: deny\nrules:\n  - groups: [g]\n    sources: [s]\n    skills: [" + name + "]\n"
}

func writeFile(t *testing.T, file, text string) {
	t.Helper()
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// replaceFile writes text beside file and renames it over file, as
// editors and configuration tools do.
func replaceFile(t *testing.T, file, text string) {
	t.Helper()
	tmp := file + ".tmp"
	writeFile(t, tmp, text)
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
}

// sees returns the one skill g sees under r's current policy, checking
// that one Filter answers from one policy.
func sees(r *Reloader) (string, error) {
	f := r.For(&Principal{Groups: []string{"g"}})
	var got []string
	for _, n := range []string{"one", "two", "three"} {
		if f.Allows("s", n) {
			got = append(got, n)
		}
	}
	if len(got) != 1 {
		return "", errors.New("a filter saw " + strings.Join(got, ","))
	}
	return got[0], nil
}

// TestReloadDuringReads: while readers ask for Filters, a replaced policy
// file is put in place, a broken one keeps the previous policy and is
// reported once, and each Filter answers from one policy. The ways a file
// can change are internal/reload's tests.
func TestReloadDuringReads(t *testing.T) {
	file := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, file, policyFor("one"))
	sink := new(testutil.SyncBuffer)
	var mu sync.Mutex
	var errs []string
	r, err := NewReloader(file, ReloadOptions{Interval: -1, Logger: slog.New(slog.NewTextHandler(sink, nil)),
		OnError: func(err error) { mu.Lock(); errs = append(errs, err.Error()); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	// Readers run throughout; each Filter must answer from one policy.
	stopReaders := startReaders(r)
	current := func() string { s, _ := sees(r); return s }

	replaceFile(t, file, policyFor("two"))
	testutil.Eventually(t, "policy two", func() bool { return current() == "two" })

	// A broken file keeps the previous policy and is reported once,
	// however often it is read.
	const broken = `policy.yaml:6: unknown key "skils" (did you mean "skills"?)`
	replaceFile(t, file, policyFor("two")+"    skils: [x]\n")
	testutil.Eventually(t, "the error", func() bool { mu.Lock(); defer mu.Unlock(); return len(errs) > 0 })
	for range 3 {
		if err := r.Reload(); err == nil || err.Error() != broken {
			t.Errorf("Reload of the broken file: %v", err)
		}
	}
	if s := current(); s != "two" {
		t.Errorf("after a broken file: %q", s)
	}
	mu.Lock()
	if diff := cmp.Diff([]string{broken}, errs); diff != "" {
		t.Errorf("errors reported (-want +got):\n%s", diff)
	}
	mu.Unlock()

	replaceFile(t, file, policyFor("three"))
	testutil.Eventually(t, "policy three", func() bool { return current() == "three" })
	if err := stopReaders(); err != nil {
		t.Error(err)
	}
	out := sink.String()
	if !strings.Contains(out, `msg="access policy reloaded" file=policy.yaml rules=1`) ||
		!strings.Contains(out, `msg="access policy not reloaded; keeping the previous one" file=policy.yaml`) ||
		strings.Contains(out, filepath.Dir(file)) {
		t.Errorf("log:\n%s", out)
	}
}

// TestReloadExplicit: the policy file is refused at start with its line,
// read again on Reload alone, and OnReload is given the new policy.
func TestReloadExplicit(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "policy.yaml")
	if _, err := NewReloader(file, ReloadOptions{}); !errors.Is(err, os.ErrNotExist) || strings.Contains(err.Error(), dir) {
		t.Errorf("missing file at start: %v", err)
	}
	writeFile(t, file, "default: deny\n")
	if _, err := NewReloader(file, ReloadOptions{}); err == nil || err.Error() != `policy.yaml:1: no "rules"` {
		t.Errorf("bad file at start: %v", err)
	}
	writeFile(t, file, policyFor("one"))
	logger, logs := testutil.TextLog()
	var reloaded []*Policy
	r, err := NewReloader(file, ReloadOptions{Interval: -1, noNotify: true, Logger: logger,
		OnReload: func(p *Policy) { reloaded = append(reloaded, p) }})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	first := r.Policy()
	if err := r.Reload(); err != nil || r.Policy() != first || len(reloaded) != 0 {
		t.Errorf("an unchanged file was reloaded: %v", err)
	}
	writeFile(t, file, policyFor("two")+"#"+strings.Repeat("x", MaxPolicySize))
	if err := r.Reload(); err == nil || err.Error() != "policy.yaml: larger than 1048576 bytes" || r.Policy() != first {
		t.Errorf("a file over MaxPolicySize: %v", err)
	}
	writeFile(t, file, policyFor("two"))
	if err := r.Reload(); err != nil || r.Policy() == first || len(reloaded) != 1 || reloaded[0] != r.Policy() {
		t.Errorf("changed file: %v, OnReload given %v", err, reloaded)
	}
	if s, _ := sees(r); s != "two" {
		t.Errorf("sees %q", s)
	}
	// A Filter taken before a reload keeps answering from its policy.
	f := r.For(&Principal{Groups: []string{"g"}})
	writeFile(t, file, policyFor("three"))
	if err := r.Reload(); err != nil {
		t.Fatal(err)
	}
	if !f.Allows("s", "two") || f.Allows("s", "three") {
		t.Error("an old filter changed")
	}
	if len(reloaded) != 2 || reloaded[1] != r.Policy() {
		t.Errorf("OnReload given %v", reloaded)
	}
	if err := r.Close(); err != nil {
		t.Error(err)
	}
	if r.Policy() == nil {
		t.Error("no policy after Close")
	}
	want := `level=ERROR msg="access policy not reloaded; keeping the previous one" file=policy.yaml err="policy.yaml: larger than 1048576 bytes"
level=INFO msg="access policy reloaded" file=policy.yaml rules=1 writes=0
level=INFO msg="access policy reloaded" file=policy.yaml rules=1 writes=0
`
	if diff := cmp.Diff(want, logs.String()); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
}

// startReaders starts goroutines asking r what g sees until the
// returned function is called; it returns the first inconsistent answer.
func startReaders(r *Reloader) (stop func() error) {
	return testutil.Readers(4, func() error {
		_, err := sees(r)
		return err
	})
}

// TestReloadWrites: a reload carries the write rules; a broken write rule
// keeps the previous policy, and its error names the file and line.
func TestReloadWrites(t *testing.T) {
	file := filepath.Join(t.TempDir(), "policy.yaml")
	writes := func(ops string) string {
		return policyFor(`"*"`) + "writes:\n  - groups: [g]\n    skills: [\"*\"]\n    ops: " + ops + "\n"
	}
	writeFile(t, file, policyFor("one"))
	logger, logs := testutil.TextLog()
	r, err := NewReloader(file, ReloadOptions{Interval: -1, noNotify: true, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	pr := &Principal{Groups: []string{"g"}, Scopes: []string{WriteScope}}
	may := func(op WriteOp) string {
		ok, why := r.Policy().MayWrite(pr, op, "s", "one")
		return fmt.Sprint(ok, " ", why)
	}
	steps := []struct {
		file, err      string // err: "<nil>" when the reload succeeds
		create, delete string // what MayWrite answers after it
	}{
		{"", "", "false the policy has no write rules", "false the policy has no write rules"},
		{writes("[create]"), "<nil>", "true rule policy.yaml:7", "false no write rule grants it"},
		{writes("[create, remove]"), `policy.yaml:9: ops: unknown operation "remove" (known: create, version, delete)`,
			"true rule policy.yaml:7", "false no write rule grants it"},
		{writes("[create, delete]"), "<nil>", "true rule policy.yaml:7", "true rule policy.yaml:7"},
		{policyFor("one"), "<nil>", "false the policy has no write rules", "false the policy has no write rules"},
	}
	for i, s := range steps {
		if s.file != "" {
			writeFile(t, file, s.file)
			if err := r.Reload(); errString(err) != s.err {
				t.Errorf("step %d: reload: %v; want %s", i, err, s.err)
			}
		}
		if got := []string{may(WriteCreate), may(WriteDelete)}; !slices.Equal(got, []string{s.create, s.delete}) {
			t.Errorf("step %d: %q; want %q, %q", i, got, s.create, s.delete)
		}
	}
	if !strings.Contains(logs.String(), "rules=1 writes=1\n") || !strings.Contains(logs.String(), `err="policy.yaml:9: ops: unknown operation`) {
		t.Errorf("log:\n%s", logs)
	}
}
