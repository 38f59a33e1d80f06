// Package deadline bounds a request's wait for the skill sources, as
// every surface of the server bounds it (--request-timeout), and logs
// the request that reached the bound.
package deadline

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// Bound returns ctx limited to timeout (zero or less: not limited); when
// the limit passes, what was being done (a method's name) is logged to
// log, with the time waited. The caller's own deadline may come first:
// the line says how long it waited.
func Bound(ctx context.Context, timeout time.Duration, log *slog.Logger, what string) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		return ctx, func() {}
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	stop := context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			log.Warn("request timed out waiting for the skill sources", "method", what,
				"waited", time.Since(start).Round(time.Millisecond), "timeout", timeout)
		}
	})
	return ctx, func() { stop(); cancel() }
}
