package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// ShutdownGrace bounds how long Serve waits, once its context is cancelled,
// for requests in flight (a note being written) to finish.
const ShutdownGrace = 10 * time.Second

// Serve serves h on ln until ctx is cancelled, then shuts down gracefully: it
// stops accepting connections, ends long-lived GET streams (SSE), lets other
// requests in flight finish for up to ShutdownGrace, closes what is left and
// returns. It returns nil after a clean shutdown.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, logger *slog.Logger) error {
	return serve(ctx, ln, h, logger, ShutdownGrace)
}

func serve(ctx context.Context, ln net.Listener, h http.Handler, logger *slog.Logger, grace time.Duration) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	streams, endStreams := context.WithCancel(context.Background())
	defer endStreams()
	srv := &http.Server{
		Handler:           endGETsOn(streams, h),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		// No ReadTimeout or WriteTimeout: SSE streams live for hours; idle
		// sessions end through the session idle timeout instead.
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	logger.Info("shutting down", "grace", grace)
	srv.RegisterOnShutdown(func() {
		// Runs once the listener is closed.
		logger.Info("no longer accepting connections")
	})
	endStreams()
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		srv.Close()
	}
	if serr := <-served; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", ln.Addr(), serr)
	}
	if err != nil {
		return fmt.Errorf("shutdown: requests still running after %s were cut off: %w", grace, err)
	}
	logger.Info("shut down")
	return nil
}

// EndStreamsWhenDone is for servers other than Serve (the acme mode's TLS
// listeners): GET requests (SSE streams) end as soon as ctx is done, so a
// graceful shutdown only waits for POSTs, which may be writes.
func EndStreamsWhenDone(ctx context.Context, h http.Handler) http.Handler {
	return endGETsOn(ctx, h)
}

// endGETsOn cancels the context of GET requests when streams ends. GETs are
// reads and SSE streams, which would otherwise hold shutdown for its whole
// grace; POSTs (which may be writes) are left to finish.
func endGETsOn(streams context.Context, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			stop := context.AfterFunc(streams, cancel)
			defer stop()
			r = r.WithContext(ctx)
		}
		h.ServeHTTP(w, r)
	})
}
