// Package flight shares one operation per key among the callers that need
// it at the same time: the store's backend reads, listings and catalog
// builds, and the pages' Markdown renders.
package flight

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
)

// Group shares one operation per key among the callers that need it at
// the same time. Each caller stops waiting when its own context ends, so
// an operation that hangs (a stuck network mount, a driver that ignores
// contexts) holds one goroutine per key, never a caller; the operation's
// context ends when the last caller has stopped waiting, if the
// operation heeds contexts. The zero Group is ready to use.
type Group[V any] struct {
	mu sync.Mutex
	m  map[string]*flight[V]
}

type flight[V any] struct {
	done     chan struct{}
	val      V
	err      error
	panicked *Panic // the load panicked: each waiter panics with it
	waiters  int
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
// (debug.Stack()).
func NewPanic(value any, stack []byte) *Panic { return &Panic{value: value, stack: stack} }

// Error says what failed and nothing more: the panic's value and stack may
// name host paths. Stack returns the stack, for logs.
func (p *Panic) Error() string { return "panic in work shared by several requests" }

func (p *Panic) Stack() []byte { return []byte(fmt.Sprintf("%v\n\n%s", p.value, p.stack)) }

// Do returns the result of load for key, started now or shared with a
// load already running. The load runs on its own goroutine with a context
// that keeps ctx's values but ends only when no caller waits — if
// cancellable says the load heeds it; otherwise the load stays shared until
// it returns, so callers who come and go do not start one read each.
func (g *Group[V]) Do(ctx context.Context, key string, cancellable bool, load func(context.Context) (V, error)) (V, error) {
	g.mu.Lock()
	f, ok := g.m[key]
	if !ok {
		if g.m == nil {
			g.m = make(map[string]*flight[V])
		}
		lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &flight[V]{done: make(chan struct{}), cancel: cancel}
		g.m[key] = f
		go func() {
			defer func() {
				if v := recover(); v != nil {
					f.panicked = NewPanic(v, debug.Stack())
				}
				g.mu.Lock()
				if g.m[key] == f {
					delete(g.m, key)
				}
				g.mu.Unlock()
				cancel()
				close(f.done)
			}()
			f.val, f.err = load(lctx)
		}()
	}
	f.waiters++
	g.mu.Unlock()
	select {
	case <-f.done:
		if f.panicked != nil {
			panic(f.panicked)
		}
		return f.val, f.err
	case <-ctx.Done():
		g.mu.Lock()
		if f.waiters--; f.waiters == 0 && cancellable {
			f.cancel()
			if g.m[key] == f {
				delete(g.m, key) // the next caller starts afresh
			}
		}
		g.mu.Unlock()
		var zero V
		return zero, ctx.Err()
	}
}
