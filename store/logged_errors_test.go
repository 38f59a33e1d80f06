package store_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/tools"
)

// failingFiles is a filesystem whose named files fail to open with the given
// errors, as a backend's would. It offers Open alone, so the store reaches
// every file through it (fs.Sub included).
type failingFiles struct {
	fsys fs.FS
	fail map[string]error
}

func (f failingFiles) Open(name string) (fs.File, error) {
	if err, ok := f.fail[name]; ok {
		return nil, err
	}
	return f.fsys.Open(name)
}

// logLines is a text logger, as the command line uses, without times.
func logLines() (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	h := slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey && len(groups) == 0 {
			return slog.Attr{}
		}
		return a
	}})
	return slog.New(h), &buf
}

// TestNameTooLong: a file name the disk refuses as too long
// (ENAMETOOLONG) is a file that is not there, as on a backend without
// such a limit: the caller is told it is not found, and nothing is logged,
// since any caller can ask for such names as often as it likes.
func TestNameTooLong(t *testing.T) {
	long := "examples/" + strings.Repeat("n", 300)
	src := failingFiles{fsys: fstest.MapFS{"calc/SKILL.md": {Data: []byte(shownDoc)}}, fail: map[string]error{
		"calc/" + long: &fs.PathError{Op: "openat", Path: "calc/" + long, Err: syscall.ENAMETOOLONG},
	}}
	log, logs := logLines()
	s, err := store.New([]store.Source{{Label: "project", Location: "./skills", FS: src}}, store.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.ReadFile(context.Background(), "calc", long)
	if !errors.Is(err, store.ErrFileNotFound) {
		t.Fatalf("err = %v; want %v", err, store.ErrFileNotFound)
	}
	want := "File '" + long[:200] + "…' not found in skill 'calc'"
	if msg, _ := tools.Describe(err); msg != want {
		t.Errorf("message\n got %q\nwant %q", msg, want)
	}
	if logs.Len() != 0 {
		t.Errorf("logged:\n%s", logs)
	}
}
