package store_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/skillstore/skillstore/internal/storetest"
	"github.com/skillstore/skillstore/store"
)

// stallFS is a ContextFS whose reads of stall.txt wait for their context
// to end (a backend request that never answers) or for release.
type stallFS struct {
	files   fstest.MapFS
	ctx     context.Context // nil: the store's plain view
	started chan struct{}   // a stalled read began
	ended   chan error      // a stalled read ended, with why
	release chan struct{}
}

func (s *stallFS) WithContext(ctx context.Context) fs.FS {
	c := *s
	c.ctx = ctx
	return &c
}

func (s *stallFS) Open(name string) (fs.File, error) {
	if strings.HasSuffix(name, "stall.txt") {
		ctx := s.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		s.started <- struct{}{}
		select {
		case <-ctx.Done():
			s.ended <- ctx.Err()
			return nil, ctx.Err()
		case <-s.release:
			s.ended <- nil
		}
	}
	return s.files.Open(name)
}

func newStallFS() *stallFS {
	return &stallFS{
		files: storetest.MapFS(
			"s/SKILL.md="+storetest.Doc("s", "Stalls."),
			"s/stall.txt=finally",
		),
		started: make(chan struct{}, 8),
		ended:   make(chan error, 8),
		release: make(chan struct{}),
	}
}

// TestCancelledReadIsAbandoned: a caller whose context ends stops waiting
// at once, and the backend read it started is cancelled when nobody else
// waits for it.
func TestCancelledReadIsAbandoned(t *testing.T) {
	fsys := newStallFS()
	s := storetest.New(t, store.Options{}, fsys)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := s.View(nil).ReadFile(ctx, "s", "stall.txt", &store.ReadOptions{Text: true})
		errc <- err
	}()
	<-fsys.started
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v; want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled caller kept waiting for the backend")
	}
	select {
	case err := <-fsys.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("backend read ended with %v; want it cancelled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the backend read nobody waits for was not cancelled")
	}
}

// TestSharedReadOutlivesOneCaller: when one of two callers sharing a read
// leaves, the read goes on for the other.
func TestSharedReadOutlivesOneCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fsys := newStallFS()
		s := storetest.New(t, store.Options{}, fsys)
		leaving, leave := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		var stayed store.File
		var stayErr, leftErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, leftErr = s.View(nil).ReadFile(leaving, "s", "stall.txt", &store.ReadOptions{Text: true})
		}()
		<-fsys.started
		go func() {
			defer wg.Done()
			stayed, stayErr = s.View(nil).ReadFile(context.Background(), "s", "stall.txt", &store.ReadOptions{Text: true})
		}()
		synctest.Wait() // the second caller has joined the read
		leave()
		synctest.Wait() // the leaving caller has left
		close(fsys.release)
		wg.Wait()
		if !errors.Is(leftErr, context.Canceled) {
			t.Errorf("leaving caller: %v", leftErr)
		}
		if stayErr != nil || stayed.Text != "finally" {
			t.Errorf("staying caller: %q %v", stayed.Text, stayErr)
		}
		if err := <-fsys.ended; err != nil {
			t.Errorf("the shared read was cancelled: %v", err)
		}
	})
}

// blockFS blocks opens of block.txt (or of the name in block, once armed)
// until released, counting them; it cannot be cancelled (no WithContext).
type blockFS struct {
	files   fstest.MapFS
	block   string
	armed   atomic.Bool
	opens   atomic.Int32
	release chan struct{}
}

func (b *blockFS) Open(name string) (fs.File, error) {
	if b.block == "" && strings.HasSuffix(name, "block.txt") || b.block == name && b.armed.Load() {
		b.opens.Add(1)
		<-b.release
	}
	return b.files.Open(name)
}

// TestUncancellableReadIsShared: callers that come and go while a read
// that cannot be cancelled runs join it rather than start one each.
func TestUncancellableReadIsShared(t *testing.T) {
	fsys := &blockFS{files: storetest.MapFS("s/SKILL.md="+storetest.Doc("s", "Blocks."), "s/block.txt=done"), release: make(chan struct{})}
	s := storetest.New(t, store.Options{}, fsys)
	for range 20 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
		if _, err := s.View(nil).ReadFile(ctx, "s", "block.txt", &store.ReadOptions{Text: true}); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v", err)
		}
		cancel()
	}
	close(fsys.release)
	if f, err := s.View(nil).ReadFile(context.Background(), "s", "block.txt", &store.ReadOptions{Text: true}); err != nil || f.Text != "done" {
		t.Fatalf("%q %v", f.Text, err)
	}
	if n := fsys.opens.Load(); n != 1 {
		t.Errorf("%d backend reads for callers that came and went; want 1", n)
	}
}

// TestStuckBackend: every store operation that reaches a backend which
// hangs answers its caller when the caller's context ends, and callers
// that come and go share the one stuck backend call rather than start one
// each; once the backend answers, the operation works. Each case runs on
// synctest's fake clock.
func TestStuckBackend(t *testing.T) {
	files := storetest.MapFS("s/SKILL.md="+storetest.Doc("s", "Stuck."), "s/ref/a.md=a", "s/b.md=b")
	for _, tc := range []struct {
		name  string
		block string             // the backend path that hangs
		setup func(*store.Store) // before the backend hangs
		op    func(context.Context, *store.Store) error
		want  error // what a caller past its deadline gets
	}{
		{name: "catalog", block: ".", op: func(ctx context.Context, s *store.Store) error {
			_, err := s.View(nil).Catalog(ctx)
			return err
		}, want: context.DeadlineExceeded},
		{name: "refresh", block: ".", setup: func(s *store.Store) { s.View(nil).Catalog(context.Background()) }, op: func(ctx context.Context, s *store.Store) error {
			_, err := s.Refresh(ctx)
			return err
		}, want: context.DeadlineExceeded},
		{name: "files", block: "s/ref", setup: func(s *store.Store) { s.View(nil).Catalog(context.Background()) }, op: func(ctx context.Context, s *store.Store) error {
			_, err := s.View(nil).Files(ctx, "s", nil)
			return err
		}, want: context.DeadlineExceeded},
		{name: "read", block: "s/b.md", setup: func(s *store.Store) { s.View(nil).Catalog(context.Background()) }, op: func(ctx context.Context, s *store.Store) error {
			_, err := s.View(nil).ReadFile(ctx, "s", "b.md", &store.ReadOptions{Text: true})
			return err
		}, want: context.DeadlineExceeded},
		{name: "revalidation serves the cached copy", block: "s/b.md", setup: func(s *store.Store) {
			s.View(nil).ReadFile(context.Background(), "s", "b.md", &store.ReadOptions{Text: true})
			time.Sleep(2 * time.Millisecond) // fake time (synctest): past RevalidateAfter
		}, op: func(ctx context.Context, s *store.Store) error {
			f, err := s.View(nil).ReadFile(ctx, "s", "b.md", &store.ReadOptions{Text: true})
			if err == nil && f.Text != "b" {
				err = fmt.Errorf("text %q", f.Text)
			}
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fsys := &blockFS{files: files, block: tc.block, release: make(chan struct{})}
				s := storetest.New(t, store.Options{RevalidateAfter: time.Millisecond}, fsys)
				if tc.setup != nil {
					tc.setup(s)
				}
				fsys.armed.Store(true)
				for range 10 {
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
					err := tc.op(ctx, s)
					cancel()
					if !errors.Is(err, tc.want) && (tc.want != nil || err != nil) {
						t.Fatalf("past the deadline: err = %v; want %v", err, tc.want)
					}
				}
				if n := fsys.opens.Load(); n > 1 {
					t.Errorf("%d backend calls for callers that came and went; want at most 1", n)
				}
				close(fsys.release)
				fsys.armed.Store(false)
				if err := tc.op(context.Background(), s); err != nil {
					t.Errorf("once the backend answers: %v", err)
				}
			})
		})
	}
}
