package audit

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillstore/skillstore/internal/logtext"
)

// Options tune a Logger. The zero value means the defaults.
type Options struct {
	// QueueSize is how many events may wait to be written; more are
	// dropped and counted. Default 4096.
	QueueSize int
	// Logger receives write failures (the first of a spell at once, then
	// at most one per ErrorInterval, with the count of failed writes) and
	// the recovery. Default: slog.Default(). Messages name the audit file
	// by its base name only.
	Logger *slog.Logger
	// ErrorInterval is the least time between two reports of a write
	// failure. Default one minute.
	ErrorInterval time.Duration
	// OnError, if set, is called with each reported write failure (as
	// rate-limited as the log), from the writing goroutine; it must not
	// block for long.
	OnError func(error)
}

// Stats counts a Logger's events.
type Stats struct {
	Logged      uint64 // events written
	Dropped     uint64 // events not queued: the queue was full, or the Logger closed
	Failed      uint64 // events lost to write errors
	WriteErrors uint64 // failed writes (one may carry many events)
	Queued      int    // events waiting now
}

// Logger writes audit events as JSON lines, one goroutine draining a
// bounded queue; see the package documentation. Log is safe for
// concurrent use and never blocks. When the queue has been full, or
// writes have failed, the first line written once the writer catches up
// is a note: {"time":…,"dropped":N,"failed":M}, counting the events lost
// since the last note (it has no "decision", which tells it apart).
type Logger struct {
	path string // the file to open and reopen; "" for a writer or stderr
	name string // its base name, for messages
	opts Options

	queue  chan Event
	reopen chan chan error
	quit   chan struct{}
	done   chan struct{}
	closed atomic.Bool
	once   sync.Once

	logged, dropped, failed, writeErrors atomic.Uint64
	unnoted                              atomic.Uint64 // drops not yet in a note

	// Owned by the writing goroutine.
	w           io.Writer
	f           *os.File    // w, when the Logger opened it
	fi          os.FileInfo // f's identity, to tell when path names another file
	torn        bool        // a failed write left part of a line
	failedNotes uint64      // write losses not yet in a note
	failing     bool        // in a spell of failed writes
	spell       uint64      // failed writes in this spell
	lastReport  time.Time
}

// Open returns a Logger appending to the file at path (created with mode
// 0600 if missing), or writing to standard error for "-". Errors name
// the file by its base name only.
func Open(path string, opts Options) (*Logger, error) {
	if path == "-" {
		return start(os.Stderr, nil, nil, "", "stderr", opts), nil
	}
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, logtext.WithPath(err, filepath.Base(path))
	}
	return start(f, f, fi, path, filepath.Base(path), opts), nil
}

// New returns a Logger writing to w, which it does not close. Reopen is a
// no-op for it.
func New(w io.Writer, opts Options) *Logger { return start(w, nil, nil, "", "audit log", opts) }

func openFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	return f, logtext.WithPath(err, filepath.Base(path))
}

func start(w io.Writer, f *os.File, fi os.FileInfo, path, name string, opts Options) *Logger {
	if opts.QueueSize <= 0 {
		opts.QueueSize = 4096
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ErrorInterval <= 0 {
		opts.ErrorInterval = time.Minute
	}
	l := &Logger{path: path, name: name, opts: opts, w: w, f: f, fi: fi,
		queue: make(chan Event, opts.QueueSize), reopen: make(chan chan error),
		quit: make(chan struct{}), done: make(chan struct{})}
	go l.run()
	return l
}

// Log queues e for writing and returns at once. It sets e.Time when zero,
// and cuts oversize fields (see MaxField). When the queue is full, or the
// Logger is closed, e is dropped and counted. Log keeps e.Groups until e
// is written: do not change the slice after the call.
func (l *Logger) Log(e Event) {
	if l.closed.Load() {
		l.drop()
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	select {
	case l.queue <- e:
	default:
		l.drop()
	}
}

func (l *Logger) drop() {
	l.dropped.Add(1)
	l.unnoted.Add(1)
}

// Stats returns the counts so far.
func (l *Logger) Stats() Stats {
	return Stats{Logged: l.logged.Load(), Dropped: l.dropped.Load(), Failed: l.failed.Load(),
		WriteErrors: l.writeErrors.Load(), Queued: len(l.queue)}
}

// Reopen closes the audit file and opens it again by its path, for log
// rotation (call it on SIGHUP after the file was moved). If the file
// cannot be opened, writing goes on to the old one and the error is
// returned. It waits for a write in progress. It does nothing for a
// Logger on standard error or a writer, or after Close.
func (l *Logger) Reopen() error {
	if l.path == "" {
		return nil
	}
	reply := make(chan error, 1)
	select {
	case l.reopen <- reply:
		return <-reply
	case <-l.done:
		return nil
	}
}

// Close is Shutdown with a five-second deadline.
func (l *Logger) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return l.Shutdown(ctx)
}

// Shutdown stops accepting events, writes those queued (and a note of
// any losses) and closes the file it opened. If ctx ends first (a writer
// that hangs) it returns ctx's error; writing then goes on in the
// background until the writer returns. Events logged while Shutdown
// starts may be dropped without being counted.
func (l *Logger) Shutdown(ctx context.Context) error {
	l.once.Do(func() {
		l.closed.Store(true)
		close(l.quit)
	})
	select {
	case <-l.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// maxBatch bounds the bytes one write carries.
const maxBatch = 64 << 10

// run is the writing goroutine.
func (l *Logger) run() {
	defer close(l.done)
	var buf []byte
	for {
		select {
		case e := <-l.queue:
			buf = l.batch(buf[:0], e)
		case reply := <-l.reopen:
			reply <- l.doReopen()
		case <-l.quit:
			for len(l.queue) > 0 { // this goroutine alone receives: no wait
				buf = l.batch(buf[:0], <-l.queue)
			}
			l.note()
			if l.f != nil {
				l.f.Close()
			}
			return
		}
		if cap(buf) > 4*maxBatch {
			buf = nil // do not keep a burst's buffer
		}
	}
}

// batch encodes e and whatever else waits, up to maxBatch bytes, writes
// them, and, once the queue is empty and writing works, a note of losses.
func (l *Logger) batch(buf []byte, e Event) []byte {
	n := uint64(0)
	for {
		omitted := e.bound()
		buf = appendEvent(buf, &e, omitted)
		n++
		if len(buf) >= maxBatch {
			break
		}
		var ok bool
		select {
		case e, ok = <-l.queue:
		default:
		}
		if !ok {
			break
		}
	}
	if l.write(buf) {
		l.logged.Add(n)
		if len(l.queue) == 0 {
			l.note()
		}
	} else {
		l.failed.Add(n)
		l.failedNotes += n
	}
	return buf
}

// note writes the count of events lost since the last note, if any.
func (l *Logger) note() {
	dropped := l.unnoted.Swap(0)
	if dropped == 0 && l.failedNotes == 0 {
		return
	}
	b := []byte(`{"time":"`)
	b = time.Now().UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","dropped":`...)
	b = strconv.AppendUint(b, dropped, 10)
	b = append(b, `,"failed":`...)
	b = strconv.AppendUint(b, l.failedNotes, 10)
	b = append(b, "}\n"...)
	if l.write(b) {
		l.failedNotes = 0
	} else {
		l.unnoted.Add(dropped) // told next time
	}
}

// write writes b, reporting a failure (rate-limited) or the end of a
// spell of them.
func (l *Logger) write(b []byte) bool {
	l.follow()
	if l.torn {
		// End the partial line a failed write left, so the next is whole.
		if _, err := l.w.Write([]byte{'\n'}); err != nil {
			l.failure(err)
			return false
		}
		l.torn = false
	}
	n, err := l.w.Write(b)
	if err != nil {
		l.torn = n > 0
		l.failure(err)
		return false
	}
	if l.failing {
		l.failing = false
		l.opts.Logger.Info("the audit log is written again", "file", l.name, "failed writes", l.spell)
	}
	return true
}

// failure counts a failed write and reports it: the first of a spell at
// once, then at most once per ErrorInterval.
func (l *Logger) failure(err error) {
	l.writeErrors.Add(1)
	if !l.failing {
		l.failing, l.spell = true, 0
		l.lastReport = time.Time{}
	}
	l.spell++
	now := time.Now()
	if now.Sub(l.lastReport) < l.opts.ErrorInterval {
		return
	}
	l.lastReport = now
	err = logtext.WithPath(err, l.name)
	l.opts.Logger.Error("cannot write the audit log; its events are lost until it can", "file", l.name, "err", err, "failed writes", l.spell)
	if l.opts.OnError != nil {
		l.opts.OnError(err)
	}
}

// follow opens the path again when it no longer names the file being
// written: the file was deleted, or moved away with no SIGHUP after it.
// Without it, events would go on to a file no one can read until the
// next Reopen. It costs one stat per write (a write carries a batch of
// events). When the path cannot be checked or opened (a folder gone, a
// permission), writing goes on to the open file.
func (l *Logger) follow() {
	if l.f == nil || l.fi == nil {
		return
	}
	cur, err := os.Stat(l.path)
	switch {
	case err == nil && os.SameFile(cur, l.fi):
		return
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return
	}
	if l.doReopen() == nil {
		l.opts.Logger.Warn("the audit file was deleted or moved; writing to a new one by its name", "file", l.name)
	}
}

// doReopen opens the path again and swaps it in.
func (l *Logger) doReopen() error {
	f, err := openFile(l.path)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return logtext.WithPath(err, l.name)
	}
	if l.f != nil {
		l.f.Close()
	}
	l.f, l.w, l.fi, l.torn = f, f, fi, false
	return nil
}
