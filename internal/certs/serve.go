package certs

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"time"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

// DefaultShutdownGrace bounds how long requests in flight (a note being
// written) may finish once serving is asked to stop.
const DefaultShutdownGrace = 10 * time.Second

// Server is the one serve path of cortex, for every TLS mode. Its options
// are checked once, by New.
type Server struct {
	o Options
}

// New fills in o's defaults, validates it (an *OptionError wrapping
// ErrInvalidOptions) and logs, once, what is allowed but probably a
// mistake.
func New(o Options) (*Server, error) {
	o = o.WithDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	for _, w := range o.Warnings() {
		o.Logger.Warn(w) // #nosec G706 -- a fixed sentence quoting the operator's own settings; the text and JSON handlers escape it
	}
	return &Server{o: o}, nil
}

// Serve opens the listeners of the mode (or uses Options.Listener) and
// serves h until ctx is cancelled, then shuts down gracefully: it stops
// accepting connections, ends long-lived GET streams (SSE), lets other
// requests in flight finish for up to ShutdownGrace, closes what is left
// and returns. It returns nil after a clean shutdown; a listener that
// cannot be opened or fails, or requests cut off by the grace, are errors.
func (s *Server) Serve(ctx context.Context, h http.Handler) error {
	o := s.o
	var lc net.ListenConfig
	if o.Mode != ModeACME {
		ln := o.Listener
		if ln == nil {
			var err error
			if ln, err = lc.Listen(ctx, "tcp", o.ListenAddr); err != nil {
				return fmt.Errorf("listen on %s: %w", o.ListenAddr, err)
			}
		}
		o.Logger.Info("listening", "mode", o.Mode, "addr", ln.Addr().String(), "public_url", o.PublicURL)
		return run(ctx, o, served{newServer(forwarded(o, h), o.Logger, slog.LevelWarn), ln, nil})
	}
	httpsLn, err := lc.Listen(ctx, "tcp", o.HTTPSAddr)
	if err != nil {
		return fmt.Errorf("listen on %s for HTTPS (binding a port below 1024 needs CAP_NET_BIND_SERVICE): %w", o.HTTPSAddr, err)
	}
	httpLn, err := lc.Listen(ctx, "tcp", o.HTTPAddr)
	if err != nil {
		httpsLn.Close()
		return fmt.Errorf("listen on %s for HTTP (binding a port below 1024 needs CAP_NET_BIND_SERVICE): %w", o.HTTPAddr, err)
	}
	if o.WrapListener != nil {
		httpsLn, httpLn = o.WrapListener(httpsLn), o.WrapListener(httpLn)
	}
	return serveACME(ctx, o, forwarded(o, h), httpsLn, httpLn)
}

var loopbackPrefixes = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// forwarded applies the mode's forwarded-header policy: in proxy mode
// X-Forwarded-* headers are believed from trusted proxies (loopback when
// none are configured) and removed otherwise; in the other modes clients
// reach cortex directly and the headers are always removed.
func forwarded(o Options, h http.Handler) http.Handler {
	if o.Mode != ModeProxy {
		return httpx.StripForwarded(h)
	}
	trusted := o.TrustedProxies
	if len(trusted) == 0 {
		// A proxy on the same host is the common case and is as trusted
		// as cortex itself.
		trusted = loopbackPrefixes
	}
	return httpx.TrustForwarded(trusted, h)
}

// serveACME serves acme mode: TLS on httpsLn, challenges and redirects on httpLn.
func serveACME(ctx context.Context, o Options, h http.Handler, httpsLn, httpLn net.Listener) error {
	closeBoth := func() { httpsLn.Close(); httpLn.Close() }
	host, err := acmeHost(o.PublicURL)
	if err != nil {
		closeBoth()
		return err
	}
	if err := os.MkdirAll(o.CacheDir, 0o700); err != nil {
		closeBoth()
		return fmt.Errorf("create certificate folder %s: %w", o.CacheDir, err)
	}
	// MkdirAll leaves an existing folder's mode alone; keys must not be readable by others.
	if err := os.Chmod(o.CacheDir, 0o700); err != nil { // #nosec G302 -- a folder: 0700 is owner-only, x lets the owner enter it
		closeBoth()
		return fmt.Errorf("restrict certificate folder %s: %w", o.CacheDir, err)
	}
	a := newACME(o, host, time.Now)
	// TLS handshake noise from scanners goes to debug; certificate failures
	// are logged on their own by the ACME code.
	httpsSrv := newServer(hsts(h), o.Logger, slog.LevelDebug)
	httpsSrv.TLSConfig = a.tlsConfig()
	httpSrv := newServer(a.httpHandler(h), o.Logger, slog.LevelDebug)

	o.Logger.Info("listening", "mode", o.Mode, "https", httpsLn.Addr().String(), "http", httpLn.Addr().String(),
		"public_url", o.PublicURL, "acme_directory", o.DirectoryURL)
	return run(ctx, o,
		served{httpsSrv, httpsLn, func(s *http.Server, ln net.Listener) error { return s.ServeTLS(ln, "", "") }},
		served{httpSrv, httpLn, nil})
}

// hsts tells browsers to use https only for this host from now on. Sub-domains
// are left alone: they may be other services of the owner.
func hsts(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Strict-Transport-Security", "max-age=63072000")
		h.ServeHTTP(w, r)
	})
}

// newServer is the one http.Server setup; errLevel is the level of the
// server's own error log.
func newServer(h http.Handler, logger *slog.Logger, errLevel slog.Level) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), errLevel),
		// No ReadTimeout or WriteTimeout: SSE streams live for hours; idle
		// sessions end through the session idle timeout, slow bodies
		// through the edge's body read timeout.
	}
}

type served struct {
	srv   *http.Server
	ln    net.Listener
	serve func(*http.Server, net.Listener) error // nil means srv.Serve
}

// run serves every server until ctx ends or one fails, then shuts all down:
// the one shutdown of every mode.
func run(ctx context.Context, o Options, all ...served) error {
	logger := o.Logger
	streams, endStreams := context.WithCancel(context.Background())
	defer endStreams()
	errc := make(chan error, len(all))
	for _, s := range all {
		s.srv.Handler = endGETsOn(streams, s.srv.Handler)
		s.srv.RegisterOnShutdown(func() {
			// Runs once the listener is closed.
			logger.Info("no longer accepting connections", "addr", s.ln.Addr().String())
		})
		go func() {
			var err error
			if s.serve != nil {
				err = s.serve(s.srv, s.ln)
			} else {
				err = s.srv.Serve(s.ln)
			}
			if errors.Is(err, http.ErrServerClosed) {
				err = nil
			} else if err != nil {
				err = fmt.Errorf("serve on %s: %w", s.ln.Addr(), err)
			}
			errc <- err
		}()
	}
	var first error
	select {
	case <-ctx.Done():
		logger.Info("shutting down", "grace", o.ShutdownGrace)
	case first = <-errc:
		if first == nil {
			first = errors.New("a listener stopped unexpectedly")
		}
	}
	endStreams()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.ShutdownGrace)
	defer cancel()
	var cut error
	for _, s := range all {
		if err := s.srv.Shutdown(sctx); err != nil {
			s.srv.Close()
			cut = fmt.Errorf("shutdown: requests still running after %s were cut off: %w", o.ShutdownGrace, err)
		}
	}
	if first == nil {
		first = cut
	}
	if first == nil {
		logger.Info("shut down")
	}
	return first
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

// minTLS is the oldest TLS version offered.
const minTLS = tls.VersionTLS12
