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
)

// shutdownGrace bounds how long open requests may finish after ctx ends.
const shutdownGrace = 10 * time.Second

// Serve validates o, opens the listeners of its mode and serves h until ctx
// is cancelled, then shuts down gracefully and returns nil. A listener that
// cannot be opened or fails is returned as an error.
func Serve(ctx context.Context, o Options, h http.Handler) error {
	o = o.WithDefaults()
	if err := o.Validate(); err != nil {
		return err
	}
	for _, w := range o.Warnings() {
		o.Logger.Warn(w)
	}
	var lc net.ListenConfig
	if o.Mode != ModeACME {
		ln, err := lc.Listen(ctx, "tcp", o.ListenAddr)
		if err != nil {
			return fmt.Errorf("listen on %s: %w", o.ListenAddr, err)
		}
		return servePlain(ctx, o, h, ln)
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
	return serveACME(ctx, o, h, httpsLn, httpLn)
}

var loopbackPrefixes = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// PlainHandler wraps h with the forwarded-header policy of the proxy and off
// modes, for a caller that serves a plain listener itself: in proxy mode
// X-Forwarded-* headers are believed from trusted proxies (loopback when none
// are configured) and removed otherwise; in off mode they are always removed.
func PlainHandler(o Options, h http.Handler) http.Handler {
	if o.Mode == ModeProxy {
		trusted := o.TrustedProxies
		if len(trusted) == 0 {
			// A proxy on the same host is the common case and is as
			// trusted as cortex itself.
			trusted = loopbackPrefixes
		}
		return trustForwarded(trusted, h)
	}
	return stripForwardedHandler(h)
}

// servePlain serves the proxy and off modes on ln.
func servePlain(ctx context.Context, o Options, h http.Handler, ln net.Listener) error {
	h = PlainHandler(o, h)
	o.Logger.Info("listening", "mode", o.Mode, "addr", ln.Addr().String(), "public_url", o.PublicURL)
	return run(ctx, o.Logger, served{newServer(h, o.Logger), ln, nil})
}

// serveACME serves acme mode: TLS on httpsLn, challenges and redirects on httpLn.
func serveACME(ctx context.Context, o Options, h http.Handler, httpsLn, httpLn net.Listener) error {
	host, err := acmeHost(o.PublicURL)
	if err != nil {
		httpsLn.Close()
		httpLn.Close()
		return err
	}
	if err := os.MkdirAll(o.CacheDir, 0o700); err != nil {
		httpsLn.Close()
		httpLn.Close()
		return fmt.Errorf("create certificate folder %s: %w", o.CacheDir, err)
	}
	// MkdirAll leaves an existing folder's mode alone; keys must not be readable by others.
	if err := os.Chmod(o.CacheDir, 0o700); err != nil { // #nosec G302 -- a folder: 0700 is owner-only, x lets the owner enter it
		httpsLn.Close()
		httpLn.Close()
		return fmt.Errorf("restrict certificate folder %s: %w", o.CacheDir, err)
	}
	a := newACME(o, host, time.Now)
	h = stripForwardedHandler(h)

	httpsSrv := newServer(hsts(h), o.Logger)
	httpsSrv.TLSConfig = a.tlsConfig()
	httpSrv := newServer(a.httpHandler(h), o.Logger)

	o.Logger.Info("listening", "mode", o.Mode, "https", httpsLn.Addr().String(), "http", httpLn.Addr().String(),
		"public_url", o.PublicURL, "acme_directory", o.DirectoryURL)
	return run(ctx, o.Logger,
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

func newServer(h http.Handler, logger *slog.Logger) *http.Server {
	// No WriteTimeout: MCP responses may stream for a long time.
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		// TLS handshake noise from scanners goes to debug; certificate
		// failures are logged on their own by the ACME code.
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelDebug),
	}
}

type served struct {
	srv   *http.Server
	ln    net.Listener
	serve func(*http.Server, net.Listener) error // nil means srv.Serve
}

// run serves every server until ctx ends or one fails, then shuts all down.
func run(ctx context.Context, logger *slog.Logger, all ...served) error {
	errc := make(chan error, len(all))
	for _, s := range all {
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
	case first = <-errc:
		if first == nil {
			first = errors.New("a listener stopped unexpectedly")
		}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	for _, s := range all {
		if err := s.srv.Shutdown(sctx); err != nil {
			logger.Warn("shutdown did not finish in time; closing open connections", "addr", s.ln.Addr().String(), "err", err)
			s.srv.Close()
		}
	}
	if first == nil {
		logger.Info("stopped")
	}
	return first
}

// minTLS is the oldest TLS version offered.
const minTLS = tls.VersionTLS12
