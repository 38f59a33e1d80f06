package access

import (
	"log/slog"
	"path/filepath"
	"time"

	"github.com/skillstore/skillstore/internal/reload"
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
	// from the goroutine that reloaded (which may be the watching
	// goroutine before NewReloader has returned); it must not call Reload.
	OnReload func(*Policy)
	// OnError, if set, is called when a changed file cannot be used (the
	// previous policy stays), once per distinct failure; it must not call
	// Reload.
	OnError func(error)

	noNotify bool // tests: rely on the interval alone
}

// Reloader holds the current policy of a file and reloads it when the
// file changes: on file system events in the file's directory (which also
// catch editors that write a new file and rename it over the old one) and
// every Interval. A file that fails to load keeps the previous policy in
// place; the failure is logged and passed to OnError. Readers never lock:
// Policy is one atomic load. A reload only swaps the pointer, so requests
// in flight finish with the Filter they hold. The mechanism is
// internal/reload's; files over MaxPolicySize are refused.
type Reloader struct {
	f *reload.File[*Policy]
}

// NewReloader loads the policy file and starts watching it. It fails,
// watching nothing, when the file cannot be read or parsed: a server must
// not start with a policy it cannot read. Close stops the watching.
func NewReloader(file string, opts ReloadOptions) (*Reloader, error) {
	name := filepath.Base(file)
	// The policy parse made last: reload calls parse and OnReload one at a
	// time, OnReload right after the parse whose policy it put in place.
	var parsed *Policy
	parse := func(data []byte) (*Policy, error) {
		p, err := Parse(name, data)
		parsed = p
		return p, err
	}
	ro := reload.Options{What: "access policy", Interval: opts.Interval, MaxBytes: MaxPolicySize,
		Logger: opts.Logger, OnError: opts.OnError, NoWatch: opts.noNotify}
	if opts.OnReload != nil {
		ro.OnReload = func() { opts.OnReload(parsed) }
	}
	f, err := reload.Watch(file, parse, ro)
	if err != nil {
		return nil, err
	}
	return &Reloader{f: f}, nil
}

// LogValue gives a policy's size for log lines: rules=12 writes=2
// (writes=0: every write is refused).
func (p *Policy) LogValue() slog.Value {
	return slog.GroupValue(slog.Int("rules", len(p.rules)), slog.Int("writes", len(p.writes)))
}

// Policy returns the current policy. It never returns nil and never
// blocks.
func (r *Reloader) Policy() *Policy { return r.f.Current() }

// For is Policy().For(p).
func (r *Reloader) For(p *Principal) Filter { return r.f.Current().For(p) }

// Reload reads the file now (on SIGHUP, say) and puts its policy in
// place if it changed. It returns the reason a changed file cannot be
// used; the previous policy then stays. It is safe to call concurrently
// with everything.
func (r *Reloader) Reload() error { return r.f.Reload() }

// Close stops watching the file; Policy keeps answering with the last
// policy loaded.
func (r *Reloader) Close() error { return r.f.Close() }
