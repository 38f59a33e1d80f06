// Package pace bounds a download by time, so that a server that trickles
// its answer is cut off after seconds instead of holding the caller for
// the whole of its time limit.
package pace

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// Limits are a download's pace: it must start (its first bytes arrive)
// within Grace, then keep up MinRate bytes a second on average from its
// start, and end within Timeout.
type Limits struct {
	Grace   time.Duration
	MinRate int64 // bytes a second; over 0
	Timeout time.Duration
}

// Pacer bounds one download by its Limits: its response must begin
// within Grace, and its body then arrive at MinRate or faster (the
// deadline moves to Grace + bytes÷MinRate after the start as bytes
// arrive), and all of it within Timeout. A download that falls behind has
// its context cancelled (which ends its request and body) and is Slow; one
// over Timeout is Late. A trickling server is cut off after seconds, not
// kept for the whole Timeout. Its methods may be called from any
// goroutine, but Read from one at a time.
type Pacer struct {
	lim   Limits
	start time.Time
	timer *time.Timer
	slow  atomic.Bool
	n     atomic.Int64
	r     io.Reader
}

// Start starts a download's clock: it returns ctx bounded by lim.Timeout
// and by the pace (cancelled when the download falls behind), its Pacer,
// and stop, which releases both and must be called once the download is
// over. The body to pace is given to Wrap once it is there.
func Start(ctx context.Context, lim Limits) (context.Context, *Pacer, func()) {
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	p := &Pacer{lim: lim, start: time.Now()}
	p.timer = time.AfterFunc(lim.Grace, func() { p.slow.Store(true); cancel() })
	return ctx, p, func() { p.timer.Stop(); cancel() }
}

// Wrap sets the body Read reads from and returns p.
func (p *Pacer) Wrap(r io.Reader) *Pacer {
	p.r = r
	return p
}

// Read reads the wrapped body, moving the deadline by the bytes read.
// At the body's end the pace stops (Timeout still holds).
func (p *Pacer) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		total := p.n.Add(int64(n))
		due := p.start.Add(p.lim.Grace + time.Duration(float64(total)/float64(p.lim.MinRate)*float64(time.Second)))
		p.timer.Reset(time.Until(due))
	}
	if err == io.EOF {
		p.timer.Stop()
	}
	return n, err
}

// Slow reports whether the download was cut off for falling behind its
// pace.
func (p *Pacer) Slow() bool { return p.slow.Load() }

// Late reports whether the download has been going on for its whole
// Timeout.
func (p *Pacer) Late() bool { return time.Since(p.start) >= p.lim.Timeout }

// Bytes is how many bytes Read has passed on.
func (p *Pacer) Bytes() int64 { return p.n.Load() }

// Limits are p's limits.
func (p *Pacer) Limits() Limits { return p.lim }

// Explain says what a Slow download got and what its pace asks for, for
// an error message: "N bytes; a download must start within G and then
// keep up R KiB/s".
func (p *Pacer) Explain() string {
	return fmt.Sprintf("%d bytes; a download must start within %v and then keep up %d KiB/s", p.Bytes(), p.lim.Grace, p.lim.MinRate>>10)
}
