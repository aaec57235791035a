package certs

import (
	"crypto/tls"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"

	"github.com/cortex-mcp/cortex/internal/httpx"
)

// Retry limits after a failed certificate request. Let's Encrypt allows only
// a few failed validations per host and hour, and every TLS handshake would
// otherwise start a new attempt.
const (
	firstRetryDelay = time.Minute
	maxRetryDelay   = time.Hour
)

// errRetryLater is returned to handshakes while cortex waits before the next
// certificate request.
var errRetryLater = errors.New("certificate request failed recently; waiting before the next attempt")

// acmeCerts wraps autocert with a log line and a growing wait after each
// failure.
type acmeCerts struct {
	m        *autocert.Manager
	problems *problemRecorder
	host     string
	logger   *slog.Logger
	now      func() time.Time

	mu      sync.Mutex
	delay   time.Duration // wait after the last failure; 0 when none
	retryAt time.Time
}

func newACME(o Options, host string, now func() time.Time) *acmeCerts {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{RootCAs: o.RootCAs, MinVersion: minTLS}
	problems := &problemRecorder{next: t}
	hc := &http.Client{Timeout: time.Minute, Transport: problems}
	m := &autocert.Manager{
		Prompt:     autocert.AcceptTOS,
		Cache:      autocert.DirCache(o.CacheDir),
		HostPolicy: autocert.HostWhitelist(host),
		Email:      o.Email,
		Client: &acme.Client{
			DirectoryURL: o.DirectoryURL,
			HTTPClient:   hc,
			UserAgent:    "cortex",
		},
	}
	return &acmeCerts{m: m, problems: problems, host: host, logger: o.Logger, now: now}
}

func (a *acmeCerts) tlsConfig() *tls.Config {
	return &tls.Config{
		MinVersion:     minTLS,
		GetCertificate: a.getCertificate,
		NextProtos:     []string{"h2", "http/1.1", acme.ALPNProto},
	}
}

// getCertificate answers handshakes. Challenge handshakes and names other
// than the public host go straight to autocert (which refuses other names);
// for the public host a failure is logged once with a hint and further
// attempts wait, doubling from a minute up to an hour.
func (a *acmeCerts) getCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	name := strings.TrimSuffix(strings.ToLower(hello.ServerName), ".")
	challenge := len(hello.SupportedProtos) == 1 && hello.SupportedProtos[0] == acme.ALPNProto
	if name != a.host || challenge {
		return a.m.GetCertificate(hello)
	}
	a.mu.Lock()
	wait := a.delay > 0 && a.now().Before(a.retryAt)
	a.mu.Unlock()
	if wait {
		return nil, errRetryLater
	}
	a.problems.take() // forget problems of attempts that were not ours
	cert, err := a.m.GetCertificate(hello)
	a.mu.Lock()
	defer a.mu.Unlock()
	if err == nil {
		if a.delay > 0 {
			a.logger.Info("certificate obtained", "host", a.host)
		}
		a.delay = 0
		return cert, nil
	}
	switch {
	case a.delay == 0:
		a.delay = firstRetryDelay
	case a.delay < maxRetryDelay:
		a.delay = min(2*a.delay, maxRetryDelay)
	}
	a.retryAt = a.now().Add(a.delay)
	a.logger.Error("could not obtain a TLS certificate; check that the DNS name points at this machine and that ports 80 and 443 reach cortex",
		"host", a.host, "retry_in", a.delay.String(), "ca_says", strings.Join(a.problems.take(), "; "), "err", err)
	return nil, err
}

// httpHandler answers http-01 challenges, serves /healthz to loopback peers
// (for `cortex healthcheck`, without touching certificates) and sends
// everything else to the https public URL.
func (a *acmeCerts) httpHandler(h http.Handler) http.Handler {
	redirect := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" && fromLoopback(r) {
			h.ServeHTTP(w, r)
			return
		}
		target := "https://" + a.host + r.URL.RequestURI()
		w.Header().Set("Connection", "close")
		http.Redirect(w, r, target, http.StatusPermanentRedirect) // #nosec G710 -- the host is the configured public host; the request only supplies the path and query after it
	})
	return a.m.HTTPHandler(redirect)
}

func fromLoopback(r *http.Request) bool { return httpx.ParseAddr(r.RemoteAddr).IsLoopback() }
