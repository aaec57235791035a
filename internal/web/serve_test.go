package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cortex-mcp/cortex/internal/certs"
)

// serveOn serves h on ln through the one serve path, in mode off.
func serveOn(ctx context.Context, t *testing.T, ln net.Listener, h http.Handler, grace time.Duration) error {
	srv, err := certs.New(certs.Options{Mode: certs.ModeOff, ListenAddr: ln.Addr().String(), Listener: ln, ShutdownGrace: grace})
	if err != nil {
		t.Error(err)
		return err
	}
	return srv.Serve(ctx, h)
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// signalGET reports on got when a GET response (an SSE stream) has begun.
type signalGET struct {
	base http.RoundTripper
	got  chan struct{}
}

func (s signalGET) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.base.RoundTrip(r)
	if err == nil && r.Method == http.MethodGet {
		select {
		case s.got <- struct{}{}:
		default:
		}
	}
	return resp, err
}

func TestServeClosesMCPStreamsAndFinishesCalls(t *testing.T) {
	h := newHarness(t, nil)
	ln := listen(t)
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- serveOn(ctx, t, ln, h.srv.Handler(), 5*time.Second) }()

	got := make(chan struct{}, 1)
	rt := signalGET{bearer{secretA, http.DefaultTransport}, got}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: "http://" + ln.Addr().String() + "/mcp", HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	<-got // the standalone SSE stream is open
	// A second client, without a stream of its own, runs a tool call.
	// (The first one gives up its session once its stream cannot be
	// reopened, as MaxRetries -1 asks.)
	cs2, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: "http://" + ln.Addr().String() + "/mcp", HTTPClient: &http.Client{Transport: rt},
		MaxRetries: -1, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	called := make(chan error, 1)
	go func() {
		_, err := cs2.CallTool(context.Background(), &mcp.CallToolParams{Name: "block"})
		called <- err
	}()
	<-h.entered // a tool call (say, a write) is running

	cancel()
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v while a tool call was running", err)
	case err := <-called:
		t.Fatalf("tool call ended by shutdown: %v", err)
	default:
	}
	close(h.release)
	if err := <-called; err != nil {
		t.Errorf("tool call during shutdown: %v", err)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve with an open MCP stream: %v", err)
	}
}

func TestSlowBodyIsCutOff(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.BodyReadTimeout = 200 * time.Millisecond })
	ln := listen(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveOn(ctx, t, ln, h.srv.Handler(), 0) }()
	defer func() { cancel(); <-done }()

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Headers, one byte of a promised 1000, then nothing.
	fmt.Fprintf(conn, "POST /login/totp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nx", "127.0.0.1")
	// The server must give up on the body and close the connection; the
	// read returns when it does (the test's own deadline only guards a hang).
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err = io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the server kept a trickling connection open")
	}
}
