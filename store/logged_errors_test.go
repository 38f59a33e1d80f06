package store_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/skillstore/skillstore/internal/storetest"
	"github.com/skillstore/skillstore/internal/testutil"
	"github.com/skillstore/skillstore/store"
)

// stackError formats as a dependency's error does that keeps its caller's
// frame (gocloud.dev's, golang.org/x/xerrors'): its message with %v, and
// with %+v the frame too, which names a file on the machine that built
// the program.
type stackError struct{ msg string }

// stackFrame is what stackError adds under %+v.
const stackFrame = "\n    example.com/dep.(*Client).Get\n        /root/go/pkg/mod/example.com/dep@v1.0.0/client.go:42"

func (e stackError) Error() string { return e.msg }

func (e stackError) Format(s fmt.State, verb rune) {
	io.WriteString(s, e.msg)
	if verb == 'v' && s.Flag('+') {
		io.WriteString(s, stackFrame)
	}
}

// TestLoggedErrors: the store's log lines carry a backend's error by its
// message, never as formatted with %+v, which for some dependencies'
// errors adds stack frames that name files on the build machine.
func TestLoggedErrors(t *testing.T) {
	reset := stackError{"GET calc/notes.md: connection reset by peer"}
	src := storetest.FailingFiles{FS: fstest.MapFS{"calc/SKILL.md": {Data: []byte(storetest.ShownDoc)}}, Fail: map[string]error{"calc/notes.md": reset}}
	if got := fmt.Sprintf("%+v", reset); !strings.Contains(got, "/go/pkg/mod/") {
		t.Fatalf("the error's %%+v form names no module path, so the test checks nothing: %q", got)
	}
	log, logs := testutil.TextLog()
	s, err := store.New([]store.Source{{Label: "project", Location: "./skills", FS: src}}, store.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.View(nil).ReadFile(context.Background(), "calc", "notes.md", nil); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("err = %v; want %v", err, store.ErrUnavailable)
	}
	want := `level=WARN msg="backend read failed" skill=calc path=notes.md err="GET calc/notes.md: connection reset by peer"` + "\n"
	if logs.String() != want {
		t.Errorf("log\n got %q\nwant %q", logs, want)
	}
}

// refresher is a source that keeps a snapshot of its listing (a
// store.Refresher) whose refresh fails with err: it lists what fsys
// holds, its last good snapshot.
type refresher struct {
	fs.FS
	err error
}

func (r refresher) Refresh(context.Context) error { return r.err }

// TestSourceFailureLogged: the line logged when a source starts failing
// says what failed and what is served from the source meanwhile: its last
// good listing only when it can still be listed (a refresh failed, the
// source kept its snapshot), nothing when it cannot be listed, at its
// first load or later.
func TestSourceFailureLogged(t *testing.T) {
	denied := &fs.PathError{Op: "open", Path: ".", Err: fs.ErrPermission}
	unlisted := storetest.FailingFiles{FS: fstest.MapFS{}, Fail: map[string]error{".": denied}}
	calc := fstest.MapFS{"calc/SKILL.md": {Data: []byte(storetest.ShownDoc)}}
	const refreshFailed = "GET .skillstore/current.json: connection reset by peer"
	line := func(msg, err string) string {
		return `level=WARN msg="` + msg + `" source=project location=./skills err="` + err + `"` + "\n"
	}
	for _, tc := range []struct {
		name string
		fsys fs.FS
		// calls: "catalog" (s.Catalog) or "refresh" (s.Refresh), in order
		calls []string
		want  string
	}{
		{"a source that cannot be listed, at its first load", unlisted, []string{"catalog"},
			line("listing the skill source failed; serving nothing from it until it answers", denied.Error())},
		{"a refresher that cannot be listed, at its first load", refresher{unlisted, nil}, []string{"catalog"},
			line("listing the skill source failed; serving nothing from it until it answers", denied.Error())},
		{"a refresher whose first refresh fails and that cannot be listed", refresher{unlisted, errors.New(refreshFailed)}, []string{"refresh"},
			line("refreshing the skill source failed; serving nothing from it until it answers", refreshFailed)},
		{"a refresher whose first refresh fails and that keeps a snapshot", refresher{calc, errors.New(refreshFailed)}, []string{"refresh"},
			line("refreshing the skill source failed; serving its last good listing and cached files until it answers", refreshFailed)},
		{"a refresher whose refresh fails after it was listed", refresher{calc, errors.New(refreshFailed)}, []string{"catalog", "refresh", "refresh"},
			line("refreshing the skill source failed; serving its last good listing and cached files until it answers", refreshFailed)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log, logs := testutil.TextLog()
			s, err := store.New([]store.Source{{Label: "project", Location: "./skills", FS: tc.fsys}}, store.Options{Logger: log})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			for _, call := range tc.calls {
				if call == "catalog" {
					s.View(nil).Catalog(ctx)
				} else {
					s.Refresh(ctx)
				}
			}
			if diff := cmp.Diff(tc.want, logs.String()); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
	}
}
