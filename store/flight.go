package store

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
)

// flights shares one backend operation per key among the callers that
// need it at the same time. Each caller stops waiting when its own context
// ends, so a backend that hangs (a stuck network mount, a driver that
// ignores contexts) holds one goroutine per key, never a caller; the
// operation's context ends when the last caller has stopped waiting, if
// the backend heeds contexts.
type flights[V any] struct {
	mu sync.Mutex
	m  map[string]*flight[V]
}

type flight[V any] struct {
	done     chan struct{}
	val      V
	err      error
	panicked *loadPanic // the load panicked: each waiter panics with it
	waiters  int
	cancel   context.CancelFunc
}

// loadPanic carries a load's panic to the callers waiting for it, as
// singleflight does, so a backend that panics fails the requests that
// used it and not the process.
type loadPanic struct {
	value any
	stack []byte
}

// Error says what failed and nothing more: the panic's value and stack may
// name host paths. Stack returns the stack, for logs.
func (p *loadPanic) Error() string { return "panic while reading from a skill source" }

func (p *loadPanic) Stack() []byte { return []byte(fmt.Sprintf("%v\n\n%s", p.value, p.stack)) }

// do returns the result of load for key, started now or shared with a
// load already running. The load runs on its own goroutine with a context
// that keeps ctx's values but ends only when no caller waits — if
// cancellable says the load heeds it; otherwise the load stays shared until
// it returns, so callers who come and go do not start one read each.
func (g *flights[V]) do(ctx context.Context, key string, cancellable bool, load func(context.Context) (V, error)) (V, error) {
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
					f.panicked = &loadPanic{value: v, stack: debug.Stack()}
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
