package artifact

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillstore/skillstore/internal/testutil"
)

// blocking is a build that writes body once release is closed, counting
// its calls and saying when it started.
type blocking struct {
	body    string
	calls   atomic.Int64
	started chan struct{}
	release chan struct{}
}

func newBlocking(body string) *blocking {
	return &blocking{body: body, started: make(chan struct{}, 16), release: make(chan struct{})}
}

func (b *blocking) build(ctx context.Context, w io.Writer) (string, error) {
	b.calls.Add(1)
	b.started <- struct{}{}
	<-b.release
	_, err := io.WriteString(w, b.body)
	return "zip", err
}

// waiters is how many callers wait for key's build.
func (c *Cache) waiters(key Key) int { return c.flight.Waiters(key) }

// TestOneBuildPerVersion: concurrent requests for one version share one
// build; later ones get what it kept; another version (a changed file)
// builds again.
func TestOneBuildPerVersion(t *testing.T) {
	c := New(Options{})
	ctx := context.Background()
	v1, v2 := Key{Name: "s", Files: [32]byte{1}}, Key{Name: "s", Files: [32]byte{2}}
	b := newBlocking("version one")
	var wg sync.WaitGroup
	got := make([]string, 4)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := c.Get(ctx, v1, true, b.build)
			if err != nil {
				t.Error(err)
				return
			}
			defer a.Release()
			body, _ := io.ReadAll(a.Body())
			got[i] = string(body)
		}()
	}
	<-b.started
	testutil.Eventually(t, "every request waits for the one build", func() bool { return c.waiters(v1) == len(got) })
	close(b.release)
	wg.Wait()
	for i, g := range got {
		if g != "version one" {
			t.Errorf("request %d: %q", i, g)
		}
	}
	if a, err := c.Get(ctx, v1, true, b.build); err != nil {
		t.Fatal(err)
	} else {
		a.Release()
	}
	if n := b.calls.Load(); n != 1 || c.Builds() != 1 {
		t.Errorf("%d builds (%d counted) for 5 requests of one version; want 1", n, c.Builds())
	}
	b2 := newBlocking("version two")
	close(b2.release)
	a, err := c.Get(ctx, v2, true, b2.build)
	if err != nil {
		t.Fatal(err)
	}
	a.Release()
	if b2.calls.Load() != 1 || c.Builds() != 2 {
		t.Errorf("a new version built %d times (%d in all); want once more", b2.calls.Load(), c.Builds())
	}
}

// TestBuildsBounded: Builds builds run at once and Queued more wait; past
// that Get fails at once with ErrBusy. A waiting request gives up when
// its context ends, and a build nobody waits for any more never runs.
func TestBuildsBounded(t *testing.T) {
	c := New(Options{Builds: 1, Queued: 1})
	ctx := context.Background()
	running := newBlocking("a")
	go c.Get(ctx, Key{Name: "a"}, true, running.build)
	<-running.started

	queued := newBlocking("b")
	close(queued.release)
	qctx, cancel := context.WithCancel(ctx)
	qerr := make(chan error, 1)
	go func() {
		_, err := c.Get(qctx, Key{Name: "b"}, true, queued.build)
		qerr <- err
	}()
	testutil.Eventually(t, "b waits for its turn", func() bool { return c.waiters(Key{Name: "b"}) == 1 })

	if _, err := c.Get(ctx, Key{Name: "c"}, true, newBlocking("c").build); !errors.Is(err, ErrBusy) {
		t.Errorf("a third build with one running and one waiting: %v; want ErrBusy", err)
	}
	cancel()
	if err := <-qerr; !errors.Is(err, context.Canceled) {
		t.Errorf("the waiting request whose context ended: %v", err)
	}
	close(running.release)
	testutil.Eventually(t, "the builds end", func() bool { return !c.Running() })
	if n := queued.calls.Load(); n != 0 {
		t.Errorf("a build nobody waited for ran %d times", n)
	}
	// The slot and the queue are free again.
	d := newBlocking("d")
	close(d.release)
	if a, err := c.Get(ctx, Key{Name: "d"}, true, d.build); err != nil {
		t.Errorf("after the builds ended: %v", err)
	} else {
		a.Release()
	}
}

// TestBuildOutlivesRequest: a build goes on when the request that started
// it stops waiting, and serves the next request without building again.
func TestBuildOutlivesRequest(t *testing.T) {
	c := New(Options{})
	b := newBlocking(strings.Repeat("x", 3<<20)) // spilled to a temporary file
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := c.Get(ctx, Key{Name: "s"}, true, b.build); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v; want the request's deadline", err)
	}
	close(b.release)
	testutil.Eventually(t, "the build ends", func() bool { return !c.Running() })
	a, err := c.Get(context.Background(), Key{Name: "s"}, true, b.build)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	if body, _ := io.ReadAll(a.Body()); len(body) != 3<<20 || b.calls.Load() != 1 {
		t.Errorf("%d bytes after %d builds; want the first build's", len(body), b.calls.Load())
	}
}
