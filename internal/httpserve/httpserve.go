// Package httpserve runs an HTTP server the way skillstore's commands
// serve: bounded headers and idle connections, and a graceful shutdown that
// does not wait on requests stuck on a store that hangs.
package httpserve

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Serve listens on addr and serves h until ctx ends, then shuts down
// gracefully: open streams end at once; requests in flight have two
// seconds (or grace, if shorter) to finish, then their contexts are
// cancelled, so one waiting on a store that hangs answers at once; and
// connections still open after grace are closed. A shutdown is not an
// error either way. ready, if not nil, receives the bound address once the
// listener is open.
func Serve(ctx context.Context, addr string, h http.Handler, grace time.Duration, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	base, cancelRequests := context.WithCancel(context.Background())
	defer cancelRequests()
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	if ready != nil {
		ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(sctx) }()
	select {
	case err = <-shut:
	case <-time.After(min(grace, requestGrace)):
		// Requests still waiting (for a store that hangs) are cancelled:
		// they answer at once, and the shutdown need not wait for them.
		cancelRequests()
		err = <-shut
	}
	if errors.Is(err, context.DeadlineExceeded) {
		slog.Warn("requests still running after the shutdown grace period; closing their connections", "grace", grace)
		srv.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return nil
}

// requestGrace is how long a shutdown lets requests in flight finish
// before cancelling them.
const requestGrace = 2 * time.Second
