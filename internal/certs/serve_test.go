package certs

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/testkit"
)

func TestServePlainModes(t *testing.T) {
	tests := []struct {
		mode     string
		trusted  []netip.Prefix
		wantAddr string // what the handler sees for a request claiming 198.51.100.1
	}{
		{ModeOff, nil, "127.0.0.1"},
		{ModeProxy, nil, "198.51.100.1"}, // loopback is trusted by default
		{ModeProxy, []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, "127.0.0.1"},
		{ModeProxy, []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, "198.51.100.1"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.mode, tt.trusted), func(t *testing.T) {
			ln := testkit.Listen(t)
			seen := make(chan string, 1)
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				host, _, _ := net.SplitHostPort(r.RemoteAddr)
				seen <- host
				io.WriteString(w, "ok")
			})
			srv, err := New(Options{Mode: tt.mode, ListenAddr: ln.Addr().String(), Listener: ln, TrustedProxies: tt.trusted})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ctx, h) }()

			req, _ := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+"/healthz", nil)
			req.Header.Set("X-Forwarded-For", "198.51.100.1")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := <-seen; got != tt.wantAddr {
				t.Errorf("handler saw client %s, want %s", got, tt.wantAddr)
			}
			if resp.Header.Get("Strict-Transport-Security") != "" {
				t.Errorf("plain HTTP must not send HSTS")
			}
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Serve after cancel = %v, want nil", err)
			}
		})
	}
}

func TestNewRejectsInvalidOptions(t *testing.T) {
	_, err := New(Options{Mode: ModeOff, ListenAddr: "0.0.0.0:0"})
	if !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("New = %v, want ErrInvalidOptions", err)
	}
}

func TestServeReportsBusyPort(t *testing.T) {
	ln := testkit.Listen(t)
	defer ln.Close()
	srv, err := New(Options{Mode: ModeOff, ListenAddr: ln.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	err = srv.Serve(t.Context(), http.NotFoundHandler())
	if err == nil || !strings.Contains(err.Error(), "listen on "+ln.Addr().String()) {
		t.Fatalf("Serve on a busy port = %v, want a listen error naming the address", err)
	}
}

// TestRetryWaitsAfterFailure checks the growing pause between certificate
// requests with an injected clock and a directory that refuses connections.
func TestRetryWaitsAfterFailure(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var logs testkit.Buffer
	o := Options{
		Mode: ModeACME, PublicURL: config.MustParsePublicURL("https://" + testHost), CacheDir: t.TempDir(),
		DirectoryURL: "https://127.0.0.1:1/dir",
		Logger:       slog.New(slog.NewTextHandler(&logs, nil)),
	}.WithDefaults()
	a := newACME(o, testHost, func() time.Time { return now })
	hello := &tls.ClientHelloInfo{ServerName: testHost, SupportedProtos: []string{"h2"}}

	steps := []struct {
		advance   time.Duration
		wantWait  bool
		wantDelay time.Duration
	}{
		{0, false, time.Minute},
		{30 * time.Second, true, time.Minute},
		{31 * time.Second, false, 2 * time.Minute},
		{2*time.Minute + time.Second, false, 4 * time.Minute},
	}
	for i, s := range steps {
		now = now.Add(s.advance)
		_, err := a.getCertificate(hello)
		if err == nil {
			t.Fatalf("step %d: got a certificate from an unreachable CA", i)
		}
		if got := errors.Is(err, errRetryLater); got != s.wantWait {
			t.Errorf("step %d: waiting = %v (%v), want %v", i, got, err, s.wantWait)
		}
		if a.delay != s.wantDelay {
			t.Errorf("step %d: delay = %v, want %v", i, a.delay, s.wantDelay)
		}
	}
	if n := strings.Count(logs.String(), "could not obtain"); n != 3 {
		t.Errorf("%d failure log lines, want 3", n)
	}
	// Other names never touch the retry state.
	if _, err := a.getCertificate(&tls.ClientHelloInfo{ServerName: "other.example.org"}); err == nil || errors.Is(err, errRetryLater) {
		t.Errorf("other host: err = %v, want a host policy refusal", err)
	}
}
