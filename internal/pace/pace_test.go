package pace

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// trickle yields one byte per interval until ctx ends, then ctx's error.
type trickle struct {
	ctx      context.Context
	interval time.Duration
}

func (t trickle) Read(b []byte) (int, error) {
	select {
	case <-t.ctx.Done():
		return 0, t.ctx.Err()
	case <-time.After(t.interval):
		b[0] = 'x'
		return 1, nil
	}
}

// TestTrickleIsCut: a body that trickles behind MinRate has its context
// cancelled well before Timeout, is Slow, and says why.
func TestTrickleIsCut(t *testing.T) {
	ctx, p, stop := Start(context.Background(), Limits{Grace: 100 * time.Millisecond, MinRate: 1 << 10, Timeout: time.Minute})
	defer stop()
	n, err := io.Copy(io.Discard, p.Wrap(trickle{ctx, 20 * time.Millisecond}))
	if err == nil || ctx.Err() == nil {
		t.Fatalf("read %d bytes, err %v: not cut off", n, err)
	}
	if !p.Slow() || p.Late() {
		t.Errorf("slow %v, late %v", p.Slow(), p.Late())
	}
	if p.Bytes() != n {
		t.Errorf("Bytes %d, read %d", p.Bytes(), n)
	}
	if want := fmt.Sprintf("%d bytes; a download must start within 100ms and then keep up 1 KiB/s", n); p.Explain() != want {
		t.Errorf("Explain: %q", p.Explain())
	}
}

// TestNoStart: nothing read within Grace cancels the context.
func TestNoStart(t *testing.T) {
	ctx, p, stop := Start(context.Background(), Limits{Grace: 50 * time.Millisecond, MinRate: 1 << 10, Timeout: time.Minute})
	defer stop()
	select {
	case <-ctx.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("not cancelled after its grace")
	}
	if !p.Slow() {
		t.Error("not Slow")
	}
}

// TestKeepingUp: a body that arrives at once is read whole, and stop
// leaves the download neither Slow nor its context cancelled by the pace.
func TestKeepingUp(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx, p, stop := Start(parent, Limits{Grace: time.Minute, MinRate: 1, Timeout: time.Hour})
	body := bytes.Repeat([]byte("y"), 64<<10)
	got, err := io.ReadAll(p.Wrap(bytes.NewReader(body)))
	if err != nil || len(got) != len(body) {
		t.Fatalf("read %d bytes, %v", len(got), err)
	}
	if ctx.Err() != nil || p.Slow() {
		t.Errorf("ctx %v, slow %v", ctx.Err(), p.Slow())
	}
	stop()
	if p.Slow() {
		t.Error("Slow after stop")
	}
}

// TestEndedBody: a body read to its end is not cut off afterwards, even
// when it is not closed (stop not yet called) past its deadline.
// It runs on synctest's fake clock: the sleep takes no real time.
func TestEndedBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, p, stop := Start(context.Background(), Limits{Grace: 50 * time.Millisecond, MinRate: 1 << 20, Timeout: time.Hour})
		defer stop()
		if _, err := io.ReadAll(p.Wrap(strings.NewReader("short"))); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond) // fake time: past Grace + 5 bytes at 1 MiB/s
		synctest.Wait()
		if ctx.Err() != nil || p.Slow() {
			t.Errorf("ctx %v, slow %v", ctx.Err(), p.Slow())
		}
	})
}
