package reload

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/crypto/ssh"

	"github.com/skillstore/skillstore/internal/sshsig"
	"github.com/skillstore/skillstore/internal/testutil"
)

// format is a kind of file the tests watch: its versions 1 to 3, a
// broken one and the error that names it, and which version a value is.
type format[T any] struct {
	file      string // base name
	parse     func([]byte) (T, error)
	version   func(i int) []byte
	broken    []byte
	brokenErr string
	which     func(T) int // the version v is; 0 when none
}

// words is the value of a file of words, one a line.
type words []string

// LogValue puts the number of words on the "reloaded" line.
func (w words) LogValue() slog.Value { return slog.GroupValue(slog.Int("words", len(w))) }

var isWord = regexp.MustCompile(`^[a-z]+$`)

// parseWords reads words.txt, naming it in errors as parse funcs should.
func parseWords(data []byte) (words, error) {
	var w words
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if !isWord.MatchString(line) {
			return nil, fmt.Errorf("words.txt:%d: %q is not a word", i+1, line)
		}
		w = append(w, line)
	}
	return w, nil
}

var wordsFormat = format[words]{
	file:      "words.txt",
	parse:     parseWords,
	version:   func(i int) []byte { return []byte(strings.Repeat("word\n", i)) },
	broken:    []byte("word\nWord\n"),
	brokenErr: `words.txt:2: "Word" is not a word`,
	which:     func(w words) int { return len(w) },
}

// signersFormat is an allowed-signers file (sshsig's format, which knows
// no file names: its parse func adds the base name), its version i
// listing i keys.
func signersFormat(t *testing.T) format[*sshsig.AllowedSigners] {
	var lines []string
	for _, who := range []string{"alice", "bob", "carol"} {
		pub, _, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		key, err := ssh.NewPublicKey(pub)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, who+"@example.com "+string(ssh.MarshalAuthorizedKey(key)))
	}
	version := func(i int) []byte { return []byte(strings.Join(lines[:i], "")) }
	return format[*sshsig.AllowedSigners]{
		file: "allowed_signers",
		parse: func(data []byte) (*sshsig.AllowedSigners, error) {
			a, err := sshsig.ParseAllowedSigners(data)
			if err != nil {
				return nil, fmt.Errorf("allowed_signers: %w", err)
			}
			return a, nil
		},
		version:   version,
		broken:    append(version(1), "dave@example.com\n"...),
		brokenErr: "allowed_signers: line 2: a principal is followed by no key; write: principals [options] keytype base64-key",
		which:     func(a *sshsig.AllowedSigners) int { return a.Len() },
	}
}

// A change is a way the file is changed: written in place, replaced by a
// rename, or swapped as Kubernetes swaps a ConfigMap's files.
type change struct {
	name  string
	opts  Options
	setup func(t *testing.T, dir, name string, data []byte) (file string)
	write func(t *testing.T, file string, data []byte)
}

var changes = []change{
	{"events, rename over", Options{Interval: -1}, plainFile, replaceFile},
	{"events, write in place", Options{Interval: -1}, plainFile, writeFile},
	{"events, ConfigMap link swap", Options{Interval: -1}, configMap, swapConfigMap},
	{"interval alone", Options{Interval: 20 * time.Millisecond, NoWatch: true}, plainFile, writeFile},
}

// TestChanges: under every way of changing the file, in every format, a
// new file is put in place, a broken one keeps the previous value and is
// reported once, and readers see one whole value at every moment.
func TestChanges(t *testing.T) {
	signers := signersFormat(t)
	for _, ch := range changes {
		t.Run(ch.name, func(t *testing.T) {
			t.Run("words", func(t *testing.T) { testChange(t, ch, wordsFormat) })
			t.Run("allowed signers", func(t *testing.T) { testChange(t, ch, signers) })
		})
	}
}

func testChange[T any](t *testing.T, ch change, fm format[T]) {
	dir := t.TempDir()
	file := ch.setup(t, dir, fm.file, fm.version(1))
	sink := new(testutil.SyncBuffer)
	var mu sync.Mutex
	var errs []string
	var reloads atomic.Int32
	opts := ch.opts
	opts.What = "test file"
	opts.Logger = slog.New(slog.NewTextHandler(sink, nil))
	opts.OnError = func(err error) { mu.Lock(); errs = append(errs, err.Error()); mu.Unlock() }
	opts.OnReload = func() { reloads.Add(1) }
	f, err := Watch(file, fm.parse, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stopReaders := startReaders(f, fm.which)
	current := func() int { return fm.which(f.Current()) }

	ch.write(t, file, fm.version(2))
	testutil.Eventually(t, "version 2", func() bool { return current() == 2 })

	ch.write(t, file, fm.broken)
	reported := func() (n int) { // how often the broken file was reported
		mu.Lock()
		defer mu.Unlock()
		for _, e := range errs {
			if e == fm.brokenErr {
				n++
			}
		}
		return n
	}
	testutil.Eventually(t, "the error", func() bool { return reported() > 0 })
	for range 3 { // read again: the same failure, not reported again
		if err := f.Reload(); err == nil || err.Error() != fm.brokenErr {
			t.Errorf("Reload of the broken file: %v", err)
		}
	}
	if n := reported(); n != 1 {
		t.Errorf("the broken file was reported %d times", n)
	}
	if v := current(); v != 2 {
		t.Errorf("after a broken file: version %d", v)
	}

	ch.write(t, file, fm.version(3))
	testutil.Eventually(t, "version 3", func() bool { return current() == 3 })
	if err := stopReaders(); err != nil {
		t.Error(err)
	}
	// The value is in place before OnReload is called: wait for the
	// reload under way to finish before counting.
	f.Close()
	if n := reloads.Load(); n < 2 {
		t.Errorf("OnReload called %d times", n)
	}
	out := sink.String()
	if !strings.Contains(out, `msg="test file reloaded" file=`+fm.file) ||
		!strings.Contains(out, `msg="test file not reloaded; keeping the previous one" file=`+fm.file) ||
		strings.Contains(out, dir) {
		t.Errorf("log:\n%s", out)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, e := range errs {
		if strings.Contains(e, dir) {
			t.Errorf("an error names the folder: %s", e)
		}
	}
}

// reloadLog is the log of TestReload.
const reloadLog = `level=INFO msg="test file reloaded" file=words.txt words=2
level=ERROR msg="test file not reloaded; keeping the previous one" file=words.txt err="words.txt:2: \"Word\" is not a word"
level=ERROR msg="test file not reloaded; keeping the previous one" file=words.txt err="words.txt:2: \"Word\" is not a word"
level=ERROR msg="test file not reloaded; keeping the previous one" file=words.txt err="words.txt:1: \"no!\" is not a word"
level=ERROR msg="test file not reloaded; keeping the previous one" file=words.txt err="words.txt: larger than 64 bytes"
level=ERROR msg="test file not reloaded; keeping the previous one" file=words.txt err="open words.txt: no such file or directory"
level=ERROR msg="test file not reloaded; keeping the previous one" file=words.txt err="read words.txt: is a directory"
level=ERROR msg="test file not reloaded; keeping the previous one" file=words.txt err="words.txt:2: \"Word\" is not a word"
level=INFO msg="test file reloaded" file=words.txt words=3
level=ERROR msg="test file not reloaded; keeping the previous one" file=words.txt err="words.txt:2: \"Word\" is not a word"
`

// TestReload reads the file on Reload alone, one step after another, and
// checks what each step returns, keeps and reports, and the log.
func TestReload(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "words.txt")
	writeFile(t, file, wordsFormat.version(1))
	logger, logs := testutil.TextLog()
	var f *File[words]
	var errs []string
	var reloaded []int // the version Current returned in OnReload
	f, err := Watch(file, parseWords, Options{What: "test file", Interval: -1, NoWatch: true, MaxBytes: 64, Logger: logger,
		OnReload: func() { reloaded = append(reloaded, len(f.Current())) },
		OnError:  func(err error) { errs = append(errs, err.Error()) }})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, step := range []struct {
		name     string
		change   func(t *testing.T, file string)
		err      string // Reload's error
		version  int    // Current's after Reload
		reloaded []int  // OnReload's calls so far
		reported int    // OnError's calls so far
	}{
		{"unchanged", nil, "", 1, nil, 0},
		{"changed", write(wordsFormat.version(2)), "", 2, []int{2}, 0},
		{"written again the same", write(wordsFormat.version(2)), "", 2, []int{2}, 0},
		{"broken", write(wordsFormat.broken), wordsFormat.brokenErr, 2, []int{2}, 1},
		{"broken, read again", nil, wordsFormat.brokenErr, 2, []int{2}, 1},
		{"put back as it was", write(wordsFormat.version(2)), "", 2, []int{2}, 1},
		{"broken again: reported again", write(wordsFormat.broken), wordsFormat.brokenErr, 2, []int{2}, 2},
		{"broken otherwise", write([]byte("no!\n")), `words.txt:1: "no!" is not a word`, 2, []int{2}, 3},
		{"too large", write([]byte(strings.Repeat("word\n", 13))), "words.txt: larger than 64 bytes", 2, []int{2}, 4},
		{"removed", remove, "open words.txt: no such file or directory", 2, []int{2}, 5},
		{"a folder", folder, "read words.txt: is a directory", 2, []int{2}, 6},
		{"broken once more", func(t *testing.T, file string) { remove(t, file); write(wordsFormat.broken)(t, file) }, wordsFormat.brokenErr, 2, []int{2}, 7},
		{"changed again", write(wordsFormat.version(3)), "", 3, []int{2, 3}, 7},
		{"broken after a reload: reported again", write(wordsFormat.broken), wordsFormat.brokenErr, 3, []int{2, 3}, 8},
	} {
		if step.change != nil {
			step.change(t, file)
		}
		err := f.Reload()
		if diff := cmp.Diff(step.err, errString(err)); diff != "" {
			t.Errorf("%s: error (-want +got):\n%s", step.name, diff)
		}
		if v := len(f.Current()); v != step.version {
			t.Errorf("%s: version %d; want %d", step.name, v, step.version)
		}
		if diff := cmp.Diff(step.reloaded, reloaded); diff != "" {
			t.Errorf("%s: OnReload (-want +got):\n%s", step.name, diff)
		}
		if len(errs) != step.reported {
			t.Errorf("%s: %d errors reported; want %d: %q", step.name, len(errs), step.reported, errs)
		}
	}
	if err := f.Close(); err != nil {
		t.Error(err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if v := len(f.Current()); v != 3 {
		t.Errorf("after Close: version %d", v)
	}
	if diff := cmp.Diff(reloadLog, logs.String()); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
}

// TestWatchRefuses: a file that cannot be used at start is refused with
// the reason, naming the file by its base name, in every format.
func TestWatchRefuses(t *testing.T) {
	signers := signersFormat(t)
	opts := Options{Interval: -1, NoWatch: true, MaxBytes: 64, Logger: slog.New(slog.DiscardHandler)}
	words := func(file string) error { _, err := Watch(file, parseWords, opts); return err }
	allowed := func(file string) error {
		opts := opts
		opts.MaxBytes = 0
		_, err := Watch(file, signers.parse, opts)
		return err
	}
	for _, tt := range []struct {
		name  string
		file  string
		data  []byte // nil: no file
		watch func(file string) error
		want  string
	}{
		{"missing", "words.txt", nil, words, "open words.txt: no such file or directory"},
		{"broken", "words.txt", wordsFormat.broken, words, wordsFormat.brokenErr},
		{"too large", "words.txt", []byte(strings.Repeat("word\n", 13)), words, "words.txt: larger than 64 bytes"},
		{"allowed signers, a bad line", "allowed_signers", signers.broken, allowed, signers.brokenErr},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), tt.file)
			if tt.data != nil {
				writeFile(t, file, tt.data)
			}
			if diff := cmp.Diff(tt.want, errString(tt.watch(file))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestWatchUnavailable: when the folder cannot be watched, the log line
// says so, and how the file will be read, without naming the folder.
func TestWatchUnavailable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gone")
	for _, tt := range []struct {
		interval time.Duration
		want     string
	}{
		{time.Second, `level=WARN msg="not watching the test file for changes; re-reading it periodically" file=words.txt interval=1s err="no such file or directory"` + "\n"},
		{-1, `level=WARN msg="not watching the test file for changes; re-reading it only when asked" file=words.txt err="no such file or directory"` + "\n"},
	} {
		logger, logs := testutil.TextLog()
		f := &File[words]{file: filepath.Join(dir, "words.txt"), name: "words.txt",
			opts: Options{What: "test file", Interval: tt.interval, Logger: logger}}
		if w := f.watch(); w != nil {
			w.Close()
			t.Fatal("watching a folder that does not exist")
		}
		if diff := cmp.Diff(tt.want, logs.String()); diff != "" {
			t.Errorf("log (-want +got):\n%s", diff)
		}
	}
}

// startReaders starts goroutines taking f's value until the returned
// function is called; it returns the first value that is none of the
// versions.
func startReaders[T any](f *File[T], which func(T) int) (stop func() error) {
	return testutil.Readers(4, func() error {
		if v := which(f.Current()); v < 1 || v > 3 {
			return fmt.Errorf("a reader saw version %d", v)
		}
		return nil
	})
}

func plainFile(t *testing.T, dir, name string, data []byte) string {
	file := filepath.Join(dir, name)
	writeFile(t, file, data)
	return file
}

func writeFile(t *testing.T, file string, data []byte) {
	t.Helper()
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// replaceFile writes data beside file and renames it over file, as
// editors and configuration tools do.
func replaceFile(t *testing.T, file string, data []byte) {
	t.Helper()
	tmp := file + ".tmp"
	writeFile(t, tmp, data)
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
}

// configMap lays the file out as Kubernetes mounts a ConfigMap: name is
// a link to ..data/name, ..data a link to a folder holding this version.
func configMap(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	file := filepath.Join(dir, name)
	if err := os.Symlink(filepath.Join("..data", name), file); err != nil {
		t.Fatal(err)
	}
	swapConfigMap(t, file, data)
	return file
}

// swapConfigMap writes data in a new folder beside file and points
// ..data at it with a rename, as the kubelet does.
func swapConfigMap(t *testing.T, file string, data []byte) {
	t.Helper()
	dir, name := filepath.Split(file)
	version, err := os.MkdirTemp(dir, "..version")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(version, name), data)
	link := filepath.Join(dir, "..data_tmp")
	if err := os.Symlink(filepath.Base(version), link); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(link, filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
}

// remove, write and folder change the file as TestReload's steps do.
func remove(t *testing.T, file string) {
	if err := os.RemoveAll(file); err != nil {
		t.Fatal(err)
	}
}

func write(data []byte) func(t *testing.T, file string) {
	return func(t *testing.T, file string) { writeFile(t, file, data) }
}

func folder(t *testing.T, file string) {
	if err := os.Mkdir(file, 0o700); err != nil {
		t.Fatal(err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestReloadMidWrite: a file caught while it is written in place (empty,
// or cut where it still parses: an allowed-signers file cut after its
// first key) is not put in place; the whole file is, once written. It
// runs on synctest's fake clock, so the debounce takes no real time.
func TestReloadMidWrite(t *testing.T) {
	signers := signersFormat(t)
	for _, partial := range []struct {
		name string
		data []byte
	}{{"empty", nil}, {"cut after a line", signers.version(1)}} {
		t.Run(partial.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				file := plainFile(t, t.TempDir(), signers.file, signers.version(2))
				var seen []int
				var mu sync.Mutex
				var f *File[*sshsig.AllowedSigners]
				f, err := Watch(file, signers.parse, Options{Interval: -1, NoWatch: true, Logger: slog.New(slog.DiscardHandler), OnReload: func() {
					mu.Lock()
					seen = append(seen, f.Current().Len())
					mu.Unlock()
				}})
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				writeFile(t, file, partial.data) // the writer is at work…
				done := make(chan error, 1)
				go func() { done <- f.Reload() }()
				synctest.Wait()                        // Reload has read the partial file and waits a debounce
				writeFile(t, file, signers.version(3)) // …and done
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				defer mu.Unlock()
				if diff := cmp.Diff([]int{3}, seen); diff != "" {
					t.Errorf("versions put in place (-want +got):\n%s", diff)
				}
			})
		})
	}
}
