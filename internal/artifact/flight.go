package artifact

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
)

// Flight shares one build per key among the callers that want it at the
// same time. Unlike internal/flight's Group, a build does not end with
// its callers once it has started: it runs detached from them (keeping
// their context's values), bounded by BuildLimit, and keeps what it built
// itself, so a build that outlasts one request serves the next. A caller
// stops waiting when its own context ends. The zero Flight is ready to
// use, with no bound on builds.
type Flight[K comparable, V any] struct {
	// Hand, if set, passes the builder's reference to a value on to the n
	// callers it is returned to, under the Flight's lock.
	Hand func(v V, n int)
	// LogPanic, if set, is told of a build's panic (the build fails with
	// errBuildPanicked).
	LogPanic func(any)
	// Slots, if set, bounds the builds running at once: a build takes a
	// slot before it starts, and gives up waiting for one when every
	// caller that wanted it has stopped waiting. Queued bounds the builds
	// waiting for a slot: beyond it Do fails with ErrBusy at once.
	Slots  chan struct{}
	Queued int

	mu      sync.Mutex
	m       map[K]*buildCall[V]
	waiting int // builds waiting for a slot
}

type buildCall[V any] struct {
	done     chan struct{}
	val      V
	err      error
	waiters  int
	started  bool          // under mu: it holds a slot (or needs none)
	gone     chan struct{} // closed when the last waiter left before it started
	finished bool          // under mu: val and err are set and handed to the waiters
}

// errBuildPanicked: a build panicked; the server logged it.
var errBuildPanicked = errors.New("building it failed; the server logged the details")

// Do returns the value build makes for key, started now or shared with a
// build already running or waiting for its turn.
func (g *Flight[K, V]) Do(ctx context.Context, key K, build func(context.Context) (V, error)) (V, error) {
	var zero V
	g.mu.Lock()
	c, ok := g.m[key]
	if !ok {
		if g.Slots != nil && len(g.Slots) == cap(g.Slots) && g.waiting >= g.Queued {
			g.mu.Unlock()
			return zero, ErrBusy
		}
		if g.m == nil {
			g.m = make(map[K]*buildCall[V])
		}
		c = &buildCall[V]{done: make(chan struct{}), gone: make(chan struct{}), started: g.Slots == nil}
		g.m[key] = c
		if g.Slots != nil {
			g.waiting++
		}
		go g.run(ctx, key, c, build)
	}
	c.waiters++
	g.mu.Unlock()
	select {
	case <-c.done:
		return c.val, c.err
	case <-ctx.Done():
		g.mu.Lock()
		defer g.mu.Unlock()
		if c.finished { // it finished meanwhile, and counted this caller
			return c.val, c.err
		}
		if c.waiters--; c.waiters == 0 && !c.started {
			close(c.gone) // nobody wants it any more: it will not start
			if g.m[key] == c {
				delete(g.m, key)
			}
		}
		return zero, ctx.Err()
	}
}

// take waits for a slot for c, unless nobody wants c any more.
func (g *Flight[K, V]) take(c *buildCall[V]) bool {
	if g.Slots == nil {
		return true // started when it was made: there is no turn to wait for
	}
	select {
	case g.Slots <- struct{}{}:
	case <-c.gone:
		g.mu.Lock()
		g.waiting--
		g.mu.Unlock()
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.waiting--
	select {
	case <-c.gone: // the last waiter left as the slot came
		<-g.Slots
		return false
	default:
	}
	c.started = true
	return true
}

func (g *Flight[K, V]) run(ctx context.Context, key K, c *buildCall[V], build func(context.Context) (V, error)) {
	if !g.take(c) {
		return // no waiter is left to tell
	}
	if g.Slots != nil {
		defer func() { <-g.Slots }()
	}
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), BuildLimit)
	defer cancel()
	val, err := func() (val V, err error) {
		defer func() {
			if v := recover(); v != nil {
				if g.LogPanic != nil {
					g.LogPanic(v)
				}
				err = errBuildPanicked
			}
		}()
		return build(bctx)
	}()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m[key] == c {
		delete(g.m, key)
	}
	c.val, c.err, c.finished = val, err, true
	if err == nil && g.Hand != nil {
		g.Hand(val, c.waiters)
	}
	close(c.done)
}

// Running reports whether a build is in flight or waiting for its turn.
func (g *Flight[K, V]) Running() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.m) > 0
}

// logPanic logs a build's panic with its stack.
func logPanic(log *slog.Logger, what string, v any) {
	stack := debug.Stack()
	if carried, ok := v.(interface{ Stack() []byte }); ok {
		stack = carried.Stack()
	}
	log.Error("panic while building "+what, "panic", fmt.Sprint(v), "stack", string(stack))
}
