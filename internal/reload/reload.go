// Package reload keeps the value parsed from a file current while the
// file changes: an access policy, a list of trusted signers. Watch loads
// the file, refusing to start with one it cannot use, then reads it again
// on file system events in its folder and on an interval; a changed file
// that cannot be used leaves the previous value in place. A changed file
// is read until two reads a debounce (100 ms) apart agree, so a file
// caught while written in place is not taken half written. Readers take
// the current value with one atomic load.
package reload

import (
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/skillstore/skillstore/internal/logtext"
)

// DefaultMaxBytes is the size limit of a file when Options.MaxBytes is 0.
const DefaultMaxBytes = 1 << 20

// debounce gathers a burst of file events (an editor's save) into one
// reading.
const debounce = 100 * time.Millisecond

// Options tune Watch. The zero value means the defaults.
type Options struct {
	// What says what the file holds, for log lines ("access policy",
	// "trusted signers"): "access policy reloaded". Default "file".
	What string
	// Interval is how often the file is read again whatever the file
	// system reports (a fallback for systems without change events and
	// network mounts). Default 10s; negative disables it.
	Interval time.Duration
	// MaxBytes bounds the file: it is read through a limit and refused,
	// unparsed, past it. Default (0 or less) DefaultMaxBytes.
	MaxBytes int64
	// Logger receives a line per reload and per failed reload (once per
	// distinct failure). Default: slog.Default(). Lines name the file by
	// its base name only.
	Logger *slog.Logger
	// OnReload, if set, is called after a new value was put in place, from
	// the goroutine that reloaded (which may be the watching goroutine
	// before Watch has returned); it must not call Reload.
	OnReload func()
	// OnError, if set, is called when a changed file cannot be used (the
	// previous value stays), once per distinct failure; it must not call
	// Reload.
	OnError func(error)
	// NoWatch leaves the file system's events alone: the file is read
	// again every Interval and on Reload only. For tests that must rely
	// on the interval, and file systems whose events cannot be trusted.
	NoWatch bool
}

// File holds the value parsed from a file and keeps it current. Readers
// never lock: Current is one atomic load, and a reload only swaps the
// value, so a reader keeps the value it took for as long as it holds it.
type File[T any] struct {
	file  string // as given, to open; never shown
	name  string // base name, for messages
	parse func([]byte) (T, error)
	opts  Options

	cur atomic.Pointer[T]

	mu       sync.Mutex // serializes reading, parse and OnReload
	sum      [32]byte   // content of the current value
	failed   string     // the last failure reported, to report each once
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

// Watch reads file, parses it with parse and starts watching it: on file
// system events in the file's folder (which also catch editors that
// write a new file and rename it over the old one, and Kubernetes
// ConfigMaps that swap a symbolic link to a new folder) and every
// Interval. It fails, watching nothing, when the file cannot be read or
// parsed: a server must not start with a file it cannot use. Close stops
// the watching.
//
// parse is called one call at a time, with at most MaxBytes bytes, and
// on a reload only when the content changed. Its errors are
// returned and logged as they are, so they should name the file (by its
// base name, never its folder) if the reader is to know which one:
// "allowed_signers: line 3: …". Errors of reading name the file by its
// base name. If T implements slog.LogValuer with a group value, its
// attributes are added to the "reloaded" log line (rules=12).
func Watch[T any](file string, parse func(data []byte) (T, error), opts Options) (*File[T], error) {
	if opts.What == "" {
		opts.What = "file"
	}
	if opts.Interval == 0 {
		opts.Interval = 10 * time.Second
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	f := &File[T]{file: file, name: filepath.Base(file), parse: parse, opts: opts,
		stop: make(chan struct{}), done: make(chan struct{})}
	data, err := ReadFile(file, opts.MaxBytes)
	if err != nil {
		return nil, err
	}
	v, err := parse(data)
	if err != nil {
		return nil, err
	}
	f.cur.Store(&v)
	f.sum = sha256.Sum256(data)
	var w *fsnotify.Watcher
	if !opts.NoWatch {
		w = f.watch()
	}
	go f.loop(w)
	return f, nil
}

// ReadFile reads the file at name through a limit of maxBytes: a larger
// file is refused ("policy.yaml: larger than 1048576 bytes") without
// being read whole. Errors name the file by its base name only.
func ReadFile(name string, maxBytes int64) ([]byte, error) {
	base := filepath.Base(name)
	fd, err := os.Open(name)
	if err != nil {
		return nil, logtext.WithPath(err, base)
	}
	defer fd.Close()
	data, err := io.ReadAll(io.LimitReader(fd, maxBytes+1))
	if err != nil {
		return nil, logtext.WithPath(err, base)
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", base, maxBytes)
	}
	return data, nil
}

// watch subscribes to the file's folder, or returns nil (the interval
// then does the work).
func (f *File[T]) watch() *fsnotify.Watcher {
	dir := filepath.Dir(f.file)
	w, err := fsnotify.NewWatcher()
	if err == nil {
		if err = w.Add(dir); err != nil {
			w.Close()
		}
	}
	if err == nil {
		return w
	}
	// The message must not carry the folder's path.
	msg := strings.ReplaceAll(err.Error(), dir, "(directory)")
	if f.opts.Interval > 0 {
		f.opts.Logger.Warn("not watching the "+f.opts.What+" for changes; re-reading it periodically",
			"file", f.name, "interval", f.opts.Interval, "err", msg)
	} else {
		f.opts.Logger.Warn("not watching the "+f.opts.What+" for changes; re-reading it only when asked",
			"file", f.name, "err", msg)
	}
	return nil
}

// Current returns the value of the file as last loaded. It never blocks.
func (f *File[T]) Current() T { return *f.cur.Load() }

// Reload reads the file now (on SIGHUP, say) and puts its value in place
// if the content changed. It returns the reason a changed file cannot be
// used; the previous value then stays. It is safe to call concurrently
// with everything, but not from OnReload or OnError (they run under its
// lock).
func (f *File[T]) Reload() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	data, err := ReadFile(f.file, f.opts.MaxBytes)
	if err == nil {
		sum := sha256.Sum256(data)
		if sum == f.sum {
			f.failed = ""
			return nil
		}
		if data, sum, err = f.settled(data, sum); err != nil {
			return f.report(err)
		}
		if sum == f.sum {
			f.failed = ""
			return nil
		}
		var v T
		if v, err = f.parse(data); err == nil {
			f.cur.Store(&v)
			f.sum, f.failed = sum, ""
			f.opts.Logger.Info(f.opts.What+" reloaded", append([]any{"file", f.name}, attrs(v)...)...)
			if f.opts.OnReload != nil {
				f.opts.OnReload()
			}
			return nil
		}
	}
	return f.report(err)
}

// report logs and returns err, a reason the file cannot be used, once
// per distinct failure (f.mu held).
func (f *File[T]) report(err error) error {
	if msg := err.Error(); msg != f.failed {
		f.failed = msg
		f.opts.Logger.Error(f.opts.What+" not reloaded; keeping the previous one", "file", f.name, "err", logtext.Of(err))
		if f.opts.OnError != nil {
			f.opts.OnError(err)
		}
	}
	return err
}

// settleReads bounds the reads settled makes.
const settleReads = 5

// settled returns the file's content once two reads a debounce apart
// agree, starting from data (whose SHA-256 is sum), read last: a file
// written in place is empty, or cut short, while its writer is at work,
// and a cut can fall where the content still parses (an allowed-signers
// file cut after its comments lists no key, which revokes every key).
// A file still changing after settleReads reads is returned as last
// read. An empty file must read empty settleReads times: it is what a
// writer leaves between truncating the file and writing it, for as long
// as a loaded machine keeps it from running, so two empty reads a
// debounce apart do not show that the writer is done.
func (f *File[T]) settled(data []byte, sum [32]byte) ([]byte, [32]byte, error) {
	agreed := 0
	for range settleReads {
		time.Sleep(debounce)
		again, err := ReadFile(f.file, f.opts.MaxBytes)
		if err != nil {
			return nil, sum, err
		}
		next := sha256.Sum256(again)
		if next != sum {
			data, sum, agreed = again, next, 0
			continue
		}
		if agreed++; len(data) > 0 || agreed == settleReads-1 {
			break
		}
	}
	return data, sum, nil
}

// attrs are the attributes v gives of itself as a slog.LogValuer with a
// group value, if it is one.
func attrs(v any) []any {
	lv, ok := v.(slog.LogValuer)
	if !ok {
		return nil
	}
	val := lv.LogValue().Resolve()
	if val.Kind() != slog.KindGroup {
		return nil
	}
	var out []any
	for _, a := range val.Group() {
		out = append(out, a)
	}
	return out
}

// loop reloads on events (debounced) and on the interval until Close.
func (f *File[T]) loop(w *fsnotify.Watcher) {
	defer close(f.done)
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w != nil {
		defer w.Close()
		events, errs = w.Events, w.Errors
	}
	var tick <-chan time.Time
	if f.opts.Interval > 0 {
		t := time.NewTicker(f.opts.Interval)
		defer t.Stop()
		tick = t.C
	}
	var pending <-chan time.Time
	for {
		event := false // a file event or a watcher error came: reload after debounce
		select {
		case <-f.stop:
			return
		case _, event = <-events:
			if !event {
				events = nil
			}
		case _, event = <-errs: // an overflow may have hidden a change: look
			if !event {
				errs = nil
			}
		case <-pending:
			pending = nil
			_ = f.Reload()
		case <-tick:
			_ = f.Reload()
		}
		if event && pending == nil {
			pending = time.After(debounce)
		}
	}
}

// Close stops watching the file; Current keeps answering with the last
// value loaded. It waits for a reload under way to finish, and may be
// called more than once.
func (f *File[T]) Close() error {
	f.stopOnce.Do(func() { close(f.stop) })
	<-f.done
	return nil
}
