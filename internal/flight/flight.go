// Package flight shares one operation per key among the callers that need
// it at the same time: the store's backend reads, listings and catalog
// builds, the pages' Markdown renders, the artifacts' builds and the
// .well-known index builds.
package flight

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"
)

// Group shares one operation per key among the callers that need it at
// the same time. Each caller stops waiting when its own context ends, so
// an operation that hangs (a stuck network mount, a driver that ignores
// contexts) holds one goroutine per key, never a caller; the operation's
// context ends when the last caller has stopped waiting, if the
// operation heeds contexts. The zero Group is ready to use: no bound on
// loads, no time limit, a load's panic carried to its callers.
//
// The exported fields are set before the first Do and not changed after.
type Group[K comparable, V any] struct {
	// Hand, if set, is told under the Group's lock, when a load succeeds,
	// how many callers get its value (none when every caller stopped
	// waiting): a reference the load holds can be passed on to them.
	// Each caller counted gets the value, even one whose context ends
	// as the load finishes.
	Hand func(v V, n int)
	// Recover, if set, turns a load's panic, once, into the error its
	// callers get (it may log the panic); otherwise each caller panics
	// with the *Panic.
	Recover func(*Panic) error
	// Timeout, if positive, is the longest a load may run: its context
	// ends then.
	Timeout time.Duration
	// Turns, if set, bounds the loads running at once: a load takes a
	// turn before it starts, and is dropped when every caller that
	// wanted it has stopped waiting for its turn. Queued bounds the loads
	// waiting for a turn: beyond it Do fails at once with Busy.
	Turns  chan struct{}
	Queued int
	Busy   error

	mu     sync.Mutex
	m      map[K]*flight[V]
	queued int // loads waiting for a turn
}

type flight[V any] struct {
	done     chan struct{}
	val      V
	err      error
	panicked *Panic // the load panicked: each waiter panics with it
	waiters  int
	started  bool // under mu: it holds a turn (or needs none)
	finished bool // under mu: val, err and panicked are set
	cancel   context.CancelFunc
}

// Panic carries a load's panic to the callers waiting for it, as
// singleflight does, so an operation that panics (a backend's read) fails
// the requests that used it and not the process.
type Panic struct {
	value any
	stack []byte
}

// NewPanic is the panic of value, recovered where stack was taken
// (debug.Stack()). A value that is a *Panic already (carried from
// another Group) is returned as it is, with the stack where it happened.
func NewPanic(value any, stack []byte) *Panic {
	if p, ok := value.(*Panic); ok {
		return p
	}
	return &Panic{value: value, stack: stack}
}

// Error says what failed and nothing more: the panic's value and stack may
// name host paths. Value and Stack return them, for logs.
func (p *Panic) Error() string { return "panic in work shared by several requests" }

// Value is what the load panicked with.
func (p *Panic) Value() any { return p.value }

// Stack is the panic's value and the stack where it happened.
func (p *Panic) Stack() []byte { return []byte(fmt.Sprintf("%v\n\n%s", p.value, p.stack)) }

// Do returns the result of load for key, started now or shared with a
// load already running or waiting for its turn. The load runs on its own
// goroutine with a context that keeps ctx's values but ends only when no
// caller waits — if cancellable says the load heeds it; otherwise the
// load stays shared until it returns, so callers who come and go do not
// start one read each. A load that has not had its turn yet is dropped
// when no caller waits, cancellable or not.
func (g *Group[K, V]) Do(ctx context.Context, key K, cancellable bool, load func(context.Context) (V, error)) (V, error) {
	var zero V
	g.mu.Lock()
	f, ok := g.m[key]
	if !ok {
		if g.Turns != nil && len(g.Turns) == cap(g.Turns) && g.queued >= g.Queued {
			g.mu.Unlock()
			return zero, g.Busy
		}
		if g.m == nil {
			g.m = make(map[K]*flight[V])
		}
		lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &flight[V]{done: make(chan struct{}), cancel: cancel, started: g.Turns == nil}
		g.m[key] = f
		if g.Turns != nil {
			g.queued++
		}
		go g.run(lctx, key, f, load)
	}
	f.waiters++
	g.mu.Unlock()
	select {
	case <-f.done:
	case <-ctx.Done():
		g.mu.Lock()
		if !f.finished {
			if f.waiters--; f.waiters == 0 && (cancellable || !f.started) {
				f.cancel() // a load waiting for its turn sees it, and is dropped
				if g.m[key] == f {
					delete(g.m, key) // the next caller starts afresh
				}
			}
			g.mu.Unlock()
			return zero, ctx.Err()
		}
		g.mu.Unlock() // it finished meanwhile, and counted this caller
	}
	if f.panicked != nil {
		panic(f.panicked)
	}
	return f.val, f.err
}

// run waits for f's turn, runs load and hands its result to f's waiters.
func (g *Group[K, V]) run(lctx context.Context, key K, f *flight[V], load func(context.Context) (V, error)) {
	defer f.cancel()
	if !g.take(lctx, f) {
		return // dropped: no waiter is left to tell
	}
	if g.Turns != nil {
		defer func() { <-g.Turns }()
	}
	if g.Timeout > 0 {
		var cancel context.CancelFunc
		lctx, cancel = context.WithTimeout(lctx, g.Timeout)
		defer cancel()
	}
	var (
		val      V
		err      error
		panicked *Panic
	)
	func() {
		defer func() {
			if v := recover(); v != nil {
				panicked = NewPanic(v, debug.Stack())
			}
		}()
		val, err = load(lctx)
	}()
	if panicked != nil && g.Recover != nil {
		err, panicked = g.Recover(panicked), nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m[key] == f {
		delete(g.m, key)
	}
	f.val, f.err, f.panicked, f.finished = val, err, panicked, true
	if err == nil && panicked == nil && g.Hand != nil {
		g.Hand(val, f.waiters)
	}
	close(f.done)
}

// take waits for f's turn, unless every caller stops waiting first
// (lctx ends); it reports whether f may start.
func (g *Group[K, V]) take(lctx context.Context, f *flight[V]) bool {
	if g.Turns == nil {
		return true // started when it was made: there is no turn to wait for
	}
	select {
	case g.Turns <- struct{}{}:
	case <-lctx.Done():
		g.mu.Lock()
		g.queued--
		g.mu.Unlock()
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.queued--
	if lctx.Err() != nil { // the last waiter left as the turn came
		<-g.Turns
		return false
	}
	f.started = true
	return true
}

// Running reports whether a load is running or waiting for its turn.
func (g *Group[K, V]) Running() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.m) > 0
}

// Waiters is how many callers wait for key's load.
func (g *Group[K, V]) Waiters(key K) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if f := g.m[key]; f != nil {
		return f.waiters
	}
	return 0
}
