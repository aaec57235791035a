package certs

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/letsencrypt/challtestsrv"
	"github.com/letsencrypt/pebble/v2/ca"
	"github.com/letsencrypt/pebble/v2/db"
	"github.com/letsencrypt/pebble/v2/va"
	"github.com/letsencrypt/pebble/v2/wfe"
	"github.com/miekg/dns"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/config"
	"github.com/cortex-mcp/cortex/internal/testkit"
)

const testHost = "cortex.test"

// pebble is an in-process ACME server: Pebble's WFE, CA and VA, with
// challtestsrv answering its DNS questions on loopback.
type pebble struct {
	directory string
	dirRoots  *x509.CertPool // trusts the directory's own HTTPS certificate
	issuer    *x509.CertPool // trusts the certificates Pebble issues
	chall     *challtestsrv.ChallSrv
	log       *testkit.Buffer
}

// startPebble runs an ACME server whose validation authority reaches
// tls-alpn-01 on tlsPort and http-01 on httpPort.
func startPebble(t *testing.T, httpPort, tlsPort int) *pebble {
	t.Helper()
	t.Setenv("PEBBLE_VA_NOSLEEP", "1") // validate at once instead of after a random pause
	logBuf := &testkit.Buffer{}
	logger := log.New(logBuf, "pebble ", log.Lmicroseconds)

	// challtestsrv registers its DNS handler on dns.DefaultServeMux; serving
	// that mux on a listener opened here avoids guessing a free port. The
	// VA asks over TCP.
	chall, err := challtestsrv.New(challtestsrv.Config{DNSAddrs: []string{"127.0.0.1:0"}, Log: logger})
	if err != nil {
		t.Fatalf("challtestsrv: %v", err)
	}
	chall.SetDefaultDNSIPv6("") // answer A only, so the VA dials 127.0.0.1
	dnsLn := testkit.Listen(t)
	dnsSrv := &dns.Server{Listener: dnsLn, Net: "tcp", Handler: dns.DefaultServeMux}
	go dnsSrv.ActivateAndServe()
	t.Cleanup(func() { dnsSrv.Shutdown() })

	store := db.NewMemoryStore()
	profiles := map[string]ca.Profile{"default": {Description: "test profile"}}
	authority := ca.New(logger, store, "", "ecdsa", 0, 1, profiles)
	validator := va.New(logger, httpPort, tlsPort, false, dnsLn.Addr().String(), store)
	front := wfe.New(logger, store, validator, authority, []string{"pebble.letsencrypt.org"}, false, false, 0, 0)
	srv := httptest.NewUnstartedServer(front.Handler())
	srv.Config.ErrorLog = logger
	srv.StartTLS()
	t.Cleanup(srv.Close)

	dirRoots := x509.NewCertPool()
	dirRoots.AddCert(srv.Certificate())
	issuer := x509.NewCertPool()
	issuer.AddCert(authority.GetRootCert(0).Cert)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("pebble log:\n%s", logBuf.String())
		}
	})
	return &pebble{directory: srv.URL + wfe.DirectoryPath, dirRoots: dirRoots, issuer: issuer, chall: chall, log: logBuf}
}

func listenLoopback(t *testing.T) (net.Listener, int) {
	t.Helper()
	ln := testkit.Listen(t)
	return ln, ln.Addr().(*net.TCPAddr).Port
}

// testHandler is what cortex serves in these tests: /healthz and an MCP
// endpoint behind bearer tokens, with the SDK's localhost guard off as
// cortex does (the request arrives on 127.0.0.1 with the public Host).
func testHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	server := mcp.NewServer(&mcp.Implementation{Name: "cortex-test", Version: "test"}, nil)
	type pong struct {
		Pong string `json:"pong"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "ping", Description: "answers pong"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, pong, error) {
			return nil, pong{Pong: "pong"}, nil
		})
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{DisableLocalhostProtection: true})
	verify := func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		if token != "good-token" {
			return nil, fmt.Errorf("unknown token: %w", auth.ErrInvalidToken)
		}
		return &auth.TokenInfo{UserID: "owner", Expiration: time.Now().Add(time.Hour)}, nil
	}
	mux.Handle("/mcp", auth.RequireBearerToken(verify, nil)(mcpHandler))
	return mux
}

// clientFor returns an HTTP client that reaches testHost:443 and :80 at the
// given loopback listeners and trusts roots.
func clientFor(roots *x509.CertPool, httpsAddr, httpAddr string, header http.Header) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			switch addr {
			case testHost + ":443":
				addr = httpsAddr
			case testHost + ":80":
				addr = httpAddr
			}
			return dialer.DialContext(ctx, network, addr)
		},
		TLSClientConfig:     &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout: 2 * time.Minute, // the first handshake waits for the certificate
		ForceAttemptHTTP2:   true,
	}
	var rt http.RoundTripper = tr
	if header != nil {
		rt = headerTransport{header, tr}
	}
	return &http.Client{
		Transport:     rt,
		Timeout:       3 * time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

type headerTransport struct {
	h  http.Header
	rt http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	return t.rt.RoundTrip(r)
}

type acmeSetup struct {
	pebble          *pebble
	httpsLn, httpLn net.Listener
	opts            Options
	logs            *testkit.Buffer
	done            chan error
	cancel          context.CancelFunc
}

func startACME(t *testing.T) *acmeSetup {
	t.Helper()
	httpsLn, httpsPort := listenLoopback(t)
	httpLn, httpPort := listenLoopback(t)
	p := startPebble(t, httpPort, httpsPort)
	logs := &testkit.Buffer{}
	o := Options{
		Mode:         ModeACME,
		PublicURL:    config.MustParsePublicURL("https://" + testHost),
		CacheDir:     filepath.Join(t.TempDir(), "state", "acme"),
		DirectoryURL: p.directory,
		Email:        "owner@example.org",
		RootCAs:      p.dirRoots,
		Logger:       slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
	}.WithDefaults()
	if err := o.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &acmeSetup{pebble: p, httpsLn: httpsLn, httpLn: httpLn, opts: o, logs: logs, done: make(chan error, 1), cancel: cancel}
	go func() { s.done <- serveACME(ctx, o, testHandler(), httpsLn, httpLn) }()
	t.Cleanup(func() {
		s.stop(t)
		if t.Failed() {
			t.Logf("cortex log:\n%s", logs.String())
		}
	})
	return s
}

func (s *acmeSetup) stop(t *testing.T) {
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	if err := <-s.done; err != nil {
		t.Errorf("serveACME returned %v after cancel, want nil", err)
	}
}

func (s *acmeSetup) client(header http.Header) *http.Client {
	return clientFor(s.pebble.issuer, s.httpsLn.Addr().String(), s.httpLn.Addr().String(), header)
}

func TestACMEIssuesCertificateThroughTLSALPN(t *testing.T) {
	s := startACME(t)
	ctx := t.Context()

	resp, err := s.client(nil).Get("https://" + testHost + "/healthz")
	if err != nil {
		t.Fatalf("GET /healthz over verified TLS: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "ok\n" {
		t.Fatalf("/healthz = %d %q, want 200 ok", resp.StatusCode, body)
	}
	if got := resp.Header.Get("Strict-Transport-Security"); !strings.HasPrefix(got, "max-age=") {
		t.Errorf("HSTS header = %q, want max-age=…", got)
	}
	leaf := resp.TLS.PeerCertificates[0]
	if len(leaf.DNSNames) != 1 || leaf.DNSNames[0] != testHost {
		t.Errorf("certificate names = %v, want [%s]", leaf.DNSNames, testHost)
	}
	if resp.TLS.Version < tls.VersionTLS12 {
		t.Errorf("TLS version %x below 1.2", resp.TLS.Version)
	}
	// autocert offers tls-alpn-01 first; had it failed, Pebble would have
	// gone on to an http-01 validation.
	if pl := s.pebble.log.String(); !strings.Contains(pl, "set VALID by completed challenge") || strings.Contains(pl, "validate w/ HTTP") {
		t.Errorf("pebble did not validate through tls-alpn-01 alone")
	}

	// The certificate and account key are cached in a private folder.
	fi, err := os.Stat(s.opts.CacheDir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("cache folder mode = %v, want 0700", fi.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join(s.opts.CacheDir, testHost)); err != nil {
		t.Errorf("certificate not cached: %v", err)
	}

	// An authenticated MCP call over the same verified TLS.
	hdr := http.Header{"Authorization": {"Bearer good-token"}}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "test"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:             "https://" + testHost + "/mcp",
		HTTPClient:           s.client(hdr),
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}, nil)
	if err != nil {
		t.Fatalf("MCP connect with a valid token: %v", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ping"})
	if err != nil || res.IsError {
		t.Fatalf("CallTool ping = %+v, %v", res, err)
	}
	if got := fmt.Sprint(res.StructuredContent); !strings.Contains(got, "pong") {
		t.Errorf("ping result = %s, want pong", got)
	}
	cs.Close()

	// Without a token, /mcp refuses.
	bad := s.client(http.Header{"Authorization": {"Bearer wrong"}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "https://"+testHost+"/mcp", strings.NewReader(`{}`))
	resp, err = bad.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/mcp with a wrong token = %d, want 401", resp.StatusCode)
	}

	// Port 80 redirects to the public https URL, but answers /healthz to loopback.
	plain := s.client(nil)
	resp, err = plain.Get("http://" + testHost + "/notes?q=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusPermanentRedirect || loc != "https://"+testHost+"/notes?q=1" {
		t.Errorf("http GET = %d Location %q, want 308 to https", resp.StatusCode, loc)
	}
	health, err := HealthURL(Options{Mode: ModeACME, HTTPAddr: s.httpLn.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	resp, err = plain.Get(health)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("healthcheck URL %s = %d, want 200", health, resp.StatusCode)
	}
}

func TestACMEWrongDNSAnswerGivesNoCertificate(t *testing.T) {
	s := startACME(t)
	// The name resolves to a loopback address where nothing listens.
	s.pebble.chall.AddDNSARecord(testHost, []string{"127.0.0.2"})

	for i := range 2 {
		_, err := s.client(nil).Get("https://" + testHost + "/healthz")
		if err == nil {
			t.Fatalf("attempt %d: request succeeded, want a TLS failure", i)
		}
	}
	logs := s.logs.String()
	t.Logf("cortex log:\n%s", logs)
	if n := strings.Count(logs, "could not obtain a TLS certificate"); n != 1 {
		t.Errorf("log has %d certificate failure lines, want 1 (the second attempt must wait):\n%s", n, logs)
	}
	for _, want := range []string{"level=ERROR", "host=" + testHost, "retry_in=1m0s", "DNS name points at this machine",
		"tls-alpn-01: Failed to connect to 127.0.0.2:"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
	if _, err := os.Stat(filepath.Join(s.opts.CacheDir, testHost)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a certificate was cached: %v", err)
	}
}
