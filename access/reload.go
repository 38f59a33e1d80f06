package access

import (
	"crypto/sha256"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// ReloadOptions tune a Reloader. The zero value means the defaults.
type ReloadOptions struct {
	// Interval is how often the file is read again whatever the file
	// system reports (a fallback for systems without change events,
	// network mounts, and Kubernetes ConfigMap symlink swaps). Default
	// 10s; negative disables it.
	Interval time.Duration
	// Logger receives a line per reload and per failed reload (once per
	// distinct failure). Default: slog.Default(). Lines name the file by
	// its base name only.
	Logger *slog.Logger
	// OnReload, if set, is called after a new policy was put in place,
	// from the goroutine that reloaded; it must not call Reload.
	OnReload func(*Policy)
	// OnError, if set, is called when a changed file cannot be used (the
	// previous policy stays), once per distinct failure; it must not call
	// Reload.
	OnError func(error)

	noNotify bool // tests: rely on the interval alone
}

// reloadDebounce gathers a burst of file events (an editor's save) into
// one reading.
const reloadDebounce = 100 * time.Millisecond

// Reloader holds the current policy of a file and reloads it when the
// file changes: on file system events in the file's directory (which also
// catch editors that write a new file and rename it over the old one) and
// every Interval. A file that fails to load keeps the previous policy in
// place; the failure is logged and passed to OnError. Readers never lock:
// Policy is one atomic load. A reload only swaps the pointer, so requests
// in flight finish with the Filter they hold.
type Reloader struct {
	file string // as given, to open; never shown
	name string // base name, for messages
	opts ReloadOptions

	cur atomic.Pointer[Policy]

	mu       sync.Mutex // serializes Reload
	sum      [32]byte   // content of the current policy
	failed   string     // the last failure reported, to report each once
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

// NewReloader loads the policy file and starts watching it. It fails,
// watching nothing, when the file cannot be read or parsed: a server must
// not start with a policy it cannot read. Close stops the watching.
func NewReloader(file string, opts ReloadOptions) (*Reloader, error) {
	if opts.Interval == 0 {
		opts.Interval = 10 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	r := &Reloader{file: file, name: filepath.Base(file), opts: opts,
		stop: make(chan struct{}), done: make(chan struct{})}
	data, err := readPolicy(file)
	if err != nil {
		return nil, err
	}
	p, err := Parse(r.name, data)
	if err != nil {
		return nil, err
	}
	r.cur.Store(p)
	r.sum = sha256.Sum256(data)
	var w *fsnotify.Watcher
	if !opts.noNotify {
		w = r.watch()
	}
	go r.loop(w)
	return r, nil
}

// watch subscribes to the file's directory, or returns nil (the interval
// then does the work).
func (r *Reloader) watch() *fsnotify.Watcher {
	dir := filepath.Dir(r.file)
	w, err := fsnotify.NewWatcher()
	if err == nil {
		if err = w.Add(dir); err != nil {
			w.Close()
		}
	}
	if err != nil {
		// The message must not carry the directory's path.
		msg := strings.ReplaceAll(err.Error(), dir, "(directory)")
		r.opts.Logger.Warn("not watching the access policy for changes; re-reading it periodically",
			"file", r.name, "interval", r.opts.Interval, "err", msg)
		return nil
	}
	return w
}

// Policy returns the current policy. It never returns nil and never
// blocks.
func (r *Reloader) Policy() *Policy { return r.cur.Load() }

// For is Policy().For(p).
func (r *Reloader) For(p *Principal) Filter { return r.cur.Load().For(p) }

// Reload reads the file now (on SIGHUP, say) and puts its policy in
// place if it changed. It returns the reason a changed file cannot be
// used; the previous policy then stays. It is safe to call concurrently
// with everything.
func (r *Reloader) Reload() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	data, err := readPolicy(r.file)
	var sum [32]byte
	if err == nil {
		sum = sha256.Sum256(data)
		if sum == r.sum {
			r.failed = ""
			return nil
		}
		var p *Policy
		if p, err = Parse(r.name, data); err == nil {
			r.cur.Store(p)
			r.sum, r.failed = sum, ""
			r.opts.Logger.Info("access policy reloaded", "file", r.name, "rules", len(p.rules))
			if r.opts.OnReload != nil {
				r.opts.OnReload(p)
			}
			return nil
		}
	}
	if msg := err.Error(); msg != r.failed {
		r.failed = msg
		r.opts.Logger.Error("access policy not reloaded; keeping the previous one", "file", r.name, "err", err)
		if r.opts.OnError != nil {
			r.opts.OnError(err)
		}
	}
	return err
}

// loop reloads on events (debounced) and on the interval until Close.
func (r *Reloader) loop(w *fsnotify.Watcher) {
	defer close(r.done)
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w != nil {
		defer w.Close()
		events, errs = w.Events, w.Errors
	}
	var tick <-chan time.Time
	if r.opts.Interval > 0 {
		t := time.NewTicker(r.opts.Interval)
		defer t.Stop()
		tick = t.C
	}
	var pending <-chan time.Time
	for {
		event := false // a file event or a watcher error came: reload after reloadDebounce
		select {
		case <-r.stop:
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
			_ = r.Reload()
		case <-tick:
			_ = r.Reload()
		}
		if event && pending == nil {
			pending = time.After(reloadDebounce)
		}
	}
}

// Close stops watching the file; Policy keeps answering with the last
// policy loaded.
func (r *Reloader) Close() error {
	r.stopOnce.Do(func() { close(r.stop) })
	<-r.done
	return nil
}
