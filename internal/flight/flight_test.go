package flight

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestShared: callers of one key at the same time share one load, and
// each gets its value.
func TestShared(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g Group[string, int]
		var calls atomic.Int64
		release := make(chan struct{})
		load := func(context.Context) (int, error) {
			calls.Add(1)
			<-release
			return 7, nil
		}
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				if v, err := g.Do(t.Context(), "k", false, load); v != 7 || err != nil {
					t.Errorf("Do = %d, %v; want 7", v, err)
				}
			})
		}
		synctest.Wait()
		if n := g.Waiters("k"); n != 3 {
			t.Errorf("Waiters = %d, want 3", n)
		}
		close(release)
		wg.Wait()
		if n := calls.Load(); n != 1 {
			t.Errorf("%d loads, want 1", n)
		}
		if g.Running() {
			t.Error("Running after the load returned")
		}
	})
}

// TestPanicCarried: a load's panic reaches each caller as a *Panic whose
// text names no detail; a *Panic carried from another Group is kept, with
// the stack where it happened.
func TestPanicCarried(t *testing.T) {
	var g Group[string, int]
	got := func(load func(context.Context) (int, error)) (p *Panic) {
		defer func() { p, _ = recover().(*Panic) }()
		g.Do(context.Background(), "k", false, load)
		return nil
	}
	p := got(func(context.Context) (int, error) { panic("/host/path is broken") })
	if p == nil {
		t.Fatal("Do did not panic with a *Panic")
	}
	if p.Value() != "/host/path is broken" || p.Error() != "panic in work shared by several requests" {
		t.Errorf("panic: value %v, text %q", p.Value(), p.Error())
	}
	if again := got(func(context.Context) (int, error) { panic(p) }); again != p {
		t.Errorf("a carried *Panic was wrapped: %v", again)
	}
}

// TestRecover: with Recover, a panic is turned into an error once, and
// every caller gets that error.
func TestRecover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errBoom := errors.New("it failed; see the log")
		var recovered atomic.Int64
		g := Group[string, int]{Recover: func(p *Panic) error {
			recovered.Add(1)
			return errBoom
		}}
		release := make(chan struct{})
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				_, err := g.Do(t.Context(), "k", false, func(context.Context) (int, error) {
					<-release
					panic("boom")
				})
				if err != errBoom {
					t.Errorf("err = %v, want %v", err, errBoom)
				}
			})
		}
		synctest.Wait()
		close(release)
		wg.Wait()
		if n := recovered.Load(); n != 1 {
			t.Errorf("Recover called %d times, want 1", n)
		}
	})
}

// TestCancellable: a cancellable load's context ends when its last
// caller stops waiting, and the next caller starts afresh; a load that is
// not cancellable goes on, shared with the next caller.
func TestCancellable(t *testing.T) {
	for _, cancellable := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			var g Group[string, int]
			var calls atomic.Int64
			ended := make(chan error, 2)
			release := make(chan struct{})
			load := func(ctx context.Context) (int, error) {
				calls.Add(1)
				select {
				case <-ctx.Done():
					ended <- ctx.Err()
					return 0, ctx.Err()
				case <-release:
					return 1, nil
				}
			}
			ctx, cancel := context.WithCancel(t.Context())
			go g.Do(ctx, "k", cancellable, load)
			synctest.Wait()
			cancel()
			synctest.Wait()
			if got := len(ended) == 1; got != cancellable {
				t.Errorf("cancellable %v: load's context ended: %v", cancellable, got)
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				g.Do(t.Context(), "k", cancellable, load)
			}()
			synctest.Wait()
			want := int64(1)
			if cancellable {
				want = 2
			}
			if n := calls.Load(); n != want {
				t.Errorf("cancellable %v: %d loads, want %d", cancellable, n, want)
			}
			close(release)
			<-done
		})
	}
}

// TestTimeout: a load's context ends after Timeout.
func TestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := Group[string, time.Duration]{Timeout: time.Minute}
		start := time.Now()
		took, err := g.Do(t.Context(), "k", false, func(ctx context.Context) (time.Duration, error) {
			<-ctx.Done()
			return time.Since(start), ctx.Err()
		})
		if !errors.Is(err, context.DeadlineExceeded) || took != time.Minute {
			t.Errorf("load ended after %v with %v; want a minute, deadline exceeded", took, err)
		}
	})
}

// TestTurns: with Turns, loads beyond them wait for a turn; one that no
// caller waits for any more is dropped before it starts; past Queued
// waiting, Do fails with Busy at once.
func TestTurns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errBusy := errors.New("busy")
		g := Group[string, string]{Turns: make(chan struct{}, 1), Queued: 1, Busy: errBusy}
		var started sync.Map
		release := make(chan struct{})
		load := func(key string) func(context.Context) (string, error) {
			return func(context.Context) (string, error) {
				started.Store(key, true)
				<-release
				return key, nil
			}
		}
		go g.Do(t.Context(), "a", false, load("a"))
		synctest.Wait()
		ctx, cancel := context.WithCancel(t.Context())
		go g.Do(ctx, "b", false, load("b"))
		synctest.Wait()
		if _, err := g.Do(t.Context(), "c", false, load("c")); err != errBusy {
			t.Errorf("a third load: err = %v, want %v", err, errBusy)
		}
		cancel() // nobody waits for b: it never starts
		synctest.Wait()
		if g.Waiters("b") != 0 {
			t.Error("b is still waiting")
		}
		done := make(chan string)
		go func() {
			v, _ := g.Do(t.Context(), "c", false, load("c")) // b's place in the queue is free
			done <- v
		}()
		synctest.Wait()
		close(release)
		if v := <-done; v != "c" {
			t.Errorf("c's load returned %q", v)
		}
		if _, ok := started.Load("b"); ok {
			t.Error("b started though nobody waited for it")
		}
	})
}

// TestHand: Hand is told how many callers get a value: those still
// waiting when the load returns.
func TestHand(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var handed atomic.Int64
		g := Group[string, int]{Hand: func(v, n int) { handed.Store(int64(n)) }}
		release := make(chan struct{})
		load := func(context.Context) (int, error) { <-release; return 1, nil }
		var got atomic.Int64
		var wg sync.WaitGroup
		ctx, cancel := context.WithCancel(t.Context())
		for i := range 3 {
			c := t.Context()
			if i == 0 {
				c = ctx
			}
			wg.Go(func() {
				if _, err := g.Do(c, "k", false, load); err == nil {
					got.Add(1)
				}
			})
		}
		synctest.Wait()
		cancel()
		synctest.Wait()
		close(release)
		wg.Wait()
		if handed.Load() != 2 || got.Load() != 2 {
			t.Errorf("handed to %d callers, %d got the value; want 2 and 2", handed.Load(), got.Load())
		}
	})
}
